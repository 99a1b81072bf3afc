#!/usr/bin/env bash
# Import speed: one user imports N watches (default 10,000) in one
# POST /v1/imports, as an OPML file of N feeds and as Tidings' own export
# of them, each into a fresh user; then the same file again (all existing).
# Starts a release Tidings with a private PostgreSQL in a temporary folder.
# Usage: bench/imports.sh [watches, default 10000] [runs, default 3].
set -euo pipefail
cd "$(dirname "$0")/.."

watches=${1:-10000}
runs=${2:-3}
port=${BENCH_PORT:-18083}
. bench/lib.sh
admin_token=$(bench_admin_token)
bench_build
data=$(mktemp -d /tmp/tidings-bench.XXXXXX)
stop() {
    bench_stop_tidings
    rm -rf "$data"
}
trap stop EXIT
bench_start_tidings "$port" "$data" TIDINGS_ADMIN_TOKEN="$admin_token" \
    TIDINGS_MAX_WATCHES_PER_USER=$((watches * 2)) TIDINGS_MAX_BODY_SIZE=$((8 << 20))

opml="$data/feeds.opml"
{
    echo '<?xml version="1.0"?><opml version="2.0"><head><title>bench</title></head><body>'
    # Public address literals: pass the SSRF guard without DNS; never fetched
    # (the import takes the user's one check, the rest wait an interval).
    for i in $(seq 1 "$watches"); do
        echo "<outline text=\"Feed $i\" type=\"rss\" xmlUrl=\"http://93.184.215.14/feeds/$i.xml\"/>"
    done
    echo '</body></opml>'
} >"$opml"

new_user() {
    curl -fs -X POST "$base/v1/users" -H "Authorization: Bearer $admin_token" \
        -H 'Content-Type: application/json' -d "{\"name\": \"bench-$1\"}" | json '["api_key"]'
}
# Seconds for one import; checks the answer's counts.
import() {
    local key=$1 file=$2 created=$3 existing=$4 out=$data/answer.json
    local started ended
    started=$(date +%s.%N)
    curl -fs -o "$out" -X POST "$base/v1/imports" -H "Authorization: Bearer $key" \
        -H 'Content-Type: application/octet-stream' --data-binary "@$file"
    ended=$(date +%s.%N)
    python3 - "$out" "$created" "$existing" <<'PY'
import json, sys
answer = json.load(open(sys.argv[1]))
assert len(answer["created"]) == int(sys.argv[2]), (len(answer["created"]), answer["rejected"][:3])
assert answer["existing"] == int(sys.argv[3]), answer["existing"]
PY
    echo "$ended - $started" | bc
}

echo "machine: $(nproc) cores, $(uname -sr), $(swift --version 2>/dev/null | head -n 1)"
echo "file: $watches OPML feeds, $(wc -c <"$opml") bytes"
for run in $(seq 1 "$runs"); do
    key=$(new_user "opml-$run")
    first=$(import "$key" "$opml" "$watches" 0)
    again=$(import "$key" "$opml" 0 "$watches")
    curl -fs -o "$data/export.json" "$base/v1/watches/export" -H "Authorization: Bearer $key"
    other=$(new_user "export-$run")
    exported=$(import "$other" "$data/export.json" "$watches" 0)
    echo "run $run: OPML import ${first}s, same file again ${again}s, export ($(wc -c <"$data/export.json") bytes) into a new user ${exported}s"
done
