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
    rm -rf "$cluster_dir" "${outputs:-}"
}
trap cleanup EXIT

# A venv at $1 with the pinned packages of requirements file $2, made once
# and remade only when the pins change or its interpreter is gone.
python_venv() {
    local venv=$1 requirements=$2
    if ! cmp -s "$requirements" "$venv/installed-requirements.txt" 2>/dev/null \
        || ! "$venv/bin/python" -c '' 2>/dev/null; then
        rm -rf "$venv"
        command -v python3 >/dev/null || scripts/install-deps.sh python3
        python3 -m venv "$venv" 2>/dev/null || { rm -rf "$venv"; scripts/install-deps.sh python3-venv; python3 -m venv "$venv"; }
        "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-input -r "$requirements"
        cp "$requirements" "$venv/installed-requirements.txt"
    fi
}

# Webhook signatures are checked by the reference libraries (PyPI
# standardwebhooks and svix, pinned).
python_venv .build/webhook-verify-venv scripts/webhooks/requirements.txt
TIDINGS_TEST_WEBHOOK_PYTHON=$PWD/.build/webhook-verify-venv/bin/python
export TIDINGS_TEST_WEBHOOK_PYTHON

# The push tests run a mock APNs and FCM (HTTP/2 over TLS: hypercorn, h2,
# cryptography, PyJWT, pinned).
python_venv .build/push-mock-venv scripts/push-mock/requirements.txt
TIDINGS_TEST_PUSH_PYTHON=$PWD/.build/push-mock-venv/bin/python
export TIDINGS_TEST_PUSH_PYTHON

# The import tests read files that changedetection.io and urlwatch write
# themselves (PyPI, pinned with their dependencies).
python_venv .build/imports-venv scripts/imports/requirements.txt
TIDINGS_TEST_IMPORT_PYTHON=$PWD/.build/imports-venv/bin/python
export TIDINGS_TEST_IMPORT_PYTHON

# At most this many tests (or cases of a parameterized test) at once in a
# target. Each API test runs a whole Tidings (some 15 PostgreSQL
# connections); TidingsAppTests' 180 tests all at once went past the test
# PostgreSQL's 2,000 connections ("too many clients", then 503s) and
# loaded two cores to 35 for nothing.
SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH=${TIDINGS_TEST_PARALLELISM:-24}
export SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH

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
# Each target's output is kept so that the failures can be repeated at
# the end, where a CI log's tail shows them.
outputs=$(mktemp -d /tmp/tidings-test-output.XXXXXX)
for target in $(ls Tests | grep 'Tests$'); do
    echo "== $target" >&2
    swift test --skip-build "${swift_flags[@]}" --filter "^$target\\." 2>&1 | tee "$outputs/$target.log" \
        || failed+=("$target")
done
if [ ${#failed[@]} -gt 0 ]; then
    for target in "${failed[@]}"; do
        echo "== what failed in $target:" >&2
        grep -E '✘|error:|fatal|Fatal' "$outputs/$target.log" | head -40 >&2 || true
    done
    echo "failed test targets: ${failed[*]}" >&2
    exit 1
fi
echo "all test targets passed" >&2
