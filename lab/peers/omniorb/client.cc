// omniORB 4 client of dp::TestService and thesis::Charging, speaking the lab's peer-client
// protocol (docs/lab.md):
//   dp-omniorb-client URL OP N WARMUP_S WINDOW_S
// OP is a dp call (doNothing | getStringOfSize | getIntegersOfSize, URL .../dp), a charging call
// (creditControl | credit | check, URL .../charging), or a load pattern (load:stress |
// load:peak | load:traffic, URL .../charging).
// A call OP is made one at a time for WARMUP_S seconds (not recorded; at least one call), then for
// WINDOW_S seconds and until at least MIN_CALLS answers are recorded (a slow first call on a
// busy CPU must not leave an empty window), checking every answer; it prints one JSON line:
//   {"ok":..,"errors":..,"first_error":..,"samples_us":[..]}
// A load pattern runs CONNECTIONS threads sending credit(8, 147) for WINDOW_S seconds: stress =
// back to back; peak = 1 s bursts at full speed whose starts are Poisson with a mean gap of 2 s;
// traffic = Poisson arrivals at N calls/s over all threads. It prints `load started` once the
// object is resolved, stops early when it reads a line `stop` on stdin (the lab's signal that its
// measured points are done; end of input alone does not stop it), then prints the same JSON line
// (samples are the load calls' own latencies).
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "charging.hh"
#include "dp.hh"

using Clock = std::chrono::steady_clock;
static const size_t MAX_SAMPLES = 1000000;
// The lab flags a point with fewer calls as suspect (report/suspect.rs MIN_SAMPLES).
static const size_t MIN_CALLS = 30;
// The most a window is stretched to reach MIN_CALLS.
static const double MAX_STRETCH_S = 30.0;
static const int CONNECTIONS = 5;

static Clock::duration secs(double s) {
  return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(s));
}

// A call and its check; "" when the answer is right.
static std::string dp_call(dp::TestService_ptr svc, const std::string& op, CORBA::Long n) {
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

// Appendix C's calls: creditControl(6), credit(8, 147); `check` reads, credits and reads again
// (the balance must grow by exactly 147) and expects faults for an unknown account and a
// non-positive amount.
static std::string charging_call(thesis::Charging_ptr svc, const std::string& op, CORBA::Long& last_cn) {
  if (op == "creditControl") {
    if (svc->creditControl(6) < 0) return "negative balance";
    return "";
  }
  if (op == "credit") {
    CORBA::Long cn = svc->credit(8, 147);
    if (cn <= last_cn) return "transaction number `" + std::to_string(cn) + "` did not grow";
    last_cn = cn;
    return "";
  }
  if (op == "check") {
    CORBA::Long before = svc->creditControl(8);
    CORBA::Long cn = svc->credit(8, 147);
    CORBA::Long after = svc->creditControl(8);
    if (cn <= 0) return "transaction number `" + std::to_string(cn) + "` is not positive";
    if (after != before + 147)
      return "balance " + std::to_string(before) + " + 147 read back as " + std::to_string(after);
    try {
      svc->creditControl(0);
      return "creditControl(0) of no account answered";
    } catch (thesis::ChargingFault&) {
    }
    try {
      svc->credit(8, 0);
      return "credit of 0 answered";
    } catch (thesis::ChargingFault&) {
    }
    return "";
  }
  return "unknown operation `" + op + "`";
}

struct Tally {
  std::mutex m;
  std::vector<double> samples;
  unsigned long ok = 0, errors = 0;
  std::string first_error;
  void add(const std::string& err, double us) {
    std::lock_guard<std::mutex> g(m);
    if (!err.empty()) {
      ++errors;
      if (first_error.empty()) first_error = err;
      return;
    }
    ++ok;
    if (samples.size() < MAX_SAMPLES) samples.push_back(us);
  }
  void print() {
    std::string out = "{\"ok\":" + std::to_string(ok) + ",\"errors\":" + std::to_string(errors) +
                      ",\"first_error\":";
    std::string e;
    for (char c : first_error) e += (c == '"' || c == '\\') ? '\'' : (c < 0x20 ? ' ' : c);
    out += first_error.empty() ? "null" : "\"" + e + "\"";
    out += ",\"samples_us\":[";
    char buf[32];
    for (size_t i = 0; i < samples.size(); ++i) {
      std::snprintf(buf, sizeof buf, i ? ",%.2f" : "%.2f", samples[i]);
      out += buf;
    }
    out += "]}";
    std::cout << out << std::endl;
  }
};

template <class F>
static std::string guarded(F f) {
  try {
    return f();
  } catch (thesis::ChargingFault& e) {
    return std::string("ChargingFault: ") + e.reason.in();
  } catch (CORBA::Exception& e) {
    return std::string("CORBA exception ") + e._name();
  }
}

static std::atomic<bool> stopped{false};

// Sleeps until `t` in slices short enough to notice `stop`.
static void nap_until(Clock::time_point t) {
  while (!stopped && Clock::now() < t) std::this_thread::sleep_until(std::min(t, Clock::now() + secs(0.02)));
}

static void load(thesis::Charging_ptr svc, const std::string& pattern, double rate, double duration, Tally& tally) {
  auto start = Clock::now();
  auto end = start + secs(duration);
  std::vector<Clock::time_point> bursts;
  std::mt19937_64 rng(2002);
  std::exponential_distribution<double> gap(1.0 / 2.0);
  for (auto t = start; t < end; t += secs(gap(rng))) bursts.push_back(t);
  std::vector<std::thread> threads;
  for (int c = 0; c < CONNECTIONS; ++c) {
    threads.emplace_back([&, c] {
      std::mt19937_64 r(7 + c);
      std::exponential_distribution<double> arrival(std::max(rate, 0.001) / CONNECTIONS);
      auto next = Clock::now() + secs(arrival(r));
      while (true) {
        auto now = Clock::now();
        if (now >= end || stopped) break;
        if (pattern == "peak") {
          auto in = std::find_if(bursts.begin(), bursts.end(),
                                 [&](Clock::time_point b) { return now >= b && now < b + secs(1.0); });
          if (in == bursts.end()) {
            auto after = std::find_if(bursts.begin(), bursts.end(), [&](Clock::time_point b) { return b > now; });
            nap_until(after == bursts.end() ? end : std::min(*after, end));
            continue;
          }
        } else if (pattern == "traffic") {
          if (next > now) {
            nap_until(std::min(next, end));
            continue;
          }
          next += secs(arrival(r));
        }
        auto t0 = Clock::now();
        std::string err = guarded([&] {
          return svc->credit(8, 147) > 0 ? std::string() : std::string("non-positive transaction number");
        });
        tally.add(err, std::chrono::duration<double, std::micro>(Clock::now() - t0).count());
      }
    });
  }
  for (auto& t : threads) t.join();
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
  // Five connections for the five load threads (omniORB's default, said here).
  const char* options[][2] = {{"maxGIOPConnectionPerServer", "5"}, {nullptr, nullptr}};
  CORBA::ORB_var orb = CORBA::ORB_init(orb_argc, argv, "omniORB4", options);
  CORBA::Object_var obj = orb->string_to_object(url.c_str());
  bool is_charging = op == "creditControl" || op == "credit" || op == "check" || op.rfind("load:", 0) == 0;
  dp::TestService_var dsvc;
  thesis::Charging_var csvc;
  if (is_charging) {
    csvc = thesis::Charging::_narrow(obj);
  } else {
    dsvc = dp::TestService::_narrow(obj);
  }
  if (is_charging ? CORBA::is_nil(csvc) : CORBA::is_nil(dsvc)) {
    std::cerr << "dp-omniorb-client: `" << url << "` is not a " << (is_charging ? "thesis::Charging" : "dp::TestService")
              << std::endl;
    return 1;
  }
  Tally tally;
  if (op.rfind("load:", 0) == 0) {
    std::string pattern = op.substr(5);
    if (pattern != "stress" && pattern != "peak" && pattern != "traffic") {
      std::cerr << "dp-omniorb-client: unknown load pattern `" << pattern << "`" << std::endl;
      return 2;
    }
    std::cout << "load started" << std::endl;
    std::thread([] {
      std::string line;
      while (std::getline(std::cin, line))
        if (line == "stop") stopped = true;
    }).detach();
    load(csvc, pattern, static_cast<double>(n), window, tally);
    tally.print();
    orb->destroy();
    return 0;
  }
  CORBA::Long last_cn = 0;
  auto start = Clock::now();
  auto warm_end = start + secs(warmup);
  auto end = warm_end + secs(window);
  auto cap = end + secs(MAX_STRETCH_S);
  unsigned long warm_calls = 0;
  while (true) {
    auto t0 = Clock::now();
    size_t recorded = tally.ok + tally.errors;
    if ((t0 >= end && recorded >= MIN_CALLS) || t0 >= cap) break;
    std::string err = guarded([&] { return is_charging ? charging_call(csvc, op, last_cn) : dp_call(dsvc, op, n); });
    auto t1 = Clock::now();
    if (t0 < warm_end || warm_calls == 0) {
      ++warm_calls;
      continue;
    }
    tally.add(err, std::chrono::duration<double, std::micro>(t1 - t0).count());
  }
  tally.print();
  orb->destroy();
  return 0;
}
