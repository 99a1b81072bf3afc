#!/usr/bin/env bash
# REST API benchmark: builds release, starts Tidings with a private PostgreSQL
# in a temporary data folder, creates a user and one watch, then measures
# with wrk at 64 connections
#   GET  /v1/watches/{id}   (API key check + one watch read)
#   POST /v1/devices        (API key check + device upsert: the same token
#                            re-registered, so every request is an UPDATE;
#                            then 10,000 tokens at random: inserts, then
#                            updates of different rows)
# Usage: bench/api.sh [duration, default 15s].
set -euo pipefail
cd "$(dirname "$0")/.."

duration=${1:-15s}
connections=${BENCH_CONNECTIONS:-64}
threads=${BENCH_THREADS:-2}
port=${BENCH_PORT:-18080}
. bench/lib.sh
admin_token=$(bench_admin_token)
bench_build
data=$(mktemp -d /tmp/tidings-bench.XXXXXX)
stop() {
    bench_stop_tidings
    rm -rf "$data"
}
trap stop EXIT
# One user registers 10,000 devices below, past the default per-user limit
# of 100 (docs/LIMITS.md).
bench_start_tidings "$port" "$data" TIDINGS_ADMIN_TOKEN="$admin_token" TIDINGS_MAX_DEVICES_PER_USER=20000
key=$(curl -fs -X POST "$base/v1/users" -H "Authorization: Bearer $admin_token" \
    -H 'Content-Type: application/json' -d '{"name": "bench"}' | json '["api_key"]')
# A public address literal: passes the SSRF guard without DNS; never fetched here.
watch=$(curl -fs -X POST "$base/v1/watches" -H "Authorization: Bearer $key" \
    -H 'Content-Type: application/json' -d '{"url": "http://93.184.215.14/bench"}' | json '["id"]')

script="$data/register-device.lua"
cat >"$script" <<LUA
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Authorization"] = "Bearer $key"
wrk.body = '{"platform": "ios", "push_token": "bench-device-token", "name": "bench"}'
LUA

# The same registration from every connection repeats one row (the upsert's
# update path; identical registrations that meet in one batch are answered
# once). Many devices: each request one of 10,000 tokens, so batches carry
# different rows, first inserted and then updated.
many="$data/register-many-devices.lua"
cat >"$many" <<LUA
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Authorization"] = "Bearer $key"
request = function()
    return wrk.format(nil, nil, nil, string.format('{"platform": "android", "push_token": "bench-token-%d", "name": "bench"}', math.random(1, 10000)))
end
LUA

echo "machine: $(nproc) cores, $(uname -sr), $(swift --version 2>/dev/null | head -n 1)"
run() {
    local label=$1
    shift
    echo
    echo "== $label: wrk -t$threads -c$connections -d$duration --latency"
    wrk -t"$threads" -c"$connections" -d2s "$@" >/dev/null
    wrk -t"$threads" -c"$connections" -d"$duration" --latency "$@" \
        | grep -E "Requests/sec|Latency |  50%|  99%|Non-2xx|Socket errors"
}
run "GET /v1/watches/{id}" -H "Authorization: Bearer $key" "$base/v1/watches/$watch"
run "POST /v1/devices (upsert, one token)" -s "$script" "$base/v1/devices"
run "POST /v1/devices (upsert, 10,000 tokens)" -s "$many" "$base/v1/devices"
