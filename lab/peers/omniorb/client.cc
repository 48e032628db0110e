// omniORB 4 client of dp::TestService, speaking the lab's peer-client protocol (docs/lab.md):
//   dp-omniorb-client URL OP N WARMUP_S WINDOW_S
// calls OP (doNothing | getStringOfSize | getIntegersOfSize) one at a time for WARMUP_S seconds
// (not recorded), then WINDOW_S seconds, checks every answer, and prints one JSON line:
//   {"ok":..,"errors":..,"first_error":..,"samples_us":[..]}
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include "dp.hh"

using Clock = std::chrono::steady_clock;
static const size_t MAX_SAMPLES = 1000000;

static std::string check(dp::TestService_ptr svc, const std::string& op, CORBA::Long n) {
  if (op == "doNothing") {
    svc->doNothing();
    return "";
  }
  if (op == "getStringOfSize") {
    CORBA::String_var s = svc->getStringOfSize(n);
    std::string got(s.in());
    if (got.size() != static_cast<size_t>(n)) return "wrong string length";
    for (CORBA::Long i = 0; i < n; ++i)
      if (got[i] != static_cast<char>('a' + i % 26)) return "wrong string content";
    return "";
  }
  if (op == "getIntegersOfSize") {
    dp::Integers_var v = svc->getIntegersOfSize(n);
    if (v->length() != static_cast<CORBA::ULong>(n)) return "wrong number of integers";
    for (CORBA::Long i = 0; i < n; ++i)
      if (v[i] != i) return "wrong integer";
    return "";
  }
  return "unknown operation `" + op + "`";
}

int main(int argc, char** argv) {
  if (argc != 6) {
    std::cerr << "usage: dp-omniorb-client URL OP N WARMUP_S WINDOW_S" << std::endl;
    return 2;
  }
  std::string url = argv[1], op = argv[2];
  CORBA::Long n = std::atol(argv[3]);
  double warmup = std::atof(argv[4]), window = std::atof(argv[5]);
  int orb_argc = 1;
  CORBA::ORB_var orb = CORBA::ORB_init(orb_argc, argv);
  CORBA::Object_var obj = orb->string_to_object(url.c_str());
  dp::TestService_var svc = dp::TestService::_narrow(obj);
  if (CORBA::is_nil(svc)) {
    std::cerr << "dp-omniorb-client: `" << url << "` is not a dp::TestService" << std::endl;
    return 1;
  }
  std::vector<double> samples;
  unsigned long ok = 0, errors = 0;
  std::string first_error;
  auto record = [&](const std::string& e) {
    ++errors;
    if (first_error.empty()) first_error = e;
  };
  auto start = Clock::now();
  auto warm_end = start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(warmup));
  auto end = warm_end + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(window));
  while (true) {
    auto t0 = Clock::now();
    if (t0 >= end) break;
    std::string err;
    try {
      err = check(svc, op, n);
    } catch (CORBA::Exception& e) {
      err = std::string("CORBA exception ") + e._name();
    }
    auto t1 = Clock::now();
    if (t0 < warm_end) continue;
    if (!err.empty()) {
      record(err);
      continue;
    }
    ++ok;
    if (samples.size() < MAX_SAMPLES)
      samples.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
  }
  std::string out = "{\"ok\":" + std::to_string(ok) + ",\"errors\":" + std::to_string(errors) +
                    ",\"first_error\":";
  out += first_error.empty() ? "null" : "\"" + first_error + "\"";
  out += ",\"samples_us\":[";
  char buf[32];
  for (size_t i = 0; i < samples.size(); ++i) {
    std::snprintf(buf, sizeof buf, i ? ",%.2f" : "%.2f", samples[i]);
    out += buf;
  }
  out += "]}";
  std::cout << out << std::endl;
  orb->destroy();
  return 0;
}
