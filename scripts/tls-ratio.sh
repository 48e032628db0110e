#!/usr/bin/env bash
# TLS / plain ratios of the echoFloat round trip (issue 11's note), measured side by side in one
# run: the same release `soapstone serve --services echo` over http and over https, loaded by
# `soapstone bench` in a closed loop. Latency with server and client pinned to one CPU (and
# the cross-CPU figure beside it), throughput with 8 connections unpinned. Loopback only;
# each run is bounded by --duration. Usage: scripts/tls-ratio.sh [DURATION] (default 10s).
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${SOAPSTONE:-target/release/soapstone}
DUR=${1:-10s}
work=$(mktemp -d)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$work"; }
trap cleanup EXIT
# A CA and a leaf it signs (a self-signed leaf carries CA:TRUE, which webpki refuses as a server
# certificate).
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 \
  -subj /CN=tls-ratio-ca -keyout "$work/ca.key" -out "$work/ca.pem" 2>/dev/null
openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj /CN=localhost \
  -keyout "$work/key.pem" -out "$work/leaf.csr" 2>/dev/null
printf 'subjectAltName=DNS:localhost,IP:127.0.0.1\nbasicConstraints=CA:FALSE\n' > "$work/ext"
openssl x509 -req -in "$work/leaf.csr" -CA "$work/ca.pem" -CAkey "$work/ca.key" -CAcreateserial \
  -days 2 -extfile "$work/ext" -out "$work/cert.pem" 2>/dev/null
printf '%s' '<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/" xmlns:t="http://tempuri.org/"><soap:Body><t:echoFloat><t:input>3.14159</t:input></t:echoFloat></soap:Body></soap:Envelope>' > "$work/body.xml"

start() { # name cpu extra-args...
  local name=$1 cpu=$2; shift 2
  taskset -c "$cpu" "$BIN" serve --addr 127.0.0.1:0 --services echo "$@" > "$work/$name.out" 2>&1 &
  pids+=($!)
  for _ in $(seq 100); do grep -q '^listening on ' "$work/$name.out" && break; sleep 0.1; done
  sed -n 's/^listening on //p' "$work/$name.out"
}
field() { python3 -c 'import json,sys; r=json.load(sys.stdin); print(eval(sys.argv[1]))' "$1"; }
bench() { # cpu url connections
  local cpu=$1 url=$2 c=$3
  local tls=()
  [[ $url == https* ]] && tls=(--tls-ca "$work/ca.pem")
  taskset -c "$cpu" "$BIN" bench "$url/echo" --body "$work/body.xml" --soap-action http://tempuri.org/echoFloat \
    --closed -c "$c" --duration "$DUR" --warmup 1s "${tls[@]}" --json - 2>/dev/null
}
report() { # label plain-json tls-json
  local pr tr pp tp
  pr=$(echo "$2" | field 'r["achieved_rate"]'); tr=$(echo "$3" | field 'r["achieved_rate"]')
  pp=$(echo "$2" | field 'r["latency"]["corrected"]["p50_us"]'); tp=$(echo "$3" | field 'r["latency"]["corrected"]["p50_us"]')
  python3 -c "import sys; pr,tr,pp,tp=map(float,sys.argv[2:]); print(f'{sys.argv[1]}: plain {pr:.0f}/s p50 {pp:.0f} us; tls {tr:.0f}/s p50 {tp:.0f} us; tls/plain: p50 x{tp/pp:.2f}, throughput x{tr/pr:.2f}')" "$1" "$pr" "$tr" "$pp" "$tp"
}
plain=$(start plain 0)
tls=$(start tls 0 --tls-cert "$work/cert.pem" --tls-key "$work/key.pem")
echo "plain $plain  tls $tls  (both servers pinned to cpu 0; $DUR per run)"
a=$(bench 0 "$plain" 1); b=$(bench 0 "$tls" 1); report "1 connection, client on the server's cpu" "$a" "$b"
a=$(bench 1 "$plain" 1); b=$(bench 1 "$tls" 1); report "1 connection, client on cpu 1" "$a" "$b"
a=$(bench 1 "$plain" 8); b=$(bench 1 "$tls" 8); report "8 connections, client on cpu 1" "$a" "$b"
