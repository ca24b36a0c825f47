#pragma once
/// @file torch/rnn.hpp
/// LibTorch's recurrent holders over Kindling's layers: torch::nn::LSTM, GRU, RNN and their cells,
/// with their options builders (`LSTMOptions(28, 128).num_layers(2).batch_first(true)`), and
/// forward() returning what LibTorch's does (LSTM: `std::tuple<Tensor, std::tuple<Tensor,
/// Tensor>>`). Part of <kindling/torch.hpp>.
#include <cstdint>
#include <optional>
#include <string>
#include <tuple>

#include <kindling/nn.hpp>
#include <kindling/torch/nn.hpp>
#include <kindling/torch/utils.hpp>

namespace torch::nn {

/// RNNOptions, LSTMOptions, GRUOptions: (input_size, hidden_size).num_layers(n).bias(b)
/// .batch_first(b).dropout(p).bidirectional(b) (and, for RNN, .nonlinearity(torch::kReLU)).
class RNNOptionsBase {
 public:
  /// input_size, hidden_size.
  RNNOptionsBase(std::int64_t input, std::int64_t hidden) : input_(input), hidden_(hidden) {}
  RNNOptionsBase& num_layers(std::int64_t v) {  ///< stacked layers
    o_.num_layers = v;
    return *this;
  }
  RNNOptionsBase& bias(bool v) {  ///< with biases
    o_.bias = v;
    return *this;
  }
  RNNOptionsBase& batch_first(bool v) {  ///< (batch, seq, feature) input and output
    o_.batch_first = v;
    return *this;
  }
  RNNOptionsBase& dropout(double v) {  ///< between layers, in training
    o_.dropout = v;
    return *this;
  }
  RNNOptionsBase& bidirectional(bool v) {  ///< a reverse pass too
    o_.bidirectional = v;
    return *this;
  }
  RNNOptionsBase& nonlinearity(EnumToken v) {  ///< RNN only: torch::kTanh or torch::kReLU
    o_.nonlinearity = std::string(v.name);
    return *this;
  }
  std::int64_t input_size() const { return input_; }             ///< input_size
  std::int64_t hidden_size() const { return hidden_; }           ///< hidden_size
  const ::kindling::nn::RNNOptions& rest() const { return o_; }  ///< Kindling's options

 private:
  std::int64_t input_, hidden_;
  ::kindling::nn::RNNOptions o_;
};
using RNNOptions = RNNOptionsBase;   ///< torch::nn::RNNOptions
using LSTMOptions = RNNOptionsBase;  ///< torch::nn::LSTMOptions
using GRUOptions = RNNOptionsBase;   ///< torch::nn::GRUOptions

/// RNNCellOptions, LSTMCellOptions, GRUCellOptions: (input_size, hidden_size).bias(b).
class RNNCellOptionsBase {
 public:
  /// input_size, hidden_size.
  RNNCellOptionsBase(std::int64_t input, std::int64_t hidden) : input_(input), hidden_(hidden) {}
  RNNCellOptionsBase& bias(bool v) {  ///< with biases
    bias_ = v;
    return *this;
  }
  RNNCellOptionsBase& nonlinearity(EnumToken v) {  ///< RNNCell only
    nonlinearity_ = std::string(v.name);
    return *this;
  }
  std::int64_t input_size() const { return input_; }                 ///< input_size
  std::int64_t hidden_size() const { return hidden_; }               ///< hidden_size
  bool bias() const { return bias_; }                                ///< the bias flag
  const std::string& nonlinearity() const { return nonlinearity_; }  ///< "tanh" or "relu"

 private:
  std::int64_t input_, hidden_;
  bool bias_ = true;
  std::string nonlinearity_ = "tanh";
};
using RNNCellOptions = RNNCellOptionsBase;   ///< torch::nn::RNNCellOptions
using LSTMCellOptions = RNNCellOptionsBase;  ///< torch::nn::LSTMCellOptions
using GRUCellOptions = RNNCellOptionsBase;   ///< torch::nn::GRUCellOptions

// LibTorch's forward() of these layers takes and returns states beside the tensor, so it hides
// Kindling's one-tensor forward (still there for a Sequential, through a Module&).
#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Woverloaded-virtual"
#endif

/// The module a torch::nn::LSTM holds.
class LSTMImpl : public ::kindling::nn::LSTM {
 public:
  /// From options.
  LSTMImpl(const LSTMOptions& o)  // NOLINT(google-explicit-constructor)
      : ::kindling::nn::LSTM(o.input_size(), o.hidden_size(), o.rest()) {}
  /// input_size, hidden_size.
  LSTMImpl(std::int64_t input, std::int64_t hidden) : LSTMImpl(LSTMOptions(input, hidden)) {}
  /// The output and (h_n, c_n); `hx` empty: zeros.
  std::tuple<Tensor, std::tuple<Tensor, Tensor>> forward(
      const Tensor& input, const std::optional<std::tuple<Tensor, Tensor>>& hx = std::nullopt) {
    return forward_with_state(input, hx);
  }
};
/// The module a torch::nn::GRU holds.
class GRUImpl : public ::kindling::nn::GRU {
 public:
  /// From options.
  GRUImpl(const GRUOptions& o)  // NOLINT(google-explicit-constructor)
      : ::kindling::nn::GRU(o.input_size(), o.hidden_size(), o.rest()) {}
  /// input_size, hidden_size.
  GRUImpl(std::int64_t input, std::int64_t hidden) : GRUImpl(GRUOptions(input, hidden)) {}
  /// The output and h_n; `hx` undefined: zeros.
  std::tuple<Tensor, Tensor> forward(const Tensor& input, const Tensor& hx = {}) {
    return forward_with_state(input, hx);
  }
};
/// The module a torch::nn::RNN holds.
class RNNImpl : public ::kindling::nn::RNN {
 public:
  /// From options.
  RNNImpl(const RNNOptions& o)  // NOLINT(google-explicit-constructor)
      : ::kindling::nn::RNN(o.input_size(), o.hidden_size(), o.rest()) {}
  /// input_size, hidden_size.
  RNNImpl(std::int64_t input, std::int64_t hidden) : RNNImpl(RNNOptions(input, hidden)) {}
  /// The output and h_n; `hx` undefined: zeros.
  std::tuple<Tensor, Tensor> forward(const Tensor& input, const Tensor& hx = {}) {
    return forward_with_state(input, hx);
  }
};

/// The module a torch::nn::LSTMCell holds.
class LSTMCellImpl : public ::kindling::nn::LSTMCell {
 public:
  /// From options.
  LSTMCellImpl(const LSTMCellOptions& o)  // NOLINT(google-explicit-constructor)
      : ::kindling::nn::LSTMCell(o.input_size(), o.hidden_size(), o.bias()) {}
  /// input_size, hidden_size.
  LSTMCellImpl(std::int64_t input, std::int64_t hidden) : LSTMCellImpl(LSTMCellOptions(input, hidden)) {}
  /// (h', c') from x and (h, c) (zeros when empty).
  std::tuple<Tensor, Tensor> forward(const Tensor& input,
                                     const std::optional<std::tuple<Tensor, Tensor>>& hx = std::nullopt) {
    return forward_with_state(input, hx);
  }
};
/// The module a torch::nn::GRUCell holds.
class GRUCellImpl : public ::kindling::nn::GRUCell {
 public:
  /// From options.
  GRUCellImpl(const GRUCellOptions& o)  // NOLINT(google-explicit-constructor)
      : ::kindling::nn::GRUCell(o.input_size(), o.hidden_size(), o.bias()) {}
  /// input_size, hidden_size.
  GRUCellImpl(std::int64_t input, std::int64_t hidden) : GRUCellImpl(GRUCellOptions(input, hidden)) {}
  /// h' from x and h (zeros when undefined).
  Tensor forward(const Tensor& input, const Tensor& hx = {}) { return forward_with_state(input, hx); }
};
/// The module a torch::nn::RNNCell holds.
class RNNCellImpl : public ::kindling::nn::RNNCell {
 public:
  /// From options.
  RNNCellImpl(const RNNCellOptions& o)  // NOLINT(google-explicit-constructor)
      : ::kindling::nn::RNNCell(o.input_size(), o.hidden_size(), o.bias(), o.nonlinearity()) {}
  /// input_size, hidden_size.
  RNNCellImpl(std::int64_t input, std::int64_t hidden) : RNNCellImpl(RNNCellOptions(input, hidden)) {}
  /// h' from x and h (zeros when undefined).
  Tensor forward(const Tensor& input, const Tensor& hx = {}) { return forward_with_state(input, hx); }
};

#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

TORCH_MODULE(LSTM);      ///< torch::nn::LSTM
TORCH_MODULE(GRU);       ///< torch::nn::GRU
TORCH_MODULE(RNN);       ///< torch::nn::RNN
TORCH_MODULE(LSTMCell);  ///< torch::nn::LSTMCell
TORCH_MODULE(GRUCell);   ///< torch::nn::GRUCell
TORCH_MODULE(RNNCell);   ///< torch::nn::RNNCell

}  // namespace torch::nn
