#!/usr/bin/env bash
# Serves the Mono ASMX peer on 127.0.0.1:PORT: Mono's ASP.NET (System.Web, the ASMX handler)
# in fastcgi-mono-server4, behind nginx, the deployment Mono documents for ASP.NET.
#
#   serve.sh PORT APPDIR [HOST]
#
# HOST is the address to listen on (default 127.0.0.1; the lab's emulated LAN passes its own).
# APPDIR holds dp.asmx, contacts.asmx, echo.asmx, round2.asmx, web.config and
# bin/DpService.dll (setup.sh builds it); /dp, /contacts, /echo and /round2 are rewritten to
# their .asmx. Why not xsp4:
# Debian 12's xsp4 4.2 does not start on its Mono 6.8 (TypeLoadException: it was built against
# Mono.Security's old TLS classes, which Mono 6 removed); fastcgi-mono-server4 from the same
# source package runs. Both processes die with this one: the FastCGI server is a child of
# nginx's process (this script execs nginx with master_process off) and gets SIGKILL when its
# parent dies (setpriv --pdeathsig), so the lab's kill of the command it started ends both.
set -euo pipefail
PORT="${1:?usage: serve.sh PORT APPDIR}"
APP="$(cd "${2:?usage: serve.sh PORT APPDIR [HOST]}" && pwd)"
HOST="${3:-127.0.0.1}"
# Runtime files (socket, nginx.conf) in a directory per port, replaced at each start.
RUN="${TMPDIR:-/tmp}/soapstone-dp-mono/$PORT"
rm -rf "$RUN"
SOCK="$RUN/fastcgi.sock"
mkdir -p "$RUN/nginx"
cat > "$RUN/nginx.conf" <<CONF
# One nginx process in front of one FastCGI ASP.NET server; keep-alive to the client, one
# FastCGI connection per request (nginx's default).
daemon off;
master_process off;
worker_processes 1;
error_log stderr warn;
pid $RUN/nginx.pid;
events { worker_connections 256; }
http {
  access_log off;
  client_body_temp_path $RUN/nginx;
  fastcgi_temp_path $RUN/nginx;
  proxy_temp_path $RUN/nginx;
  uwsgi_temp_path $RUN/nginx;
  scgi_temp_path $RUN/nginx;
  client_max_body_size 1m;
  keepalive_requests 1000000;
  server {
    listen $HOST:$PORT;
    location = /dp { rewrite ^ /dp.asmx last; }
    location = /contacts { rewrite ^ /contacts.asmx last; }
    location = /echo { rewrite ^ /echo.asmx last; }
    location = /round2 { rewrite ^ /round2.asmx last; }
    location / {
      fastcgi_pass unix:$SOCK;
      include /etc/nginx/fastcgi_params;
      fastcgi_param SCRIPT_FILENAME $APP\$fastcgi_script_name;
      fastcgi_param PATH_INFO "";
    }
  }
}
CONF
# The FastCGI server first; nginx (this process, after exec) is its parent.
setpriv --pdeathsig KILL fastcgi-mono-server4 --applications="/:$APP" --socket="unix" \
  --filename="$SOCK" --loglevels=Error --printlog &
for _ in $(seq 1 300); do [ -S "$SOCK" ] && break; sleep 0.1; done
[ -S "$SOCK" ] || { echo "fastcgi-mono-server4 did not open $SOCK within 30 s" >&2; exit 1; }
echo "listening on http://$HOST:$PORT/dp (nginx -> fastcgi-mono-server4 $SOCK)"
exec nginx -c "$RUN/nginx.conf"
