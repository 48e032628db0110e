#!/usr/bin/env bash
# "Beyond one machine" (issue 14, item 4), measured on this machine with scripts/cluster.sh:
#   1. throughput and p99 through HAProxy with 1, 2, 3 replicas (closed loop, 32 connections)
#      for a read (creditControl) and a write (credit, one durable PostgreSQL commit each);
#   2. the balancer hop: one connection, direct to the replica vs through HAProxy, side by side,
#      once with client, HAProxy and replica on one CPU and once spread over both;
#   3. PostgreSQL restarted under load: per-second answers and errors (Server faults), and
#      what the replicas' /readyz said meanwhile.
# The failover under a SIGKILL (timeline, exactly-once ledger) is the test
# crates/services/tests/cluster_failover.rs; run it with --nocapture for its timeline.
#
#   scripts/cluster-bench.sh [--out DIR] [--duration 10s] [--replicas "1 2 3"]
#
# Needs target/release/soapstone and soapstone-serve (built if missing), haproxy, PostgreSQL.
# Prints a Markdown report on stdout; the raw `soapstone bench --json` files go to DIR.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
OUT="${TMPDIR:-/tmp}/soapstone-cluster-bench"
DURATION=10s
COUNTS="1 2 3"
while [ $# -gt 0 ]; do
  case "$1" in
    --out) OUT="$2"; shift 2 ;;
    --duration) DURATION="$2"; shift 2 ;;
    --replicas) COUNTS="$2"; shift 2 ;;
    *) echo "cluster-bench: unknown argument \`$1\`" >&2; exit 2 ;;
  esac
done
SOAPSTONE="$ROOT/target/release/soapstone"
SERVE="$ROOT/target/release/soapstone-serve"
if [ ! -x "$SOAPSTONE" ] || [ ! -x "$SERVE" ]; then
  (cd "$ROOT" && cargo build --release -q -p soapstone -p soapstone-services --bin soapstone --bin soapstone-serve)
fi
mkdir -p "$OUT"
CL="$OUT/cluster"
PORT=8431
cluster() { "$ROOT/scripts/cluster.sh" "$@" --dir "$CL"; }
trap 'cluster down >/dev/null 2>&1 || true' EXIT

cat > "$OUT/read.xml" <<'EOF'
<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"><s:Body><ch:creditControl xmlns:ch="urn:soapstone:charging"><id>42</id></ch:creditControl></s:Body></s:Envelope>
EOF
cat > "$OUT/write.xml" <<'EOF'
<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"><s:Body><ch:credit xmlns:ch="urn:soapstone:charging"><id>42</id><am>1</am></ch:credit></s:Body></s:Envelope>
EOF

# bench NAME URL BODY CONNECTIONS [taskset CPU]: one `soapstone bench` run, JSON into OUT/NAME.json.
bench() {
  local name=$1 url=$2 body=$3 conns=$4 cpu=${5:-}
  local pin=()
  [ -n "$cpu" ] && pin=(taskset -c "$cpu")
  "${pin[@]}" "$SOAPSTONE" bench "$url" --body "$OUT/$body.xml" --closed -c "$conns" \
    --warmup 1s --duration "$DURATION" --json "$OUT/$name.json" >/dev/null 2>&1
}
field() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))" "$1" "$2"; }
row() {
  local f="$OUT/$1.json"
  printf '%s | %.0f | %.2f | %.2f | %s\n' "$2" "$(field "$f" "d['ok_rate']")" \
    "$(field "$f" "d['latency']['uncorrected']['p50_us']/1000")" \
    "$(field "$f" "d['latency']['uncorrected']['p99_us']/1000")" \
    "$(field "$f" "d['errors']['total']")"
}

echo "# Beyond one machine: soapstone charging replicas behind HAProxy on PostgreSQL"
echo
echo "Machine: $(nproc) CPUs ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')), $(haproxy -v | head -1 | cut -d' ' -f1-3), PostgreSQL $(ls /usr/lib/postgresql | sort -V | tail -1); release build; closed loop, 1 s warm-up, $DURATION measured (the hop runs: ${HOP_DURATION:-4s})."
echo
echo "## Throughput per replica count (32 connections through HAProxy)"
echo
echo "replicas, operation | answers/s | p50 ms | p99 ms | errors"
echo "---|---|---|---|---"
for n in $COUNTS; do
  cluster up --replicas "$n" --port "$PORT" --bin "$SERVE" --accounts 1000 >/dev/null
  . "$CL/cluster.env"
  bench "r$n-read" "$URL" read 32
  row "r$n-read" "$n, creditControl (read)"
  bench "r$n-write" "$URL" write 32
  row "r$n-write" "$n, credit (durable write)"
  cluster down >/dev/null
done
echo
echo "Every process shares the same $(nproc) CPUs (replicas pinned round robin, HAProxy, PostgreSQL and the load generator unpinned): past one replica per CPU the ceiling is CPU, not soapstone."

echo
echo "## The balancer hop (1 connection, creditControl; direct and through HAProxy alternated 3 times, medians)"
echo
# One replica; one CPU for everything, then client+HAProxy on CPU 1 and the replica on CPU 0.
HOP_DURATION=${HOP_DURATION:-4s}
: > "$OUT/hop.md"
for placement in one spread; do
  if [ "$placement" = one ]; then rcpu=0; hcpu=0; ccpu=0; else rcpu=0; hcpu=1; ccpu=1; fi
  cluster up --replicas 1 --port "$PORT" --bin "$SERVE" --accounts 1000 --cpus "$rcpu" --haproxy-cpu "$hcpu" >/dev/null
  . "$CL/cluster.env"
  direct="http://$R1_ADDR/charging"
  for k in 1 2 3; do
    DURATION=$HOP_DURATION bench "hop-$placement-direct-$k" "$direct" read 1 "$ccpu"
    DURATION=$HOP_DURATION bench "hop-$placement-haproxy-$k" "$URL" read 1 "$ccpu"
  done
  python3 - "$OUT" "$placement" >> "$OUT/hop.md" <<'EOF'
import json, statistics, sys
out, placement = sys.argv[1], sys.argv[2]
med = {}
for path in ("direct", "haproxy"):
    runs = [json.load(open(f"{out}/hop-{placement}-{path}-{k}.json")) for k in (1, 2, 3)]
    m = {
        "rate": statistics.median(r["ok_rate"] for r in runs),
        "p50": statistics.median(r["latency"]["uncorrected"]["p50_us"] for r in runs) / 1000,
        "p99": statistics.median(r["latency"]["uncorrected"]["p99_us"] for r in runs) / 1000,
        "errors": sum(r["errors"]["total"] for r in runs),
    }
    med[path] = m
    name = "direct" if path == "direct" else "HAProxy"
    print(f"{placement} | {name} | {m['rate']:.0f} | {m['p50']:.3f} | {m['p99']:.2f} | {m['errors']}")
ratio = med["haproxy"]["p50"] / med["direct"]["p50"]
rate = med["direct"]["rate"] / med["haproxy"]["rate"]
print(f"RATIO {placement}: HAProxy/direct p50 latency {ratio:.2f}, direct/HAProxy throughput {rate:.2f}")
EOF
  cluster down >/dev/null
done
echo "placement | path | answers/s | p50 ms | p99 ms | errors"
echo "---|---|---|---|---|---"
grep -v '^RATIO' "$OUT/hop.md"
echo
grep '^RATIO' "$OUT/hop.md" | sed 's/^RATIO /- /'
rm -f "$OUT/hop.md"
echo
echo "(one: client, HAProxy and replica pinned to CPU 0; spread: replica on CPU 0, client and HAProxy on CPU 1.)"

echo
echo "## PostgreSQL restarted under load (2 replicas, 16 connections, credit)"
echo
cluster up --replicas 2 --port "$PORT" --bin "$SERVE" --accounts 1000 >/dev/null
. "$CL/cluster.env"
(
  sleep 4
  date +%s.%N > "$OUT/pg-restart.start"
  cluster pg-restart
  date +%s.%N > "$OUT/pg-restart.end"
) &
restarter=$!
# What replica 1 says about itself meanwhile.
(
  end=$(( $(date +%s) + 14 ))
  while [ "$(date +%s)" -lt "$end" ]; do
    if [ "$USE_NETNS" = 1 ]; then s=$(ip netns exec ss-r1 curl -s -o /dev/null -w '%{http_code}' -m 1 "http://$R1_ADDR/readyz" || true)
    else s=$(curl -s -o /dev/null -w '%{http_code}' -m 1 "http://$R1_ADDR/readyz" || true); fi
    echo "$(date +%s.%N) $s"
    sleep 0.05
  done
) > "$OUT/pg-readyz.txt" &
poller=$!
bench "pg-restart" "$URL" write 16
wait "$restarter" "$poller"
python3 - "$OUT" <<'EOF'
import json, sys
out = sys.argv[1]
d = json.load(open(f"{out}/pg-restart.json"))
start = float(open(f"{out}/pg-restart.start").read())
end = float(open(f"{out}/pg-restart.end").read())
print(f"`pg_ctl restart -m fast` took {end - start:.2f} s. Per second of the run (the restart began about 3 s into the measured part, after the 1 s warm-up):")
print()
print("second | answers | errors | p99 ms")
print("---|---|---|---")
for s in d["timeline"]:
    p99 = f"{s['p99_us'] / 1000:.1f}" if s.get("p99_us") else "-"
    print(f"{s['second']} | {s['ok']} | {s['errors']} | {p99}")
e = d["errors"]
print()
print(f"Errors: {e['total']} in all ({e['soap_fault']} SOAP faults, HTTP statuses {e['http_status']}, {e['io']} I/O, {e['timeout']} timeouts).")
rows = [l.split() for l in open(f"{out}/pg-readyz.txt")]
bad = [float(t) for t, c in rows if c != "200"]
if bad:
    print(f"Replica r1's /readyz was not 200 for {max(bad) - min(bad):.2f} s (from {min(bad) - start:+.2f} s to {max(bad) - start:+.2f} s after the restart began), then 200 again by itself.")
else:
    print("Replica r1's /readyz stayed 200 throughout (the restart fell between two polls).")
EOF
cluster down >/dev/null
trap - EXIT
