#pragma once
// Helpers shared by the loss functions (week 5's src/ only).

#include <string>

#include <kindling/tensor.hpp>

namespace kindling::nn::functional::detail {

/// Throws ValueError "<reduction> is not a valid value for reduction" unless it is none, mean or sum.
void check_reduction(const std::string& reduction);
/// `loss` reduced: kept ("none"), summed ("sum") or averaged ("mean").
Tensor reduce(const Tensor& loss, const std::string& reduction);
/// nll_loss's shape checks after its batch size's, in PyTorch 1.13's words (which differ by the
/// input's rank, as its code paths do), for log-probabilities `input` (N, C), (C) or (N, C, d1, ...),
/// class-index `target` and optional `weight`: a target of the wrong rank or size ("0D or 1D target
/// tensor expected, multi-target not supported", "size mismatch (got input: [5], target: [1])",
/// "Expected target size [3, 4], got [3]", ...) and a weight not of C values ("weight tensor should
/// be defined either for all 5 classes or no classes but got weight tensor of shape: [3]").
void check_nll_shapes(const Tensor& input, const Tensor& target, const Tensor& weight);

}  // namespace kindling::nn::functional::detail
