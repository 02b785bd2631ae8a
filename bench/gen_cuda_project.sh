#!/usr/bin/env bash
# Writes a small CMake + CUDA project to $1 whose device code is heavy enough that the cost of each
# extra architecture shows: four .cu files, each instantiating templated kernels for several types.
set -euo pipefail
dir=$1
mkdir -p "$dir"
cat > "$dir/CMakeLists.txt" <<'CM'
cmake_minimum_required(VERSION 3.24)
project(kiln_bench_gen LANGUAGES CXX CUDA)
add_library(ops SHARED k0.cu k1.cu k2.cu k3.cu)
add_executable(driver main.cpp)
target_link_libraries(driver ops)
CM
for i in 0 1 2 3; do
  cat > "$dir/k$i.cu" <<CU
#include <cstdint>
template <typename T, int R>
__global__ void stencil$i(const T* in, T* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  T acc = T(0);
#pragma unroll
  for (int r = -R; r <= R; ++r) {
    int j = min(max(i + r, 0), n - 1);
    acc += in[j] * T(r + R + 1) / T(2 * R + 1);
  }
  out[i] = acc + T($i);
}
template <typename T>
__global__ void reduce$i(const T* in, T* out, int n) {
  __shared__ T s[256];
  T v = T(0);
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) v += in[i];
  s[threadIdx.x] = v;
  __syncthreads();
  for (int w = 128; w > 0; w >>= 1) {
    if (threadIdx.x < w) s[threadIdx.x] += s[threadIdx.x + w];
    __syncthreads();
  }
  if (threadIdx.x == 0) atomicAdd(out, s[0]);
}
template <typename T> void run$i(const T* in, T* out, int n) {
  stencil$i<T, 1><<<(n + 255) / 256, 256>>>(in, out, n);
  stencil$i<T, 2><<<(n + 255) / 256, 256>>>(in, out, n);
  stencil$i<T, 4><<<(n + 255) / 256, 256>>>(in, out, n);
  stencil$i<T, 8><<<(n + 255) / 256, 256>>>(in, out, n);
  stencil$i<T, 16><<<(n + 255) / 256, 256>>>(in, out, n);
  reduce$i<T><<<64, 256>>>(in, out, n);
}
template void run$i<float>(const float*, float*, int);
template void run$i<double>(const double*, double*, int);
template void run$i<int>(const int*, int*, int);
template void run$i<unsigned long long>(const unsigned long long*, unsigned long long*, int);
CU
done
echo 'int main() { return 0; }' > "$dir/main.cpp"
