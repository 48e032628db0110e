//! soapstone-server
