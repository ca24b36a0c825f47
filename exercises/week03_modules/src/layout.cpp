// The baseline of the layout benchmark: the same loops as linear_naive over a
// weight stored (in, out).

#include <kindling/factory.hpp>
#include <kindling/layout.hpp>

namespace kindling::nn {

void check_naive_operands(const Tensor& x, const Tensor& w, std::int64_t in_dim) {
  KINDLING_CHECK(x.dim() == 2 && w.dim() == 2, "naive matmul expects 2-d operands, got ", x.dim(), "-d and ", w.dim(),
                 "-d");
  KINDLING_CHECK(x.dtype() == kFloat32 && w.dtype() == kFloat32, "naive matmul expects float32 operands");
  KINDLING_CHECK(x.is_contiguous() && w.is_contiguous(), "naive matmul expects contiguous operands");
  KINDLING_CHECK(x.sizes()[1] == w.sizes()[static_cast<std::size_t>(in_dim)],
                 "mat1 and mat2 shapes cannot be multiplied (", x.sizes()[0], "x", x.sizes()[1], " and ",
                 in_dim == 1 ? w.sizes()[1] : w.sizes()[0], "x", in_dim == 1 ? w.sizes()[0] : w.sizes()[1], ")");
}

Tensor matmul_naive_in_out(const Tensor& x, const Tensor& w_in_out) {
  check_naive_operands(x, w_in_out, 0);
  const std::int64_t n = x.sizes()[0], k = x.sizes()[1], m = w_in_out.sizes()[1];
  Tensor y = empty({n, m});
  const float* __restrict px = x.data_ptr<float>();
  const float* __restrict pw = w_in_out.data_ptr<float>();
  float* __restrict py = y.data_ptr<float>();
  for (std::int64_t i = 0; i < n; ++i) {
    const float* xi = px + i * k;
    for (std::int64_t j = 0; j < m; ++j) {
      // Column j of W: one float from each row, m floats apart.
      float s0 = 0, s1 = 0, s2 = 0, s3 = 0;
      std::int64_t p = 0;
      for (; p + 4 <= k; p += 4) {
        s0 += xi[p] * pw[p * m + j];
        s1 += xi[p + 1] * pw[(p + 1) * m + j];
        s2 += xi[p + 2] * pw[(p + 2) * m + j];
        s3 += xi[p + 3] * pw[(p + 3) * m + j];
      }
      for (; p < k; ++p) s0 += xi[p] * pw[p * m + j];
      py[i * m + j] = (s0 + s1) + (s2 + s3);
    }
  }
  return y;
}

}  // namespace kindling::nn
