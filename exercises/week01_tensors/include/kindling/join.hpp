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
/// Splits into at most `chunks` views of equal size along `dim` (the last may be smaller).
/// (Task week01.split, like both split()s: the contracts and the code are in src/tasks/split.cpp.)
std::vector<Tensor> chunk(const Tensor& x, std::int64_t chunks, std::int64_t dim = 0);
/// Splits into views of `split_size` along `dim` (the last may be smaller).
std::vector<Tensor> split(const Tensor& x, std::int64_t split_size, std::int64_t dim = 0);
/// Splits into views with the given sizes along `dim` (they must add up).
std::vector<Tensor> split(const Tensor& x, const std::vector<std::int64_t>& split_sizes, std::int64_t dim = 0);
/// `torch.index_select`: the entries `index` (a 0-d or 1-d int64 or int32 tensor) of
/// dimension `dim`, in that order, copied into a new contiguous tensor whose size at
/// `dim` is index.numel(). Task week01.masking (src/tasks/masking.cpp): the contract,
/// with PyTorch 1.13's errors word for word, is the doc comment there.
Tensor index_select(const Tensor& x, std::int64_t dim, const Tensor& index);
/// `torch.masked_select`: the elements where `mask` (bool, or uint8; x and mask
/// broadcast together) is true, as a 1-d copy in row-major order. Task
/// week01.masking (src/tasks/masking.cpp holds the full contract).
Tensor masked_select(const Tensor& x, const Tensor& mask);
/// A copy of x (broadcast with the bool `mask`) with `value` where `mask` is true.
Tensor masked_fill(const Tensor& x, const Tensor& mask, const Scalar& value);
/// `x.masked_fill_(mask, value)`, Python's `x[mask] = value`: writes `value` where
/// the bool `mask` (broadcast to x's shape) is true, in place; bumps x's version and
/// returns x itself. Task week01.masking (src/tasks/masking.cpp holds the full contract).
const Tensor& masked_fill_(const Tensor& x, const Tensor& mask, const Scalar& value);
/// `a` where `condition` is true, else `b`, all broadcast together; dtypes promote. `condition`
/// is bool, or uint8 (nonzero is true, as PyTorch 1.13 still accepts); another dtype throws
/// "where expected condition to be a boolean tensor, but got a tensor with dtype Long".
Tensor where(const Tensor& condition, const Tensor& a, const Tensor& b);
/// `x.repeat(repeats)`: tiles x, repeats[i] copies along dim i (x gains leading
/// size-1 dims when `repeats` is longer), into new memory, unlike expand's free
/// stride-0 views. Task week01.repeat: the full contract is the doc comment in
/// src/tasks/repeat.cpp.
Tensor repeat(const Tensor& x, IntArrayRef repeats);
/// Einstein summation for one or two operands: "ij,jk->ik", "bij,bjk->bik",
/// "ii->i", "ij->ji", "i,j->ij", "ij->" and implicit outputs ("ij,jk").
/// Two-operand contractions run as one batched matrix product.
Tensor einsum(std::string_view equation, const TensorList& operands);

}  // namespace kindling
