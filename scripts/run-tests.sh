#!/usr/bin/env bash
# Starts a throwaway PostgreSQL cluster, runs the test suite against it and
# stops it again, whatever the outcome.
#
# With no arguments every test target runs in its own `swift test` process,
# one after another: Swift Testing runs all suites of a process on the
# two-thread cooperative pool of this machine, and suites that block (starting
# PostgreSQL, waiting on servers) would otherwise starve the timing-sensitive
# ones (client timeouts) of threads. Arguments, if given, go to a single
# `swift test` call instead (e.g. --filter AccountsAPITests).
#
# TIDINGS_TEST_SWIFT_FLAGS adds flags to every build and test call of the
# per-target mode, e.g. "--sanitize=address --scratch-path .build-asan"
# (make test-sanitize): one process per target keeps the timing tests
# fed under a sanitizer's slowdown too.
set -euo pipefail
cd "$(dirname "$0")/.."

cluster_dir=$(mktemp -d /tmp/tidings-test-pg.XXXXXX)
cleanup() {
    scripts/test-postgres.sh stop "$cluster_dir" || true
    rm -rf "$cluster_dir"
}
trap cleanup EXIT

# Webhook signatures are checked by the reference libraries (PyPI
# standardwebhooks and svix, pinned), in a venv made once per requirements.
webhook_venv=.build/webhook-verify-venv
webhook_requirements=scripts/webhooks/requirements.txt
if ! cmp -s "$webhook_requirements" "$webhook_venv/installed-requirements.txt" 2>/dev/null \
    || ! "$webhook_venv/bin/python" -c '' 2>/dev/null; then
    rm -rf "$webhook_venv"
    command -v python3 >/dev/null || scripts/install-deps.sh python3
    python3 -m venv "$webhook_venv" 2>/dev/null || { rm -rf "$webhook_venv"; scripts/install-deps.sh python3-venv; python3 -m venv "$webhook_venv"; }
    "$webhook_venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-input -r "$webhook_requirements"
    cp "$webhook_requirements" "$webhook_venv/installed-requirements.txt"
fi
TIDINGS_TEST_WEBHOOK_PYTHON=$PWD/$webhook_venv/bin/python
export TIDINGS_TEST_WEBHOOK_PYTHON

TIDINGS_TEST_DATABASE_URL=$(scripts/test-postgres.sh start "$cluster_dir")
export TIDINGS_TEST_DATABASE_URL
echo "test database: $TIDINGS_TEST_DATABASE_URL" >&2

if [ $# -gt 0 ]; then
    swift test "$@"
    exit
fi

read -r -a swift_flags <<<"${TIDINGS_TEST_SWIFT_FLAGS:-}"
swift build --build-tests "${swift_flags[@]}"
failed=()
for target in $(ls Tests | grep 'Tests$'); do
    echo "== $target" >&2
    swift test --skip-build "${swift_flags[@]}" --filter "^$target\\." || failed+=("$target")
done
if [ ${#failed[@]} -gt 0 ]; then
    echo "failed test targets: ${failed[*]}" >&2
    exit 1
fi
echo "all test targets passed" >&2
