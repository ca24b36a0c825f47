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

// BEGIN SOLUTION week01.eigh
// STUB: // Room for helper functions of your own, in an anonymous namespace (or leave it empty).
namespace {
// Cyclic Jacobi on one symmetric n x n matrix `m` (row-major, overwritten): each
// rotation in the (p, q) plane zeroes m[p][q]; the sweeps repeat until a sweep finds
// nothing left off the diagonal (entries below rounding next to the diagonal count as
// zero). It converges quadratically, in under 10 sweeps. On return the diagonal holds
// the eigenvalues and row k of `vt` the eigenvector of m[k][k].
void jacobi(std::vector<double>& m, std::vector<double>& vt, std::int64_t n) {
  auto at = [&](std::int64_t i, std::int64_t j) -> double& { return m[static_cast<std::size_t>(i * n + j)]; };
  std::fill(vt.begin(), vt.end(), 0.0);
  for (std::int64_t i = 0; i < n; ++i) vt[static_cast<std::size_t>(i * n + i)] = 1.0;
  for (int sweep = 0; sweep < 100; ++sweep) {
    bool rotated = false;
    for (std::int64_t p = 0; p < n; ++p) {
      for (std::int64_t q = p + 1; q < n; ++q) {
        // An entry too small to change either diagonal entry it meets is zero already.
        const double small = 1e-3 * std::abs(at(p, q));
        if (std::abs(at(p, p)) + small == std::abs(at(p, p)) && std::abs(at(q, q)) + small == std::abs(at(q, q)))
          at(p, q) = at(q, p) = 0.0;
        if (at(p, q) == 0.0) continue;
        rotated = true;
        // The angle that zeroes m[p][q]: t = tan(angle), the smaller root for stability.
        const double theta = (at(q, q) - at(p, p)) / (2.0 * at(p, q));
        const double t = (theta >= 0 ? 1.0 : -1.0) / (std::abs(theta) + std::hypot(theta, 1.0));
        const double c = 1.0 / std::hypot(t, 1.0), s = t * c;
        for (std::int64_t k = 0; k < n; ++k) {  // columns p and q: m J
          const double mkp = at(k, p), mkq = at(k, q);
          at(k, p) = c * mkp - s * mkq;
          at(k, q) = s * mkp + c * mkq;
        }
        for (std::int64_t k = 0; k < n; ++k) {  // rows p and q: J^T m
          const double mpk = at(p, k), mqk = at(q, k);
          at(p, k) = c * mpk - s * mqk;
          at(q, k) = s * mpk + c * mqk;
        }
        for (std::int64_t k = 0; k < n; ++k) {  // V J, kept transposed: rows p and q of V^T
          double& vp = vt[static_cast<std::size_t>(p * n + k)];
          double& vq = vt[static_cast<std::size_t>(q * n + k)];
          const double a = vp, b = vq;
          vp = c * a - s * b;
          vq = s * a + c * b;
        }
      }
    }
    if (!rotated) return;  // a sweep that found nothing off the diagonal
  }
}
}  // namespace
// END SOLUTION

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
  // BEGIN SOLUTION week01.eigh
  KINDLING_CHECK(a.dim() >= 2, "linalg.eigh: The input tensor A must have at least 2 dimensions.");
  const std::int64_t n = a.size(-1);
  KINDLING_CHECK(a.size(-2) == n, "linalg.eigh: A must be batches of square matrices, but they are ", a.size(-2),
                 " by ", n, " matrices");
  KINDLING_CHECK(is_floating_point(a.dtype()), "\"linalg_eigh_cpu\" not implemented for '", dtype_short_name(a.dtype()),
                 "'");
  Shape value_shape = a.sizes().vec();
  value_shape.pop_back();
  const Tensor src = a.to(kFloat64).contiguous();
  Tensor values = empty(value_shape, kFloat64), rows = empty(a.sizes(), kFloat64);
  const std::int64_t batch = n == 0 ? 0 : a.numel() / (n * n);
  const auto nn = static_cast<std::size_t>(n * n);
  std::vector<double> m(nn), vt(nn);
  std::vector<std::int64_t> order(static_cast<std::size_t>(n));
  const double* in = static_cast<const double*>(src.data_ptr());
  double* w = static_cast<double*>(values.data_ptr());
  double* v = static_cast<double*>(rows.data_ptr());
  for (std::int64_t b = 0; b < batch; ++b) {
    const double* mat = in + b * n * n;
    for (std::int64_t i = 0; i < n; ++i)
      for (std::int64_t j = 0; j <= i; ++j)  // the lower triangle, mirrored
        m[static_cast<std::size_t>(i * n + j)] = m[static_cast<std::size_t>(j * n + i)] = mat[i * n + j];
    jacobi(m, vt, n);
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](std::int64_t x, std::int64_t y) {
      return m[static_cast<std::size_t>(x * n + x)] < m[static_cast<std::size_t>(y * n + y)];
    });
    for (std::int64_t k = 0; k < n; ++k) {
      const std::int64_t src_k = order[static_cast<std::size_t>(k)];
      w[b * n + k] = m[static_cast<std::size_t>(src_k * n + src_k)];
      std::copy_n(vt.begin() + src_k * n, n, v + (b * n + k) * n);
    }
  }
  return {values.to(a.dtype()), rows.to(a.dtype()).transpose(-2, -1)};
  // END SOLUTION
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
  // BEGIN SOLUTION week01.eigh
  const EighResult e = eigh(a);
  // The columns of V scaled by f(w), times V^T: sum_k V[i][k] f(w)[k] V[j][k].
  const Tensor scaled = e.eigenvectors * f(e.eigenvalues).unsqueeze(-2);  // f(w)[k] broadcast down column k
  return matmul(scaled, e.eigenvectors.transpose(-2, -1));
  // END SOLUTION
}

}  // namespace kindling
