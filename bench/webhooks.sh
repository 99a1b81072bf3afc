#!/usr/bin/env bash
# Webhook fan-out benchmark: builds release, starts Tidings with a private
# PostgreSQL in a temporary data folder and a C receiver (libmicrohttpd, one
# epoll thread, bench/webhook-receiver.c) on loopback, creates one user with
# WEBHOOKS webhooks (default 10), then
#   1. a burst: EVENTS events (default 20,000) committed in one transaction,
#      fanned out to every webhook; deliveries/s from commit to the last
#      arrival, Tidings' CPU and peak RSS, commit-to-receipt p50/p99;
#   2. a steady rate: RATE events/s (default 500) for SECONDS (default 20)
#      through pgbench, one event per transaction; commit-to-receipt p50/p99.
# Commit-to-receipt is the receiver's arrival time minus the event's
# created_at (the start of its one-statement transaction).
# BENCH_RUNS=N (default 1) runs it all N times, each with a fresh Tidings
# and database, and prints the median and min-max of the main figures.
# BENCH_PG_STATEMENTS=1 prints PostgreSQL's statements with the most time
# in the burst (pg_stat_statements).
# Usage: bench/webhooks.sh [EVENTS] [WEBHOOKS] [RATE] [SECONDS]
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "${BENCH_RUNS:-1}" -gt 1 ]; then
    . bench/lib.sh
    bench_build
    figures=$(mktemp /tmp/tidings-bench-webhooks-figures.XXXXXX)
    for run in $(seq 1 "$BENCH_RUNS"); do
        echo "== run $run of $BENCH_RUNS"
        BENCH_RUNS=1 BENCH_BINARY=$binary bench/webhooks.sh "$@" | tee "$figures.run"
        # Thousands separators out, then the figures.
        sed 's/\([0-9]\),\([0-9]\)/\1\2/g' "$figures.run" | sed -n \
            -e 's|^   commit -> last receipt: .* = \([0-9]*\) deliveries/s$|burst_deliveries/s \1|p' \
            -e 's|^   tidings CPU: .*, \([0-9]*\) us per delivery;.*|burst_tidings_cpu_us/delivery \1|p' \
            -e 's|^   commit-to-receipt p50 \([0-9]*\) ms, p99 \([0-9]*\) ms (queueing.*|burst_p99_ms \2|p' \
            -e 's|^   commit-to-receipt p50 \([0-9.]*\) ms, p90 .*, p99 \([0-9.]*\) ms, max.*|steady_p50_ms \1\nsteady_p99_ms \2|p' \
            >>"$figures"
    done
    echo "== $BENCH_RUNS runs:"
    bench_summary "$figures"
    rm -f "$figures" "$figures.run"
    exit 0
fi

events=${1:-20000}
webhooks=${2:-10}
rate=${3:-500}
seconds=${4:-20}
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
port=${BENCH_PORT:-$(free_port)}
receiver_port=${BENCH_RECEIVER_PORT:-$(free_port)}
. bench/lib.sh
admin_token=$(bench_admin_token)
bindir=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)

bench_build
data=$(mktemp -d /tmp/tidings-bench-webhooks.XXXXXX)
chmod 755 "$data"
cc -O2 -o "$data/receiver" bench/webhook-receiver.c $(pkg-config --cflags --libs libmicrohttpd)

"$data/receiver" "$receiver_port" "$data/arrivals.txt" &
receiver_pid=$!
stop() {
    bench_stop_tidings
    kill -TERM "$receiver_pid" 2>/dev/null || true
    wait "$receiver_pid" 2>/dev/null || true
    rm -rf "$data"
}
trap stop EXIT
# One user owns every webhook, however many WEBHOOKS asks for (the default
# per-user limit is 20).
start_tidings() {
    bench_start_tidings "$port" "$data/tidings" TIDINGS_ADMIN_TOKEN="$admin_token" \
        TIDINGS_ALLOW_PRIVATE_TARGETS=true TIDINGS_LOG_LEVEL=warning \
        TIDINGS_MAX_WEBHOOKS_PER_USER=$((webhooks > 20 ? webhooks : 20))
}
start_tidings
created=$(curl -fs -X POST "$base/v1/users" -H "Authorization: Bearer $admin_token" \
    -H 'Content-Type: application/json' -d '{"name": "bench"}')
key=$(echo "$created" | json '["api_key"]')
user=$(echo "$created" | json '["user"]["id"]')
for i in $(seq 1 "$webhooks"); do
    curl -fs -X POST "$base/v1/webhooks" -H "Authorization: Bearer $key" -H 'Content-Type: application/json' \
        -d "{\"url\": \"http://127.0.0.1:$receiver_port/hook$i\", \"event_types\": [\"watch.changed\"]}" >/dev/null
done

as_owner() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
socket="$data/tidings/postgres/run"
[ -d "$socket" ] || socket=$(dirname "$(find "$data/tidings" -name '.s.PGSQL.*' | head -n 1)")
psql_() { as_owner "$bindir/psql" -h "$socket" -U tidings -d tidings -qAtX "$@"; }
received() { curl -fs "http://127.0.0.1:$receiver_port/count"; }
if [ -n "${BENCH_PG_STATEMENTS:-}" ]; then
    # Read at server start: Tidings restarts its PostgreSQL with it.
    psql_ -c "ALTER SYSTEM SET shared_preload_libraries = 'pg_stat_statements'" >/dev/null
    bench_stop_tidings
    start_tidings
    bench_top_statements psql_ /dev/null
fi
cpu_ticks() { awk '{print $14 + $15}' "/proc/$tidings_pid/stat"; }
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
    local target=$1
    while [ "$(received)" -lt "$target" ]; do sleep 0.1; done
}

echo "machine: $(nproc) cores, $(uname -sr), $(swift --version 2>/dev/null | head -n 1)"
echo "webhooks: $webhooks, receiver: bench/webhook-receiver.c (libmicrohttpd, one epoll thread)"

# --- 1. Burst ---------------------------------------------------------------
total=$((events * webhooks))
ticks_before=$(cpu_ticks)
pg_ticks_before=$(postgres_ticks)
commit_ns=$(date +%s%N)
psql_ -c "SELECT count(*) FROM queue_events((SELECT array_agg(ROW('$user', 'watch.changed', jsonb_build_object('n', n, 'phase', 'burst', 'text', repeat('x', 200)), NULL, NULL)::outbox_event) FROM generate_series(1, $events) AS n))" >/dev/null
committed_ns=$(date +%s%N)
wait_for "$total"
done_ns=$(date +%s%N)
ticks_after=$(cpu_ticks)
pg_ticks_after=$(postgres_ticks)
hz=$(getconf CLK_TCK)
rss=$(awk '/VmHWM/ {print $2 " " $3}' "/proc/$tidings_pid/status")
burst_end_us=$(( done_ns / 1000 ))
if [ -n "${BENCH_PG_STATEMENTS:-}" ]; then
    bench_top_statements psql_ "$data/statements-burst.txt"
    echo "== PostgreSQL statements in the burst (pg_stat_statements, most time first):"
    cat "$data/statements-burst.txt"
fi

# --- 2. Steady rate -----------------------------------------------------------
cat >"$data/event.sql" <<SQL
SELECT count(*) FROM queue_events(ARRAY[ROW('$user', 'watch.changed', jsonb_build_object('phase', 'steady', 'text', repeat('x', 200)), NULL, NULL)::outbox_event]);
SQL
chmod 644 "$data/event.sql"
as_owner "$bindir/pgbench" -h "$socket" -U tidings -n -c 4 -j 2 -R "$rate" -T "$seconds" -f "$data/event.sql" tidings \
    >"$data/pgbench.log" 2>&1
steady_events=$(psql_ -c "SELECT count(*) FROM events WHERE data->>'phase' = 'steady'")
wait_for $((total + steady_events * webhooks))

psql_ -c "COPY (SELECT id, (extract(epoch FROM created_at) * 1000000)::bigint, data->>'phase' FROM events) TO STDOUT" >"$data/events.txt"
kill -TERM "$receiver_pid"
wait "$receiver_pid" || true

python3 - "$data/events.txt" "$data/arrivals.txt" "$commit_ns" "$committed_ns" "$done_ns" \
    "$((ticks_after - ticks_before))" "$hz" "$rss" "$total" "$rate" "$steady_events" "$((pg_ticks_after - pg_ticks_before))" <<'PY'
import sys
events_file, arrivals_file = sys.argv[1], sys.argv[2]
commit_ns, committed_ns, done_ns = map(int, sys.argv[3:6])
ticks, hz, rss, total, rate, steady = int(sys.argv[6]), int(sys.argv[7]), sys.argv[8], int(sys.argv[9]), sys.argv[10], int(sys.argv[11])
postgres_cpu = int(sys.argv[12]) / hz
created, phase = {}, {}
for line in open(events_file):
    event_id, micros, kind = line.split()
    created[event_id], phase[event_id] = int(micros), kind
latency = {"burst": [], "steady": []}
first = {}
last_burst = 0
for line in open(arrivals_file):
    event_id, micros, path = line.split()
    key = (event_id, path)
    if key in first or event_id not in created:
        continue
    first[key] = int(micros)
    latency[phase[event_id]].append((int(micros) - created[event_id]) / 1000)
    if phase[event_id] == "burst":
        last_burst = max(last_burst, int(micros))
def pct(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(len(values) * p))] if values else float("nan")
elapsed = last_burst / 1e6 - committed_ns / 1e9
cpu = ticks / hz
print(f"\n== burst: {total} deliveries expected")
print(f"   unique deliveries received: {sum(1 for e, _ in first if phase[e] == 'burst')}")
print(f"   commit (one transaction) took {(committed_ns - commit_ns) / 1e9:.2f} s")
print(f"   commit -> last receipt: {elapsed:.2f} s = {total / elapsed:,.0f} deliveries/s")
print(f"   tidings CPU: {cpu:.1f} s = {cpu / elapsed:.2f} cores, {cpu / total * 1e6:.0f} us per delivery; peak RSS {rss}")
print(f"   PostgreSQL CPU (postmaster and backends still connected at the end, so not the enqueueing psql): {postgres_cpu:.1f} s = {postgres_cpu / elapsed:.2f} cores; machine load average {open('/proc/loadavg').read().split()[0]}")
print(f"   commit-to-receipt p50 {pct(latency['burst'], .5):,.0f} ms, p99 {pct(latency['burst'], .99):,.0f} ms (queueing behind the burst)")
print(f"\n== steady: {steady} events at {rate}/s x webhooks = {len(latency['steady'])} deliveries")
print(f"   commit-to-receipt p50 {pct(latency['steady'], .5):.1f} ms, p90 {pct(latency['steady'], .9):.1f} ms, p99 {pct(latency['steady'], .99):.1f} ms, max {max(latency['steady'] or [0]):.1f} ms")
PY
