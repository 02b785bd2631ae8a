#!/usr/bin/env bash
# kiln verify and kiln inspect --deps on Python extension modules judge libraries as the import does
# (issue 33): `import torch` has loaded torch's libraries, and the loader reuses them by name, so a
# pip-installed extension links libtorch_python.so with no RUNPATH and imports. Each verdict is
# compared with what a real interpreter does (python -c 'import ...'):
#  A. Debian's python3-torch in the base of a --system-site-packages venv, a real module linking
#     libtorch_python: verify names that torch (the venv's interpreter asked) and finds nothing missing;
#  B. a torch whose libraries are only in torch/lib (as pip's wheels are; a small one on PYTHONPATH,
#     which the venv's interpreter honours as the import does): the module imports after torch and
#     verify passes, from inside its folder by bare name (that spelling once looped forever), by ./name
#     and by absolute path; inspect --deps says the same;
#  C. a module needing a library nobody loads: the import fails and verify FAILs it;
#  D. the module in a build folder, checked with --python: passes.
set -uo pipefail
. "$(dirname "$0")/lib/common.sh"
kiln=$(readlink -f "$1")
need cc
sys_py=/usr/bin/python3
"$sys_py" -c "import torch" 2>/dev/null || skip "$sys_py has no torch (python3-torch)"
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
"$sys_py" -m venv --system-site-packages --without-pip "$work/venv" >/dev/null 2>&1 || skip "python3 -m venv does not work here"
py=$work/venv/bin/python
sp=$("$py" -c "import sysconfig; print(sysconfig.get_paths()['purelib'])")
suffix=$("$py" -c "import sysconfig; print(sysconfig.get_config_var('EXT_SUFFIX'))")
inc=$("$py" -c "import sysconfig; print(sysconfig.get_paths()['include'])")
[ -f "$inc/Python.h" ] || skip "no Python.h in $inc (python3-dev)"
torch_lib=$("$sys_py" -c "import torch, os; print(os.path.join(os.path.dirname(torch.__file__), 'lib'))")
mkdir -p "$sp"
v() { timeout 60 "$kiln" verify "$@" --archs 8.0 --json; }
# Problems other than "no file holds CUDA code" (these modules are CPU code).
problems() { python3 -c 'import json,sys; print(" ".join(sorted(p["kind"] for p in json.load(sys.stdin)["problems"] if p["kind"] != "no-cuda")))' 2>/dev/null || echo "no-json"; }
torch_of() { python3 -c 'import json,sys; t=json.load(sys.stdin)["extension_torch"]; print(t[0]["torch"] if t else "", "|", t[0]["how"] if t else "")'; }

module_c() {  # NAME CALL: a module whose init calls CALL (a function of the library it needs)
  cat <<C
#include <Python.h>
extern int $2(void);
static struct PyModuleDef def = {PyModuleDef_HEAD_INIT, "$1", 0, -1, 0};
PyMODINIT_FUNC PyInit_$1(void) { return $2() >= 0 ? PyModule_Create(&def) : 0; }
C
}

# A. Debian's torch through the venv's base interpreter.
cat > "$work/real.c" <<'C'
#include <Python.h>
static struct PyModuleDef def = {PyModuleDef_HEAD_INIT, "realext", 0, -1, 0};
PyMODINIT_FUNC PyInit_realext(void) { return PyModule_Create(&def); }
C
cc -shared -fPIC -I"$inc" -o "$sp/realext$suffix" "$work/real.c" -Wl,--no-as-needed -L"$torch_lib" -ltorch_python \
  || fail "cannot build realext"
readelf -d "$sp/realext$suffix" | grep -q 'NEEDED.*libtorch_python' || fail "realext does not need libtorch_python"
(cd "$work" && "$py" -c "import torch, realext") || fail "truth: realext does not import"
out=$(cd "$sp" && v "realext$suffix") ; echo "$out" | head -c 600; echo
[ "$(echo "$out" | problems)" = "" ] || fail "A: verify finds problems in a module that imports: $(echo "$out" | problems)"
echo "$out" | torch_of | grep -q "/torch | the interpreter of the venv at $work/venv" || fail "A: not the venv's torch: $(echo "$out" | torch_of)"

# B. torch's libraries only in torch/lib, loaded by `import torch` (torch/_C with RUNPATH $ORIGIN/lib).
base=$work/base; mkdir -p "$base/torch/lib"
echo 'int mini_c10(void) { return 1; }' > "$work/c10.c"
cc -shared -fPIC -o "$base/torch/lib/libminic10.so" "$work/c10.c" || fail "cannot build libminic10"
module_c _C mini_c10 > "$work/tc.c"
cc -shared -fPIC -I"$inc" -o "$base/torch/_C$suffix" "$work/tc.c" -L"$base/torch/lib" -lminic10 \
  -Wl,--enable-new-dtags,-rpath,'$ORIGIN/lib' || fail "cannot build torch/_C"
echo 'from . import _C' > "$base/torch/__init__.py"
module_c mext mini_c10 > "$work/mext.c"
cc -shared -fPIC -I"$inc" -o "$sp/mext$suffix" "$work/mext.c" -L"$base/torch/lib" -lminic10 || fail "cannot build mext"
export PYTHONPATH=$base
(cd "$work" && "$py" -c "import torch, mext") || fail "truth: mext does not import after torch"
(cd "$work" && "$py" -c "import mext" 2>/dev/null) && fail "truth: mext imports without torch (the test proves nothing)"
for spelling in "mext$suffix" "./mext$suffix" "$sp/mext$suffix"; do
  out=$(cd "$sp" && v "$spelling"); rc=$?
  [ $rc -ne 124 ] || fail "B: verify $spelling did not answer in 60 s"
  [ "$(echo "$out" | problems)" = "" ] || fail "B: verify $spelling: $(echo "$out" | problems) for a module that imports"
  echo "$out" | torch_of | grep -q "^$base/torch | the interpreter of the venv at $work/venv" \
    || fail "B: verify $spelling: torch $(echo "$out" | torch_of)"
done
deps=$(cd "$sp" && timeout 60 "$kiln" inspect --deps "mext$suffix"); rc=$?
echo "$deps"
[ $rc -eq 0 ] || fail "B: inspect --deps exit $rc (verify passed the same file)"
echo "$deps" | grep -q "needs libminic10.so -> $base/torch/lib/libminic10.so (preloaded" \
  || fail "B: inspect --deps does not resolve libminic10.so as loaded by import torch"

# C. A library nobody loads: the import fails, and so does verify.
echo 'int ghost(void) { return 1; }' > "$work/ghost.c"
mkdir -p "$work/gone"; cc -shared -fPIC -o "$work/gone/libghost.so" "$work/ghost.c" || fail "cannot build libghost"
module_c gext ghost > "$work/gext.c"
cc -shared -fPIC -I"$inc" -o "$sp/gext$suffix" "$work/gext.c" -L"$work/gone" -lghost || fail "cannot build gext"
rm -r "$work/gone"
(cd "$work" && "$py" -c "import torch, gext" 2>/dev/null) && fail "truth: gext imports without libghost.so"
out=$(cd "$sp" && v "gext$suffix"); rc=$?
[ $rc -eq 1 ] || fail "C: verify exit $rc for a module missing libghost.so"
echo "$out" | problems | grep -q missing-library || fail "C: no missing-library: $(echo "$out" | problems)"
echo "$out" | grep -q 'needs libghost.so' || fail "C: the problem does not name libghost.so"

# D. The module in a build folder, imported by the venv's interpreter: --python says so.
mkdir -p "$work/build"; cp "$sp/mext$suffix" "$work/build/"
out=$(v "$work/build/mext$suffix" --python "$py")
[ "$(echo "$out" | problems)" = "" ] || fail "D: verify --python: $(echo "$out" | problems)"
echo "$out" | torch_of | grep -q "^$base/torch | --python $py" || fail "D: torch $(echo "$out" | torch_of)"
timeout 60 "$kiln" verify "$work/build/mext$suffix" --archs 8.0 --python /no/such/python >/dev/null 2>&1
[ $? -eq 2 ] || fail "D: --python naming no interpreter should be a usage error (2)"
echo PASS
