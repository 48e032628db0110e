#!/usr/bin/env bash
# Peak RSS of a release `soapstone serve` echoing one large string, per MB of message.
#
#   scripts/echo-rss.sh [BIN] [SIZES...]
#
# BIN defaults to target/release/soapstone-serve (same arguments as `soapstone serve`); SIZES
# are string lengths in bytes (default: 10000000 100000000). For each size a fresh server
# (echo only, limits raised by flags) gets one echoString over curl; the script prints the
# server's VmHWM before (idle) and after the call, and (after - idle) / request MB. Everything
# runs on 127.0.0.1 and stops by itself.
set -euo pipefail
BIN=${1:-target/release/soapstone-serve}
shift || true
SIZES=${*:-10000000 100000000}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

hwm() { awk '/VmHWM/ {print $2}' "/proc/$1/status"; }

printf '%-11s %-11s %-11s %-11s %-11s %s\n' size_bytes req_bytes resp_bytes idle_kib peak_kib "(peak-idle)/req_MB"
for n in $SIZES; do
  req="$tmp/req.xml"
  {
    printf '<?xml version="1.0" encoding="UTF-8"?>\n<SOAP-ENV:Envelope xmlns:SOAP-ENV="http://schemas.xmlsoap.org/soap/envelope/" xmlns:ns1="http://soapinterop.org/" xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" SOAP-ENV:encodingStyle="http://schemas.xmlsoap.org/soap/encoding/"><SOAP-ENV:Body><ns1:echoString><inputString xsi:type="xsd:string">'
    head -c "$n" /dev/zero | tr '\0' 'a'
    printf '</inputString></ns1:echoString></SOAP-ENV:Body></SOAP-ENV:Envelope>'
  } > "$req"
  limit=$(( n + (16 << 20) ))
  "$BIN" --addr 127.0.0.1:0 --services echo --max-body-bytes "$limit" --max-text-bytes "$limit" --max-response-bytes "$limit" \
    > "$tmp/out" 2> "$tmp/err" &
  pid=$!
  for _ in $(seq 600); do grep -q '^listening on' "$tmp/out" && break; sleep 0.1; done
  url=$(sed -n 's/^listening on //p' "$tmp/out")/echo
  idle=$(hwm $pid)
  code=$(curl -s -o "$tmp/resp" -w '%{http_code}' -H 'Content-Type: text/xml; charset=utf-8' \
    -H 'SOAPAction: "http://soapinterop.org/"' --data-binary @"$req" "$url")
  peak=$(hwm $pid)
  kill $pid; wait $pid 2>/dev/null || true
  [ "$code" = 200 ] || { echo "size $n: HTTP $code" >&2; head -c 300 "$tmp/resp" >&2; exit 1; }
  rb=$(stat -c %s "$req"); sb=$(stat -c %s "$tmp/resp")
  per=$(awk -v p="$peak" -v i="$idle" -v r="$rb" 'BEGIN { printf "%.2f", (p - i) / 1024 / (r / 1e6) }')
  printf '%-11s %-11s %-11s %-11s %-11s %s\n' "$n" "$rb" "$sb" "$idle" "$peak" "$per"
done
