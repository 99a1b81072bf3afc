#!/usr/bin/env bash
# Idle-streams benchmark: the HTTP server alone (bench/stream-server, the
# .suspending mode) serving GET /events as a stream that carries only a
# heartbeat, held open by bench/idle-streams.py. For each count, reports
# the server's threads, the RSS the streams add, and its CPU while they
# idle (heartbeats included).
# Usage: bench/streams.sh [counts, default "2000 10000"] [idle seconds, default 60]
# Environment: BENCH_STREAM_HEARTBEAT seconds (15), BENCH_STREAM_PORT (18090),
# BENCH_STREAM_MAX_HEADER_BYTES (the server's default, 8192; sizes libmicrohttpd's per-connection
# memory pool, most of a stream's RSS).
set -euo pipefail
cd "$(dirname "$0")/.."

counts=${1:-"2000 10000"}
idle=${2:-60}
port=${BENCH_STREAM_PORT:-18090}
export BENCH_STREAM_PORT=$port
# Two sockets per stream across the two processes; each needs its own.
ulimit -n "$(ulimit -Hn)"

TIDINGS_BENCH_STREAMS=1 swift build -c release --product TidingsStreamBench >/tmp/tidings-bench-streams-build.log 2>&1 \
    || { cat /tmp/tidings-bench-streams-build.log >&2; exit 1; }
binary="$(TIDINGS_BENCH_STREAMS=1 swift build -c release --show-bin-path)/TidingsStreamBench"
ticks=$(getconf CLK_TCK)

rss_kib() { awk '/^VmRSS/ { print $2 }' "/proc/$1/status"; }
threads() { awk '/^Threads/ { print $2 }' "/proc/$1/status"; }
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }

echo "machine: $(nproc) cores, $(uname -sr), $(swift --version 2>/dev/null | head -n 1)"
echo "heartbeat every ${BENCH_STREAM_HEARTBEAT:-15}s, idle window ${idle}s, maxHeaderBytes ${BENCH_STREAM_MAX_HEADER_BYTES:-8192}, ulimit -n $(ulimit -n)"
for count in $counts; do
    "$binary" >/tmp/tidings-bench-streams.log 2>&1 &
    server=$!
    trap 'kill $server 2>/dev/null || true' EXIT
    for _ in $(seq 1 100); do curl -fs "http://127.0.0.1:$port/healthz" >/dev/null 2>&1 && break; sleep 0.1; done
    sleep 1
    base_rss=$(rss_kib $server)
    base_threads=$(threads $server)
    fifo=$(mktemp -u)
    mkfifo "$fifo"
    python3 bench/idle-streams.py "$port" "$count" $((idle + 10)) >"$fifo" &
    client=$!
    exec 3<"$fifo"
    read -r line <&3
    [ "$line" = "open $count" ] || { echo "client: $line" >&2; exit 1; }
    sleep 5
    start_ticks=$(cpu_ticks $server)
    sleep "$idle"
    end_ticks=$(cpu_ticks $server)
    rss=$(rss_kib $server)
    echo
    echo "== $count streams"
    echo "threads: $base_threads before, $(threads $server) with the streams open"
    echo "RSS: $((base_rss / 1024)) MiB before, $((rss / 1024)) MiB open: +$(((rss - base_rss) / 1024)) MiB, $(((rss - base_rss) * 1024 / count)) bytes/stream"
    python3 -c "import sys; t=int(sys.argv[1]); print(f'idle CPU: {t / int(sys.argv[2]) / int(sys.argv[3]) * 100:.2f} % of one core over {sys.argv[3]} s')" \
        $((end_ticks - start_ticks)) "$ticks" "$idle"
    cat <&3
    exec 3<&-
    rm -f "$fifo"
    wait $client || true
    kill -TERM $server
    wait $server || true
done
