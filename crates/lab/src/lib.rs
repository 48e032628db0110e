//! soapstone-lab
