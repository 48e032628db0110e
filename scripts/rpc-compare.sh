#!/usr/bin/env bash
# Issue 12's comparison: SOAPBuilders' echoFloat round trip through soapstone beside the raw
# TCP floor (the same bytes), gSOAP 2.8 and omniORB 4 (CORBA), on this machine, in one run.
#
#   scripts/rpc-compare.sh                 # 6 interleaved repeats, 2 s per point, load too
#   scripts/rpc-compare.sh --repeats 3 --seconds 1 --no-load
#   scripts/rpc-compare.sh --runtimes ambient,current-thread,per-core
#   scripts/rpc-compare.sh --runtimes per-core,per-core+reuse-port   # `serve --reuse-port`
#   scripts/rpc-compare.sh --runtimes per-core,per-core+hyper         # `serve --http hyper`
#   scripts/rpc-compare.sh --runtimes per-core,per-core+busy-poll     # `serve --busy-poll-us 50`,
#                                          # and the Client polling too (`client+busy-poll`),
#                                          # and the blocking floor polling (SPIN_US=50)
#   scripts/rpc-compare.sh --runtimes per-core,per-core+slice200      # `serve --cpu-slice-us 200`
#   scripts/rpc-compare.sh --runtimes per-core,per-core+blocking0     # `serve --blocking-connections 0`
#                                          # (serve's default is 4; `+blocking` says it explicitly)
#   scripts/rpc-compare.sh --split-load    # load again: servers on CPU 0, load generator on CPU 1
#   scripts/rpc-compare.sh --before /tmp/old/soapstone --before-loop /tmp/old/echo_loop
#   scripts/rpc-compare.sh --binaries target/pgo/x86_64-unknown-linux-gnu/release   # PGO build
#
# --before BIN adds a soapstone binary built from an earlier commit (`serve --services echo`
# with the first of --runtimes), measured interleaved with the rest, round trips and load, and
# prints the current build's ratio to it: a change's before/after in one run. --before-loop
# does the same for the Client (an earlier `echo_loop` against the current server).
#
# Round trips: one keep-alive connection, calls one after the other, the client and the
# server pinned to the same CPU (`taskset -c 0`, "one CPU") and to different CPUs (server 1,
# client 0, "across CPUs"). Each point is the mean round trip of one run (`soapstone bench
# --closed -c 1` for HTTP: the same raw client for soapstone, gSOAP and the floor; the
# omniORB client and the soapstone Client time their own calls); points of one system are
# interleaved with the others' and the median of the repeats is kept. The floor is
# `soapstone baseline tcp-pingpong` answering the byte counts soapstone's echoFloat exchange
# has on the wire; the blocking floor (`floor-blocking`, scripts/rpc-compare/blocking_pingpong.c)
# moves the same bytes with blocking read/write on both sides and times its own calls, as
# omniORB's thread-per-connection server and client do: the floor minus it is what a readiness
# loop (epoll) costs on both sides. Every HTTP server (soapstone's, gSOAP) is also timed with
# a blocking raw HTTP client (`@blocking-client` rows, scripts/rpc-compare/blocking_http.c: the
# bench's request bytes, answers framed by Content-Length), the kind of client omniORB's row
# has, so that the CORBA row and the HTTP rows differ by their servers only. The soapstone
# Client is timed in both its I/O modes against the first runtime's server: `client` (the
# async lean exchange on a current-thread tokio runtime) and `client-blocking` (`echo_loop
# --blocking`: ClientConfig::blocking_io, no runtime; skipped, with a note, for an echo_loop
# built before it had the flag). Load: `soapstone bench --closed -t 2` with 8 and 64 connections against
# soapstone and gSOAP (unpinned, both CPUs shared with the load generator, as wrk -t2).
#
# --binaries DIR runs DIR/soapstone (server and bench client) and DIR/examples/echo_loop, as
# scripts/pgo-build.sh leaves them, instead of building the release ones.
#
# Builds what it runs: the release `soapstone` binary and the `echo_loop` example, and the
# gSOAP and omniORB echoFloat peers of scripts/rpc-compare/ into target/rpc-compare (needs
# the Debian packages gsoap, libgsoap-dev, omniidl, libomniorb4-dev, g++: lab/peers/setup.sh
# --only gsoap,omniorb installs them). Everything listens on 127.0.0.1 and stops on exit.
# Prints a table of ratios (below 1: soapstone faster) and the raw means; exit 1 if a point
# failed.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
REPEATS=6
SECONDS_PER_POINT=2
CALLS=20000
LOAD=1
SPLIT_LOAD=0
LOAD_SECONDS=5
RUNTIMES="per-core,ambient"
BEFORE=""
BEFORE_LOOP=""
BINARIES=""
while [ $# -gt 0 ]; do
  case "$1" in
    --repeats) shift; REPEATS="${1:?}" ;;
    --seconds) shift; SECONDS_PER_POINT="${1:?}" ;;
    --calls) shift; CALLS="${1:?}" ;;
    --no-load) LOAD=0 ;;
    --split-load) SPLIT_LOAD=1 ;;
    --load-seconds) shift; LOAD_SECONDS="${1:?}" ;;
    --runtimes) shift; RUNTIMES="${1:?}" ;;
    --before) shift; BEFORE="${1:?}" ;;
    --before-loop) shift; BEFORE_LOOP="${1:?}" ;;
    --binaries) shift; BINARIES="${1:?}" ;;
    -h|--help) sed -n '2,49p' "$0"; exit 0 ;;
    *) echo "rpc-compare: unknown argument \`$1\` (see --help)" >&2; exit 2 ;;
  esac
  shift
done
for b in "$BEFORE" "$BEFORE_LOOP"; do
  [ -z "$b" ] || [ -x "$b" ] || { echo "rpc-compare: \`$b\` is not an executable" >&2; exit 2; }
done
[ "$(nproc)" -ge 2 ] || { echo "rpc-compare: needs 2 CPUs for the cross-CPU placement" >&2; exit 2; }

OUT="$ROOT/target/rpc-compare"
mkdir -p "$OUT"
say() { echo "rpc-compare: $*" >&2; }

if [ -n "$BINARIES" ]; then
  BIN="$BINARIES/soapstone"
  LOOP="$BINARIES/examples/echo_loop"
  for b in "$BIN" "$LOOP"; do
    [ -x "$b" ] || { echo "rpc-compare: --binaries: no executable \`$b\`" >&2; exit 2; }
  done
else
  say "building soapstone (release) and the echo_loop example"
  ( cd "$ROOT" && cargo build --release --quiet --bin soapstone -p soapstone \
      && cargo build --release --quiet -p soapstone-client --example echo_loop )
  BIN="$ROOT/target/release/soapstone"
  LOOP="$ROOT/target/release/examples/echo_loop"
fi

# An echo_loop from before `--blocking` would take the flag for its URL.
LOOP_BLOCKING=0
if grep -aq 'echo_loop \[--blocking\]' "$LOOP"; then
  LOOP_BLOCKING=1
else
  say "$LOOP has no --blocking: no client-blocking row"
fi

say "building the gSOAP and omniORB echoFloat peers"
SRC="$ROOT/scripts/rpc-compare"
( cd "$OUT" && cp "$SRC"/echo.h "$SRC"/echo.idl . \
  && soapcpp2 -S -L -x -I/usr/share/gsoap/import echo.h >/dev/null \
  && g++ -O2 -I. -o echo-gsoap "$SRC/echo_gsoap.cpp" soapC.cpp soapServer.cpp -lgsoap++ -lpthread \
  && omniidl -bcxx -Wbh=.hh -Wbs=SK.cc echo.idl \
  && g++ -O2 -I. -o echo-omniorb-server "$SRC/echo_omniorb_server.cc" echoSK.cc -lomniORB4 -lomnithread \
  && g++ -O2 -I. -o echo-omniorb-client "$SRC/echo_omniorb_client.cc" echoSK.cc -lomniORB4 -lomnithread \
  && gcc -O2 -o blocking-pingpong "$SRC/blocking_pingpong.c" \
  && gcc -O2 -o blocking-http "$SRC/blocking_http.c" ) \
  > "$OUT/build.log" 2>&1 || { say "peer build failed, see $OUT/build.log"; exit 1; }

BODY="$OUT/echoFloat.xml"
cat > "$BODY" <<'EOF'
<?xml version="1.0" encoding="UTF-8"?><SOAP-ENV:Envelope xmlns:SOAP-ENV="http://schemas.xmlsoap.org/soap/envelope/" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema"><SOAP-ENV:Body><ns1:echoFloat xmlns:ns1="http://soapinterop.org/" SOAP-ENV:encodingStyle="http://schemas.xmlsoap.org/soap/encoding/"><inputFloat xsi:type="xsd:float">654.321</inputFloat></ns1:echoFloat></SOAP-ENV:Body></SOAP-ENV:Envelope>
EOF
ACTION="http://soapinterop.org/"

PIDS=()
cleanup() {
  local p
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null || true; done
  PIDS=()
}
trap cleanup EXIT

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_port() { # PORT: up to 20 s
  local i
  for i in $(seq 200); do
    (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0
    sleep 0.1
  done
  say "nothing listens on port $1"; exit 1
}
# start CPU PORT CMD...: a server pinned to CPU ("-" for unpinned), waited for.
start() {
  local cpu="$1" port="$2"; shift 2
  if [ "$cpu" = "-" ]; then "$@" >/dev/null 2>&1 & else taskset -c "$cpu" "$@" >/dev/null 2>&1 & fi
  PIDS+=($!)
  wait_port "$port"
}

# start_listening CPU CMD...: a soapstone server or baseline started with `--addr 127.0.0.1:0`
# (in CMD), pinned as by `start`; sets LISTEN to the host:port of its `listening on` line. No
# port is handed over from another process, so none can be taken in between. (The gSOAP,
# omniORB and blocking peers take a port as an argument: `free_port` and `start`.)
start_listening() {
  local cpu="$1"; shift
  local log i
  log="$(mktemp "$TMP/listen.XXXXXX")"
  if [ "$cpu" = "-" ]; then "$@" >"$log" 2>&1 & else taskset -c "$cpu" "$@" >"$log" 2>&1 & fi
  PIDS+=($!)
  for i in $(seq 200); do
    LISTEN="$(sed -n 's|.*listening on [a-z]*://\([0-9.]*:[0-9]*\).*|\1|p' "$log" | head -1)"
    [ -n "$LISTEN" ] && return 0
    sleep 0.1
  done
  say "no \`listening on\` line from $1 in 20 s (see $log)"; exit 1
}

# rt_args RUNTIME: serve's options for a --runtimes entry (`per-core+reuse-port`: --reuse-port
# too; `per-core+hyper` / `+lean`: --http hyper / lean; `+busy-poll`: --busy-poll-us 50;
# `+blocking`: --blocking-connections 4, serve's default; `+blocking0`: 0, none; `+sliceN`:
# --cpu-slice-us N).
rt_args() {
  local rt="$1"
  echo "--runtime ${rt%%+*}"
  case "$rt" in *+reuse-port*) echo "--reuse-port" ;; esac
  case "$rt" in *+hyper*) echo "--http hyper" ;; *+lean*) echo "--http lean" ;; esac
  case "$rt" in *+busy-poll*) echo "--busy-poll-us 50" ;; esac
  case "$rt" in *+blocking0*) echo "--blocking-connections 0" ;; *+blocking*) echo "--blocking-connections 4" ;; esac
  if [[ "$rt" =~ \+slice([0-9]+) ]]; then echo "--cpu-slice-us ${BASH_REMATCH[1]}"; fi
}

TMP="$OUT/run"; mkdir -p "$TMP"
# bench_mean CPU URL ARGS...: one closed-loop run on one connection, prints the mean in µs.
bench_mean() {
  local cpu="$1" url="$2"; shift 2
  taskset -c "$cpu" "$BIN" bench "$url" --closed -c 1 --duration "${SECONDS_PER_POINT}s" \
    --warmup 1s --json "$TMP/p.json" "$@" >/dev/null
  jq -e '.requests.errors == 0 and .requests.ok > 0' "$TMP/p.json" >/dev/null \
    || { say "errors in a run against $url"; exit 1; }
  jq -r '.latency.uncorrected.mean_us' "$TMP/p.json"
}
# blocking_mean CPU URL: the blocking raw HTTP client's mean over $CALLS calls.
blocking_mean() {
  local hostport="${2#http://}"
  local port="${hostport%%/*}"; port="${port##*:}"
  taskset -c "$1" "$OUT/blocking-http" "$port" "/${hostport#*/}" "$ACTION" "$BODY" "$CALLS" \
    || { say "errors in a blocking-client run against $2"; exit 1; }
}
median() { sort -g | awk '{a[NR]=$1} END {if (NR%2) print a[(NR+1)/2]; else printf "%.3f\n", (a[NR/2]+a[NR/2+1])/2}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }

# The floor's byte counts: soapstone's echoFloat exchange as the bench sends and receives it.
start_listening - "$BIN" serve --addr 127.0.0.1:0 --services echo
"$BIN" bench "http://$LISTEN/echo" --body "$BODY" --soap-action "$ACTION" --closed -c 1 \
  --duration 1s --json "$TMP/sizes.json" >/dev/null
REQ_BYTES=$(jq '.bytes_sent / .requests.sent | floor' "$TMP/sizes.json")
RESP_BYTES=$(jq '.bytes_received / .requests.responses | floor' "$TMP/sizes.json")
cleanup
say "echoFloat on the wire: $REQ_BYTES bytes up, $RESP_BYTES bytes down"

declare -A MEANS
IFS=',' read -r -a RT_LIST <<< "$RUNTIMES"
for placement in one cross; do
  if [ "$placement" = one ]; then SCPU=0; else SCPU=1; fi
  CCPU=0
  say "placement $placement: servers on CPU $SCPU, clients on CPU $CCPU"
  declare -A URL=()
  for rt in "${RT_LIST[@]}"; do
    start_listening "$SCPU" "$BIN" serve --addr 127.0.0.1:0 --services echo $(rt_args "$rt")
    URL[$rt]="http://$LISTEN/echo"
  done
  if [ -n "$BEFORE" ]; then
    start_listening "$SCPU" "$BEFORE" serve --addr 127.0.0.1:0 --services echo $(rt_args "${RT_LIST[0]}")
    URL[before]="http://$LISTEN/echo"
  fi
  start_listening "$SCPU" "$BIN" baseline tcp-pingpong --addr 127.0.0.1:0 \
    --request-size "$REQ_BYTES" --response-size "$RESP_BYTES"
  FLOOR="tcp://$LISTEN"
  BPORT=$(free_port); start "$SCPU" "$BPORT" "$OUT/blocking-pingpong" server "$BPORT" "$REQ_BYTES" "$RESP_BYTES"
  POLL_FLOOR=0
  case ",$RUNTIMES," in *+busy-poll*)
    POLL_FLOOR=1
    PPORT=$(free_port)
    SPIN_US=50 start "$SCPU" "$PPORT" "$OUT/blocking-pingpong" server "$PPORT" "$REQ_BYTES" "$RESP_BYTES" ;;
  esac
  p=$(free_port); start "$SCPU" "$p" "$OUT/echo-gsoap" "$p"; GSOAP="http://127.0.0.1:$p/echo"
  p=$(free_port); start "$SCPU" "$p" "$OUT/echo-omniorb-server" "$p"; ORB="corbaloc::127.0.0.1:$p/echo"
  for r in $(seq "$REPEATS"); do
    MEANS[$placement,floor]+="$(bench_mean "$CCPU" "$FLOOR" --request-size "$REQ_BYTES" --response-size "$RESP_BYTES") "
    MEANS[$placement,floor-blocking]+="$(taskset -c "$CCPU" "$OUT/blocking-pingpong" client "$BPORT" "$REQ_BYTES" "$RESP_BYTES" "$CALLS") "
    if [ "$POLL_FLOOR" -eq 1 ]; then
      MEANS[$placement,floor-blocking+poll]+="$(SPIN_US=50 taskset -c "$CCPU" "$OUT/blocking-pingpong" client "$PPORT" "$REQ_BYTES" "$RESP_BYTES" "$CALLS") "
    fi
    for rt in "${RT_LIST[@]}"; do
      MEANS[$placement,$rt]+="$(bench_mean "$CCPU" "${URL[$rt]}" --body "$BODY" --soap-action "$ACTION") "
    done
    if [ -n "$BEFORE" ]; then
      MEANS[$placement,before]+="$(bench_mean "$CCPU" "${URL[before]}" --body "$BODY" --soap-action "$ACTION") "
    fi
    MEANS[$placement,gsoap]+="$(bench_mean "$CCPU" "$GSOAP" --body "$BODY" --soap-action "$ACTION") "
    for rt in "${RT_LIST[@]}"; do
      MEANS[$placement,$rt@blocking-client]+="$(blocking_mean "$CCPU" "${URL[$rt]}") "
    done
    MEANS[$placement,gsoap@blocking-client]+="$(blocking_mean "$CCPU" "$GSOAP") "
    MEANS[$placement,omniorb]+="$(taskset -c "$CCPU" "$OUT/echo-omniorb-client" "$ORB" "$CALLS") "
    MEANS[$placement,client]+="$(taskset -c "$CCPU" "$LOOP" "${URL[${RT_LIST[0]}]}" "$CALLS") "
    if [ "$LOOP_BLOCKING" -eq 1 ]; then
      MEANS[$placement,client-blocking]+="$(taskset -c "$CCPU" "$LOOP" --blocking "${URL[${RT_LIST[0]}]}" "$CALLS") "
    fi
    # Both ends polling: the Client (BUSY_POLL_US 50) against a `+busy-poll` server.
    for rt in "${RT_LIST[@]}"; do
      case "$rt" in *+busy-poll*)
        MEANS[$placement,client+busy-poll]+="$(taskset -c "$CCPU" "$LOOP" "${URL[$rt]}" "$CALLS" 50) " ;;
      esac
    done
    if [ -n "$BEFORE_LOOP" ]; then
      MEANS[$placement,client-before]+="$(taskset -c "$CCPU" "$BEFORE_LOOP" "${URL[${RT_LIST[0]}]}" "$CALLS") "
    fi
    say "  repeat $r/$REPEATS done"
  done
  cleanup
done

med() { tr ' ' '\n' <<< "${MEANS[$1]}" | grep . | median; }
DEF="${RT_LIST[0]}"
echo
echo "echoFloat round trip, mean µs per run, median of $REPEATS interleaved runs ($SECONDS_PER_POINT s each; omniORB and Client: $CALLS calls)"
printf '%-44s %12s %12s\n' "system" "one CPU" "across CPUs"
SYSTEMS=(floor floor-blocking)
[ -z "${MEANS[one,floor-blocking+poll]:-}" ] || SYSTEMS+=(floor-blocking+poll)
SYSTEMS+=("${RT_LIST[@]}")
[ -z "$BEFORE" ] || SYSTEMS+=(before)
SYSTEMS+=(gsoap omniorb client)
[ -z "${MEANS[one,client-blocking]:-}" ] || SYSTEMS+=(client-blocking)
for rt in "${RT_LIST[@]}"; do SYSTEMS+=("$rt@blocking-client"); done
SYSTEMS+=(gsoap@blocking-client)
[ -z "${MEANS[one,client+busy-poll]:-}" ] || SYSTEMS+=(client+busy-poll)
[ -z "$BEFORE_LOOP" ] || SYSTEMS+=(client-before)
for k in "${SYSTEMS[@]}"; do
  printf '%-44s %12.1f %12.1f\n' "$k" "$(med one,$k)" "$(med cross,$k)"
done
echo
echo "ratios (soapstone server = --runtime $DEF; below 1: soapstone faster)"
printf '%-44s %12s %12s\n' "ratio" "one CPU" "across CPUs"
row() { printf '%-44s %12s %12s\n' "$1" "$(ratio "$(med one,$2)" "$(med one,$3)")" "$(ratio "$(med cross,$2)" "$(med cross,$3)")"; }
row "soapstone / raw TCP floor" "$DEF" floor
row "soapstone / gSOAP 2.8" "$DEF" gsoap
row "soapstone / omniORB 4 (CORBA)" "$DEF" omniorb
row "raw TCP floor / blocking floor" floor floor-blocking
row "omniORB 4 / blocking floor" omniorb floor-blocking
row "soapstone Client+server / floor" client floor
if [ -n "${MEANS[one,client-blocking]:-}" ]; then
  row "soapstone blocking Client+server / floor" client-blocking floor
  row "blocking Client+server / blocking floor" client-blocking floor-blocking
  row "soapstone blocking Client+server / omniORB 4" client-blocking omniorb
  row "soapstone blocking Client / Client" client-blocking client
fi
for rt in "${RT_LIST[@]:1}"; do
  row "soapstone $rt / $DEF" "$rt" "$DEF"
  row "soapstone $rt / omniORB 4" "$rt" omniorb
done
for rt in "${RT_LIST[@]}"; do
  row "soapstone $rt / omniORB 4, blocking clients" "$rt@blocking-client" omniorb
done
row "soapstone / gSOAP 2.8, blocking client" "$DEF@blocking-client" gsoap@blocking-client
[ -z "$BEFORE" ] || row "soapstone / before ($DEF)" "$DEF" before
[ -z "$BEFORE_LOOP" ] || row "Client / Client before" client client-before
if [ -n "${MEANS[one,client+busy-poll]:-}" ]; then
  row "Client+server, both polling / omniORB 4" client+busy-poll omniorb
  row "Client+server, both polling / not" client+busy-poll client
  row "Client+server, both polling / blocking floor, both polling" client+busy-poll floor-blocking+poll
fi

[ "$LOAD" -eq 1 ] || exit 0
# load_table PLACEMENT: the 8- and 64-connection closed loops against gSOAP and each soapstone
# runtime. `shared`: servers unpinned, `bench -t 2` unpinned (both CPUs shared with the load
# generator, as wrk -t2). `split`: servers on CPU 0, `bench -t 1` on CPU 1 (each side a CPU
# of its own, as a load generator on another host; one server CPU).
load_table() {
  local placement="$1" scpu lcpu threads
  if [ "$placement" = split ]; then scpu=0; lcpu=1; threads=1; else scpu=-; lcpu=0,1; threads=2; fi
  echo
  if [ "$placement" = split ]; then
    echo "load, split: servers on CPU 0, soapstone bench --closed -t 1 on CPU 1, $LOAD_SECONDS s after 1 s warm-up"
  else
    echo "load: soapstone bench --closed -t 2, $LOAD_SECONDS s after 1 s warm-up, servers unpinned (both CPUs shared with the load generator, as wrk -t2)"
  fi
  printf '%-40s %8s %12s %12s %8s %10s %10s\n' server connections "r/s" "gSOAP r/s" ratio "p99 µs" "gSOAP p99"
  load() { # URL CONNECTIONS -> "req/s p99_us"
    taskset -c "$lcpu" "$BIN" bench "$1" --body "$BODY" --soap-action "$ACTION" --closed -c "$2" \
      -t "$threads" --duration "${LOAD_SECONDS}s" --warmup 1s --json "$TMP/l.json" >/dev/null
    jq -e '.requests.errors == 0' "$TMP/l.json" >/dev/null || { say "errors under load against $1"; exit 1; }
    jq -r '"\(.ok_rate) \(.latency.uncorrected.p99_us)"' "$TMP/l.json"
  }
  p=$(free_port); start "$scpu" "$p" "$OUT/echo-gsoap" "$p"; GURL="http://127.0.0.1:$p/echo"
  declare -A SURL=()
  for rt in "${RT_LIST[@]}"; do
    start_listening "$scpu" "$BIN" serve --addr 127.0.0.1:0 --services echo $(rt_args "$rt")
    SURL[$rt]="http://$LISTEN/echo"
  done
  LOAD_RT=("${RT_LIST[@]}")
  if [ -n "$BEFORE" ]; then
    start_listening "$scpu" "$BEFORE" serve --addr 127.0.0.1:0 --services echo $(rt_args "$DEF")
    SURL[before]="http://$LISTEN/echo"
    LOAD_RT+=(before)
  fi
  for c in 8 64; do
    # gSOAP between the soapstone runs, so that drift over the run touches both sides
    read -r g_rate g_p99 <<< "$(load "$GURL" "$c")"
    for rt in "${LOAD_RT[@]}"; do
      read -r s_rate s_p99 <<< "$(load "${SURL[$rt]}" "$c")"
      label="soapstone --runtime $rt"; [ "$rt" != before ] || label="before --runtime $DEF"
      printf '%-40s %8s %12.0f %12.0f %8s %10s %10s\n' "$label" "$c" "$s_rate" "$g_rate" \
        "$(ratio "$s_rate" "$g_rate")" "$s_p99" "$g_p99"
    done
  done
  cleanup
}
load_table shared
[ "$SPLIT_LOAD" -eq 0 ] || load_table split
