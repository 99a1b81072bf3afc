# Shared by the bench/ scripts (sourced, not run): build the release
# binary, start Tidings on a port and wait until it is ready, stop it.

# Builds the release binary; sets $binary. BENCH_BINARY=path skips the
# build and runs that binary instead (A/B runs of two builds back to back;
# set TIDINGS_RESOURCES_DIR too when its migrations differ).
bench_build() {
    if [ -n "${BENCH_BINARY:-}" ]; then binary=$BENCH_BINARY; return; fi
    swift build -c release --product tidings >/tmp/tidings-bench-build.log 2>&1 \
        || { cat /tmp/tidings-bench-build.log >&2; exit 1; }
    binary="$(swift build -c release --show-bin-path)/tidings"
}

# bench_start_tidings PORT DATA_DIR [NAME=VALUE ...]: starts Tidings with
# the private PostgreSQL in DATA_DIR and the given environment, logging to
# DATA_DIR/tidings.log; sets $tidings_pid and $base; returns once /readyz
# answers 200. Refuses a port that something already answers on.
bench_start_tidings() {
    local port=$1 data=$2
    shift 2
    base="http://127.0.0.1:$port"
    if curl -s -o /dev/null "$base/"; then
        echo "port $port is already in use; set BENCH_PORT" >&2
        exit 1
    fi
    mkdir -p "$data"
    # wrk is one client address: the per-client cap rises to the connection
    # limit, or BENCH_CONNECTIONS above 64 would be refused.
    env TIDINGS_DATA_DIR="$data" TIDINGS_LISTEN="127.0.0.1:$port" \
        TIDINGS_HTTP_CONNECTIONS_PER_CLIENT="${TIDINGS_HTTP_CONNECTION_LIMIT:-1024}" \
        "$@" "$binary" >"$data/tidings.log" 2>&1 &
    tidings_pid=$!
    for _ in $(seq 1 300); do
        curl -fs "$base/readyz" >/dev/null 2>&1 && return 0
        kill -0 "$tidings_pid" 2>/dev/null || break
        sleep 0.2
    done
    cat "$data/tidings.log" >&2
    exit 1
}

# Stops Tidings (SIGTERM, which also stops its private PostgreSQL).
bench_stop_tidings() {
    [ -n "${tidings_pid:-}" ] || return 0
    kill -TERM "$tidings_pid" 2>/dev/null || true
    wait "$tidings_pid" 2>/dev/null || true
}

# json EXPR: reads JSON on stdin, prints the Python subscript EXPR of it.
json() { python3 -c "import json,sys; print(json.load(sys.stdin)$1)"; }

# A random admin token for the run.
bench_admin_token() { echo "bench-admin-token-$(head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n')"; }

# bench_start_origin DIR PORT COUNT [ACCESS_LOG]: nginx (one worker, ETags,
# keep-alive) serving COUNT pages DIR/www/p<i>.html of the same ~1.8 kB on
# 127.0.0.1:PORT, so Tidings and changedetection.io meet the same origin.
# With ACCESS_LOG each request is logged there as "<msec> <status> <bytes>".
# Stop it with bench_stop_origin DIR.
bench_start_origin() {
    local dir=$1 port=$2 count=$3 access_log=${4:-}
    local logging="access_log off;"
    if [ -n "$access_log" ]; then
        logging="log_format tiny '\$msec \$status \$body_bytes_sent'; access_log $access_log tiny;"
    fi
    mkdir -p "$dir/www" "$dir/nginx"
    python3 - "$dir/www" "$count" <<'PY'
import sys
root, count = sys.argv[1], int(sys.argv[2])
filler = "Lorem ipsum dolor sit amet, consectetur adipiscing elit. " * 30
for i in range(count):
    with open(f"{root}/p{i}.html", "w") as page:
        page.write(f"<html><body><h1>Page {i}</h1><p>{filler}</p></body></html>\n")
PY
    chmod -R a+rX "$dir/www"
    cat >"$dir/nginx/nginx.conf" <<NGINX
worker_processes 1;
pid $dir/nginx/nginx.pid;
error_log $dir/nginx/error.log warn;
events { worker_connections 4096; }
http {
    $logging
    keepalive_requests 1000000;
    keepalive_timeout 60s;
    etag on;
    client_body_temp_path $dir/nginx;
    proxy_temp_path $dir/nginx;
    fastcgi_temp_path $dir/nginx;
    uwsgi_temp_path $dir/nginx;
    scgi_temp_path $dir/nginx;
    server {
        listen 127.0.0.1:$port;
        root $dir/www;
    }
}
NGINX
    nginx -c "$dir/nginx/nginx.conf"
}

bench_stop_origin() {
    [ -f "$1/nginx/nginx.pid" ] && kill "$(cat "$1/nginx/nginx.pid")" 2>/dev/null || true
}
