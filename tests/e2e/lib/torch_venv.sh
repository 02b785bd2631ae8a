# Sourced after common.sh by the CppExtension e2e tests (not a test itself: ctest runs tests/e2e/*.sh only).
# torch_venv WORK [VENV-OPTION...]: skips (exit 77) unless Debian's python3-torch, setuptools and wheel
# are there, then makes WORK/venv (--system-site-packages, as PEP 668 asks, and the options given, such
# as --without-pip: quicker, the system's pip serving) and sets `py` to its interpreter.
torch_venv() {
  local sys_py=/usr/bin/python3 work=$1
  shift
  "$sys_py" -c "import torch.utils.cpp_extension, setuptools, wheel" 2>/dev/null \
    || skip "$sys_py has no torch cpp_extension, setuptools or wheel (python3-torch, python3-wheel)"
  "$sys_py" -m venv --system-site-packages "$@" "$work/venv" >/dev/null 2>&1 || skip "venv does not work here"
  py=$work/venv/bin/python
}
