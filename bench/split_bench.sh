#!/usr/bin/env bash
# A torch extension on a GPU host, kiln cold (empty ccache, no history: the first-build thread rule)
# then kiln warm from a fresh copy at another path (same ccache), side by side in one run; between
# them, the project's own tests on what the cold build (with split threads) installed.
# usage: bench/split_bench.sh KILN PYTHON SRC OUT [GPU] [TEST_SECONDS] [TEST COMMAND...]
# (the test command runs in /tmp, so it imports the installed module, e.g. PYTHON -m pytest -v FILE)
# Writes OUT/summary.md, OUT/{cold,warm}.{log,report.txt,report.json,exec.jsonl}, OUT/tests.log.
set -u
kiln=$(readlink -f "$1"); py=$2; src=$(readlink -f "$3"); out=$(readlink -f "$4"); gpu=${5:-h100}; secs=${6:-120}
shift $(($# < 6 ? $# : 6))
mkdir -p "$out"
measure="$(cd "$(dirname "$0")" && pwd)/measure.py"
work=$(mktemp -d /tmp/kiln-split-XXXX)
cache=$work/ccache
summary=$out/summary.md
echo "| build | wall | largest process | concurrent peak (kiln report) | budget | cache | bound / efficiency |" > "$summary"
echo "|---|---|---|---|---|---|---|" >> "$summary"
one() {  # label
  local label=$1 dir=$work/$1
  cp -r "$src" "$dir"
  rm -rf "$dir/build"
  (cd "$dir" && read -r wall rss rc < <("$py" "$measure" "$kiln" build "$dir" --gpu "$gpu" --prune-archs --python "$py" \
      --cache-dir "$cache" --build-dir "$work/$label-build")
   cp build.log "$out/$label.log"
   "$kiln" report "$dir" > "$out/$label.report.txt" 2>&1
   "$kiln" report "$dir" --json > "$out/$label.report.json" 2>/dev/null
   cp "$work/$label-build/kiln-exec.jsonl" "$out/$label.exec.jsonl" 2>/dev/null
   cp "$work/$label-build/kiln-build.json" "$out/$label.build.json" 2>/dev/null
   local peak budget cache_line bound
   peak=$(grep -m1 '^memory' "$out/$label.report.txt" | sed 's/^memory *//; s/ (.*//')
   budget=$(grep -o 'fit in [0-9.]* GiB' "$out/$label.log" | head -1)
   cache_line=$(grep -m1 '^cache' "$out/$label.report.txt" | sed 's/^cache *//')
   bound=$(grep -m1 '^efficiency' "$out/$label.report.txt" | sed 's/^efficiency *//; s/:.*(/ (/')
   echo "| kiln $label (rc=$rc) | $wall s | $rss MiB | $peak | ${budget:-?} | $cache_line | $bound |" >> "$summary")
}
one cold
# The project's own tests against what the cold build installed (time-boxed; -v lists each result).
if [ $# -gt 0 ]; then
  (cd /tmp && timeout "$secs" "$@" > "$out/tests.log" 2>&1; echo "test rc=$? (124: stopped at ${secs}s)" >> "$out/tests.log")
  echo >> "$summary"
  echo "tests ($*): $(grep -c ' PASSED' "$out/tests.log") PASSED lines, $(grep -c ' FAILED' "$out/tests.log") FAILED lines; last lines: $(tail -2 "$out/tests.log" | tr '\n' ' ')" >> "$summary"
fi
echo >> "$summary"
one warm
cat "$summary"
rm -rf "$work"
