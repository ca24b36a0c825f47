#pragma once
/// @file formulas.hpp
/// Backward formulas you write: broadcasting's sum_to_size, mul and mm.
///
/// A backward formula computes the vector-Jacobian product vᵀJ without ever
/// building J: for `out = a * b` elementwise, J is diagonal, so vᵀJ is just
/// `grad * b` for `a`. The formulas of every other op live in the engine's
/// formulas.cpp, one case each, and follow the same pattern.

#include <array>

#include <kindling/linalg.hpp>
#include <kindling/ops.hpp>

namespace kindling::autograd {

/// Reduces a gradient computed at a broadcast shape back to the shape of the
/// input it belongs to: sum over the leading dimensions broadcasting added, and
/// over every dimension where `sizes` has 1 but `grad` does not (keeping it as 1).
/// `sum_to_size(grad [4, 2, 3], {2, 1})` sums dim 0 and dim 2 -> [2, 1].
/// Returns `grad` itself when the shapes already match. Throws kindling::Error
/// "size {[2, 1]} is not expandable to size {[4, 2, 3]}." when `sizes` could not
/// have been broadcast to grad's shape.
inline Tensor sum_to_size(const Tensor& grad, IntArrayRef sizes) {
  // BEGIN TASK week02.sum_to_size (replace the stub below with your code)
  KINDLING_TODO("week02.sum_to_size");
  // END TASK
}

/// Gradients of `out = self * other` (elementwise, broadcasting): returns
/// {grad for self, grad for other}, both still at the broadcast shape of `grad`
/// (the engine applies sum_to_size). A factor that is undefined was not saved
/// because the other input does not need a gradient: skip that product and leave
/// its result undefined. Example: the gradient for self needs `other`.
inline std::array<Tensor, 2> mul_backward(const Tensor& grad, const Tensor& self, const Tensor& other) {
  // BEGIN TASK week02.mul_backward (replace the stub below with your code)
  KINDLING_TODO("week02.mul_backward");
  // END TASK
}

/// Gradients of `out = mat1.mm(mat2)` with mat1 (n, k), mat2 (k, m) and grad
/// (n, m): returns {grad for mat1 (n, k), grad for mat2 (k, m)}. As with
/// mul_backward, an undefined operand means the gradient that needs it is not
/// wanted. For nn.Linear's `x.mm(W.t())` the gradient for `W.t()` arrives here
/// as mat2's; the transpose's own backward then turns it into W's (out, in) shape.
inline std::array<Tensor, 2> mm_backward(const Tensor& grad, const Tensor& mat1, const Tensor& mat2) {
  // BEGIN TASK week02.mm_backward (replace the stub below with your code)
  KINDLING_TODO("week02.mm_backward");
  // END TASK
}

}  // namespace kindling::autograd
