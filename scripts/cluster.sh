#!/usr/bin/env bash
# A local soapstone cluster with one command: PostgreSQL (initdb into a temporary directory),
# N charging replicas (`soapstone-serve --services charging`, each pinned to a CPU and, where
# permitted, in its own network namespace so that they behave as separate hosts) and HAProxy in
# front with HTTP health checks on /readyz. Everything lives on this machine (loopback and the
# namespaces it creates) and is torn down by `down`.
#
#   scripts/cluster.sh up [--replicas N] [--port P] [--netns auto|on|off] [--bin PATH]
#                        [--dir DIR] [--accounts N] [--drain-grace D] [--cpus LIST]
#                        [--haproxy-cpu C]
#   scripts/cluster.sh status [--dir DIR]
#   scripts/cluster.sh kill I [--dir DIR]      # SIGKILL replica I (1-based)
#   scripts/cluster.sh start I [--dir DIR]     # start replica I again
#   scripts/cluster.sh pg-restart [--dir DIR]  # restart PostgreSQL (fast mode)
#   scripts/cluster.sh down [--dir DIR] [--keep]
#
# `up` writes DIR/cluster.env (URL of the balancer, the replicas, PostgreSQL, HAProxy's CSV
# stats) for tests and the lab; HAProxy's log (health-check transitions, with milliseconds) is
# DIR/haproxy.log, each replica's output DIR/rI.log. Defaults: 2 replicas, port 8400 (`--port 0`:
# a free one, reserved for the cluster and named in cluster.env's URL), DIR
# /tmp/soapstone-cluster, the release `soapstone-serve` of this checkout (built if missing).
# Every other loopback port (PostgreSQL, the replicas outside namespaces, HAProxy's statistics)
# is reserved for the cluster until `down`, so that no other process can take it in between.
# Exit codes: 0 ok, 1 failure, 2 bad usage, 3 a needed tool (haproxy, PostgreSQL) is missing.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
DIR="${SOAPSTONE_CLUSTER_DIR:-/tmp/soapstone-cluster}"
REPLICAS=2
PORT=8400
NETNS=auto
BIN=""
ACCOUNTS=10000
GRACE=2s
KEEP=0
CPUS=""
HAPROXY_CPU=""

die() { echo "cluster: $*" >&2; exit 1; }
usage() { sed -n '2,22p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }

cmd="${1:-}"; [ -n "$cmd" ] || usage; shift
ARG=""
case "$cmd" in kill|start) ARG="${1:-}"; [ -n "$ARG" ] || usage; shift ;; esac
while [ $# -gt 0 ]; do
  case "$1" in
    --replicas) REPLICAS="$2"; shift 2 ;;
    --port) PORT="$2"; shift 2 ;;
    --netns) NETNS="$2"; shift 2 ;;
    --bin) BIN="$2"; shift 2 ;;
    --dir) DIR="$2"; shift 2 ;;
    --accounts) ACCOUNTS="$2"; shift 2 ;;
    --drain-grace) GRACE="$2"; shift 2 ;;
    --keep) KEEP=1; shift ;;
    --cpus) CPUS="$2"; shift 2 ;;
    --haproxy-cpu) HAPROXY_CPU="$2"; shift 2 ;;
    -h|--help) usage ;;
    *) echo "cluster: unknown argument \`$1\`" >&2; usage ;;
  esac
done
case "$REPLICAS" in ''|*[!0-9]*) echo "cluster: \`--replicas\` must be a number, not \`$REPLICAS\`" >&2; exit 2 ;; esac
[ "$REPLICAS" -ge 1 ] && [ "$REPLICAS" -le 16 ] || { echo "cluster: \`--replicas\` must be 1 to 16" >&2; exit 2; }
case "$NETNS" in auto|on|off) ;; *) echo "cluster: \`--netns\` must be auto, on or off, not \`$NETNS\`" >&2; exit 2 ;; esac

pg_bin() {
  if [ -n "${SOAPSTONE_PG_BIN:-}" ]; then echo "$SOAPSTONE_PG_BIN"; return; fi
  ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1
}
as_pg() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
# Reserves N free loopback ports until `down` and prints them: a python3 process holds a socket
# bound to each with SO_REUSEADDR that never listens. Linux then gives those ports to no other
# process (no port-0 bind, no outgoing connection, no socket without SO_REUSEADDR), while
# PostgreSQL, the replicas and HAProxy, which bind them by number with SO_REUSEADDR, can, also
# when a replica is started again (docs/architecture.md#tests-that-start-servers-in-other-processes).
# A port read from a socket that is closed at once is anybody's until its server binds it.
reserve_ports() {
  python3 -c '
import signal, socket, sys
held = []
for _ in range(int(sys.argv[1])):
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("127.0.0.1", 0))
    held.append(s)
print(*(s.getsockname()[1] for s in held), flush=True)
signal.pause()
' "$1" > "$DIR/ports" 2>&1 < /dev/null &
  echo $! > "$DIR/ports.pid"
  for _ in $(seq 1 100); do
    if [ -s "$DIR/ports" ]; then cat "$DIR/ports"; return 0; fi
    alive "$DIR/ports.pid" || break
    sleep 0.1
  done
  die "cannot reserve $1 loopback ports: $(cat "$DIR/ports")"
}
alive() { [ -f "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null; }

# Replica I's network: in namespace ss-rI behind a veth pair 10.201.I.1 (host) / 10.201.I.2.
ns_up() {
  local i=$1
  ip netns add "ss-r$i"
  ip link add "ss-h$i" type veth peer name "ss-n$i"
  ip link set "ss-n$i" netns "ss-r$i"
  ip addr add "10.201.$i.1/30" dev "ss-h$i"
  ip link set "ss-h$i" up
  ip netns exec "ss-r$i" ip addr add "10.201.$i.2/30" dev "ss-n$i"
  ip netns exec "ss-r$i" ip link set "ss-n$i" up
  ip netns exec "ss-r$i" ip link set lo up
}
ns_down() { ip netns del "ss-r$1" 2>/dev/null || true; ip link del "ss-h$1" 2>/dev/null || true; }
netns_possible() {
  [ "$(id -u)" = 0 ] && command -v ip >/dev/null || return 1
  ip netns add ss-probe 2>/dev/null || return 1
  ip netns del ss-probe
}

# Starts replica I as recorded in cluster.env and waits for its `listening on` line. Replica I
# is pinned to the I-th CPU of CPUS (round robin; default: all CPUs of the machine).
start_replica() {
  local i=$1 addr db cpu list
  addr="$(eval echo "\$R${i}_ADDR")"; db="$(eval echo "\$R${i}_DB")"
  if [ -n "$CPUS" ]; then IFS=, read -r -a list <<< "$CPUS"; else read -r -a list <<< "$(seq 0 $(( $(nproc) - 1 )) | tr '\n' ' ')"; fi
  cpu="${list[$(( (i - 1) % ${#list[@]} ))]}"
  # --insecure: a replica in its own namespace listens beyond loopback, on this machine's
  # private veth network, without TLS or authentication (docs/security.md).
  local run=(taskset -c "$cpu" "$BIN" --services charging --addr "$addr" --db "$db"
             --accounts "$ACCOUNTS" --drain-grace "$GRACE" --pg-connections 8 --insecure)
  : > "$DIR/r$i.log"
  if [ "$USE_NETNS" = 1 ]; then
    ip netns exec "ss-r$i" "${run[@]}" >>"$DIR/r$i.log" 2>&1 &
  else
    "${run[@]}" >>"$DIR/r$i.log" 2>&1 &
  fi
  echo $! > "$DIR/r$i.pid"
  for _ in $(seq 1 600); do
    grep -q '^listening on ' "$DIR/r$i.log" && return 0
    alive "$DIR/r$i.pid" || die "replica $i exited: $(tail -5 "$DIR/r$i.log")"
    sleep 0.1
  done
  die "replica $i did not listen within 60 s"
}

load_env() {
  [ -f "$DIR/cluster.env" ] || die "no cluster in \`$DIR\` (run \`scripts/cluster.sh up\`)"
  # shellcheck disable=SC1091
  . "$DIR/cluster.env"
}

up() {
  command -v haproxy >/dev/null || { echo "cluster: haproxy not found (apt-get install haproxy)" >&2; exit 3; }
  local pgb; pgb="$(pg_bin)"
  [ -n "$pgb" ] && [ -x "$pgb/initdb" ] || { echo "cluster: PostgreSQL server binaries not found under /usr/lib/postgresql/*/bin (apt-get install postgresql, or set SOAPSTONE_PG_BIN)" >&2; exit 3; }
  if [ -f "$DIR/cluster.env" ]; then die "a cluster is already up in \`$DIR\` (\`scripts/cluster.sh down\` first)"; fi
  if [ -z "$BIN" ]; then
    BIN="$ROOT/target/release/soapstone-serve"
    [ -x "$BIN" ] || (cd "$ROOT" && cargo build --release -q -p soapstone-services --bin soapstone-serve)
  fi
  [ -x "$BIN" ] || die "\`$BIN\` is not an executable"
  USE_NETNS=0
  case "$NETNS" in
    on) netns_possible || die "network namespaces are not permitted here (need root and \`ip\`); use --netns off"; USE_NETNS=1 ;;
    auto) if netns_possible; then USE_NETNS=1; else echo "cluster: no network namespaces here: replicas on loopback ports" >&2; fi ;;
  esac
  if [ "$USE_NETNS" = 1 ]; then
    for i in $(seq 1 "$REPLICAS"); do
      if ip netns list | grep -qw "ss-r$i"; then
        die "network namespace \`ss-r$i\` exists: another cluster is up (\`scripts/cluster.sh down --dir ...\`), or a stale one (\`ip netns del ss-r$i; ip link del ss-h$i\`)"
      fi
    done
  fi
  mkdir -p "$DIR"
  [ "$(id -u)" = 0 ] && chown postgres:postgres "$DIR"
  # A failed `up` leaves nothing running (its logs stay in DIR).
  trap 'echo "cluster: up failed; tearing down (logs kept in $DIR)" >&2; KEEP=1; down >/dev/null 2>&1' EXIT

  # The loopback ports: PostgreSQL's, HAProxy's statistics, each replica's outside namespaces
  # and, with `--port 0`, the balancer's.
  local ports
  read -r -a ports <<< "$(reserve_ports $(( 3 + REPLICAS )))"
  [ "${#ports[@]}" = $(( 3 + REPLICAS )) ] || die "cannot reserve $(( 3 + REPLICAS )) loopback ports"
  [ "$PORT" = 0 ] && PORT="${ports[2]}"

  # PostgreSQL: initdb, listening on loopback (and on the host side of each veth).
  local pgport listen hba
  pgport="${ports[0]}"
  as_pg "$pgb/initdb" -D "$DIR/pg" -U postgres --auth=trust -E UTF8 --no-sync >"$DIR/initdb.log" 2>&1 \
    || die "initdb failed: $(tail -5 "$DIR/initdb.log")"
  listen=127.0.0.1
  if [ "$USE_NETNS" = 1 ]; then
    for i in $(seq 1 "$REPLICAS"); do ns_up "$i"; listen="$listen,10.201.$i.1"; done
    echo "host all all 10.201.0.0/16 trust" >> "$DIR/pg/pg_hba.conf"
  fi
  as_pg "$pgb/pg_ctl" -D "$DIR/pg" -l "$DIR/pg.log" -w -t 60 \
    -o "-p $pgport -k $DIR -c listen_addresses=$listen -c max_connections=300" start >/dev/null \
    || die "PostgreSQL did not start: $(tail -5 "$DIR/pg.log")"
  as_pg "$pgb/psql" -h 127.0.0.1 -p "$pgport" -U postgres -qc "CREATE DATABASE charging" >/dev/null

  {
    echo "PG_BIN=$pgb"
    echo "PG_PORT=$pgport"
    echo "PG_URL=postgres://postgres@127.0.0.1:$pgport/charging"
    echo "REPLICAS=$REPLICAS"
    echo "USE_NETNS=$USE_NETNS"
    echo "BIN=$BIN"
    echo "ACCOUNTS=$ACCOUNTS"
    echo "GRACE=$GRACE"
    echo "CPUS=$CPUS"
    for i in $(seq 1 "$REPLICAS"); do
      if [ "$USE_NETNS" = 1 ]; then
        echo "R${i}_ADDR=10.201.$i.2:8080"
        echo "R${i}_DB=postgres://postgres@10.201.$i.1:$pgport/charging"
      else
        echo "R${i}_ADDR=127.0.0.1:${ports[$(( 2 + i ))]}"
        echo "R${i}_DB=postgres://postgres@127.0.0.1:$pgport/charging"
      fi
    done
  } > "$DIR/cluster.env"
  load_env
  for i in $(seq 1 "$REPLICAS"); do start_replica "$i"; done

  # HAProxy: round robin, a health check on /readyz every 250 ms, down after 2 failures (a dead
  # replica refuses the check's connection at once; a slow answer gets 2 s, so that a loaded
  # replica is not taken out for being slow). With no replica ready, clients get a SOAP Server
  # fault with the 503, not HAProxy's HTML page.
  local stats; stats="${ports[1]}"
  local fault='<?xml version="1.0" encoding="UTF-8"?><soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body><soap:Fault><faultcode>soap:Server</faultcode><faultstring>no charging replica is ready (the balancer has none in service); retry later</faultstring></soap:Fault></soap:Body></soap:Envelope>'
  printf 'HTTP/1.0 503 Service Unavailable\r\nCache-Control: no-cache\r\nConnection: close\r\nRetry-After: 1\r\nContent-Type: text/xml; charset=utf-8\r\nContent-Length: %s\r\n\r\n%s' "${#fault}" "$fault" > "$DIR/503.http"
  {
    cat <<EOF
global
    maxconn 8192
    log stderr format iso local0 info
defaults
    mode http
    log global
    option httplog
    option log-health-checks
    timeout connect 1s
    timeout client 30s
    timeout server 30s
    timeout check 2s
    errorfile 503 $DIR/503.http
    retries 2
    option redispatch
frontend charging
    bind 127.0.0.1:$PORT
    default_backend replicas
backend replicas
    balance roundrobin
    option httpchk GET /readyz
    http-check expect status 200
    default-server inter 250ms fastinter 250ms downinter 500ms fall 2 rise 2 on-marked-down shutdown-sessions
EOF
    for i in $(seq 1 "$REPLICAS"); do echo "    server r$i $(eval echo "\$R${i}_ADDR") check"; done
    cat <<EOF
frontend stats
    bind 127.0.0.1:$stats
    stats enable
    stats uri /
    stats refresh 1s
EOF
  } > "$DIR/haproxy.cfg"
  haproxy -c -q -f "$DIR/haproxy.cfg" || die "bad haproxy configuration"
  local pin=()
  [ -n "$HAPROXY_CPU" ] && pin=(taskset -c "$HAPROXY_CPU")
  "${pin[@]}" haproxy -db -f "$DIR/haproxy.cfg" > "$DIR/haproxy.log" 2>&1 &
  echo $! > "$DIR/haproxy.pid"
  {
    echo "URL=http://127.0.0.1:$PORT/charging"
    echo "STATS_URL='http://127.0.0.1:$stats/;csv'"
  } >> "$DIR/cluster.env"
  # Ready when HAProxy sees every replica up.
  for _ in $(seq 1 200); do
    if [ "$(curl -fsS "http://127.0.0.1:$stats/;csv" 2>/dev/null | grep -c '^replicas,r[0-9]*,.*,UP,')" = "$REPLICAS" ]; then
      trap - EXIT
      echo "cluster up: $REPLICAS replicas$( [ "$USE_NETNS" = 1 ] && echo ' (own network namespaces)') behind http://127.0.0.1:$PORT/charging; PostgreSQL on 127.0.0.1:$pgport; env in $DIR/cluster.env"
      return 0
    fi
    alive "$DIR/haproxy.pid" || die "haproxy exited: $(tail -5 "$DIR/haproxy.log")"
    sleep 0.1
  done
  die "HAProxy did not see every replica up within 20 s"
}

status() {
  load_env
  echo "PostgreSQL: $(as_pg "$PG_BIN/pg_ctl" -D "$DIR/pg" status >/dev/null 2>&1 && echo up || echo down) ($PG_URL)"
  for i in $(seq 1 "$REPLICAS"); do
    local addr ready
    addr="$(eval echo "\$R${i}_ADDR")"
    if [ "$USE_NETNS" = 1 ]; then
      ready="$(ip netns exec "ss-r$i" curl -s -m 2 "http://$addr/readyz" || true)"
    else
      ready="$(curl -s -m 2 "http://$addr/readyz" || true)"
    fi
    echo "replica r$i: $(alive "$DIR/r$i.pid" && echo running || echo stopped) at $addr, readyz: ${ready:-no answer}"
  done
  echo "HAProxy: $(alive "$DIR/haproxy.pid" && echo running || echo stopped) at $URL"
  curl -fsS -m 2 "$STATS_URL" 2>/dev/null | awk -F, '$1=="replicas" && $2!="BACKEND" {print "  " $2 ": " $18}' || true
}

kill_replica() {
  load_env
  [ -f "$DIR/r$ARG.pid" ] || die "no replica \`$ARG\`"
  kill -KILL "$(cat "$DIR/r$ARG.pid")" 2>/dev/null || true
}

down() {
  [ -d "$DIR" ] || { echo "cluster: nothing in \`$DIR\`"; return 0; }
  if [ -f "$DIR/cluster.env" ]; then load_env; fi
  [ -f "$DIR/haproxy.pid" ] && kill "$(cat "$DIR/haproxy.pid")" 2>/dev/null || true
  for f in "$DIR"/r*.pid; do [ -f "$f" ] && kill -TERM "$(cat "$f")" 2>/dev/null || true; done
  # The replicas' drain grace, then whatever is left is killed.
  for _ in $(seq 1 100); do
    local left=0
    for f in "$DIR"/r*.pid "$DIR/haproxy.pid"; do alive "$f" && left=1; done
    [ "$left" = 0 ] && break
    sleep 0.1
  done
  for f in "$DIR"/r*.pid "$DIR/haproxy.pid"; do alive "$f" && kill -KILL "$(cat "$f")" 2>/dev/null || true; done
  if [ -n "${PG_BIN:-}" ] && [ -d "$DIR/pg" ]; then
    as_pg "$PG_BIN/pg_ctl" -D "$DIR/pg" -m fast -w stop >/dev/null 2>&1 || true
  fi
  if [ "${USE_NETNS:-0}" = 1 ]; then
    for i in $(seq 1 "$REPLICAS"); do ns_down "$i"; done
  fi
  # The ports are released last, once nothing of the cluster can bind them any more.
  [ -f "$DIR/ports.pid" ] && kill "$(cat "$DIR/ports.pid")" 2>/dev/null || true
  if [ "$KEEP" = 1 ]; then
    rm -f "$DIR/cluster.env"
    echo "cluster down (logs kept in $DIR)"
  else
    rm -rf "$DIR"
    echo "cluster down"
  fi
}

case "$cmd" in
  up) up ;;
  status) status ;;
  kill) kill_replica ;;
  start) load_env; BIN="$BIN"; start_replica "$ARG" ;;
  pg-restart) load_env; as_pg "$PG_BIN/pg_ctl" -D "$DIR/pg" -m fast -w restart >/dev/null ;;
  down) down ;;
  *) usage ;;
esac
