#!/usr/bin/env bash
# kiln on one torch extension, side by side in one run: cold (empty ccache, no history), the
# project's tests on that build (optional), warm from a fresh copy at another path (same caches),
# warm again with --no-wheel-cache (every unit through ccache), then cold with history (the first
# copy's path and build folder, an empty cache). Logs are written outside the copies: a file
# written into a project while kiln starts is one of the wheel cache's inputs.
# usage: bench/cold_warm_history.sh KILN PYTHON SRC OUT [TEST_SECONDS TEST COMMAND...]
# Writes OUT/summary.txt and, per build, OUT/LABEL.{log,kiln-build.log,exec.jsonl,report.txt,report.json}.
set -u
kiln=$(readlink -f "$1"); py=$2; src=$(readlink -f "$3"); out=$(readlink -f "$4"); shift 4
measure="$(cd "$(dirname "$0")" && pwd)/measure.py"
mkdir -p "$out"; work=$(mktemp -d /tmp/kiln-cwh-XXXX)
one() {  # label copy cache build-dir [kiln args]
  local label=$1 dir=$2 cc=$3 bd=$4; shift 4
  [ -d "$dir" ] || cp -r "$src" "$dir"
  rm -rf "$dir/build"
  read -r wall rss rc < <(cd "$out" && "$py" "$measure" "$kiln" build "$dir" --gpu h100 --prune-archs --python "$py" \
      --cache-dir "$cc" --build-dir "$bd" "$@")
  mv "$out/build.log" "$out/$label.log"
  cp "$bd/kiln-build.log" "$out/$label.kiln-build.log"; cp "$bd/kiln-exec.jsonl" "$out/$label.exec.jsonl" 2>/dev/null
  "$kiln" report "$dir" > "$out/$label.report.txt" 2>&1
  "$kiln" report "$dir" --json > "$out/$label.report.json" 2>/dev/null
  echo "$label wall=$wall s largest_rss=$rss MiB rc=$rc | $(grep -m1 -E '^(built|installed)' "$out/$label.log" | cut -c1-160) | $(grep -m1 '^ccache' "$out/$label.log")" | tee -a "$out/summary.txt"
}
one cold "$work/p" "$work/cc1" "$work/b"
if [ $# -gt 1 ]; then
  secs=$1; shift
  (cd /tmp && timeout "$secs" "$@" > "$out/tests.log" 2>&1; echo "test rc=$?" >> "$out/tests.log")
  echo "tests: $(tail -3 "$out/tests.log" | tr '\n' ' ')" | tee -a "$out/summary.txt"
fi
one warm "$work/q" "$work/cc1" "$work/bq"
one warm-no-wheel-cache "$work/r" "$work/cc1" "$work/br" --no-wheel-cache
one cold-history "$work/p" "$work/cc2" "$work/b"
rm -rf "$work"
