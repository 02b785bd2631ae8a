#!/usr/bin/env bash
# End-to-end check of the bundled example (examples/minitorch) with plain
# CMake + Ninja, independent of kiln: it configures (running the generator's
# dry run), builds, runs mt_selftest and the example's ctest, and checks that
# touching one .cu file rebuilds one object. Usage: example_minitorch.sh KILN SOURCE_DIR
# Exit 77 (skipped) when nvcc, cmake, ninja or Python >= 3.11 is missing.
set -euo pipefail
. "$(dirname "$0")/lib/common.sh"
src="$2/examples/minitorch"

nvcc="$(command -v nvcc || true)"
[[ -z "$nvcc" && -x /usr/local/cuda/bin/nvcc ]] && nvcc=/usr/local/cuda/bin/nvcc
need cmake ninja python3
[[ -n "$nvcc" ]] || skip "nvcc not found"
python3 -c 'import sys; sys.exit(sys.version_info < (3, 11))' || skip "python3 < 3.11"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
# A private copy: the incremental check touches a source file.
cp -r "$src" "$work/minitorch"
rm -rf "$work"/minitorch/build*


launcher=()
if command -v ccache >/dev/null; then
  export CCACHE_BASEDIR="$work"  # same relative paths on every run: later runs hit
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_CUDA_COMPILER_LAUNCHER=ccache)
fi

# With a GPU visible, build for it (CMake's "native"), so that its kernel
# checks must pass; without one, a single cheap architecture.
archs=80-real
if command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1; then archs=native; fi
cmake -S "$work/minitorch" -B "$work/build" -G Ninja -DCMAKE_CUDA_COMPILER="$nvcc" \
  -DCMAKE_CUDA_ARCHITECTURES="$archs" "${launcher[@]}" >"$work/configure.log" 2>&1 \
  || { cat "$work/configure.log"; fail "configure"; }
grep -q 'RegisterCUDA.cpp' "$work/build/generated/generated_files.cmake" \
  || fail "dry run did not list RegisterCUDA.cpp"
[[ ! -e "$work/build/generated/src/Operators.cpp" ]] || fail "configure wrote generated sources"

ninja -C "$work/build" >"$work/build.log" 2>&1 || { tail -50 "$work/build.log"; fail "build"; }

set +e
"$work/build/bin/mt_selftest" >"$work/selftest.log" 2>&1
rc=$?
set -e
cat "$work/selftest.log"
[[ $rc -eq 0 ]] || fail "mt_selftest exited $rc"
grep -q '^\[reg \] \*  *no kernels beyond ops.toml  *PASS' "$work/selftest.log" || fail "registration check missing"
grep -q '^\[cpu \] sobel .*PASS' "$work/selftest.log" || fail "cpu sobel check missing"
if grep -q '^no CUDA device found: GPU checks skipped (CPU reference checks ran)$' "$work/selftest.log"; then
  echo "(no GPU here: CPU checks only)"
else
  # A GPU is present and the build targets it: every kernel must have run.
  for op in rgb_to_lab rgb_to_gray sobel add sum; do
    grep -q "^\[cuda\] $op .*PASS" "$work/selftest.log" || fail "no cuda PASS line for $op"
  done
fi

(cd "$work/build" && ctest --output-on-failure >"$work/ctest.log" 2>&1) \
  || { cat "$work/ctest.log"; fail "example ctest"; }

touch "$work/minitorch/cuda/src/sobel.cu"
compiles="$(ninja -C "$work/build" -n | grep -c 'Building' || true)"
[[ "$compiles" -eq 1 ]] || fail "touching sobel.cu plans $compiles compiles, expected 1"
echo "example_minitorch: OK"
