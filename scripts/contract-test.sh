#!/usr/bin/env bash
# Holds the server to openapi.yaml: validates the document, starts a real
# Tidings (private PostgreSQL in a throwaway data folder, loopback only) and
# runs schemathesis against every operation the document describes, each
# authenticated as its `security` says. Exits non-zero on any finding.
#   scripts/contract-test.sh [SCHEMATHESIS RUN OPTION...]
# Extra arguments go to `schemathesis run`, e.g. --include-path-regex '^/v1/me'
# to focus on some operations. Environment (optional):
#   TIDINGS_CONTRACT_SCRATCH_PATH  swift build scratch path (default .build);
#                                  the Python tools, Hypothesis' files and the
#                                  JUnit report go under it too
#   TIDINGS_CONTRACT_MAX_EXAMPLES  test cases per operation (default 40)
set -euo pipefail
cd "$(dirname "$0")/.."

scratch_path=${TIDINGS_CONTRACT_SCRATCH_PATH:-.build}
max_examples=${TIDINGS_CONTRACT_MAX_EXAMPLES:-40}
venv=$scratch_path/contract-venv
requirements=scripts/contract/requirements.txt

# --- Python tools, reinstalled only when the pins change -------------------
# (Re)created when missing or when the interpreter it was made from is gone.
if ! "$venv/bin/python" -c '' 2>/dev/null; then
    rm -rf "$venv"
    command -v python3 >/dev/null || scripts/install-deps.sh python3
    if ! python3 -m venv "$venv" 2>/dev/null; then
        # Debian ships venv (ensurepip) separately from python3.
        rm -rf "$venv"
        scripts/install-deps.sh python3-venv
        python3 -m venv "$venv"
    fi
fi
python=$venv/bin/python
if ! cmp -s "$requirements" "$venv/installed-requirements.txt"; then
    echo "installing pinned contract test tools into $venv" >&2
    "$python" -m pip install --quiet --disable-pip-version-check --no-input -r "$requirements"
    cp "$requirements" "$venv/installed-requirements.txt"
fi

# --- The document itself ----------------------------------------------------
"$venv/bin/openapi-spec-validator" openapi.yaml

# --- A live server ----------------------------------------------------------
swift build --product tidings --scratch-path "$scratch_path"
binary=$(swift build --product tidings --scratch-path "$scratch_path" --show-bin-path)/tidings

work_dir=$(mktemp -d /tmp/tidings-contract.XXXXXX)
server_pid=""
stop_server() {
    if [ -n "$server_pid" ] && kill -0 "$server_pid" 2>/dev/null; then
        kill -TERM "$server_pid"
        # The server stops its PostgreSQL on SIGTERM; give it the time to.
        for _ in $(seq 1 300); do
            kill -0 "$server_pid" 2>/dev/null || break
            sleep 0.1
        done
        kill -KILL "$server_pid" 2>/dev/null || true
        wait "$server_pid" 2>/dev/null || true
    fi
    server_pid=""
}
cleanup() {
    stop_server
    # Should the server have been killed, its PostgreSQL must not outlive it.
    find "$work_dir" -name postmaster.pid -printf '%h\n' 2>/dev/null | while read -r cluster; do
        bindir=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)
        if [ "$(id -u)" = 0 ]; then
            runuser -u postgres -- "$bindir/pg_ctl" -D "$cluster" -m immediate stop >/dev/null 2>&1 || true
        else
            "$bindir/pg_ctl" -D "$cluster" -m immediate stop >/dev/null 2>&1 || true
        fi
    done
    rm -rf "$work_dir"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

port=$("$python" scripts/contract/server_setup.py free-port)
base_url=http://127.0.0.1:$port
admin_token=tdga_$("$python" -c 'import secrets; print(secrets.token_urlsafe(36))')
server_log=$work_dir/server.log

# Generated watches name hosts such as example.com, which may not resolve
# (or answer) from a test machine: a check must fail on its own outbound
# timeouts (a version request and a page request, 3 s each at most), before
# the check-now deadline (a 504, which schemathesis counts as a server
# error) and schemathesis' 10 s read timeout. Background polling is off:
# the thousands of generated watches share the loopback host, and a
# check-now queued behind their scheduled checks at the host's two slots
# once took the whole 9 s (a 504 in CI).
# One user key makes every request: with the default per-user limits (20
# webhooks) the generated creates would soon all be 403 and the operations
# linked from them never run. The rate limits keep their defaults, so some
# check and test calls get their documented 429, but for the failed
# credentials of the one client address: schemathesis sends thousands of
# made-up keys, and past 30 a minute the harness key too would be refused
# whenever it drops out of the credential cache.
env -u TIDINGS_DATABASE_URL \
    TIDINGS_CHECK_NOW_TIMEOUT=9s \
    TIDINGS_POLL_CONCURRENCY=0 \
    TIDINGS_OUTBOUND_CONNECT_TIMEOUT=2s \
    TIDINGS_OUTBOUND_TIMEOUT=3s \
    TIDINGS_DATA_DIR="$work_dir/data" \
    TIDINGS_RESOURCES_DIR="$PWD" \
    TIDINGS_ADMIN_TOKEN="$admin_token" \
    TIDINGS_LISTEN="127.0.0.1:$port" \
    TIDINGS_ALLOW_PRIVATE_TARGETS=true \
    TIDINGS_LOG_LEVEL=warning \
    TIDINGS_MAX_WATCHES_PER_USER=1000000 \
    TIDINGS_MAX_WEBHOOKS_PER_USER=1000000 \
    TIDINGS_MAX_DEVICES_PER_USER=1000000 \
    TIDINGS_MAX_API_KEYS_PER_USER=1000000 \
    TIDINGS_CREDENTIAL_FAILURE_RATE=1000000/1s \
    "$binary" >"$server_log" 2>&1 &
server_pid=$!

if ! "$python" scripts/contract/server_setup.py wait-ready "$base_url" 120 "$server_pid"; then
    tail -n 50 "$server_log" >&2
    exit 1
fi
user_key=$(TIDINGS_ADMIN_TOKEN="$admin_token" "$python" scripts/contract/server_setup.py create-user "$base_url")

# --- The contract run -------------------------------------------------------
# Two passes, so that admin operations (which may delete the harness user or
# revoke its key) run only after every operation that needs that key.
admin_only='/security == [{"adminToken": []}]'
not_admin_only='/security != [{"adminToken": []}]'
run_schemathesis() {
    local pass=$1
    shift
    echo "=== contract test: $pass ===" >&2
    TIDINGS_CONTRACT_ADMIN_TOKEN=$admin_token TIDINGS_CONTRACT_USER_KEY=$user_key \
        HYPOTHESIS_STORAGE_DIRECTORY=$scratch_path/contract-hypothesis \
        "$venv/bin/schemathesis" --config-file scripts/contract/schemathesis.toml run openapi.yaml \
        --url "$base_url" \
        --max-examples "$max_examples" \
        --workers 1 \
        --no-color \
        --report junit --report-dir "$scratch_path/contract-report" \
        --report-junit-path "$scratch_path/contract-report/$pass.xml" \
        "$@"
}
status=0
# The event stream never ends by itself (a heartbeat every 15 s), so
# schemathesis would only time out on it: EventStreamAPITests and the
# hostile suite hold GET /v1/events to its contract instead.
run_schemathesis user-operations --exclude-by "$admin_only" --exclude-operation-id streamEvents "$@" || status=1
run_schemathesis admin-operations --exclude-by "$not_admin_only" "$@" || status=1

if [ "$status" != 0 ]; then
    echo "contract test failed (reports above); the server's last log lines:" >&2
    tail -n 30 "$server_log" >&2
fi
exit "$status"
