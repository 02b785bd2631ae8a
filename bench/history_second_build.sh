#!/usr/bin/env bash
# Issue 19: what a first build teaches the next checkout. Two cold builds of one project, each from
# a fresh copy at a new path with an empty ccache and no kept wheel (KILN_NO_WHEEL_CACHE=1), the
# second with the kiln user cache of the first (its learned unit history, keyed by the unit's path
# inside the project, not the checkout's path). Each row: bench/project_bound.sh's bound and ratio.
# usage: bench/history_second_build.sh KILN PYTHON CHECKOUT OUT [GPU]
set -u
kiln=$1 py=$2 src=$3 out=$4 gpu=${5:-h100}
here=$(cd "$(dirname "$0")" && pwd)
xdg=$(mktemp -d /tmp/kiln-hist-XXXX)
export KILN_BENCH_XDG=$xdg KILN_NO_WHEEL_CACHE=1
for run in first second; do
  echo "== $run build ($(ls "$xdg/kiln/units" 2>/dev/null | wc -l) units known)"
  bash "$here/project_bound.sh" "$kiln" "$py" "$src" "$out/$run" "$gpu" > "$out/$run.log" 2>&1
  echo "exit $?"
  cat "$out/$run/grants.txt" 2>/dev/null | cut -c1-140
  tail -1 "$out/$run/row.md" 2>/dev/null
done
rm -rf "$xdg"
