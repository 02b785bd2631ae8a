#!/usr/bin/env bash
# Issue 20 on the GPU host: DeepSpeed's CUDA ops built for the H100 with the host's own
# TORCH_CUDA_ARCH_LIST=9.0a left set (no variable set by hand, no --archs). DeepSpeed's op builder
# int()s each part of an entry (op_builder/builder.py:742) and crashed on "0a" before kiln read that
# parser; kiln's plan now passes 9.0 to the project and adds sm_90a through its nvcc launcher.
#   1. The failure itself, without kiln: DeepSpeed's setup.py with 9.0a; `kiln diagnose` on its log
#      must name python.arch-list-int-suffix and builder.py:742 (seconds: it fails before compiling).
#   2. kiln plan: the note naming the parser, TORCH_CUDA_ARCH_LIST=9.0, KILN_EXTRA_ARCHS=90a-real,
#      DS_BUILD_FUSED_ADAM=1; every other op kiln would pre-build is left to JIT (--knob X=0: device time).
#   3. kiln build; fused_adam_op*.so holds sm_90 and sm_90a (kiln verify), loads, and one Adam step
#      matches torch.optim.Adam (max abs difference < 1e-6).
# usage: bench/deepspeed_arch_suffix_gpu.sh KILN PYTHON DEEPSPEED_CHECKOUT [OUT]
# The checkout is copied to a scratch folder first (the build writes into the project folder).
set -u -o pipefail
check=$(cd "$(dirname "$0")" && pwd)/device/fused_adam_check.py
kiln=$(readlink -f "$1"); py=$2; src=$(readlink -f "$3"); out=${4:-$(mktemp -d)}
mkdir -p "$out"
work=$(mktemp -d)
fail=0
say() { printf '%s\n' "$*" | tee -a "$out/summary.txt"; }
[ -x "$(dirname "$kiln")/tools/bin/ccache" ] && PATH="$(dirname "$kiln")/tools/bin:$PATH"
if [ "${TORCH_CUDA_ARCH_LIST:-}" != "9.0a" ]; then
  say "note: TORCH_CUDA_ARCH_LIST is '${TORCH_CUDA_ARCH_LIST:-unset}' here, not the 9.0a this check is about"
fi
cp -r "$src" "$work/ds"

say "== 1. DeepSpeed's setup.py alone with TORCH_CUDA_ARCH_LIST=${TORCH_CUDA_ARCH_LIST:-unset}"
cp -r "$src" "$work/plain"
(cd "$work/plain" && DS_BUILD_FUSED_ADAM=1 timeout 120 "$py" setup.py build_ext > "$out/plain-setup.log" 2>&1)
say "setup.py exit $? (a crash is expected with 9.0a)"
"$kiln" diagnose "$out/plain-setup.log" > "$out/plain-diagnose.txt" 2>&1  # exit 1: it found a failure
head -5 "$out/plain-diagnose.txt"
grep -q "python.arch-list-int-suffix" "$out/plain-diagnose.txt" && grep -q "builder.py:742" "$out/plain-diagnose.txt" ||
  { say "FAIL: kiln diagnose did not name the arch-list parse at builder.py:742"; fail=1; }

say "== 2. kiln plan"
"$kiln" plan "$work/ds" --python "$py" --json > "$out/plan.json" || { say "FAIL: kiln plan exit $?"; fail=1; }
"$py" - "$out/plan.json" > "$work/knobs" 2> >(tee -a "$out/summary.txt" >&2) <<'PY' || { say "FAIL: the plan does not fit TORCH_CUDA_ARCH_LIST to DeepSpeed's parser"; fail=1; }
import json, sys
plan = json.load(open(sys.argv[1]))
env = plan.get("env", {})
notes = [n for n in plan.get("notes", []) if "int()" in n]
print("# targets:", plan.get("targets"), "| TORCH_CUDA_ARCH_LIST =", env.get("TORCH_CUDA_ARCH_LIST"),
      "| KILN_EXTRA_ARCHS =", env.get("KILN_EXTRA_ARCHS"), file=sys.stderr)
print("# note:", notes, file=sys.stderr)
ops = [k for k in plan["knobs"] if k["role"] == "op"]
print(f"# {len(ops)} ops; left off: {[(k['name'], k['reason']) for k in ops if k['value'] == '0']}", file=sys.stderr)
fa = [k for k in ops if k["name"] == "DS_BUILD_FUSED_ADAM"]
assert fa and fa[0]["value"] == "1", fa
assert notes and "builder.py:742" in notes[0], notes
assert env.get("TORCH_CUDA_ARCH_LIST") == "9.0", env.get("TORCH_CUDA_ARCH_LIST")
for k in ops:
    if k["name"] != "DS_BUILD_FUSED_ADAM" and k["value"] == "1":
        print("--knob"); print(k["name"] + "=0")
PY
sleep 1  # the tee above finishes its lines
mapfile -t knobs < "$work/knobs"

say "== 3. kiln build (fused_adam)"
start=$(date +%s)
"$kiln" build "$work/ds" --python "$py" "${knobs[@]}" > "$out/build.log" 2>&1 ||
  { say "FAIL: kiln build exit $? (tail:)"; tail -30 "$out/build.log"; fail=1; }
say "build: $(( $(date +%s) - start )) s"
so=$(cd /tmp && "$py" -c "import importlib.util,glob,os; d=os.path.dirname(importlib.util.find_spec('deepspeed').origin); print(*glob.glob(d+'/ops/adam/fused_adam_op*.so'))" 2>/dev/null)
say "op: ${so:-not found}"
if [ -n "$so" ]; then
  "$kiln" verify "$so" --archs "9.0;9.0a" 2>&1 | tee -a "$out/summary.txt" || { say "FAIL: kiln verify 9.0;9.0a"; fail=1; }
  (cd /tmp && "$py" "$check" "$so") 2>&1 | tee -a "$out/summary.txt" || { say "FAIL: fused_adam does not match torch.optim.Adam"; fail=1; }
fi
[ $fail -eq 0 ] && say "ok" || say "FAILED"
exit $fail
