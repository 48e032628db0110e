#!/usr/bin/env bash
# The server's own time per echoFloat request on one CPU, to a tenth of a microsecond: from the
# moment its receive returns with the request to the moment it enters the send of the answer,
# taken from the kernel's raw_syscalls tracepoints (`perf record`), which a VM without
# hardware counters still has. On one CPU the server is preempted by the client it wakes on
# every send, so user time by clock ticks (scripts/one-cpu-ab.sh) is a split, not a
# measurement; this gap is the server's user-space work on the request and nothing else
# (docs/performance.md, "Round thirteen"). Each tracepoint adds the same small cost to every
# server, so compare rows, do not read one alone.
#
#   scripts/server-user-gap.sh [--calls N] [--cpu C] LABEL=PATH/soapstone [...] [omniorb]
#
# Each soapstone build serves `--services echo` pinned to CPU C (default 0) and is driven by
# rpc-compare's blocking C client (`blocking-http`) over one keep-alive connection; `omniorb`
# is omniORB's echo server of rpc-compare driven by its own client. Prints, per row, the
# median, 10th and 90th percentile of the receive-to-send gap and the median gap from the
# send back to the next receive (the client's turn and the kernel's, on one CPU).
# Needs root (tracepoints), perf, python3, and the programs scripts/rpc-compare.sh builds into
# target/rpc-compare (run it once).
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=target/rpc-compare
CALLS=20000 CPU=0
ROWS=()
while [ $# -gt 0 ]; do
  case "$1" in
    --calls) CALLS=$2; shift 2 ;;
    --cpu) CPU=$2; shift 2 ;;
    -h|--help) sed -n '2,19p' "$0"; exit 0 ;;
    omniorb|*=*) ROWS+=("$1"); shift ;;
    *) echo "server-user-gap: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done
[ ${#ROWS[@]} -gt 0 ] || ROWS=("soapstone=target/release/soapstone" omniorb)
for p in blocking-http echo-omniorb-server echo-omniorb-client echoFloat.xml; do
  [ -e "$OUT/$p" ] || { echo "server-user-gap: $OUT/$p missing: run scripts/rpc-compare.sh once" >&2; exit 2; }
done
command -v perf >/dev/null || { echo "server-user-gap: needs perf (apt-get install linux-perf)" >&2; exit 2; }
WORK=$(mktemp -d)
SPID=""
cleanup() { [ -n "$SPID" ] && kill "$SPID" 2>/dev/null; rm -rf "$WORK"; }
trap cleanup EXIT INT TERM
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_port() { for _ in $(seq 200); do (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return; sleep 0.05; done
  echo "server-user-gap: nothing listens on $1" >&2; exit 1; }

# record PID SECONDS: the server's system-call entries and exits, into $WORK/trace
record() {
  perf record -q -e raw_syscalls:sys_enter,raw_syscalls:sys_exit -p "$1" -o "$WORK/perf.data" \
    -- sleep "$2" >/dev/null 2>&1 &
  PERF=$!
  sleep 0.5
}

printf '%-16s %12s %10s %10s %16s\n' row "gap us" p10 p90 "send->recv us"
for row in "${ROWS[@]}"; do
  port=$(free_port)
  if [ "$row" = omniorb ]; then
    taskset -c "$CPU" "$OUT/echo-omniorb-server" "$port" >/dev/null 2>&1 & SPID=$!
    wait_port "$port"
    record "$SPID" 4
    taskset -c "$CPU" "$OUT/echo-omniorb-client" "corbaloc::127.0.0.1:$port/echo" "$CALLS" >/dev/null
  else
    taskset -c "$CPU" "${row#*=}" serve --addr "127.0.0.1:$port" --services echo >/dev/null 2>&1 & SPID=$!
    wait_port "$port"
    record "$SPID" 4
    taskset -c "$CPU" "$OUT/blocking-http" "$port" /echo http://soapinterop.org/ "$OUT/echoFloat.xml" "$CALLS" >/dev/null
  fi
  wait "$PERF" || true
  kill "$SPID" 2>/dev/null || true; wait "$SPID" 2>/dev/null || true; SPID=""
  perf script -i "$WORK/perf.data" --ns -F tid,time,event,trace 2>/dev/null | python3 -c '
import re, sys
RECV, SEND = {45, 0}, {44, 1}   # recvfrom/read, sendto/write (x86-64)
last_exit = {}
work, back = [], []
for line in sys.stdin:
    m = re.match(r"\s*(\d+)\s+([\d.]+):\s+raw_syscalls:sys_(enter|exit):\s+NR (\d+)", line)
    if not m:
        continue
    tid, t, kind, nr = int(m[1]), float(m[2]), m[3], int(m[4])
    if kind == "exit":
        last_exit[tid] = (t, nr)
        continue
    if tid in last_exit:
        t0, nr0 = last_exit[tid]
        if nr0 in RECV and nr in SEND:
            work.append((t - t0) * 1e6)
        elif nr0 in SEND and nr in RECV:
            back.append((t - t0) * 1e6)
if len(work) < 100:
    sys.exit("server-user-gap: %s: only %d requests traced" % (sys.argv[1], len(work)))
work.sort(); back.sort()
q = lambda v, f: v[int(len(v) * f)]
print("%-16s %12.2f %10.2f %10.2f %16.2f" % (sys.argv[1], q(work, .5), q(work, .1), q(work, .9), q(back, .5) if back else 0))
' "${row%%=*}"
done
