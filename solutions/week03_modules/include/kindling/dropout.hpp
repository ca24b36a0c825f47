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

/// Dropout of x with probability p:
/// - p outside [0, 1] throws ValueError, word for word:
///   "dropout probability has to be between 0 and 1, but got 1.5";
/// - not `training`, or p == 0: returns x itself;
/// - otherwise each element is kept with probability 1 - p (draw one uniform
///   number per element from `gen`) and multiplied by 1 / (1 - p); dropped
///   elements are 0 (p == 1 drops everything). The result is differentiable:
///   the gradient flows through the kept elements, scaled the same way.
inline Tensor dropout(const Tensor& x, double p = 0.5, bool training = true, Generator* gen = nullptr) {
  // BEGIN SOLUTION week03.dropout
  KINDLING_CHECK_AS(ValueError, p >= 0.0 && p <= 1.0, "dropout probability has to be between 0 and 1, but got ",
                    detail::py_float_repr(p));
  if (!training || p == 0.0) return x;
  if (p == 1.0) return x * zeros_like(x);
  Tensor keep = ge(rand(x.sizes(), x.dtype(), gen), p).to(x.dtype());  // 1 with probability 1 - p
  return x * (keep * (1.0 / (1.0 - p)));
  // END SOLUTION
}

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
