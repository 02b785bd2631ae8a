#!/usr/bin/env bash
# A project and a build folder whose paths hold a space (issue 21): every argument kiln hands the
# compilers (and NVCC_APPEND_FLAGS, which nvcc splits on blanks) must survive it, with the governor
# and split compilation on, as plain CMake + Ninja would.
set -euo pipefail
kiln=$1
. "$(dirname "$0")/lib/common.sh"
. "$(dirname "$0")/lib/cuda_project.sh"
cuda_suite_work
proj="$work/my proj"
write_tiny_cuda_project "$proj"
export CCACHE_DIR="$work/cc dir"
"$kiln" build "$proj" --archs 80-real --build-dir "$work/build out" > "$work/out.txt" 2>&1 \
  || { cat "$work/out.txt"; tail -30 "$work/build out/kiln-build.log"; exit 1; }
[ -f "$work/build out/libk.so" ] || fail "no libk.so"
# The phases were still recorded for the .cu units (the --time file path survived the split).
grep -q '"phases"' "$work/build out/.kiln/kiln-exec.jsonl" 2>/dev/null \
  || grep -rq '"phases"' "$work/build out" || fail "no nvcc phases recorded"
echo PASS
