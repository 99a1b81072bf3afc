#!/usr/bin/env bash
# The hostile-input suite (scripts/hostile): a real Tidings on a throwaway
# PostgreSQL against a hostile origin and receiver and malformed clients.
# Each case must fail only its own work, clearly, while the process keeps
# answering and another tenant's check and delivery still work.
#   scripts/hostile-test.sh [PYTEST OPTION...]
set -euo pipefail
cd "$(dirname "$0")/.."

venv=.build/hostile-venv
requirements=scripts/hostile/requirements.txt
if ! cmp -s "$requirements" "$venv/installed-requirements.txt" 2>/dev/null || ! "$venv/bin/python" -c '' 2>/dev/null; then
    rm -rf "$venv"
    command -v python3 >/dev/null || scripts/install-deps.sh python3
    python3 -m venv "$venv" 2>/dev/null || { rm -rf "$venv"; scripts/install-deps.sh python3-venv; python3 -m venv "$venv"; }
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-input -r "$requirements"
    cp "$requirements" "$venv/installed-requirements.txt"
fi

swift build --product tidings
TIDINGS_HOSTILE_BINARY=$(swift build --product tidings --show-bin-path)/tidings
export TIDINGS_HOSTILE_BINARY

cluster_dir=$(mktemp -d /tmp/tidings-hostile-pg.XXXXXX)
cleanup() {
    scripts/test-postgres.sh stop "$cluster_dir" || true
    rm -rf "$cluster_dir"
}
trap cleanup EXIT
TIDINGS_HOSTILE_DATABASE_URL=$(scripts/test-postgres.sh start "$cluster_dir")
export TIDINGS_HOSTILE_DATABASE_URL
TIDINGS_RESOURCES_DIR=$PWD
export TIDINGS_RESOURCES_DIR

(cd scripts/hostile && "../../$venv/bin/python" -m pytest -q -p no:cacheprovider "$@")
