#!/usr/bin/env bash
# changedetection.io against the same kind of origin as bench/poller.sh:
# nginx (one worker, ETags, keep-alive, access log on to count requests)
# serving BENCH_WATCHES pages; changedetection.io (PyPI, in a virtualenv
# under BENCH_CD_DIR) with its fastest settings (plain HTTP fetcher,
# FETCH_WORKERS=BENCH_CD_WORKERS, MINIMUM_SECONDS_RECHECK_TIME=1, every
# watch rechecked every second) gets the same pages through its REST API.
# The checks/s is the origin's request rate over BENCH_CD_SECONDS after the
# watches were added (counted by the access log's timestamps). Pass
# Tidings' checks/s (and optionally its sustained rate) to print the ratio.
# With BENCH_CD_URLS (a file of URLs, one a line) and BENCH_CD_ACCESS_LOG
# (that origin's "<msec> <status> <bytes>" log) it watches those URLs on an
# origin already running (bench/poller.sh's mixed workload) instead of
# starting its own; BENCH_CD_SELECTOR sets a CSS selector on every watch
# (include_filters).
# Usage: bench/changedetection.sh [tidings_checks_per_second [tidings_sustained_checks_per_second]]
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh

watches=${BENCH_WATCHES:-10000}
seconds=${BENCH_CD_SECONDS:-60}
workers=${BENCH_CD_WORKERS:-10}
origin_port=${BENCH_ORIGIN_PORT:-18092}
cd_port=${BENCH_CD_PORT:-18093}
cd_dir=${BENCH_CD_DIR:-/tmp/tidings-bench-changedetection}
tidings_rate=${1:-}
tidings_sustained=${2:-}

command -v nginx >/dev/null || scripts/install-deps.sh nginx-light
if [ ! -x "$cd_dir/venv/bin/changedetection.io" ]; then
    python3 -m venv "$cd_dir/venv"
    "$cd_dir/venv/bin/pip" install --quiet --disable-pip-version-check changedetection.io
fi
work=$(mktemp -d /tmp/tidings-cd-bench.XXXXXX)
chmod 755 "$work"
mkdir -p "$work/datastore"
if [ -n "${BENCH_CD_URLS:-}" ]; then
    cp "$BENCH_CD_URLS" "$work/urls.txt"
    access_log=$BENCH_CD_ACCESS_LOG
else
    access_log=$work/nginx/access.log
    bench_start_origin "$work" "$origin_port" "$watches" "$access_log"
    seq 0 $((watches - 1)) | sed "s|.*|http://127.0.0.1:$origin_port/p&.html|" >"$work/urls.txt"
fi
watches=$(wc -l <"$work/urls.txt")

# ALLOW_IANA_RESTRICTED_ADDRESSES: since 0.50 its fetcher refuses loopback
# and private addresses (SSRF guard) unless this is set; the origin is on
# 127.0.0.1. (Without it every check fails before a request is sent.)
ALLOW_IANA_RESTRICTED_ADDRESSES=true FETCH_WORKERS=$workers MINIMUM_SECONDS_RECHECK_TIME=1 \
    "$cd_dir/venv/bin/changedetection.io" -d "$work/datastore" -h 127.0.0.1 -p "$cd_port" >"$work/cd.log" 2>&1 &
pid=$!
stop() {
    # It can take minutes to exit on SIGTERM with a full queue: give it 10 s.
    kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
    kill -KILL "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
    bench_stop_origin "$work"
    rm -rf "$work"
}
trap stop EXIT

for _ in $(seq 1 300); do
    curl -fs "http://127.0.0.1:$cd_port/" >/dev/null 2>&1 && break
    sleep 0.2
done
curl -fs "http://127.0.0.1:$cd_port/" >/dev/null || { tail -50 "$work/cd.log" >&2; exit 1; }

echo "changedetection.io $("$cd_dir/venv/bin/pip" show changedetection.io 2>/dev/null | sed -n 's/^Version: //p'), FETCH_WORKERS=$workers, $watches watches${BENCH_CD_SELECTOR:+, CSS selector '$BENCH_CD_SELECTOR'}"
python3 - "$work/datastore" "$cd_port" "$work/urls.txt" "${BENCH_CD_SELECTOR:-}" <<'PY'
import glob, json, sys, time, urllib.request
datastore, cd_port, urls, selector = sys.argv[1], sys.argv[2], open(sys.argv[3]).read().split(), sys.argv[4]
# The API key is generated into the datastore on first start.
key = None
for _ in range(100):
    for path in glob.glob(f"{datastore}/**/*.json", recursive=True):
        try:
            settings = json.load(open(path)).get("settings", {}).get("application", {})
        except Exception:
            continue
        key = key or settings.get("api_access_token")
    if key:
        break
    time.sleep(0.2)
if not key:
    sys.exit("no api_access_token found in the datastore")
started = time.time()
for url in urls:
    watch = {"url": url,
             "time_between_check": {"seconds": 1},
             # Otherwise the API keeps the global default (3 hours) and
             # ignores the per-watch interval.
             "time_between_check_use_default": False}
    if selector:
        watch["include_filters"] = [selector]
    body = json.dumps(watch).encode()
    request = urllib.request.Request(f"http://127.0.0.1:{cd_port}/api/v1/watch", data=body, method="POST",
                                     headers={"x-api-key": key, "Content-Type": "application/json"})
    urllib.request.urlopen(request, timeout=30).read()
print(f"added {len(urls)} watches through the API in {time.time() - started:.1f} s")
PY

sleep 5
window_start=$(date +%s.%N)
sleep "$seconds"
window_end=$(date +%s.%N)
sleep 2 # the origin's log buffer is flushed every second
read -r requests rate <<<"$(awk -v from="$window_start" -v to="$window_end" '$1 >= from && $1 < to {n++; s[$2]++; b+=$3}
    END {printf "%d %.1f\n", n, n / (to - from); for (k in s) printf "  status %s: %d\n", k, s[k] > "/dev/stderr";
         if (n) printf "  %.0f body bytes per check\n", b / n > "/dev/stderr"}' "$access_log" 2>"$work/statuses")"
echo "changedetection.io: $requests origin requests in ${seconds} s = $rate checks/s"
cat "$work/statuses"
if [ -n "$tidings_rate" ]; then
    python3 -c "print(f'Tidings / changedetection.io = {$tidings_rate / $rate:.0f}x (whole round)')"
fi
if [ -n "$tidings_sustained" ]; then
    python3 -c "print(f'Tidings / changedetection.io = {$tidings_sustained / $rate:.0f}x (sustained, first to last check)')"
fi
