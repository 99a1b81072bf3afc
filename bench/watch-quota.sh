#!/usr/bin/env bash
# The watch quota's cost at the database: 16 clients create watches for one
# user, each as WatchStore.create does it (a target, then the watch, in one
# transaction), with the deployment limit set so the quota trigger runs.
# Measures the schema as migrated up to MIGRATION (default: all), so the
# same run before and after a migration compares the two.
# Usage: bench/watch-quota.sh [watches, default 20000] (MIGRATION=0034 for before).
set -euo pipefail
cd "$(dirname "$0")/.."

watches=${1:-20000}
clients=${BENCH_CLIENTS:-16}
last=${MIGRATION:-9999}
dir=$(mktemp -d /tmp/tidings-quota-bench.XXXXXX)
[ "$(id -u)" = 0 ] && chmod 755 "$dir"
stop() {
    scripts/test-postgres.sh stop "$dir" || true
    rm -rf "$dir"
}
trap stop EXIT
url=$(scripts/test-postgres.sh start "$dir")
sql() { psql -X -q -v ON_ERROR_STOP=1 "$url" "$@"; }
for file in migrations/*.sql; do
    number=$(basename "$file" | cut -c1-4)
    [ "$((10#$number))" -le "$((10#$last))" ] || continue
    sql -1 -f "$file" >/dev/null
done
user=$(sql -At -c "INSERT INTO users (name) VALUES ('bench') RETURNING id")
sql -c "CREATE SEQUENCE bench_urls"
script="$dir/create-watch.sql"
cat >"$script" <<SQL
BEGIN;
WITH t AS (
    INSERT INTO targets (url, headers_fingerprint, next_check_at)
    VALUES ('http://93.184.215.14/' || nextval('bench_urls'), repeat('0', 64), now())
    RETURNING id
)
INSERT INTO watches (user_id, target_id, name, interval_seconds) SELECT '$user', id, 'bench', 300 FROM t;
COMMIT;
SQL
echo "machine: $(nproc) cores, $(uname -sr); migrations through $(ls migrations | awk -v l="$last" '0 + substr($0, 1, 4) <= 0 + l' | tail -n 1)"
PGOPTIONS="-c tidings.max_watches_per_user=1000000" \
    pgbench -n -f "$script" -c "$clients" -j 2 -t $((watches / clients)) "$url" 2>&1 \
    | grep -E "number of transactions actually processed|latency average|^tps"
sql -At -c "SELECT 'watches: ' || count(*) FROM watches"
