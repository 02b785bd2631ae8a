#!/usr/bin/env bash
# Where a torch extension build spends the seconds that are not compiles: a one-unit CppExtension
# (written here) built with `kiln build --no-wheel-cache` RUNS times after one warm-up build that
# fills ccache, so the compile is a cache hit and what is left is kiln's plan and probes, the PEP 517
# backend (its start: setup.py, the torch import; the link; the wheel zip; its exit) and pip install.
# Usage: bench/outside_compiles.sh KILN PYTHON [RUNS]   (PYTHON: one that imports torch, with pip)
# Prints one row per run: wall, kiln's build step (backend + install), install, compiler wall (compile + link, from kiln exec's records).
set -euo pipefail
kiln=$(realpath "$1") py=$2 runs=${3:-3}
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
export XDG_CACHE_HOME=$work/xdg CCACHE_DIR=$work/ccache
p=$work/proj
mkdir -p "$p/tiny" && touch "$p/tiny/__init__.py"
cat > "$p/tiny/a.cpp" <<'CPP'
#include <Python.h>
static PyObject* answer(PyObject*, PyObject*) { return PyLong_FromLong(42); }
static PyMethodDef methods[] = {{"answer", answer, METH_NOARGS, nullptr}, {nullptr, nullptr, 0, nullptr}};
static PyModuleDef module = {PyModuleDef_HEAD_INIT, "a", nullptr, -1, methods};
PyMODINIT_FUNC PyInit_a() { return PyModule_Create(&module); }
CPP
cat > "$p/setup.py" <<'PY'
from setuptools import setup
from torch.utils.cpp_extension import BuildExtension, CppExtension
setup(name="tiny", version="0.1", packages=["tiny"], ext_modules=[CppExtension("tiny.a", ["tiny/a.cpp"])],
      cmdclass={"build_ext": BuildExtension})
PY
echo "| run | wall s | build step s (backend + install) | install s | compiler wall s (compile + link) |"
echo "|---|---|---|---|---|"
for i in $(seq 0 "$runs"); do
  rm -rf "$p/build" "$p/build-kiln" "$p"/tiny.egg-info
  t0=$(date +%s.%N)
  (cd "$p" && "$kiln" build . --python "$py" --no-wheel-cache --json > "$work/out.json" 2>/dev/null)
  t1=$(date +%s.%N)
  [ "$i" -eq 0 ] && continue  # the warm-up fills ccache
  "$py" - "$work/out.json" "$p/build-kiln/kiln-exec.jsonl" "$t0" "$t1" "$i" <<'PY'
import json, sys
o = json.load(open(sys.argv[1]))
o = o.get("outcome", o)
compile_ms = sum(json.loads(l)["wall_ms"] for l in open(sys.argv[2]))  # compile and link
print("| %s | %.1f | %.1f | %.1f | %.1f |" % (sys.argv[5], float(sys.argv[4]) - float(sys.argv[3]),
      o["build_s"], o["install_s"], compile_ms / 1000))
PY
done
