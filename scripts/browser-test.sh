#!/usr/bin/env bash
# The dashboard in a real browser (scripts/browser): Debian's Chromium,
# driven by PyPI's Playwright (pinned), against a real Tidings on a
# throwaway PostgreSQL and a local origin. Screenshots of every view go to
# .build/browser-test/ (or TIDINGS_BROWSER_OUTPUT). Decision 0054.
#   scripts/browser-test.sh [PYTEST OPTION...]
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh chromium openssl
venv=.build/browser-venv
requirements=scripts/browser/requirements.txt
if ! cmp -s "$requirements" "$venv/installed-requirements.txt" 2>/dev/null || ! "$venv/bin/python" -c '' 2>/dev/null; then
    rm -rf "$venv"
    command -v python3 >/dev/null || scripts/install-deps.sh python3
    python3 -m venv "$venv" 2>/dev/null || { rm -rf "$venv"; scripts/install-deps.sh python3-venv; python3 -m venv "$venv"; }
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-input -r "$requirements"
    cp "$requirements" "$venv/installed-requirements.txt"
fi

swift build --product tidings
TIDINGS_BROWSER_BINARY=$(swift build --product tidings --show-bin-path)/tidings
export TIDINGS_BROWSER_BINARY
TIDINGS_BROWSER_OUTPUT=${TIDINGS_BROWSER_OUTPUT:-$PWD/.build/browser-test}
export TIDINGS_BROWSER_OUTPUT

cluster_dir=$(mktemp -d /tmp/tidings-browser-pg.XXXXXX)
cleanup() {
    scripts/test-postgres.sh stop "$cluster_dir" || true
    rm -rf "$cluster_dir"
}
trap cleanup EXIT
TIDINGS_BROWSER_DATABASE_URL=$(scripts/test-postgres.sh start "$cluster_dir")
export TIDINGS_BROWSER_DATABASE_URL
TIDINGS_RESOURCES_DIR=$PWD
export TIDINGS_RESOURCES_DIR

(cd scripts/browser && "../../$venv/bin/python" -m pytest -q -p no:cacheprovider "$@")
echo "screenshots: $TIDINGS_BROWSER_OUTPUT" >&2
