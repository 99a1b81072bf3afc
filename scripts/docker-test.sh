#!/usr/bin/env bash
# `make docker-test`: the docker/ files built and run for real on a private
# Docker engine, the way users run Tidings. In order:
#   lint          hadolint (error level) on every Dockerfile
#   engine        dockerd with its own data root, exec root and socket
#                 (scripts/docker-engine.sh)
#   base images   pulled, or stand-ins made without a registry
#                 (scripts/docker-standins.sh)
#   image         docker/Dockerfile built unchanged; binary, user, health
#                 check and stop signal inspected
#   compose       `docker-compose config`, `up -d`, every container healthy
#   metrics       /metrics on the replica's port 9090, 404 through the proxy
#   smoke         through the published port with curl: the admin creates a
#                 user; the user creates a device, a watch on a test origin,
#                 a webhook to a test receiver, and reads the badge
#   events        the origin changes: watch.changed and badge.updated arrive
#                 at the receiver, correctly signed, and watch.changed on an
#                 event stream held through nginx               [switch below]
#   scale         --scale tidings=2: both replicas healthy, both serve
#   events x2     more changes with two replicas: no event delivered twice
#                 (unique webhook-id headers)                   [switch below]
#   upgrade       `run --rm tidings migrate`, then SIGTERM stops exit 0
#   down -v       and the engine stopped, also on failure
# The test origin and receiver (docker/test/peer.py) run on the host, on the
# compose network's gateway address, which the containers reach directly.
# Environment (optional):
#   TIDINGS_DOCKER_TEST_EVENTS  0 skips the event steps (default 1)
#   TIDINGS_DOCKER_CACHE        kept between runs: debootstrap output, the
#                               engine's images, the lint venv (.cache/docker)
#   TIDINGS_DOCKER_STORAGE_DRIVERS, TIDINGS_DOCKER_IPTABLES  see docker-engine.sh
#   TIDINGS_DOCKER_PULL         "never": no pull attempts (docker-standins.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
# dockerd and debootstrap live in sbin, which a non-login PATH may lack.
export PATH=$PATH:/usr/sbin:/sbin

# The event steps (a change seen by the poller, delivered signed by the
# dispatcher, once across two replicas) run unless switched off.
event_steps=${TIDINGS_DOCKER_TEST_EVENTS:-1}

cache_dir=$(mkdir -p "${TIDINGS_DOCKER_CACHE:-.cache/docker}" && cd "${TIDINGS_DOCKER_CACHE:-.cache/docker}" && pwd)
project=tidingsdockertest
compose_file=docker/compose.yaml

docker() { command "${TIDINGS_DOCKER_CLI:-/usr/bin/docker}" "$@"; }
compose() { docker-compose --project-name "$project" --file "$compose_file" "$@"; }

# --- Bookkeeping -------------------------------------------------------------
passed=0
failed=0
skipped=0
current_step=""
test_started=$SECONDS
work_dir=$(mktemp -d /tmp/tidings-docker.XXXXXX)
engine_started=false
compose_used=false
peer_pid=""

step() {
    current_step=$1
    step_started=$SECONDS
    echo "=== docker-test: $current_step" >&2
}
pass() {
    passed=$((passed + 1))
    echo "ok: $current_step ($((SECONDS - step_started)) s)" >&2
    current_step=""
}
skip() {
    skipped=$((skipped + 1))
    echo "SKIPPED: $1" >&2
}
fail() {
    echo "FAILED: $current_step: $*" >&2
    exit 1
}

cleanup() {
    local status=$?
    trap - EXIT
    set +e
    if [ -n "$current_step" ]; then
        failed=$((failed + 1))
        [ "$status" = 0 ] && status=1
        echo "FAILED: $current_step" >&2
        if [ "$compose_used" = true ]; then
            echo "--- container status and last log lines" >&2
            compose ps >&2
            compose logs --no-color --tail=40 >&2
        fi
    fi
    if [ -n "$peer_pid" ]; then
        kill -TERM "$peer_pid" 2>/dev/null
        wait "$peer_pid" 2>/dev/null
    fi
    if [ "$compose_used" = true ]; then
        compose down --volumes --remove-orphans --timeout 30 >/dev/null 2>&1
    fi
    if [ "$engine_started" = true ]; then
        # Keep the data root small: images replaced by this run's go.
        docker image prune --force >/dev/null 2>&1
        scripts/docker-engine.sh stop "$work_dir/engine"
    fi
    rm -rf "$work_dir"
    echo "docker-test took $((SECONDS - test_started)) s" >&2
    echo "docker-test: $passed passed, $failed failed, $skipped skipped"
    exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# Waits up to SECONDS for COMMAND... to succeed.
wait_for() {
    local seconds=$1
    shift
    local deadline=$((SECONDS + seconds))
    until "$@" >/dev/null 2>&1; do
        [ $SECONDS -lt $deadline ] || return 1
        sleep 1
    done
}

# --- Tools -------------------------------------------------------------------
scripts/install-deps.sh docker.io docker-compose debootstrap fuse-overlayfs curl python3 python3-venv ca-certificates

step "lint: hadolint at error level"
venv=$cache_dir/lint-venv
if ! "$venv/bin/python" -c '' 2>/dev/null; then
    rm -rf "$venv"
    python3 -m venv "$venv"
fi
if ! cmp -s docker/requirements-lint.txt "$venv/installed-requirements.txt"; then
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-input -r docker/requirements-lint.txt
    cp docker/requirements-lint.txt "$venv/installed-requirements.txt"
fi
"$venv/bin/hadolint" --failure-threshold error docker/Dockerfile docker/test/*.Dockerfile
pass

# --- Engine and images ---------------------------------------------------------
step "engine: private dockerd"
engine_started=true
DOCKER_HOST=$(scripts/docker-engine.sh start "$work_dir/engine" "$cache_dir/engine")
export DOCKER_HOST DOCKER_BUILDKIT=0 COMPOSE_DOCKER_CLI_BUILD=0
docker info --format 'engine {{.ServerVersion}}, storage driver {{.Driver}}' >&2
pass

step "base images"
scripts/docker-standins.sh "$cache_dir"
pass

# Host networking: the build's apt-get reaches the Debian mirror however the
# engine's bridges are set up.
build_image() {
    docker build --network host --build-arg "TIDINGS_REVISION=$revision" \
        -f docker/Dockerfile "$@" . >"$work_dir/build.log" 2>&1 || {
        tail -n 40 "$work_dir/build.log" >&2
        fail "docker build failed"
    }
    grep -E 'Sending build context|Build of product' "$work_dir/build.log" >&2 || true
}
revision=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
step "image: docker build -f docker/Dockerfile --target build (release binary)"
# Tagged so that the clean-up's prune keeps it as the next run's build cache.
build_image --target build -t tidings-build-cache:latest
pass

step "image: docker build -f docker/Dockerfile"
build_image -t tidings:latest
docker image ls tidings:latest --format 'tidings:latest {{.Size}}' >&2
pass

step "image: binary, libraries, user, health check, stop signal"
docker run --rm --network none tidings:latest --version >&2
libraries=$(docker run --rm --network none --entrypoint ldd tidings:latest /usr/local/bin/tidings)
[[ $libraries != *"not found"* ]] || fail "libraries missing in the runtime image: $libraries"
inspect() { docker image inspect -f "$1" tidings:latest; }
[ "$(inspect '{{.Config.User}}')" = 10001:10001 ] || fail "user is $(inspect '{{.Config.User}}')"
[ "$(inspect '{{.Config.StopSignal}}')" = SIGTERM ] || fail "stop signal is $(inspect '{{.Config.StopSignal}}')"
[[ $(inspect '{{json .Config.Healthcheck.Test}}') == *tidings-healthcheck* ]] || fail "no HEALTHCHECK"
docker run --rm --network none --entrypoint ls tidings:latest /usr/share/tidings/openapi.yaml /usr/share/tidings/migrations /usr/share/tidings/schema/functions /usr/share/tidings/dashboard/index.html >/dev/null
pass

# --- Compose -------------------------------------------------------------------
env_dir=$work_dir/env
mkdir -m 700 "$env_dir"
password=$(python3 -c 'import secrets; print(secrets.token_hex(24))')
admin_token=$(python3 -c 'import secrets; print(secrets.token_hex(32))')
printf 'POSTGRES_PASSWORD=%s\n' "$password" > "$env_dir/postgres.env"
{
    printf 'TIDINGS_ADMIN_TOKEN=%s\n' "$admin_token"
    printf 'TIDINGS_DATABASE_URL=postgres://tidings:%s@postgres:5432/tidings\n' "$password"
    printf 'TIDINGS_SECRET_KEY=%s\n' "$(python3 -c 'import secrets; print(secrets.token_hex(32))')"
    # The test origin and receiver are on the compose network's gateway.
    printf 'TIDINGS_ALLOW_PRIVATE_TARGETS=true\n'
    printf 'TIDINGS_MIN_INTERVAL=2s\n'
    printf 'TIDINGS_LOG_LEVEL=info\n'
} > "$env_dir/tidings.env"
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
export TIDINGS_ENV_DIR=$env_dir TIDINGS_PUBLISHED_PORT=127.0.0.1:$port
base_url=http://127.0.0.1:$port

step "compose: docker-compose config, with the test's and with the example env files"
compose config --quiet
examples_dir=$work_dir/examples
mkdir "$examples_dir"
cp docker/tidings.env.example "$examples_dir/tidings.env"
cp docker/postgres.env.example "$examples_dir/postgres.env"
TIDINGS_ENV_DIR=$examples_dir compose config --quiet
pass

# Health of every container of SERVICE, one word per container.
service_health() {
    local id
    for id in $(compose ps -q "$1"); do
        docker inspect -f '{{if .State.Health}}{{.State.Health.Status}}{{else}}{{.State.Status}}{{end}}' "$id"
    done
}
# True when SERVICE has exactly COUNT containers, all healthy.
service_healthy() {
    local states
    states=$(service_health "$1")
    [ "$(printf '%s\n' "$states" | grep -c '^healthy$')" = "$2" ] && [ "$(printf '%s\n' "$states" | wc -l)" = "$2" ]
}

step "compose: up -d, all healthy, ready through the published port"
compose_used=true
compose up -d --no-build >&2
wait_for 120 service_healthy postgres 1 || fail "postgres not healthy: $(service_health postgres)"
wait_for 120 service_healthy tidings 1 || fail "tidings not healthy: $(service_health tidings)"
wait_for 60 curl -fsS "$base_url/readyz" || fail "$base_url/readyz does not answer 200"
curl -fsS "$base_url/readyz" >&2
echo >&2
pass

step "metrics: on the replica's own port 9090, not through the proxy"
status=$(curl -s -o /dev/null -w '%{http_code}' "$base_url/metrics")
[ "$status" = 404 ] || fail "$base_url/metrics answered $status through the proxy, expected 404"
# The image has no curl: bash's /dev/tcp, as the health check does.
metrics_head=$(compose exec -T tidings bash -c 'exec 3<>/dev/tcp/127.0.0.1/9090; printf "GET /metrics HTTP/1.0\r\nHost: x\r\n\r\n" >&3; head -c 4096 <&3')
case $metrics_head in
    "HTTP/1."?" 200 "*tidings_*) ;;
    *) fail "tidings:9090/metrics did not answer 200 with metrics: ${metrics_head:0:200}" ;;
esac
pass

# --- Smoke ---------------------------------------------------------------------
# api METHOD PATH TOKEN [JSON]: the body on stdout; fails on a non-2xx status.
api() {
    local method=$1 path=$2 token=$3 body=${4:-}
    local arguments=(-sS -X "$method" -H "Authorization: Bearer $token" -o "$work_dir/response" -w '%{http_code}')
    [ -n "$body" ] && arguments+=(-H 'Content-Type: application/json' --data "$body")
    local status
    status=$(curl "${arguments[@]}" "$base_url$path")
    if [ "${status:0:1}" != 2 ]; then
        echo "$method $path: $status $(cat "$work_dir/response")" >&2
        return 1
    fi
    cat "$work_dir/response"
}
json_field() { python3 -c 'import json, sys; print(json.load(sys.stdin)[sys.argv[1]])' "$1"; }

step "smoke: user, device, watch, webhook, badge through the proxy"
# The test origin and receiver, on the compose network's gateway address.
gateway=$(docker network inspect -f '{{range .IPAM.Config}}{{.Gateway}}{{end}}' "${project}_default")
peer_port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
records=$work_dir/peer-records.jsonl
python3 docker/test/peer.py serve "$gateway" "$peer_port" "$records" &
peer_pid=$!
peer_url=http://$gateway:$peer_port
wait_for 10 curl -fsS "$peer_url/control/ping" || fail "test peer did not start on $peer_url"
user_key=$(api POST /v1/users "$admin_token" '{"name": "Docker Test", "key_name": "docker-test"}' | json_field api_key)
api GET /v1/me "$user_key" >/dev/null
api POST /v1/devices "$user_key" \
    '{"platform": "ios", "push_token": "740f4707bebcf74f9b7c25d48e3358945f6aa01da5ddb387462c7eaf61bb78ad", "name": "Test iPhone"}' >/dev/null
watch_id=$(api POST /v1/watches "$user_key" \
    "{\"url\": \"$peer_url/page\", \"interval_seconds\": 2, \"extract\": {\"css\": \"main .release\"}}" | json_field id)
webhook_secret=$(api POST /v1/webhooks "$user_key" \
    "{\"url\": \"$peer_url/hook\", \"event_types\": [\"watch.changed\", \"badge.updated\"]}" | json_field secret)
case $webhook_secret in whsec_*) ;; *) fail "webhook secret is not a whsec_ secret" ;; esac
badge=$(api GET /v1/badge "$user_key")
[ "$(json_field count <<<"$badge")" = 0 ] || fail "new user's badge is $badge"
# Captured first: `| grep -q` would end the pipe early and fail it (pipefail).
watches=$(api GET /v1/watches "$user_key")
[[ $watches == *"$watch_id"* ]] || fail "watch $watch_id not listed"
document=$(curl -fsS "$base_url/openapi.yaml")
[[ $document == openapi:* ]] || fail "/openapi.yaml not served"
page=$(curl -fsS "$base_url/ui/")
[[ $page == *'src="/ui/app.js"'* ]] || fail "the dashboard is not served through the proxy"
pass

# --- Events (poller and dispatcher) --------------------------------------------
peer_summary() { python3 docker/test/peer.py summary "$records" "$webhook_secret"; }
# peer_count FIELD: one number of the summary (fetches, watch_changed, ...).
peer_count() { peer_summary | json_field "$1"; }
# at_least FIELD N: whether the summary's FIELD has reached N.
at_least() { [ "$(peer_count "$1")" -ge "$2" ]; }
bump_origin() { curl -fsS -X POST "$peer_url/control/bump" >/dev/null; }

check_events() {
    # The first check of a new watch is its baseline and emits nothing.
    wait_for 60 at_least fetches 1 || fail "the origin was never fetched"
    sleep 3
    [ "$(peer_count watch_changed)" = 0 ] || fail "the baseline check emitted watch.changed: $(peer_summary)"
    # An app listening on the event stream, through nginx: the change must
    # arrive there too, unbuffered.
    local stream_file=$work_dir/event-stream.txt stream_pid
    curl -sN -H "Authorization: Bearer $user_key" "$base_url/v1/events?types=watch.changed" >"$stream_file" &
    stream_pid=$!
    wait_for 10 grep -q '^retry:' "$stream_file" || fail "the event stream did not open through the proxy: $(cat "$stream_file")"
    bump_origin
    wait_for 60 at_least watch_changed 1 || fail "no watch.changed arrived: $(peer_summary)"
    wait_for 30 grep -q '^event: watch.changed' "$stream_file" || fail "no watch.changed on the event stream through the proxy: $(cat "$stream_file")"
    kill "$stream_pid" 2>/dev/null || true
    wait_for 30 at_least badge_updated 1 || fail "no badge.updated arrived: $(peer_summary)"
    [ "$(peer_count bad_signatures)" = 0 ] || fail "deliveries with a bad signature: $(peer_summary)"
    [ "$(api GET /v1/badge "$user_key" | json_field count)" = 1 ] || fail "the badge is not 1 after one change"
    peer_summary >&2
}

# With two replicas polling and dispatching: every change detected once and
# every event delivered once.
check_events_at_scale() {
    local before changes=3 i summary
    before=$(peer_count watch_changed)
    for i in $(seq 1 "$changes"); do
        bump_origin
        wait_for 60 at_least watch_changed $((before + i)) || fail "change $i not delivered: $(peer_summary)"
    done
    # Time for a second delivery of any event to show up.
    sleep 10
    summary=$(peer_summary)
    echo "$summary" >&2
    [ "$(json_field duplicates <<<"$summary")" = 0 ] || fail "an event was delivered twice: $summary"
    [ "$(json_field missing_ids <<<"$summary")" = 0 ] || fail "a delivery without webhook-id: $summary"
    [ "$(json_field watch_changed <<<"$summary")" = $((before + changes)) ] || fail "expected $((before + changes)) watch.changed: $summary"
    [ "$(json_field bad_signatures <<<"$summary")" = 0 ] || fail "deliveries with a bad signature: $summary"
}

if [ "$event_steps" = 1 ]; then
    step "events: watch.changed and badge.updated at the receiver and on the stream"
    check_events
    pass
else
    skip "events: watch.changed and badge.updated at the receiver (TIDINGS_DOCKER_TEST_EVENTS=0)"
fi

# --- Scale -----------------------------------------------------------------------
step "scale: --scale tidings=2, both healthy, both serving behind the proxy"
compose up -d --no-build --scale tidings=2 >&2
wait_for 120 service_healthy tidings 2 || fail "not 2 healthy replicas: $(service_health tidings)"
for _ in $(seq 1 20); do
    api GET /v1/me "$user_key" >/dev/null
done
# nginx resolves the service name per request (valid=5s): each replica must
# have answered some of the requests.
sleep 6
for _ in $(seq 1 20); do
    api GET /v1/me "$user_key" >/dev/null
done
for id in $(compose ps -q tidings); do
    served=$(docker logs "$id" 2>&1 | grep -c '/v1/me' || true)
    echo "replica ${id:0:12} served $served /v1/me requests" >&2
    [ "$served" -gt 0 ] || fail "replica ${id:0:12} got no request through the proxy"
done
pass

if [ "$event_steps" = 1 ]; then
    step "events x2: no event delivered twice with two replicas"
    check_events_at_scale
    pass
else
    skip "events x2: no event delivered twice with two replicas (TIDINGS_DOCKER_TEST_EVENTS=0)"
fi

# --- Upgrade and shutdown ------------------------------------------------------
step "upgrade: run --rm tidings migrate; SIGTERM stops replicas with exit 0"
compose run --rm --no-deps -T tidings migrate >&2
compose stop --timeout 30 tidings >&2
for id in $(compose ps -q tidings); do
    code=$(docker inspect -f '{{.State.ExitCode}}' "$id")
    [ "$code" = 0 ] || fail "replica ${id:0:12} exited with $code on SIGTERM"
done
pass

step "compose: down -v"
compose down --volumes --remove-orphans --timeout 30 >&2
[ -z "$(docker ps -aq)" ] || fail "containers left after down -v"
[ -z "$(docker volume ls -q)" ] || fail "volumes left after down -v"
pass
