#!/usr/bin/env bash
# Starts or stops the throwaway PostgreSQL cluster the test suite runs against.
#   scripts/test-postgres.sh start DIR   -> prints the connection URL on stdout
#   scripts/test-postgres.sh stop DIR
# TIDINGS_TEST_POSTGRES_OPTIONS adds server options at start, e.g.
# "-c shared_preload_libraries=pg_stat_statements" to profile a benchmark.
# The cluster listens on a unix socket inside DIR only (no TCP port). As root,
# initdb and postgres run as the `postgres` system user, which they require.
set -euo pipefail

command=${1:?usage: test-postgres.sh start|stop DIR}
dir=${2:?usage: test-postgres.sh start|stop DIR}
bindir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
[ -x "$bindir/initdb" ] || { echo "PostgreSQL server binaries not found under /usr/lib/postgresql" >&2; exit 1; }

as_owner() {
    if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

case "$command" in
start)
    mkdir -p "$dir"
    [ "$(id -u)" = 0 ] && chown postgres:postgres "$dir"
    if [ ! -f "$dir/data/PG_VERSION" ]; then
        as_owner "$bindir/initdb" -D "$dir/data" -U tidings --auth=trust -E UTF8 --locale=C.UTF-8 >"$dir/initdb.log" 2>&1 \
            || { cat "$dir/initdb.log" >&2; exit 1; }
    fi
    as_owner "$bindir/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
        -o "-c listen_addresses='' -k $dir -c max_connections=2000 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c autovacuum_naptime=5s ${TIDINGS_TEST_POSTGRES_OPTIONS:-}" \
        start >/dev/null || { cat "$dir/server.log" >&2; exit 1; }
    echo "postgresql://tidings@/postgres?host=$dir"
    ;;
stop)
    if [ -f "$dir/data/postmaster.pid" ]; then
        as_owner "$bindir/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null
    fi
    ;;
*)
    echo "unknown command: $command" >&2
    exit 2
    ;;
esac
