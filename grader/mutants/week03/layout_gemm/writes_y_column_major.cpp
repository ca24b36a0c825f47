// MUTANT: writes y[i][j] at i + j * n (column-major), mixing up which index is the row of the (n, m) output
// Task week03.layout_gemm. The doc comment above each function is its contract; your code
// goes between BEGIN and END. Hints, one at a time: `./grade hint week03.layout_gemm`.

#include <kindling/error.hpp>  // KINDLING_TODO, which the worksheet's stubs call
#include <kindling/layout.hpp>

namespace kindling::nn {

/// y = x @ w.t() for x (n, k) and w stored (out, in) = (m, k): y[i][j] is the
/// dot product of row i of x with row j of w. Write it as a plain i, j, p loop
/// nest over raw pointers (no Eigen, no mm): the benchmark compares it with
/// matmul_naive_in_out, which runs the same loops over the other layout.
/// Both float32 and contiguous (check_naive_operands(x, w, 1)); returns (n, m).
Tensor linear_naive(const Tensor& x, const Tensor& w_out_in) {
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
      py[j * n + i] = (s0 + s1) + (s2 + s3);
    }
  }
  return y;
  // END SOLUTION
}

}  // namespace kindling::nn
