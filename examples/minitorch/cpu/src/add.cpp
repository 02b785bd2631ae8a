// CPU reference for add: out = a + alpha * b.
#include "mt/ops/add_native.h"

namespace mt::native {

void add_cpu(const Tensor& a, const Tensor& b, float alpha, Tensor& out) {
  check_float(a, "a", "add");
  check_float(b, "b", "add");
  check_float(out, "out", "add");
  check_same_shape(a, "a", b, "b", "add");
  check_same_shape(a, "a", out, "out", "add");
  const float* pa = a.data<float>();
  const float* pb = b.data<float>();
  float* po = out.data<float>();
  for (std::int64_t i = 0; i < a.numel(); ++i) po[i] = pa[i] + alpha * pb[i];
}

}  // namespace mt::native
