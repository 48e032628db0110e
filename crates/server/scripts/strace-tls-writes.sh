#!/usr/bin/env bash
# Shows, with strace, that over TLS each response leaves the server in ONE syscall (one TLS
# record: head and body together) and each request leaves the soapstone Client in one, as on
# plain TCP (strace-writes.sh, which can read the plaintext; here the bytes are encrypted, so
# the script counts the syscalls of the connection instead).
#   crates/server/scripts/strace-tls-writes.sh   (needs strace; builds the pingpong example)
set -euo pipefail
cd "$(dirname "$0")/../../.."
command -v strace >/dev/null || { echo "strace not found: apt-get install strace" >&2; exit 2; }
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-target}"
cargo build -q --release -p soapstone-server --example pingpong
exe="$CARGO_TARGET_DIR/release/examples/pingpong"
trace=$(mktemp -d)
trap 'rm -rf "$trace"' EXIT

coproc SRV { strace -f -qq -e trace=write,writev,sendto,sendmsg -o "$trace/server" "$exe" serve-soap-tls current "$trace/ca.pem"; }
srv_pid=$SRV_PID
srv_in=${SRV[1]}
read -r addr <&"${SRV[0]}"
# 500 warm-up calls and 3 measured ones on one keep-alive TLS connection.
PINGPONG_TLS_CA="$trace/ca.pem" strace -f -qq -e trace=write,writev,sendto,sendmsg \
  -o "$trace/client" "$exe" client tls-client "$addr" 3 0 0 >/dev/null
calls=503
eval "exec ${srv_in}>&-"
wait "$srv_pid" 2>/dev/null || true

check() { # file, label: the syscalls carrying more than 100 bytes (not eventfd or stdout wakes)
  local sizes top n_top n_all
  sizes=$(grep -Ev '^[0-9]+ +write\((1|2),' "$1" | grep -oE '= [0-9]+$' | awk '$2 > 100 {print $2}')
  top=$(echo "$sizes" | sort | uniq -c | sort -rn | head -1)
  n_top=$(echo "$top" | awk '{print $1}')
  n_all=$(echo "$sizes" | grep -c .)
  echo "$2: $n_all data syscalls; the most common size, $(echo "$top" | awk '{print $2}') bytes, $n_top times for $calls messages"
  # Every message in one syscall of the same size; at most 3 more for the handshake.
  [ "$n_top" = "$calls" ] && [ "$n_all" -le $((calls + 3)) ]
}
ok=0
check "$trace/server" "server responses" || ok=1
check "$trace/client" "client requests" || ok=1
exit $ok
