#!/usr/bin/env bash
# Clients generated from third-party servers' own WSDLs call those servers on loopback (issue 9):
# Apache CXF 4 (document/literal, unqualified), Apache Axis 1.4 (rpc/encoded, multi-ref),
# gSOAP 2.8, PHP's SoapServer, spyne. Builds the peers that are missing (CXF and Axis 1.4 come
# from Maven Central, gSOAP and PHP from Debian packages; see lab/peers/setup.sh), then runs the
# crates/build-test tests that call them. Not part of CI (the downloads are slow); CI runs the
# PHP and spyne ones, which .ci/run builds.
#
# Usage: scripts/interop-generated.sh [--peers DIR]
#   --peers DIR   use peers already built in DIR (e.g. another checkout's lab/peers/build)
#                 instead of building them here
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
peers=""
while [ $# -gt 0 ]; do
    case "$1" in
        --peers) peers="$2"; shift 2 ;;
        -h|--help) sed -n '2,12p' "$0"; exit 0 ;;
        *) echo "unknown argument \`$1\` (see --help)" >&2; exit 2 ;;
    esac
done
if [ -z "$peers" ]; then
    peers="$root/lab/peers/build"
    missing=()
    manifest="$peers/manifest.json"
    for id in cxf axis1 gsoap python; do
        want="$id"; [ "$id" = python ] && want=spyne
        if [ ! -f "$manifest" ] || ! python3 - "$manifest" "$want" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
sys.exit(0 if any(p["id"] == sys.argv[2] and p["status"] == "ready" for p in m["peers"]) else 1)
PY
        then
            missing+=("$id")
        fi
    done
    if [ ${#missing[@]} -gt 0 ]; then
        only="$(IFS=,; echo "${missing[*]}")"
        echo "== building peers: $only"
        lab/peers/setup.sh --only "$only"
    fi
fi
for tool in php javac; do
    command -v "$tool" >/dev/null || echo "warning: \`$tool\` is not on the PATH: its tests will be skipped" >&2
done
echo "== generated clients against the peers in $peers"
export SOAPSTONE_PEERS_BUILD="$peers"
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
status=0
CARGO_INCREMENTAL="${CARGO_INCREMENTAL:-0}" cargo test -p soapstone-build-test \
    --test cxf --test axis1 --test gsoap --test php --test spyne -- --nocapture 2>&1 \
    | tee "$log" || status=$?
if [ "$status" -ne 0 ]; then
    echo "== a generated client failed against its server (exit $status)" >&2
    exit "$status"
fi
if grep -q "SKIPPED" "$log"; then
    echo "== some peers were skipped (see above)" >&2
    exit 1
fi
echo "== all generated clients called their servers"
