// MUTANT: decides inside or outside from the unrounded value
// Task week02.custom_function. The doc comment above each function is its contract; your code goes
// between BEGIN and END. Hints, one at a time: `./grade hint week02.custom_function`.

#include <cstdint>

#include <kindling/error.hpp>  // KINDLING_TODO, which the worksheet's stubs call
#include <kindling/fake_quantize.hpp>
#include <kindling/ops.hpp>

namespace kindling::autograd {

/// FakeQuantize's forward, recording off (custom functions' forward always runs so): returns
/// (clamp(round(x x (1 / scale)) + zero_point, quant_min, quant_max) - zero_point) x scale, the
/// reciprocal taken in float32 and every step in x's float32, round to nearest with ties to even;
/// and keeps for backward, with save_for_backward, what it needs to know which elements were inside
/// [quant_min, quant_max] before the clamp (fake_quantize.hpp has the whole contract).
Tensor FakeQuantize::forward(AutogradContext* ctx, Tensor x, double scale, std::int64_t zero_point,
                             std::int64_t quant_min, std::int64_t quant_max) {
  // BEGIN SOLUTION week02.custom_function
  const float inv_scale = 1.0f / static_cast<float>(scale);
  const Tensor q = round(x * static_cast<double>(inv_scale)) + static_cast<double>(zero_point);
  // 1 where the element is inside the range before the clamp, 0 where the clamp moves it.
  const Tensor u = x * static_cast<double>(inv_scale) + static_cast<double>(zero_point);
  const Tensor inside =
      u.ge(static_cast<double>(quant_min)).to(x.dtype()) * u.le(static_cast<double>(quant_max)).to(x.dtype());
  ctx->save_for_backward({inside});
  return (q.clamp(static_cast<double>(quant_min), static_cast<double>(quant_max)) - static_cast<double>(zero_point)) *
         static_cast<double>(static_cast<float>(scale));
  // END SOLUTION
}

/// The straight-through gradient: grad_outputs[0] where the element was inside the range, 0 where it
/// was clamped; then one undefined tensor for each of the four other arguments.
TensorList FakeQuantize::backward(AutogradContext* ctx, TensorList grad_outputs) {
  // BEGIN SOLUTION week02.custom_function
  const Tensor inside = ctx->get_saved_variables()[0];
  return {grad_outputs[0] * inside, Tensor(), Tensor(), Tensor(), Tensor()};
  // END SOLUTION
}

}  // namespace kindling::autograd
