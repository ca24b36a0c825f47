#pragma once
/// @file dropout.hpp
/// Dropout: zero each element with probability p while training.
///
/// Survivors are scaled by 1 / (1 - p) so that the expected value of each
/// element is unchanged; that is why eval mode can simply return the input.

#include <kindling/autograd.hpp>
#include <kindling/module.hpp>

namespace kindling::nn {

namespace functional {

/// Dropout of x with probability p (inverted dropout: kept elements are scaled by 1 / (1 - p)).
/// (Task week03.dropout: the contract and the code are in src/tasks/dropout.cpp.)
Tensor dropout(const Tensor& x, double p = 0.5, bool training = true, Generator* gen = nullptr);

}  // namespace functional

/// Dropout as a layer: F::dropout(x, p, is_training()).
class Dropout : public Module {
 public:
  /// Checks p as F::dropout does (same ValueError).
  explicit Dropout(double prob = 0.5);
  /// F::dropout(x, p, is_training()).
  Tensor forward(const Tensor& x) override { return functional::dropout(x, p, is_training()); }
  /// "p=0.5, inplace=False"
  std::string extra_repr() const override;
  double p;  ///< the probability of dropping an element
};

}  // namespace kindling::nn
