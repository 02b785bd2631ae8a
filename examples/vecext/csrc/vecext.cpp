// Python bindings and argument checks for the two kernels.
#include <torch/extension.h>

torch::Tensor scaled_add_cuda(const torch::Tensor& x, const torch::Tensor& y, double alpha);
torch::Tensor row_sum_cuda(const torch::Tensor& x);

static void check(const torch::Tensor& t, const char* name) {
  TORCH_CHECK(t.is_cuda(), name, " must be a CUDA tensor");
  TORCH_CHECK(t.is_contiguous(), name, " must be contiguous");
}

torch::Tensor scaled_add(const torch::Tensor& x, const torch::Tensor& y, double alpha) {
  check(x, "x");
  check(y, "y");
  TORCH_CHECK(x.sizes() == y.sizes() && x.scalar_type() == y.scalar_type(), "x and y must match in shape and dtype");
  return scaled_add_cuda(x, y, alpha);
}

torch::Tensor row_sum(const torch::Tensor& x) {
  check(x, "x");
  TORCH_CHECK(x.dim() == 2, "x must be 2-D");
  return row_sum_cuda(x);
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  m.def("scaled_add", &scaled_add, "x + alpha * y");
  m.def("row_sum", &row_sum, "sum over the last dimension, accumulated in float");
}
