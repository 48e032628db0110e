#!/usr/bin/env bash
# Apache CXF wsdl2java on the document/literal WSDL soapstone serves, then the generated
# client calls the service over SOAP 1.1 and 1.2 (src/main/java/check/Main.java).
# Not part of CI: it downloads CXF from Maven Central. Needs cargo, mvn and a JDK 17+.
# Usage: bash crates/service/tests/cxf/run.sh   (from the repository root)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../../../.." && pwd)"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$root/target}"
cargo build -q -p soapstone-service --example echo_server
work="$(mktemp -d)"
urls="$work/urls.txt"
"$CARGO_TARGET_DIR/debug/examples/echo_server" > "$urls" &
server=$!
trap 'kill "$server" 2>/dev/null || true; rm -rf "$work"' EXIT
for _ in $(seq 50); do [ -s "$urls" ] && break; sleep 0.1; done
wsdl="$(head -1 "$urls")"
echo "wsdl: $wsdl"
cp -r "$here/pom.xml" "$here/src" "$work/"
(cd "$work" && mvn -q -B -Dwsdl="$wsdl" compile exec:java)
