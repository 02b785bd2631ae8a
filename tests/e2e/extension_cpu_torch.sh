#!/usr/bin/env bash
# A torch extension with a CUDA switch, built against a CPU-only torch (Debian's python3-torch in a
# --system-site-packages venv): cpp_extension cannot compile CUDA code against it
# (torch.version.cuda is None), so
#  1. the plan leaves the project's CUDA switch at its default and says why, with a note, and its
#     targets line says no CUDA code is compiled;
#  2. `kiln build --gpu h100` fails honestly: no CUDA was built, and the reason names the CPU torch
#     (not "kiln sets it", not "build on a machine with a GPU");
#  3. `--profile cpu` builds the CPU code alone, and the module answers;
#  4. with the switch forced on by the user (FORCE_CUDA=1 in the environment, which wins), the real
#     cpp_extension fails in _check_cuda_version, and the root cause is cpp-extension.torch-cpu-only.
set -uo pipefail
. "$(dirname "$0")/lib/common.sh"
kiln=$1
for tool in c++ ccache ninja nvcc; do
  command -v $tool >/dev/null || [ -x /usr/local/cuda/bin/$tool ] || skip "$tool not found"
done
/usr/bin/python3 -c "import torch.utils.cpp_extension, setuptools, wheel" 2>/dev/null \
  || skip "/usr/bin/python3 has no torch, setuptools or wheel (apt-get install python3-torch python3-wheel)"
[ "$(/usr/bin/python3 -c 'import torch; print(torch.version.cuda)' 2>/dev/null)" = None ] \
  || skip "this torch is a CUDA build"
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
/usr/bin/python3 -m venv --system-site-packages --without-pip "$work/venv" 2>/dev/null \
  || skip "python3 -m venv does not work here"
py=$work/venv/bin/python
proj=$work/gx
mkdir -p "$proj/gx"
: > "$proj/gx/__init__.py"
# pytorch_scatter's pattern (648dda3 setup.py): CUDA where torch sees a GPU or FORCE_CUDA=1.
cat > "$proj/setup.py" <<'PY'
import os
import torch
from setuptools import setup
from torch.utils.cpp_extension import BuildExtension, CppExtension, CUDAExtension

ext = CppExtension("gx._C", ["gx/a.cpp"])
if torch.cuda.is_available() or os.getenv("FORCE_CUDA", "0") == "1":
    ext = CUDAExtension("gx._C", ["gx/a.cpp", "gx/k.cu"])
setup(name="gx", version="0.1", packages=["gx"], ext_modules=[ext], cmdclass={"build_ext": BuildExtension},
      include_package_data=True)
PY
# Package data through the manifest (frame_analytics cb24bf00's pyproject project has it by default):
# build_py asserts every path egg_info lists relative, the .egg-info's own files among them.
echo "include gx/table.txt" > "$proj/MANIFEST.in"
echo 42 > "$proj/gx/table.txt"
answer_module "$proj/gx/a.cpp" _C
printf '__global__ void k(float* x) { x[threadIdx.x] = 1; }\n' > "$proj/gx/k.cu"
export CCACHE_DIR=$work/ccache XDG_CACHE_HOME=$work/xdg PATH=/usr/local/cuda/bin:$PATH
unset FORCE_CUDA

# 1. The plan.
"$kiln" plan "$proj" --gpu h100 --python "$py" > "$work/plan.txt" 2>&1 || fail "kiln plan: $(cat "$work/plan.txt")"
grep -q "FORCE_CUDA left .*torch here is a CPU-only build" "$work/plan.txt" || fail "the plan does not say why FORCE_CUDA is left: $(cat "$work/plan.txt")"
grep -q "^note: torch .* is a CPU-only build" "$work/plan.txt" || fail "no note on the CPU-only torch: $(cat "$work/plan.txt")"
grep -q "^targets   none (no CUDA code is compiled: torch .* is a CPU-only build, and the project compiles its CUDA code only through FORCE_CUDA" "$work/plan.txt" \
  || fail "the targets line does not say no CUDA is compiled: $(cat "$work/plan.txt")"

# 2. Asked for the H100, the build compiles no CUDA: it fails and says why.
"$kiln" build "$proj" --gpu h100 --python "$py" --json > "$work/b1.json" 2> "$work/b1.err"
rc=$?
[ "$rc" = 1 ] || fail "kiln build --gpu h100 exited $rc, expected 1: $(cat "$work/b1.err")"
python3 - "$work/b1.json" <<'PY' || fail "the outcome does not name the CPU-only torch: $(cat "$work/b1.json")"
import json, sys
o = json.load(open(sys.argv[1]))["outcome"]
assert o["ok"] is False and o["failed_step"] == "no-cuda", o
cause = o["diagnosis"]["cause"]
assert "kiln did not set FORCE_CUDA=1 because torch here is a CPU-only build" in cause, cause
assert "build on a machine with a GPU" not in cause and "kiln sets it" not in cause, cause
PY

# 3. The CPU code alone.
rm -rf "$proj/build" "$proj/build-kiln"
"$kiln" build "$proj" --profile cpu --python "$py" > "$work/b2.out" 2>&1 || fail "--profile cpu: $(tail -20 "$work/b2.out")"
answer=$(cd "$work" && "$py" -c "import gx._C as c; print(c.answer())") || fail "the module does not import"
[ "$answer" = 42 ] || fail "answer $answer"
table=$(cd "$work" && "$py" -c "import gx, os; print(open(os.path.join(os.path.dirname(gx.__file__), 'table.txt')).read().strip())") \
  || fail "the package data is not installed"
[ "$table" = 42 ] || fail "table $table"
# kiln's private setuptools folder is named to egg_info relative to setup.py (see data/wheel_build.py).
egg_base=$(sed -n 's/^egg_base = //p' "$proj/build-kiln/setuptools/kiln.cfg")
case $egg_base in /*|"") fail "egg_base is '$egg_base' in $proj/build-kiln/setuptools/kiln.cfg: setuptools 77+ refuses the manifest's absolute paths";; esac

# 3b. kiln bench of the extension profiles the Ninja folders this build's setuptools made
#     (BUILD/setuptools since issue 34): a critical path, where it had found none in the project's build/.
"$kiln" bench "$proj" --python "$py" --matrix cache=cold --bench-dir "$work/bench" --json > "$work/bench.json" 2> "$work/bench.err" \
  || fail "kiln bench: $(tail -5 "$work/bench.err")"
python3 - "$work/bench.json" <<'PY' || fail "kiln bench found no Ninja log of the extension: $(cat "$work/bench.json")"
import json, sys
c = json.load(open(sys.argv[1]))["configs"][0]
assert c["ok_runs"] == 1 and c["median_critical_path_s"] is not None and c["median_critical_path_s"] > 0, c
PY

# 4. Forced on by the user: the real cpp_extension refuses, and the diagnosis says why.
rm -rf "$proj/build" "$proj/build-kiln"
FORCE_CUDA=1 "$kiln" build "$proj" --gpu h100 --python "$py" --json > "$work/b3.json" 2> "$work/b3.err"
rc=$?
[ "$rc" = 1 ] || fail "FORCE_CUDA=1 build exited $rc, expected 1"
python3 -c "import json,sys; d = json.load(open(sys.argv[1]))['outcome']['diagnosis']; assert d['id'] == 'cpp-extension.torch-cpu-only', d" "$work/b3.json" \
  || fail "root cause is not cpp-extension.torch-cpu-only: $(cat "$work/b3.json" | head -c 2000)"
echo PASS
