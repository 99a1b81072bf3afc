#!/usr/bin/env bash
# Builds the libFuzzer binary (Fuzz/Sources/TidingsFuzz) and runs fuzz
# targets for a bounded time each. docs/FUZZING.md.
#
#   scripts/fuzz.sh [TARGET...]      every target when none is named
#
# Environment:
#   FUZZ_SECONDS      seconds per target (default 60)
#   FUZZ_SCRATCH      build path (default .build-fuzz, kept between runs)
#   FUZZ_ARTIFACTS    where crashing inputs go (default .build-fuzz/artifacts)
#
# New inputs that reach new code go to a scratch corpus under the build
# path, never into Fuzz/corpus (the seeds stay a handful of small files;
# add one by hand when it is worth keeping). Exits non-zero if any target
# found a crash or a failed property; the input is named in the output.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=${FUZZ_SECONDS:-60}
scratch=${FUZZ_SCRATCH:-.build-fuzz}
artifacts=${FUZZ_ARTIFACTS:-$scratch/artifacts}

# The fuzz target exists in Package.swift only with TIDINGS_FUZZ set.
export TIDINGS_FUZZ=1
build_flags=(-c debug --scratch-path "$scratch" --product TidingsFuzz
    -Xswiftc -sanitize=fuzzer,address)
started=$SECONDS
mkdir -p "$scratch"
# The log stays quiet unless the build fails (ld.gold also prints harmless
# "Cannot export local symbol '__asan_...'" warnings).
if ! swift build "${build_flags[@]}" >"$scratch/build.log" 2>&1; then
    grep -v "Cannot export local symbol '__asan" "$scratch/build.log" | tail -n 60 >&2
    exit 1
fi
echo "fuzz build: $((SECONDS - started)) s" >&2
binary="$(swift build "${build_flags[@]}" --show-bin-path)/TidingsFuzz"

if [ $# -gt 0 ]; then
    targets=("$@")
else
    targets=()
    for dir in Fuzz/corpus/*/; do targets+=("$(basename "$dir")"); done
fi

mkdir -p "$artifacts"
# libFuzzer prints the stack of a trap; Swift's own backtracer would
# only add a slow second one.
export SWIFT_BACKTRACE=enable=no
failed=()
for target in "${targets[@]}"; do
    work="$scratch/corpus/$target"
    mkdir -p "$work"
    echo "== $target (${seconds}s)" >&2
    log="$scratch/fuzz-$target.log"
    if TIDINGS_FUZZ_TARGET=$target "$binary" "$work" "Fuzz/corpus/$target" \
        -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=4096 \
        -print_final_stats=1 -artifact_prefix="$artifacts/$target-" >"$log" 2>&1; then
        grep -E "^stat::(number_of_executed_units|average_exec_per_sec|new_units_added)" "$log" | tr '\n' ' ' >&2
        echo >&2
    else
        tail -n 40 "$log" >&2
        failed+=("$target")
    fi
done
echo "fuzzing took $((SECONDS - started)) s in all" >&2
if [ ${#failed[@]} -gt 0 ]; then
    echo "fuzz targets with findings: ${failed[*]} (inputs in $artifacts)" >&2
    exit 1
fi
