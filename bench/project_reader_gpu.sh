#!/usr/bin/env bash
# Issue 20 on the GPU host: projects whose CUDA switches hide where line patterns miss them, built
# with no variable set by hand.
#   1. DeepSpeed (op builders): kiln's plan turns on the ops that can build for the H100; to keep
#      device time short every op but fused_adam is left to JIT with --knob (kiln's choice for
#      fused_adam is kept and checked), the op is built, loaded and compared with torch.optim.Adam.
#   2. detectron2 (a CUDA gate over three lines): built with CUDA_VISIBLE_DEVICES="" (torch sees no
#      GPU, as in a Docker build); kiln sets FORCE_CUDA=1 itself; `kiln verify` checks sm_90.
# usage: bench/project_reader_gpu.sh KILN PYTHON DEEPSPEED_CHECKOUT DETECTRON2_CHECKOUT
# Each checkout is copied to a scratch folder first (the build writes into the project folder).
set -u
check=$(cd "$(dirname "$0")" && pwd)/device/fused_adam_check.py
kiln=$(readlink -f "$1"); py=$2; ds_src=$(readlink -f "$3"); d2_src=$(readlink -f "$4")
work=$(mktemp -d)
fail=0
say() { printf '%s\n' "$*"; }

say "== DeepSpeed: plan"
cp -r "$ds_src" "$work/ds"
"$kiln" plan "$work/ds" --python "$py" --json > "$work/ds-plan.json" || { say "FAIL: kiln plan exit $?"; fail=1; }
# Every op kiln would pre-build except fused_adam goes back to JIT (device time); fused_adam keeps kiln's value.
mapfile -t knobs < <("$py" - "$work/ds-plan.json" <<'PY'
import json, sys
plan = json.load(open(sys.argv[1]))
ops = [k for k in plan["knobs"] if k["role"] == "op"]
fa = [k for k in ops if k["name"] == "DS_BUILD_FUSED_ADAM"]
print(f"# {len(ops)} ops; on: {[k['name'] for k in ops if k['value'] == '1']}", file=sys.stderr)
print(f"# left off: {[(k['name'], k['reason']) for k in ops if k['value'] == '0']}", file=sys.stderr)
assert fa and fa[0]["value"] == "1" and fa[0]["origin"] == "kiln", fa
for k in ops:
    if k["name"] != "DS_BUILD_FUSED_ADAM" and k["value"] == "1":
        print("--knob"); print(k["name"] + "=0")
PY
) || { say "FAIL: the plan does not turn DS_BUILD_FUSED_ADAM on"; fail=1; }
say "== DeepSpeed: build (fused_adam)"
start=$(date +%s)
"$kiln" build "$work/ds" --python "$py" "${knobs[@]}" > "$work/ds-build.log" 2>&1 || { say "FAIL: kiln build exit $? (tail:)"; tail -30 "$work/ds-build.log"; fail=1; }
say "build: $(( $(date +%s) - start )) s"
so=$(cd /tmp && "$py" -c "import importlib.util,glob,os; d=os.path.dirname(importlib.util.find_spec('deepspeed').origin); print(*glob.glob(d+'/ops/adam/fused_adam_op*.so'))" 2>/dev/null)
say "op: ${so:-not found}"
if [ -n "$so" ]; then
  "$kiln" verify "$so" --archs 9.0 || { say "FAIL: kiln verify $so"; fail=1; }
  # Load the op alone (importing deepspeed would need its run-time dependencies) and take one
  # Adam step against torch.optim.Adam.
  (cd /tmp && "$py" "$check" "$so") || { say "FAIL: fused_adam does not match torch.optim.Adam"; fail=1; }
fi

say "== detectron2: build with CUDA_VISIBLE_DEVICES=\"\""
cp -r "$d2_src" "$work/d2"
CUDA_VISIBLE_DEVICES="" "$kiln" plan "$work/d2" --python "$py" --archs 9.0 | grep -E "FORCE_CUDA|gate" || { say "FAIL: no FORCE_CUDA in the plan"; fail=1; }
start=$(date +%s)
CUDA_VISIBLE_DEVICES="" "$kiln" build "$work/d2" --python "$py" --archs 9.0 > "$work/d2-build.log" 2>&1 || { say "FAIL: kiln build exit $? (tail:)"; tail -30 "$work/d2-build.log"; fail=1; }
say "build: $(( $(date +%s) - start )) s"
so=$(cd /tmp && "$py" -c "import importlib.util,glob,os; d=os.path.dirname(importlib.util.find_spec('detectron2').origin); print(*glob.glob(d+'/_C*.so'))" 2>/dev/null)
say "extension: ${so:-not found}"
if [ -n "$so" ]; then
  "$kiln" verify "$so" --archs 9.0 || { say "FAIL: kiln verify $so"; fail=1; }
fi
[ $fail -eq 0 ] && say "ok" || say "FAILED"
exit $fail
