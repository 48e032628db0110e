//! soapstone-bench
