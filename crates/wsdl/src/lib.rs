//! soapstone-wsdl (to be written)
