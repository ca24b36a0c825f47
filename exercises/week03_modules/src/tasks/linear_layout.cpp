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
  // BEGIN TASK week03.linear_layout (replace the stub below with your code)
  KINDLING_TODO("week03.linear_layout");
  // END TASK
  reset_parameters();
}

}  // namespace kindling::nn

namespace kindling::nn {

/// input (..., in_features) -> (..., out_features). A 2-d input is one addmm;
/// more dims are flattened to 2-d and back. A wrong last dim gets addmm's
/// message: "mat1 and mat2 shapes cannot be multiplied (4x5 and 3x2)".
Tensor Linear::forward(const Tensor& input) {
  // BEGIN TASK week03.linear_layout (replace the stub below with your code)
  KINDLING_TODO("week03.linear_layout");
  // END TASK
}

}  // namespace kindling::nn
