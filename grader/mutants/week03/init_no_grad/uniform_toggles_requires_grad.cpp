// MUTANT: uniform_ turns requires_grad off and on around the write: a plain tensor comes back requiring grad
// Task week03.init_no_grad. The doc comment above each function is its contract; your code
// goes between BEGIN and END. Hints, one at a time: `./grade hint week03.init_no_grad`.

#include <kindling/error.hpp>  // KINDLING_TODO, which the worksheet's stubs call
#include <kindling/init.hpp>

namespace kindling::nn::init {

/// Fills `t` with draws from U(a, b) without recording autograd history.
/// Works on a leaf that requires grad (a parameter), and returns `t`.
const Tensor& uniform_(const Tensor& t, double a, double b, Generator* gen) {
  // BEGIN SOLUTION week03.init_no_grad
  t.requires_grad_(false);  // a leaf that requires grad may not be written in place
  t.copy_(rand(t.sizes(), t.dtype(), gen) * (b - a) + a);
  t.requires_grad_(true);
  return t;
  // END SOLUTION
}

}  // namespace kindling::nn::init

namespace kindling::nn::init {

/// Fills `t` with draws from N(mean, std^2) without recording; returns `t`.
const Tensor& normal_(const Tensor& t, double mean, double std, Generator* gen) {
  // BEGIN SOLUTION week03.init_no_grad
  NoGradGuard no_grad;
  t.copy_(randn(t.sizes(), t.dtype(), gen) * std + mean);
  return t;
  // END SOLUTION
}

}  // namespace kindling::nn::init

namespace kindling::nn::init {

/// Fills `t` with `value` without recording; returns `t`.
const Tensor& constant_(const Tensor& t, double value) {
  // BEGIN SOLUTION week03.init_no_grad
  NoGradGuard no_grad;
  t.fill_(value);
  return t;
  // END SOLUTION
}

}  // namespace kindling::nn::init
