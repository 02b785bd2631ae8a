#!/usr/bin/env bash
# First contact with a project that gates its CUDA code behind a switch (CMake option WITH_CUDA,
# OFF by default): `cd proj && kiln plan` plans the current folder and turns the switch on;
# `kiln build --no-knobs` builds no CUDA code and fails naming the switch; `kiln build` builds
# it; a second build into a folder in use is refused, naming the other run.
set -uo pipefail
. "$(dirname "$0")/lib/common.sh"
kiln=$1
export PATH=/usr/local/cuda/bin:$PATH
need cmake ninja nvcc flock
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
mkdir -p "$work/proj"
cat > "$work/proj/CMakeLists.txt" <<'CM'
cmake_minimum_required(VERSION 3.24)
project(gated LANGUAGES CXX)
option(WITH_CUDA "Build the CUDA kernels" OFF)
add_library(gated SHARED host.cpp)
if(WITH_CUDA)
  enable_language(CUDA)
  target_sources(gated PRIVATE kernel.cu)
endif()
CM
echo 'int host() { return 1; }' > "$work/proj/host.cpp"
echo '__global__ void k(int* p) { *p = 1; }' > "$work/proj/kernel.cu"

# 1. The current folder is the project; the plan says so and sets the switch, with its reason.
out=$(cd "$work/proj" && "$kiln" plan --gpu h100 2>&1) || { echo "$out"; fail "kiln plan"; }
echo "$out"
echo "$out" | grep -q "^project   $work/proj (cmake)  \[the current folder (no DIR given)\]" || fail "plan does not name the current folder"
echo "$out" | grep -q -- "-DWITH_CUDA=ON  \[CMakeLists.txt:3 cuda-enable:" || fail "plan does not set WITH_CUDA"
(cd "$work/proj" && "$kiln" plan --gpu h100 --json) | python3 -c "
import json,sys
k=[k for k in json.load(sys.stdin)['knobs'] if k['name']=='WITH_CUDA'][0]
assert k['value']=='ON' and k['origin']=='kiln' and k['kind']=='cmake', k" || fail "plan --json knobs"

# 2. With --no-knobs the build compiles no CUDA code: a failure naming the switch.
out=$(cd "$work/proj" && "$kiln" build --gpu h100 --no-knobs --no-ccache --build-dir "$work/b1" 2>&1); rc=$?
echo "$out" | tail -3
[ $rc -eq 1 ] || fail "no-CUDA build exited $rc, want 1"
echo "$out" | grep -q "but the build compiled none for 90-real: -DWITH_CUDA was 'OFF'" || fail "no gate in the failure"
echo "$out" | grep -q "WITH_CUDA=ON" || fail "the failure does not say what turns it on"

# 3. Another run holding the build folder: refused, naming it.
mkdir -p "$work/b2/.kiln"
printf 'pid 4242\ncommand kiln build elsewhere\nsince 2026-01-01T00:00:00Z\n' > "$work/b2/.kiln/lock"
out=$(flock "$work/b2/.kiln/lock" "$kiln" build "$work/proj" --gpu h100 --no-ccache --build-dir "$work/b2" 2>&1); rc=$?
[ $rc -eq 1 ] || { echo "$out"; fail "locked build exited $rc, want 1"; }
echo "$out" | grep -q "is in use by another build: pid 4242 (kiln build elsewhere), running since 2026-01-01T00:00:00Z" \
  || { echo "$out"; fail "lock message"; }

# 4. With kiln's knobs the CUDA code is built and verified; the lock is free afterwards.
out=$("$kiln" build "$work/proj" --gpu h100 --no-ccache --build-dir "$work/b2" 2>&1); rc=$?
echo "$out" | tail -4
[ $rc -eq 0 ] || fail "build with knobs exited $rc"
echo "$out" | grep -q "libgated.so  \[90-real\]" || fail "the library holds no sm_90 code"
echo "first contact: current folder planned, gate named, lock honoured, CUDA built"
