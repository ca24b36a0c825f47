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

/// Reduces a gradient computed at a broadcast shape back to the shape of the input it belongs to:
/// sum over the leading dimensions broadcasting added, and over every dimension where `sizes` has 1
/// but `grad` does not (keeping it as 1).
/// (Task week02.sum_to_size: the contract and the code are in src/tasks/sum_to_size.cpp.)
Tensor sum_to_size(const Tensor& grad, IntArrayRef sizes);

/// Gradients of `out = self * other` (elementwise, broadcasting): returns {grad for self, grad for
/// other}, both still at the broadcast shape of `grad` (the engine applies sum_to_size).
/// (Task week02.mul_backward: the contract and the code are in src/tasks/mul_backward.cpp.)
std::array<Tensor, 2> mul_backward(const Tensor& grad, const Tensor& self, const Tensor& other);

/// Gradients of `out = mat1.mm(mat2)` with mat1 (n, k), mat2 (k, m) and grad (n, m): returns {grad
/// for mat1 (n, k), grad for mat2 (k, m)}.
/// (Task week02.mm_backward: the contract and the code are in src/tasks/mm_backward.cpp.)
std::array<Tensor, 2> mm_backward(const Tensor& grad, const Tensor& mat1, const Tensor& mat2);

/// The gradient for self of `result = relu(self)`, computed from `result` alone (ReluBackward0
/// saves its output, which is what lets relu_ overwrite its input).
/// (Task week02.relu_backward: the contract and the code are in src/tasks/relu_backward.cpp.)
Tensor relu_backward(const Tensor& grad, const Tensor& result);

}  // namespace kindling::autograd
