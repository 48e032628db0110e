#!/usr/bin/env bash
# Instructions per echoFloat call in the soapstone `Client`, counted by callgrind: the Client's
# side of scripts/instr-per-request.sh, a figure that does not move with the machine's load.
#
#   scripts/instr-per-call-client.sh LOOP [LOOP...]     # e.g. an old echo_loop and the new one
#   scripts/instr-per-call-client.sh --server BIN --calls 3000 LOOP...
#   scripts/instr-per-call-client.sh LOOP LOOP::--blocking   # async and blocking I/O (blocking_io)
#
# A `LOOP::ARGS` entry puts ARGS (space-separated) before that loop's URL.
# Starts one server (`BIN serve --services echo --runtime current-thread`, default
# target/release/soapstone, outside valgrind) and runs each `echo_loop`
# (crates/client/examples/echo_loop.rs) under `valgrind --tool=callgrind` twice: with 500 and
# with 500 + CALLS calls (each run makes its count twice: untimed, then timed). The difference
# of the two totals divided by the difference of the calls is the instructions of one call,
# without the process's start-up, connection set-up and first-call costs. Prints each loop's
# figure and its ratio to the first. Needs valgrind; listens on 127.0.0.1 only and stops what
# it started.
set -euo pipefail

CALLS=2500
SERVER=target/release/soapstone
LOOPS=()
while [ $# -gt 0 ]; do
  case "$1" in
    --calls) shift; CALLS="${1:?}" ;;
    --server) shift; SERVER="${1:?}" ;;
    -h|--help) sed -n '2,17p' "$0"; exit 0 ;;
    -*) echo "instr-per-call-client: unknown option \`$1\` (see --help)" >&2; exit 2 ;;
    *) [ -x "${1%%::*}" ] || { echo "instr-per-call-client: \`${1%%::*}\` is not an executable" >&2; exit 2; }
       LOOPS+=("$1") ;;
  esac
  shift
done
[ "${#LOOPS[@]}" -gt 0 ] || { echo "instr-per-call-client: give at least one echo_loop" >&2; exit 2; }
[ -x "$SERVER" ] || { echo "instr-per-call-client: \`$SERVER\` is not an executable" >&2; exit 2; }
command -v valgrind >/dev/null || { echo "instr-per-call-client: needs valgrind" >&2; exit 2; }

PID=""
LOG="$(mktemp)"
cleanup() {
  [ -z "$PID" ] || { kill "$PID" 2>/dev/null || true; wait "$PID" 2>/dev/null || true; }
  rm -f "$LOG"
}
trap cleanup EXIT

# The server binds port 0 itself and says which it got (no port handed over from another
# process, so none can be taken in between).
"$SERVER" serve --addr 127.0.0.1:0 --services echo --runtime current-thread \
  --queue-delay-target off >"$LOG" 2>&1 &
PID=$!
addr=""
for _ in $(seq 600); do
  addr="$(sed -n 's|.*listening on http://\([0-9.]*:[0-9]*\).*|\1|p' "$LOG" | head -1)"
  [ -n "$addr" ] && break
  sleep 0.1
done
[ -n "$addr" ] || { echo "instr-per-call-client: the server did not start (see $LOG)" >&2; exit 1; }
url="http://$addr/echo"

# ir LOOP[::ARGS] N: the whole process's instruction count for N calls (twice: untimed, timed)
ir() {
  local extra=()
  case "$1" in *::*) read -r -a extra <<<"${1#*::}" ;; esac
  valgrind --tool=callgrind --callgrind-out-file=/dev/null "${1%%::*}" "${extra[@]}" "$url" "$2" \
    2>&1 >/dev/null | awk '/Collected/ { gsub(",", "", $4); print $4 }'
}

declare -a PER
for i in "${!LOOPS[@]}"; do
  a=$(ir "${LOOPS[$i]}" 500)
  b=$(ir "${LOOPS[$i]}" $((500 + CALLS)))
  [ -n "$a" ] && [ -n "$b" ] || { echo "instr-per-call-client: no counts for ${LOOPS[$i]}" >&2; exit 1; }
  PER[$i]=$(((b - a) / (2 * CALLS)))
done

echo "instructions per echoFloat call of the Client (callgrind, $((2 * CALLS)) calls more in one run than in the other)"
for i in "${!LOOPS[@]}"; do
  printf '%-60s %10d  %5s\n' "${LOOPS[$i]}" "${PER[$i]}" \
    "$(awk -v a="${PER[$i]}" -v b="${PER[0]}" 'BEGIN { printf "%.3f", a / b }')"
done
