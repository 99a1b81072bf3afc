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
# poll concurrency for the benchmark. Every watch is one user's, so
# TIDINGS_USER_POLL_CONCURRENCY is raised to it too: the engine's pace is
# measured, not one tenant's share of it.
# With BENCH_CD=1, bench/changedetection.sh runs at the end (BENCH_CD_WATCHES,
# default 1000, and its own variables) and prints the ratio to the
# median all-304 round.
#
# BENCH_MIX=1 runs the mixed workload of issue 16 instead (nginx from
# bench_start_mix_origin in bench/lib.sh): BENCH_MIX_PAGES pages (2,000)
# of BENCH_MIX_PAGE_SIZE bytes (20,000), BENCH_MIX_SHARES percent with a
# strong ETag, Last-Modified only, no validators, and no validators with
# a per-request timestamp and nonce (40,30,10,20), gzip as an origin
# would (BENCH_MIX_GZIP=0 for none); BENCH_MIX_WATCHES watches (20,000),
# each its own target (?w=<i>) at a 1 s interval with the CSS selector
# BENCH_MIX_SELECTOR (#content, which leaves the timestamp and nonce
# out; empty for none, the whole page). After every target's baseline
# and BENCH_MIX_WARMUP seconds (5), BENCH_MIX_ROUNDS windows (3) of
# BENCH_MIX_SECONDS (20) each measure checks/s (requests written to
# targets.request_count), Tidings', PostgreSQL's and the origin's CPU per
# check, bytes received per check (on the wire, after gzip), RSS, and
# Tidings' peak RSS (VmHWM) after the baselines and at the end of the run; a run ends with the changes recorded (every one is a
# false change: no page changes). After each round, the floor
# (bench/mix-floor.c, BENCH_FLOOR=0 skips it) with Tidings paused: the
# same watches checked on the same origin by a C loop of libcurl, libxml2
# and libcrypto alone, for BENCH_FLOOR_SECONDS (10); its CPU per check and
# the origin's give the most checks/s any checker built on those
# libraries can reach on these cores, and the round's share of it.
# BENCH_RUNS runs (1), each with a fresh PostgreSQL and Tidings on the
# same origin, then the median and min-max over all rounds and windows.
# Then changedetection.io checks BENCH_CD_WATCHES
# (1,000) of the same URLs with the same selector on the same origin
# (bench/changedetection.sh, BENCH_CD_SECONDS) and the ratio to the
# median checks/s is printed; BENCH_CD=0 skips it. BENCH_PG_STATEMENTS=1
# prints PostgreSQL's statements (pg_stat_statements) over each run's
# rounds, and over the all-304 rounds in the default mode.
# Usage: bench/poller.sh   (BENCH_WATCHES, BENCH_LARGE, BENCH_CONCURRENCY, BENCH_304_ROUNDS, BENCH_CD, BENCH_MIX...)
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
    [ -n "${pg_dir:-}" ] && stop_service
    bench_stop_origin "$work"
    rm -rf "$work"
}
trap stop EXIT

# --- database and Tidings ----------------------------------------------------
# start_service DIR: a fresh PostgreSQL cluster and Tidings in DIR; sets
# $database_url, $pg_dir, $pid and $user.
start_service() {
    pg_dir=$1/pg
    database_url=$(TIDINGS_TEST_POSTGRES_OPTIONS=${BENCH_PG_STATEMENTS:+-c shared_preload_libraries=pg_stat_statements} \
        scripts/test-postgres.sh start "$pg_dir")
    bench_top_statements psql "$database_url" /dev/null
    bench_start_tidings "$port" "$1/tidings" TIDINGS_DATABASE_URL="$database_url" TIDINGS_ADMIN_TOKEN="$admin_token" \
        TIDINGS_SECRET_KEY="$(openssl rand -hex 32)" \
        TIDINGS_ALLOW_PRIVATE_TARGETS=true TIDINGS_LOG_LEVEL=warning \
        TIDINGS_POLL_CONCURRENCY="$concurrency" TIDINGS_HOST_CONCURRENCY="$concurrency" \
        TIDINGS_USER_POLL_CONCURRENCY="$concurrency" TIDINGS_DATABASE_POOL_SIZE=8
    pid=$tidings_pid
    user=$(curl -fs -X POST "$base/v1/users" -H "Authorization: Bearer $admin_token" \
        -H 'Content-Type: application/json' -d '{"name": "bench"}' | json "['user']['id']")
}

# print_statements WHAT: with BENCH_PG_STATEMENTS=1, PostgreSQL's
# statements since the last reset, by execution time; then resets.
print_statements() {
    [ -n "${BENCH_PG_STATEMENTS:-}" ] || return 0
    bench_top_statements psql "$database_url" "$work/statements.txt"
    echo "PostgreSQL's statements over $1, by execution time:"
    cat "$work/statements.txt"
}

stop_service() {
    bench_stop_tidings
    tidings_pid=
    scripts/test-postgres.sh stop "$pg_dir" >/dev/null 2>&1 || true
}

sql() { psql "$database_url" -XAtq -c "$1"; }
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
    postmaster=$(head -n 1 "$pg_dir/data/postmaster.pid")
    for p in "$postmaster" $(pgrep -P "$postmaster"); do
        ticks=$(awk '{print $14 + $15}' "/proc/$p/stat" 2>/dev/null) || continue
        total=$((total + ${ticks:-0}))
    done
    echo "$total"
}
# CPU of this cluster's children that exited (autovacuum workers, mostly):
# the postmaster's cutime and cstime, which postgres_ticks leaves out.
postgres_exited_ticks() {
    awk '{print $16 + $17}' "/proc/$(head -n 1 "$pg_dir/data/postmaster.pid")/stat"
}
origin_ticks() { # the origin's nginx: master and worker
    local master total=0 ticks
    master=$(cat "$work/nginx/nginx.pid")
    for p in "$master" $(pgrep -P "$master"); do
        ticks=$(awk '{print $14 + $15}' "/proc/$p/stat" 2>/dev/null) || continue
        total=$((total + ${ticks:-0}))
    done
    echo "$total"
}
ticks=$(getconf CLK_TCK)

round() { # label count [figures file: median and spread of these rounds]
    local label=$1 count=$2 figures=${3:-/dev/null}
    local bytes_before start t0 p0 now first done_count elapsed sustained
    bytes_before=$(sql "SELECT sum(bytes_received) FROM targets")
    t0=$(cpu_ticks "$pid"); p0=$(postgres_ticks)
    start=$(sql "SELECT extract(epoch FROM clock_timestamp())")
    sql "UPDATE targets SET next_check_at = now()"
    while :; do
        done_count=$(sql "SELECT count(*) FROM targets WHERE last_checked_at >= to_timestamp($start) AND (lease_owner IS NULL OR lease_held)")
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
        "$(grep -E '^VmRSS|^VmHWM' "/proc/$pid/status" | tr -s ' ' | tr '\n' ' ')" "$figures" <<'PY' | tee -a "$work/rounds.log"
import sys
label, count, elapsed, sustained, cpu, pg, ticks, before, after, rss, figures = sys.argv[1:]
count, elapsed, sustained = int(count), float(elapsed), float(sustained)
print(f"{label:<28} {count:>7} checks in {elapsed:6.2f} s = {count / elapsed:8.0f} checks/s "
      f"(sustained, first to last check: {count / sustained:6.0f}/s) | "
      f"tidings CPU {int(cpu) / int(ticks) / elapsed:4.2f} cores, postgres {int(pg) / int(ticks) / elapsed:4.2f} cores | "
      f"{(int(after) - int(before)) / count:6.0f} bytes/check | {rss}")
with open(figures, "a") as out:
    out.write(f"checks/s {count / elapsed:.1f}\nsustained_checks/s {count / sustained:.1f}\n"
              f"tidings_cpu_us/check {int(cpu) / int(ticks) / count * 1e6:.1f}\n"
              f"postgres_cpu_us/check {int(pg) / int(ticks) / count * 1e6:.1f}\n")
PY
    echo "$start" >"$work/round-start"
}

# --- mixed workload (BENCH_MIX=1) --------------------------------------------
mix_pages=${BENCH_MIX_PAGES:-2000}
mix_page_size=${BENCH_MIX_PAGE_SIZE:-20000}
mix_shares=${BENCH_MIX_SHARES:-40,30,10,20}
mix_gzip=${BENCH_MIX_GZIP:-1}
mix_watches=${BENCH_MIX_WATCHES:-20000}
mix_selector=${BENCH_MIX_SELECTOR-#content}
mix_warmup=${BENCH_MIX_WARMUP:-5}
mix_rounds=${BENCH_MIX_ROUNDS:-3}
mix_seconds=${BENCH_MIX_SECONDS:-20}
floor=${BENCH_FLOOR:-1}
floor_seconds=${BENCH_FLOOR_SECONDS:-10}
runs=${BENCH_RUNS:-1}

# Watch i is on page i mod pages (its class by page mod 100, as
# bench_start_mix_origin assigns it), its own target (?w=i), every second,
# with the selector (none when it is empty); due at once.
add_mix_watches() {
    local etag modified plain _
    IFS=, read -r etag modified plain _ <<<"$mix_shares"
    sql "WITH t AS (
           INSERT INTO targets (url, headers_fingerprint, secrets_sealed, next_check_at)
           SELECT 'http://127.0.0.1:$origin_port/'
                  || CASE WHEN page % 100 < $etag THEN 'e' WHEN page % 100 < $((etag + modified)) THEN 'm'
                          WHEN page % 100 < $((etag + modified + plain)) THEN 'n' ELSE 'd' END
                  || '/p' || page || '.html?w=' || i,
                  '$empty_headers', true, now() + interval '1 day'
           FROM generate_series(0, $mix_watches - 1) AS i, LATERAL (SELECT i % $mix_pages AS page) AS p
           RETURNING id)
         INSERT INTO watches (user_id, target_id, name, interval_seconds, extract)
         SELECT '$user', id, 'bench', 1, CASE WHEN '$mix_selector' <> '' THEN jsonb_build_object('css', '$mix_selector', 'ignore', '[]'::jsonb) END
         FROM t"
}

# One window of steady checking at the watches' own 1 s interval.
mix_round() { # label
    local before after t0 t1 p0 p1 o0 o1 x0 x1
    before=$(sql "SELECT sum(request_count) || ' ' || sum(bytes_received) || ' ' || extract(epoch FROM clock_timestamp()) FROM targets")
    t0=$(cpu_ticks "$pid"); p0=$(postgres_ticks); o0=$(origin_ticks); x0=$(postgres_exited_ticks)
    sleep "$mix_seconds"
    after=$(sql "SELECT sum(request_count) || ' ' || sum(bytes_received) || ' ' || extract(epoch FROM clock_timestamp()) FROM targets")
    t1=$(cpu_ticks "$pid"); p1=$(postgres_ticks); o1=$(origin_ticks); x1=$(postgres_exited_ticks)
    python3 - "$1" $before $after "$((t1 - t0))" "$((p1 - p0))" "$ticks" "$(awk '/^VmRSS/ {print $2}' "/proc/$pid/status")" \
        "$work/figures-mix" "$((o1 - o0))" "$((x1 - x0))" <<'PY'
import sys
label = sys.argv[1]
requests0, bytes0, time0, requests1, bytes1, time1 = map(float, sys.argv[2:8])
cpu, pg, ticks, rss_kb, figures = int(sys.argv[8]), int(sys.argv[9]), int(sys.argv[10]), int(sys.argv[11]), sys.argv[12]
origin, exited = int(sys.argv[13]), int(sys.argv[14])
checks, elapsed = requests1 - requests0, time1 - time0
if checks <= 0:
    sys.exit(f"{label}: no checks written in {elapsed:.1f} s")
figures_now = {
    "checks/s": checks / elapsed,
    "tidings_cpu_us/check": cpu / ticks / checks * 1e6,
    "postgres_cpu_us/check": pg / ticks / checks * 1e6,
    # With the workers that exited in the window (autovacuum): the live
    # processes alone are the figure recorded since issue 16.
    "postgres_with_exited_cpu_us/check": (pg + exited) / ticks / checks * 1e6,
    "origin_cpu_us/check": origin / ticks / checks * 1e6,
    "bytes_received/check": (bytes1 - bytes0) / checks,
    "tidings_rss_MB": rss_kb / 1024,
}
print(f"{label:<20} {checks:8.0f} checks in {elapsed:5.1f} s = {figures_now['checks/s']:6.0f} checks/s | "
      f"tidings {figures_now['tidings_cpu_us/check']:5.0f} us/check ({cpu / ticks / elapsed:4.2f} cores), "
      f"postgres {figures_now['postgres_cpu_us/check']:5.0f} us/check ({pg / ticks / elapsed:4.2f} cores; "
      f"{figures_now['postgres_with_exited_cpu_us/check']:.0f} with exited workers), "
      f"origin {figures_now['origin_cpu_us/check']:4.0f} us/check | "
      f"{figures_now['bytes_received/check']:6.0f} bytes/check | RSS {figures_now['tidings_rss_MB']:.0f} MB")
with open(figures, "a") as out:
    out.writelines(f"{name} {value:.2f}\n" for name, value in figures_now.items())
PY
}

# The floor beside the round just measured, with Tidings stopped
# (SIGSTOP) meanwhile: the design card's libraries alone on the same
# origin, watches and selector (bench/mix-floor.c): no database, no
# Swift. Its CPU per check, with the origin's, is the least any checker
# built on them can spend; the cores divided by it is the most it can
# reach. Measured beside each round rather than once per run: these
# machines' speed drifts by tens of percent within minutes
# (BENCHMARKS.md), and a share of a floor measured minutes later carries
# the drift. A check Tidings had in flight may time out meanwhile.
mix_floor_window() { # label
    local worker
    worker=$(pgrep -P "$(cat "$work/nginx/nginx.pid")" | head -n 1)
    kill -STOP "$pid"
    "$work/mix-floor" "http://127.0.0.1:$origin_port" "$work/pages.txt" "$mix_watches" "$concurrency" \
        "$mix_warmup" "$floor_seconds" "$worker" "${mix_selector#\#}" >"$work/floor.log" \
        || { kill -CONT "$pid"; cat "$work/floor.log"; exit 1; }
    kill -CONT "$pid"
    python3 - "$1" "$work/figures-mix" "$work/floor.log" <<'PY'
import os, re, sys
label, figures = sys.argv[1], sys.argv[2]
rate = [float(v) for n, v in (l.split() for l in open(figures)) if n == "checks/s"][-1]
floor = open(sys.argv[3]).read()
checks = re.search(r"= ([0-9]+) checks/s", floor).group(1)
client = float(re.search(r"client ([0-9.]+) us/check", floor).group(1))
origin = float(re.search(r"origin ([0-9.]+) us/check", floor).group(1))
failures = re.search(r"([0-9]+) false changes, ([0-9]+) failures", floor)
most = os.cpu_count() * 1e6 / (client + origin)
print(f"{label:<20} {checks:>6} checks/s | client {client:5.0f} us/check, origin {origin:4.0f}: "
      f"{os.cpu_count()} cores allow at most {most:5.0f} checks/s; the round is {rate / most:.0%} of it "
      f"| {failures.group(1)} false changes, {failures.group(2)} failures")
with open(figures, "a") as out:
    out.write(f"floor_checks/s_at_most {most:.2f}\nshare_of_floor_% {100 * rate / most:.2f}\n")
PY
    # Tidings back at its own pace before the next round.
    sleep "$mix_warmup"
}

mix_benchmark() {
    bench_start_mix_origin "$work" "$origin_port" "$mix_pages" "$mix_page_size" "$mix_shares" "$mix_gzip"
    echo "machine: $(nproc) cores, $(uname -sr), $(swift --version 2>/dev/null | head -n 1), load average $(cut -d' ' -f1-3 /proc/loadavg)"
    echo "origin: nginx $(nginx -v 2>&1 | sed 's/.*\///'), 1 worker, $mix_pages pages of about $mix_page_size bytes," \
        "shares ETag/Last-Modified/none/timestamp+nonce $mix_shares %, gzip $mix_gzip"
    echo "tidings: $mix_watches watches at 1 s, CSS selector '$mix_selector'," \
        "TIDINGS_POLL_CONCURRENCY=$concurrency TIDINGS_HOST_CONCURRENCY=$concurrency TIDINGS_USER_POLL_CONCURRENCY=$concurrency"
    if [ "$floor" != 0 ]; then
        cc -O2 -Wall -o "$work/mix-floor" bench/mix-floor.c $(pkg-config --cflags --libs libcurl libxml-2.0 libcrypto)
    fi
    local run baselined
    for run in $(seq 1 "$runs"); do
        start_service "$work/run$run"
        local started=$SECONDS
        # The watches' sync trigger makes their targets due at once. (No
        # bulk UPDATE of targets while the poller claims them: the two
        # lock rows in different orders and deadlock.)
        add_mix_watches
        while :; do
            baselined=$(sql "SELECT count(*) FROM watches WHERE content_hash IS NOT NULL")
            [ "$baselined" -ge "$mix_watches" ] && break
            [ $((SECONDS - started)) -lt 600 ] || { echo "run $run: only $baselined baselines after 600 s" >&2; exit 1; }
            sleep 0.5
        done
        # The peak so far is the baselines' own: every check records content.
        local baseline_peak
        baseline_peak=$(awk '/^VmHWM/ {print $2 / 1024}' "/proc/$pid/status")
        echo "run $run: $mix_watches baselines in $((SECONDS - started)) s, Tidings' peak RSS (VmHWM) ${baseline_peak%.*} MB"
        echo "tidings_peak_RSS_baselines_MB $baseline_peak" >>"$work/figures-mix"
        sleep "$mix_warmup"
        bench_top_statements psql "$database_url" /dev/null
        for r in $(seq 1 "$mix_rounds"); do
            mix_round "run $run round $r"
            [ "$floor" = 0 ] || mix_floor_window "run $run floor $r"
        done
        print_statements "run $run's rounds"
        # No page changes: every change recorded is a false one.
        sql "SELECT 'run $run: last check results (e ETag, m Last-Modified, n none, d timestamp+nonce): '
                    || string_agg(kind || ' ' || result || ' ' || n, ', ' ORDER BY kind, result)
             FROM (SELECT substring(t.url FROM '/([a-z])/p') AS kind, coalesce(w.last_check_result, 'none') AS result, count(*) AS n
                   FROM watches w JOIN targets t ON t.id = w.target_id GROUP BY 1, 2) AS counts"
        local false_nonce false_all
        false_nonce=$(sql "SELECT count(*) FROM changes c JOIN watches w ON w.id = c.watch_id JOIN targets t ON t.id = w.target_id WHERE t.url LIKE '%/d/p%'")
        false_all=$(sql "SELECT count(*) FROM changes")
        echo "run $run: false changes: $false_nonce on the timestamp+nonce pages, $false_all on all pages"
        echo "false_changes_nonce_pages $false_nonce" >>"$work/figures-mix"
        echo "tidings_peak_RSS_MB $(awk '/^VmHWM/ {print $2 / 1024}' "/proc/$pid/status")" >>"$work/figures-mix"
        stop_service
    done
    echo "mixed workload, $runs run(s) x $mix_rounds rounds of ${mix_seconds} s:"
    bench_summary "$work/figures-mix"
    # The rate these costs allow when nothing else runs on the cores.
    python3 - "$work/figures-mix" <<'PY'
import os, statistics, sys
figures = {}
for line in open(sys.argv[1]):
    name, value = line.split()
    figures.setdefault(name, []).append(float(value))
total = sum(statistics.median(figures[name]) for name in ("tidings_cpu_us/check", "postgres_with_exited_cpu_us/check", "origin_cpu_us/check"))
print(f"Tidings, PostgreSQL and the origin: {total:.0f} us of CPU per check (medians); "
      f"{os.cpu_count()} cores allow at most {os.cpu_count() * 1e6 / total:.0f} checks/s at that cost")
PY
    if [ "$floor" != 0 ]; then
        python3 - "$work/figures-mix" <<'PY'
import statistics, sys
figures = {}
for line in open(sys.argv[1]):
    name, value = line.split()
    figures.setdefault(name, []).append(float(value))
shares = figures["share_of_floor_%"]
print(f"floor: at most {statistics.median(figures['floor_checks/s_at_most']):.0f} checks/s (median of {len(shares)} windows); "
      f"Tidings is {statistics.median(shares):.0f}% of it (median of the rounds' shares, min-max {min(shares):.0f}-{max(shares):.0f}%)")
PY
    fi
    if [ "${BENCH_CD:-1}" != 0 ]; then
        # changedetection.io on the same origin and URLs (Tidings stopped
        # meanwhile), with the same selector; its rate is the origin's
        # request rate while it runs.
        head -n "${BENCH_CD_WATCHES:-1000}" "$work/pages.txt" | sed "s|^|http://127.0.0.1:$origin_port|" >"$work/cd-urls.txt"
        BENCH_CD_URLS="$work/cd-urls.txt" BENCH_CD_ACCESS_LOG="$work/nginx/access.log" BENCH_CD_SELECTOR="$mix_selector" \
            bench/changedetection.sh | tee "$work/cd.log"
        local cd_rate
        cd_rate=$(sed -n 's/^changedetection.io: .* = \([0-9.]*\) checks\/s$/\1/p' "$work/cd.log")
        python3 - "$work/figures-mix" "$cd_rate" <<'PY'
import os, statistics, sys
rates = [float(v) for n, v in (l.split() for l in open(sys.argv[1])) if n == "checks/s"]
cd = float(sys.argv[2] or 0)
if cd > 0:
    print(f"Tidings / changedetection.io = {statistics.median(rates) / cd:.0f}x "
          f"(median of Tidings' rounds; min-max {min(rates) / cd:.0f}-{max(rates) / cd:.0f}x), same origin, same run")
    # What the aim of 150 times leaves per check on these cores, for
    # Tidings, PostgreSQL and the origin together.
    cores = os.cpu_count()
    print(f"150 x changedetection.io = {150 * cd:.0f} checks/s: {cores} cores allow "
          f"{cores * 1e6 / (150 * cd):.0f} us of CPU per check for all three")
    floor = [float(v) for n, v in (l.split() for l in open(sys.argv[1])) if n == "floor_checks/s_at_most"]
    if floor:
        print(f"150 x changedetection.io is {150 * cd / statistics.median(floor):.0%} of the most the floor allows")
else:
    print("changedetection.io made no requests: no ratio")
PY
    fi
}

if [ "${BENCH_MIX:-0}" = 1 ]; then
    mix_benchmark
    exit 0
fi

bench_start_origin "$work" "$origin_port" "$watches"
start_service "$work"
echo "machine: $(nproc) cores, $(uname -sr), $(swift --version 2>/dev/null | head -n 1)"
echo "origin: nginx $(nginx -v 2>&1 | sed 's/.*\///'), 1 worker, $watches pages of $(stat -c %s "$work/www/p0.html") bytes"
echo "tidings: TIDINGS_POLL_CONCURRENCY=$concurrency TIDINGS_HOST_CONCURRENCY=$concurrency TIDINGS_USER_POLL_CONCURRENCY=$concurrency"
add_watches 0 "$watches"
round "round 1 (baseline, 200)" "$watches"
bench_top_statements psql "$database_url" /dev/null
for r in $(seq 2 $((1 + ${BENCH_304_ROUNDS:-3}))); do round "round $r (all 304)" "$watches" "$work/figures-304"; done
echo "all-304 rounds:"
bench_summary "$work/figures-304"
print_statements "the all-304 rounds"

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
if [ "${BENCH_CD:-0}" != 0 ]; then
    # changedetection.io in the same run (Tidings idle meanwhile), against
    # its own nginx on the same kind of pages, compared with the median
    # all-304 round above (whole round, and sustained: its own rate is
    # counted over a window while it runs).
    BENCH_WATCHES=${BENCH_CD_WATCHES:-1000} bench/changedetection.sh \
        "$(median_of "$work/figures-304" checks/s)" "$(median_of "$work/figures-304" sustained_checks/s)"
fi
