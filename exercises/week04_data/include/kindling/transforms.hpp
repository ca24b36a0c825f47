#pragma once
/// @file transforms.hpp
/// Transforms on the first field of an example (the image): ToTensor, Normalize, Compose.

#include <vector>

#include <kindling/dataset.hpp>

namespace kindling::data::transforms {

/// uint8 (H, W, C) or (H, W) pixels -> float32 (C, H, W) in [0, 1] (torchvision's ToTensor).
/// Throws Error for other dtypes or ranks.
Tensor to_tensor(const Tensor& image);
/// (x - mean[c]) / stdev[c] per channel of a (C, H, W) float tensor. Throws Error if
/// the number of means or stds is not C (or 1), or a std is 0.
Tensor normalize(const Tensor& image, const std::vector<double>& mean, const std::vector<double>& stdev);

/// to_tensor as a transform of field 0.
Transform ToTensor();
/// normalize as a transform of field 0.
Transform Normalize(std::vector<double> mean, std::vector<double> stdev);
/// The transforms in order.
Transform Compose(std::vector<Transform> transforms);

}  // namespace kindling::data::transforms
