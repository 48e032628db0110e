#!/usr/bin/env bash
# The cost of WS-Security UsernameToken digest checking end to end (issue 11's note), measured
# side by side in one run: the charging service's creditControl on the same release
# `soapstone serve` with `--auth none` and with `--auth wsse` (a users file with a digest
# secret), loaded by `soapstone bench` in a closed loop, the wsse side with
# `--wsse-user/--wsse-password-file --wsse-digest` (a fresh nonce per request). Latency with
# server and client pinned to one CPU (and the cross-CPU figure beside it), throughput with 8
# connections. Plain http on loopback for both, so the ratio is WS-Security's alone.
# The replay cache remembers every nonce for 6 minutes and holds 100,000 by default, so a run at
# full speed would fill it ("retry later" faults): each point gets fresh servers, the wsse one
# with --wsse-replay-capacity 1000000 (the check of each nonce against it is part of the cost).
# Loopback only; each run is bounded by --duration. Usage: scripts/wsse-ratio.sh [DURATION]
# (default 4s).
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${SOAPSTONE:-target/release/soapstone}
DUR=${1:-4s}
work=$(mktemp -d)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$work"; }
trap cleanup EXIT
printf 'unused-text\nbench-digest-secret\n' | "$BIN" users add loader --permissions read,move \
  --file "$work/users.toml" --password-stdin --digest-secret-stdin > /dev/null
printf 'bench-digest-secret\n' > "$work/secret"
printf '%s' '<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body><ch:creditControl xmlns:ch="urn:soapstone:charging"><id>3</id></ch:creditControl></soap:Body></soap:Envelope>' > "$work/body.xml"

n=0
start() { # name cpu extra-args...: prints the base url
  local name=$1 cpu=$2; shift 2
  n=$((n + 1))
  taskset -c "$cpu" "$BIN" serve --addr 127.0.0.1:0 --services charging --accounts 1000 \
    --db "$work/$name-$n.db" --sqlite-sync normal --queue-delay-target off "$@" > "$work/$name.out" 2>&1 &
  pids+=($!)
  for _ in $(seq 200); do grep -q '^listening on ' "$work/$name.out" && break; sleep 0.1; done
  sed -n 's/^listening on //p' "$work/$name.out"
}
stop_all() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done; pids=(); }
field() { python3 -c 'import json,sys; r=json.load(sys.stdin); print(eval(sys.argv[1]))' "$1"; }
bench() { # cpu url connections extra...
  local cpu=$1 url=$2 c=$3; shift 3
  taskset -c "$cpu" "$BIN" bench "$url/charging" --body "$work/body.xml" \
    --soap-action urn:soapstone:charging#creditControl \
    --closed -c "$c" --duration "$DUR" --warmup 1s "$@" --json - 2>/dev/null
}
report() { # label none-json wsse-json
  python3 - "$@" <<'PY'
import json, sys
label, a, b = sys.argv[1], json.loads(sys.argv[2]), json.loads(sys.argv[3])
def f(r): return r["achieved_rate"], r["latency"]["corrected"]["p50_us"], r["errors"]["total"]
(ar, ap, ae), (br, bp, be) = f(a), f(b)
print(f"{label}: none {ar:.0f}/s p50 {ap:.0f} us; wsse digest {br:.0f}/s p50 {bp:.0f} us; "
      f"wsse/none: p50 x{bp/ap:.2f}, throughput x{br/ar:.2f} (errors {ae} / {be})")
PY
}
point() { # label client-cpu connections
  local none wsse a b
  none=$(start none 0 --auth none)
  wsse=$(start wsse 0 --auth wsse --users "$work/users.toml" --wsse-replay-capacity 1000000)
  a=$(bench "$2" "$none" "$3")
  b=$(bench "$2" "$wsse" "$3" --wsse-user loader --wsse-password-file "$work/secret" --wsse-digest)
  stop_all
  report "$1" "$a" "$b"
}
echo "charging creditControl, servers pinned to cpu 0, $DUR per run"
point "1 connection, client on the server's cpu" 0 1
point "1 connection, client on cpu 1" 1 1
point "8 connections, client on cpu 1" 1 8
