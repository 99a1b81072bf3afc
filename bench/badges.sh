#!/usr/bin/env bash
# Unread-count benchmark: builds release, starts Tidings with its private
# PostgreSQL (production settings: fsync on) in a temporary data folder,
# seeds 1,000 users with 10 watches each (each watch with a baseline hash
# and each user with one webhook subscribed to watch.changed and
# badge.updated), then measures
#   changes/s  pgbench clients calling record_changes() (the poller's write:
#              change row, watch and user counts, watch.changed event and
#              its delivery, badge.updated with supersede), on random watches,
#              one per transaction, then with batches of each size in
#              BENCH_BATCHES (default "10 50")
#   GET /v1/badge with wrk at 64 connections (API key check + badge read)
# Usage: bench/badges.sh [duration, default 15s].
set -euo pipefail
cd "$(dirname "$0")/.."

duration=${1:-15s}
seconds=${duration%s}
connections=${BENCH_CONNECTIONS:-64}
threads=${BENCH_THREADS:-2}
writers=${BENCH_WRITERS:-8}
port=${BENCH_PORT:-18083}
users=${BENCH_USERS:-1000}
watches_per_user=${BENCH_WATCHES_PER_USER:-10}
. bench/lib.sh
admin_token=$(bench_admin_token)
bench_build
data=$(mktemp -d /tmp/tidings-bench.XXXXXX)
chmod 755 "$data"
stop() {
    bench_stop_tidings
    rm -rf "$data"
}
trap stop EXIT
# The seeded URLs are never fetched: the poller is off (TIDINGS_POLL_CONCURRENCY=0).
bench_start_tidings "$port" "$data" TIDINGS_ADMIN_TOKEN="$admin_token" TIDINGS_LOG_LEVEL=warning TIDINGS_POLL_CONCURRENCY=0
database="postgresql://tidings@/tidings?host=$data/run"

echo "seeding $users users x $watches_per_user watches ..."
psql "$database" -q -v ON_ERROR_STOP=1 <<SQL
INSERT INTO users (name) SELECT 'bench-' || n FROM generate_series(1, $users) n;
INSERT INTO targets (url, headers_fingerprint)
    SELECT 'https://93.184.215.14/page-' || n, repeat('0', 64) FROM generate_series(1, $users * $watches_per_user) n;
CREATE TABLE bench_watches (n serial PRIMARY KEY, id uuid NOT NULL);
WITH numbered_users AS (SELECT id, row_number() OVER (ORDER BY id) AS u FROM users WHERE name LIKE 'bench-%'),
     numbered_targets AS (SELECT id, row_number() OVER (ORDER BY id) AS t FROM targets),
     created AS (
         INSERT INTO watches (user_id, target_id, name, interval_seconds, content_hash, snapshot)
         SELECT nu.id, nt.id, 'page ' || nt.t, 300, repeat('0', 64), 'baseline'
         FROM numbered_targets nt JOIN numbered_users nu ON nu.u = (nt.t - 1) / $watches_per_user + 1
         RETURNING id
     )
INSERT INTO bench_watches (id) SELECT id FROM created;
INSERT INTO webhooks (user_id, url, event_types, secret)
    SELECT id, 'https://93.184.215.14/hook', ARRAY['watch.changed', 'badge.updated'], 'whsec_' || md5(id::text)
    FROM users WHERE name LIKE 'bench-%';
ANALYZE;
SQL

single="$data/record-change.sql"
cat >"$single" <<SQL
\set n random(1, $((users * watches_per_user)))
SELECT count(*) FROM record_changes(
    (SELECT array_agg(id) FROM bench_watches WHERE n = :n), ARRAY[md5(random()::text) || md5(random()::text)],
    ARRAY['changed text'], ARRAY[false], ARRAY['-baseline
+changed text'], ARRAY[200], ARRAY[12::bigint]);
SQL
# BATCH random watches (of as many different users, mostly) per call, as
# the poller writes what one round of checks found (its writers take up to
# 500 results per transaction; a busy round gives them tens to hundreds).
batch_script() {
    local size=$1 script="$data/record-changes-$1.sql"
    cat >"$script" <<SQL
\set n random(1, $((users * watches_per_user)))
SELECT count(*) FROM record_changes(
    (SELECT array_agg(id) FROM bench_watches WHERE n IN (SELECT (:n + k * 997) % $((users * watches_per_user)) + 1 FROM generate_series(0, $((size - 1))) k)),
    (SELECT array_agg(md5(random()::text) || md5(random()::text)) FROM generate_series(1, $size)),
    array_fill('changed text'::text, ARRAY[$size]), array_fill(false, ARRAY[$size]),
    array_fill('-baseline
+changed text'::text, ARRAY[$size]), array_fill(200, ARRAY[$size]), array_fill(12::bigint, ARRAY[$size]));
SQL
    echo "$script"
}

echo "machine: $(nproc) cores, $(uname -sr), $(psql --version), $(swift --version 2>/dev/null | head -n 1)"
measure() {
    local label=$1 script=$2
    echo
    echo "== $label: pgbench -c $writers -j 2 -T $seconds"
    local before after
    before=$(psql "$database" -Atc "SELECT count(*) FROM changes")
    # With the session settings Tidings' own connections use (DatabaseRuntime).
    PGOPTIONS="-c jit=off" pgbench -n -c "$writers" -j 2 -T "$seconds" -f "$script" "$database" 2>&1 \
        | grep -E "number of transactions actually processed|latency average|tps ="
    after=$(psql "$database" -Atc "SELECT count(*) FROM changes")
    echo "changes recorded: $((after - before)), changes/s: $(( (after - before) / seconds ))"
}
# The write path alone: Tidings is paused (SIGSTOP; its PostgreSQL runs on)
# so that its dispatcher does not deliver the queued events meanwhile.
kill -STOP "$tidings_pid"
measure "record_changes(), one watch per transaction" "$single"
for size in ${BENCH_BATCHES:-10 50}; do
    measure "record_changes(), $size watches per transaction" "$(batch_script "$size")"
done
kill -CONT "$tidings_pid"
psql "$database" -At <<SQL
SELECT 'events queued: ' || count(*) FROM events;
SELECT 'deliveries pending: ' || count(*) FROM deliveries WHERE status = 'pending';
SELECT 'badges consistent with watches: ' || bool_and(b.count = (SELECT coalesce(sum(unread_count), 0) FROM watches w WHERE w.user_id = b.user_id)) FROM badges b;
SQL

# The reads alone: the bench's webhooks are disabled, so the dispatcher
# leaves the queued deliveries alone while wrk runs.
psql "$database" -q -c "UPDATE webhooks SET disabled_at = now(), disabled_reason = 'benchmark over'"
key=$(curl -fs -X POST "$base/v1/users" -H "Authorization: Bearer $admin_token" \
    -H 'Content-Type: application/json' -d '{"name": "bench-reader"}' | json '["api_key"]')
echo
echo "== GET /v1/badge: wrk -t$threads -c$connections -d$duration --latency"
wrk -t"$threads" -c"$connections" -d2s -H "Authorization: Bearer $key" "$base/v1/badge" >/dev/null
wrk -t"$threads" -c"$connections" -d"$duration" --latency -H "Authorization: Bearer $key" "$base/v1/badge" \
    | grep -E "Requests/sec|Latency |  50%|  99%|Non-2xx|Socket errors"
