// The fan and gain arithmetic behind nn::init, as in torch/nn/init.py.

#include <cmath>
#include <string>

#include <kindling/init.hpp>

namespace kindling::nn::init {

std::pair<std::int64_t, std::int64_t> calculate_fan_in_and_fan_out(const Tensor& t) {
  KINDLING_CHECK_AS(ValueError, t.dim() >= 2,
                    "Fan in and fan out can not be computed for tensor with fewer than 2 dimensions");
  std::int64_t receptive = 1;
  for (std::int64_t d = 2; d < t.dim(); ++d) receptive *= t.sizes()[static_cast<std::size_t>(d)];
  return {t.sizes()[1] * receptive, t.sizes()[0] * receptive};
}

double calculate_gain(std::string_view nonlinearity, std::optional<double> param) {
  const std::string n(nonlinearity);
  if (n == "linear" || n == "conv1d" || n == "conv2d" || n == "conv3d" || n == "conv_transpose1d" ||
      n == "conv_transpose2d" || n == "conv_transpose3d" || n == "sigmoid")
    return 1.0;
  if (n == "tanh") return 5.0 / 3.0;
  if (n == "relu") return std::sqrt(2.0);
  if (n == "leaky_relu") {
    const double slope = param.value_or(0.01);
    return std::sqrt(2.0 / (1.0 + slope * slope));
  }
  if (n == "selu") return 3.0 / 4.0;
  throw ValueError("Unsupported nonlinearity " + n);
}

std::int64_t fan_for_mode(const Tensor& t, std::string_view mode) {
  KINDLING_CHECK_AS(ValueError, mode == "fan_in" || mode == "fan_out", "Mode ", std::string(mode),
                    " not supported, please use one of ['fan_in', 'fan_out']");
  const auto [fan_in, fan_out] = calculate_fan_in_and_fan_out(t);
  return mode == "fan_in" ? fan_in : fan_out;
}

const Tensor& xavier_uniform_(const Tensor& t, double gain, Generator* gen) {
  const auto [fan_in, fan_out] = calculate_fan_in_and_fan_out(t);
  const double bound = gain * std::sqrt(6.0 / static_cast<double>(fan_in + fan_out));
  return uniform_(t, -bound, bound, gen);
}

const Tensor& xavier_normal_(const Tensor& t, double gain, Generator* gen) {
  const auto [fan_in, fan_out] = calculate_fan_in_and_fan_out(t);
  return normal_(t, 0.0, gain * std::sqrt(2.0 / static_cast<double>(fan_in + fan_out)), gen);
}

const Tensor& kaiming_normal_(const Tensor& t, double a, std::string_view mode, std::string_view nonlinearity,
                              Generator* gen) {
  const double std = calculate_gain(nonlinearity, a) / std::sqrt(static_cast<double>(fan_for_mode(t, mode)));
  return normal_(t, 0.0, std, gen);
}

}  // namespace kindling::nn::init
