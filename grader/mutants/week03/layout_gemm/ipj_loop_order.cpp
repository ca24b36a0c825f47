// MUTANT: textbook i, p, j loop order: the inner loop walks W down a column, k floats apart (right values, slow)
// PERFORMANCE: the inner j loop reads W[j][p] with stride k (a cache miss per element) instead of walking rows of x and
// W contiguously; the values are the same up to float summation order, which the contract (a plain i, j, p loop) leaves
// open Task week03.layout_gemm. The doc comment above each function is its contract; your code goes between BEGIN and
// END. Hints, one at a time: `./grade hint week03.layout_gemm`.

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
    float* yi = py + i * m;
    for (std::int64_t j = 0; j < m; ++j) yi[j] = 0;
    for (std::int64_t p = 0; p < k; ++p)
      for (std::int64_t j = 0; j < m; ++j) yi[j] += xi[p] * pw[j * k + p];  // W[j][p]
  }
  return y;
  // END SOLUTION
}

}  // namespace kindling::nn
