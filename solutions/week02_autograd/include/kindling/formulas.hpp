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
/// (Task week02.sum_to_size: the contract and the code are in src/tasks/sum_to_size.cpp.)
Tensor sum_to_size(const Tensor& grad, IntArrayRef sizes);

/// Gradients of `out = self * other` (elementwise, broadcasting): returns
/// (Task week02.mul_backward: the contract and the code are in src/tasks/mul_backward.cpp.)
std::array<Tensor, 2> mul_backward(const Tensor& grad, const Tensor& self, const Tensor& other);

/// Gradients of `out = mat1.mm(mat2)` with mat1 (n, k), mat2 (k, m) and grad
/// (Task week02.mm_backward: the contract and the code are in src/tasks/mm_backward.cpp.)
std::array<Tensor, 2> mm_backward(const Tensor& grad, const Tensor& mat1, const Tensor& mat2);

}  // namespace kindling::autograd
