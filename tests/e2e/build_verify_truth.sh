#!/usr/bin/env bash
# A build whose files do not run where planned is a failed build, in text and JSON alike (issue 21):
# kept with --keep-project-archs, the project's own CUDA_ARCHITECTURES 75-real beats the plan's sm_90;
# the fix names that line. By default (issue 35) kiln's launcher compiles the plan's sm_90 in its place.
set -euo pipefail
kiln=$1
. "$(dirname "$0")/lib/common.sh"
. "$(dirname "$0")/lib/cuda_project.sh"
cuda_suite_work
proj=$work/proj
write_tiny_cuda_project "$proj"
echo 'set_target_properties(k PROPERTIES CUDA_ARCHITECTURES 75-real)' >> "$proj/CMakeLists.txt"
export CCACHE_DIR=$work/ccache
rc=0; "$kiln" build "$proj" --gpu h100 --keep-project-archs --build-dir "$work/b" --json > "$work/out.json" 2> "$work/err" || rc=$?
[ $rc -eq 1 ] || { echo "exit $rc"; cat "$work/err"; exit 1; }
python3 - "$work/out.json" <<'PY'
import json, sys
o = json.load(open(sys.argv[1]))["outcome"]
assert o["ok"] is False and o["exit_code"] == 1 and o["failed_step"] == "verify", o
assert "CMakeLists.txt:6" in o["diagnosis"]["fix"] and "CUDA_ARCHITECTURES 75-real" in o["diagnosis"]["fix"], o["diagnosis"]
PY
rc=0; "$kiln" build "$proj" --gpu h100 --keep-project-archs --build-dir "$work/b" > "$work/out.txt" 2> "$work/err" || rc=$?
[ $rc -eq 1 ] || fail "text: exit $rc"
grep -q "^FAILED" "$work/out.txt" || { echo "no FAILED in:"; cat "$work/out.txt"; exit 1; }
grep -q "FAILED: verify: .*CUDA_ARCHITECTURES 75-real" "$work/err" || { cat "$work/err"; exit 1; }
rc=0; "$kiln" build "$proj" --gpu h100 --build-dir "$work/d" > "$work/def.txt" 2> "$work/err" || rc=$?
[ $rc -eq 0 ] || { echo "default (plan's targets): exit $rc"; cat "$work/err"; exit 1; }
"$kiln" inspect "$work/d" > "$work/inspect.txt" 2>&1 || true
grep -q "sm_90" "$work/inspect.txt" && ! grep -q "sm_75" "$work/inspect.txt" \
  || { echo "default build is not exactly sm_90:"; cat "$work/inspect.txt"; exit 1; }
echo PASS
