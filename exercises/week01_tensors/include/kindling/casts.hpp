#pragma once
/// @file casts.hpp
/// Casts between dtypes, and what they lose: `type_as` and the round-trip check.
///
/// A cast is a new tensor unless nothing changes: `x.to(x.dtype())`,
/// `x.float()` on a float32 x and `x.type_as(y)` with y of x's dtype all return
/// x itself. Every other cast copies, and may lose data on the way: a float
/// truncated to an integer, an int64 above 2^24 rounded in float32, a value
/// wrapped into uint8, any nonzero number turned into `true`.
/// (Task week01.lossy_casts: the contracts and the code are in src/tasks/lossy_casts.cpp.)

#include <cstdint>

#include <kindling/tensor.hpp>

namespace kindling {

/// `x.type_as(other)`: x cast to other's dtype; x itself when the dtypes match.
Tensor type_as(const Tensor& x, const Tensor& other);

/// How many elements of x come back different from a round trip
/// `x.to(dtype).to(x.dtype())`: the elements a cast to `dtype` loses.
std::int64_t count_lossy(const Tensor& x, ScalarType dtype);

}  // namespace kindling
