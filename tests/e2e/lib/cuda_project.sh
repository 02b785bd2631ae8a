# Shared by the end-to-end suites that build a small CMake + CUDA project (sourced after common.sh,
# not run).

# Skips the suite (exit 77) unless cmake, ninja, nvcc and ccache are all there, then sets `work` to a
# new folder removed when the suite exits.
cuda_suite_work() {
  need cmake ninja
  need_nvcc
  need ccache
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
}

# Writes to $1 a project of two .cu files in a shared library and an executable linking it.
write_tiny_cuda_project() {
  local proj=$1
  mkdir -p "$proj"
  cat > "$proj/CMakeLists.txt" <<'CM'
cmake_minimum_required(VERSION 3.24)
project(e2e LANGUAGES CXX CUDA)
add_library(k SHARED a.cu b.cu)
add_executable(t main.cpp)
target_link_libraries(t k)
CM
  echo '__global__ void ka(float* p) { p[threadIdx.x] += 1.f; } void la(float* p) { ka<<<1, 32>>>(p); }' > "$proj/a.cu"
  echo '__global__ void kb(float* p) { p[threadIdx.x] *= 2.f; } void lb(float* p) { kb<<<1, 32>>>(p); }' > "$proj/b.cu"
  echo 'int main() { return 0; }' > "$proj/main.cpp"
}

# write_two_checkouts ONE TWO: the tiny project at ONE with a header of its own found through an
# absolute -I (the case ccache's base_dir must rewrite), copied to TWO: one project at two paths.
write_two_checkouts() {
  write_tiny_cuda_project "$1"
  mkdir -p "$1/include"
  printf '#pragma once\n#define K_SCALE 2.f\n' > "$1/include/k.h"
  echo 'target_include_directories(k PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/include)' >> "$1/CMakeLists.txt"
  sed -i '1i #include "k.h"' "$1/b.cu"
  sed -i 's/\*= 2.f/*= K_SCALE/' "$1/b.cu"
  mkdir -p "$(dirname "$2")" && cp -r "$1" "$2"
}
