#pragma once
/// @file layout.hpp
/// Two plain triple-loop matrix products, to measure why Linear stores its
/// weight as (out, in).
///
/// Both compute y = x W for a row-major x (n, k). They differ only in how W is
/// laid out in memory, and so in what the innermost loop (over k) reads:
/// - W stored (in, out) = (k, m): the loop reads W[p][j] for p = 0, 1, ..., a
///   stride of m floats. Each step lands on a different cache line.
/// - W stored (out, in) = (m, k): the loop reads W[j][p], the next float in the
///   same row. A 64-byte cache line serves 16 steps, and the compiler can use
///   vector instructions on both operands.

#include <kindling/factory.hpp>
#include <kindling/tensor.hpp>

namespace kindling::nn {

/// y[i][j] = sum_p x[i][p] * w[p][j] for x (n, k) and w stored (in, out) = (k, m),
/// as an i, j, p loop nest. Both float32 and contiguous; returns (n, m).
/// The baseline the layout benchmark compares against.
Tensor matmul_naive_in_out(const Tensor& x, const Tensor& w_in_out);

/// Checks the operands of the naive products: float32, contiguous, 2-d, and
/// x's columns equal to w's `in_dim` size; throws kindling::Error otherwise.
void check_naive_operands(const Tensor& x, const Tensor& w, std::int64_t in_dim);

/// y = x @ w.t() for x (n, k) and w stored (out, in) = (m, k): y[i][j] is the
/// dot product of row i of x with row j of w. Write it as a plain i, j, p loop
/// nest over raw pointers (no Eigen, no mm): the benchmark compares it with
/// matmul_naive_in_out, which runs the same loops over the other layout.
/// Both float32 and contiguous (check_naive_operands(x, w, 1)); returns (n, m).
inline Tensor linear_naive(const Tensor& x, const Tensor& w_out_in) {
  check_naive_operands(x, w_out_in, 1);
  // BEGIN SOLUTION week03.layout_gemm
  const std::int64_t n = x.sizes()[0], k = x.sizes()[1], m = w_out_in.sizes()[0];
  Tensor y = empty({n, m});
  const float* __restrict px = x.data_ptr<float>();
  const float* __restrict pw = w_out_in.data_ptr<float>();
  float* __restrict py = y.data_ptr<float>();
  for (std::int64_t i = 0; i < n; ++i) {
    const float* xi = px + i * k;
    for (std::int64_t j = 0; j < m; ++j) {
      const float* wj = pw + j * k;  // row j of W: contiguous, like row i of x
      // Four partial sums let the compiler vectorise without reordering a single sum.
      float s0 = 0, s1 = 0, s2 = 0, s3 = 0;
      std::int64_t p = 0;
      for (; p + 4 <= k; p += 4) {
        s0 += xi[p] * wj[p];
        s1 += xi[p + 1] * wj[p + 1];
        s2 += xi[p + 2] * wj[p + 2];
        s3 += xi[p + 3] * wj[p + 3];
      }
      for (; p < k; ++p) s0 += xi[p] * wj[p];
      py[i * m + j] = (s0 + s1) + (s2 + s3);
    }
  }
  return y;
  // END SOLUTION
}

}  // namespace kindling::nn
