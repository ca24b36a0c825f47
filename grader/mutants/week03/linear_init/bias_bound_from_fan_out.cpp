// MUTANT: draws the bias from U(+-1/sqrt(out_features)), the bias's own size, instead of the weight's fan-in
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
  // BEGIN SOLUTION week03.linear_init
  const double gain = calculate_gain(nonlinearity, a);
  const double std = gain / std::sqrt(static_cast<double>(fan_for_mode(t, mode)));
  const double bound = std::sqrt(3.0) * std;
  return uniform_(t, -bound, bound, gen);
  // END SOLUTION
}

}  // namespace kindling::nn::init

namespace kindling::nn {

/// weight: (out, in); bias: (out), or None when `has_bias` is false. Both are parameters initialised by
void Linear::reset_parameters() {
  // BEGIN SOLUTION week03.linear_init
  init::kaiming_uniform_(weight, std::sqrt(5.0));
  if (bias.defined()) {
    const auto [fan_in, fan_out] = init::calculate_fan_in_and_fan_out(weight);
    const double bound = fan_out > 0 ? 1.0 / std::sqrt(static_cast<double>(fan_out)) : 0.0;
    init::uniform_(bias, -bound, bound);
  }
  // END SOLUTION
}

}  // namespace kindling::nn
