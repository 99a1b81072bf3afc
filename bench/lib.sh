# Shared by the bench/ scripts (sourced, not run): build the release
# binary, start Tidings on a port and wait until it is ready, stop it.

# Builds the release binary; sets $binary. BENCH_BINARY=path skips the
# build and runs that binary instead (A/B runs of two builds back to back;
# set TIDINGS_RESOURCES_DIR too when its migrations differ).
bench_build() {
    if [ -n "${BENCH_BINARY:-}" ]; then binary=$BENCH_BINARY; return; fi
    # The build's C libraries and PostgreSQL, as `make run` installs them:
    # a fresh machine has none of them.
    make --no-print-directory -s deps
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

# bench_start_mix_origin DIR PORT PAGES SIZE SHARES GZIP: nginx (one
# worker, keep-alive, access log "<msec> <status> <bytes>" to
# DIR/nginx/access.log, buffered) serving the mixed workload of issue 16:
# PAGES pages of about SIZE bytes of varied words, each in one of four
# classes by page number modulo 100, in the proportions of SHARES
# ("etag,last-modified,plain,nonce" in percent, e.g. 40,30,10,20):
#   /e/p<i>.html  static, strong ETag (nginx also sends Last-Modified)
#   /m/p<i>.html  static, Last-Modified only (etag off)
#   /n/p<i>.html  no validators (through SSI, which drops both)
#   /d/p<i>.html  no validators, and a per-request timestamp ($msec) and
#                 nonce ($request_id) written by SSI outside #content
# Every page has its text in <div id="content">. With GZIP=1 the static
# pages are served precompressed (gzip_static: no CPU per request) and
# the SSI pages gzipped at level 1 as they are written, as an origin
# would; GZIP=0 serves every page unencoded. SSI keeps the per-request
# pages in nginx's C, so the origin costs little of the shared cores.
# Writes the page paths, one a line, to DIR/pages.txt.
bench_start_mix_origin() {
    local dir=$1 port=$2 pages=$3 size=$4 shares=$5 gzip=$6
    mkdir -p "$dir/www/e" "$dir/www/m" "$dir/www/n" "$dir/www/d" "$dir/nginx"
    python3 - "$dir" "$pages" "$size" "$shares" "$gzip" <<'PY'
import gzip, random, sys
dir, pages, size, shares, use_gzip = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5] == "1"
etag, modified, plain, nonce = map(int, shares.split(","))
if etag + modified + plain + nonce != 100:
    sys.exit(f"BENCH_MIX_SHARES={shares} does not add up to 100")
words = ("tidings watch page change origin release notes version update poller server client request "
         "response header body status cache validator entity tag modified since extraction selector "
         "content digest change feed webhook delivery signature event outbox queue batch").split()
rng = random.Random(16)
paths = []
for i in range(pages):
    share = i % 100
    kind = "e" if share < etag else "m" if share < etag + modified else "n" if share < etag + modified + plain else "d"
    stamp = ('<div id="stamp">Generated at <!--# echo var="msec" --> for request <!--# echo var="request_id" --></div>'
             if kind == "d" else "")
    head = f'<html><head><title>Page {i}</title></head><body><div id="content"><h1>Page {i}</h1>\n'
    tail = f"</div>{stamp}</body></html>\n"
    text, length = [], len(head) + len(tail)
    while length < size:
        sentence = " ".join(rng.choice(words) for _ in range(rng.randint(6, 16))).capitalize() + ". "
        paragraph = f"<p>{sentence}</p>\n" if rng.random() < 0.1 else sentence
        text.append(paragraph)
        length += len(paragraph)
    page = (head + "".join(text) + tail).encode()
    path = f"/{kind}/p{i}.html"
    with open(dir + "/www" + path, "wb") as file:
        file.write(page)
    if use_gzip and kind in "em":
        with open(dir + "/www" + path + ".gz", "wb") as file:
            file.write(gzip.compress(page, 6, mtime=0))
    paths.append(path)
open(dir + "/pages.txt", "w").write("\n".join(paths) + "\n")
PY
    chmod -R a+rX "$dir/www"
    local compression="gzip off;"
    [ "$gzip" = 1 ] && compression="gzip_static on; gzip on; gzip_comp_level 1; gzip_min_length 0;"
    cat >"$dir/nginx/nginx.conf" <<NGINX
worker_processes 1;
pid $dir/nginx/nginx.pid;
error_log $dir/nginx/error.log warn;
events { worker_connections 4096; }
http {
    log_format tiny '\$msec \$status \$body_bytes_sent';
    access_log $dir/nginx/access.log tiny buffer=256k flush=1s;
    default_type text/html;
    keepalive_requests 1000000;
    keepalive_timeout 60s;
    client_body_temp_path $dir/nginx;
    proxy_temp_path $dir/nginx;
    fastcgi_temp_path $dir/nginx;
    uwsgi_temp_path $dir/nginx;
    scgi_temp_path $dir/nginx;
    server {
        listen 127.0.0.1:$port;
        root $dir/www;
        $compression
        location /m/ { etag off; }
        location /n/ { ssi on; }
        location /d/ { ssi on; }
    }
}
NGINX
    nginx -c "$dir/nginx/nginx.conf"
}

# bench_summary FILE: FILE has "<figure name> <value>" lines (names
# without spaces); prints each figure's median, min-max and count, in the
# order the names first appear.
bench_summary() {
    python3 - "$1" <<'PY'
import statistics, sys
figures = {}
for line in open(sys.argv[1]):
    name, value = line.split()
    figures.setdefault(name, []).append(float(value))
for name, values in figures.items():
    digits = 0 if statistics.median(values) >= 100 else 2
    print(f"  {name:<34} median {statistics.median(values):>10,.{digits}f}   min-max {min(values):,.{digits}f}-{max(values):,.{digits}f}   (n={len(values)})")
PY
}

# median_of FILE NAME: the median of one figure of a bench_summary file.
median_of() {
    python3 -c "import statistics, sys; print(statistics.median(float(v) for n, v in (l.split() for l in open(sys.argv[1])) if n == sys.argv[2]))" "$1" "$2"
}

# With BENCH_PG_STATEMENTS=1, PostgreSQL's own profile of a phase:
# bench_top_statements PSQL... FILE writes the 25 statements with the most
# execution time since the last reset (nested ones, inside functions,
# included) to FILE and resets. The server must have been started with
# shared_preload_libraries=pg_stat_statements; the first call creates the
# extension and only resets.
bench_top_statements() {
    [ -n "${BENCH_PG_STATEMENTS:-}" ] || return 0
    local file=${*: -1}
    local psql=("${@:1:$#-1}")
    if [ "$("${psql[@]}" -XAtq -c "SELECT count(*) FROM pg_extension WHERE extname = 'pg_stat_statements'")" = 0 ]; then
        "${psql[@]}" -XAtq -c "ALTER SYSTEM SET pg_stat_statements.track = 'all'" -c "SELECT pg_reload_conf()" \
            -c "CREATE EXTENSION pg_stat_statements" >/dev/null
    else
        "${psql[@]}" -XAq -F ' | ' -P footer=off -c "SELECT round(total_exec_time::numeric, 0) AS total_ms, calls, rows,
                round(mean_exec_time::numeric, 3) AS mean_ms, shared_blks_dirtied AS dirtied, wal_records,
                regexp_replace(left(query, 110), '\s+', ' ', 'g') AS query
            FROM pg_stat_statements ORDER BY total_exec_time DESC LIMIT 25" >"$file"
    fi
    "${psql[@]}" -XAtq -c "SELECT pg_stat_statements_reset()" >/dev/null
}

bench_stop_origin() {
    [ -f "$1/nginx/nginx.pid" ] && kill "$(cat "$1/nginx/nginx.pid")" 2>/dev/null || true
}

# bench_create_users BASE ADMIN_TOKEN COUNT OUT: COUNT users created
# through POST /v1/users (8 keep-alive clients), written to OUT as
# "user_id api_key" lines.
bench_create_users() {
    python3 - "$@" <<'PY'
import http.client, json, sys, threading, urllib.parse
base, token, count, out = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
address = urllib.parse.urlsplit(base)
lines, lock, next_n = [], threading.Lock(), iter(range(count))
def work():
    connection = http.client.HTTPConnection(address.hostname, address.port)
    while True:
        with lock:
            n = next(next_n, None)
        if n is None:
            return
        connection.request("POST", "/v1/users", json.dumps({"name": f"bench-{n}"}),
                           {"Authorization": f"Bearer {token}", "Content-Type": "application/json"})
        response = connection.getresponse()
        body = response.read()
        if response.status != 201 and response.status != 200:
            sys.exit(f"POST /v1/users: {response.status} {body[:200]!r}")
        created = json.loads(body)
        with lock:
            lines.append(f"{created['user']['id']} {created['api_key']}\n")
workers = [threading.Thread(target=work) for _ in range(8)]
for w in workers: w.start()
for w in workers: w.join()
if len(lines) != count:
    sys.exit(f"created {len(lines)} users of {count}")
open(out, "w").writelines(lines)
PY
}
