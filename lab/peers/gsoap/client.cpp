// gSOAP 2.8 client of Davis & Parashar's TestService, generated from contract/dp.wsdl (the
// same generated code as server.cpp), speaking the lab's peer-client protocol (docs/lab.md):
//   dp-gsoap-client URL OP N WARMUP_S WINDOW_S
// calls OP one at a time for WARMUP_S seconds (not recorded), then WINDOW_S seconds, checks
// every answer, prints one JSON line {"ok","errors","first_error","samples_us"}. One soap
// context with HTTP keep-alive; its per-call memory is released after each call.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "TestServiceSoap11Binding.nsmap"
#include "soapH.h"

using Clock = std::chrono::steady_clock;
static const size_t MAX_SAMPLES = 1000000;

static std::string fault_of(struct soap* soap) {
  const char* s = soap_fault_string(soap);
  std::string out = s ? s : "soap error";
  for (char& c : out)
    if (c == '"' || c == '\\' || c == '\n') c = ' ';
  return "fault: " + out;
}

static std::string call(struct soap* soap, const char* url, const std::string& op, int n) {
  if (op == "doNothing") {
    ns1__doNothingResponse r;
    if (soap_call_ns1__doNothing(soap, url, "urn:test:soap#doNothing", r)) return fault_of(soap);
    return "";
  }
  if (op == "getStringOfSize") {
    char* s = nullptr;
    if (soap_call_ns1__getStringOfSize(soap, url, "urn:test:soap#getStringOfSize", n, s))
      return fault_of(soap);
    if (!s || static_cast<int>(std::string(s).size()) != n) return "wrong string length";
    for (int i = 0; i < n; ++i)
      if (s[i] != static_cast<char>('a' + i % 26)) return "wrong string content";
    return "";
  }
  if (op == "getIntegersOfSize") {
    ns1__getIntegersOfSizeResponse r;
    if (soap_call_ns1__getIntegersOfSize(soap, url, "urn:test:soap#getIntegersOfSize", n, r))
      return fault_of(soap);
    if (!r.return_ || r.return_->__size != n) return "wrong number of integers";
    for (int i = 0; i < n; ++i)
      if (r.return_->__ptr[i] != i) return "wrong integer";
    return "";
  }
  return "unknown operation `" + op + "`";
}

int main(int argc, char** argv) {
  if (argc != 6) {
    std::fprintf(stderr, "usage: dp-gsoap-client URL OP N WARMUP_S WINDOW_S\n");
    return 2;
  }
  const char* url = argv[1];
  std::string op = argv[2];
  int n = std::atoi(argv[3]);
  double warmup = std::atof(argv[4]), window = std::atof(argv[5]);
  struct soap* soap = soap_new1(SOAP_IO_KEEPALIVE | SOAP_C_UTFSTRING);
  soap->send_timeout = soap->recv_timeout = 30;
  std::vector<double> samples;
  unsigned long ok = 0, errors = 0;
  std::string first_error;
  auto warm_end = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(warmup));
  auto end = warm_end + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(window));
  for (;;) {
    auto t0 = Clock::now();
    if (t0 >= end && ok + errors > 0) break;
    std::string err = call(soap, url, op, n);
    auto t1 = Clock::now();
    soap_destroy(soap);
    soap_end(soap);
    if (t0 < warm_end) continue;
    if (!err.empty()) {
      ++errors;
      if (first_error.empty()) first_error = err;
      continue;
    }
    ++ok;
    if (samples.size() < MAX_SAMPLES)
      samples.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
  }
  std::printf("{\"ok\":%lu,\"errors\":%lu,\"first_error\":", ok, errors);
  if (first_error.empty())
    std::printf("null");
  else
    std::printf("\"%s\"", first_error.c_str());
  std::printf(",\"samples_us\":[");
  for (size_t i = 0; i < samples.size(); ++i) std::printf(i ? ",%.2f" : "%.2f", samples[i]);
  std::printf("]}\n");
  soap_free(soap);
  return 0;
}
