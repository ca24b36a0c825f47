#pragma once
// Helpers shared by the loss functions (week 5's src/ only).

#include <string>

#include <kindling/tensor.hpp>

namespace kindling::nn::functional::detail {

/// Throws ValueError "<reduction> is not a valid value for reduction" unless it is none, mean or sum.
void check_reduction(const std::string& reduction);
/// `loss` reduced: kept ("none"), summed ("sum") or averaged ("mean").
Tensor reduce(const Tensor& loss, const std::string& reduction);

}  // namespace kindling::nn::functional::detail
