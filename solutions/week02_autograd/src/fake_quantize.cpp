// fake_quantize_per_tensor_affine: PyTorch's argument checks, then the custom function of the task
// week02.custom_function (FakeQuantize, src/tasks/custom_function.cpp).

#include <kindling/error.hpp>
#include <kindling/fake_quantize.hpp>

namespace kindling::autograd {

Tensor fake_quantize_per_tensor_affine(const Tensor& x, double scale, std::int64_t zero_point, std::int64_t quant_min,
                                       std::int64_t quant_max) {
  KINDLING_CHECK(quant_min <= quant_max, "`quant_min` should be less than or         equal to `quant_max`.");
  KINDLING_CHECK(zero_point >= quant_min && zero_point <= quant_max,
                 "`zero_point` must be between `quant_min` and `quant_max`.");
  KINDLING_CHECK(x.dtype() == kFloat32, "fake_quantize_per_tensor_affine: expected a float32 tensor");
  return FakeQuantize::apply(x, scale, zero_point, quant_min, quant_max);
}

}  // namespace kindling::autograd
