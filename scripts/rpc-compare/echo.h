// gSOAP service declaration of SOAPBuilders' echoFloat (rpc/encoded, http://soapinterop.org/),
// the one operation of the issue 12 comparison; soapcpp2 generates the server from it.
//gsoap ns service name: Echo
//gsoap ns service namespace: http://soapinterop.org/
//gsoap ns service location: http://127.0.0.1/echo
//gsoap ns service style: rpc
//gsoap ns service encoding: encoded
//gsoap ns schema namespace: http://soapinterop.org/
int ns__echoFloat(float inputFloat, float &return_);
