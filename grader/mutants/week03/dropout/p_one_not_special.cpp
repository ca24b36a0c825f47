// MUTANT: forgets the p == 1 case: the scale 1 / (1 - p) is infinite and 0 * inf gives NaN instead of zeros
// Task week03.dropout. The doc comment above each function is its contract; your code
// goes between BEGIN and END. Hints, one at a time: `./grade hint week03.dropout`.

#include <kindling/device_hooks.hpp>
#include <kindling/dropout.hpp>
#include <kindling/error.hpp>  // KINDLING_TODO, which the worksheet's stubs call
#include <kindling/factory.hpp>

namespace kindling::nn::functional {

namespace {
// Week 6: dropout of a tensor on a device draws its mask on the host (the CPU generator) and moves it.
Tensor dropout_through_host(const Tensor& x, double p, Generator* gen) {
  return x * kindling::detail::move_to(dropout(ones(x.sizes(), x.dtype()), p, true, gen), x.device());
}
}  // namespace

/// Dropout of x with probability p:
/// - p outside [0, 1] throws ValueError, word for word:
///   "dropout probability has to be between 0 and 1, but got 1.5";
/// - not `training`, or p == 0: returns x itself;
/// - otherwise each element is kept with probability 1 - p (draw one uniform
///   number per element from `gen`) and multiplied by 1 / (1 - p); dropped
///   elements are 0 (p == 1 drops everything). The result is differentiable:
///   the gradient flows through the kept elements, scaled the same way.
Tensor dropout(const Tensor& x, double p, bool training, Generator* gen) {
  if (!x.device().is_cpu() && training && p > 0.0 && p <= 1.0) return dropout_through_host(x, p, gen);
  // BEGIN SOLUTION week03.dropout
  KINDLING_CHECK_AS(ValueError, p >= 0.0 && p <= 1.0, "dropout probability has to be between 0 and 1, but got ",
                    detail::py_float_repr(p));
  if (!training || p == 0.0) return x;
  Tensor keep = ge(rand(x.sizes(), x.dtype(), gen), p).to(x.dtype());  // 1 with probability 1 - p
  return x * (keep * (1.0 / (1.0 - p)));
  // END SOLUTION
}

}  // namespace kindling::nn::functional
