// Task week02.relu_backward. The doc comment above each function is its contract; your code
// goes between BEGIN and END. Hints, one at a time: `./grade hint week02.relu_backward`.

#include <kindling/error.hpp>  // KINDLING_TODO, which the worksheet's stubs call
#include <kindling/factory.hpp>
#include <kindling/formulas.hpp>
#include <kindling/join.hpp>
#include <kindling/ops.hpp>

// Useful: the comparisons of ops.hpp (gt, ge, ...: bool tensors), where(cond, a, b)
// (join.hpp; b may be a 0-d tensor, which broadcasts), zeros({}, dtype) (a 0-d zero),
// masked_fill, and the arithmetic operators.

namespace kindling::autograd {

/// The vector-Jacobian product of `result = relu(self)` = max(self, 0): for each
/// element, 0 where result <= 0, else grad, with grad's shape and dtype. It reads
/// only `result` (the output ReluBackward0 saved), never self: relu_ overwrites
/// self with the result, and the backward must still work. At self == 0 (and at
/// -0.0) the gradient is 0, as PyTorch's: ReLU has no derivative there, and 0 is
/// the subgradient PyTorch chose. A NaN result (relu lets a NaN through) is not
/// <= 0, so it passes grad on, as PyTorch's threshold_backward does: a NaN is
/// never turned into a quiet 0. `grad` and `result` have the same shape; neither
/// is modified.
Tensor relu_backward(const Tensor& grad, const Tensor& result) {
  // BEGIN TASK week02.relu_backward (replace the stub below with your code)
  KINDLING_TODO("week02.relu_backward");
  // END TASK
}

}  // namespace kindling::autograd
