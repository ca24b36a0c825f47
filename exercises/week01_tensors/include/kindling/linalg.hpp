#pragma once
/// @file linalg.hpp
/// Matrix products, through Eigen's blocked GEMM.

#include <kindling/tensor.hpp>

namespace kindling {

/// Inner product of two 1-d tensors of the same dtype and length.
Tensor dot(const Tensor& a, const Tensor& b);
/// Matrix (n, m) times vector (m) -> (n).
Tensor mv(const Tensor& mat, const Tensor& vec);
/// Matrix (n, k) times matrix (k, m) -> (n, m). Mismatched inner sizes throw
/// "mat1 and mat2 shapes cannot be multiplied (2x3 and 2x3)".
Tensor mm(const Tensor& a, const Tensor& b);
/// Batched mm: (b, n, k) times (b, k, m) -> (b, n, m).
Tensor bmm(const Tensor& a, const Tensor& b);
/// torch.matmul: dot, mv, mm, a folded mm/mv or a broadcast bmm, chosen by the
/// operands' ranks as PyTorch 1.13 chooses. Task week01.matmul: the full contract is
/// the doc comment in src/tasks/matmul.cpp.
Tensor matmul(const Tensor& a, const Tensor& b);
/// beta * self + alpha * (mat1 @ mat2), self broadcast to the product's shape.
/// nn.Linear's forward is addmm(bias, x, weight.t()).
Tensor addmm(const Tensor& self, const Tensor& mat1, const Tensor& mat2, const Scalar& beta = 1,
             const Scalar& alpha = 1);

}  // namespace kindling
