#!/usr/bin/env bash
# One echoFloat call on one CPU, many interleaved runs: soapstone builds side by side with
# omniORB and the blocking raw-TCP floor, for a host too noisy for scripts/rpc-compare.sh's few
# repeats (docs/performance.md, "Round eleven, continued": single runs of one binary spread from
# 10 to 14 us there; only medians of many interleaved runs meant anything).
#
#   scripts/one-cpu-ab.sh [--runs R] [--calls N] [--cpu C] [--quiet-host] [--server-args "..."] \
#       LABEL=PATH/soapstone [LABEL=PATH/soapstone ...] [LABEL=client:PATH/echo_loop ...]
#
# A `client:` row is the soapstone Client's blocking exchange (`echo_loop --blocking`, N calls
# after N of warm-up) against the first soapstone row's server: the whole stack beside
# omniORB's client and server (the client's user and system time are echo_loop's).
#
# Every server and client is pinned to CPU C (default 0). Each run starts every server afresh,
# drives it with the blocking C client of rpc-compare (`blocking-http`: one keep-alive connection,
# N calls after 2,000 of warm-up), and reads the server's user and system CPU time from
# /proc/PID/stat, so the table tells the server's own work from the kernel's. Rows: the median
# round trip, the median of its ratios to omniORB's run by run (each pair ran seconds apart,
# so the host's load, which moves the same binary by 3% between medians of 15 runs here,
# mostly cancels), and the server's user and system microseconds per call
# (summed over all runs; clock ticks, so read them as a split, not to the nanosecond), and the
# client's (perf stat's user_time and system_time).
#
# --quiet-host stops (SIGSTOP) every rustc, cc1, ld and cargo on the machine for the runs and
# continues them after (also on Ctrl-C), and runs the measurements at nice -20.
# Needs the programs scripts/rpc-compare.sh builds into target/rpc-compare (run it once).
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=target/rpc-compare
RUNS=21 CALLS=30000 CPU=0 QUIET=0 SERVER_ARGS=""
BINS=()
while [ $# -gt 0 ]; do
  case "$1" in
    --runs) RUNS=$2; shift 2 ;;
    --calls) CALLS=$2; shift 2 ;;
    --cpu) CPU=$2; shift 2 ;;
    --quiet-host) QUIET=1; shift ;;
    --server-args) SERVER_ARGS=$2; shift 2 ;;
    -h|--help) sed -n '2,25p' "$0"; exit 0 ;;
    *=*) BINS+=("$1"); shift ;;
    *) echo "one-cpu-ab: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done
[ ${#BINS[@]} -gt 0 ] || BINS=("soapstone=target/release/soapstone")
for p in blocking-http blocking-pingpong echo-omniorb-server echo-omniorb-client echoFloat.xml; do
  [ -e "$OUT/$p" ] || { echo "one-cpu-ab: $OUT/$p missing: run scripts/rpc-compare.sh once" >&2; exit 2; }
done
SERVER_BIN=""
for b in "${BINS[@]}"; do
  path=${b#*=}; path=${path#client:}
  [ -x "$path" ] || { echo "one-cpu-ab: $path is not an executable" >&2; exit 2; }
  case "${b#*=}" in client:*) ;; *) [ -n "$SERVER_BIN" ] || SERVER_BIN=$path ;; esac
done
[ -n "$SERVER_BIN" ] || { echo "one-cpu-ab: a client: row needs a soapstone row for its server" >&2; exit 2; }

STOPPED=""
resume() { [ -n "$STOPPED" ] && kill -CONT $STOPPED 2>/dev/null; STOPPED=""; }
PIDS=()
cleanup() { resume; for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done; }
trap cleanup EXIT INT TERM
NICE=()
if [ "$QUIET" = 1 ]; then
  # One name per pgrep: procps warns about (and may refuse) a pattern over 15 characters.
  STOPPED=$(for n in rustc cc1 cc1plus ld ld.lld cargo clippy-driver; do pgrep -x "$n"; done | tr '\n' ' ' || true)
  [ -n "$STOPPED" ] && kill -STOP $STOPPED
  NICE=(nice -n -20)
fi

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
ticks() { awk '{print $14 + $16, $15 + $17}' "/proc/$1/stat"; } # its own and its reaped children's
HZ=$(getconf CLK_TCK)

# start_soapstone BIN: starts it on an ephemeral port; sets SPID and SPORT.
start_soapstone() {
  local log; log=$(mktemp)
  # shellcheck disable=SC2086
  "${NICE[@]}" taskset -c "$CPU" "$1" serve --addr 127.0.0.1:0 --services echo $SERVER_ARGS >"$log" 2>&1 &
  SPID=$!; PIDS+=("$SPID")
  for _ in $(seq 200); do
    SPORT=$(sed -n 's/.*listening on [^ ]*:\([0-9][0-9]*\).*/\1/p' "$log" | head -1)
    [ -n "$SPORT" ] && break; sleep 0.05
  done
  [ -n "$SPORT" ] || { echo "one-cpu-ab: $1 did not say where it listens:" >&2; cat "$log" >&2; exit 1; }
  rm -f "$log"
}
start_port() { # start_port PORT CMD...: a server of rpc-compare on PORT; sets SPID
  local port=$1; shift
  "${NICE[@]}" taskset -c "$CPU" "$@" >/dev/null 2>&1 &
  SPID=$!; PIDS+=("$SPID")
  for _ in $(seq 200); do (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && return; sleep 0.05; done
  echo "one-cpu-ab: $* did not listen on $port" >&2; exit 1
}
stop() { kill "$SPID" 2>/dev/null || true; wait "$SPID" 2>/dev/null || true; }

declare -A MEANS USER SYS CUSER CSYS ROUND PAIRED
LABELS=()
for b in "${BINS[@]}"; do LABELS+=("${b%%=*}"); done
LABELS+=(omniorb floor-blocking)
for l in "${LABELS[@]}"; do USER[$l]=0 SYS[$l]=0 CUSER[$l]=0 CSYS[$l]=0; done

# run LABEL CLIENT...: runs the client against the started server SPID, records mean and CPU.
run() {
  local label=$1; shift
  local before after mean cpu
  before=$(ticks "$SPID")
  cpu=$(mktemp)
  mean=$("${NICE[@]}" perf stat -x, -e user_time,system_time -o "$cpu" taskset -c "$CPU" "$@")
  after=$(ticks "$SPID")
  MEANS[$label]+="$mean "
  ROUND[$label]=$mean
  CUSER[$label]=$(awk -F, -v t="${CUSER[$label]}" '$3 == "user_time" {t += $1} END {print t}' "$cpu")
  CSYS[$label]=$(awk -F, -v t="${CSYS[$label]}" '$3 == "system_time" {t += $1} END {print t}' "$cpu")
  rm -f "$cpu"
  read -r u0 s0 <<<"$before"; read -r u1 s1 <<<"$after"
  USER[$label]=$((USER[$label] + u1 - u0)); SYS[$label]=$((SYS[$label] + s1 - s0))
}

# The floor moves exactly the bytes of blocking-http's request and of soapstone's answer.
start_soapstone "$SERVER_BIN"
BODY_BYTES=$(wc -c <"$OUT/echoFloat.xml")
HEAD="POST /echo HTTP/1.1\r\nhost: 127.0.0.1:$SPORT\r\nuser-agent: soapstone-bench\r\ncontent-type: text/xml; charset=utf-8\r\nsoapaction: \"http://soapinterop.org/\"\r\ncontent-length: $BODY_BYTES\r\n\r\n"
REQ_BYTES=$(( $(printf "$HEAD" | wc -c) + BODY_BYTES ))
RESP_BYTES=$(curl -s -i --http1.1 -H 'content-type: text/xml; charset=utf-8' \
  -H 'soapaction: "http://soapinterop.org/"' --data-binary @"$OUT/echoFloat.xml" \
  "http://127.0.0.1:$SPORT/echo" | wc -c)
stop
echo "echoFloat on the wire: $REQ_BYTES bytes up, $RESP_BYTES bytes down" >&2

# one LABEL: one run of that row.
one() {
  case "$1" in
    omniorb)
      p=$(free_port); start_port "$p" "$OUT/echo-omniorb-server" "$p"
      run omniorb "$OUT/echo-omniorb-client" "corbaloc::127.0.0.1:$p/echo" "$CALLS" ;;
    floor-blocking)
      p=$(free_port); start_port "$p" "$OUT/blocking-pingpong" server "$p" "$REQ_BYTES" "$RESP_BYTES"
      run floor-blocking "$OUT/blocking-pingpong" client "$p" "$REQ_BYTES" "$RESP_BYTES" "$CALLS" ;;
    *)
      local b path
      for b in "${BINS[@]}"; do [ "${b%%=*}" = "$1" ] && path=${b#*=}; done
      case "$path" in
        client:*)
          start_soapstone "$SERVER_BIN"
          run "$1" "${path#client:}" --blocking "http://127.0.0.1:$SPORT/echo" "$CALLS" ;;
        *)
          start_soapstone "$path"
          run "$1" "$OUT/blocking-http" "$SPORT" /echo http://soapinterop.org/ "$OUT/echoFloat.xml" "$CALLS" ;;
      esac ;;
  esac
  stop
}

# Every round runs every row once, in an order rotated by one each round: no row always runs
# first after the compilers stopped, or right after another's teardown.
for r in $(seq "$RUNS"); do
  n=${#LABELS[@]}
  for k in $(seq 0 $((n - 1))); do one "${LABELS[$(( (k + r) % n ))]}"; done
  for l in "${LABELS[@]}"; do
    PAIRED[$l]+="$(awk -v a="${ROUND[$l]}" -v o="${ROUND[omniorb]}" 'BEGIN {printf "%.4f", a / o}') "
  done
  printf '.' >&2
done
echo >&2
resume

median() { tr ' ' '\n' | grep . | sort -g | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
echo "one echoFloat call on CPU $CPU: $RUNS interleaved runs of $CALLS calls ($(date -u +%H:%M) UTC)"
printf '%-16s %10s %10s %12s %12s %12s %12s\n' row "median us" "/ omniORB" "srv user us" "srv sys us" "cli user us" "cli sys us"
for l in "${LABELS[@]}"; do
  # calls a run makes: 2,000 of warm-up and N, but omniORB's client warms up with N
  CALLS_PER_RUN=$((CALLS + 2000))
  case "$l" in omniorb) CALLS_PER_RUN=$((2 * CALLS)) ;; esac
  for b in "${BINS[@]}"; do
    case "$b" in "$l=client:"*) CALLS_PER_RUN=$((2 * CALLS)) ;; esac
  done
  m=$(echo "${MEANS[$l]}" | median)
  r=$(echo "${PAIRED[$l]}" | median)
  awk -v l="$l" -v m="$m" -v o="$r" -v u="${USER[$l]}" -v s="${SYS[$l]}" -v hz="$HZ" \
      -v cu="${CUSER[$l]}" -v cs="${CSYS[$l]}" -v n="$((RUNS * CALLS_PER_RUN))" \
      'BEGIN {printf "%-16s %10.2f %10.3f %12.2f %12.2f %12.2f %12.2f\n", l, m, o, u/hz*1e6/n, s/hz*1e6/n, cu/1e3/n, cs/1e3/n}'
done
