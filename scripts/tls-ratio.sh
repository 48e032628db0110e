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
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 \
  -subj /CN=localhost -addext subjectAltName=DNS:localhost \
  -keyout "$work/key.pem" -out "$work/cert.pem" 2>/dev/null
printf '%s' '<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/" xmlns:t="http://tempuri.org/"><soap:Body><t:echoFloat><t:input>3.14159</t:input></t:echoFloat></soap:Body></soap:Envelope>' > "$work/body.xml"

start() { # name cpu extra-args...
  local name=$1 cpu=$2; shift 2
  taskset -c "$cpu" "$BIN" serve --addr 127.0.0.1:0 --services echo "$@" > "$work/$name.out" 2>&1 &
  pids+=($!)
  for _ in $(seq 100); do grep -q '^listening on ' "$work/$name.out" && break; sleep 0.1; done
  sed -n 's/^listening on //p' "$work/$name.out"
}
rps() { sed -n 's/.*"achieved_rps": *\([0-9.]*\).*/\1/p' | head -1; }
p50() { sed -n 's/.*"p50_us": *\([0-9.]*\).*/\1/p' | head -1; }
bench() { # cpu url connections
  local cpu=$1 url=$2 c=$3
  local tls=()
  [[ $url == https* ]] && tls=(--tls-ca "$work/cert.pem")
  taskset -c "$cpu" "$BIN" bench "$url/echo" --body "$work/body.xml" --soap-action http://tempuri.org/echoFloat \
    --closed -c "$c" --duration "$DUR" --warmup 1s "${tls[@]}" --json - 2>/dev/null
}
plain=$(start plain 0)
tls=$(start tls 0 --tls-cert "$work/cert.pem" --tls-key "$work/key.pem")
tls=${tls/127.0.0.1/localhost}
echo "plain $plain  tls $tls"
for cpus in "0 0" "0 1"; do
  set -- $cpus
  a=$(bench "$2" "$plain" 1); b=$(bench "$2" "$tls" 1)
  echo "one connection, server cpu $1, client cpu $2: plain p50 $(echo "$a" | p50) us, $(echo "$a" | rps) rps; tls p50 $(echo "$b" | p50) us, $(echo "$b" | rps) rps"
done
