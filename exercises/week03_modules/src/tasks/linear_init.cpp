// Task week03.linear_init. The doc comment above each function is its contract; your code
// goes between BEGIN and END. Hints, one at a time: `./grade hint week03.linear_init`.

#include <kindling/error.hpp>  // KINDLING_TODO, which the worksheet's stubs call
#include <kindling/init.hpp>
#include <kindling/linear.hpp>

namespace kindling::nn::init {

/// He: U(-b, b) with b = gain * sqrt(3 / fan), gain = calculate_gain(nonlinearity, a)
/// and fan = fan_for_mode(t, mode). With the defaults Linear uses (a = sqrt(5),
/// leaky_relu, fan_in) this is b = 1 / sqrt(fan_in). Returns `t`.
const Tensor& kaiming_uniform_(const Tensor& t, double a, std::string_view mode, std::string_view nonlinearity,
                               Generator* gen) {
  // BEGIN TASK week03.linear_init (replace the stub below with your code)
  KINDLING_TODO("week03.linear_init");
  // END TASK
}

}  // namespace kindling::nn::init

namespace kindling::nn {

/// weight: (out, in); bias: (out), or None when `has_bias` is false. Both are parameters initialised by
void Linear::reset_parameters() {
  // BEGIN TASK week03.linear_init (replace the stub below with your code)
  KINDLING_TODO("week03.linear_init");
  // END TASK
}

}  // namespace kindling::nn
