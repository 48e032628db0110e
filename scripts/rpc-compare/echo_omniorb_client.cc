// omniORB 4 echoFloat client for scripts/rpc-compare.sh (issue 12):
//   echo-omniorb-client URL N
// makes N untimed calls (warm-up), then N timed sequential calls on one GIOP connection,
// checks every answer, and prints the mean round trip in microseconds (or exits 1).
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>

#include "echo.hh"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: echo-omniorb-client URL N" << std::endl;
    return 2;
  }
  long n = std::atol(argv[2]);
  int orb_argc = 1;
  CORBA::ORB_var orb = CORBA::ORB_init(orb_argc, argv);
  CORBA::Object_var obj = orb->string_to_object(argv[1]);
  rpccmp::Echo_var echo = rpccmp::Echo::_narrow(obj);
  const CORBA::Float v = 654.321f;
  for (long i = 0; i < n; ++i) echo->echoFloat(v);
  auto start = std::chrono::steady_clock::now();
  for (long i = 0; i < n; ++i) {
    if (echo->echoFloat(v) != v) {
      std::cerr << "echo-omniorb-client: wrong answer" << std::endl;
      return 1;
    }
  }
  double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count();
  std::printf("%.3f\n", us / n);
  orb->destroy();
  return 0;
}
