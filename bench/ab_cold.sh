#!/usr/bin/env bash
# Two kiln binaries side by side on one project, in one run (these machines are shared and noisy):
# rounds of A then B, each a cold build of a fresh copy (empty ccache, empty kiln cache, `kiln build
# COPY --gpu GPU --prune-archs`), one row each: the wall time and the compiles' span from kiln report.
# usage: bench/ab_cold.sh KILN_A KILN_B PYTHON CHECKOUT [ROUNDS] [GPU]
set -u
a=$(readlink -f "$1") b=$(readlink -f "$2") py=$3 src=$(readlink -f "$4") rounds=${5:-2} gpu=${6:-h100}
printf '%-6s %-5s %8s %9s %8s\n' binary round wall compiles cpu
for r in $(seq 1 "$rounds"); do
  for side in A B; do
    kiln=$a; [ "$side" = B ] && kiln=$b
    work=$(mktemp -d /tmp/kiln-ab-XXXX)
    proj=$work/$(basename "$src")
    cp -r "$src" "$proj" && rm -rf "$proj/build" "$proj/build-kiln" "$proj"/*.egg-info
    start=$(date +%s.%N)
    CCACHE_DIR=$work/ccache XDG_CACHE_HOME=$work/xdg "$kiln" build "$proj" --gpu "$gpu" --prune-archs --python "$py" \
      > "$work/build.log" 2>&1 || { echo "$side $r: kiln build failed"; tail -5 "$work/build.log"; }
    end=$(date +%s.%N)
    "$kiln" report "$proj" --json 2>/dev/null | "$py" -c "
import json, sys
r = json.load(sys.stdin)
print(f\"{sys.argv[1]:<6} {sys.argv[2]:<5} {float(sys.argv[4]) - float(sys.argv[3]):7.1f}s {r['makespan_s']:8.1f}s {r['total_cpu_s']:7.0f}s\")
" "$side" "$r" "$start" "$end"
    rm -rf "$work"
  done
done
