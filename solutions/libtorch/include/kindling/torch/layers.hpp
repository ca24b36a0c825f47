#pragma once
/// @file torch/layers.hpp
/// More of LibTorch's module holders and options over Kindling's layers: pooling (MaxPool2d,
/// AvgPool2d, AdaptiveAvgPool2d), BatchNorm2d with its options, Embedding and Flatten. Part of
/// <kindling/torch.hpp>.
#include <cstdint>
#include <optional>

#include <kindling/nn.hpp>
#include <kindling/torch/functional.hpp>
#include <kindling/torch/nn.hpp>

namespace torch::nn {

using MaxPool2dOptions = functional::MaxPool2dFuncOptions;  ///< MaxPool2dOptions(kernel).stride(s).padding(p)
using AvgPool2dOptions = functional::AvgPool2dFuncOptions;  ///< AvgPool2dOptions(kernel).stride(s).padding(p)

/// The module a torch::nn::MaxPool2d holds.
class MaxPool2dImpl : public ::kindling::nn::MaxPool2d {
 public:
  /// From options.
  MaxPool2dImpl(const MaxPool2dOptions& o)  // NOLINT(google-explicit-constructor)
      : ::kindling::nn::MaxPool2d(o.kernel_size(), o.stride(), o.padding(), o.dilation(), o.ceil_mode()) {}
  /// From a kernel size.
  MaxPool2dImpl(Pair2 kernel) : MaxPool2dImpl(MaxPool2dOptions(kernel)) {}  // NOLINT(google-explicit-constructor)
};
/// The module a torch::nn::AvgPool2d holds.
class AvgPool2dImpl : public ::kindling::nn::AvgPool2d {
 public:
  /// From options.
  AvgPool2dImpl(const AvgPool2dOptions& o)  // NOLINT(google-explicit-constructor)
      : ::kindling::nn::AvgPool2d(o.kernel_size(), o.stride(), o.padding(), o.ceil_mode()) {}
  /// From a kernel size.
  AvgPool2dImpl(Pair2 kernel) : AvgPool2dImpl(AvgPool2dOptions(kernel)) {}  // NOLINT(google-explicit-constructor)
};

/// AdaptiveAvgPool2dOptions(output_size).
class AdaptiveAvgPool2dOptions {
 public:
  /// The output's (h, w).
  AdaptiveAvgPool2dOptions(Pair2 size) : size_(size) {}  // NOLINT(google-explicit-constructor)
  Pair2 output_size() const { return size_; }            ///< the output's (h, w)

 private:
  Pair2 size_;
};
/// The module a torch::nn::AdaptiveAvgPool2d holds.
class AdaptiveAvgPool2dImpl : public ::kindling::nn::AdaptiveAvgPool2d {
 public:
  /// From options.
  AdaptiveAvgPool2dImpl(const AdaptiveAvgPool2dOptions& o)  // NOLINT(google-explicit-constructor)
      : ::kindling::nn::AdaptiveAvgPool2d(o.output_size()) {}
  /// From an output size.
  AdaptiveAvgPool2dImpl(Pair2 size)  // NOLINT(google-explicit-constructor)
      : ::kindling::nn::AdaptiveAvgPool2d(size) {}
};

/// BatchNorm2dOptions(features).eps(e).momentum(m).affine(b).track_running_stats(b).
class BatchNorm2dOptions {
 public:
  /// num_features.
  BatchNorm2dOptions(std::int64_t features) : features_(features) {}  // NOLINT(google-explicit-constructor)
  BatchNorm2dOptions& eps(double v) {                                 ///< added to the variance
    eps_ = v;
    return *this;
  }
  BatchNorm2dOptions& momentum(std::optional<double> v) {  ///< the running statistics' momentum
    momentum_ = v;
    return *this;
  }
  BatchNorm2dOptions& affine(bool v) {  ///< with weight and bias
    affine_ = v;
    return *this;
  }
  BatchNorm2dOptions& track_running_stats(bool v) {  ///< keep running statistics
    track_ = v;
    return *this;
  }
  std::int64_t num_features() const { return features_; }       ///< channels
  double eps() const { return eps_; }                           ///< eps
  std::optional<double> momentum() const { return momentum_; }  ///< momentum
  bool affine() const { return affine_; }                       ///< affine
  bool track_running_stats() const { return track_; }           ///< track_running_stats

 private:
  std::int64_t features_;
  double eps_ = 1e-5;
  std::optional<double> momentum_ = 0.1;
  bool affine_ = true, track_ = true;
};

/// The module a torch::nn::BatchNorm2d holds.
class BatchNorm2dImpl : public ::kindling::nn::BatchNorm2d {
 public:
  /// From options (or num_features).
  BatchNorm2dImpl(const BatchNorm2dOptions& o)  // NOLINT(google-explicit-constructor)
      : ::kindling::nn::BatchNorm2d(o.num_features(), o.eps(), o.momentum(), o.affine(), o.track_running_stats()) {}
};
/// EmbeddingOptions(num_embeddings, embedding_dim).padding_idx(i).
class EmbeddingOptions {
 public:
  /// Rows and columns.
  EmbeddingOptions(std::int64_t num, std::int64_t dim) : num_(num), dim_(dim) {}
  EmbeddingOptions& padding_idx(std::optional<std::int64_t> v) {  ///< a row that gets no gradient
    padding_ = v;
    return *this;
  }
  std::int64_t num_embeddings() const { return num_; }                  ///< rows
  std::int64_t embedding_dim() const { return dim_; }                   ///< columns
  std::optional<std::int64_t> padding_idx() const { return padding_; }  ///< the padding row

 private:
  std::int64_t num_, dim_;
  std::optional<std::int64_t> padding_;
};
/// The module a torch::nn::Embedding holds.
class EmbeddingImpl : public ::kindling::nn::Embedding {
 public:
  /// Rows and columns.
  EmbeddingImpl(std::int64_t num, std::int64_t dim) : ::kindling::nn::Embedding(num, dim) {}
  /// From options.
  explicit EmbeddingImpl(const EmbeddingOptions& o)
      : ::kindling::nn::Embedding(o.num_embeddings(), o.embedding_dim(), o.padding_idx()) {}
};

/// The module a torch::nn::Flatten holds (dims 1 to -1).
class FlattenImpl : public ::kindling::nn::Module {
 public:
  FlattenImpl() : ::kindling::nn::Module("Flatten") {}  ///< Flatten
  /// x.flatten(1).
  Tensor forward(const Tensor& x) override { return x.flatten(1); }
};

TORCH_MODULE(BatchNorm2d);        ///< torch::nn::BatchNorm2d
TORCH_MODULE(MaxPool2d);          ///< torch::nn::MaxPool2d
TORCH_MODULE(AvgPool2d);          ///< torch::nn::AvgPool2d
TORCH_MODULE(AdaptiveAvgPool2d);  ///< torch::nn::AdaptiveAvgPool2d
TORCH_MODULE(Embedding);          ///< torch::nn::Embedding
TORCH_MODULE(Flatten);            ///< torch::nn::Flatten

}  // namespace torch::nn
