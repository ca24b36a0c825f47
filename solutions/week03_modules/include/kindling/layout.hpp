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

/// y = x @ w.t() for x (n, k) and w stored (out, in) = (m, k): y[i][j] is the dot product of row i
/// of x with row j of w.
/// (Task week03.layout_gemm: the contract and the code are in src/tasks/layout_gemm.cpp.)
Tensor linear_naive(const Tensor& x, const Tensor& w_out_in);

}  // namespace kindling::nn
