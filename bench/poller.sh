#!/usr/bin/env bash
# Poller benchmark. nginx (Debian's nginx-light, one worker, ETags on static
# files, keep-alive) serves 10,000 small pages on 127.0.0.1; Tidings (release
# build, its own throwaway PostgreSQL cluster) watches each page once. Every
# round makes all targets due at once and measures until every one has been
# checked:
#   round 1  baseline (full 200 fetches, one record_changes transaction each)
#   rounds   all-304 (conditional GETs, batched writes)
#   rounds   5% of the pages changed before the round
# printing checks/s, Tidings' CPU (cores busy), PostgreSQL's CPU, RSS, bytes
# received per check and the time from a change being due to its
# watch.changed event row. Then 90,000 more watches (100,000 in all) are
# added and one round is run for the RSS at that size.
# A single origin is one host: TIDINGS_HOST_CONCURRENCY is raised to the
# poll concurrency for the benchmark.
# With BENCH_CD=1, bench/changedetection.sh runs at the end (BENCH_CD_WATCHES,
# default 1000, and its own variables) and prints the ratio to the best
# all-304 round.
# Usage: bench/poller.sh   (BENCH_WATCHES, BENCH_LARGE, BENCH_CONCURRENCY, BENCH_304_ROUNDS, BENCH_CD)
set -euo pipefail
cd "$(dirname "$0")/.."

watches=${BENCH_WATCHES:-10000}
large=${BENCH_LARGE:-100000}
concurrency=${BENCH_CONCURRENCY:-256}
origin_port=${BENCH_ORIGIN_PORT:-18090}
port=${BENCH_PORT:-18081}
. bench/lib.sh
admin_token=$(bench_admin_token)

command -v nginx >/dev/null || scripts/install-deps.sh nginx-light
bench_build
work=$(mktemp -d /tmp/tidings-poller-bench.XXXXXX)
chmod 755 "$work"
stop() {
    bench_stop_tidings
    bench_stop_origin "$work"
    scripts/test-postgres.sh stop "$work/pg" >/dev/null 2>&1 || true
    rm -rf "$work"
}
trap stop EXIT

bench_start_origin "$work" "$origin_port" "$watches"

# --- database and Tidings ----------------------------------------------------
database_url=$(scripts/test-postgres.sh start "$work/pg")
bench_start_tidings "$port" "$work/tidings" TIDINGS_DATABASE_URL="$database_url" TIDINGS_ADMIN_TOKEN="$admin_token" \
    TIDINGS_SECRET_KEY="$(openssl rand -hex 32)" \
    TIDINGS_ALLOW_PRIVATE_TARGETS=true TIDINGS_LOG_LEVEL=warning \
    TIDINGS_POLL_CONCURRENCY="$concurrency" TIDINGS_HOST_CONCURRENCY="$concurrency" \
    TIDINGS_DATABASE_POOL_SIZE=8
pid=$tidings_pid

sql() { psql "$database_url" -XAtq -c "$1"; }
user=$(curl -fs -X POST "$base/v1/users" -H "Authorization: Bearer $admin_token" \
    -H 'Content-Type: application/json' -d '{"name": "bench"}' | python3 -c "import json,sys; print(json.load(sys.stdin)['user']['id'])")
# SHA-256 of the empty header list (targets.headers_fingerprint before
# migration 0017; nothing here looks a target up by its identity).
empty_headers=e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855
# Targets are inserted sealed (secrets_sealed, migration 0017), as
# WatchStore writes them and as start-up leaves older rows: an unsealed row
# is also in targets_unsealed_idx, and every non-HOT update of it
# (the result write, the round-start UPDATE) would pay for that index
# entry, which a running service does not.

add_watches() { # from to: pages p(i mod watches), distinct URLs above the first $watches
    sql "WITH t AS (
           INSERT INTO targets (url, headers_fingerprint, secrets_sealed, next_check_at)
           SELECT 'http://127.0.0.1:$origin_port/p' || (i % $watches) || '.html' || CASE WHEN i >= $watches THEN '?w=' || i ELSE '' END,
                  '$empty_headers', true, now() + interval '1 day'
           FROM generate_series($1, $2 - 1) AS i
           RETURNING id)
         INSERT INTO watches (user_id, target_id, name, interval_seconds)
         SELECT '$user', id, 'bench', 3600 FROM t"
    # The sync trigger made them due; hold them until a round starts.
    sql "UPDATE targets SET next_check_at = now() + interval '1 day'"
}

cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
postgres_ticks() { # this cluster's postmaster and its children only (other clusters may run)
    local total=0 postmaster ticks
    postmaster=$(head -n 1 "$work/pg/data/postmaster.pid")
    for p in "$postmaster" $(pgrep -P "$postmaster"); do
        ticks=$(awk '{print $14 + $15}' "/proc/$p/stat" 2>/dev/null) || continue
        total=$((total + ${ticks:-0}))
    done
    echo "$total"
}
ticks=$(getconf CLK_TCK)

round() { # label count
    local label=$1 count=$2
    local bytes_before start t0 p0 now first done_count elapsed sustained
    bytes_before=$(sql "SELECT sum(bytes_received) FROM targets")
    t0=$(cpu_ticks "$pid"); p0=$(postgres_ticks)
    start=$(sql "SELECT extract(epoch FROM clock_timestamp())")
    sql "UPDATE targets SET next_check_at = now()"
    while :; do
        done_count=$(sql "SELECT count(*) FROM targets WHERE last_checked_at >= to_timestamp($start) AND lease_owner IS NULL")
        [ "$done_count" -ge "$count" ] && break
        sleep 0.2
    done
    now=$(sql "SELECT extract(epoch FROM max(last_checked_at)) FROM targets")
    first=$(sql "SELECT extract(epoch FROM min(last_checked_at)) FROM targets WHERE last_checked_at >= to_timestamp($start)")
    elapsed=$(python3 -c "print(max($now - $start, 0.001))")
    # Sustained: from the first check's start to the last's, leaving out the
    # round's start-up (committing the UPDATE that makes 10,000 targets due,
    # and the scheduler's idle poll, up to 200 ms, noticing them).
    sustained=$(python3 -c "print(max($now - $first, 0.001))")
    local t1 p1 bytes_after
    t1=$(cpu_ticks "$pid"); p1=$(postgres_ticks)
    bytes_after=$(sql "SELECT sum(bytes_received) FROM targets")
    sql "UPDATE targets SET next_check_at = now() + interval '1 day'"
    python3 - "$label" "$count" "$elapsed" "$sustained" "$((t1 - t0))" "$((p1 - p0))" "$ticks" "$bytes_before" "$bytes_after" \
        "$(grep -E '^VmRSS|^VmHWM' "/proc/$pid/status" | tr -s ' ' | tr '\n' ' ')" <<'PY' | tee -a "$work/rounds.log"
import sys
label, count, elapsed, sustained, cpu, pg, ticks, before, after, rss = sys.argv[1:]
count, elapsed, sustained = int(count), float(elapsed), float(sustained)
print(f"{label:<28} {count:>7} checks in {elapsed:6.2f} s = {count / elapsed:8.0f} checks/s "
      f"(sustained, first to last check: {count / sustained:6.0f}/s) | "
      f"tidings CPU {int(cpu) / int(ticks) / elapsed:4.2f} cores, postgres {int(pg) / int(ticks) / elapsed:4.2f} cores | "
      f"{(int(after) - int(before)) / count:6.0f} bytes/check | {rss}")
PY
    echo "$start" >"$work/round-start"
}

echo "machine: $(nproc) cores, $(uname -sr), $(swift --version 2>/dev/null | head -n 1)"
echo "origin: nginx $(nginx -v 2>&1 | sed 's/.*\///'), 1 worker, $watches pages of $(stat -c %s "$work/www/p0.html") bytes"
echo "tidings: TIDINGS_POLL_CONCURRENCY=$concurrency TIDINGS_HOST_CONCURRENCY=$concurrency"
add_watches 0 "$watches"
round "round 1 (baseline, 200)" "$watches"
for r in $(seq 2 $((1 + ${BENCH_304_ROUNDS:-3}))); do round "round $r (all 304)" "$watches"; done

changed=$((watches / 20))
first_changed=$((2 + ${BENCH_304_ROUNDS:-3}))
for r in $first_changed $((first_changed + 1)); do
    python3 - "$work/www" "$changed" "$watches" "$r" <<'PY'
import random, sys
root, changed, count, r = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
for i in random.sample(range(count), changed):
    with open(f"{root}/p{i}.html", "a") as page:
        page.write(f"<p>changed in round {r}</p>\n")
PY
    round "round $r (5% changed)" "$watches"
    start=$(cat "$work/round-start")
    sql "SELECT 'change -> watch.changed event: ' || count(*) || ' events, p50 '
               || round((percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM created_at) - $start) * 1000)::numeric) || ' ms, p99 '
               || round((percentile_cont(0.99) WITHIN GROUP (ORDER BY extract(epoch FROM created_at) - $start) * 1000)::numeric) || ' ms, max '
               || round((max(extract(epoch FROM created_at) - $start) * 1000)::numeric) || ' ms (from the round start)'
         FROM events WHERE type = 'watch.changed' AND created_at >= to_timestamp($start)"
    # The engine's own share: from the start of the check that saw the
    # change (the target's last_checked_at) to the event row.
    sql "SELECT 'check start -> watch.changed event: p50 '
               || round((percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM e.created_at - t.last_checked_at)) * 1000)::numeric) || ' ms, p99 '
               || round((percentile_cont(0.99) WITHIN GROUP (ORDER BY extract(epoch FROM e.created_at - t.last_checked_at)) * 1000)::numeric) || ' ms'
         FROM events e JOIN watches w ON w.id = (e.data->>'watch_id')::uuid JOIN targets t ON t.id = w.target_id
         WHERE e.type = 'watch.changed' AND e.created_at >= to_timestamp($start)"
done

if [ "$large" -gt "$watches" ]; then
    # The new watches start where the first ones are (same page, same hash
    # and validators), so this round is all 304 too rather than 90,000
    # baselines: each page's state goes into a temporary table keyed by page
    # number, and the new targets and watches are inserted with it.
    sql "CREATE TEMP TABLE pages AS
           SELECT substring(t.url FROM '/p([0-9]+)[.]html\$')::int AS page, t.etag, t.last_modified,
                  t.last_body_size, w.content_hash
           FROM targets t JOIN watches w ON w.target_id = t.id;
         ALTER TABLE pages ADD PRIMARY KEY (page);
         WITH t AS (
           INSERT INTO targets (url, headers_fingerprint, secrets_sealed, next_check_at, etag, last_modified, last_body_size)
           SELECT 'http://127.0.0.1:$origin_port/p' || p.page || '.html?w=' || i, '$empty_headers', true,
                  now() + interval '1 day', p.etag, p.last_modified, p.last_body_size
           FROM generate_series($watches, $large - 1) AS i JOIN pages p ON p.page = i % $watches
           RETURNING id, url)
         INSERT INTO watches (user_id, target_id, name, interval_seconds, content_hash, state, last_checked_at)
         SELECT '$user', t.id, 'bench', 3600, p.content_hash, 'ok', now()
         FROM t JOIN pages p ON p.page = substring(t.url FROM '/p([0-9]+)[.]html')::int;
         UPDATE targets SET next_check_at = now() + interval '1 day';"
    round "large: all 304" "$large"
fi
echo "tidings peak RSS (VmHWM): $(grep VmHWM "/proc/$pid/status" | tr -s ' ' | cut -d' ' -f2-)"
if [ -n "${BENCH_CD:-}" ]; then
    # changedetection.io in the same run (Tidings idle meanwhile), against
    # its own nginx on the same kind of pages, compared with the best
    # all-304 round above (whole round, and sustained: its own rate is
    # counted over a window while it runs).
    best=$(sed -n 's/^round [0-9]* (all 304) .* = *\([0-9]*\) checks\/s.*/\1/p' "$work/rounds.log" | sort -n | tail -n 1)
    best_sustained=$(sed -n 's/^round [0-9]* (all 304) .*(sustained, first to last check: *\([0-9]*\)\/s).*/\1/p' "$work/rounds.log" | sort -n | tail -n 1)
    BENCH_WATCHES=${BENCH_CD_WATCHES:-1000} bench/changedetection.sh "$best" "$best_sustained"
fi
