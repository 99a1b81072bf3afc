#!/usr/bin/env bash
# TidingsKit's public API, held to the checked-in dump scripts/api/TidingsKit.json
# (decision 0047), and its documentation: `make test` runs it after the suite.
#
#   1. swift-api-digester compares the built module with the dump: a change
#      that breaks apps (a removed or renamed declaration, a changed type, a
#      removed default argument, ...) fails with the digester's diagnostics.
#   2. A fresh dump must equal the checked-in one, so that additions are
#      reviewed too (and a later removal of them is caught): after an
#      intended change run `scripts/api-check.sh --update` and commit the dump.
#   3. Every public declaration has a documentation comment, and the DocC
#      catalog (Sources/TidingsKit/TidingsKit.docc) converts with no
#      warnings, so its articles' links resolve.
set -euo pipefail
cd "$(dirname "$0")/.."

baseline=scripts/api/TidingsKit.json
work=$(mktemp -d /tmp/tidings-api-check.XXXXXX)
trap 'rm -rf "$work"' EXIT

swift build --target TidingsKit >&2
modules="$(swift build --show-bin-path)/Modules"
triple=$(swift -print-target-info | python3 -c 'import json,sys; print(json.load(sys.stdin)["target"]["triple"])')

swift-api-digester -dump-sdk -module TidingsKit -I "$modules" -avoid-location -avoid-tool-args -o "$work/current.json"
if [ "${1:-}" = "--update" ]; then
    mkdir -p "$(dirname "$baseline")"
    cp "$work/current.json" "$baseline"
    echo "updated $baseline" >&2
    exit 0
fi

status=0
if ! swift-api-digester -diagnose-sdk -module TidingsKit -I "$modules" -baseline-path "$baseline" -compiler-style-diags; then
    echo "api-check: TidingsKit's public API breaks apps built against $baseline (above)." >&2
    status=1
elif ! cmp -s "$baseline" "$work/current.json"; then
    echo "api-check: TidingsKit's public API grew; review it, then run scripts/api-check.sh --update and commit $baseline." >&2
    status=1
fi

mkdir -p "$work/symbols"
swift-symbolgraph-extract -module-name TidingsKit -I "$modules" -target "$triple" -minimum-access-level public -output-dir "$work/symbols"
# Symbols without a location are the compiler's (synthesized Hashable, ...).
if ! python3 - "$work/symbols" <<'PYTHON'
import glob, json, sys
missing = [
    ".".join(symbol["pathComponents"])
    for path in glob.glob(sys.argv[1] + "/*.symbols.json")
    for symbol in json.load(open(path))["symbols"]
    if "docComment" not in symbol and "location" in symbol
]
for name in sorted(missing):
    print(f"api-check: public {name} has no documentation comment", file=sys.stderr)
sys.exit(1 if missing else 0)
PYTHON
then
    status=1
fi
if ! docc convert Sources/TidingsKit/TidingsKit.docc --additional-symbol-graph-dir "$work/symbols" \
    --output-path "$work/TidingsKit.doccarchive" --warnings-as-errors >"$work/docc.log" 2>&1; then
    cat "$work/docc.log" >&2
    echo "api-check: the DocC catalog does not convert cleanly (above)." >&2
    status=1
fi
[ $status -eq 0 ] && echo "api-check: TidingsKit's API matches $baseline, documented, DocC builds" >&2
exit $status
