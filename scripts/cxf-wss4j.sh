#!/usr/bin/env bash
# Interop outside CI (issue 11): a CXF 4 JAX-WS client with WSS4J's UsernameToken
# (PasswordDigest: nonce + created) calls soapstone's secured charging service over https.
# It checks the value (creditControl before and after a credit of 25), that the ledger entry
# names the user, and that a wrong secret is refused with wsse:FailedAuthentication and
# charges nothing. Needs java 17+, javac, mvn (Maven Central reachable or ~/.m2 warm), openssl
# and python3; loopback only, stops by itself.
# Usage: scripts/cxf-wss4j.sh   (SOAPSTONE=path/to/soapstone to pick the binary)
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${SOAPSTONE:-target/release/soapstone}
[[ -x $BIN ]] || BIN=target/debug/soapstone
[[ -x $BIN ]] || { echo "cxf-wss4j: build soapstone first (cargo build --release)" >&2; exit 2; }
for tool in java javac mvn openssl python3; do
  command -v "$tool" >/dev/null || { echo "cxf-wss4j: \`$tool\` is required" >&2; exit 2; }
done
work=$(mktemp -d)
server=
cleanup() { [[ -n $server ]] && kill "$server" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT

echo "cxf-wss4j: fetching CXF and WSS4J (Maven)"
lib=${CXF_WSS4J_LIB:-lab/peers/build/cxf-wss4j-lib}
if [[ ! -d $lib ]] || [[ -z $(ls "$lib") ]]; then
  mvn -q -B -f scripts/cxf-wss4j/pom.xml dependency:copy-dependencies -DoutputDirectory="$PWD/$lib"
fi
javac -d "$work/classes" -cp "$lib/*" scripts/cxf-wss4j/CxfWss4jClient.java

# A CA and a leaf for localhost it signs.
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 \
  -subj /CN=cxf-wss4j-ca -keyout "$work/ca.key" -out "$work/ca.pem" 2>/dev/null
openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj /CN=localhost \
  -keyout "$work/key.pem" -out "$work/leaf.csr" 2>/dev/null
printf 'subjectAltName=DNS:localhost,IP:127.0.0.1\nbasicConstraints=CA:FALSE\n' > "$work/ext"
openssl x509 -req -in "$work/leaf.csr" -CA "$work/ca.pem" -CAkey "$work/ca.key" -CAcreateserial \
  -days 2 -extfile "$work/ext" -out "$work/cert.pem" 2>/dev/null

printf 'text-unused\ncxf-digest-secret\n' | "$BIN" users add operator --permissions read,move \
  --file "$work/users.toml" --password-stdin --digest-secret-stdin
# An interop check, not a load test: no load shedding on a busy machine.
"$BIN" serve --addr 127.0.0.1:0 --services charging --accounts 10 --db "$work/charging.db" \
  --tls-cert "$work/cert.pem" --tls-key "$work/key.pem" --auth wsse --users "$work/users.toml" \
  --queue-delay-target off \
  > "$work/serve.out" 2>&1 &
server=$!
for _ in $(seq 200); do grep -q '^listening on ' "$work/serve.out" && break; sleep 0.1; done
addr=$(sed -n 's/^listening on https:\/\///p' "$work/serve.out")
[[ -n $addr ]] || { echo "cxf-wss4j: the server did not start:" >&2; cat "$work/serve.out" >&2; exit 1; }
url="https://localhost:${addr##*:}/charging"
call() { timeout 120 java -cp "$work/classes:$lib/*" CxfWss4jClient "$url" "$work/ca.pem" "$@"; }

before=$(call operator cxf-digest-secret creditControl 3)
cn=$(call operator cxf-digest-secret credit 3 25)
after=$(call operator cxf-digest-secret creditControl 3)
echo "cxf-wss4j: balance $before, credit 25 -> transaction $cn, balance $after"
[[ $after -eq $((before + 25)) ]] || { echo "cxf-wss4j: FAILED: expected $((before + 25))" >&2; exit 1; }
set +e
refused=$(call operator wrong-secret credit 3 25); code=$?
set -e
echo "cxf-wss4j: wrong secret -> $refused"
[[ $code -eq 3 && $refused == "fault FailedAuthentication: "* ]] || { echo "cxf-wss4j: FAILED: expected a FailedAuthentication fault" >&2; exit 1; }
[[ $(call operator cxf-digest-secret creditControl 3) -eq $after ]] || { echo "cxf-wss4j: FAILED: the refusal charged" >&2; exit 1; }
kill "$server"; wait "$server" 2>/dev/null || true; server=
entry=$(python3 - "$work/charging.db" "$cn" <<'PY'
import sqlite3, sys
row = sqlite3.connect(sys.argv[1]).execute(
    "SELECT kind, account, amount, issuer FROM transactions WHERE cn = ?", (int(sys.argv[2]),)).fetchone()
print("|".join(map(str, row)) if row else "missing")
PY
)
echo "cxf-wss4j: ledger entry $cn: $entry"
[[ $entry == "credit|3|25|operator" ]] || { echo "cxf-wss4j: FAILED: ledger entry $entry" >&2; exit 1; }
echo "cxf-wss4j: ok (CXF $(ls "$lib" | sed -n 's/^cxf-core-\(.*\)\.jar$/\1/p'), WSS4J $(ls "$lib" | sed -n 's/^wss4j-ws-security-dom-\(.*\)\.jar$/\1/p'))"
