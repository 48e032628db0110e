//! soapstone-macros
