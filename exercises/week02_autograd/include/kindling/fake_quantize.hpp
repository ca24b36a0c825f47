#pragma once
/// @file fake_quantize.hpp
/// A custom autograd function with a gradient that is not the derivative (the task
/// week02.custom_function): fake quantisation, as quantisation-aware training uses it. The forward
/// rounds each value to the grid a quantised tensor could hold and back; the backward lets the
/// gradient through unchanged where the value was inside the grid's range, and stops it where
/// the value was clamped (the straight-through estimator: rounding's own derivative is zero almost
/// everywhere, which would stop all learning).

#include <cstdint>

#include <kindling/custom_function.hpp>

namespace kindling::autograd {

/// torch.fake_quantize_per_tensor_affine(x, scale, zero_point, quant_min, quant_max), float32:
/// forward (clamp(round(x x (1 / scale)) + zero_point, quant_min, quant_max) - zero_point) x scale,
/// computed as PyTorch computes it (the reciprocal and the product in float32, rounding to nearest
/// with ties to even); backward: the incoming gradient where quant_min <= round(x x (1 / scale)) +
/// zero_point <= quant_max, and 0 where the value was clamped. The result's grad_fn is the custom
/// function's node (FakeQuantize). PyTorch's errors, word for word (the first with the run of
/// spaces PyTorch's source puts in it): quant_min above quant_max ("`quant_min` should be less than
/// or equal to `quant_max`."), a zero point outside them ("`zero_point` must be between `quant_min`
/// and `quant_max`."); and the kit's for `x` not float32.
Tensor fake_quantize_per_tensor_affine(const Tensor& x, double scale, std::int64_t zero_point, std::int64_t quant_min,
                                       std::int64_t quant_max);

/// The custom function behind fake_quantize_per_tensor_affine (src/tasks/custom_function.cpp).
struct FakeQuantize : Function<FakeQuantize> {
  /// With recording off: the fake-quantised values; keeps for backward which elements stayed in range.
  static Tensor forward(AutogradContext* ctx, Tensor x, double scale, std::int64_t zero_point, std::int64_t quant_min,
                        std::int64_t quant_max);
  /// One gradient per argument of forward: the straight-through gradient for x, none for the rest.
  static TensorList backward(AutogradContext* ctx, TensorList grad_outputs);
};

}  // namespace kindling::autograd
