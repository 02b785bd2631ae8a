# Sourced first by every end-to-end suite (not a test itself: ctest runs tests/e2e/*.sh only).
# ctest reads exit 1 as a failure and exit 77 as a skip (SKIP_RETURN_CODE in tests/CMakeLists.txt).

fail() { echo "FAIL: $*"; exit 1; }
skip() { echo "skip: $*"; exit 77; }

# need TOOL...: skips the suite unless every TOOL is on PATH.
need() {
  local tool
  for tool in "$@"; do
    command -v "$tool" >/dev/null || skip "$tool not found"
  done
}

# need_nvcc: skips the suite unless nvcc is on PATH or in /usr/local/cuda/bin.
need_nvcc() { [ -x /usr/local/cuda/bin/nvcc ] || command -v nvcc >/dev/null || skip "nvcc not found"; }

# A Python extension module NAME whose answer() returns 42, written to FILE: no torch headers, so the
# build is cpp_extension's and the compile quick.
answer_module() {  # FILE NAME
  cat > "$1" <<CPP
// No torch headers: the build is cpp_extension's, the compile is quick.
#include <Python.h>
static PyObject* answer(PyObject*, PyObject*) { return PyLong_FromLong(42); }
static PyMethodDef methods[] = {{"answer", answer, METH_NOARGS, nullptr}, {nullptr, nullptr, 0, nullptr}};
static PyModuleDef module = {PyModuleDef_HEAD_INIT, "$2", nullptr, -1, methods};
PyMODINIT_FUNC PyInit_$2() { return PyModule_Create(&module); }
CPP
}
