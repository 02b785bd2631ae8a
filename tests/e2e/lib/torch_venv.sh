# Sourced by the CppExtension e2e tests (not a test itself: ctest runs tests/e2e/*.sh only).
# torch_venv WORK: skips (exit 77) unless Debian's python3-torch, setuptools and wheel are there, then
# makes WORK/venv (--system-site-packages, as PEP 668 asks) and sets `py` to its interpreter.
torch_venv() {
  local sys_py=/usr/bin/python3
  "$sys_py" -c "import torch.utils.cpp_extension, setuptools, wheel" 2>/dev/null \
    || { echo "skip: $sys_py has no torch cpp_extension, setuptools or wheel (python3-torch, python3-wheel)"; exit 77; }
  "$sys_py" -m venv --system-site-packages "$1/venv" >/dev/null 2>&1 || { echo "skip: venv does not work here"; exit 77; }
  py=$1/venv/bin/python
}
