// Task week01.eigh. The doc comment above each function is its contract; your code
// goes between BEGIN and END. Hints, one at a time: `./grade hint week01.eigh`.

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include <kindling/device_hooks.hpp>
#include <kindling/eigh.hpp>
#include <kindling/error.hpp>  // KINDLING_TODO, which the worksheet's stubs call
#include <kindling/factory.hpp>
#include <kindling/linalg.hpp>
#include <kindling/ops.hpp>

// Useful: a.dim(), a.size(-1), a.sizes(), a.dtype(), is_floating_point(dtype),
// dtype_short_name(dtype), a.to(kFloat64).contiguous() (row-major doubles you can
// index through data_ptr()), empty(sizes, dtype), t.to(dtype), the views of week 1,
// the broadcasting arithmetic of ops.hpp and matmul of linalg.hpp,
// KINDLING_CHECK(cond, parts...).

namespace kindling {

// BEGIN TASK week01.eigh (replace the stub below with your code)
// Room for helper functions of your own, in an anonymous namespace (or leave it empty).
// END TASK

namespace {
// Week 6: eigh of a tensor on a device computes on the host and moves the results back.
EighResult eigh_through_host(const Tensor& a) {
  const EighResult e = eigh(a.cpu());
  // The eigenvectors keep their column-major layout (the contract's strides), as on the CPU.
  return {detail::move_to(e.eigenvalues, a.device()),
          detail::move_to(e.eigenvectors.transpose(-2, -1), a.device()).transpose(-2, -1)};
}
}  // namespace

/// `torch.linalg.eigh(A)` (UPLO='L'): the eigenvalues and eigenvectors of each
/// symmetric matrix in a batch A of shape (..., n, n), float32 or float64.
/// - Only the lower triangle (with the diagonal) is read; each matrix is taken to be
///   symmetric, its strictly upper triangle a mirror of the lower one, whatever it
///   holds. (PyTorch checks no symmetry either.)
/// - eigenvalues: shape (..., n), A's dtype, row-major, ascending along the last dim.
/// - eigenvectors: shape (..., n, n), A's dtype; column k of each matrix is a unit
///   eigenvector for eigenvalue k, and the columns are orthonormal. A column's sign
///   is not fixed (v and -v are both eigenvectors; the tests accept either). Laid out
///   as PyTorch lays them out, in LAPACK's column-major order: strides
///   (..., n * n, 1, n), the transpose of a row-major tensor whose rows are the
///   eigenvectors.
/// - Work in double whatever A's dtype. For float64 the eigenvalues must be within
///   1e-10 * (1 + max |eigenvalue|) of the exact ones, A V must equal V diag(w) within
///   1e-9 * (1 + max |eigenvalue|), V^T V the identity within as much, and the
///   eigenvector of an eigenvalue at least 1e-3 * (1 + max |eigenvalue|) away from
///   the others within 1e-7 of the exact one (up to sign); float32 results are the
///   double ones rounded. A holds finite numbers (no NaN or inf).
/// - A batch or n of 0 gives empty results of those shapes.
/// - Errors (kindling::Error, PyTorch's texts): fewer than 2 dims,
///   "linalg.eigh: The input tensor A must have at least 2 dimensions."; a last two
///   dims that differ, "linalg.eigh: A must be batches of square matrices, but they
///   are 2 by 3 matrices"; an integer or bool dtype,
///   "\"linalg_eigh_cpu\" not implemented for 'Long'" (with dtype_short_name).
EighResult eigh(const Tensor& a) {
  if (!a.device().is_cpu()) return eigh_through_host(a);
  // BEGIN TASK week01.eigh (replace the stub below with your code)
  KINDLING_TODO("week01.eigh");
  // END TASK
}

/// f(A) = V diag(f(w)) V^T for each symmetric matrix of a batch A (..., n, n), with
/// w and V from eigh(A) (so only A's lower triangle is read, and eigh's errors are
/// raised): `f` takes the eigenvalues, a tensor of shape (..., n), and returns a
/// tensor of that shape, f applied elementwise (pow(w, p), exp(w), log(w), ...).
/// The result has A's shape, the dtype of f's result, and any layout. Examples:
/// pow(w, 2) gives A @ A (not A squared element by element), pow(w, -1) the inverse,
/// pow(w, 0.5) the symmetric square root of a positive semi-definite A, exp(w)
/// torch.matrix_exp(A), and log(w) its inverse for a positive definite A. Where f
/// gives NaN or inf (the log of a negative eigenvalue), so does the result.
Tensor matrix_function(const Tensor& a, const std::function<Tensor(const Tensor&)>& f) {
  // BEGIN TASK week01.eigh (replace the stub below with your code)
  KINDLING_TODO("week01.eigh");
  // END TASK
}

}  // namespace kindling
