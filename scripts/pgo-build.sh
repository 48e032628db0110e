#!/usr/bin/env bash
# A profile-guided release build of `soapstone` and the `echo_loop` example: LLVM lays out
# functions and branches by how often a training run took them, so the request's hot code
# sits together and takes fewer instruction-cache lines (docs/performance.md, "Round nine").
#
#   scripts/pgo-build.sh                 # -> target/pgo/<host triple>/release/soapstone, echo_loop
#   scripts/pgo-build.sh --train-seconds 5
#
# Three steps, each in its own target directory so the plain release build stays as it is:
#  1. an instrumented build (`-Cprofile-generate`) in target/pgo-gen;
#  2. training, every process writing its counts to target/pgo-data/raw:
#     - `soapstone lab --quick --peers none --lan off` with short windows: every service,
#       both SOAP versions, the Client, TLS, the seeds' message shapes, so that no path a user
#       runs is left untrained (an untrained function is compiled for size, as cold);
#     - then the echoFloat round trip the one-CPU goal is about: `serve --services echo`
#       with `bench --closed -c 1` and `-c 8`, and `echo_loop` (the Client), plain, polling and
#       on blocking sockets (`--blocking`, `ClientConfig::blocking_io`), against the runtimes
#       and again against blocking connections (`--blocking-connections 4`);
#  3. `llvm-profdata merge`, then the release build with `-Cprofile-use` in target/pgo.
# Needs `llvm-profdata` of rustc's own LLVM: the rustup component `llvm-tools` (installed here
# if missing; rustup needs its distribution server). Takes two full release builds (about
# 6 minutes each on 2 CPUs) and the training (about 3 minutes).
set -euo pipefail

TRAIN_SECONDS=3
while [ $# -gt 0 ]; do
  case "$1" in
    --train-seconds) shift; TRAIN_SECONDS="${1:?}" ;;
    -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
    *) echo "pgo-build: unknown argument \`$1\` (see --help)" >&2; exit 2 ;;
  esac
  shift
done

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
say() { echo "pgo-build: $*" >&2; }

SYSROOT="$(rustc --print sysroot)"
HOST="$(rustc -vV | sed -n 's/^host: //p')"
PROFDATA="$SYSROOT/lib/rustlib/$HOST/bin/llvm-profdata"
if [ ! -x "$PROFDATA" ]; then
  say "installing the rustup component llvm-tools (llvm-profdata of rustc's LLVM)"
  rustup component add llvm-tools >&2
fi
[ -x "$PROFDATA" ] || { say "no llvm-profdata at $PROFDATA"; exit 2; }

DATA="$ROOT/target/pgo-data"
rm -rf "$DATA"; mkdir -p "$DATA/raw"

# build TARGET_DIR RUSTFLAGS: soapstone and echo_loop, release. With an explicit `--target`,
# RUSTFLAGS reach only the target's code, not the build scripts and proc macros (which would
# otherwise be instrumented too, and write profiles of the build into the training data).
HOST_TARGET="$HOST"
build() {
  ( cd "$ROOT" \
    && CARGO_TARGET_DIR="$1" RUSTFLAGS="$2" cargo build --release --quiet --target "$HOST_TARGET" \
         --bin soapstone -p soapstone \
    && CARGO_TARGET_DIR="$1" RUSTFLAGS="$2" cargo build --release --quiet --target "$HOST_TARGET" \
         -p soapstone-client --example echo_loop )
}

say "1/3 instrumented build (target/pgo-gen)"
build "$ROOT/target/pgo-gen" "-Cprofile-generate=$DATA/raw"
GEN="$ROOT/target/pgo-gen/$HOST_TARGET/release"

PIDS=()
cleanup() {
  local p
  for p in "${PIDS[@]}"; do kill -INT "$p" 2>/dev/null || true; done
  for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null || true; done
  PIDS=()
}
trap cleanup EXIT
export LLVM_PROFILE_FILE="$DATA/raw/%p-%m.profraw"

say "2/3 training: the lab, quick, no peers"
"$GEN/soapstone" lab --quick --peers none --lan off --duration 0.3s --warmup 100ms \
  --out "$DATA/lab-out" > "$DATA/lab.log" 2>&1 || { say "the training lab failed: $DATA/lab.log"; exit 1; }

say "2/3 training: the echoFloat round trip (${TRAIN_SECONDS} s a shape)"
BODY="$DATA/echoFloat.xml"
cat > "$BODY" <<'EOF'
<?xml version="1.0" encoding="UTF-8"?><SOAP-ENV:Envelope xmlns:SOAP-ENV="http://schemas.xmlsoap.org/soap/envelope/" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema"><SOAP-ENV:Body><ns1:echoFloat xmlns:ns1="http://soapinterop.org/" SOAP-ENV:encodingStyle="http://schemas.xmlsoap.org/soap/encoding/"><inputFloat xsi:type="xsd:float">654.321</inputFloat></ns1:echoFloat></SOAP-ENV:Body></SOAP-ENV:Envelope>
EOF
# train_server ARGS...: `serve --services echo ARGS` under the round trips above.
train_server() {
  "$GEN/soapstone" serve --addr 127.0.0.1:0 --services echo "$@" > "$DATA/serve.log" 2>&1 &
  PIDS+=($!)
  for _ in $(seq 100); do grep -q "listening on" "$DATA/serve.log" && break; sleep 0.1; done
  ADDR="$(sed -n 's/.*listening on \(http:\/\/\)\{0,1\}\([0-9.]*:[0-9]*\).*/\2/p' "$DATA/serve.log" | head -1)"
  [ -n "$ADDR" ] || { say "the training server did not start: $DATA/serve.log"; exit 1; }
  URL="http://$ADDR/echo"
  for c in 1 8; do
    "$GEN/soapstone" bench "$URL" --body "$BODY" --soap-action "http://soapinterop.org/" --closed \
      -c "$c" --duration "${TRAIN_SECONDS}s" --warmup 0 >/dev/null
  done
  timeout 120 "$GEN/examples/echo_loop" "$URL" 20000 >/dev/null
  timeout 120 "$GEN/examples/echo_loop" "$URL" 20000 50 >/dev/null
  timeout 120 "$GEN/examples/echo_loop" --blocking "$URL" 20000 >/dev/null
  cleanup
}
train_server
train_server --blocking-connections 4

say "3/3 merging $(ls "$DATA/raw" | wc -l) profiles, then the optimized build (target/pgo)"
"$PROFDATA" merge -o "$DATA/merged.profdata" "$DATA"/raw/*.profraw
build "$ROOT/target/pgo" "-Cprofile-use=$DATA/merged.profdata"
OUTDIR="$ROOT/target/pgo/$HOST_TARGET/release"
say "done: $OUTDIR/soapstone and $OUTDIR/examples/echo_loop"
