//! soapstone-services
