#!/usr/bin/env bash
# A CMake CUDA project's products are what its link steps make (issue 33, a newcomer's run through
# robertmaynard/code-samples e91effd posts/cmake): its static library is verified, and the device-link
# object of CUDA_SEPARABLE_COMPILATION (CMakeFiles/<t>.dir/cmake_device_link.o) is not a product. Built
# with only the library, the build had failed as "has CUDA code but the build compiled none".
set -euo pipefail
kiln=$1
src=$2
. "$(dirname "$0")/lib/common.sh"
. "$(dirname "$0")/lib/cuda_project.sh"
cuda_suite_work
export CCACHE_DIR=$work/ccache
proj=$src/tests/fixtures/projects/cuda-static-separable
check() {  # JSON WANT...: the build succeeded and its artifacts are exactly WANT (basenames)
  python3 - "$@" <<'PY'
import json, os, sys
o = json.load(open(sys.argv[1]))["outcome"]
assert o["ok"] and o["exit_code"] == 0, (o["failed_step"], o["diagnosis"])
got = sorted(os.path.basename(a) for a in o["artifacts"])
assert got == sorted(sys.argv[2:]), got
assert all(f["gpus"][0]["verdict"] == "native" for f in o["verify"]["files"]), o["verify"]
PY
}
rc=0; "$kiln" build "$proj" --gpu h100 --build-dir "$work/all" --json > "$work/all.json" 2> "$work/err" || rc=$?
[ $rc -eq 0 ] || { echo "exit $rc"; tail -5 "$work/err"; exit 1; }
check "$work/all.json" libscale.a scale_demo || fail "library and program"
rc=0; "$kiln" build "$proj" --gpu h100 -D BUILD_TESTING=OFF --build-dir "$work/lib" --json > "$work/lib.json" 2> "$work/err" || rc=$?
[ $rc -eq 0 ] || { echo "library alone: exit $rc"; tail -5 "$work/err"; exit 1; }
check "$work/lib.json" libscale.a || fail "library alone"
echo PASS
