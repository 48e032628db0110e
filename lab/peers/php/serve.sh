#!/usr/bin/env bash
# Serves the PHP SoapServer peer (server.php) the way PHP is deployed: php-fpm behind nginx.
#
#   serve.sh PORT [HOST]
#
# HOST is the address to listen on (default 127.0.0.1; the lab's emulated LAN passes its own).
# Every path goes to server.php, which routes /dp, /echo and /round2 itself. php-fpm runs
# Debian's pool defaults (pm = dynamic, 5 children at most, 2 started); nginx keeps the client's
# connection alive and opens one FastCGI connection per request (its default), over a unix
# socket. Both processes die with this one: php-fpm's master is a child of nginx's process
# (this script execs nginx with master_process off) and gets SIGTERM when its parent dies
# (setpriv --pdeathsig), on which it stops its workers, so the lab's kill of the command it
# started ends all of them.
set -euo pipefail
PORT="${1:?usage: serve.sh PORT [HOST]}"
HOST="${2:-127.0.0.1}"
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
FPM="$(command -v php-fpm || ls /usr/sbin/php-fpm* 2>/dev/null | head -n 1 || true)"
[ -n "$FPM" ] || { echo "serve.sh: php-fpm is not installed (Debian package php-fpm)" >&2; exit 1; }
# Runtime files (socket, configurations) in a directory per port, replaced at each start.
RUN="${TMPDIR:-/tmp}/soapstone-php-fpm/$PORT"
rm -rf "$RUN"
SOCK="$RUN/fpm.sock"
mkdir -p "$RUN/nginx"
# As root, php-fpm must be told to (-R) and given a user for its workers.
USER_LINES=""
RUN_AS_ROOT=()
if [ "$(id -u)" -eq 0 ]; then
  USER_LINES=$'user = root\ngroup = root'
  RUN_AS_ROOT=(-R)
fi
cat > "$RUN/php-fpm.conf" <<CONF
[global]
pid = $RUN/php-fpm.pid
error_log = /proc/self/fd/2
daemonize = no

[soapstone]
$USER_LINES
listen = $SOCK
pm = dynamic
pm.max_children = 5
pm.start_servers = 2
pm.min_spare_servers = 1
pm.max_spare_servers = 3
clear_env = no
catch_workers_output = yes
CONF
cat > "$RUN/nginx.conf" <<CONF
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
    location / {
      fastcgi_pass unix:$SOCK;
      include /etc/nginx/fastcgi_params;
      fastcgi_param SCRIPT_FILENAME $HERE/server.php;
    }
  }
}
CONF
# php-fpm first; nginx (this process, after exec) is its parent.
setpriv --pdeathsig TERM "$FPM" "${RUN_AS_ROOT[@]}" --nodaemonize --fpm-config "$RUN/php-fpm.conf" &
for _ in $(seq 1 300); do [ -S "$SOCK" ] && break; sleep 0.1; done
[ -S "$SOCK" ] || { echo "php-fpm did not open $SOCK within 30 s" >&2; exit 1; }
echo "listening on http://$HOST:$PORT/dp (nginx -> php-fpm $SOCK)"
exec nginx -c "$RUN/nginx.conf"
