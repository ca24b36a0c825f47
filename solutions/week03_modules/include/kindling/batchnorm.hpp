#pragma once
/// @file batchnorm.hpp
/// BatchNorm1d and BatchNorm2d, and folding a BatchNorm into the convolution before it.

#include <optional>

#include <kindling/conv.hpp>

namespace kindling::nn {

/// Batch normalisation over the channel dim (dim 1). Training: each channel is
/// normalised with the batch's statistics and the running statistics are
/// updated (running = (1 - momentum) * running + momentum * batch; with no
/// momentum, a cumulative average). Eval: the running statistics are used.
/// Buffers: running_mean, running_var, num_batches_tracked.
class BatchNorm : public Module {
 public:
  /// `name`: "BatchNorm1d" or "BatchNorm2d"; `dims`: the input ranks it accepts.
  BatchNorm(std::string name, std::vector<std::int64_t> dims, std::int64_t features, double epsilon,
            std::optional<double> mom, bool has_affine, bool track);
  /// Normalises x; throws ValueError "expected 4D input (got 3D input)" for a wrong rank.
  Tensor forward(const Tensor& x) override;
  /// Running statistics back to mean 0, variance 1, count 0.
  void reset_running_stats();
  /// "4, eps=1e-05, momentum=0.1, affine=True, track_running_stats=True"
  std::string extra_repr() const override;

  std::int64_t num_features;       ///< channels
  double eps;                      ///< added to the variance
  std::optional<double> momentum;  ///< weight of the new batch (none: cumulative average)
  bool affine;                     ///< learn weight and bias
  bool track_running_stats;        ///< keep running statistics
  Tensor weight;                   ///< (C), ones at start (affine only)
  Tensor bias;                     ///< (C), zeros at start (affine only)
  Tensor running_mean;             ///< (C)
  Tensor running_var;              ///< (C)
  Tensor num_batches_tracked;      ///< int64 scalar: batches seen in training

 private:
  std::vector<std::int64_t> dims_;
};

/// BatchNorm over (N, C) or (N, C, L) input.
class BatchNorm1d : public BatchNorm {
 public:
  /// As torch.nn.BatchNorm1d(num_features, eps, momentum, affine, track_running_stats).
  explicit BatchNorm1d(std::int64_t features, double epsilon = 1e-5, std::optional<double> mom = 0.1,
                       bool has_affine = true, bool track = true)
      : BatchNorm("BatchNorm1d", {2, 3}, features, epsilon, mom, has_affine, track) {}
};

/// BatchNorm over (N, C, H, W) input.
class BatchNorm2d : public BatchNorm {
 public:
  /// As torch.nn.BatchNorm2d(num_features, eps, momentum, affine, track_running_stats).
  explicit BatchNorm2d(std::int64_t features, double epsilon = 1e-5, std::optional<double> mom = 0.1,
                       bool has_affine = true, bool track = true)
      : BatchNorm("BatchNorm2d", {4}, features, epsilon, mom, has_affine, track) {}
};

/// A Conv2d that computes conv followed by bn in eval mode, in one convolution:
/// with s = bn.weight / sqrt(running_var + eps), the new weight is
/// conv.weight * s (per output channel) and the new bias is
/// (conv.bias - running_mean) * s + bn.bias.
/// (Task week03.fold_conv_bn: the contract and the code are in src/tasks/fold_conv_bn.cpp.)
Conv2d fold_conv_bn(const Conv2d& conv, const BatchNorm2d& bn);

}  // namespace kindling::nn
