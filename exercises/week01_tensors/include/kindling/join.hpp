#pragma once
/// @file join.hpp
/// Joining, splitting, indexing and einsum.

#include <string_view>
#include <vector>

#include <kindling/tensor.hpp>

namespace kindling {

/// Concatenates along `dim`; all other sizes must match. Dtypes promote.
Tensor cat(const TensorList& tensors, std::int64_t dim = 0);
/// Stacks equal-shaped tensors along a new dimension `dim`.
Tensor stack(const TensorList& tensors, std::int64_t dim = 0);
/// Splits into `chunks` views of equal size along `dim` (the last may be smaller).
std::vector<Tensor> chunk(const Tensor& x, std::int64_t chunks, std::int64_t dim = 0);
/// Splits into views of `split_size` along `dim` (the last may be smaller).
std::vector<Tensor> split(const Tensor& x, std::int64_t split_size, std::int64_t dim = 0);
/// Splits into views with the given sizes along `dim` (they must add up).
std::vector<Tensor> split(const Tensor& x, const std::vector<std::int64_t>& split_sizes, std::int64_t dim = 0);
/// The entries `index` (1-d int64 or int32) of `dim`, copied.
Tensor index_select(const Tensor& x, std::int64_t dim, const Tensor& index);
/// The elements where the bool `mask` (broadcast) is true, as a 1-d copy.
Tensor masked_select(const Tensor& x, const Tensor& mask);
/// A copy with `value` where the bool `mask` (broadcast) is true.
Tensor masked_fill(const Tensor& x, const Tensor& mask, const Scalar& value);
/// Writes `value` where `mask` is true, in place.
const Tensor& masked_fill_(const Tensor& x, const Tensor& mask, const Scalar& value);
/// `a` where `condition` is true, else `b`, all broadcast together; dtypes promote.
Tensor where(const Tensor& condition, const Tensor& a, const Tensor& b);
/// Tiles `x`: `repeats` has at least x.dim() entries.
Tensor repeat(const Tensor& x, IntArrayRef repeats);
/// Einstein summation for one or two operands: "ij,jk->ik", "bij,bjk->bik",
/// "ii->i", "ij->ji", "i,j->ij", "ij->" and implicit outputs ("ij,jk").
/// Two-operand contractions run as one batched matrix product.
Tensor einsum(std::string_view equation, const TensorList& operands);

}  // namespace kindling
