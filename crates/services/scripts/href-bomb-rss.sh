#!/usr/bin/env bash
# Peak RSS of `soapstone serve` answering issue 8's request: an echoStringArray whose N items
# (default 4,000) each `href` one 1 MiB multiRef (a 1.05 MB request). The server runs under an
# address-space cap (default 4 GiB, like the issue) so a server without the multi-ref budget
# aborts instead of eating the machine. Prints the HTTP answer, the peak RSS (VmHWM, sampled
# every 20 ms, so a server that aborts is still measured), and whether /charging still answers.
#   crates/services/scripts/href-bomb-rss.sh [BINARY] [N] [CAP_KIB]
# (needs curl and python3; BINARY defaults to target/release/soapstone)
set -uo pipefail
cd "$(dirname "$0")/../../.."
bin=${1:-target/release/soapstone}
n=${2:-4000}
cap=${3:-$((4 * 1024 * 1024))}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 - "$n" > "$work/bomb.xml" <<'PY'
import sys
n = int(sys.argv[1]); size = 1 << 20
b = ('<?xml version="1.0" encoding="UTF-8"?><SOAP-ENV:Envelope xmlns:SOAP-ENV="http://schemas.xmlsoap.org/soap/envelope/" '
     'xmlns:SOAP-ENC="http://schemas.xmlsoap.org/soap/encoding/" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" '
     'xmlns:xsd="http://www.w3.org/2001/XMLSchema" SOAP-ENV:encodingStyle="http://schemas.xmlsoap.org/soap/encoding/">'
     '<SOAP-ENV:Body><m:echoStringArray xmlns:m="http://soapinterop.org/">'
     f'<inputStringArray SOAP-ENC:arrayType="xsd:string[{n}]">')
b += '<item href="#b"/>' * n
b += ('</inputStringArray></m:echoStringArray><multiRef id="b" xsi:type="xsd:string">' + 'x' * size +
      '</multiRef></SOAP-ENV:Body></SOAP-ENV:Envelope>')
sys.stdout.write(b)
PY
( ulimit -v "$cap"; exec "$bin" serve --addr 127.0.0.1:0 --services charging,echo --db "$work/c.db" --accounts 10 ) > "$work/log" 2>&1 &
pid=$!
for _ in $(seq 1 150); do grep -q "listening on" "$work/log" 2>/dev/null && break; sleep 0.2; done
port=$(grep -o "listening on [^ ]*" "$work/log" | grep -o "[0-9]*$" | head -1)
[ -n "$port" ] || { cat "$work/log"; kill "$pid"; exit 1; }
echo "idle $(grep VmHWM /proc/$pid/status)"
( while kill -0 "$pid" 2>/dev/null; do grep VmHWM "/proc/$pid/status" > "$work/hwm.tmp" 2>/dev/null && mv "$work/hwm.tmp" "$work/hwm"; sleep 0.02; done ) &
poll=$!
echo "request: $(stat -c %s "$work/bomb.xml") bytes, $n references to 1 MiB"
curl -s -m 300 -o >(head -c 400 > "$work/answer"; cat > /dev/null) \
  -w "answer: http %{http_code}, %{size_download} bytes in %{time_total} s\n" \
  -H 'Content-Type: text/xml; charset=utf-8' -H 'SOAPAction: "http://soapinterop.org/"' \
  --data-binary @"$work/bomb.xml" "http://127.0.0.1:$port/echo"
sleep 0.5
if kill -0 "$pid" 2>/dev/null; then
  curl -s -m 10 -o /dev/null -w "/charging?wsdl afterwards: http %{http_code}\n" "http://127.0.0.1:$port/charging?wsdl"
  kill "$pid"; wait "$pid" 2>/dev/null
else
  wait "$pid"; echo "the server died (exit status $?): $(grep -m1 'memory allocation' "$work/log")"
fi
wait "$poll" 2>/dev/null
echo "peak $(cat "$work/hwm")"
echo "answer starts: $(head -c 400 "$work/answer")"
