#pragma once
/// @file inplace_check.hpp
/// The leaf rule: why `w.add_(1)` fails when `w` requires grad.
///
/// A leaf that requires grad is a parameter: backward must add its gradient into
/// `.grad`, and the formulas of every node that used it read the values it had.
/// Writing into it in place would silently change those values, and the write
/// itself has no node to flow through, so PyTorch refuses it, except under
/// no_grad, where the write is not part of any graph (that is how weights are
/// initialised and how optimizers step).

#include <kindling/node.hpp>

namespace kindling::autograd {

/// Called before every in-place write on a tensor that takes part in autograd,
/// while grad mode is on (the engine makes both checks before calling).
///
/// Throw kindling::Error, word for word:
/// - `self` is a leaf that requires grad:
///   "a leaf Variable that requires grad is being used in an in-place operation."
/// - `self` is a view (is_view()) that requires grad and whose base() is a leaf,
///   whether or not the base requires grad (PyTorch's condition: so
///   `tensor(data).reshape(shape).requires_grad_()`, a view of a plain tensor
///   that was made to require grad afterwards, gets this message too):
///   "a view of a leaf Variable that requires grad is being used in an in-place operation."
/// Anything else (a non-leaf, a leaf that does not require grad) is allowed.
inline void check_inplace(const Tensor& self) {
  // BEGIN TASK week02.leaf_inplace (replace the stub below with your code)
  KINDLING_TODO("week02.leaf_inplace");
  // END TASK
}

}  // namespace kindling::autograd
