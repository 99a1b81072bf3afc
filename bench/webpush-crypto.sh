#!/usr/bin/env bash
# The CPU cost of Web Push's crypto per message (docs/BENCHMARKS.md):
# encryption (RFC 8291: a fresh P-256 key, ECDH, HKDF, AES-128-GCM) and a
# VAPID token (RFC 8292: an ES256 signature), each alone and the parts of
# encryption apart. No server, no database, no network.
#
#   bench/webpush-crypto.sh [RUNS] [ITERATIONS]     defaults 5 and 2000
#
# Builds bench/webpush-crypto/main.swift in release mode. The executable
# is declared in Package.swift only when TIDINGS_BENCH_CRYPTO is set, so
# `swift build` and `swift test` never see it; its build path is
# .build-bench, apart from the usual one. Each run is its own process;
# the figures are microseconds of CPU per call, each run's mean, then the
# median and the spread (min-max) over the runs.
set -euo pipefail
cd "$(dirname "$0")/.."

runs=${1:-5}
iterations=${2:-2000}
scratch=.build-bench

export TIDINGS_BENCH_CRYPTO=1
make --no-print-directory -s deps
swift build -c release --scratch-path "$scratch" --product TidingsCryptoBench >/tmp/tidings-bench-crypto-build.log 2>&1 \
    || { cat /tmp/tidings-bench-crypto-build.log >&2; exit 1; }
binary="$(swift build -c release --scratch-path "$scratch" --show-bin-path)/TidingsCryptoBench"

results=$(mktemp /tmp/tidings-bench-crypto.XXXXXX)
trap 'rm -f "$results"' EXIT
for run in $(seq 1 "$runs"); do
    "$binary" "$iterations" | sed "s/^/$run /" | tee -a "$results" >&2
done
python3 - "$results" <<'PY'
import statistics, sys
figures = {}
for line in open(sys.argv[1]):
    run, name, value = line.split()
    figures.setdefault(name, []).append(float(value))
print(f"{'µs of CPU per call':<20} {'median':>8} {'min-max':>14}   runs")
for name, values in figures.items():
    spread = f"{min(values):.1f}-{max(values):.1f}"
    print(f"{name:<20} {statistics.median(values):>8.1f} {spread:>14}   " + " / ".join(f"{v:.1f}" for v in values))
PY
