// Task week03.init_no_grad. The doc comment above each function is its contract; your code
// goes between BEGIN and END. Hints, one at a time: `./grade hint week03.init_no_grad`.

#include <kindling/error.hpp>  // KINDLING_TODO, which the worksheet's stubs call
#include <kindling/init.hpp>

namespace kindling::nn::init {

/// Fills `t` with draws from U(a, b) without recording autograd history.
/// Works on a leaf that requires grad (a parameter), and returns `t`.
const Tensor& uniform_(const Tensor& t, double a, double b, Generator* gen) {
  // BEGIN TASK week03.init_no_grad (replace the stub below with your code)
  KINDLING_TODO("week03.init_no_grad");
  // END TASK
}

}  // namespace kindling::nn::init

namespace kindling::nn::init {

/// Fills `t` with draws from N(mean, std^2) without recording; returns `t`.
const Tensor& normal_(const Tensor& t, double mean, double std, Generator* gen) {
  // BEGIN TASK week03.init_no_grad (replace the stub below with your code)
  KINDLING_TODO("week03.init_no_grad");
  // END TASK
}

}  // namespace kindling::nn::init

namespace kindling::nn::init {

/// Fills `t` with `value` without recording; returns `t`.
const Tensor& constant_(const Tensor& t, double value) {
  // BEGIN TASK week03.init_no_grad (replace the stub below with your code)
  KINDLING_TODO("week03.init_no_grad");
  // END TASK
}

}  // namespace kindling::nn::init
