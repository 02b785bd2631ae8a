#!/usr/bin/env bash
# A torch extension in a folder whose path holds a space (issue 21), built by torch's own
# cpp_extension (Debian's python3-torch through a --system-site-packages venv, as PEP 668 asks):
# distutils splits CXX on blanks, so kiln's compiler links must live at a path without one. The
# module is built, installed into the venv, imports and answers; the compile went through ccache.
set -uo pipefail
. "$(dirname "$0")/lib/common.sh"
kiln=$1
need c++ ccache ninja
/usr/bin/python3 -c "import torch.utils.cpp_extension, setuptools, wheel" 2>/dev/null \
  || skip "/usr/bin/python3 has no torch, setuptools or wheel (apt-get install python3-torch python3-wheel)"
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
/usr/bin/python3 -m venv --system-site-packages --without-pip "$work/v env" 2>/dev/null \
  || skip "python3 -m venv does not work here"
py="$work/v env/bin/python"
proj="$work/my ext"
mkdir -p "$proj/spaceext"
: > "$proj/spaceext/__init__.py"
cat > "$proj/setup.py" <<'PY'
from setuptools import setup
from torch.utils.cpp_extension import BuildExtension, CppExtension

setup(name="spaceext", version="0.1", packages=["spaceext"],
      ext_modules=[CppExtension("spaceext._C", ["ext.cpp"])], cmdclass={"build_ext": BuildExtension})
PY
cat > "$proj/ext.cpp" <<'CPP'
// No torch headers: the build is cpp_extension's (its flags, its Ninja, $CXX), the compile is quick.
#include <Python.h>
static PyObject* answer(PyObject*, PyObject*) { return PyLong_FromLong(42); }
static PyMethodDef methods[] = {{"answer", answer, METH_NOARGS, nullptr}, {nullptr, nullptr, 0, nullptr}};
static PyModuleDef module = {PyModuleDef_HEAD_INIT, "_C", nullptr, -1, methods};
PyMODINIT_FUNC PyInit__C() { return PyModule_Create(&module); }
CPP
export CCACHE_DIR="$work/cc dir" XDG_CACHE_HOME="$work/xdg"
"$kiln" build "$proj" --python "$py" --profile cpu --json > "$work/b.json" 2> "$work/err" \
  || { cat "$work/err"; tail -30 "$proj/build-kiln/kiln-build.log"; fail "build failed"; }
cxx=$("$kiln" plan "$proj" --python "$py" --profile cpu --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["env"]["CXX"])')
case "$cxx" in *" "*) fail "CXX holds a blank: $cxx";; esac
answer=$(cd "$work" && "$py" -c "import spaceext._C as c; print(c.answer())") || fail "the module does not import"
[ "$answer" = 42 ] || fail "answer $answer"
misses=$(python3 -c "import json; print(json.load(open('$work/b.json'))['outcome']['cache']['misses'])")
[ "$misses" -ge 1 ] || fail "the compile did not go through ccache ($misses misses)"
# Where the build step's seconds went: before the first compile (the backend's start), the
# compiles, after the last (wheel, pip); the three add up to no more than the step.
python3 - "$work/b.json" <<'PY' || fail "outcome.compiles is wrong: $(cat "$work/b.json")"
import json, sys
o = json.load(open(sys.argv[1]))["outcome"]
c = o["compiles"]
assert c["units"] >= 1 and min(c["before_s"], c["span_s"], c["after_s"]) >= 0, c
assert c["before_s"] > 0, c  # python and setup.py ran before any compile
assert c["before_s"] + c["span_s"] + c["after_s"] <= o["build_s"] + 0.5, (c, o["build_s"])
PY
echo PASS
