#!/usr/bin/env bash
# System calls per echoFloat call, server side and client side, counted by `strace -f -c`: for
# the raw TCP floor (`soapstone baseline tcp-pingpong` driven by `soapstone bench`), soapstone
# (`serve --services echo`) driven by the same bench client and by the soapstone `Client`
# (`echo_loop`), and omniORB 4 (its own server and client, from scripts/rpc-compare/). Where a
# one-CPU round trip goes that the instruction counts cannot see (docs/performance.md, round
# four).
#
#   scripts/syscalls-per-call.sh [--calls N]   # the Client and omniORB: 2N calls (N warm-up);
#                                              # the bench client: 2 s of calls
#
# Needs strace, jq and what scripts/rpc-compare.sh builds (run it once, or at least its build
# step: target/release/soapstone, target/release/examples/echo_loop, target/rpc-compare/).
# Each process is traced from its start, so the counts include its setup: over N calls that
# adds well under 0.1 per call (the table prints two decimals). Everything is pinned to CPU 0,
# listens on 127.0.0.1 and stops on exit.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CALLS=5000
while [ $# -gt 0 ]; do
  case "$1" in
    --calls) shift; CALLS="${1:?}" ;;
    -h|--help) sed -n '2,15p' "$0"; exit 0 ;;
    *) echo "syscalls-per-call: unknown argument \`$1\` (see --help)" >&2; exit 2 ;;
  esac
  shift
done
BIN="$ROOT/target/release/soapstone"
LOOP="$ROOT/target/release/examples/echo_loop"
OUT="$ROOT/target/rpc-compare"
for f in "$BIN" "$LOOP" "$OUT/echo-omniorb-server" "$OUT/echo-omniorb-client" "$OUT/echoFloat.xml"; do
  [ -e "$f" ] || { echo "syscalls-per-call: \`$f\` missing: run scripts/rpc-compare.sh first" >&2; exit 2; }
done
for tool in strace jq python3; do
  command -v "$tool" >/dev/null || { echo "syscalls-per-call: needs $tool" >&2; exit 2; }
done

TMP="$(mktemp -d)"
PIDS=()
cleanup() {
  # The traced process, not strace (which would pass a SIGINT on to this script's group):
  # strace then writes its summary and exits with it.
  local kids
  for p in "${PIDS[@]}"; do
    kids=$(pgrep -P "$p" || true)
    kill ${kids:-$p} 2>/dev/null || true
  done
  for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null || true; done
  PIDS=()
}
trap 'cleanup; rm -rf "$TMP"' EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_port() {
  for _ in $(seq 300); do
    (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0
    sleep 0.1
  done
  echo "syscalls-per-call: nothing listens on port $1" >&2; exit 1
}
# serve NAME PORT CMD...: CMD under strace, pinned to CPU 0.
serve() {
  local name="$1" port="$2"; shift 2
  taskset -c 0 strace -f -c -o "$TMP/$name.server" "$@" >/dev/null 2>&1 &
  PIDS+=($!)
  wait_port "$port"
}
# serve_listening NAME CMD...: as `serve`, for a soapstone server or baseline told
# `--addr 127.0.0.1:0`; sets LISTEN to the host:port of its `listening on` line (no port handed
# over from another process, so none can be taken in between).
serve_listening() {
  local name="$1"; shift
  taskset -c 0 strace -f -c -o "$TMP/$name.server" "$@" >"$TMP/$name.log" 2>&1 &
  PIDS+=($!)
  for _ in $(seq 300); do
    LISTEN="$(sed -n 's|.*listening on [a-z]*://\([0-9.]*:[0-9]*\).*|\1|p' "$TMP/$name.log" | head -1)"
    [ -n "$LISTEN" ] && return 0
    sleep 0.1
  done
  echo "syscalls-per-call: no \`listening on\` line from $1 (see $TMP/$name.log)" >&2; exit 1
}
# stop: stops the traced server (strace writes its summary when the server exits).
stop() { cleanup; }
# per_call FILE CALLS: "syscall count/CALLS" for the calls made at least once per 4 calls.
per_call() {
  awk -v n="$2" '$1 ~ /^[0-9.]+$/ && NF >= 5 && $NF != "total" { c = $4; name = $NF; if (c / n >= 0.25) printf "%s=%.2f ", name, c / n; t += c }
    END { printf "| total=%.2f\n", t / n }' "$1"
}

BODY="$OUT/echoFloat.xml"
ACTION="http://soapinterop.org/"
# The bench client: 2 s of calls on one connection, no warm-up; prints how many it made.
bench() {
  local name="$1" url="$2"; shift 2
  taskset -c 0 strace -f -c -o "$TMP/$name.client" "$BIN" bench "$url" --closed -c 1 \
    --duration 2s --json "$TMP/$name.json" "$@" >/dev/null
  jq -e '.requests.errors == 0' "$TMP/$name.json" >/dev/null || { echo "errors against $url" >&2; exit 1; }
  jq '.requests.responses' "$TMP/$name.json"
}

# The floor's byte counts, as rpc-compare measures them.
serve_listening sizes "$BIN" serve --addr 127.0.0.1:0 --services echo
"$BIN" bench "http://$LISTEN/echo" --body "$BODY" --soap-action "$ACTION" --closed -c 1 \
  --duration 1s --json "$TMP/sizes.json" >/dev/null
REQ=$(jq '.bytes_sent / .requests.sent | floor' "$TMP/sizes.json")
RESP=$(jq '.bytes_received / .requests.responses | floor' "$TMP/sizes.json")
stop

serve_listening floor "$BIN" baseline tcp-pingpong --addr 127.0.0.1:0 --request-size "$REQ" --response-size "$RESP"
FLOOR_CALLS=$(bench floor "tcp://$LISTEN" --request-size "$REQ" --response-size "$RESP")
stop

serve_listening soapstone "$BIN" serve --addr 127.0.0.1:0 --services echo
BENCH_CALLS=$(bench soapstone "http://$LISTEN/echo" --body "$BODY" --soap-action "$ACTION")
# echo_loop makes CALLS untimed calls, then CALLS timed ones.
taskset -c 0 strace -f -c -o "$TMP/client.client" "$LOOP" "http://$LISTEN/echo" "$CALLS" >/dev/null
stop

port=$(free_port)
serve omniorb "$port" "$OUT/echo-omniorb-server" "$port"
taskset -c 0 strace -f -c -o "$TMP/omniorb.client" "$OUT/echo-omniorb-client" "corbaloc::127.0.0.1:$port/echo" "$CALLS" >/dev/null
stop

echo "system calls per echoFloat call (strace -f -c, pinned to CPU 0; those made at least every 4th call)"
printf '%-28s %s\n' "floor server" "$(per_call "$TMP/floor.server" "$FLOOR_CALLS")"
printf '%-28s %s\n' "floor client (bench)" "$(per_call "$TMP/floor.client" "$FLOOR_CALLS")"
printf '%-28s %s\n' "soapstone server" "$(per_call "$TMP/soapstone.server" $((BENCH_CALLS + CALLS * 2)))"
printf '%-28s %s\n' "soapstone bench client" "$(per_call "$TMP/soapstone.client" "$BENCH_CALLS")"
printf '%-28s %s\n' "soapstone Client (echo_loop)" "$(per_call "$TMP/client.client" $((CALLS * 2)))"
printf '%-28s %s\n' "omniORB server" "$(per_call "$TMP/omniorb.server" $((CALLS * 2)))"
printf '%-28s %s\n' "omniORB client" "$(per_call "$TMP/omniorb.client" $((CALLS * 2)))"
