#pragma once
/// @file inplace_check.hpp
/// The leaf rule: why `w.add_(1)` fails when `w` requires grad.
///
/// A leaf that requires grad is a parameter: backward adds its gradient into `.grad`
/// through its AccumulateGrad node. Recording an in-place write into it would give it
/// a `grad_fn`, so it would no longer be a leaf and its `.grad` would never be filled;
/// PyTorch refuses the write instead, except under no_grad, where the write is not part
/// of any graph (that is how weights are initialised and how optimizers step). Values
/// that nodes saved are another matter, guarded for every tensor by the version counter
/// (saved_variable.hpp).

#include <kindling/node.hpp>

namespace kindling::autograd {

/// Called before every in-place write on a tensor that takes part in autograd, while grad mode is
/// on (the engine makes both checks before calling).
/// (Task week02.leaf_inplace: the contract and the code are in src/tasks/leaf_inplace.cpp.)
void check_inplace(const Tensor& self);

}  // namespace kindling::autograd
