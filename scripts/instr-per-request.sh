#!/usr/bin/env bash
# Instructions per echoFloat request in the soapstone server, counted by callgrind: a figure
# that does not move with the machine's load (timings on the shared 2-vCPU box swing 2-3x
# between runs), so two builds compare exactly. The before/after of a hot-path change:
#
#   scripts/instr-per-request.sh BIN [BIN...]        # e.g. an old build and target/release/soapstone
#   scripts/instr-per-request.sh --requests 5000 --runtime per-core BIN...
#   scripts/instr-per-request.sh BIN::--http=hyper BIN::--http=lean   # one binary, two settings
#   scripts/instr-per-request.sh --cache-sim OLD NEW   # also L1 instruction and data misses
#   scripts/instr-per-request.sh --keep /tmp/cg BIN    # keep the callgrind files (callgrind_annotate)
#   scripts/instr-per-request.sh --cache-sim BIN omniorb   # beside omniORB's echoFloat server
#   scripts/instr-per-request.sh --locked OLD NEW omniorb  # also locked instructions a request
#
# A `BIN::ARGS` entry adds ARGS (space-separated) to that binary's `serve`.
# For each binary: `serve --services echo --runtime current-thread` (default; queue-delay
# shedding off, as valgrind makes every request look late) under
# `valgrind --tool=callgrind`, 300 warm-up requests on one keep-alive connection, counters
# zeroed (`callgrind_control --zero`), N more requests (default 2000), counters dumped; prints
# the instructions (Ir) of the whole server process per request, and each binary's ratio to
# the first. The client is a raw socket in Python outside valgrind; the request is the
# SOAPBuilders echoFloat that scripts/rpc-compare.sh sends. Needs valgrind and python3;
# listens on 127.0.0.1 only and stops what it started.
# The entry `omniorb` measures omniORB's echoFloat server of scripts/rpc-compare.sh (built there
# into target/rpc-compare) the same way, driven by its own client over one GIOP connection
# (whose set-up, about 60,000 instructions, is counted in: under 1% of the figure at 2,000): the
# yardstick of the one-CPU goal, in instructions and cache lines rather than in noisy time.
# --locked also counts the locked instructions a request executes (`lock`-prefixed ones and
# `xchg` with memory: atomic read-modify-writes, about 20 cycles each uncontended on this
# machine's Xeon where callgrind counts each as one instruction, and a line shared with every
# other core that writes it), from callgrind's per-instruction counts and `objdump` of every
# object the process ran (needs binutils): docs/performance.md, round sixteen.
set -euo pipefail

REQUESTS=2000
RUNTIME=current-thread
CACHE_SIM=no
LOCKED=no
KEEP=""
BINS=()
while [ $# -gt 0 ]; do
  case "$1" in
    --requests) shift; REQUESTS="${1:?}" ;;
    --runtime) shift; RUNTIME="${1:?}" ;;
    --cache-sim) CACHE_SIM=yes ;;
    --locked) LOCKED=yes ;;
    --keep) shift; KEEP="${1:?}" ;;
    -h|--help) sed -n '2,33p' "$0"; exit 0 ;;
    -*) echo "instr-per-request: unknown option \`$1\` (see --help)" >&2; exit 2 ;;
    omniorb) BINS+=("$1") ;;
    *) [ -x "${1%%::*}" ] || { echo "instr-per-request: \`${1%%::*}\` is not an executable" >&2; exit 2; }
       BINS+=("$1") ;;
  esac
  shift
done
[ "${#BINS[@]}" -gt 0 ] || { echo "instr-per-request: give at least one soapstone binary" >&2; exit 2; }
command -v valgrind >/dev/null || { echo "instr-per-request: needs valgrind" >&2; exit 2; }
[ "$LOCKED" = no ] || command -v objdump >/dev/null || {
  echo "instr-per-request: --locked needs objdump (binutils)" >&2; exit 2; }
VG_EXTRA=()
[ "$LOCKED" = no ] || VG_EXTRA=(--dump-instr=yes)

OUT="$(mktemp -d)"
PID=""
cleanup() {
  [ -z "$PID" ] || { kill "$PID" 2>/dev/null || true; wait "$PID" 2>/dev/null || true; }
  [ -z "$KEEP" ] || { mkdir -p "$KEEP" && cp "$OUT"/cg.* "$KEEP"/ 2>/dev/null || true; }
  rm -rf "$OUT"
}
trap cleanup EXIT

# drive PORT N: N echoFloat requests on one keep-alive connection; fails on anything but 200.
drive() {
  python3 - "$1" "$2" <<'EOF'
import socket, sys
port, n = int(sys.argv[1]), int(sys.argv[2])
body = (b'<?xml version="1.0" encoding="UTF-8"?><SOAP-ENV:Envelope xmlns:SOAP-ENV="http://schemas.xmlsoap.org/soap/envelope/" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema"><SOAP-ENV:Body><ns1:echoFloat xmlns:ns1="http://soapinterop.org/" SOAP-ENV:encodingStyle="http://schemas.xmlsoap.org/soap/encoding/"><inputFloat xsi:type="xsd:float">654.321</inputFloat></ns1:echoFloat></SOAP-ENV:Body></SOAP-ENV:Envelope>')
req = (b'POST /echo HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: text/xml; charset=utf-8\r\n'
       b'SOAPAction: "http://soapinterop.org/"\r\nContent-Length: %d\r\n\r\n' % len(body)) + body
s = socket.create_connection(("127.0.0.1", port), timeout=60)
buf = b""
for _ in range(n):
    s.sendall(req)
    while b"\r\n\r\n" not in buf:
        chunk = s.recv(65536)
        if not chunk:
            sys.exit("connection closed")
        buf += chunk
    head, _, rest = buf.partition(b"\r\n\r\n")
    if not head.startswith(b"HTTP/1.1 200"):
        sys.exit("unexpected answer: " + head.decode(errors="replace"))
    length = int([l.split(b":")[1] for l in head.split(b"\r\n") if l.lower().startswith(b"content-length:")][0])
    while len(rest) < length:
        chunk = s.recv(65536)
        if not chunk:
            sys.exit("connection closed")
        rest += chunk
    buf = rest[length:]
EOF
}

# listening_port LOG: the port of the `listening on` line the server wrote to LOG (it binds
# port 0 itself, so no port is handed over from another process), waited for up to 60 s.
listening_port() {
  local port
  for _ in $(seq 600); do
    port="$(sed -n 's|.*listening on http://127.0.0.1:\([0-9]*\).*|\1|p' "$1" | head -1)"
    [ -n "$port" ] && { echo "$port"; return 0; }
    sleep 0.1
  done
  echo "instr-per-request: no \`listening on\` line in 60 s (see $1)" >&2; exit 1
}

# omniorb I: omniORB's server under callgrind, its client making 300 calls, then REQUESTS.
RPC="$(dirname "$0")/../target/rpc-compare"
omniorb() {
  [ -x "$RPC/echo-omniorb-server" ] && [ -x "$RPC/echo-omniorb-client" ] || {
    echo "instr-per-request: omniorb needs target/rpc-compare (run scripts/rpc-compare.sh once)" >&2; exit 2; }
  local port
  port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')"
  valgrind --tool=callgrind --cache-sim="$CACHE_SIM" "${VG_EXTRA[@]}" --callgrind-out-file="$OUT/cg.$1.%p" \
    "$RPC/echo-omniorb-server" "$port" >"$OUT/log.$1" 2>&1 &
  PID=$!
  for _ in $(seq 600); do (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break; sleep 0.1; done
  # the client makes N untimed calls, then N timed ones
  "$RPC/echo-omniorb-client" "corbaloc::127.0.0.1:$port/echo" 150 >/dev/null
  callgrind_control --zero "$PID" >/dev/null 2>&1
  "$RPC/echo-omniorb-client" "corbaloc::127.0.0.1:$port/echo" $((REQUESTS / 2)) >/dev/null
  callgrind_control --dump=measured "$PID" >/dev/null 2>&1
}

# locked I: locked instructions a request in binary I's measured dumps, two decimals.
locked() {
  python3 - "$REQUESTS" "$OUT"/cg."$1".* <<'EOF'
import os, re, subprocess, sys
requests, files = int(sys.argv[1]), sys.argv[2:]
# `lock`-prefixed instructions, and `xchg` with a memory operand (locked without the prefix;
# `xchg %ax,%ax` is a no-op)
LOCKED = re.compile(r"^\s*([0-9a-f]+):\s+(lock\s|xchg\s+\S*\()")
addrs = {}
def locked_in(obj):
    if obj not in addrs:
        addrs[obj] = set()
        if os.path.isfile(obj):
            out = subprocess.run(["objdump", "-d", "--no-show-raw-insn", obj],
                                 capture_output=True, text=True).stdout
            addrs[obj] = {int(m.group(1), 16) for m in map(LOCKED.match, out.splitlines()) if m}
    return addrs[obj]
total = 0
for path in files:
    lines = open(path, errors="replace").read().splitlines()
    if "desc: Trigger: dump measured" not in lines:
        continue
    names, obj, addr, skip = {}, None, 0, False
    # positions: `instr` then `line` (when lines are dumped too): the cost follows them
    npos = next(len(l.split()) - 1 for l in lines if l.startswith("positions:"))
    for line in lines:
        if line.startswith(("ob=", "cob=")):
            m = re.match(r"c?ob=\((\d+)\)(?:\s+(.*))?", line)
            if m and m.group(2):
                names[m.group(1)] = m.group(2)
            if line.startswith("ob=") and m:
                obj = names.get(m.group(1))
            continue
        if line.startswith("calls="):
            skip = True  # the next line is the call's inclusive cost
            continue
        if not line or line[0] not in "0+-*":
            continue
        parts = line.split()
        p = parts[0]
        if p.startswith("0x"):
            addr = int(p, 16)
        elif p[0] == "+":
            addr += int(p[1:])
        elif p[0] == "-":
            addr -= int(p[1:])
        if skip:
            skip = False
            continue
        if len(parts) > npos and obj and addr in locked_in(obj):
            total += int(parts[npos])
print(f"{total / requests:.2f}")
EOF
}

declare -a PER I1 D1 LOCK
for i in "${!BINS[@]}"; do
  bin="${BINS[$i]%%::*}"
  extra=()
  case "${BINS[$i]}" in *::*) read -r -a extra <<<"${BINS[$i]#*::}" ;; esac
  if [ "$bin" = omniorb ]; then
    omniorb "$i"
  else
    valgrind --tool=callgrind --cache-sim="$CACHE_SIM" "${VG_EXTRA[@]}" --callgrind-out-file="$OUT/cg.$i.%p" \
      "$bin" serve --addr 127.0.0.1:0 --services echo --runtime "$RUNTIME" --queue-delay-target off \
      "${extra[@]}" >"$OUT/log.$i" 2>&1 &
    PID=$!
    port="$(listening_port "$OUT/log.$i")"
    drive "$port" 300
    callgrind_control --zero "$PID" >/dev/null 2>&1
    drive "$port" "$REQUESTS"
    callgrind_control --dump=measured "$PID" >/dev/null 2>&1
  fi
  kill "$PID"; wait "$PID" 2>/dev/null || true; PID=""
  # the dump named "measured" holds the counts since --zero (all threads summed)
  # events Ir (and with --cache-sim: I1mr, D1mr + D1mw), summed over the threads' dumps
  read -r ir i1 d1 < <(for f in "$OUT"/cg."$i".*; do
      grep -q '^desc: Trigger: dump measured' "$f" 2>/dev/null || continue
      awk '/^events:/ { for (k = 2; k <= NF; k++) col[$k] = k }
           /^(summary|totals):/ { print $col["Ir"], (col["I1mr"] ? $col["I1mr"] : 0),
             (col["D1mr"] ? $col["D1mr"] + $col["D1mw"] : 0); exit }' "$f"
    done | awk '{ a += $1; b += $2; c += $3 } END { print a + 0, b + 0, c + 0 }')
  [ "$ir" -gt 0 ] || { echo "instr-per-request: no counts for $bin (see $OUT/log.$i)" >&2; exit 1; }
  PER[$i]=$((ir / REQUESTS))
  [ "$LOCKED" = no ] || LOCK[$i]="$(locked "$i")"
  I1[$i]=$((i1 / REQUESTS))
  D1[$i]=$((d1 / REQUESTS))
done

echo "instructions per echoFloat request (callgrind, serve --runtime $RUNTIME, $REQUESTS requests after 300)"
[ "$CACHE_SIM" = no ] && [ "$LOCKED" = no ] ||
  printf '%-60s %10s  %5s%s%s\n' "" "Ir" "ratio" \
    "$([ "$CACHE_SIM" = no ] || printf '  %8s  %8s' "L1i miss" "L1d miss")" \
    "$([ "$LOCKED" = no ] || printf '  %7s' "locked")"
for i in "${!BINS[@]}"; do
  printf '%-60s %10d  %5s' "${BINS[$i]}" "${PER[$i]}" \
    "$(awk -v a="${PER[$i]}" -v b="${PER[0]}" 'BEGIN { printf "%.3f", a / b }')"
  [ "$CACHE_SIM" = no ] || printf '  %8d  %8d' "${I1[$i]}" "${D1[$i]}"
  [ "$LOCKED" = no ] || printf '  %7s' "${LOCK[$i]}"
  printf '\n'
done
