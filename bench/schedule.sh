#!/usr/bin/env bash
# Adaptive schedules (issue 16, decision 0028): the issue's workload on a
# simulated clock, driven by the poller's real CheckSchedule. 1000 pages
# added together; 90 % never change, 10 % change every 300 s at random
# phases; interval 60 s, max_interval_seconds 3600 s against the same
# pages with max = interval (fixed). Prints checks of each and the
# detection delay of the changing pages, for the first day (from the moment
# the pages are added) and the second (steady state), and fails unless
# checks fall at least 5x with every change still seen within the interval.
# Needs no database and takes seconds (ScheduleSimulationTests).
#
# --live runs the same workload, scaled down, against a real Tidings (debug
# build unless BENCH_BINARY, its private PostgreSQL, TIDINGS_MIN_INTERVAL=1s)
# and a Python origin (bench/schedule-origin.py) on 127.0.0.1: 100 pages
# watched with max = interval (fixed) and the same 100 under other paths
# with max = 60 intervals (adaptive), side by side; 10 % of each change
# every 5 intervals. It counts the origin's requests per group and, for
# each change, the time until the first request that fetched it (the
# check that sees it; the poller looks for due targets every 200 ms).
# Usage: bench/schedule.sh [--live]   (--live: BENCH_LIVE_SECONDS, default
# 600; BENCH_LIVE_INTERVAL, default 1; BENCH_PORT, BENCH_ORIGIN_PORT)
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "${1:-}" != "--live" ]; then
    swift build --build-tests >/dev/null
    swift test --skip-build --filter ScheduleSimulationTests 2>&1 \
        | grep -E "schedule simulation|fixed:|adaptive:|checks fall|passed|failed"
    exit "${PIPESTATUS[0]}"
fi

seconds=${BENCH_LIVE_SECONDS:-600}
interval=${BENCH_LIVE_INTERVAL:-1}
maximum=$((interval * 60))
period=$((interval * 5))
pages=100
port=${BENCH_PORT:-18083}
origin_port=${BENCH_ORIGIN_PORT:-18093}
. bench/lib.sh
admin_token=$(bench_admin_token)
if [ -z "${BENCH_BINARY:-}" ]; then
    swift build --product tidings >/tmp/tidings-bench-build.log 2>&1 || { cat /tmp/tidings-bench-build.log >&2; exit 1; }
    BENCH_BINARY="$(swift build --show-bin-path)/tidings"
fi
bench_build
work=$(mktemp -d /tmp/tidings-schedule-bench.XXXXXX)
origin_pid=
stop() {
    bench_stop_tidings
    [ -n "$origin_pid" ] && kill "$origin_pid" 2>/dev/null || true
    rm -rf "$work"
}
trap stop EXIT

python3 bench/schedule-origin.py "$origin_port" "$period" "$work/requests.log" &
origin_pid=$!
bench_start_tidings "$port" "$work/tidings" TIDINGS_ADMIN_TOKEN="$admin_token" \
    TIDINGS_ALLOW_PRIVATE_TARGETS=true TIDINGS_LOG_LEVEL=warning \
    TIDINGS_MIN_INTERVAL=1s TIDINGS_HOST_CONCURRENCY=32 TIDINGS_MAX_WATCHES_PER_USER=1000
key=$(curl -fs -X POST "$base/v1/users" -H "Authorization: Bearer $admin_token" \
    -H 'Content-Type: application/json' -d '{"name": "bench"}' | json '["api_key"]')
changing=$((pages / 10))
for group in fixed adaptive; do
    limit=$interval
    [ "$group" = adaptive ] && limit=$maximum
    for i in $(seq 0 $((pages - 1))); do
        kind=s
        [ "$i" -lt "$changing" ] && kind=c
        curl -fs -o /dev/null -X POST "$base/v1/watches" -H "Authorization: Bearer $key" -H 'Content-Type: application/json' \
            -d "{\"url\": \"http://127.0.0.1:$origin_port/$group/$kind$i\", \"interval_seconds\": $interval, \"max_interval_seconds\": $limit}"
    done
done
echo "live: $pages pages per group ($changing change every $period s), interval $interval s, max $maximum s (adaptive), $seconds s" >&2
sleep "$seconds"
kill "$origin_pid" 2>/dev/null || true
origin_pid=

python3 - "$work/requests.log" <<'PY'
import collections, sys
lines = open(sys.argv[1]).read().splitlines()
period = float(lines[0].split()[-1])
phases, requests = {}, collections.defaultdict(list)
for line in lines[1:]:
    if line.startswith("# phase "):
        _, _, page, phase = line.split()
        phases[page] = float(phase)
        continue
    t, page, version = line.split()
    requests[page].append((float(t), int(version)))
for group in ("fixed", "adaptive"):
    pages = {p: r for p, r in requests.items() if p.startswith(f"/{group}/")}
    checks = sum(len(r) for r in pages.values())
    changing = sum(len(r) for p, r in pages.items() if "/c" in p)
    delays = []
    for page, seen in pages.items():
        if page not in phases:
            continue
        # Version v + 1 appears at phase + v * period: a request that sees a
        # newer version than the one before it saw the change that came
        # first after that one.
        for (_, before), (t, version) in zip(seen, seen[1:]):
            if version != before:
                delays.append(t - (phases[page] + before * period))
    longest = max(delays, default=0)
    mean = sum(delays) / len(delays) if delays else 0
    print(f"  {group:8} {checks:7d} requests ({changing} of changing pages), {len(delays)} changes seen, "
          f"delay mean {mean:.2f} s, longest {longest:.2f} s")
    if group == "fixed":
        fixed = checks
    else:
        print(f"  requests fall {fixed / checks:.2f}x")
PY
