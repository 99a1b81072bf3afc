#!/usr/bin/env bash
# REST API benchmark: builds release, starts Tidings with a private PostgreSQL
# in a temporary data folder, creates a user and one watch, then measures
# with wrk at 64 connections
#   GET  /v1/watches/{id}   (API key check + one watch read)
#   POST /v1/devices        (API key check + device upsert: the same token
#                            re-registered, so every request is an UPDATE)
# Usage: bench/api.sh [duration, default 15s].
set -euo pipefail
cd "$(dirname "$0")/.."

duration=${1:-15s}
connections=${BENCH_CONNECTIONS:-64}
threads=${BENCH_THREADS:-2}
port=${BENCH_PORT:-18080}
admin_token="bench-admin-token-$(head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n')"

swift build -c release --product tidings >/tmp/tidings-bench-build.log 2>&1 \
    || { cat /tmp/tidings-bench-build.log >&2; exit 1; }
binary="$(swift build -c release --show-bin-path)/tidings"
data=$(mktemp -d /tmp/tidings-bench.XXXXXX)

TIDINGS_DATA_DIR="$data" TIDINGS_LISTEN="127.0.0.1:$port" TIDINGS_ADMIN_TOKEN="$admin_token" \
    "$binary" >"$data/tidings.log" 2>&1 &
pid=$!
stop() {
    kill -TERM "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
    rm -rf "$data"
}
trap stop EXIT

base="http://127.0.0.1:$port"
for _ in $(seq 1 150); do
    curl -fs "$base/readyz" >/dev/null 2>&1 && break
    sleep 0.2
done
curl -fs "$base/readyz" >/dev/null || { cat "$data/tidings.log" >&2; exit 1; }

json() { python3 -c "import json,sys; print(json.load(sys.stdin)$1)"; }
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
run "POST /v1/devices (upsert)" -s "$script" "$base/v1/devices"
