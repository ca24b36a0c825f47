#pragma once
/// @file copies.hpp
/// Three ways to get "another x": rebinding, writing in place, and a deep copy.
///
/// `x = x + 1` makes a new tensor and points the name at it: the old tensor, and
/// every view of it, is left as it was. `x += 1` writes into x's own memory: every
/// view sees it, the version counter counts it, and on a leaf that requires grad
/// autograd refuses it. `x.clone().detach()` is a deep copy: new memory and no
/// history. (Task week02.deep_copy: the contracts and the code are in
/// src/tasks/deep_copy.cpp.)

#include <kindling/tensor.hpp>

namespace kindling::autograd {

/// `x + c`, as `x = x + c` computes it: a new tensor.
Tensor add_rebinding(const Tensor& x, double c);

/// `x += c`: x itself, written in place.
const Tensor& add_in_place(const Tensor& x, double c);

/// `t.clone().detach()`: a copy of t in memory of its own, with no history.
Tensor deep_copy(const Tensor& t);

}  // namespace kindling::autograd
