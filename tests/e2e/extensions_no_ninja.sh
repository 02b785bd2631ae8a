#!/usr/bin/env bash
# A project that turned Ninja off (BuildExtension.with_options(use_ninja=False)) with two
# CppExtensions compiling one shared source under different macros: pytorch_scatter's pattern
# (648dda3, setup.py:84-100 and :139). kiln's parallel path (data/parallel_extensions.py) compiles
# it with Ninja, each extension's copy of the shared object in its own folder; the project's own
# serial path (KILN_PARALLEL_EXTENSIONS=0) compiles one source after another into one folder. The
# wheels hold the same members, and the libraries and objects hold the same code: they differ only
# in debug info (the Ninja path compiles absolute paths from build_temp, distutils relative ones
# from the project) and so in the linker's build-id over it, which are stripped before comparing.
# Its header comes through a relative include_dirs, meant from setup.py's folder (torch-points-kernels
# 40153193, setup.py:48-66 include_dirs=["cpu/include"] with use_ninja=False): under Ninja, which
# compiles from the build folder, kiln makes it absolute, or the header is not found.
set -uo pipefail
. "$(dirname "$0")/lib/common.sh"
kiln=$1
need c++ ninja objcopy
. "$(dirname "$0")/lib/torch_venv.sh"
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
torch_venv "$work"
export XDG_CACHE_HOME=$work/xdg CCACHE_DIR=$work/ccache

p=$work/proj
mkdir -p "$p/nn" "$p/src" "$p/include" && touch "$p/nn/__init__.py"
echo 'int shared_value();' > "$p/include/shared_value.h"
cat > "$p/src/shared.cpp" <<'CPP'
#include <map>
#include <string>
int shared_value() {
#ifdef FLAVOUR_B
  std::map<std::string, int> m{{"b", 20}};
  return m["b"];
#else
  std::map<std::string, int> m{{"a", 10}};
  return m["a"];
#endif
}
CPP
for e in a b; do
  cat > "$p/src/mod_$e.cpp" <<CPP
#include <Python.h>
#include "shared_value.h"
static PyObject* answer(PyObject*, PyObject*) { return PyLong_FromLong(shared_value()); }
static PyMethodDef methods[] = {{"answer", answer, METH_NOARGS, nullptr}, {nullptr, nullptr, 0, nullptr}};
static PyModuleDef module = {PyModuleDef_HEAD_INIT, "$e", nullptr, -1, methods};
PyMODINIT_FUNC PyInit_$e() { return PyModule_Create(&module); }
CPP
done
cat > "$p/setup.py" <<'PY'
from setuptools import setup
from torch.utils.cpp_extension import BuildExtension, CppExtension

exts = [CppExtension("nn.a", ["src/mod_a.cpp", "src/shared.cpp"], include_dirs=["include"]),
        CppExtension("nn.b", ["src/mod_b.cpp", "src/shared.cpp"], include_dirs=["include"],
                     define_macros=[("FLAVOUR_B", None)])]
setup(name="nn", version="0.1", packages=["nn"], ext_modules=exts,
      cmdclass={"build_ext": BuildExtension.with_options(use_ninja=False)})
PY

build() {  # MODE DEST: a clean build without ccache or the wheel cache; its wheel and objects kept
  rm -rf "$p/build" "$p/build-kiln" "$p"/nn.egg-info
  out=$(cd "$p" && KILN_PARALLEL_EXTENSIONS=$1 "$kiln" build . --python "$py" --no-ccache --no-wheel-cache 2>&1) \
    || { echo "$out" | tail -5; tail -30 "$p/build-kiln/kiln-build.log"; fail "the build with KILN_PARALLEL_EXTENSIONS=$1 failed"; }
  (cd / && "$py" -c "import nn.a, nn.b; assert (nn.a.answer(), nn.b.answer()) == (10, 20)") \
    || fail "the modules of the build with KILN_PARALLEL_EXTENSIONS=$1 do not answer 10 and 20"
  mkdir -p "$2/wheel" "$2/obj"
  (cd "$2/wheel" && "$py" -m zipfile -e "$p"/build-kiln/wheel/*.whl .) || fail "no wheel"
  # setuptools builds in the kiln build folder's own setuptools/ (issue 34), never the project's build/
  (cd "$p"/build-kiln/setuptools/temp.* && find . -name '*.o' | xargs -I{} cp --parents {} "$2/obj/") \
    || fail "no object files in $p/build-kiln/setuptools/temp.*"
  [ -n "$(find "$2/obj" -name '*.o')" ] || fail "the build with KILN_PARALLEL_EXTENSIONS=$1 left no object files"
}
code() {  # FILE: its bytes without debug info and build-id (a file of its own: two run at once under cmp)
  local out
  out=$(mktemp "$work/code.XXXXXX")
  objcopy --strip-debug --remove-section=.note.gnu.build-id "$1" "$out" && cat "$out"
}

build 1 "$work/parallel"
log=$p/build-kiln/kiln-build.log
grep -q "^KILN-EXTENSIONS nn.a nn.b" "$log" || fail "the extensions were not built at once"
grep -q "compiling with Ninja (the project set use_ninja=False" "$log" || fail "Ninja was not turned on"
grep -q "extensions share 1 object(s) (src/shared.o)" "$log" || fail "the shared object was not separated"
build 0 "$work/serial"
grep -q "^KILN-EXTENSIONS" "$log" && fail "KILN_PARALLEL_EXTENSIONS=0 still built the extensions at once"
[ -e "$p"/build-kiln/setuptools/temp.*/build.ninja ] && fail "the serial build used Ninja: it should run the project's own path"

[ "$(cd "$work/serial/wheel" && find . -type f | sort)" = "$(cd "$work/parallel/wheel" && find . -type f | sort)" ] \
  || fail "the wheels' members differ"
n=0
for f in $(cd "$work/serial/wheel" && find . -type f); do
  case $f in
    *.so) cmp -s <(code "$work/serial/wheel/$f") <(code "$work/parallel/wheel/$f") || fail "$f holds other code" ;;
    */RECORD) [ "$(cut -d, -f1 "$work/serial/wheel/$f")" = "$(cut -d, -f1 "$work/parallel/wheel/$f")" ] \
      || fail "$f lists other files" ;;  # its hashes are of the libraries, debug info included
    *) cmp -s "$work/serial/wheel/$f" "$work/parallel/wheel/$f" || fail "$f differs" ;;
  esac
  n=$((n + 1))
done
# The serial build compiles shared.o twice into one place (nn.b's, with FLAVOUR_B, is left).
for pair in "src/mod_a.o kiln-obj/nn.a/src/mod_a.o" "src/mod_b.o kiln-obj/nn.b/src/mod_b.o" \
            "src/shared.o kiln-obj/nn.b/src/shared.o"; do
  set -- $pair
  cmp -s <(code "$work/serial/obj/$1") <(code "$work/parallel/obj/$2") || fail "$1 and $2 hold other code"
done
echo "ok: $n wheel members and 3 objects alike"
