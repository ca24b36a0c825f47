#pragma once
/// @file collate.hpp
/// Collate: a list of examples -> one batch.

#include <functional>
#include <string>
#include <vector>

#include <kindling/dataset.hpp>
#include <kindling/join.hpp>

namespace kindling::data {

/// Turns the examples of one batch into a Batch.
using CollateFn = std::function<Batch(std::vector<Example>)>;

namespace detail {
/// stack(rows, 0), with a fast path for what collate sees most: rows of one
/// shape and dtype, each contiguous, copied with one memcpy each (stack's
/// general kernel costs about as much per row as the copy itself here).
Tensor stack_rows(const TensorList& rows);
}  // namespace detail

/// PyTorch's default_collate for examples that are lists of tensors: field f of the batch is
/// stack({example[f] for each example}), so a batch of 0-d labels is a 1-d tensor and a batch of
/// (C, H, W) images is (B, C, H, W).
/// (Task week04.default_collate: the contract and the code are in src/tasks/default_collate.cpp.)
Batch default_collate(std::vector<Example> examples);

}  // namespace kindling::data
