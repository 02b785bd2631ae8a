#!/usr/bin/env bash
# apex on the GPU host (issue 19), one device call: cold from a fresh copy with empty caches against
# its bound (bench/project_bound.sh), then its modules and reference checks (bench/device/apex_check.py:
# FusedLayerNorm and multi_tensor_l2norm against PyTorch). Files back as $OUT/apex.tgz.
# usage: T=SECONDS bash bench/gpu_apex.sh [KILN] [PYTHON] [CHECKOUT]   (defaults: .dev/kiln,
#   /opt/torch/.venv/bin/python, .dev/src/apex; T bounds the build and bound step, default 450)
set -u
root=$(pwd)
kiln=${1:-$root/.dev/kiln} py=${2:-/opt/torch/.venv/bin/python} src=${3:-$root/.dev/src/apex}
[ -x "$root/.dev/tools/bin/ccache" ] && export PATH=$root/.dev/tools/bin:$PATH
export PYTHONUNBUFFERED=1
out=${OUT:-$root/apex-out}
mkdir -p "$out"
echo "== host: $(nproc) cores; $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null); TORCH_CUDA_ARCH_LIST=${TORCH_CUDA_ARCH_LIST-unset}"
timeout "${T:-450}" bash "$root/bench/project_bound.sh" "$kiln" "$py" "$src" "$out/apex" h100 2>&1 | tail -45
echo "bound rc=${PIPESTATUS[0]}"
cat "$out/apex/row.md" 2>/dev/null
(cd /tmp && timeout 90 "$py" "$root/bench/device/apex_check.py" 2>&1 | tail -40)
(cd "$out" && tar -czf apex.tgz apex/ 2>/dev/null && rm -rf apex)
