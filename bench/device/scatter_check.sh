#!/usr/bin/env bash
# pytorch_scatter's own test suite against the build kiln just installed (issue 19's reference
# check), on the GPU host in the same device call as the build (bench/gpu_issue19.sh ...
# pytorch_scatter): its tests run on cpu and, with a GPU, on cuda:0 (torch_scatter.testing.devices).
# The tests are copied out of the checkout so that `import torch_scatter` finds the installed wheel,
# not the source tree. Prints SCATTER-CHECK PASS or FAIL; exit 0 only on PASS.
# usage: bash bench/device/scatter_check.sh PYTHON CHECKOUT
set -u
py=$1 src=$(readlink -f "$2")
t=$(mktemp -d /tmp/scatter-tests-XXXX)
cp -r "$src/test" "$t/test"
cd "$t" || exit 1
"$py" - <<'PY'
import torch, torch_scatter
print("torch_scatter", torch_scatter.__version__, "from", torch_scatter.__file__)
print("cuda:", torch.cuda.is_available(), torch.cuda.get_device_name(0) if torch.cuda.is_available() else "")
PY
timeout 300 "$py" -m pytest -q -p no:cacheprovider test 2>&1 | tail -15
rc=${PIPESTATUS[0]}
[ "$rc" = 0 ] && echo "SCATTER-CHECK PASS" || echo "SCATTER-CHECK FAIL (pytest exit $rc)"
rm -rf "$t"
exit "$rc"
