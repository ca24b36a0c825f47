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
  // BEGIN TASK week03.layout_gemm (replace the stub below with your code)
  KINDLING_TODO("week03.layout_gemm");
  // END TASK
}

}  // namespace kindling::nn
