// CPU reference for sum: accumulates in double so that it is the accurate
// side of the comparison with the float CUDA reduction.
#include "mt/ops/sum_native.h"

namespace mt::native {

void sum_cpu(const Tensor& input, Tensor& out) {
  check_float(input, "input", "sum");
  check_float(out, "out", "sum");
  check_shape(out, "out", {1}, "sum");
  const float* p = input.data<float>();
  double total = 0.0;
  for (std::int64_t i = 0; i < input.numel(); ++i) total += p[i];
  out.data<float>()[0] = static_cast<float>(total);
}

}  // namespace mt::native
