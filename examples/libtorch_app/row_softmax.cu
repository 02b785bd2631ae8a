// A row-wise softmax: one block per row, a shared-memory reduction for the maximum and the sum.
#include <cuda_runtime.h>

#include <cfloat>

namespace {

constexpr int kThreads = 256;  // a power of two: the reductions halve it

__global__ void row_softmax_kernel(const float* __restrict__ x, float* __restrict__ y, int cols) {
  __shared__ float red[kThreads];
  const float* xr = x + static_cast<size_t>(blockIdx.x) * cols;
  float* yr = y + static_cast<size_t>(blockIdx.x) * cols;

  float m = -FLT_MAX;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) m = fmaxf(m, xr[c]);
  red[threadIdx.x] = m;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) red[threadIdx.x] = fmaxf(red[threadIdx.x], red[threadIdx.x + s]);
    __syncthreads();
  }
  m = red[0];
  __syncthreads();

  float sum = 0.f;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) sum += expf(xr[c] - m);
  red[threadIdx.x] = sum;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) red[threadIdx.x] += red[threadIdx.x + s];
    __syncthreads();
  }
  const float inv = 1.f / red[0];
  for (int c = threadIdx.x; c < cols; c += blockDim.x) yr[c] = expf(xr[c] - m) * inv;
}

}  // namespace

// Launches on the default stream; `binary_version` receives the SASS version the driver picked
// for this GPU (cudaFuncAttributes::binaryVersion, e.g. 90), 0 when it could not be read.
cudaError_t row_softmax(const float* x, float* y, int rows, int cols, int* binary_version) {
  row_softmax_kernel<<<rows, kThreads>>>(x, y, cols);
  const cudaError_t launched = cudaGetLastError();
  cudaFuncAttributes attr{};
  *binary_version = cudaFuncGetAttributes(&attr, row_softmax_kernel) == cudaSuccess ? attr.binaryVersion : 0;
  return launched;
}
