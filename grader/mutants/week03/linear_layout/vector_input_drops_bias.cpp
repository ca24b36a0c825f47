// MUTANT: a 1-d input gets matmul(x, W^T) without the bias
// Task week03.linear_layout. The doc comment above each function is its contract; your code
// goes between BEGIN and END. Hints, one at a time: `./grade hint week03.linear_layout`.

#include <kindling/error.hpp>  // KINDLING_TODO, which the worksheet's stubs call
#include <kindling/linear.hpp>

namespace kindling::nn {

/// weight: (out, in); bias: (out), or None when `has_bias` is false. Both are parameters initialised by
/// reset_parameters(). A negative size fails as the weight's allocation does, the same as torch.nn.Linear(-1, 2):
/// "Trying to create tensor with negative dimension -1: [2, -1]".
Linear::Linear(std::int64_t in, std::int64_t out, bool has_bias)
    : Module("Linear"), in_features(in), out_features(out) {
  // BEGIN SOLUTION week03.linear_layout
  weight = register_parameter("weight", empty({out, in}));
  bias = register_parameter("bias", has_bias ? empty({out}) : Tensor());
  // END SOLUTION
  reset_parameters();
}

}  // namespace kindling::nn

namespace kindling::nn {

/// input (..., in_features) -> (..., out_features). A 2-d input is one addmm;
/// more dims are flattened to 2-d and back. A wrong last dim gets addmm's
/// message: "mat1 and mat2 shapes cannot be multiplied (4x5 and 3x2)".
Tensor Linear::forward(const Tensor& input) {
  // BEGIN SOLUTION week03.linear_layout
  KINDLING_CHECK(input.dim() >= 1, "Linear expects an input with at least 1 dimension, got a scalar");
  const Tensor wt = weight.t();  // (in, out): a view, no copy
  if (input.dim() == 2) return bias.defined() ? addmm(bias, input, wt) : mm(input, wt);
  if (input.dim() == 1) {
    return matmul(input, wt);  // one sample: x W^T
  }
  // (..., in) -> (rows, in) -> (rows, out) -> (..., out)
  Shape out_shape = input.sizes().vec();
  out_shape.back() = out_features;
  const Tensor rows = input.reshape({-1, input.sizes().back()});
  const Tensor y = bias.defined() ? addmm(bias, rows, wt) : mm(rows, wt);
  return y.view(out_shape);
  // END SOLUTION
}

}  // namespace kindling::nn
