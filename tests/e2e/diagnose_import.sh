# ABI mismatch at import, for real: a Python extension built against a libtorch symbol that the
# running process does not provide (what an extension built for another torch version hits).
. "$(dirname "$0")/lib/common.sh"
. "$(dirname "$0")/lib/diagnose_project.sh"
need python3-config
cat >"$WORK/ext.cpp" <<'CPP'
#include <Python.h>
#include <string>
namespace c10 { namespace detail {
[[noreturn]] void torchCheckFail(const char*, const char*, unsigned, const std::string&);
} }
static PyObject* check(PyObject*, PyObject*) { c10::detail::torchCheckFail("f", "file", 1, "msg"); }
static PyMethodDef methods[] = {{"check", check, METH_NOARGS, ""}, {nullptr, nullptr, 0, nullptr}};
static PyModuleDef mod = {PyModuleDef_HEAD_INIT, "_C", nullptr, -1, methods};
PyMODINIT_FUNC PyInit__C(void) { return PyModule_Create(&mod); }
CPP
g++ -shared -fPIC $(python3-config --includes) "$WORK/ext.cpp" -o "$WORK/_C$(python3-config --extension-suffix)" ||
  fail "could not build the extension"
(cd "$WORK" && python3 -c "import _C") >"$WORK/build.log" 2>&1 && fail "import succeeded"
expect_root runtime.torch-abi-mismatch
"$KILN" diagnose --json "$WORK/build.log" | python3 -c "
import json,sys; c=json.load(sys.stdin)['root_cause']['captures']; assert c['symbol'].startswith('_ZN3c106detail14torchCheckFail'), c" || fail "symbol"
echo PASS
