#!/usr/bin/env bash
# p99 under open-loop overload (issue 8, item 3): `soapstone serve --services echo` pinned to
# CPU 0 (one tokio worker), `soapstone bench` pinned to CPU 1, posting a 200-item
# echoStringArray (14 KB; about 4,000/s saturate one core, so the generator can offer 3x and
# 10x that). Bounded: one 2 s warm-up + 10 s run per point, 30 s request timeout.
#   crates/server/scripts/overload.sh BIN RATE CONNS [OUT_DIR]
#     BIN    a soapstone binary (e.g. target/release/soapstone)
#     RATE   offered requests/s (find saturation first with RATE=closed)
#     CONNS  connections: each holds one request, so the server-side queue is at most CONNS
#            requests deep; 10 leaves the backlog in the generator, 500 puts it in the server
# Prints the bench summary and the server's shed counters.
set -euo pipefail
BIN=$1; RATE=$2; CONNS=$3; OUT=${4:-$(mktemp -d)}
PORT=${PORT:-18111}
mkdir -p "$OUT"
BODY="$OUT/array200.xml"
python3 - "$BODY" <<'PY'
import sys
items = "".join(f'<item xsi:type="xsd:string">soapstone array item number {i:04d}</item>' for i in range(200))
open(sys.argv[1], "w").write(f'''<?xml version="1.0"?>
<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/" xmlns:soapenc="http://schemas.xmlsoap.org/soap/encoding/" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema">
<soap:Body soap:encodingStyle="http://schemas.xmlsoap.org/soap/encoding/">
<m:echoStringArray xmlns:m="http://soapinterop.org/">
<inputStringArray xsi:type="soapenc:Array" soapenc:arrayType="xsd:string[200]">{items}</inputStringArray>
</m:echoStringArray>
</soap:Body>
</soap:Envelope>''')
PY
taskset -c 0 "$BIN" serve --services echo --runtime current-thread --addr "127.0.0.1:$PORT" >"$OUT/server.log" 2>&1 &
SERVER=$!
trap 'kill $SERVER 2>/dev/null; wait $SERVER 2>/dev/null || true' EXIT
for _ in $(seq 100); do grep -q listening "$OUT/server.log" && break; sleep 0.1; done
if [ "$RATE" = closed ]; then LOAD=(--closed); else LOAD=(--rate "$RATE"); fi
taskset -c 1 "$BIN" bench "http://127.0.0.1:$PORT/echo" --body "$BODY" "${LOAD[@]}" \
  --connections "$CONNS" --duration 10s --warmup 2s --timeout 30s --threads 1
curl -s "http://127.0.0.1:$PORT/metrics" | grep -E '^soapstone_requests_shed' || true
