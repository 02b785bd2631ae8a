#!/usr/bin/env bash
# Issue 32 on the GPU host (H100, PyTorch 2.11 cu130, no network): two public projects whose CUDA
# build hangs on a switch kiln's table never named, built with `kiln build` and nothing set by hand.
#   1. NevermindNilas/frame_analytics cb24bf00ca345bf43d3f44be8ae4fdc5e69ad889: setup.py makes its
#      extension only `if os.environ.get("FA_BUILD_EXT", "").lower() in ("1", ...)` (the issue's
#      opt-in), CUDA inside it only where torch sees a GPU. kiln plan must set FA_BUILD_EXT=1 (role
#      build-opt-in, from the data flow); the installed frame_analytics_native's CUDA MSE/SSIM must
#      match the package's float64 NumPy reference and its portable PyTorch path.
#   2. facebookresearch/sam2 2b90b9f5ceec907a1c18123530e92e794ad901a4: SAM2_BUILD_ALLOW_ERRORS
#      defaults to 1, which turns a failed CUDA compile into an install without sam2._C. kiln plan
#      must set SAM2_BUILD_ALLOW_ERRORS=0 (role allow-errors) and SAM2_BUILD_CUDA=1; sam2._C's
#      connected components on the GPU must match a breadth-first labelling on the CPU.
#   3. A build that compiles no CUDA names its real gate: frame_analytics with --no-knobs (the opt-in
#      left unset on a machine with a GPU: the reason must name FA_BUILD_EXT and --knob FA_BUILD_EXT=1,
#      and must not say "build on a machine with a GPU"), and sam2 with SAM2_BUILD_CUDA=0 in the
#      environment (the reason must name SAM2_BUILD_CUDA and --knob SAM2_BUILD_CUDA=1).
# usage: bench/device/optin_projects.sh KILN PYTHON FRAME_ANALYTICS_CHECKOUT SAM2_CHECKOUT [OUT]
#   PYTHON: the interpreter with torch 2.11 cu130, setuptools (>= 77: frame_analytics' pyproject
#   uses a license expression), ninja, pybind11, numpy. The checkouts are copied to a scratch folder
#   first (a build writes into the project folder). What each needs (under 1 MB together):
#     git -C frame_analytics archive cb24bf00ca345bf43d3f44be8ae4fdc5e69ad889 | tar -x -C FA
#     git -C sam2 archive 2b90b9f5ceec907a1c18123530e92e794ad901a4 setup.py pyproject.toml README.md \
#       LICENSE LICENSE_cctorch sam2 | tar -x -C SAM2
# Exit 0 when every check passed; summary in OUT/summary.txt.
set -u -o pipefail
check=$(cd "$(dirname "$0")" && pwd)/optin_check.py
kiln=$(readlink -f "$1"); py=$2; fa_src=$(readlink -f "$3"); sam_src=$(readlink -f "$4")
out=${5:-${OUT:-$(mktemp -d)}}
mkdir -p "$out"
work=$(mktemp -d)
fail=0
say() { printf '%s\n' "$*" | tee -a "$out/summary.txt"; }
bad() { say "FAIL: $*"; fail=1; }
has() { grep -qF -- "$2" "$1" || bad "$1 lacks: $2"; }
PATH="$(dirname "$py"):$PATH"
export PATH
say "host: $(nproc) cores; $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1); torch $("$py" -c 'import torch; print(torch.__version__, torch.cuda.is_available())')"
say "TORCH_CUDA_ARCH_LIST=${TORCH_CUDA_ARCH_LIST:-unset}"

# $1 name, $2 source: a fresh copy, planned and built with nothing set by hand.
build() {
  local name=$1 src=$2
  rm -rf "$work/$name"
  cp -r "$src" "$work/$name"
  timeout 120 "$kiln" plan --python "$py" "$work/$name" > "$out/$name-plan.txt" 2>&1
  say "kiln plan $name: exit $?"
  local t0=$SECONDS
  timeout 1500 "$kiln" build --python "$py" "$work/$name" > "$out/$name-build.txt" 2>&1
  local rc=$?
  say "kiln build $name: exit $rc in $((SECONDS - t0)) s"
  return $rc
}

say "== 1. frame_analytics (opt-in FA_BUILD_EXT)"
if build frame_analytics "$fa_src"; then
  has "$out/frame_analytics-plan.txt" "FA_BUILD_EXT"
  grep -E "FA_BUILD_EXT|FORCE_CUDA" "$out/frame_analytics-plan.txt" | tee -a "$out/summary.txt"
  (cd "$work" && "$py" "$check" frame_analytics) > "$out/frame_analytics-check.txt" 2>&1
  rc=$?
  cat "$out/frame_analytics-check.txt" | tee -a "$out/summary.txt"
  [ $rc -eq 0 ] || bad "frame_analytics: the installed module does not match its references"
else
  tail -20 "$out/frame_analytics-build.txt" | tee -a "$out/summary.txt"
  bad "frame_analytics did not build"
fi

say "== 2. sam2 (SAM2_BUILD_ALLOW_ERRORS defaults to swallowing a failed compile)"
if build sam2 "$sam_src"; then
  grep -E "SAM2_BUILD" "$out/sam2-plan.txt" | tee -a "$out/summary.txt"
  has "$out/sam2-plan.txt" "SAM2_BUILD_ALLOW_ERRORS"
  so=$("$py" - <<'PY'
import importlib.util, os, sys
spec = importlib.util.find_spec("sam2")
base = os.path.dirname(spec.origin) if spec and spec.origin else ""
print(next((os.path.join(base, f) for f in sorted(os.listdir(base)) if f.startswith("_C") and f.endswith(".so")), "") if base else "")
PY
)
  if [ -n "$so" ]; then
    (cd "$work" && "$py" "$check" sam2 "$so") > "$out/sam2-check.txt" 2>&1
    rc=$?
    cat "$out/sam2-check.txt" | tee -a "$out/summary.txt"
    [ $rc -eq 0 ] || bad "sam2: _C does not match the reference labelling"
  else
    bad "sam2: no _C*.so installed beside the package"
  fi
else
  tail -20 "$out/sam2-build.txt" | tee -a "$out/summary.txt"
  bad "sam2 did not build"
fi

say "== 3. builds that compile no CUDA name their gate"
rm -rf "$work/fa-off"; cp -r "$fa_src" "$work/fa-off"
timeout 600 "$kiln" build --python "$py" --no-knobs "$work/fa-off" > "$out/fa-off.txt" 2>&1
say "kiln build --no-knobs frame_analytics: exit $? (1 expected)"
grep -F "compiled none" "$out/fa-off.txt" | tee -a "$out/summary.txt"
has "$out/fa-off.txt" "FA_BUILD_EXT was ''"
has "$out/fa-off.txt" "--knob FA_BUILD_EXT=1"
grep -qF "build on a machine with a GPU" "$out/fa-off.txt" && bad "fa-off blames the GPU probe on a machine with a GPU"
rm -rf "$work/sam-off"; cp -r "$sam_src" "$work/sam-off"
SAM2_BUILD_CUDA=0 timeout 600 "$kiln" build --python "$py" "$work/sam-off" > "$out/sam-off.txt" 2>&1
say "kiln build sam2 with SAM2_BUILD_CUDA=0 in the environment: exit $? (1 expected)"
grep -F "compiled none" "$out/sam-off.txt" | tee -a "$out/summary.txt"
has "$out/sam-off.txt" "SAM2_BUILD_CUDA was '0' (from the environment"
has "$out/sam-off.txt" "--knob SAM2_BUILD_CUDA=1"

rm -rf "$work"
say "result: $([ $fail -eq 0 ] && echo PASS || echo FAIL)"
exit $fail
