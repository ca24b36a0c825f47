#pragma once
/// @file upsample.hpp
/// Upsample: F::interpolate as a layer.

#include <kindling/functional.hpp>
#include <kindling/module.hpp>

namespace kindling::nn {

/// Resizes (N, C, H, W) input to `size` or by `scale_factor` ("nearest" or "bilinear").
class Upsample : public Module {
 public:
  /// Give one of `out_size` and `scale`.
  explicit Upsample(std::optional<Pair2> out_size, std::optional<double> scale = std::nullopt,
                    std::string interp = "nearest", std::optional<bool> corners = std::nullopt);
  /// F::interpolate with this layer's settings.
  Tensor forward(const Tensor& x) override;
  /// "scale_factor=2.0, mode=nearest" (PyTorch 1.13 prints the mode without quotes)
  std::string extra_repr() const override;
  std::optional<Pair2> size;           ///< output size
  std::optional<double> scale_factor;  ///< or the scale
  std::string mode;                    ///< "nearest" or "bilinear"
  std::optional<bool> align_corners;   ///< bilinear only
};

}  // namespace kindling::nn
