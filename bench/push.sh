#!/usr/bin/env bash
# Direct push benchmark (issue 15): builds release, starts a mock APNs in C
# (bench/push-mock.c: HTTP/2 over TLS with a CA this script makes, answers
# every push with 200 and notes its arrival) and measures it alone with
# h2load, starts Tidings with a private PostgreSQL in a temporary data
# folder pointed at the mock, registers one APNs push app
# through the API and seeds, in SQL, one user per push with one watch and
# one iOS device of that app. Every push is caused by a real count change:
# record_changes() (the poller's write) raises the user's badge, whose
# trigger queues the badge push through queue_events -> queue_pushes.
#   1. Burst: BURST changes (default 50,000, one per user) committed in one
#      transaction; pushes/s from the first to the last arrival at the mock
#      (and from the commit), Tidings' and PostgreSQL's CPU per push, the
#      mock's CPU, and how many connections carried the pushes.
#   2. Steady: RATE changes/s (default 1,000, in transactions of
#      BENCH_STEADY_BATCH changes, each change of a different user) for
#      SECONDS (default 20) through pgbench,
#      once per coalescing window in BENCH_COALESCE (default "50ms 0ms";
#      Tidings is restarted with TIDINGS_PUSH_COALESCE set to it, and the
#      pgbench sessions get the same tidings.push_coalesce setting, since
#      queue_pushes reads it from the session that writes the change).
#      Change-to-push latency = the mock's arrival time minus
#      clock_timestamp() taken at the end of the change's one statement,
#      right before its commit: p50, p90, p99, max. Commit-to-push starts
#      at the transaction's commit record instead (track_commit_timestamp);
#      the change is visible, and can be pushed, once that record is on
#      disk, which on this machine can take another 100 ms.
# With BENCH_PLATFORM=web the devices are web devices instead: Web Push
# to POST /wp/<token> on the same mock (201, body not read), each message
# encrypted for the device (RFC 8291) and signed with the VAPID key Tidings
# generates into its data folder; the subscription keys of one device
# registered through the API are copied to all (auth stays sealed), and
# TIDINGS_ALLOW_PRIVATE_TARGETS=true lets the SSRF guard reach the mock.
# Usage: bench/push.sh [BURST] [RATE] [SECONDS]   (RATE 0: the burst alone)
#   BENCH_PLATFORM=ios       ios (APNs) or web (Web Push)
#   BENCH_COALESCE="50ms 0ms"  windows of the steady runs
#   BENCH_BATCH=5000         watches per record_changes() call in the burst
#   BENCH_WRITERS=8          pgbench clients of the steady runs
#   BENCH_STEADY_BATCH=50    changes per transaction in the steady runs (of
#                            as many users; RATE / BATCH transactions/s), as
#                            the poller's writers batch a round's results.
#                            record_changes() costs ~3 ms of CPU for one
#                            change alone and ~0.6 ms each in batches of 50
#                            (bench/badges.sh), so smaller batches spend the
#                            2 cores on writing changes, not on pushing
#   BENCH_MOCK_STREAMS=1000  the mock's SETTINGS_MAX_CONCURRENT_STREAMS
#   BENCH_TIMEOUT=300        seconds to wait for the pushes of one phase
#   BENCH_MOCK_ALONE=100000  pushes h2load sends the mock alone first (0: none)
#   BENCH_KEEP=1             keep the data folder (logs, arrivals) at the end
#   BENCH_LOG_LEVEL=warning  Tidings' log level (tidings/tidings.log)
#   BENCH_SLOW_MS=           log statements slower than this many ms,
#                            and every autovacuum (tidings/postgres.log)
#   BENCH_PG_STATEMENTS=1    pg_stat_statements per phase (statements-*.txt)
#   BENCH_PERF=1             perf record of Tidings during the burst
#                            (perf-burst.txt); both best with BENCH_KEEP=1
set -euo pipefail
cd "$(dirname "$0")/.."

burst=${1:-50000}
rate=${2:-1000}
seconds=${3:-20}
coalesce_windows=${BENCH_COALESCE:-50ms 0ms}
batch=${BENCH_BATCH:-5000}
writers=${BENCH_WRITERS:-8}
steady_batch=${BENCH_STEADY_BATCH:-50}
mock_streams=${BENCH_MOCK_STREAMS:-1000}
timeout=${BENCH_TIMEOUT:-300}
platform=${BENCH_PLATFORM:-ios}
case "$platform" in ios | web) ;; *) echo "BENCH_PLATFORM must be ios or web" >&2; exit 2 ;; esac
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
port=${BENCH_PORT:-$(free_port)}
mock_port=${BENCH_MOCK_PORT:-$(free_port)}
scripts/install-deps.sh libnghttp2-dev nghttp2-client libssl-dev pkg-config openssl
. bench/lib.sh
admin_token=$(bench_admin_token)
bindir=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)
app_id=com.example.bench

bench_build
data=$(mktemp -d /tmp/tidings-bench-push.XXXXXX)
chmod 755 "$data"
cc -O2 -Wall -o "$data/push-mock" bench/push-mock.c $(pkg-config --cflags --libs libnghttp2 openssl) -lpthread

# A CA, the mock's certificate for 127.0.0.1 signed by it, and the push
# app's P-256 signing key (the .p8 an APNs account hands out is PKCS#8 PEM).
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 -subj "/CN=Tidings bench CA" \
    -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign,cRLSign \
    -keyout "$data/ca.key" -out "$data/ca.pem" 2>/dev/null
openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj "/CN=127.0.0.1" \
    -keyout "$data/mock.key" -out "$data/mock.csr" 2>/dev/null
printf 'subjectAltName=IP:127.0.0.1\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n' >"$data/mock.ext"
openssl x509 -req -in "$data/mock.csr" -CA "$data/ca.pem" -CAkey "$data/ca.key" -CAcreateserial -days 2 \
    -extfile "$data/mock.ext" -out "$data/mock.pem" 2>/dev/null
openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$data/apns-key.p8"

"$data/push-mock" "$mock_port" "$data/mock.pem" "$data/mock.key" "$data/mock-status.txt" "$data/arrivals.txt" "$mock_streams" &
mock_pid=$!
stop() {
    bench_stop_tidings
    kill -TERM "$mock_pid" 2>/dev/null || true
    wait "$mock_pid" 2>/dev/null || true
    while kill -0 "$mock_pid" 2>/dev/null; do sleep 0.1; done
    if [ -n "${BENCH_KEEP:-}" ]; then echo "kept $data" >&2; else rm -rf "$data"; fi
}
trap stop EXIT
for _ in $(seq 1 50); do [ -s "$data/mock-status.txt" ] && break; sleep 0.1; done
[ -s "$data/mock-status.txt" ] || { echo "the mock did not start" >&2; exit 1; }
ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }

# --- 0. The mock alone: h2load on one connection with as many streams, so
# its rate and CPU per push show it is not what limits the runs below.
mock_alone=${BENCH_MOCK_ALONE:-100000}
if [ "$mock_alone" -gt 0 ]; then
    echo '{"aps":{"badge":1}}' >"$data/h2load-body.json"
    echo "load average before h2load: $(cut -d' ' -f1-3 /proc/loadavg)"
    mock_before=$(ticks "$mock_pid")
    h2load -n "$mock_alone" -c 1 -t 1 -m "$mock_streams" -d "$data/h2load-body.json" -H 'apns-topic: h2load' \
        "https://127.0.0.1:$mock_port/3/device/h2load" >"$data/h2load.log" 2>&1 || { cat "$data/h2load.log" >&2; exit 1; }
    mock_after=$(ticks "$mock_pid")
    h2load_rate=$(grep -Eo 'finished in [0-9.]+m?s, [0-9.]+ req/s' "$data/h2load.log")
    grep -q "$mock_alone succeeded" "$data/h2load.log" || { cat "$data/h2load.log" >&2; exit 1; }
    echo "mock alone: h2load -n $mock_alone -c 1 -m $mock_streams: $h2load_rate;" \
        "mock CPU $(( (mock_after - mock_before) * 1000000 / $(getconf CLK_TCK) / mock_alone )) us per push"
fi

start_tidings() {
    bench_start_tidings "$port" "$data/tidings" TIDINGS_ADMIN_TOKEN="$admin_token" TIDINGS_LOG_LEVEL="${BENCH_LOG_LEVEL:-warning}" \
        TIDINGS_POLL_CONCURRENCY=0 TIDINGS_APNS_URL="https://127.0.0.1:$mock_port" \
        TIDINGS_PUSH_CA_FILE="$data/ca.pem" TIDINGS_PUSH_COALESCE="$1" TIDINGS_ALLOW_PRIVATE_TARGETS="$([ "$platform" = web ] && echo true || echo false)"
}
first_window=${coalesce_windows%% *}
start_tidings "$first_window"

if [ "$platform" = ios ]; then
    key_json=$(python3 -c 'import json, sys; print(json.dumps(open(sys.argv[1]).read()))' "$data/apns-key.p8")
    registered=$(curl -s -o "$data/push-app.json" -w '%{http_code}' -X POST "$base/v1/push-apps" \
        -H "Authorization: Bearer $admin_token" -H 'Content-Type: application/json' \
        -d "{\"platform\": \"apns\", \"app_id\": \"$app_id\", \"environment\": \"production\", \"team_id\": \"BENCHTEAM1\", \"key_id\": \"BENCHKEY01\", \"private_key\": $key_json}")
    [ "$registered" = 201 ] || { echo "POST /v1/push-apps answered $registered: $(cat "$data/push-app.json")" >&2; exit 1; }
else
    # A browser's subscription keys (P-256 point and 16-byte secret),
    # registered once through the API so that auth is sealed as Tidings
    # seals it; the seeding below copies both to every web device.
    b64url() { base64 -w0 | tr '+/' '-_' | tr -d '='; }
    openssl ecparam -name prime256v1 -genkey -noout -out "$data/browser-key.pem"
    p256dh=$(openssl ec -in "$data/browser-key.pem" -pubout -outform DER 2>/dev/null | tail -c 65 | b64url)
    auth=$(openssl rand 16 | b64url)
    user_key=$(curl -s -X POST "$base/v1/users" -H "Authorization: Bearer $admin_token" -H 'Content-Type: application/json' \
        -d '{"name": "bench-template"}' | python3 -c 'import json, sys; print(json.load(sys.stdin)["api_key"])')
    registered=$(curl -s -o "$data/web-device.json" -w '%{http_code}' -X POST "$base/v1/devices" \
        -H "Authorization: Bearer $user_key" -H 'Content-Type: application/json' \
        -d "{\"platform\": \"web\", \"push_subscription\": {\"endpoint\": \"https://127.0.0.1:$mock_port/wp/template\", \"keys\": {\"p256dh\": \"$p256dh\", \"auth\": \"$auth\"}}}")
    [ "$registered" = 201 ] || { echo "POST /v1/devices answered $registered: $(cat "$data/web-device.json")" >&2; exit 1; }
fi

as_owner() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
socket="$data/tidings/run"
[ -S "$socket/.s.PGSQL.5432" ] || socket=$(dirname "$(find "$data/tidings" -name '.s.PGSQL.*' | head -n 1)")
psql_() { as_owner env PGOPTIONS="-c jit=off -c tidings.push_coalesce=${window:-50ms}" "$bindir/psql" -h "$socket" -U tidings -d tidings -qAtX -v ON_ERROR_STOP=1 "$@"; }
mock_status() { cat "$data/mock-status.txt"; }
received() { mock_status | awk '{print $1}'; }
postgres_ticks() {
    local total=0 postmaster
    postmaster=$(head -n 1 "$data/tidings/postgres/postmaster.pid" 2>/dev/null || true)
    [ -n "$postmaster" ] || { echo 0; return; }
    for child in $postmaster $(cat "/proc/$postmaster/task/$postmaster/children" 2>/dev/null); do
        total=$((total + $(awk '{print $14 + $15}' "/proc/$child/stat" 2>/dev/null || echo 0)))
    done
    echo "$total"
}
wait_for() {
    local target=$1 deadline=$((SECONDS + timeout))
    while [ "$(received)" -lt "$target" ]; do
        if [ "$SECONDS" -ge "$deadline" ]; then
            echo "timed out: the mock has $(received) of $target pushes" >&2
            psql_ -c "SELECT status, count(*) FROM pushes GROUP BY status" >&2
            exit 1
        fi
        sleep 0.05
    done
}

if [ -n "${BENCH_SLOW_MS:-}" ]; then
    psql_ -c "ALTER SYSTEM SET log_min_duration_statement = ${BENCH_SLOW_MS}" \
          -c "ALTER SYSTEM SET log_autovacuum_min_duration = 0" -c "SELECT pg_reload_conf()" >/dev/null
fi
# Commit times (track_commit_timestamp): a change can be pushed only once
# its transaction commits, so the steady runs measure from the commit too.
psql_ -c "ALTER SYSTEM SET track_commit_timestamp = on" >/dev/null
if [ -n "${BENCH_PG_STATEMENTS:-}" ]; then
    psql_ -c "ALTER SYSTEM SET shared_preload_libraries = 'pg_stat_statements'" >/dev/null
fi
# Both are read at server start: Tidings restarts its PostgreSQL with them.
bench_stop_tidings
start_tidings "$first_window"
if [ -n "${BENCH_PG_STATEMENTS:-}" ]; then
    # Its own settings exist only once it is loaded.
    bench_top_statements psql_ /dev/null
fi

# --- Seed: a user, a watch (with a baseline hash) and an iOS device per push.
read -r -a windows <<<"$coalesce_windows"
[ "$rate" -gt 0 ] || windows=()
per_phase=$((rate * seconds * 11 / 10 + 200))
users=$((burst + per_phase * ${#windows[@]}))
echo "seeding $users users, each with one watch and one $platform device ..."
if [ "$platform" = ios ]; then
    device_sql="INSERT INTO devices (user_id, platform, push_token, app_id)
    SELECT user_id, 'ios', lpad(to_hex(n), 64, '0'), '$app_id' FROM bench_users;"
else
    device_sql="INSERT INTO devices (user_id, platform, push_token, web_push_p256dh, web_push_auth)
    SELECT u.user_id, 'web', 'https://127.0.0.1:$mock_port/wp/' || lpad(to_hex(u.n), 64, '0'), t.web_push_p256dh, t.web_push_auth
    FROM bench_users u, (SELECT web_push_p256dh, web_push_auth FROM devices WHERE platform = 'web' LIMIT 1) t;"
fi
psql_ <<SQL
CREATE TABLE bench_users (n integer PRIMARY KEY, user_id uuid NOT NULL, watch_id uuid);
WITH created AS (
    INSERT INTO users (name) SELECT 'bench-' || n FROM generate_series(1, $users) n RETURNING id, name
)
INSERT INTO bench_users (n, user_id) SELECT substr(name, 7)::integer, id FROM created;
INSERT INTO targets (url, headers_fingerprint)
    SELECT 'https://93.184.215.14/page-' || n, repeat('0', 64) FROM generate_series(1, $users) n;
WITH created AS (
    INSERT INTO watches (user_id, target_id, name, interval_seconds, content_hash, snapshot)
    SELECT u.user_id, t.id, 'page ' || u.n, 300, repeat('0', 64), 'baseline'
    FROM bench_users u JOIN targets t ON t.url = 'https://93.184.215.14/page-' || u.n
    RETURNING id, user_id
)
UPDATE bench_users u SET watch_id = c.id FROM created c WHERE c.user_id = u.user_id;
$device_sql
CREATE TABLE bench_times (n integer NOT NULL, phase text, at timestamptz NOT NULL, committed_at timestamptz);
CREATE SEQUENCE bench_next;
VACUUM ANALYZE;
SQL

echo "machine: $(nproc) cores, $(uname -sr), $($bindir/postgres --version), $(swift --version 2>/dev/null | head -n 1)"
echo "mock APNs and Web Push: bench/push-mock.c (libnghttp2 + OpenSSL, thread per connection), max concurrent streams $mock_streams; devices: $platform"
echo "load average before the burst: $(cut -d' ' -f1-3 /proc/loadavg)"

# --- 1. Burst ----------------------------------------------------------------
window=$first_window
batches=$(( (burst + batch - 1) / batch ))
before=$(received)
queue_start_ns=$(date +%s%N)
psql_ <<SQL
DO \$\$
DECLARE
    size integer;
BEGIN
    FOR i IN 0 .. $batches - 1 LOOP
        size := least($batch, $burst - i * $batch);
        PERFORM count(*) FROM record_changes(
            ARRAY(SELECT watch_id FROM bench_users WHERE n > i * $batch AND n <= i * $batch + size ORDER BY n),
            ARRAY(SELECT md5(random()::text) || md5(random()::text) FROM generate_series(1, size)),
            array_fill('changed text'::text, ARRAY[size]), array_fill(false, ARRAY[size]),
            array_fill(E'-baseline\n+changed text'::text, ARRAY[size]), array_fill(200, ARRAY[size]),
            array_fill(12::bigint, ARRAY[size]));
    END LOOP;
END
\$\$;
SQL
committed_ns=$(date +%s%N)
tidings_before=$(ticks "$tidings_pid"); mock_before=$(ticks "$mock_pid"); pg_before=$(postgres_ticks)
if [ -n "${BENCH_PERF:-}" ]; then
    perf record -F 999 -g -o "$data/perf-burst.data" -p "$tidings_pid" >/dev/null 2>&1 &
    perf_pid=$!
fi
wait_for $((before + burst))
burst_done_ns=$(date +%s%N)
if [ -n "${BENCH_PERF:-}" ]; then
    kill -INT "$perf_pid"; wait "$perf_pid" || true
    perf report -i "$data/perf-burst.data" --no-children --sort dso,symbol --stdio 2>/dev/null \
        | grep -E '^ +[0-9]' | head -40 >"$data/perf-burst.txt" || true
fi
tidings_after=$(ticks "$tidings_pid"); mock_after=$(ticks "$mock_pid"); pg_after=$(postgres_ticks)
rss=$(awk '/VmHWM/ {print $2 " " $3}' "/proc/$tidings_pid/status")
bench_top_statements psql_ "$data/statements-burst.txt"
burst_status=$(psql_ -c "SELECT string_agg(status || ' ' || n, ', ') FROM (SELECT status, count(*) n FROM pushes GROUP BY status ORDER BY status) s")
echo "burst $burst_status" >"$data/phases.txt"
echo "burst_cpu $((tidings_after - tidings_before)) $((pg_after - pg_before)) $((mock_after - mock_before)) $((committed_ns - queue_start_ns)) $committed_ns $burst_done_ns $rss" >>"$data/phases.txt"

# --- 2. Steady rate, per coalescing window -----------------------------------
# The next STEADY_BATCH users' changes in one record_changes() call; the
# time is taken after it returned (its triggers queued the pushes), right
# before the commit.
cat >"$data/change.sql" <<SQL
WITH next AS (SELECT nextval('bench_next')::integer AS n FROM generate_series(1, $steady_batch)),
     picked AS (SELECT b.n, b.watch_id FROM bench_users b JOIN next ON next.n = b.n)
INSERT INTO bench_times (n, at)
SELECT p.n, clock_timestamp()
FROM record_changes(
    (SELECT array_agg(watch_id) FROM picked),
    ARRAY(SELECT md5(random()::text) || md5(random()::text) FROM picked),
    array_fill('changed text'::text, ARRAY[$steady_batch]), array_fill(false, ARRAY[$steady_batch]),
    array_fill(E'-baseline\\n+changed text'::text, ARRAY[$steady_batch]), array_fill(200, ARRAY[$steady_batch]),
    array_fill(12::bigint, ARRAY[$steady_batch])) r
JOIN picked p ON p.watch_id = r.watch_id
WHERE r.result = 'changed';
SQL
chmod 644 "$data/change.sql"
next=$burst
for window in ${windows[@]+"${windows[@]}"}; do
    if [ "$window" != "$first_window" ] || [ "$next" != "$burst" ]; then
        bench_stop_tidings
        start_tidings "$window"
    fi
    psql_ -c "SELECT setval('bench_next', $next)" >/dev/null
    bench_top_statements psql_ /dev/null
    before=$(received)
    sleep 1
    tidings_before=$(ticks "$tidings_pid"); pg_before=$(postgres_ticks)
    echo "steady run, TIDINGS_PUSH_COALESCE=$window: load average $(cut -d' ' -f1-3 /proc/loadavg)"
    as_owner env PGOPTIONS="-c jit=off -c tidings.push_coalesce=$window" "$bindir/pgbench" -h "$socket" -U tidings -n \
        -c "$writers" -j 2 -R "$((rate / steady_batch))" -T "$seconds" -f "$data/change.sql" tidings >"$data/pgbench-$window.log" 2>&1 \
        || { cat "$data/pgbench-$window.log" >&2; exit 1; }
    # xmin is still the changing transaction's here, not this update's.
    changes=$(psql_ -c "UPDATE bench_times SET phase = '$window', committed_at = pg_xact_commit_timestamp(xmin) WHERE phase IS NULL;
                        SELECT count(*) FROM bench_times WHERE phase = '$window'")
    wait_for $((before + changes))
    bench_top_statements psql_ "$data/statements-$window.txt"
    tidings_after=$(ticks "$tidings_pid"); pg_after=$(postgres_ticks)
    echo "steady $window $changes $((tidings_after - tidings_before)) $((pg_after - pg_before)) $(grep -Eo 'schedule lag: [^)]*|latency average = [0-9.]+ ms' "$data/pgbench-$window.log" | tr '\n' ' ')" >>"$data/phases.txt"
    next=$((next + per_phase))
done

psql_ -c "COPY (SELECT lpad(to_hex(u.n), 64, '0'), coalesce(t.phase, 'burst'), (extract(epoch FROM t.at) * 1000000)::bigint,
                      (extract(epoch FROM t.committed_at) * 1000000)::bigint
               FROM bench_users u LEFT JOIN bench_times t ON t.n = u.n) TO STDOUT" >"$data/changes.txt"
final_status=$(mock_status)
bench_stop_tidings
kill -TERM "$mock_pid"
wait "$mock_pid" || true

python3 - "$data/changes.txt" "$data/arrivals.txt" "$data/phases.txt" "$(getconf CLK_TCK)" "$burst" "$rate" "$seconds" "$final_status" <<'PY'
import sys
changes_file, arrivals_file, phases_file = sys.argv[1:4]
hz, burst, rate, seconds = int(sys.argv[4]), int(sys.argv[5]), int(sys.argv[6]), int(sys.argv[7])
mock_pushes, mock_connections, mock_push_connections, mock_resets = map(int, sys.argv[8].split())
phase_of, changed_at, committed_at = {}, {}, {}
for line in open(changes_file):
    token, phase, micros, commit_micros = line.split()
    phase_of[token] = phase
    if micros != r"\N":
        changed_at[token] = int(micros)
    if commit_micros != r"\N":
        committed_at[token] = int(commit_micros)
arrivals = {}
for line in open(arrivals_file):
    token, micros, connection, payload = line.split(" ", 3)
    arrivals.setdefault(phase_of.get(token, "?"), []).append((int(micros), token, int(connection), payload.strip()))
info = {}
for line in open(phases_file):
    words = line.split()
    info.setdefault(words[0], []).append(words[1:])
def pct(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(len(values) * p))] if values else float("nan")

print(f"\nmock: {mock_pushes} pushes over {mock_connections} connections ({mock_push_connections} carried pushes); "
      f"the client reset {mock_resets} streams (RST_STREAM) after their answer")
status = " ".join(info["burst"][0])
cpu = info["burst_cpu"][0]
tidings_cpu, pg_cpu, mock_cpu = (int(x) / hz for x in cpu[:3])
queue_s, committed_ns, done_ns, rss = int(cpu[3]) / 1e9, int(cpu[4]), int(cpu[5]), " ".join(cpu[6:])
got = sorted(arrivals.get("burst", []))
first, last = got[0][0], got[-1][0]
span = (last - first) / 1e6
from_commit = last / 1e6 - committed_ns / 1e9
tokens = {a[1] for a in got}
badge_one = sum(1 for a in got if a[3] == '{"aps":{"badge":1}}')
print(f"\n== burst: {burst} count changes, one per user, committed in one transaction (queueing took {queue_s:.1f} s)")
print(f"   pushes received: {len(got)} ({len(tokens)} devices; {badge_one} with badge 1), "
      f"over {len({a[2] for a in got})} connection(s); pushes table: {status}")
print(f"   first -> last arrival: {span:.2f} s = {len(got) / span:,.0f} pushes/s; commit -> last arrival: {from_commit:.2f} s = {len(got) / from_commit:,.0f} pushes/s")
print(f"   commit -> first arrival: {(first / 1e6 - committed_ns / 1e9) * 1000:.0f} ms")
wall = (done_ns - committed_ns) / 1e9
print(f"   tidings CPU {tidings_cpu:.1f} s = {tidings_cpu / wall:.2f} cores, {tidings_cpu / len(got) * 1e6:.0f} us per push; peak RSS {rss}")
print(f"   PostgreSQL CPU {pg_cpu:.1f} s = {pg_cpu / wall:.2f} cores, {pg_cpu / len(got) * 1e6:.0f} us per push")
print(f"   mock CPU {mock_cpu:.1f} s = {mock_cpu / wall:.2f} cores, {mock_cpu / len(got) * 1e6:.0f} us per push")

for words in info.get("steady", []):
    window, changes, t_ticks, p_ticks = words[0], int(words[1]), int(words[2]), int(words[3])
    rest = " ".join(words[4:])
    got = arrivals.get(window, [])
    latencies = [(micros - changed_at[token]) / 1000 for micros, token, _, _ in got if token in changed_at]
    from_commit = [(micros - committed_at[token]) / 1000 for micros, token, _, _ in got if token in committed_at]
    commit_waits = [(committed_at[token] - changed_at[token]) / 1000 for _, token, _, _ in got
                    if token in committed_at and token in changed_at]
    connections = {a[2] for a in got}
    print(f"\n== steady, TIDINGS_PUSH_COALESCE={window}: {changes} changes at {rate}/s for {seconds} s ({changes / seconds:,.0f}/s; pgbench {rest.strip()})")
    print(f"   pushes received: {len(got)} over {len(connections)} connection(s)")
    print(f"   change -> push p50 {pct(latencies, .5):.1f} ms, p90 {pct(latencies, .9):.1f} ms, p99 {pct(latencies, .99):.1f} ms, max {max(latencies or [0]):.1f} ms")
    print(f"   commit -> push p50 {pct(from_commit, .5):.1f} ms, p90 {pct(from_commit, .9):.1f} ms, p99 {pct(from_commit, .99):.1f} ms, max {max(from_commit or [0]):.1f} ms"
          f" (the change's commit came p50 {pct(commit_waits, .5):.1f} ms, p99 {pct(commit_waits, .99):.1f} ms, max {max(commit_waits or [0]):.1f} ms after it)")
    print(f"   tidings CPU {t_ticks / hz / seconds:.2f} cores, {t_ticks / hz / max(len(got), 1) * 1e6:.0f} us per push; "
          f"PostgreSQL (changes and pushes) {p_ticks / hz / seconds:.2f} cores")
PY
