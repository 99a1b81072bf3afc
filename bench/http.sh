#!/usr/bin/env bash
# HTTP benchmark: builds release, starts Tidings with a private PostgreSQL in
# a temporary data folder and measures with wrk at 64 connections
#   GET /healthz  (no I/O: the HTTP stack alone)
#   GET /readyz   (since decision 0044 answered from a reading at most a
#                 second old: one query per quarter second, not per request)
# Usage: bench/http.sh [duration, default 15s]. Figures go to stdout; copy
# them to docs/BENCHMARKS.md together with the machine description. "server
# CPU" is the Tidings process's user+system time over the run divided by
# the requests (its PostgreSQL not included); wrk shares the same cores.
set -euo pipefail
cd "$(dirname "$0")/.."

duration=${1:-15s}
connections=${BENCH_CONNECTIONS:-64}
threads=${BENCH_THREADS:-2}
port=${BENCH_PORT:-18080}

. bench/lib.sh
bench_build
data=$(mktemp -d /tmp/tidings-bench.XXXXXX)
stop() {
    bench_stop_tidings
    rm -rf "$data"
}
trap stop EXIT
bench_start_tidings "$port" "$data"

echo "machine: $(nproc) cores, $(uname -sr), $(swift --version 2>/dev/null | head -n 1)"
echo "server: TIDINGS_HTTP_THREADS=${TIDINGS_HTTP_THREADS:-default} TIDINGS_HTTP_HANDLER_THREADS=${TIDINGS_HTTP_HANDLER_THREADS:-default} TIDINGS_DATABASE_POOL_SIZE=${TIDINGS_DATABASE_POOL_SIZE:-8} log level ${TIDINGS_LOG_LEVEL:-info} (access log to a file)"
for path in /healthz /readyz; do
    echo
    echo "== GET $path: wrk -t$threads -c$connections -d$duration --latency"
    # Warm-up so connection set-up and first-use costs stay out of the figure.
    wrk -t"$threads" -c"$connections" -d2s "http://127.0.0.1:$port$path" >/dev/null
    before=$(awk '{ print $14 + $15 }' "/proc/$tidings_pid/stat")
    output=$(wrk -t"$threads" -c"$connections" -d"$duration" --latency "http://127.0.0.1:$port$path")
    after=$(awk '{ print $14 + $15 }' "/proc/$tidings_pid/stat")
    echo "$output" | grep -E "Requests/sec|Latency |  50%|  90%|  99%|Non-2xx|Socket errors"
    requests=$(echo "$output" | awk '/requests in/ { print $1 }')
    python3 -c "import sys; print(f'server CPU: {(int(sys.argv[1]) / int(sys.argv[2])) / int(sys.argv[3]) * 1e6:.1f} us/request')" \
        $((after - before)) "$(getconf CLK_TCK)" "$requests"
done
