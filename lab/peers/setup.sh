#!/usr/bin/env bash
# Installs and builds the lab's third-party peers (the seeds' systems, today) and writes
# lab/peers/build/manifest.json, which `soapstone lab` reads to find them.
#
#   lab/peers/setup.sh                  # install what is missing, build every peer
#   lab/peers/setup.sh --no-install     # install nothing: build and record what is there
#   lab/peers/setup.sh --only php,perl  # rebuild some peer groups; the manifest keeps the others'
#                                       # entries from an earlier run (none: the lab lists them missing)
#   lab/peers/setup.sh --out DIR        # build into DIR (default lab/peers/build)
#
# Groups: gsoap, php, perl, python, node, omniorb, rmi, axis1, mono, erlang, and the JVM peers
# cxf, axis2, apachesoap, jacorb, javaclient. Installs only from Debian packages (apt-get), Maven
# Central (mvn: Axis 1.4, CXF 4, Axis2 2.0, Apache SOAP 2.3.1 + Tomcat 9, JacORB 3.9, and the
# sqlite-jdbc of the charging store that Axis 1.4, JacORB and Java RMI share), PyPI (pip,
# into a venv in the build directory) and npm (into lab/peers/node/node_modules, versions pinned
# by lab/peers/node/package-lock.json). Idempotent: a second run installs nothing and rebuilds
# only what changed. A peer that cannot be installed or built is written to the manifest as
# `missing` with the reason (the lab lists it in its report); this script never fakes one and
# exits 0 unless its own arguments are wrong.
set -uo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
BUILD="$HERE/build"
INSTALL=1
ONLY=""
GROUPS_ALL="gsoap php perl python node omniorb rmi axis1 mono erlang"
# The JVM peers of issue 10 (setup_cxf ... setup_javaclient below).
GROUPS_ALL+=" cxf axis2 apachesoap jacorb javaclient"
SPYNE_VERSION="2.14.0"
ZEEP_VERSION="4.3.3"

while [ $# -gt 0 ]; do
  case "$1" in
    --no-install) INSTALL=0 ;;
    --only) shift; ONLY="${1:-}" ;;
    --only=*) ONLY="${1#--only=}" ;;
    --out) shift; BUILD="${1:?--out needs a directory}" ;;
    --out=*) BUILD="${1#--out=}" ;;
    -h|--help) sed -n '2,17p' "$0"; exit 0 ;;
    *) echo "setup.sh: unknown argument \`$1\` (see --help)" >&2; exit 2 ;;
  esac
  shift
done
for g in ${ONLY//,/ }; do
  case " $GROUPS_ALL " in *" $g "*) ;; *) echo "setup.sh: unknown group \`$g\`: expected one of $GROUPS_ALL" >&2; exit 2 ;; esac
done

mkdir -p "$BUILD"
BUILD="$(cd "$BUILD" && pwd)"
MANIFEST="$BUILD/manifest.json"
LOG="$BUILD/setup.log"
: > "$LOG"
STARTED_NS=$(date +%s%N)
ENTRIES=()
APT_UPDATED=0

say() { echo "setup: $*" >&2; }
wanted() { [ -z "$ONLY" ] || [[ ",$ONLY," == *",$1,"* ]]; }

# JSON string escaping (backslash, quote, control characters as spaces).
js() { local s="${1//\\/\\\\}"; s="${s//\"/\\\"}"; s="$(printf '%s' "$s" | tr '\n\t\r' '   ')"; printf '"%s"' "$s"; }
# A JSON array of strings from the arguments.
jarr() { local out="" a; for a in "$@"; do out+="${out:+,}$(js "$a")"; done; printf '[%s]' "$out"; }

# entry ID ROLE TRANSPORT NAME STANDS_FOR STATUS REASON VERSION INSTALLED_VIA BUILD CONFIG EXTRA_JSON
entry() {
  local e
  e="{\"id\":$(js "$1"),\"role\":$(js "$2"),\"transport\":$(js "$3"),\"name\":$(js "$4"),"
  e+="\"stands_for\":$(js "$5"),\"status\":$(js "$6"),\"reason\":$(js "$7"),\"version\":$(js "$8"),"
  e+="\"installed_via\":$(js "$9"),\"build\":$(js "${10}"),\"config\":$(js "${11}")${12:+,${12}}}"
  ENTRIES+=("$e")
}
missing() { # ID ROLE TRANSPORT NAME STANDS_FOR REASON
  say "$1: missing: $6"
  entry "$1" "$2" "$3" "$4" "$5" missing "$6" "" "" "" "" ""
}

have_deb() { [ "$(dpkg-query -W -f='${Status}' "$1" 2>/dev/null)" = "install ok installed" ]; }
deb_version() { dpkg-query -W -f='${Version}' "$1" 2>/dev/null; }

# apt_install PKG...: installs the Debian packages that are not installed yet.
apt_install() {
  local need=() p
  for p in "$@"; do have_deb "$p" || need+=("$p"); done
  [ ${#need[@]} -eq 0 ] && return 0
  if [ "$INSTALL" -eq 0 ]; then
    echo "not installed (--no-install): ${need[*]}"
    return 1
  fi
  if ! command -v apt-get >/dev/null; then
    echo "apt-get not found; install ${need[*]} by hand"
    return 1
  fi
  if [ "$APT_UPDATED" -eq 0 ]; then
    say "apt-get update"
    apt-get update >>"$LOG" 2>&1 || { echo "apt-get update failed (see $LOG)"; return 1; }
    APT_UPDATED=1
  fi
  say "apt-get install ${need[*]}"
  DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${need[@]}" >>"$LOG" 2>&1 \
    || { echo "apt-get install ${need[*]} failed (see $LOG)"; return 1; }
}

# newer OUT SRC...: true when OUT exists and is newer than every SRC (nothing to rebuild).
newer() { local out="$1" s; shift; [ -e "$out" ] || return 1; for s in "$@"; do [ "$s" -nt "$out" ] && return 1; done; return 0; }

CXXFLAGS="-O2"
# The warm-up of a peer without a JIT, in its config (the JVM and Mono peers say their own).
NO_JIT_WARMUP="warm-up: each point's own untimed warm-up only (no JIT to warm)"

# ---------------------------------------------------------------------------------------------
setup_gsoap() {
  local name="gSOAP 2.8 (C++)" stands="today's C/C++ SOAP stack (the issue's \"today's stacks\")"
  local why; why=$(apt_install gsoap libgsoap-dev g++ 2>&1) || { missing gsoap server soap-http "$name" "$stands" "$why"; return; }
  local out="$BUILD/gsoap" bin="$BUILD/gsoap/dp-gsoap-server" cbin="$BUILD/gsoap/dp-gsoap-client"
  mkdir -p "$out"
  if ! newer "$cbin" "$HERE/gsoap/server.cpp" "$HERE/gsoap/client.cpp" "$HERE/contract/dp.wsdl" "$HERE/contract/ruby-echo.wsdl" "$HERE/contract/echo.wsdl" || ! newer "$bin" "$HERE/gsoap/server.cpp" "$HERE/gsoap/interop.cpp"; then
    say "gsoap: wsdl2h + soapcpp2 + g++"
    ( cd "$out" && cp "$HERE/contract/dp.wsdl" "$HERE/contract/ruby-echo.wsdl" "$HERE/contract/echo.wsdl" "$HERE/contract/soapenc.xsd" . \
      && wsdl2h -s -o dp.h -t /usr/share/gsoap/WS/typemap.dat dp.wsdl ruby-echo.wsdl echo.wsdl \
      && soapcpp2 -L -x -I/usr/share/gsoap/import dp.h \
      && g++ $CXXFLAGS -I. -o dp-gsoap-server "$HERE/gsoap/server.cpp" "$HERE/gsoap/interop.cpp" soapC.cpp soapServer.cpp -lgsoap++ \
      && g++ $CXXFLAGS -I. -o dp-gsoap-client "$HERE/gsoap/client.cpp" soapC.cpp soapClient.cpp -lgsoap++ ) >>"$LOG" 2>&1 \
      || { missing gsoap server soap-http "$name" "$stands" "the build failed (see $LOG)"; missing gsoap-client client soap-http "$name client" "a C/C++ SOAP client" "the build failed (see $LOG)"; return; }
  fi
  entry gsoap server soap-http "$name" "$stands" ready "" "$(deb_version gsoap)" "Debian packages gsoap, libgsoap-dev" \
    "wsdl2h -s; soapcpp2 -L -x; g++ $CXXFLAGS -lgsoap++" \
    "standalone server, one thread, one connection at a time, HTTP keep-alive; dp (rpc/encoded), Ruby's echoFloat (document/literal, contract/ruby-echo.wsdl) and the Round 2 base echoes (rpc/encoded, contract/echo.wsdl) generated into one header, so every answer declares all three namespaces; $NO_JIT_WARMUP" \
    "\"command\":$(jarr "$bin" "{port}" "{host}"),\"path\":\"/dp\",\"services\":{\"echo\":\"/echo\",\"round2\":\"/round2\"},\"request\":\"rpc-encoded\""
  entry gsoap-client client soap-http "$name client" "a C/C++ SOAP client (Zilora & Ketha's table: C++)" ready "" "$(deb_version gsoap)" \
    "Debian packages gsoap, libgsoap-dev" "wsdl2h -s; soapcpp2 -L -x; g++ $CXXFLAGS -lgsoap++" \
    "one soap context, HTTP keep-alive, memory released after each call; $NO_JIT_WARMUP" \
    "\"command\":$(jarr "$cbin")"
}

setup_php() {
  local name="PHP ext/soap" why
  why=$(apt_install php-cli php-soap 2>&1) || {
    missing php-soapserver server soap-http "$name SoapServer" "the PHP server of Zilora & Ketha's client table" "$why"
    missing php-soapclient client soap-http "$name SoapClient" "Zilora & Ketha's PHP client" "$why"
    return
  }
  local v; v=$(php -r 'echo PHP_VERSION;' 2>/dev/null)
  if ! php -r 'exit(extension_loaded("soap") ? 0 : 1);' 2>/dev/null; then
    why="php $v has no soap extension (php-soap)"
    missing php-soapserver server soap-http "$name SoapServer" "a PHP SOAP server" "$why"
    missing php-soapclient client soap-http "$name SoapClient" "Zilora & Ketha's PHP client" "$why"
    return
  fi
  # Served as PHP is deployed: php-fpm behind nginx (php/serve.sh). Where either cannot be
  # installed, PHP's built-in server stands in, and its entry says so.
  local fpm opcache
  apt_install php-fpm nginx >/dev/null 2>&1 || true
  fpm=$(command -v php-fpm || ls /usr/sbin/php-fpm* 2>/dev/null | head -n 1)
  if [ -n "$fpm" ] && command -v nginx >/dev/null; then
    opcache=$("$fpm" -i 2>/dev/null | sed -n 's/^opcache.enable => \([^ ]*\) .*/\1/p' | head -n 1)
    entry php-soapserver server soap-http "$name SoapServer (php-fpm + nginx)" "a PHP SOAP server (WSDL mode, contract/dp.wsdl)" ready "" "$v" \
      "Debian packages php-cli, php-soap, php-fpm, nginx" "none (interpreted; WSDL cached on disk)" \
      "php-fpm $(basename "$fpm") behind nginx (php/serve.sh): Debian's pool defaults (pm = dynamic, at most 5 workers, 2 started), one FastCGI connection per request over a unix socket, keep-alive to the client; opcache.enable ${opcache:-unknown} (php-fpm's default); $NO_JIT_WARMUP" \
      "\"command\":$(jarr "$HERE/php/serve.sh" "{port}" "{host}"),\"path\":\"/dp\",\"services\":{\"echo\":\"/echo\",\"round2\":\"/round2\"},\"request\":\"rpc-encoded\",\"banner\":true"
  else
    entry php-soapserver server soap-http "$name SoapServer (php -S)" "a PHP SOAP server (WSDL mode, contract/dp.wsdl)" ready "" "$v" \
      "Debian packages php-cli, php-soap" "none (interpreted; WSDL cached on disk)" \
      "PHP's built-in server (php -S), standing in because php-fpm or nginx is not installed: one process, one request at a time, Connection: close after each answer; $NO_JIT_WARMUP (opcache off)" \
      "\"command\":$(jarr php -S "{host}:{port}" "$HERE/php/server.php"),\"path\":\"/dp\",\"services\":{\"echo\":\"/echo\",\"round2\":\"/round2\"},\"request\":\"rpc-encoded\""
  fi
  entry php-soapclient client soap-http "$name SoapClient" "Zilora & Ketha's PHP client" ready "" "$v" \
    "Debian packages php-cli, php-soap" "none (interpreted)" "WSDL mode, WSDL cached in memory, keep-alive; $NO_JIT_WARMUP (opcache off)" \
    "\"command\":$(jarr php "$HERE/php/client.php")"
}

setup_perl() {
  local why
  why=$(apt_install libsoap-lite-perl 2>&1) || {
    missing soaplite-server server soap-http "SOAP::Lite server" "Davis & Parashar's SOAP::Lite row" "$why"
    missing soaplite-client client soap-http "SOAP::Lite client" "a Perl SOAP client" "$why"
    return
  }
  local v; v=$(perl -MSOAP::Lite -e 'print $SOAP::Lite::VERSION' 2>/dev/null) \
    || { missing soaplite-server server soap-http "SOAP::Lite server" "Davis & Parashar's SOAP::Lite row" "SOAP::Lite does not load"; return; }
  entry soaplite-server server soap-http "SOAP::Lite $v server (Perl)" "Davis & Parashar's SOAP::Lite row" ready "" "$v" \
    "Debian package libsoap-lite-perl" "none (interpreted)" \
    "SOAP::Transport::HTTP::Daemon: one process, one connection at a time, keep-alive; $NO_JIT_WARMUP" \
    "\"command\":$(jarr perl "$HERE/perl/server.pl" "{port}" "{host}"),\"path\":\"/dp\",\"services\":{\"echo\":\"/echo\",\"round2\":\"/round2\"},\"request\":\"rpc-encoded\""
  entry soaplite-client client soap-http "SOAP::Lite $v client (Perl)" "a Perl SOAP client (Davis & Parashar's SOAP::Lite)" ready "" "$v" \
    "Debian package libsoap-lite-perl" "none (interpreted)" "LWP keep-alive; calls built by name (no WSDL); $NO_JIT_WARMUP" \
    "\"command\":$(jarr perl "$HERE/perl/client.pl")"
}

setup_python() {
  local venv="$BUILD/venv" why=""
  if [ ! -x "$venv/bin/python" ]; then
    if ! python3 -m venv "$venv" >>"$LOG" 2>&1; then
      rm -rf "$venv"
      why=$(apt_install python3-venv 2>&1) && python3 -m venv "$venv" >>"$LOG" 2>&1 || why="${why:-python3 -m venv failed (see $LOG)}"
    fi
  fi
  if [ -x "$venv/bin/python" ]; then
    if ! "$venv/bin/python" -c "import spyne, zeep" 2>/dev/null; then
      if [ "$INSTALL" -eq 0 ]; then
        why="spyne/zeep not installed in $venv (--no-install)"
      else
        say "pip install spyne==$SPYNE_VERSION zeep==$ZEEP_VERSION"
        "$venv/bin/pip" install -q "spyne==$SPYNE_VERSION" "zeep==$ZEEP_VERSION" >>"$LOG" 2>&1 || why="pip install failed (see $LOG)"
      fi
    fi
  else
    why="${why:-no python3 venv}"
  fi
  local py; py=$("$venv/bin/python" -c 'import sys; print(".".join(map(str, sys.version_info[:3])))' 2>/dev/null)
  if [ -z "$why" ] && "$venv/bin/python" -c "import spyne" 2>/dev/null; then
    local v; v=$("$venv/bin/python" -c "import spyne; print(spyne.__version__)")
    entry spyne server soap-http "spyne $v (Python $py)" "a Python SOAP server" ready "" "$v" "PyPI spyne==$SPYNE_VERSION (venv in the build directory)" \
      "none (interpreted)" "wsgiref's single-threaded server (HTTP/1.0: a connection per call); document/literal only, so it gets the request without xsi:type; $NO_JIT_WARMUP" \
      "\"command\":$(jarr "$venv/bin/python" "$HERE/python/spyne_server.py" "{port}" "{host}"),\"path\":\"/dp\",\"services\":{\"echo\":\"/echo\",\"round2\":\"/round2\"},\"request\":\"literal\""
  else
    missing spyne server soap-http "spyne (Python)" "a Python SOAP server" "${why:-spyne does not import}"
  fi
  if [ -z "$why" ] && "$venv/bin/python" -c "import zeep" 2>/dev/null; then
    local v; v=$("$venv/bin/python" -c "import importlib.metadata as m; print(m.version('zeep'))")
    entry zeep client soap-http "zeep $v (Python $py)" "Zilora & Ketha's client-language table: Python" ready "" "$v" "PyPI zeep==$ZEEP_VERSION (venv in the build directory)" \
      "none (interpreted)" "WSDL mode (contract/dp.wsdl), requests session with keep-alive; $NO_JIT_WARMUP" \
      "\"command\":$(jarr "$venv/bin/python" "$HERE/python/zeep_client.py")"
  else
    missing zeep client soap-http "zeep (Python)" "a Python SOAP client" "${why:-zeep does not import}"
  fi
}

setup_node() {
  local why=""
  why=$(command -v node >/dev/null && command -v npm >/dev/null && echo ok || apt_install nodejs npm 2>&1) || true
  if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
    missing node-soap-server server soap-http "node-soap" "a JavaScript SOAP server" "node/npm not available: $why"
    missing node-soap-client client soap-http "node-soap" "a JavaScript SOAP client" "node/npm not available: $why"
    return
  fi
  why=""
  if ! (cd "$HERE/node" && node -e 'require("soap")') 2>/dev/null; then
    if [ "$INSTALL" -eq 0 ]; then
      why="npm package soap not installed (--no-install)"
    else
      say "npm install (lab/peers/node)"
      (cd "$HERE/node" && npm install --no-audit --no-fund >>"$LOG" 2>&1) || why="npm install failed (see $LOG)"
    fi
  fi
  if [ -n "$why" ]; then
    missing node-soap-server server soap-http "node-soap" "a JavaScript SOAP server" "$why"
    missing node-soap-client client soap-http "node-soap" "a JavaScript SOAP client" "$why"
    return
  fi
  local v nv; v=$(cd "$HERE/node" && node -p 'require("soap/package.json").version'); nv=$(node --version)
  entry node-soap-server server soap-http "node-soap $v (Node $nv)" "a JavaScript SOAP server" ready "" "$v" "npm soap@$v (package-lock.json)" \
    "none (JIT)" "Node http server, one event loop, keep-alive; WSDL mode (contract/dp.wsdl); V8's JIT warmed by each point's own untimed warm-up only" \
    "\"command\":$(jarr node "$HERE/node/server.js" "{port}" "{host}"),\"path\":\"/dp\",\"services\":{\"echo\":\"/echo\",\"round2\":\"/round2\"},\"request\":\"rpc-encoded\""
  entry node-soap-client client soap-http "node-soap $v (Node $nv)" "Zilora & Ketha's client-language table: JavaScript" ready "" "$v" "npm soap@$v (package-lock.json)" \
    "none (JIT)" "WSDL mode, keep-alive agent with one socket; V8's JIT warmed by each point's own untimed warm-up only" \
    "\"command\":$(jarr node "$HERE/node/client.js")"
}

setup_omniorb() {
  local name="omniORB 4 (C++ CORBA)" stands="the seeds' CORBA rows (Davis & Parashar; the thesis's CORBA)" why
  why=$(apt_install omniidl libomniorb4-dev libsqlite3-dev g++ 2>&1) || {
    missing omniorb server corba "$name" "$stands" "$why"
    missing omniorb-client client corba "$name client" "$stands" "$why"
    return
  }
  local out="$BUILD/omniorb" src="$HERE/omniorb"
  mkdir -p "$out"
  if ! newer "$out/dp-omniorb-client" "$src"/*.cc "$src"/*.hh "$HERE/contract/dp.idl" "$HERE/contract/charging.idl" \
    || ! newer "$out/dp-omniorb-server" "$src"/*.cc "$src"/*.hh; then
    say "omniorb: omniidl + g++"
    ( cd "$out" && omniidl -bcxx -Wbh=.hh -Wbs=SK.cc "$HERE/contract/dp.idl" && omniidl -bcxx -Wbh=.hh -Wbs=SK.cc "$HERE/contract/charging.idl" \
      && g++ $CXXFLAGS -I. -I"$src" -o dp-omniorb-server "$src/server.cc" "$src/charging_store.cc" dpSK.cc chargingSK.cc -lomniORB4 -lomnithread -lsqlite3 \
      && g++ $CXXFLAGS -I. -o dp-omniorb-client "$src/client.cc" dpSK.cc chargingSK.cc -lomniORB4 -lomnithread -lpthread ) >>"$LOG" 2>&1 \
      || { missing omniorb server corba "$name" "$stands" "the build failed (see $LOG)"; missing omniorb-client client corba "$name client" "$stands" "the build failed (see $LOG)"; return; }
  fi
  local v; v=$(deb_version libomniorb4-dev)
  entry omniorb server corba "$name" "$stands" ready "" "$v" "Debian packages omniidl, libomniorb4-dev, libsqlite3-dev" \
    "omniidl -bcxx; g++ $CXXFLAGS -lomniORB4 -lomnithread -lsqlite3" "thread per connection (omniORB default), endPoint giop:tcp:HOST:PORT, omniINSPOA keys dp and charging; charging on SQLite $(deb_version libsqlite3-dev) (WAL, synchronous=FULL, one commit per write, one connection behind a mutex); $NO_JIT_WARMUP" \
    "\"command\":$(jarr "$out/dp-omniorb-server" "{port}" "{host}" "{db}"),\"url\":\"corbaloc::{host}:{port}/dp\",\"charging\":\"corbaloc::{host}:{port}/charging\""
  entry omniorb-client client corba "$name client" "$stands" ready "" "$v" "Debian packages omniidl, libomniorb4-dev" \
    "omniidl -bcxx; g++ $CXXFLAGS" "one object reference from corbaloc, one GIOP connection; load mode: 5 threads on 5 connections (maxGIOPConnectionPerServer 5); $NO_JIT_WARMUP" \
    "\"command\":$(jarr "$out/dp-omniorb-client"),\"client_of\":\"omniorb\""
}

setup_rmi() {
  local stands="Davis & Parashar's JavaRMI row; the thesis's binary RPC (Table 1) in Java RMI" why="" out="$BUILD/rmi"
  # The charging store needs sqlite-jdbc (Maven Central), so RMI is built like the JVM peers.
  why=$(jvm_tools && jvm_fetch rmi && jvm_javac rmi DpRmiClient "" "$HERE"/rmi/*.java "$HERE"/chargingstore/*.java) || {
    missing java-rmi server rmi "Java RMI" "$stands" "$why"
    missing java-rmi-client client rmi "Java RMI client" "$stands" "$why"
    return
  }
  local v sv cp="$out/classes:$out/lib/*"
  v=$(java_version)
  sv=$(basename "$out"/lib/sqlite-jdbc-*.jar .jar); sv=${sv#sqlite-jdbc-}
  local via="the JDK (Debian openjdk-17-jdk-headless); Maven Central org.xerial:sqlite-jdbc:$sv (lab/peers/rmi/pom.xml)"
  entry java-rmi server rmi "Java RMI (JDK $v)" "$stands" ready "" "$v" "$via" "javac (default flags)" \
    "JVM flags $JVM_FLAGS; registry and objects (dp, charging) on one port of HOST; the JDK's RMI transport defaults (a thread per connection); charging on SQLite through sqlite-jdbc $sv (WAL, synchronous=FULL, one commit per write, one connection under a lock); JIT warmed by each point's warm-up, and by ${JACORB_WARMUP_S} s of untimed charging calls before the thesis's first point" \
    "\"command\":$(jarr java $JVM_FLAGS "-Djava.rmi.server.hostname={host}" "-Dcharging.db={db}" -cp "$cp" DpRmiServer "{port}" "{host}"),\"url\":\"rmi://{host}:{port}/dp\",\"charging\":\"rmi://{host}:{port}/charging\",\"warmup_s\":$JACORB_WARMUP_S"
  entry java-rmi-client client rmi "Java RMI client (JDK $v)" "$stands" ready "" "$v" "$via" "javac (default flags)" \
    "JVM flags $JVM_FLAGS; one stub from the registry, calls one at a time on one reused connection; load mode: 5 threads (RMI opens a connection per concurrent call: 5 connections); JIT warmed by each point's warm-up" \
    "\"command\":$(jarr java $JVM_FLAGS -cp "$cp" DpRmiClient),\"client_of\":\"java-rmi\""
}

setup_axis1() {
  local name="Apache Axis 1.4 on Tomcat 9" stands="the thesis's and Davis & Parashar's Apache Axis rows" why=""
  if ! command -v javac >/dev/null || ! command -v mvn >/dev/null; then
    why=$(apt_install openjdk-17-jdk-headless maven 2>&1) || { missing axis1 server soap-http "$name" "$stands" "$why"; return; }
  fi
  local out="$BUILD/axis1"
  mkdir -p "$out/lib" "$out/classes"
  if ! ls "$out/lib"/axis-1.4.jar "$out"/lib/sqlite-jdbc-*.jar "$out"/lib/tomcat-embed-core-*.jar >/dev/null 2>&1 \
    || ! newer "$out/lib/.fetched" "$HERE/axis1/pom.xml"; then
    if [ "$INSTALL" -eq 0 ]; then
      missing axis1 server soap-http "$name" "$stands" "Axis 1.4 and Tomcat jars not fetched (--no-install)"; return
    fi
    say "axis1: mvn dependency:copy-dependencies (Maven Central)"
    mvn -q -B -f "$HERE/axis1/pom.xml" dependency:copy-dependencies -DoutputDirectory="$out/lib" >>"$LOG" 2>&1 \
      || { missing axis1 server soap-http "$name" "$stands" "mvn could not fetch axis:axis:1.4, tomcat-embed-core and sqlite-jdbc (see $LOG)"; return; }
    touch "$out/lib/.fetched"
  fi
  if ! newer "$out/classes/DpAxisTomcatServer.class" "$HERE"/axis1/*.java "$HERE"/chargingstore/*.java; then
    say "axis1: javac --release 8"
    # Axis 1.4 reads parameter names from the service's bytecode and cannot parse class files
    # newer than Java 8.
    javac --release 8 -nowarn -d "$out/classes" -cp "$out/lib/*" "$HERE"/axis1/*.java "$HERE"/chargingstore/*.java >>"$LOG" 2>&1 \
      || { missing axis1 server soap-http "$name" "$stands" "javac failed (see $LOG)"; return; }
  fi
  local jv sv tv
  jv=$(java -version 2>&1 | head -1 | sed 's/.*version "\([^"]*\)".*/\1/')
  sv=$(basename "$out"/lib/sqlite-jdbc-*.jar .jar); sv=${sv#sqlite-jdbc-}
  tv=$(basename "$out"/lib/tomcat-embed-core-*.jar .jar); tv=${tv#tomcat-embed-core-}
  entry axis1 server soap-http "Apache Axis 1.4 (AxisServlet on Tomcat $tv, JDK $jv)" "$stands" ready "" "1.4" \
    "Maven Central axis:axis:1.4, org.apache.tomcat.embed:tomcat-embed-core:$tv, org.xerial:sqlite-jdbc:$sv (lab/peers/axis1/pom.xml)" "javac --release 8" \
    "AxisServlet at /axis/services/* on embedded Tomcat $tv (Tomcat's defaults: NIO connector, maxThreads 200, minSpareThreads 10, maxKeepAliveRequests 100, keepAliveTimeout 60 s, acceptCount 100; binds HOST), server-config.wsdd deployed as WEB-INF/server-config.wsdd; rpc/encoded, multi-ref arrays and return values (Axis defaults); charging at /axis/services/charging on SQLite through sqlite-jdbc $sv (WAL, synchronous=FULL, one commit per write); JVM flags $JVM_FLAGS; JIT warm-up: ${JVM_WARMUP_S} s of untimed calls before the first point" \
    "\"command\":$(jarr java $JVM_FLAGS "-Dcharging.db={db}" -cp "$out/classes:$out/lib/*" DpAxisTomcatServer "{port}" "{host}" "$HERE/axis1/server-config.wsdd"),\"path\":\"/axis/services/dp\",\"charging\":\"/axis/services/charging\",\"services\":{\"round2\":\"/axis/services/interop\"},\"request\":\"rpc-encoded\",\"warmup_s\":$JVM_WARMUP_S,\"banner\":true"
}

# ---------------------------------------------------------------------------------------------
# mono: an ASP.NET web service (ASMX) on Mono, and a C# client whose proxy Mono's `wsdl` tool
# generates from contract/dp.wsdl. Served by fastcgi-mono-server4 behind nginx (mono/serve.sh
# says why not xsp4).
setup_mono() {
  local name="Mono ASP.NET web service (ASMX, fastcgi-mono-server4 + nginx)"
  local stands="Davis & Parashar's MS SOAP Toolkit / IIS and Zilora & Ketha's .NET server"
  local cname="C# client (Mono, proxy from Mono's wsdl tool)" cstands="Zilora & Ketha's C# client"
  local why
  why=$(apt_install mono-complete mono-fastcgi-server4 nginx 2>&1) || {
    missing mono-asmx server soap-http "$name" "$stands" "$why"
    missing mono-client client soap-http "$cname" "$cstands" "$why"
    return
  }
  local out="$BUILD/mono" flags="-optimize+"
  mkdir -p "$out/app/bin" "$out/client"
  if ! newer "$out/app/bin/DpService.dll" "$HERE/mono/DpService.cs" "$HERE/mono/ContactsService.cs" "$HERE/mono/EchoService.cs" "$HERE/mono/InteropService.cs" \
      || ! newer "$out/client/dp-client.exe" "$HERE/mono/Client.cs" "$HERE/contract/dp.wsdl"; then
    say "mono: mcs (service), wsdl + mcs (client)"
    ( cp "$HERE/mono/dp.asmx" "$HERE/mono/contacts.asmx" "$HERE/mono/echo.asmx" "$HERE/mono/round2.asmx" "$HERE/mono/web.config" "$out/app/" \
      && mcs -nologo $flags -target:library -r:System.Web.Services -r:System.Xml \
           -out:"$out/app/bin/DpService.dll" "$HERE/mono/DpService.cs" "$HERE/mono/ContactsService.cs" "$HERE/mono/EchoService.cs" "$HERE/mono/InteropService.cs" \
      && cd "$out/client" && cp "$HERE/contract/dp.wsdl" "$HERE/contract/soapenc.xsd" . \
      && wsdl -nologo -protocol:SOAP -out:TestService.cs dp.wsdl \
      && mcs -nologo $flags -r:System.Web.Services -r:System.Xml -out:dp-client.exe \
           TestService.cs "$HERE/mono/Client.cs" ) >>"$LOG" 2>&1 || {
      missing mono-asmx server soap-http "$name" "$stands" "the build failed (see $LOG)"
      missing mono-client client soap-http "$cname" "$cstands" "the build failed (see $LOG)"
      return
    }
  fi
  local v; v=$(mono --version 2>/dev/null | head -1 | sed 's/.*version \([^ ]*\).*/\1/')
  entry mono-asmx server soap-http "Mono $v ASP.NET web service (ASMX)" "$stands" ready "" "$v" \
    "Debian packages mono-complete, mono-fastcgi-server4 $(deb_version mono-fastcgi-server4), nginx $(deb_version nginx)" \
    "mcs $flags (service class precompiled into bin/)" \
    "System.Web's ASMX handler; dp: [SoapRpcService] rpc/encoded (multi-ref arrays); contacts and echoFloat: document/literal (the .NET default), routed on the body element; Round 2 base echoes: [SoapRpcService] rpc/encoded; fastcgi-mono-server4 (one process, its thread pool) behind one nginx process (keep-alive to the client, a FastCGI connection per request over a unix socket); not xsp4, which does not start on Debian 12's Mono 6.8; Mono's runtime defaults (JIT, no AOT or LLVM, no MONO_ environment); JIT warm-up: 3 s of untimed calls before the first point" \
    "\"command\":$(jarr "$HERE/mono/serve.sh" "{port}" "$out/app" "{host}"),\"path\":\"/dp\",\"services\":{\"contacts\":\"/contacts\",\"echo\":\"/echo\",\"round2\":\"/round2\"},\"request\":\"rpc-encoded\",\"warmup_s\":3"
  entry mono-client client soap-http "C# client (Mono $v, wsdl proxy)" "$cstands" ready "" "$v" \
    "Debian package mono-complete" "wsdl -protocol:SOAP from contract/dp.wsdl; mcs $flags" \
    "Mono's runtime defaults (JIT, no AOT or LLVM); SoapHttpClientProtocol proxy, HTTP keep-alive; Expect: 100-continue and Nagle off (ServicePointManager); one untimed call before the warm-up (Mono builds the proxy's XML serializers on first use, about a second); JIT warmed by each point's warm-up" \
    "\"command\":$(jarr mono "$out/client/dp-client.exe")"
}

# ---------------------------------------------------------------------------------------------
# erlang: an OTP inets httpd + xmerl service, standing in for García et al.'s yaws SOAP server
# (yaws's SOAP support needs erlsom, which Debian does not package).
setup_erlang() {
  local name="Erlang/OTP inets httpd + xmerl (stand-in for yaws SOAP)"
  local stands="García et al.'s Erlang SOAP server (a stand-in: yaws's SOAP support needs erlsom, not in Debian)"
  local why
  why=$(apt_install erlang-base erlang-inets erlang-xmerl 2>&1) || { missing erlang server soap-http "$name" "$stands" "$why"; return; }
  local out="$BUILD/erlang"
  mkdir -p "$out"
  if ! newer "$out/dp_server.beam" "$HERE/erlang/dp_server.erl" || ! newer "$out/wsb.beam" "$HERE/erlang/wsb.erl" \
      || ! newer "$out/round2.beam" "$HERE/erlang/round2.erl"; then
    say "erlang: erlc"
    erlc -o "$out" "$HERE/erlang/dp_server.erl" "$HERE/erlang/wsb.erl" "$HERE/erlang/round2.erl" >>"$LOG" 2>&1 \
      || { missing erlang server soap-http "$name" "$stands" "erlc failed (see $LOG)"; return; }
  fi
  local otp erts
  otp=$(erl -noshell -eval 'io:format("~s", [erlang:system_info(otp_release)]), halt().' 2>/dev/null)
  erts=$(erl -noshell -eval 'io:format("~s", [erlang:system_info(version)]), halt().' 2>/dev/null)
  local flavor; flavor=$(erl -noshell -eval 'io:format("~p", [erlang:system_info(emu_flavor)]), halt().' 2>/dev/null)
  entry erlang server soap-http "Erlang/OTP $otp inets httpd + xmerl (stand-in)" "$stands" ready "" "OTP $otp (erts $erts)" \
    "Debian packages erlang-base, erlang-inets, erlang-xmerl $(deb_version erlang-base)" "erlc (default flags)" \
    "dp (rpc/encoded), card/news/shop and echoFloat (document/literal, wsb.erl), the Round 2 base echoes (rpc/encoded, round2.erl: decoded by type and encoded back); inets httpd (a process per connection, keep-alive, TCP_NODELAY: without it each answer's body waits ~40 ms for the client's delayed ACK), xmerl_scan DOM parse, answers built as iolists; BEAM schedulers = online CPUs (the lab pins the VM to the server CPU); request bodies above 1 MiB refused; BEAM emulator flavor $flavor (the JIT compiles each module as it is loaded: nothing to warm); warm-up: each point's own untimed warm-up; ready once it prints its banner (inets opens its port before its request handlers are set up: a call in between is answered 500); {cache} on: García's response cache for news and shop (an ETS table keyed on the request body, consulted before parsing; 200 answers only, at most 1,024 entries and 32 MiB, then emptied; answers say X-Cache: hit or miss), off for every other point" \
    "\"command\":$(jarr erl -noshell -pa "$out" -run dp_server main "{port}" "{host}" "{cache}"),\"path\":\"/dp\",\"services\":{\"wsb\":\"/wsb/{service}\",\"echo\":\"/echo\",\"round2\":\"/round2\"},\"request\":\"rpc-encoded\",\"banner\":true"
}

# ---------------------------------------------------------------------------------------------
# The JVM peers of issue 10: CXF 4, Axis2 2.0, Apache SOAP 2.3.1 on Tomcat 9, JacORB 3.9 and a
# Java (Axis 1.4) client. Each fetches its jars from Maven Central with its own pom.xml into
# build/GROUP/lib (nothing is built by Maven) and is compiled with javac into build/GROUP/classes.
JVM_FLAGS="-XX:+UseSerialGC -Xms64m -Xmx256m"
# The seconds of untimed calls the lab makes to a JVM server before its first point, split over
# its operations. CXF 4 pinned to one busy CPU still answered doNothing at 430 calls/s after 6 s
# of calls, 4,300/s after 12 s and 7,000/s after 18 s (C2 compiling beside the server), so 5 s
# left the first points measuring the JIT.
JVM_WARMUP_S=20

# jvm_tools: the JDK and Maven, installed if missing; prints why not on failure.
jvm_tools() {
  if ! command -v javac >/dev/null || ! command -v mvn >/dev/null; then
    apt_install openjdk-17-jdk-headless maven 2>&1 || return 1
  fi
}
java_version() { java -version 2>&1 | head -1 | sed 's/.*version "\([^"]*\)".*/\1/'; }

# jvm_fetch GROUP: the jars of lab/peers/GROUP/pom.xml into build/GROUP/lib (again only when the
# pom changed); prints why not on failure.
jvm_fetch() {
  local lib="$BUILD/$1/lib" pom="$HERE/$1/pom.xml"
  mkdir -p "$lib"
  newer "$lib/.fetched" "$pom" && return 0
  if [ "$INSTALL" -eq 0 ]; then
    echo "the jars of $1/pom.xml are not fetched (--no-install)"
    return 1
  fi
  say "$1: mvn dependency:copy-dependencies (Maven Central)"
  rm -f "$lib"/*.jar
  mvn -q -B -f "$pom" dependency:copy-dependencies -DoutputDirectory="$lib" >>"$LOG" 2>&1 \
    || { echo "mvn could not fetch the jars of lab/peers/$1/pom.xml (see $LOG)"; return 1; }
  touch "$lib/.fetched"
}

# jvm_javac GROUP MAIN_CLASS JAVAC_FLAGS SRC...: compiles SRC into build/GROUP/classes unless
# MAIN_CLASS's class file is newer than every source; prints why not on failure.
jvm_javac() {
  local group="$1" main="$2" flags="$3" out="$BUILD/$1/classes"; shift 3
  mkdir -p "$out"
  newer "$out/$main.class" "$@" && return 0
  say "$group: javac $flags"
  # shellcheck disable=SC2086
  javac $flags -nowarn -d "$out" -cp "$BUILD/$group/lib/*" "$@" >>"$LOG" 2>&1 || { echo "javac failed (see $LOG)"; return 1; }
}

setup_cxf() {
  local name="Apache CXF 4 (JAX-WS on Jetty)" stands="Zilora & Ketha's Sun App Server / Tomcat + Java; CXF as today's Java SOAP stack" why
  why=$(jvm_tools && jvm_fetch cxf && jvm_javac cxf DpCxfServer "" "$HERE"/cxf/*.java) || { missing cxf server soap-http "$name" "$stands" "$why"; return; }
  local out="$BUILD/cxf" v; v=$(basename "$out"/lib/cxf-core-*.jar .jar); v=${v#cxf-core-}
  entry cxf server soap-http "Apache CXF $v (JAX-WS on Jetty, JDK $(java_version))" "$stands" ready "" "$v" \
    "Maven Central org.apache.cxf:cxf-rt-frontend-jaxws + cxf-rt-transports-http-jetty (lab/peers/cxf/pom.xml)" "javac (default flags)" \
    "dp: rpc/literal (CXF refuses rpc/encoded: the contract's operations without xsi:type); contacts and echoFloat: document/literal wrapped, JAXB; the Round 2 base echoes: rpc/literal (the same element names, no xsi:type, arrays as repeated item); Endpoint.publish on CXF's Jetty 12 transport, Jetty's default thread pool, keep-alive; JVM flags $JVM_FLAGS; JIT warm-up: ${JVM_WARMUP_S} s of untimed calls before the first point" \
    "\"command\":$(jarr java $JVM_FLAGS -cp "$out/classes:$out/lib/*" DpCxfServer "{port}" "{host}"),\"path\":\"/dp\",\"services\":{\"contacts\":\"/contacts\",\"echo\":\"/echo\",\"round2\":\"/round2\"},\"request\":\"literal\",\"warmup_s\":$JVM_WARMUP_S,\"banner\":true"
}

setup_axis2() {
  local name="Apache Axis2 2.0" stands="García et al.'s Axis2" why
  why=$(jvm_tools && jvm_fetch axis2 && jvm_javac axis2 DpAxis2Server "-g -parameters" "$HERE"/axis2/*.java) || { missing axis2 server soap-http "$name" "$stands" "$why"; return; }
  local out="$BUILD/axis2" v; v=$(basename "$out"/lib/axis2-kernel-*.jar .jar); v=${v#axis2-kernel-}
  entry axis2 server soap-http "Apache Axis2 $v (SimpleHTTPServer, JDK $(java_version))" "$stands" ready "" "$v" \
    "Maven Central org.apache.axis2:axis2-kernel, axis2-adb, axis2-transport-http (lab/peers/axis2/pom.xml)" "javac -g -parameters" \
    "dp: POJO service with RPCMessageReceiver, document/literal wrapped (Axis2 has no rpc/encoded; integers as repeated <return>); card/news/shop/echo: AXIOM services (RawXMLINOutMessageReceiver); the Round 2 base echoes: a POJO service too (document/literal wrapped, arrays as beans with repeated item, hexBinary decoded by hand: the POJO binding has none); Axis2's own SimpleHTTPServer from the default axis2.xml (its worker pool, keep-alive; it binds every interface); JVM flags $JVM_FLAGS; JIT warm-up: ${JVM_WARMUP_S} s of untimed calls before the first point" \
    "\"command\":$(jarr java $JVM_FLAGS -cp "$out/classes:$out/lib/*" DpAxis2Server "{port}" "{host}"),\"path\":\"/axis2/services/dp\",\"services\":{\"wsb\":\"/axis2/services/{service}\",\"echo\":\"/axis2/services/echo\",\"round2\":\"/axis2/services/interop\"},\"request\":\"literal\",\"warmup_s\":$JVM_WARMUP_S,\"banner\":true"
}

setup_apachesoap() {
  local name="Apache SOAP 2.3.1 on Tomcat 9" stands="Davis & Parashar's Apache SOAP 2.2 row" why
  why=$(jvm_tools && jvm_fetch apachesoap && jvm_javac apachesoap DpApacheSoapServer "" "$HERE"/apachesoap/*.java) || { missing apache-soap server soap-http "$name" "$stands" "$why"; return; }
  local out="$BUILD/apachesoap" tv; tv=$(basename "$out"/lib/tomcat-embed-core-*.jar .jar); tv=${tv#tomcat-embed-core-}
  entry apache-soap server soap-http "Apache SOAP 2.3.1 (RPCRouterServlet on Tomcat $tv, JDK $(java_version))" "$stands" ready "" "2.3.1" \
    "Maven Central soap:soap:2.3.1, org.apache.tomcat.embed:tomcat-embed-core:$tv (lab/peers/apachesoap/pom.xml)" "javac (default flags)" \
    "rpc/encoded; RPCRouterServlet on embedded Tomcat $tv (NIO connector, 200 worker threads, keep-alive: Tomcat's defaults), services from DeployedServices.xml (XMLConfigManager): dp, and the Round 2 base echoes as service http://soapinterop.org/ (BeanSerializer and ArraySerializer mapped to the Round 2 struct and array types); JVM flags $JVM_FLAGS; JIT warm-up: ${JVM_WARMUP_S} s of untimed calls before the first point" \
    "\"command\":$(jarr java $JVM_FLAGS -cp "$out/classes:$out/lib/*" DpApacheSoapServer "{port}" "$HERE/apachesoap" "{host}"),\"path\":\"/soap/servlet/rpcrouter\",\"services\":{\"round2\":\"/soap/servlet/rpcrouter\"},\"request\":\"rpc-encoded\",\"warmup_s\":$JVM_WARMUP_S,\"banner\":true"
}

# Seconds of untimed charging calls before the thesis's first JacORB point (its JIT, and
# sqlite-jdbc's native library loading; the dp points warm by each point's own warm-up).
JACORB_WARMUP_S=10

setup_jacorb() {
  local name="JacORB 3.9 (Java CORBA)" stands="the thesis's Java ORB; Davis & Parashar's CORBA row" why out="$BUILD/jacorb"
  why=$(jvm_tools && jvm_fetch jacorb) || {
    missing jacorb server corba "$name" "$stands" "$why"; missing jacorb-client client corba "$name client" "$stands" "$why"; return
  }
  # The IDL compiler of JacORB itself turns contract/dp.idl and contract/charging.idl into the
  # dp.* and thesis.* stubs and skeletons.
  if ! newer "$out/gen/thesis/ChargingPOA.java" "$HERE/contract/dp.idl" "$HERE/contract/charging.idl"; then
    say "jacorb: org.jacorb.idl.parser contract/dp.idl contract/charging.idl"
    rm -rf "$out/gen"; mkdir -p "$out/gen"
    java -cp "$out/lib/*" org.jacorb.idl.parser -d "$out/gen" "$HERE/contract/dp.idl" "$HERE/contract/charging.idl" >>"$LOG" 2>&1 || {
      why="JacORB's IDL compiler failed on contract/dp.idl or contract/charging.idl (see $LOG)"
      missing jacorb server corba "$name" "$stands" "$why"; missing jacorb-client client corba "$name client" "$stands" "$why"; return
    }
    rm -f "$out/classes/DpJacorbClient.class"
  fi
  why=$(jvm_javac jacorb DpJacorbClient "" "$HERE"/jacorb/*.java "$HERE"/chargingstore/*.java "$out"/gen/dp/*.java "$out"/gen/thesis/*.java) || {
    missing jacorb server corba "$name" "$stands" "$why"; missing jacorb-client client corba "$name client" "$stands" "$why"; return
  }
  local cp="$out/classes:$out/lib/*" jv sv; jv=$(java_version)
  sv=$(basename "$out"/lib/sqlite-jdbc-*.jar .jar); sv=${sv#sqlite-jdbc-}
  local via="Maven Central org.jacorb:jacorb:3.9, jacorb-idl-compiler:3.9, org.xerial:sqlite-jdbc:$sv, and the RMI-IIOP API jar JDK 11+ no longer has (lab/peers/jacorb/pom.xml)"
  entry jacorb server corba "JacORB 3.9 (JDK $jv)" "$stands" ready "" "3.9" "$via" "JacORB's IDL compiler; javac (default flags)" \
    "RootPOA servants published under the object keys dp and charging (corbaloc forwards once), OAIAddr HOST; JacORB's default server threading; charging on SQLite through sqlite-jdbc $sv (WAL, synchronous=FULL, one commit per write, one connection under a lock); JVM flags $JVM_FLAGS; JIT warmed by each point's warm-up, and by ${JACORB_WARMUP_S} s of untimed charging calls before the thesis's first point" \
    "\"command\":$(jarr java $JVM_FLAGS "-Dcharging.db={db}" -cp "$cp" DpJacorbServer "{port}" "{host}"),\"url\":\"corbaloc::{host}:{port}/dp\",\"charging\":\"corbaloc::{host}:{port}/charging\",\"warmup_s\":$JACORB_WARMUP_S"
  entry jacorb-client client corba "JacORB 3.9 client (JDK $jv)" "$stands" ready "" "3.9" "$via" "JacORB's IDL compiler; javac (default flags)" \
    "one object reference from corbaloc, one GIOP connection; load mode: 5 threads, each with its own ORB and connection; JVM flags $JVM_FLAGS; JIT warmed by each point's warm-up" \
    "\"command\":$(jarr java $JVM_FLAGS -cp "$cp" DpJacorbClient),\"client_of\":\"jacorb\""
}

setup_javaclient() {
  local name="Java client (Apache Axis 1.4 JAX-RPC)" stands="Zilora & Ketha's client-language table: Java" why
  # Axis 1.4 reads class files up to Java 8 only.
  why=$(jvm_tools && jvm_fetch javaclient && jvm_javac javaclient DpJavaClient "--release 8" "$HERE"/javaclient/*.java) || { missing java-client client soap-http "$name" "$stands" "$why"; return; }
  local out="$BUILD/javaclient" jv; jv=$(java_version)
  entry java-client client soap-http "Java client: Apache Axis 1.4 Call (JDK $jv)" "$stands" ready "" "1.4" \
    "Maven Central axis:axis:1.4, commons-httpclient:3.1 (lab/peers/javaclient/pom.xml)" "javac --release 8" \
    "JAX-RPC dynamic Call, rpc/encoded, Commons HttpClient sender (keep-alive); JVM flags $JVM_FLAGS; JIT warmed by each point's warm-up (the client prints its warm-up calls and first call's time)" \
    "\"command\":$(jarr java $JVM_FLAGS -cp "$out/classes:$out/lib/*" DpJavaClient "$HERE/javaclient/client-config.wsdd")"
}

# Each group's wall time, in the manifest (`group_seconds`): what a fresh machine pays per peer.
GROUP_SECONDS=()
for g in $GROUPS_ALL; do
  if wanted "$g"; then
    g_ns=$(date +%s%N)
    "setup_$g"
    g_ms=$(( ($(date +%s%N) - g_ns) / 1000000 ))
    GROUP_SECONDS+=("$(js "$g"):$(printf '%d.%03d' $((g_ms / 1000)) $((g_ms % 1000)))")
    say "$g: $(printf '%d.%03d' $((g_ms / 1000)) $((g_ms % 1000))) s"
  else
    say "$g: skipped (--only)"
  fi
done
# Peers of groups left out with --only keep their entries from the manifest an earlier run
# wrote (rebuilding one group must not make the others disappear); without one they are absent,
# and the lab lists every peer it knows and does not find there as missing, with that reason.
KEPT=()
if [ -n "$ONLY" ] && [ -f "$MANIFEST" ] && command -v python3 >/dev/null; then
  NEW_IDS=$(printf '%s\n' "${ENTRIES[@]}" | sed -n 's/^{"id":"\([^"]*\)".*/\1/p' | tr '\n' ' ')
  while IFS= read -r line; do [ -n "$line" ] && KEPT+=("$line"); done < <(
    python3 - "$MANIFEST" "$NEW_IDS" <<'PY'
import json, sys
new = set(sys.argv[2].split())
for e in json.load(open(sys.argv[1])).get("peers", []):
    if e.get("id") not in new:
        print(json.dumps(e, separators=(",", ":"), ensure_ascii=False))
PY
  )
  [ "${#KEPT[@]}" -eq 0 ] || say "kept ${#KEPT[@]} entries of other groups from the earlier manifest"
  ENTRIES+=("${KEPT[@]}")
fi

ELAPSED_MS=$(( ($(date +%s%N) - STARTED_NS) / 1000000 ))
ELAPSED=$(printf '%d.%03d' $((ELAPSED_MS / 1000)) $((ELAPSED_MS % 1000)))
{
  printf '{\n  "schema": 1,\n  "created": %s,\n  "setup_seconds": %s,\n  "group_seconds": {%s},\n  "installed": %s,\n  "peers": [\n' \
    "$(js "$(date -u +%Y-%m-%dT%H:%M:%SZ)")" "$ELAPSED" "$(IFS=,; echo "${GROUP_SECONDS[*]}")" \
    "$([ "$INSTALL" -eq 1 ] && echo true || echo false)"
  for i in "${!ENTRIES[@]}"; do
    printf '    %s%s\n' "${ENTRIES[$i]}" "$([ "$i" -lt $((${#ENTRIES[@]} - 1)) ] && echo ,)"
  done
  printf '  ]\n}\n'
} > "$MANIFEST.tmp" && mv "$MANIFEST.tmp" "$MANIFEST"
say "wrote $MANIFEST in ${ELAPSED} s ($(grep -c '"status":"ready"' "$MANIFEST") ready, $(grep -c '"status":"missing"' "$MANIFEST") missing)"
