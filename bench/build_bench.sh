#!/usr/bin/env bash
# Cold vs warm builds of a project (default: the bundled example) with kiln, side by side in one
# run: a build with an empty ccache, a rebuild in a fresh build folder with that cache warm, and a
# no-cache build for reference. Prints a Markdown table for docs/benchmarks.md.
# usage: bench/build_bench.sh [KILN] [DIR] [ARCHS]
set -eu
kiln=$(readlink -f "${1:-build/kiln}")
dir=$(readlink -f "${2:-examples/minitorch}")
archs=${3:-80-real;90-real;100-real;120}
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
export CCACHE_DIR=$work/ccache
run() {  # label, build dir, extra args...
  local label=$1 bdir=$2; shift 2
  "$kiln" build "$dir" --archs "$archs" --from cmake --build-dir "$bdir" --json "$@" > "$work/out.json"
  python3 - "$work/out.json" "$label" <<'PY'
import json, sys
o = json.load(open(sys.argv[1]))["outcome"]
c = o["cache"]
cache = f'{c["hits"]}/{c["hits"] + c["misses"]} hits' if c else "no cache"
print(f'| {sys.argv[2]} | {o["configure_seconds"] + o["build_seconds"]:.1f} s | {o["build_seconds"]:.1f} s | {o["steps"]} | {cache} | {o["peak_rss_mib"]} MiB |')
PY
}
echo "| build | total | compile | steps | ccache | peak RSS |"
echo "|---|---|---|---|---|---|"
run "no cache" "$work/nocache" --no-ccache
run "cold cache" "$work/cold"
run "warm cache, fresh build folder" "$work/warm"
echo
echo "project $dir, targets $archs, $(nproc) cores, $(date -u +%F)"
