#!/usr/bin/env bash
# docs/benchmarks.md, section "report/bench": kiln bench over archs (one vs four) x cache (cold vs
# warm) on the bundled example, or on a generated CUDA project while the example is not there.
# Usage: bench/report_bench.sh KILN [DIR] [extra kiln bench flags, e.g. --repeat 3 --cost-per-hour 3.5]
set -euo pipefail
kiln=$(readlink -f "$1"); shift
here=$(cd "$(dirname "$0")" && pwd)
dir=${1:-}
[ $# -gt 0 ] && shift
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
if [ -z "$dir" ]; then
  if [ -f "$here/../examples/minitorch/CMakeLists.txt" ]; then dir=$here/../examples/minitorch
  else dir=$work/gen; bash "$here/gen_cuda_project.sh" "$dir"; fi
fi
echo "project: $dir; machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo); $(date -u +%F)"
"$kiln" bench "$dir" --bench-dir "$work/bench" \
  --matrix archs=80-real,80-real+90-real+100-real+120-real --matrix cache=cold,warm --markdown "$@"
