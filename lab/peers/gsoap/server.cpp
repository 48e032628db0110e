// gSOAP 2.8 server of Davis & Parashar's TestService, generated from the same WSDL soapstone
// serves (contract/dp.wsdl: `wsdl2h` then `soapcpp2 -L -x`, see setup.sh), and of Ruby's
// echoFloat (contract/ruby-echo.wsdl, generated with it), the peer
// standing for a C/C++ SOAP stack. `dp-gsoap-server PORT [HOST]` listens on HOST:PORT (default 127.0.0.1) and serves
// one connection at a time in one thread (gSOAP's simplest standalone server) with HTTP
// keep-alive (SOAP_IO_KEEPALIVE). Each operation exists twice in the generated
// code (the WSDL's SOAP 1.1 and SOAP 1.2 bindings); the `_` forms answer the same.
#include <cstdio>
#include <cstdlib>

#include "TestServiceSoap11Binding.nsmap"
#include "soapH.h"

static const int MAX_SIZE = 100000;

static int bad_size(struct soap* soap, int n) {
  char msg[96];
  std::snprintf(msg, sizeof msg, "size `%d` is out of range `0..=%d`", n, MAX_SIZE);
  return soap_sender_fault(soap, msg, nullptr);
}

static int string_of(struct soap* soap, int n, char*& out) {
  if (n < 0 || n > MAX_SIZE) return bad_size(soap, n);
  out = static_cast<char*>(soap_malloc(soap, static_cast<size_t>(n) + 1));
  for (int i = 0; i < n; ++i) out[i] = static_cast<char>('a' + i % 26);
  out[n] = '\0';
  return SOAP_OK;
}

static int integers_of(struct soap* soap, int n, ArrayOfint*& out) {
  if (n < 0 || n > MAX_SIZE) return bad_size(soap, n);
  out = soap_new_ArrayOfint(soap);
  out->__size = n;
  out->__ptr = static_cast<int*>(soap_malloc(soap, sizeof(int) * (n > 0 ? n : 1)));
  for (int i = 0; i < n; ++i) out->__ptr[i] = i;
  return SOAP_OK;
}

// The server-wide size of the paper's setSize/getString/getIntegers (one thread: no lock).
static int g_size = 200;

int ns1__doNothing(struct soap*, struct ns1__doNothingResponse&) { return SOAP_OK; }
int ns1__setSize(struct soap* soap, int size, struct ns1__setSizeResponse&) {
  if (size < 0 || size > MAX_SIZE) return bad_size(soap, size);
  g_size = size;
  return SOAP_OK;
}
int ns1__getString(struct soap* soap, char*& r) { return string_of(soap, g_size, r); }
int ns1__getIntegers(struct soap* soap, struct ns1__getIntegersResponse& r) {
  return integers_of(soap, g_size, r.return_);
}
int ns1__getStringOfSize(struct soap* soap, int n, char*& r) { return string_of(soap, n, r); }
int ns1__getIntegersOfSize(struct soap* soap, int n, struct ns1__getIntegersOfSizeResponse& r) {
  return integers_of(soap, n, r.return_);
}

int ns1__doNothing_(struct soap*, struct ns1__doNothingResponse_&) { return SOAP_OK; }
int ns1__setSize_(struct soap* soap, int size, struct ns1__setSizeResponse_&) {
  struct ns1__setSizeResponse r;
  return ns1__setSize(soap, size, r);
}
int ns1__getString_(struct soap* soap, char*& r) { return string_of(soap, g_size, r); }
int ns1__getIntegers_(struct soap* soap, struct ns1__getIntegersResponse_& r) {
  return integers_of(soap, g_size, r.return_);
}
int ns1__getStringOfSize_(struct soap* soap, int n, char*& r) { return string_of(soap, n, r); }
int ns1__getIntegersOfSize_(struct soap* soap, int n, struct ns1__getIntegersOfSizeResponse_& r) {
  return integers_of(soap, n, r.return_);
}

// Sam Ruby's echoFloat (seed 002), document/literal in http://tempuri.org/, from
// contract/ruby-echo.wsdl (wsdl2h reads both WSDLs into one header, so one soap_serve dispatches
// both services by the body element, on any path; the lab uses /echo).
int __tempuri__echoFloat(struct soap*, _tempuri__echoFloat* in, _tempuri__echoFloatResult& out) {
  out.result = in ? in->input : 0.0f;
  return SOAP_OK;
}

int main(int argc, char** argv) {
  if (argc != 2 && argc != 3) {
    std::fprintf(stderr, "usage: dp-gsoap-server PORT [HOST]\n");
    return 2;
  }
  int port = std::atoi(argv[1]);
  const char* host = argc == 3 ? argv[2] : "127.0.0.1";  // the lab's emulated LAN passes its own
  struct soap* soap = soap_new1(SOAP_IO_KEEPALIVE | SOAP_C_UTFSTRING);
  soap->bind_flags = SO_REUSEADDR;
  soap->send_timeout = soap->recv_timeout = 30;  // seconds: an idle keep-alive client is dropped
  soap->accept_timeout = 0;
  soap->max_keep_alive = 1000000;
  if (!soap_valid_socket(soap_bind(soap, host, port, 100))) {
    soap_print_fault(soap, stderr);
    return 1;
  }
  std::printf("listening on http://%s:%d/dp\n", host, port);
  std::fflush(stdout);
  for (;;) {
    if (!soap_valid_socket(soap_accept(soap))) {
      soap_print_fault(soap, stderr);
      continue;
    }
    soap_serve(soap);  // serves every request of the keep-alive connection
    soap_destroy(soap);
    soap_end(soap);
  }
}
