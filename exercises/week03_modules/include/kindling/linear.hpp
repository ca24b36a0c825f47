#pragma once
/// @file linear.hpp
/// nn::Linear: y = x W^T + b, with W stored as (out_features, in_features).
///
/// Why (out, in)? Output feature j is the dot product of the input row with
/// W's row j. Stored (out, in), that row is contiguous, so the inner loop of the
/// product walks both operands along memory, one cache line after another; the
/// lecture measures the difference (layout.hpp has the two plain loops).

#include <kindling/init.hpp>
#include <kindling/module.hpp>

namespace kindling::nn {

/// A fully connected layer (torch.nn.Linear).
class Linear : public Module {
 public:
  /// weight: (out, in); bias: (out), or None when `has_bias` is false. Both are parameters initialised by
  /// reset_parameters(). A negative size fails as the weight's allocation does, the same as
  /// torch.nn.Linear(-1, 2): "Trying to create tensor with negative dimension -1: [2, -1]".
  Linear(std::int64_t in, std::int64_t out, bool has_bias = true);
  /// input (..., in_features) -> (..., out_features). A 2-d input is one addmm;
  /// more dims are flattened to 2-d and back. A wrong last dim gets addmm's
  /// message: "mat1 and mat2 shapes cannot be multiplied (4x5 and 3x2)".
  Tensor forward(const Tensor& input) override;
  /// PyTorch's default: kaiming_uniform_(weight, a = sqrt(5)), which is
  /// U(-1/sqrt(in), 1/sqrt(in)), and the bias from U(-1/sqrt(in), 1/sqrt(in)).
  void reset_parameters();
  /// "in_features=4, out_features=2, bias=True"
  std::string extra_repr() const override;

  std::int64_t in_features;   ///< size of each input sample
  std::int64_t out_features;  ///< size of each output sample
  Tensor weight;              ///< (out_features, in_features)
  Tensor bias;                ///< (out_features), or undefined
};

}  // namespace kindling::nn
