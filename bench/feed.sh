#!/usr/bin/env bash
# Sync feed benchmark (GET /v1/changes, issue 29): builds release, starts
# Tidings with its private PostgreSQL (production settings: fsync on) in a
# temporary data folder, and seeds
#   BENCH_USERS users (default 10,000), each created through the API
#     (POST /v1/users, 8 keep-alive clients), so every key is one the
#     server issued and hashed itself;
#   BENCH_WATCHES_PER_USER watches each (default 5) on distinct targets,
#     written in SQL as bench/badges.sh does, each with a baseline hash
#     (POST /v1/watches took 4.4 s for 2,000 with 8 clients: 50,000 would
#     add some 110 s for rows the feed only joins);
#   BENCH_CHANGES_PER_USER changes each (default 100), written by the
#     production function record_changes() in rounds: every round changes
#     every watch once, 1,000 users (5,000 watches) per call, two psql
#     sessions on disjoint users. So each change also queues its
#     watch.changed event and the user's badge.updated, and takes its
#     position in the user's order among them (migration 0031), as the
#     poller's writes do; a user's last position is about 2.2 times its
#     changes. Each change has a 200-byte diff and a 400-byte snapshot.
# then VACUUM ANALYZE (what autovacuum would have done by then), and
# measures with wrk (BENCH_CONNECTIONS=64 connections, BENCH_THREADS=2
# threads, a random user's key on every request), BENCH_RUNS rounds
# (default 3), each round the scenarios back to back:
#   feed, random cursor   GET /v1/changes?after=P, P drawn uniformly in
#                         0..the user's newest position (a page of up to
#                         50 changes, 37.5 on average here)
#   feed, up to date      GET /v1/changes?after=newest (no changes: the
#                         app was already in sync)
#   feed, from the start  GET /v1/changes (a first sync: 50 changes)
#   badge (peer)          GET /v1/badge (key check + one row)
#   feed, random, N/s     the random cursor again, and the badge, with the
#   badge, N/s            connections pausing between requests so that
#                         together they offer BENCH_PACED_RATE requests a
#                         second (default 500): latency at a rate the
#                         cores can serve
# and prints requests/s, wrk's p50/p90/p99, the server's own count of
# requests over 10 ms (tidings_http_request_duration_seconds) and CPU
# per request of Tidings and of PostgreSQL, then the spread of each.
#
# Usage: bench/feed.sh [duration, default 15s].
#   BENCH_KEEP=DIR     use DIR as the data folder and keep it; a DIR seeded
#                      by an earlier run is not seeded again (A/B runs of
#                      two builds on the same data: its migrations apply
#                      at start)
#   BENCH_PG_STATEMENTS=1  PostgreSQL's statements by time, per scenario
#   BENCH_EXPLAIN=1    EXPLAIN (ANALYZE, BUFFERS) of the feed's statement
#                      for a few users and cursors, with custom and with
#                      generic plans, before the runs
set -euo pipefail
cd "$(dirname "$0")/.."

duration=${1:-15s}
connections=${BENCH_CONNECTIONS:-64}
threads=${BENCH_THREADS:-2}
port=${BENCH_PORT:-18085}
runs=${BENCH_RUNS:-3}
users=${BENCH_USERS:-10000}
watches_per_user=${BENCH_WATCHES_PER_USER:-5}
changes_per_user=${BENCH_CHANGES_PER_USER:-100}
rounds=$(( (changes_per_user + watches_per_user - 1) / watches_per_user ))
. bench/lib.sh
admin_token=$(bench_admin_token)
bench_build
if [ -n "${BENCH_KEEP:-}" ]; then
    data=$BENCH_KEEP
    mkdir -p "$data"
else
    data=$(mktemp -d /tmp/tidings-bench.XXXXXX)
fi
chmod 755 "$data"
stop() {
    bench_stop_tidings
    [ -n "${BENCH_KEEP:-}" ] || rm -rf "$data"
}
trap stop EXIT
# The seeded URLs are never fetched: the poller is off.
start_tidings() {
    bench_start_tidings "$port" "$data" TIDINGS_ADMIN_TOKEN="$admin_token" TIDINGS_LOG_LEVEL=warning \
        TIDINGS_POLL_CONCURRENCY=0
}
start_tidings
database="postgresql://tidings@/tidings?host=$data/run"
psql_() { psql "$database" -qAtX -v ON_ERROR_STOP=1 "$@"; }
if [ -n "${BENCH_PG_STATEMENTS:-}" ] \
    && [ "$(psql_ -c "SHOW shared_preload_libraries")" != pg_stat_statements ]; then
    # Read at server start: Tidings restarts its PostgreSQL with it.
    psql_ -c "ALTER SYSTEM SET shared_preload_libraries = 'pg_stat_statements'"
    bench_stop_tidings
    start_tidings
fi
bench_top_statements psql_ /dev/null
if [ -n "${BENCH_PG_STATEMENTS:-}" ]; then
    # Planning counted too: Tidings prepares each statement by name, and
    # whether the feed is planned per call (custom plans) shows here.
    psql_ -c "ALTER SYSTEM SET pg_stat_statements.track_planning = on" -c "SELECT pg_reload_conf()" >/dev/null
fi

echo "machine: $(nproc) cores, $(uname -sr), $(psql --version), $(swift --version 2>/dev/null | head -n 1)"
echo "load before seeding: $(cut -d' ' -f1-3 /proc/loadavg)"

# --- Seeding -----------------------------------------------------------------
keys="$data/bench-keys.txt"
if [ -s "$data/bench-seeded" ]; then
    echo "seeded already: $(cat "$data/bench-seeded")"
else
    rm -f "$keys"
    started=$(date +%s%N)
    # Users and keys through the API: "user_id key" lines.
    bench_create_users "$base" "$admin_token" "$users" "$keys"
    users_done=$(date +%s%N)
    echo "users and keys through the API: $users in $(( (users_done - started) / 1000000 )) ms"

    psql_ <<SQL
CREATE TABLE bench_users (n serial PRIMARY KEY, id uuid NOT NULL UNIQUE);
INSERT INTO bench_users (id) SELECT id FROM users WHERE name LIKE 'bench-%' ORDER BY id;
INSERT INTO targets (url, headers_fingerprint)
    SELECT 'https://93.184.215.14/page-' || n, repeat('0', 64) FROM generate_series(1, $users * $watches_per_user) n;
-- n numbers each user's watches consecutively: user u has n in
-- ((u - 1) * W + 1) .. u * W.
CREATE TABLE bench_watches (n serial PRIMARY KEY, id uuid NOT NULL);
WITH numbered_targets AS (SELECT id, row_number() OVER (ORDER BY url) AS t FROM targets WHERE url LIKE 'https://93.184.215.14/page-%'),
     created AS (
         INSERT INTO watches (user_id, target_id, name, interval_seconds, content_hash, snapshot)
         SELECT u.id, nt.id, 'Release notes ' || nt.t, 300, repeat('0', 64), 'baseline'
         FROM numbered_targets nt JOIN bench_users u ON u.n = (nt.t - 1) / $watches_per_user + 1
         ORDER BY u.n, nt.t
         RETURNING id, user_id
     )
INSERT INTO bench_watches (id)
    SELECT c.id FROM created c JOIN bench_users u ON u.id = c.user_id ORDER BY u.n, c.id;
ANALYZE;
SQL
    watches_done=$(date +%s%N)
    echo "watches in SQL: $((users * watches_per_user)) in $(( (watches_done - users_done) / 1000000 )) ms"

    # Every round changes every watch once: 1,000 users' watches per call,
    # two sessions on the two halves of the users (no lock between them).
    per_call=$((1000 * watches_per_user))
    all=$((users * watches_per_user))
    session() {
        local from=$1 to=$2 file="$data/seed-$1.sql"
        : >"$file"
        for round in $(seq 1 "$rounds"); do
            for ((a = from; a <= to; a += per_call)); do
                local b=$((a + per_call - 1)); ((b > to)) && b=$to
                cat >>"$file" <<SQL
SELECT count(*) FROM record_changes(
    ARRAY(SELECT id FROM bench_watches WHERE n BETWEEN $a AND $b ORDER BY n),
    ARRAY(SELECT md5(id::text || ' $round') || md5('$round ' || id::text) FROM bench_watches WHERE n BETWEEN $a AND $b ORDER BY n),
    ARRAY(SELECT repeat('Version $round.' || n || ' of the release notes, with the fixes and the known issues. ', 5) FROM bench_watches WHERE n BETWEEN $a AND $b ORDER BY n),
    array_fill(false, ARRAY[$b - $a + 1]),
    ARRAY(SELECT '@@ -1,2 +1,2 @@' || chr(10) || '-Version $((round - 1)).' || n || ' of the release notes' || chr(10)
                 || '+Version $round.' || n || ' of the release notes, with the fixes and the known issues listed below' || chr(10)
          FROM bench_watches WHERE n BETWEEN $a AND $b ORDER BY n),
    array_fill(200, ARRAY[$b - $a + 1]),
    array_fill(5120::bigint, ARRAY[$b - $a + 1]));
SQL
            done
        done
        psql_ -f "$file" >/dev/null
    }
    half=$(( (users / 2) * watches_per_user ))
    session 1 "$half" &
    first=$!
    session $((half + 1)) "$all" &
    second=$!
    wait "$first"
    wait "$second"
    changes_done=$(date +%s%N)
    recorded=$(psql_ -c "SELECT count(*) FROM changes")
    echo "changes through record_changes(): $recorded in $(( (changes_done - watches_done) / 1000000 )) ms" \
        "($(( recorded * 1000000000 / (changes_done - watches_done) )) changes/s)"
    psql_ -c "VACUUM ANALYZE" -c "CHECKPOINT"
    vacuumed=$(date +%s%N)
    echo "VACUUM ANALYZE and CHECKPOINT: $(( (vacuumed - changes_done) / 1000000 )) ms"
    echo "$users users, $watches_per_user watches and $recorded changes in $(( (vacuumed - started) / 1000000000 )) s" \
        >"$data/bench-seeded"
fi
psql_ <<'SQL'
SELECT 'changes: ' || count(*) || ', per user ' || min(n) || '-' || max(n)
    FROM (SELECT count(*) AS n FROM changes GROUP BY user_id) c;
SELECT 'newest positions: ' || min(last_position) || '-' || max(last_position) || ', trimmed through ' || max(trimmed_through)
    FROM badges b JOIN bench_users u ON u.id = b.user_id;
SELECT 'events: ' || count(*) FROM events;
SELECT 'sizes: changes ' || pg_size_pretty(pg_total_relation_size('changes'))
    || ', events ' || pg_size_pretty(pg_total_relation_size('events'))
    || ', database ' || pg_size_pretty(pg_database_size(current_database()));
SQL

# --- The wrk scripts ---------------------------------------------------------
# Every user's key and newest position, as a Lua table.
psql_ -F ' ' -c "SELECT u.id, b.last_position FROM bench_users u JOIN badges b ON b.user_id = u.id" >"$data/positions.txt"
python3 - "$keys" "$data/positions.txt" "$data/users.lua" <<'PY'
import sys
keys = dict(line.split() for line in open(sys.argv[1]))
positions = dict(line.split() for line in open(sys.argv[2]))
with open(sys.argv[3], "w") as out:
    out.write("users = {\n")
    for user, key in keys.items():
        out.write(f'  {{"Bearer {key}", {positions[user]}}},\n')
    out.write("}\n")
PY
# lua_script NAME PATH [MEAN_DELAY_MS]: a wrk script asking for PATH as a
# random user; with a mean delay, each connection waits an exponentially
# distributed time before each request (wrk's delay(), not counted in its
# latency), so the connections together offer a steady rate.
lua_script() {
    local name=$1 path=$2 mean_delay_ms=${3:-}
    {
        if [ -n "$mean_delay_ms" ]; then
            echo "function delay() return math.floor(-math.log(1 - math.random()) * $mean_delay_ms) end"
        fi
        cat "$data/users.lua"
    } >"$data/$name.lua"
    cat >>"$data/$name.lua" <<LUA
local counter = 0
function setup(thread)
    counter = counter + 1
    thread:set("seed", counter)
end
function init(args)
    math.randomseed(os.time() * 1000 + seed)
end
request = function()
    local user = users[math.random(#users)]
    local newest = user[2]
    return wrk.format("GET", $path, {["Authorization"] = user[1]})
end
LUA
    echo "$data/$name.lua"
}
random_script=$(lua_script random '"/v1/changes?after=" .. math.random(0, newest)')
current_script=$(lua_script current '"/v1/changes?after=" .. newest')
start_script=$(lua_script start '"/v1/changes"')
badge_script=$(lua_script badge '"/v1/badge"')
# The same as open-ish load: BENCH_PACED_RATE requests a second offered
# (default 500) by the same connections, each pausing between requests.
# Latency at a rate the two cores can serve, without the queue that 64
# connections asking back to back build whatever the code does.
paced_rate=${BENCH_PACED_RATE:-500}
paced_delay_ms=$((connections * 1000 / paced_rate))
paced_random_script=$(lua_script paced-random '"/v1/changes?after=" .. math.random(0, newest)' "$paced_delay_ms")
paced_badge_script=$(lua_script paced-badge '"/v1/badge"' "$paced_delay_ms")

# One look at what the scenarios answer.
read -r sample_user sample_key < <(head -n 1 "$keys")
sample_newest=$(psql_ -c "SELECT last_position FROM badges WHERE user_id = '$sample_user'")
for query in "?after=$((sample_newest / 2))" "?after=$sample_newest" ""; do
    curl -fs "$base/v1/changes$query" -H "Authorization: Bearer $sample_key" \
        | python3 -c "import json, sys; b = json.load(sys.stdin); print(f'  GET /v1/changes$query of a user whose newest position is $sample_newest: {len(b[\"data\"])} changes, next_cursor {b[\"next_cursor\"]}, badge {b[\"badge\"][\"count\"]}')"
done
curl -fs -o /dev/null -w "  one page of 50: %{size_download} bytes\n" "$base/v1/changes" -H "Authorization: Bearer $sample_key"

if [ -n "${BENCH_EXPLAIN:-}" ]; then
    # The feed's statement as ChangeStore.feed sends it for a request
    # without watch_id or unread, prepared (Tidings prepares every
    # statement by name on each connection, so after five executions
    # PostgreSQL may switch to a generic plan): once with a plan for the
    # values (custom) and once with the generic plan.
    for mode in force_custom_plan force_generic_plan; do
        for share in 0 50 100; do
            echo
            echo "== EXPLAIN (ANALYZE, BUFFERS) with plan_cache_mode=$mode, a user's feed after ${share} % of its order"
            psql_ <<SQL
SELECT u.id AS explain_user, b.last_position * $share / 100 AS explain_after
FROM bench_users u JOIN badges b ON b.user_id = u.id WHERE u.n = 1 + (hashtext('$share') & 4095) % $users \gset
PREPARE feed(uuid, bigint, bigint, uuid) AS
SELECT b.count, b.sequence, b.updated_at, b.last_position, b.trimmed_through,
       (\$1::uuid IS NULL
        OR EXISTS (SELECT 1 FROM watches o WHERE o.id = \$1 AND o.user_id = b.user_id)) AS watch_found,
       c.id, c.watch_id, c.user_position, c.detected_at, c.previous_hash, c.new_hash, c.http_status,
       c.content_length, c.diff, c.snapshot_truncated, c.read_at, c.name, c.url
FROM badges b
LEFT JOIN LATERAL (
    SELECT c.id, c.watch_id, c.user_position, c.detected_at, c.previous_hash, c.new_hash, c.http_status,
           c.content_length, c.diff, c.snapshot_truncated, c.read_at, w.name, t.url
    FROM changes c
    JOIN watches w ON w.id = c.watch_id
    JOIN targets t ON t.id = w.target_id
    WHERE c.user_id = b.user_id AND c.user_position > \$2
    ORDER BY c.user_position
    LIMIT \$3
) c ON true
WHERE b.user_id = \$4
ORDER BY c.user_position;
SET plan_cache_mode = $mode;
EXPLAIN (ANALYZE, BUFFERS) EXECUTE feed(NULL, :explain_after, 51, :'explain_user');
SQL
        done
    done
fi

# --- Measurements ------------------------------------------------------------
cpu_ticks() { awk '{print $14 + $15}' "/proc/$tidings_pid/stat"; }
postgres_ticks() {
    local total=0 postmaster
    postmaster=$(head -n 1 "$data/postgres/postmaster.pid" 2>/dev/null || true)
    [ -n "$postmaster" ] || { echo 0; return; }
    for child in $postmaster $(cat "/proc/$postmaster/task/$postmaster/children" 2>/dev/null); do
        total=$((total + $(awk '{print $14 + $15}' "/proc/$child/stat" 2>/dev/null || echo 0)))
    done
    echo "$total"
}
hz=$(getconf CLK_TCK)
figures="$data/figures.txt"
: >"$figures"
# measure NAME LABEL SCRIPT: one wrk run; appends NAME_rps, NAME_p50_ms,
# NAME_p90_ms, NAME_p99_ms, NAME_over10ms_pct (the server's histogram),
# NAME_tidings_us and NAME_postgres_us (CPU per request) to $figures.
measure() {
    local name=$1 label=$2 script=$3 route=$4
    wrk -t"$threads" -c"$connections" -d2s -s "$script" "$base" >/dev/null
    curl -fs "$base/metrics" >"$data/metrics-before.txt"
    local tidings_before postgres_before
    tidings_before=$(cpu_ticks)
    postgres_before=$(postgres_ticks)
    wrk -t"$threads" -c"$connections" -d"$duration" --latency -s "$script" "$base" >"$data/wrk.txt"
    local tidings_after postgres_after
    tidings_after=$(cpu_ticks)
    postgres_after=$(postgres_ticks)
    curl -fs "$base/metrics" >"$data/metrics-after.txt"
    python3 - "$name" "$label" "$route" "$data/wrk.txt" "$data/metrics-before.txt" "$data/metrics-after.txt" \
        $((tidings_after - tidings_before)) $((postgres_after - postgres_before)) "$hz" >>"$figures" <<'PY'
import re, sys
name, label, route, wrk, before, after = sys.argv[1:7]
tidings_ticks, postgres_ticks, hz = int(sys.argv[7]), int(sys.argv[8]), int(sys.argv[9])
text = open(wrk).read()
def ms(value):
    number, unit = re.fullmatch(r"([\d.]+)(us|ms|s|m)", value).groups()
    return float(number) * {"us": 0.001, "ms": 1, "s": 1000, "m": 60000}[unit]
latency = {p: ms(re.search(rf"^\s+{p}%\s+(\S+)", text, re.M).group(1)) for p in (50, 90, 99)}
rps = float(re.search(r"Requests/sec:\s+([\d.]+)", text).group(1))
total = int(re.search(r"(\d+) requests in", text).group(1))
errors = re.findall(r"(Non-2xx or 3xx responses: \d+|Socket errors: .*)", text)
def buckets(path):
    found = {}
    for line in open(path):
        m = re.match(r'tidings_http_request_duration_seconds_bucket\{(.*)\} (\d+)', line)
        if m and f'route="{route}"' in m.group(1) and 'method="GET"' in m.group(1):
            le = re.search(r'le="([^"]+)"', m.group(1)).group(1)
            found[le] = found.get(le, 0) + int(m.group(2))
    return found
b, a = buckets(before), buckets(after)
served = a.get("+Inf", 0) - b.get("+Inf", 0)
within = a.get("0.01", 0) - b.get("0.01", 0)
over10 = 100 * (served - within) / served if served else float("nan")
tidings_us = tidings_ticks / hz * 1e6 / total
postgres_us = postgres_ticks / hz * 1e6 / total
print(f"{name}_rps {rps}")
for p, v in latency.items():
    print(f"{name}_p{p}_ms {v}")
print(f"{name}_over10ms_pct {over10:.3f}")
print(f"{name}_tidings_us {tidings_us:.0f}")
print(f"{name}_postgres_us {postgres_us:.0f}")
print(f"  {label:<28} {rps:>8,.0f} req/s   p50 {latency[50]:6.2f}  p90 {latency[90]:6.2f}  p99 {latency[99]:6.2f} ms"
      f"   server: {over10:5.2f} % over 10 ms   CPU/request: Tidings {tidings_us:.0f} us, PostgreSQL {postgres_us:.0f} us"
      + ("   " + "; ".join(errors) if errors else ""), file=sys.stderr)
PY
    if [ -n "${BENCH_PG_STATEMENTS:-}" ]; then
        psql_ -c "SELECT '    the feed statement: ' || sum(calls) || ' calls, ' || sum(plans) || ' planned, mean planning '
                || round((sum(total_plan_time) / greatest(sum(plans), 1))::numeric * 1000) || ' us, mean execution '
                || round((sum(total_exec_time) / greatest(sum(calls), 1))::numeric * 1000) || ' us, rows per call '
                || round(sum(rows)::numeric / greatest(sum(calls), 1), 1)
            FROM pg_stat_statements WHERE query LIKE '%LEFT JOIN LATERAL%' AND query LIKE '%FROM changes c%' AND query NOT LIKE '%EXPLAIN%'"
        bench_top_statements psql_ "$data/statements-$name.txt"
        echo "    PostgreSQL statements in '$label' (most time first):"
        head -n 6 "$data/statements-$name.txt" | sed 's/^/      /'
    fi
}

# Every key once into the credential cache (60 s lifetime), so that the
# first scenario does not pay for the cold cache alone.
wrk -t"$threads" -c"$connections" -d5s -s "$badge_script" "$base" >/dev/null
echo
echo "wrk -t$threads -c$connections -d$duration --latency, a random user of $users on every request; $runs rounds"
for run in $(seq 1 "$runs"); do
    echo "== round $run ($(date +%H:%M:%S), load $(cut -d' ' -f1-3 /proc/loadavg))"
    measure random "feed, random cursor" "$random_script" /v1/changes
    measure current "feed, up to date" "$current_script" /v1/changes
    measure start "feed, from the start" "$start_script" /v1/changes
    measure badge "badge (peer)" "$badge_script" /v1/badge
    measure paced_random "feed, random, ${paced_rate}/s" "$paced_random_script" /v1/changes
    measure paced_badge "badge, ${paced_rate}/s" "$paced_badge_script" /v1/badge
done 2>&1
echo
echo "== spread over $runs rounds"
bench_summary "$figures"
python3 - "$figures" <<'PY'
import statistics, sys
figures = {}
for line in open(sys.argv[1]):
    name, value = line.split()
    figures.setdefault(name, []).append(float(value))
for scenario in ("random", "current", "start"):
    ratios = [b / s for s, b in zip(figures[f"{scenario}_rps"], figures["badge_rps"])]
    print(f"  badge req/s over {scenario} req/s, per round: " + " / ".join(f"{r:.2f}" for r in ratios))
PY
