#pragma once
/// @file eigh.hpp
/// Eigenvalues and eigenvectors of symmetric matrices (`torch.linalg.eigh`), and a
/// function of a symmetric matrix through them: A^p, exp(A), log(A).
///
/// `torch.eig`, which study note 003 calls, was removed in PyTorch 1.13; its
/// successor `torch.linalg.eig` returns complex numbers, which Kindling has no dtype
/// for. A real symmetric matrix has real eigenvalues and orthonormal eigenvectors,
/// and `eigh` is the function that uses that.
/// (Task week01.eigh: the contracts and the code are in src/tasks/eigh.cpp.)

#include <functional>

#include <kindling/tensor.hpp>

namespace kindling {

/// What `torch.linalg.eigh` returns: A = V diag(w) V^T.
struct EighResult {
  Tensor eigenvalues;   ///< w: (..., n), ascending
  Tensor eigenvectors;  ///< V: (..., n, n), column k belongs to eigenvalue k
};

/// `torch.linalg.eigh(A)` for a batch of symmetric matrices (..., n, n), reading
/// only the lower triangle of each.
EighResult eigh(const Tensor& a);

/// f(A) for symmetric matrices: V diag(f(w)) V^T, where `f` acts elementwise on the
/// eigenvalues (`[](const Tensor& w) { return exp(w); }` gives the matrix exponential).
Tensor matrix_function(const Tensor& a, const std::function<Tensor(const Tensor&)>& f);

}  // namespace kindling
