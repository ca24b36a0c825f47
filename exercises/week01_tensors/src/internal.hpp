#pragma once
// Private helpers shared by the engine's source files.

#include <kindling/tensor.hpp>

namespace kindling::detail {

/// A 0-d tensor marked as a wrapped number, so type promotion treats it like a
/// Python scalar: float64 values count as the default dtype, ints as int64.
Tensor wrapped_scalar(const Scalar& value);

/// fill_ without the version bump, for tensors the engine is still building: a
/// fresh result is at version 0, as in PyTorch (bumps count user-visible writes).
void fill(const Tensor& t, const Scalar& value);
/// copy_ without the version bump, for tensors the engine is still building.
void copy(const Tensor& dst, const Tensor& src);

/// A new contiguous tensor without checks (the engine's allocation point).
Tensor empty_contiguous(IntArrayRef sizes, ScalarType dtype);

/// out = alpha * a @ b (+ out when `accumulate`), for 2-d a and b of one dtype and
/// an out with contiguous rows; floating types go through Eigen's GEMM.
void gemm(const Tensor& out, const Tensor& a, const Tensor& b, const Scalar& alpha, bool accumulate);

}  // namespace kindling::detail
