#pragma once
/// @file recurrent.hpp
/// Recurrent layers (torch.nn.RNN, LSTM, GRU and their cells) and Embedding.
///
/// A recurrent layer is a loop over time that applies one cell with the same weights at every
/// step. Nothing here has a backward of its own: each step is built from recorded operations
/// (linear, sigmoid, tanh, chunk, products, sums), so autograd unrolls the loop into one graph
/// whose length is the sequence's, and backpropagation through time is ordinary backward over
/// it. The lecture (week 3, "An LSTM unrolled into the graph") draws that graph.
///
/// The layout is PyTorch's: parameters `weight_ih_l{k}` (gates x input), `weight_hh_l{k}`
/// (gates x hidden), `bias_ih_l{k}`, `bias_hh_l{k}`, with `_reverse` for the second direction;
/// the gates stacked in PyTorch's order (LSTM: input, forget, cell, output; GRU: reset, update,
/// new); inputs (seq, batch, feature), or (batch, seq, feature) with batch_first, or
/// (seq, feature) unbatched; hidden states (layers x directions, batch, hidden).

#include <cstdint>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include <kindling/module.hpp>

namespace kindling::nn {

/// Packed variable-length sequences (torch.nn.utils.rnn): a batch sorted by length and
/// stored step by step, each step holding only the sequences still running.
namespace utils::rnn {

/// `data` (sum of lengths, features) step by step; `batch_sizes[t]` sequences run at step t.
struct PackedSequence {
  Tensor data;              ///< the steps, packed
  Tensor batch_sizes;       ///< int64, one per step (on the CPU)
  Tensor sorted_indices;    ///< the batch order by decreasing length (undefined: already sorted)
  Tensor unsorted_indices;  ///< its inverse
};

/// Packs `input` (seq, batch, *) (or batch-first) whose sequence b has `lengths[b]` steps.
/// `enforce_sorted`: the lengths must decrease (else they are sorted, and unsorted after).
PackedSequence pack_padded_sequence(const Tensor& input, const Tensor& lengths, bool batch_first = false,
                                    bool enforce_sorted = true);
/// Back to (seq, batch, *) padded with `padding_value`, and the lengths.
std::tuple<Tensor, Tensor> pad_packed_sequence(const PackedSequence& sequence, bool batch_first = false,
                                               double padding_value = 0.0);

}  // namespace utils::rnn

/// The settings shared by RNN, LSTM and GRU (torch.nn.RNNBase's arguments).
struct RNNOptions {
  std::int64_t num_layers = 1;        ///< stacked layers; each after the first reads the previous one's output
  bool bias = true;                   ///< with bias_ih and bias_hh
  bool batch_first = false;           ///< input and output as (batch, seq, feature)
  double dropout = 0.0;               ///< dropout on each layer's output but the last, in training
  bool bidirectional = false;         ///< a second pass from the last step to the first
  std::string nonlinearity = "tanh";  ///< RNN only: "tanh" or "relu"
};

/// What the three layers share: the parameters in PyTorch's names and order, the loop over
/// layers and directions. `mode` is "RNN_TANH", "RNN_RELU", "LSTM" or "GRU".
class RNNBase : public Module {
 public:
  /// input_size, hidden_size and the options; every parameter from U(-1/sqrt(hidden), 1/sqrt(hidden)).
  RNNBase(std::string mode, std::int64_t input_size, std::int64_t hidden_size, RNNOptions options);
  /// "10, 20, num_layers=2, batch_first=True, bidirectional=True"
  std::string extra_repr() const override;
  /// PyTorch's reset_parameters: each parameter from U(-1/sqrt(hidden), 1/sqrt(hidden)), in order.
  void reset_parameters();
  /// The parameters of layer `layer`, direction `direction` (0 forward, 1 reverse):
  /// {weight_ih, weight_hh, bias_ih, bias_hh} (the biases undefined without bias).
  std::vector<Tensor> weights(std::int64_t layer, std::int64_t direction) const;

  std::string mode;          ///< RNN_TANH, RNN_RELU, LSTM or GRU
  std::int64_t input_size;   ///< features of each input step
  std::int64_t hidden_size;  ///< features of the hidden state
  RNNOptions options;        ///< layers, bias, batch_first, dropout, bidirectional

 protected:
  /// Runs every layer and direction. `h0` (and `c0` for an LSTM) are (layers x directions,
  /// batch, hidden) or undefined for zeros. Returns the output and the last h (and c).
  std::tuple<Tensor, Tensor, Tensor> run(const Tensor& input, const Tensor& h0, const Tensor& c0);
  /// The same over packed sequences: the output packed as the input is.
  std::tuple<utils::rnn::PackedSequence, Tensor, Tensor> run_packed(const utils::rnn::PackedSequence& input,
                                                                    const Tensor& h0, const Tensor& c0);
  /// The layers over x (seq, batch, in) from the given states; `lengths` (one per batch row, or
  /// empty) stop each row at its own last step.
  std::tuple<Tensor, Tensor, Tensor> run_layers(const Tensor& x, const Tensor& h_init, const Tensor& c_init,
                                                const std::vector<std::int64_t>& lengths);

 private:
  std::int64_t gate_count() const;
};

/// An Elman RNN (torch.nn.RNN): h' = tanh(x W_ihᵀ + b_ih + h W_hhᵀ + b_hh) (or relu).
class RNN : public RNNBase {
 public:
  /// input_size, hidden_size and the options (nonlinearity "tanh" or "relu").
  RNN(std::int64_t input_size, std::int64_t hidden_size, RNNOptions options = {});
  /// The output (every step's last-layer h) and h_n (every layer's last h); `hx` undefined: zeros.
  std::tuple<Tensor, Tensor> forward_with_state(const Tensor& input, const Tensor& hx = {});
  /// The same over packed sequences: each one's h_n is its own last step's.
  std::tuple<utils::rnn::PackedSequence, Tensor> forward_with_packed_input(const utils::rnn::PackedSequence& input,
                                                                           const Tensor& hx = {});
  /// The output alone (so that an RNN fits a Sequential).
  Tensor forward(const Tensor& input) override { return std::get<0>(forward_with_state(input)); }
};

/// A long short-term memory layer (torch.nn.LSTM): gates i, f, g, o from x and h; c' = f c + i g,
/// h' = o tanh(c').
class LSTM : public RNNBase {
 public:
  /// input_size, hidden_size and the options.
  LSTM(std::int64_t input_size, std::int64_t hidden_size, RNNOptions options = {});
  /// The output and (h_n, c_n); `state` empty: zeros.
  std::tuple<Tensor, std::tuple<Tensor, Tensor>> forward_with_state(
      const Tensor& input, const std::optional<std::tuple<Tensor, Tensor>>& state = std::nullopt);
  /// The same over packed sequences: each one's (h_n, c_n) are its own last step's.
  std::tuple<utils::rnn::PackedSequence, std::tuple<Tensor, Tensor>> forward_with_packed_input(
      const utils::rnn::PackedSequence& input, const std::optional<std::tuple<Tensor, Tensor>>& state = std::nullopt);
  /// The output alone.
  Tensor forward(const Tensor& input) override { return std::get<0>(forward_with_state(input)); }
};

/// A gated recurrent unit layer (torch.nn.GRU): r, z from x and h; n = tanh(x W_inᵀ + b_in +
/// r (h W_hnᵀ + b_hn)); h' = (1 - z) n + z h.
class GRU : public RNNBase {
 public:
  /// input_size, hidden_size and the options.
  GRU(std::int64_t input_size, std::int64_t hidden_size, RNNOptions options = {});
  /// The output and h_n; `hx` undefined: zeros.
  std::tuple<Tensor, Tensor> forward_with_state(const Tensor& input, const Tensor& hx = {});
  /// The same over packed sequences.
  std::tuple<utils::rnn::PackedSequence, Tensor> forward_with_packed_input(const utils::rnn::PackedSequence& input,
                                                                           const Tensor& hx = {});
  /// The output alone.
  Tensor forward(const Tensor& input) override { return std::get<0>(forward_with_state(input)); }
};

/// One step of a recurrent layer (torch.nn.RNNCell, LSTMCell, GRUCell share this): weight_ih,
/// weight_hh, bias_ih, bias_hh.
class RNNCellBase : public Module {
 public:
  /// `gates` blocks of hidden_size rows each.
  RNNCellBase(std::string type_name, std::int64_t input_size, std::int64_t hidden_size, bool bias, std::int64_t gates);
  /// "10, 20" (and ", bias=False")
  std::string extra_repr() const override;
  std::int64_t input_size;   ///< features of the input
  std::int64_t hidden_size;  ///< features of the hidden state
  Tensor weight_ih;          ///< (gates x hidden, input)
  Tensor weight_hh;          ///< (gates x hidden, hidden)
  Tensor bias_ih;            ///< (gates x hidden), or undefined
  Tensor bias_hh;            ///< (gates x hidden), or undefined
};

/// torch.nn.RNNCell: one step of RNN.
class RNNCell : public RNNCellBase {
 public:
  /// input_size, hidden_size; nonlinearity "tanh" or "relu".
  RNNCell(std::int64_t input_size, std::int64_t hidden_size, bool bias = true, std::string nonlinearity = "tanh");
  /// h' from x (batch, input) or (input) and h (zeros when undefined).
  Tensor forward_with_state(const Tensor& input, const Tensor& hx);
  /// h' from zeros.
  Tensor forward(const Tensor& input) override { return forward_with_state(input, {}); }
  std::string nonlinearity;  ///< "tanh" or "relu"
};

/// torch.nn.LSTMCell: one step of LSTM.
class LSTMCell : public RNNCellBase {
 public:
  /// input_size, hidden_size.
  LSTMCell(std::int64_t input_size, std::int64_t hidden_size, bool bias = true);
  /// (h', c') from x and (h, c) (zeros when empty).
  std::tuple<Tensor, Tensor> forward_with_state(const Tensor& input,
                                                const std::optional<std::tuple<Tensor, Tensor>>& state = std::nullopt);
  /// h' from zeros.
  Tensor forward(const Tensor& input) override { return std::get<0>(forward_with_state(input)); }
};

/// torch.nn.GRUCell: one step of GRU.
class GRUCell : public RNNCellBase {
 public:
  /// input_size, hidden_size.
  GRUCell(std::int64_t input_size, std::int64_t hidden_size, bool bias = true);
  /// h' from x and h (zeros when undefined).
  Tensor forward_with_state(const Tensor& input, const Tensor& hx);
  /// h' from zeros.
  Tensor forward(const Tensor& input) override { return forward_with_state(input, {}); }
};

/// A lookup table (torch.nn.Embedding): row i of `weight` for index i. The gradient reaches
/// only the rows that were looked up (index_select's backward), and never `padding_idx`'s.
class Embedding : public Module {
 public:
  /// num_embeddings rows of embedding_dim, from N(0, 1) (the padding row zeroed).
  Embedding(std::int64_t num_embeddings, std::int64_t embedding_dim,
            std::optional<std::int64_t> padding_idx = std::nullopt);
  /// indices (any shape, int64) -> (..., embedding_dim).
  Tensor forward(const Tensor& indices) override;
  /// "10, 3" (and ", padding_idx=0")
  std::string extra_repr() const override;
  std::int64_t num_embeddings;              ///< rows
  std::int64_t embedding_dim;               ///< columns
  std::optional<std::int64_t> padding_idx;  ///< a row that stays fixed (its gradient is zero)
  Tensor weight;                            ///< (num_embeddings, embedding_dim)
};

namespace functional {
/// One LSTM step: (h', c') from `input` (batch, in) and `hx` = (h, c) (task week03.lstm_cell,
/// src/tasks/lstm_cell.cpp holds the contract). nn::LSTMCell and nn::LSTM call it.
std::tuple<Tensor, Tensor> lstm_cell(const Tensor& input, const std::tuple<Tensor, Tensor>& hx, const Tensor& w_ih,
                                     const Tensor& w_hh, const Tensor& b_ih = {}, const Tensor& b_hh = {});
/// weight's rows at `indices`: (..., embedding_dim). Rows at `padding_idx` get no gradient.
Tensor embedding(const Tensor& indices, const Tensor& weight, std::optional<std::int64_t> padding_idx = std::nullopt);
}  // namespace functional

}  // namespace kindling::nn
