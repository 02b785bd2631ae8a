#!/usr/bin/env bash
# Writes to $1 a torch CUDA extension shaped like mamba's selective scan (state-spaces/mamba
# e9594ce, setup.py:248-260: one CUDAExtension, ten .cu units of one kernel family): nine short
# units and one long one, listed LAST in the sources, so that Ninja's file order would launch it
# last. Each unit explicitly instantiates a templated kernel for a number of tile sizes; the long
# unit instantiates eight times as many (more device code, more bytes of source: what kiln's
# estimate reads before anything compiles). For bench/project_bound.sh on a GPU host:
#   bench/gen_longest_last.sh /tmp/longest-last && bench/project_bound.sh ./kiln python3 /tmp/longest-last OUT
# In kiln's log: "units longest first ... scan_9.cu=..." first; in kiln-exec.jsonl the long unit
# launches first and holds the split threads (field "grant").
set -euo pipefail
dir=$1
mkdir -p "$dir/csrc"
units=""
for i in $(seq 0 9); do
  n=$([ "$i" = 9 ] && echo 64 || echo 8)
  {
    echo "// Unit $i: $n instantiations of a templated tile kernel."
    echo "#include <cuda_runtime.h>"
    echo "template <int TILE, int STEPS> __global__ void scan_$i(const float* x, float* y, int n) {"
    echo "  __shared__ float s[TILE];"
    echo "  int t = blockIdx.x * TILE + threadIdx.x;"
    echo "  float acc = t < n ? x[t] : 0.f;"
    echo "#pragma unroll"
    echo "  for (int k = 0; k < STEPS; ++k) { s[threadIdx.x] = acc; __syncthreads(); acc += threadIdx.x >= (1 << (k % 5)) ? s[threadIdx.x - (1 << (k % 5))] * 0.5f : 0.f; __syncthreads(); }"
    echo "  if (t < n) y[t] = acc;"
    echo "}"
    for j in $(seq 1 "$n"); do
      echo "template __global__ void scan_$i<$((32 * (1 + j % 8))), $((16 + j))>(const float*, float*, int);"
    done
    echo "void launch_$i(const float* x, float* y, int n) { scan_$i<64, 17><<<(n + 63) / 64, 64>>>(x, y, n); }"
  } > "$dir/csrc/scan_$i.cu"
  units="$units \"csrc/scan_$i.cu\","
done
cat > "$dir/csrc/bind.cpp" <<'CPP'
#include <torch/extension.h>
#define UNIT(i) void launch_##i(const float*, float*, int);
UNIT(0) UNIT(1) UNIT(2) UNIT(3) UNIT(4) UNIT(5) UNIT(6) UNIT(7) UNIT(8) UNIT(9)
torch::Tensor scan(torch::Tensor x, int64_t unit) {
  auto y = torch::empty_like(x);
  void (*launch[])(const float*, float*, int) = {launch_0, launch_1, launch_2, launch_3, launch_4,
                                                launch_5, launch_6, launch_7, launch_8, launch_9};
  launch[unit](x.data_ptr<float>(), y.data_ptr<float>(), static_cast<int>(x.numel()));
  return y;
}
PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) { m.def("scan", &scan); }
CPP
cat > "$dir/setup.py" <<PY
from setuptools import setup
from torch.utils.cpp_extension import BuildExtension, CUDAExtension

setup(name="longest_last", version="0.1",
      ext_modules=[CUDAExtension("longest_last", ["csrc/bind.cpp",$units],
                                 extra_compile_args={"cxx": ["-O3"], "nvcc": ["-O3"]})],
      cmdclass={"build_ext": BuildExtension})
PY
echo "wrote $dir: csrc/scan_9.cu (64 instantiations) is listed last"
