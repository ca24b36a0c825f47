#pragma once
/// @file init.hpp
/// kindling::nn::init: filling parameters with their starting values.
///
/// A parameter is a leaf that requires grad, and week 2's leaf rule forbids
/// writing into such a tensor while autograd records. Initialisation is not
/// part of the model's computation, so every function here writes under
/// NoGradGuard: nothing is recorded, and the write is allowed. Each returns the
/// tensor it filled.

#include <cmath>
#include <optional>
#include <string_view>
#include <utility>

#include <kindling/autograd.hpp>

namespace kindling::nn::init {

/// (fan_in, fan_out) of a weight: for a 2-d (out, in) weight, (in, out); for a
/// conv weight (out, in/groups, kh, kw), both multiplied by the receptive field
/// kh*kw. Throws ValueError "Fan in and fan out can not be computed for tensor
/// with fewer than 2 dimensions".
std::pair<std::int64_t, std::int64_t> calculate_fan_in_and_fan_out(const Tensor& t);

/// PyTorch's recommended gain for a nonlinearity: 1 for "linear", "conv*" and
/// "sigmoid", 5/3 for "tanh", sqrt(2) for "relu", sqrt(2 / (1 + a^2)) for
/// "leaky_relu" with slope `param` (default 0.01), 3/4 for "selu". Throws
/// ValueError "Unsupported nonlinearity NAME" for any other name.
double calculate_gain(std::string_view nonlinearity, std::optional<double> param = std::nullopt);

/// Fills `t` with draws from U(a, b) without recording autograd history.
/// (Task week03.init_no_grad: the contract and the code are in src/tasks/init_no_grad.cpp.)
const Tensor& uniform_(const Tensor& t, double a = 0.0, double b = 1.0, Generator* gen = nullptr);

/// Fills `t` with draws from N(mean, std^2) without recording; returns `t`.
/// (Task week03.init_no_grad: the contract and the code are in src/tasks/init_no_grad.cpp.)
const Tensor& normal_(const Tensor& t, double mean = 0.0, double std = 1.0, Generator* gen = nullptr);

/// Fills `t` with `value` without recording; returns `t`.
/// (Task week03.init_no_grad: the contract and the code are in src/tasks/init_no_grad.cpp.)
const Tensor& constant_(const Tensor& t, double value);

/// constant_(t, 0).
inline const Tensor& zeros_(const Tensor& t) { return constant_(t, 0.0); }
/// constant_(t, 1).
inline const Tensor& ones_(const Tensor& t) { return constant_(t, 1.0); }

/// Glorot: U(-b, b) with b = gain * sqrt(6 / (fan_in + fan_out)).
const Tensor& xavier_uniform_(const Tensor& t, double gain = 1.0, Generator* gen = nullptr);
/// Glorot: N(0, s^2) with s = gain * sqrt(2 / (fan_in + fan_out)).
const Tensor& xavier_normal_(const Tensor& t, double gain = 1.0, Generator* gen = nullptr);

/// The fan kaiming_* uses: fan_in for mode "fan_in", fan_out for "fan_out";
/// throws ValueError "Mode M not supported, please use one of ['fan_in', 'fan_out']".
std::int64_t fan_for_mode(const Tensor& t, std::string_view mode);

/// He: U(-b, b) with b = gain * sqrt(3 / fan), gain = calculate_gain(nonlinearity, a) and fan =
/// fan_for_mode(t, mode).
/// (Task week03.linear_init: the contract and the code are in src/tasks/linear_init.cpp.)
const Tensor& kaiming_uniform_(const Tensor& t, double a = 0.0, std::string_view mode = "fan_in",
                               std::string_view nonlinearity = "leaky_relu", Generator* gen = nullptr);

/// He: N(0, s^2) with s = gain / sqrt(fan). Returns `t`.
const Tensor& kaiming_normal_(const Tensor& t, double a = 0.0, std::string_view mode = "fan_in",
                              std::string_view nonlinearity = "leaky_relu", Generator* gen = nullptr);

}  // namespace kindling::nn::init
