#!/usr/bin/env bash
# Issue 34, case 1: three `kiln build proj --build-dir b_$i` of one torch extension at once shared
# setuptools' in-tree build/ folder; one linked _C.so while another zipped it, and a run exited 0
# having cached and installed a wheel whose _C.so was 0 bytes (2 of 4 three-way trials).
# Now each kiln build folder has its own setuptools folder (nothing is written to proj/build), each
# wheel is checked before it is kept or installed, and pip installs one at a time. Two trials of
# three builds: every run exits 0, every wheel (built, kept, installed) holds a loadable _C.so.
set -uo pipefail
. "$(dirname "$0")/lib/common.sh"
. "$(dirname "$0")/lib/torch_venv.sh"
kiln=$1
need c++ ninja
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
torch_venv "$work" --without-pip
proj=$work/cx
mkdir -p "$proj/cx"
: > "$proj/cx/__init__.py"
cat > "$proj/setup.py" <<'PY'
from setuptools import setup
from torch.utils.cpp_extension import BuildExtension, CppExtension
setup(name="cx", version="0.1", packages=["cx"],
      ext_modules=[CppExtension("cx._C", ["cx/a.cpp", "cx/b.cpp"])], cmdclass={"build_ext": BuildExtension})
PY
# Python.h only: quick compiles, and a link that takes a moment (a big static table).
cat > "$proj/cx/a.cpp" <<'CPP'
#include <Python.h>
extern const char table[];
static PyObject* answer(PyObject*, PyObject*) { return PyLong_FromLong(42 + table[0]); }
static PyMethodDef methods[] = {{"answer", answer, METH_NOARGS, nullptr}, {nullptr, nullptr, 0, nullptr}};
static PyModuleDef module = {PyModuleDef_HEAD_INIT, "_C", nullptr, -1, methods};
PyMODINIT_FUNC PyInit__C() { return PyModule_Create(&module); }
CPP
printf 'extern const char table[];\nconst char table[8 << 20] = {0};\n' > "$proj/cx/b.cpp"
export XDG_CACHE_HOME=$work/xdg CCACHE_DISABLE=1 PATH=/usr/local/cuda/bin:$PATH

for trial in 1 2; do
  rm -rf "$XDG_CACHE_HOME/kiln/wheels" "$work"/b_*
  for i in 1 2 3; do
    "$kiln" build "$proj" --build-dir "$work/b_$i" --profile cpu --python "$py" > "$work/t$trial.$i.out" 2>&1 &
    pids[$i]=$!
  done
  for i in 1 2 3; do
    wait "${pids[$i]}" || fail "trial $trial, build $i exited $?: $(tail -30 "$work/t$trial.$i.out")"
  done
  [ -e "$proj/build" ] && fail "trial $trial: setuptools wrote the project's own build/ folder: $(ls "$proj/build")"
  for i in 1 2 3; do
    [ -d "$work/b_$i/setuptools" ] || fail "trial $trial: no setuptools folder in $work/b_$i"
    for w in "$work/b_$i"/wheel/*.whl; do
      "$py" - "$w" <<'PY' || fail "trial $trial: $w holds a broken _C.so"
import sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as z:
    so = [n for n in z.namelist() if n.startswith("cx/_C") and ".so" in n]
    assert so, z.namelist()
    b = z.read(so[0])
    assert len(b) > 1 << 20 and b[:4] == b"\x7fELF", (so[0], len(b))
PY
    done
  done
  answer=$(cd "$work" && "$py" -c "import cx._C as c; print(c.answer())") || fail "trial $trial: the module does not import"
  [ "$answer" = 42 ] || fail "trial $trial: answer $answer"
done
# A later clean build reinstalls from the cache: what it installs is checked too.
rm -rf "$work/b_1"
"$kiln" build "$proj" --build-dir "$work/b_1" --profile cpu --python "$py" > "$work/last.out" 2>&1 \
  || fail "the build from the cache: $(tail -20 "$work/last.out")"
grep -q "kiln: wheel cache: hit" "$work/b_1/kiln-build.log" || fail "no cache hit: $(grep 'wheel cache' "$work/b_1/kiln-build.log")"
grep -q "kiln: check:" "$work/b_1/kiln-build.log" || fail "the kept wheel was not checked: $(cat "$work/b_1/kiln-build.log")"
answer=$(cd "$work" && "$py" -c "import cx._C as c; print(c.answer())") || fail "the module from the cache does not import"
echo PASS
