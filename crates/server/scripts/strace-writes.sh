#!/usr/bin/env bash
# Shows, with strace, that each response leaves the server in ONE syscall (head and body
# together) and each request leaves the soapstone Client in one syscall.
#   crates/server/scripts/strace-writes.sh        (needs strace and python3; builds the example)
# Prints the traced write-family syscalls that carry an HTTP head, and checks each also
# carries the end of its body.
set -euo pipefail
cd "$(dirname "$0")/../../.."
command -v strace >/dev/null || { echo "strace not found: apt-get install strace" >&2; exit 2; }
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-target}"
cargo build -q --release -p soapstone-server --example pingpong
exe="$CARGO_TARGET_DIR/release/examples/pingpong"
trace=$(mktemp -d)
trap 'rm -rf "$trace"' EXIT

# server side: three requests on one keep-alive connection from a raw client
coproc SRV { strace -f -qq -s 4096 -e trace=write,writev,sendto,sendmsg -o "$trace/server" "$exe" serve-soap current; }
srv_pid=$SRV_PID
srv_in=${SRV[1]}
read -r addr <&"${SRV[0]}"
python3 - "$addr" <<'PY'
import socket, sys
host, port = sys.argv[1].rsplit(":", 1)
req_body = ('<?xml version="1.0"?>\n<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/" '
            'xmlns:xsi="http://www.w3.org/1999/XMLSchema-instance" xmlns:xsd="http://www.w3.org/1999/XMLSchema">\n'
            '<soap:Body>\n<echoFloat xmlns="http://tempuri.org/">\n<input xsi:type="xsd:float">3.14159</input>\n'
            '</echoFloat>\n</soap:Body>\n</soap:Envelope>')
req = ("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: text/xml\r\nSOAPAction: \"\"\r\n"
       "Content-Length: %d\r\n\r\n%s" % (len(req_body), req_body)).encode()
s = socket.create_connection((host, int(port)))
for _ in range(3):
    s.sendall(req)
    data = b""
    while not data.rstrip().endswith(b"Envelope>"):
        data += s.recv(65536)
s.close()
PY
# the client side: three calls with the soapstone Client (warm-up 500 + 3)
strace -f -qq -s 4096 -e trace=write,writev,sendto,sendmsg -o "$trace/client" "$exe" client client "$addr" 3 0 0 >/dev/null
eval "exec ${srv_in}>&-"
wait "$srv_pid" 2>/dev/null || true

check() { # file, marker of a head, marker of a body end
  local n_head n_both
  n_head=$(grep -c "$2" "$1" || true)
  n_both=$(grep "$2" "$1" | grep -c "$3" || true)
  echo "$4: $n_head syscalls carry a head; $n_both of them also carry the body's end"
  grep "$2" "$1" | head -1 | cut -c1-200
  [ "$n_head" -gt 0 ] && [ "$n_head" = "$n_both" ]
}
ok=0
check "$trace/server" 'HTTP/1.1 200' 'Envelope>' "server responses" || ok=1
check "$trace/client" 'POST /echo' 'Envelope>' "client requests" || ok=1
exit $ok
