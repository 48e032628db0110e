// gSOAP 2.8 echoFloat server for scripts/rpc-compare.sh (issue 12). `echo-gsoap PORT` serves
// 127.0.0.1:PORT with HTTP keep-alive and a thread per connection (gSOAP's documented
// multi-threaded standalone server: soap_copy + a detached thread), so that the load half of
// the comparison (8 and 64 connections) is served at all; a single round trip runs on one
// connection's thread exactly as the one-thread server of lab/peers/gsoap would.
#include <pthread.h>

#include <cstdio>
#include <cstdlib>

#include "Echo.nsmap"
#include "soapH.h"

int ns__echoFloat(struct soap*, float inputFloat, float& return_) {
  return_ = inputFloat;
  return SOAP_OK;
}

static void* serve_one(void* arg) {
  struct soap* soap = static_cast<struct soap*>(arg);
  pthread_detach(pthread_self());
  soap_serve(soap);  // every request of the keep-alive connection
  soap_destroy(soap);
  soap_end(soap);
  soap_free(soap);
  return nullptr;
}

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: echo-gsoap PORT\n");
    return 2;
  }
  struct soap* soap = soap_new1(SOAP_IO_KEEPALIVE);
  soap->bind_flags = SO_REUSEADDR;
  soap->send_timeout = soap->recv_timeout = 30;
  soap->max_keep_alive = 1000000;
  if (!soap_valid_socket(soap_bind(soap, "127.0.0.1", std::atoi(argv[1]), 100))) {
    soap_print_fault(soap, stderr);
    return 1;
  }
  for (;;) {
    if (!soap_valid_socket(soap_accept(soap))) continue;
    struct soap* conn = soap_copy(soap);
    if (!conn) {
      soap_force_closesock(soap);
      continue;
    }
    pthread_t tid;
    if (pthread_create(&tid, nullptr, serve_one, conn) != 0) {
      soap_force_closesock(conn);
      soap_free(conn);
    }
  }
}
