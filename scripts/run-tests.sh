#!/usr/bin/env bash
# Starts a throwaway PostgreSQL cluster, runs `swift test` against it and
# stops it again, whatever the outcome. Extra arguments go to `swift test`.
set -euo pipefail
cd "$(dirname "$0")/.."

cluster_dir=$(mktemp -d /tmp/tidings-test-pg.XXXXXX)
cleanup() {
    scripts/test-postgres.sh stop "$cluster_dir" || true
    rm -rf "$cluster_dir"
}
trap cleanup EXIT

TIDINGS_TEST_DATABASE_URL=$(scripts/test-postgres.sh start "$cluster_dir")
export TIDINGS_TEST_DATABASE_URL
echo "test database: $TIDINGS_TEST_DATABASE_URL" >&2

swift test "$@"
