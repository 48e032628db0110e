// The SOAPBuilders Round 2 base echoes (contract/echo.wsdl, rpc/encoded in
// http://soapinterop.org/, gSOAP's `i` prefix from its typemap) for the gSOAP peer: wsdl2h reads
// echo.wsdl into the same header as dp.wsdl and ruby-echo.wsdl (see setup.sh), so the one
// soap_serve of server.cpp dispatches these too, on any path (the lab uses /round2). gSOAP
// decodes each argument into its generated type and encodes the result from it; each echo
// returns its argument. Each operation exists twice (the WSDL's SOAP 1.1 and 1.2 bindings); the
// `_` forms answer the same.
#include "soapH.h"

#define SCALAR(op, T)                                                     \
  int i__##op(struct soap*, T in, T& out) { out = in; return SOAP_OK; }   \
  int i__##op##_(struct soap*, T in, T& out) { out = in; return SOAP_OK; }

SCALAR(echoString, char*)
SCALAR(echoInteger, int)
SCALAR(echoFloat, float)
SCALAR(echoBase64, xsd__base64Binary)
SCALAR(echoDate, time_t)
SCALAR(echoHexBinary, xsd__hexBinary)
SCALAR(echoDecimal, char*)
SCALAR(echoBoolean, bool)

#define WRAPPED(op, T, field)                                                                     \
  int i__##op(struct soap*, T* in, struct i__##op##Response& out) { out.field = in; return SOAP_OK; } \
  int i__##op##_(struct soap*, T* in, struct i__##op##Response_& out) { out.field = in; return SOAP_OK; }

WRAPPED(echoStringArray, ArrayOfstring, outputStringArray)
WRAPPED(echoIntegerArray, ArrayOfint_, outputIntegerArray)
WRAPPED(echoFloatArray, ArrayOffloat, outputFloatArray)
WRAPPED(echoStruct, i__SOAPStruct, outputStruct)
WRAPPED(echoStructArray, ArrayOfSOAPStruct, outputStructArray)

int i__echoVoid(struct soap*, struct i__echoVoidResponse&) { return SOAP_OK; }
int i__echoVoid_(struct soap*, struct i__echoVoidResponse_&) { return SOAP_OK; }
