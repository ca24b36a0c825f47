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

/// Called before every in-place write on a tensor that takes part in autograd, while grad mode is
/// on (the engine makes both checks before calling).
/// (Task week02.leaf_inplace: the contract and the code are in src/tasks/leaf_inplace.cpp.)
void check_inplace(const Tensor& self);

}  // namespace kindling::autograd
