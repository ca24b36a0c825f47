#pragma once
/// @file activation.hpp
/// Parameter-free layers: Identity, the activations, Softmax and Flatten.

#include <kindling/functional.hpp>
#include <kindling/module.hpp>

namespace kindling::nn {

/// Returns its input (a placeholder, e.g. for a removed layer).
class Identity : public Module {
 public:
  Identity() : Module("Identity") {}
  /// The input itself.
  Tensor forward(const Tensor& x) override { return x; }
};

/// max(x, 0).
class ReLU : public Module {
 public:
  ReLU() : Module("ReLU") {}
  /// relu(x).
  Tensor forward(const Tensor& x) override { return relu(x); }
};

/// max(x, 0) + negative_slope * min(x, 0).
class LeakyReLU : public Module {
 public:
  /// A slope of `slope` below zero.
  explicit LeakyReLU(double slope = 0.01) : Module("LeakyReLU"), negative_slope(slope) {}
  /// F::leaky_relu(x, negative_slope).
  Tensor forward(const Tensor& x) override { return F::leaky_relu(x, negative_slope); }
  /// "negative_slope=0.01"
  std::string extra_repr() const override;
  double negative_slope;  ///< slope below zero
};

/// 1 / (1 + e^-x).
class Sigmoid : public Module {
 public:
  Sigmoid() : Module("Sigmoid") {}
  /// sigmoid(x).
  Tensor forward(const Tensor& x) override { return sigmoid(x); }
};

/// tanh(x).
class Tanh : public Module {
 public:
  Tanh() : Module("Tanh") {}
  /// tanh(x).
  Tensor forward(const Tensor& x) override { return tanh(x); }
};

/// x * Phi(x), the exact form (approximate='none').
class GELU : public Module {
 public:
  GELU() : Module("GELU") {}
  /// F::gelu(x).
  Tensor forward(const Tensor& x) override { return F::gelu(x); }
  /// "approximate='none'"
  std::string extra_repr() const override { return "approximate='none'"; }
};

/// softmax along `dim`.
class Softmax : public Module {
 public:
  /// Normalises along `d`.
  explicit Softmax(std::int64_t d) : Module("Softmax"), dim(d) {}
  /// softmax(x, dim).
  Tensor forward(const Tensor& x) override { return softmax(x, dim); }
  /// "dim=1"
  std::string extra_repr() const override { return "dim=" + std::to_string(dim); }
  std::int64_t dim;  ///< the normalised dim
};

/// Flattens dims start_dim..end_dim (by default all but the batch dim).
class Flatten : public Module {
 public:
  /// Flattens dims start..end.
  explicit Flatten(std::int64_t start = 1, std::int64_t end = -1) : Module("Flatten"), start_dim(start), end_dim(end) {}
  /// F::flatten(x, start_dim, end_dim).
  Tensor forward(const Tensor& x) override { return F::flatten(x, start_dim, end_dim); }
  /// "start_dim=1, end_dim=-1"
  std::string extra_repr() const override {
    return "start_dim=" + std::to_string(start_dim) + ", end_dim=" + std::to_string(end_dim);
  }
  std::int64_t start_dim;  ///< first flattened dim
  std::int64_t end_dim;    ///< last flattened dim
};

}  // namespace kindling::nn
