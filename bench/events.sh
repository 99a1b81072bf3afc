#!/usr/bin/env bash
# Event stream benchmark (issue 29): a release Tidings with its private
# PostgreSQL, BENCH_USERS users (1,000) each holding BENCH_STREAMS_PER_USER
# streams (10) of GET /v1/events, held by bench/event-streams.py (asyncio,
# one process). Reports, per run:
#   - the RSS the open streams add to Tidings, and its threads;
#   - Tidings' CPU while the streams idle for BENCH_IDLE seconds (60),
#     heartbeats included;
#   - under a steady BENCH_RATE events/s (200) for BENCH_LOAD seconds (60),
#     committed by one psql session through queue_events, the time from
#     each event's insert (its clock_timestamp, just before the autocommit)
#     to its arrival at every stream of its user: p50, p90, p99, max, and
#     whether every event reached every one of its user's streams.
# Usage: bench/events.sh [runs, default 1]
set -euo pipefail
cd "$(dirname "$0")/.."

runs=${1:-1}
users=${BENCH_USERS:-1000}
per_user=${BENCH_STREAMS_PER_USER:-10}
idle=${BENCH_IDLE:-60}
load=${BENCH_LOAD:-60}
rate=${BENCH_RATE:-200}
port=${BENCH_PORT:-18085}
streams=$((users * per_user))
# Two sockets per stream across the two processes.
ulimit -n "$(ulimit -Hn)"
. bench/lib.sh
admin_token=$(bench_admin_token)
bench_build
ticks=$(getconf CLK_TCK)
rss_kib() { awk '/^VmRSS/ { print $2 }' "/proc/$1/status"; }
threads() { awk '/^Threads/ { print $2 }' "/proc/$1/status"; }
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }

echo "machine: $(nproc) cores, $(uname -sr); $users users x $per_user streams, idle ${idle}s, ${rate} events/s for ${load}s"
for run in $(seq 1 "$runs"); do
    data=$(mktemp -d /tmp/tidings-bench-events.XXXXXX)
    trap 'bench_stop_tidings; rm -rf "$data"' EXIT
    # bench_start_tidings raises the per-client cap to this limit: every
    # stream comes from 127.0.0.1.
    TIDINGS_HTTP_CONNECTION_LIMIT=$((streams + 1000)) bench_start_tidings "$port" "$data" TIDINGS_ADMIN_TOKEN="$admin_token" \
        TIDINGS_HTTP_CONNECTION_LIMIT=$((streams + 1000)) TIDINGS_MAX_STREAMS=$((streams + 100)) \
        TIDINGS_MAX_STREAMS_PER_USER="$per_user" TIDINGS_LOG_LEVEL=warning
    keys=$data/keys.txt
    bench_create_users "$base" "$admin_token" "$users" "$keys"
    sleep 2
    base_rss=$(rss_kib "$tidings_pid")
    base_threads=$(threads "$tidings_pid")
    fifo=$data/client.fifo
    mkfifo "$fifo"
    python3 bench/event-streams.py "$base" "$keys" "$per_user" "$idle" "$load" "$rate" \
        "postgresql://tidings@/tidings?host=$data/run" >"$fifo" &
    client=$!
    exec 3<"$fifo"
    read -r line <&3
    [ "$line" = "open $streams" ] || { echo "client: $line" >&2; exit 1; }
    sleep 5
    open_rss=$(rss_kib "$tidings_pid")
    start_ticks=$(cpu_ticks "$tidings_pid")
    read -r line <&3
    [ "$line" = idle ] || { echo "client: $line" >&2; exit 1; }
    end_ticks=$(cpu_ticks "$tidings_pid")
    load_start=$(cpu_ticks "$tidings_pid")
    read -r result <&3
    load_end=$(cpu_ticks "$tidings_pid")
    exec 3<&-
    wait "$client" || true
    echo
    echo "== run $run: $streams streams"
    echo "threads: $base_threads before, $(threads "$tidings_pid") with the streams open"
    echo "RSS: $((base_rss / 1024)) MiB before, $((open_rss / 1024)) MiB open: +$(((open_rss - base_rss) / 1024)) MiB, $(((open_rss - base_rss) * 1024 / streams)) bytes/stream"
    python3 -c "import sys; t=int(sys.argv[1]); print(f'idle CPU: {t / int(sys.argv[2]) / int(sys.argv[3]) * 100:.2f} % of one core over {sys.argv[3]} s')" \
        $((end_ticks - start_ticks)) "$ticks" "$((idle - 5))"
    python3 -c "import sys; t=int(sys.argv[1]); print(f'CPU under load: {t / int(sys.argv[2]) / int(sys.argv[3]) * 100:.1f} % of one core')" \
        $((load_end - load_start)) "$ticks" "$((load + 5))"
    echo "${result#result }"
    bench_stop_tidings
    tidings_pid=
    rm -rf "$data"
    trap - EXIT
done
