#!/usr/bin/env bash
# Writes a small torch.utils.cpp_extension CUDA extension to $1: bindings in ext.cpp, two .cu files
# whose kernels are dispatched over float, double and half (as real extensions are).
set -euo pipefail
dir=$1
mkdir -p "$dir"
cat > "$dir/setup.py" <<'PY'
from setuptools import setup
from torch.utils.cpp_extension import BuildExtension, CUDAExtension

setup(
    name="kiln_bench_ext",
    version="0.1",
    ext_modules=[CUDAExtension("kiln_bench_ext", ["ext.cpp", "scale.cu", "rowsum.cu"])],
    cmdclass={"build_ext": BuildExtension},
)
PY
cat > "$dir/ext.cpp" <<'CPP'
#include <torch/extension.h>
torch::Tensor scale_cuda(torch::Tensor x, double a);
torch::Tensor rowsum_cuda(torch::Tensor x);
PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  m.def("scale", &scale_cuda, "x * a");
  m.def("rowsum", &rowsum_cuda, "sum over the last dimension");
}
CPP
cat > "$dir/scale.cu" <<'CU'
#include <torch/extension.h>
#include <ATen/Dispatch.h>
template <typename T>
__global__ void scale_kernel(const T* x, T* y, double a, int64_t n) {
  for (int64_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x)
    y[i] = static_cast<T>(static_cast<float>(x[i]) * static_cast<float>(a));
}
torch::Tensor scale_cuda(torch::Tensor x, double a) {
  auto y = torch::empty_like(x);
  const int64_t n = x.numel();
  AT_DISPATCH_FLOATING_TYPES_AND_HALF(x.scalar_type(), "scale", [&] {
    scale_kernel<scalar_t><<<256, 256>>>(x.data_ptr<scalar_t>(), y.data_ptr<scalar_t>(), a, n);
  });
  return y;
}
CU
cat > "$dir/rowsum.cu" <<'CU'
#include <torch/extension.h>
#include <ATen/Dispatch.h>
template <typename T, int B>
__global__ void rowsum_kernel(const T* x, float* out, int64_t cols) {
  __shared__ float s[B];
  const T* row = x + blockIdx.x * cols;
  float v = 0.f;
  for (int64_t c = threadIdx.x; c < cols; c += B) v += static_cast<float>(row[c]);
  s[threadIdx.x] = v;
  __syncthreads();
  for (int w = B / 2; w > 0; w >>= 1) {
    if (threadIdx.x < w) s[threadIdx.x] += s[threadIdx.x + w];
    __syncthreads();
  }
  if (threadIdx.x == 0) out[blockIdx.x] = s[0];
}
torch::Tensor rowsum_cuda(torch::Tensor x) {
  auto out = torch::empty({x.size(0)}, x.options().dtype(torch::kFloat));
  AT_DISPATCH_FLOATING_TYPES_AND_HALF(x.scalar_type(), "rowsum", [&] {
    if (x.size(1) >= 1024)
      rowsum_kernel<scalar_t, 256><<<x.size(0), 256>>>(x.data_ptr<scalar_t>(), out.data_ptr<float>(), x.size(1));
    else
      rowsum_kernel<scalar_t, 64><<<x.size(0), 64>>>(x.data_ptr<scalar_t>(), out.data_ptr<float>(), x.size(1));
  });
  return out;
}
CU
