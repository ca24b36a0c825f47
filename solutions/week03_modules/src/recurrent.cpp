// Recurrent layers and Embedding (recurrent.hpp): a loop over time of recorded operations, so
// that autograd unrolls it; PyTorch's parameter names, gate order and shapes.

#include <algorithm>
#include <cmath>
#include <numeric>

#include <kindling/dropout.hpp>
#include <kindling/factory.hpp>
#include <kindling/init.hpp>
#include <kindling/join.hpp>
#include <kindling/linalg.hpp>
#include <kindling/no_grad.hpp>
#include <kindling/ops.hpp>
#include <kindling/recurrent.hpp>

#include "nn_internal.hpp"

namespace kindling::nn {

namespace {

// x Wᵀ + b for a 2-d x, as nn.Linear computes it.
Tensor affine(const Tensor& x, const Tensor& w, const Tensor& b) {
  // BEGIN REFERENCE ONLY week03.linear_layout
  // WORKSHEET: const Tensor y = matmul(x, w.transpose(0, 1));
  // WORKSHEET: return b.defined() ? y + b : y;
  return b.defined() ? addmm(b, x, w.t()) : mm(x, w.t());
  // END REFERENCE ONLY
}

// One step of a GRU or an Elman cell (an LSTM's is F::lstm_cell). `gi` is the input's part
// x W_ihᵀ + b_ih (all gates), `h` the state; returns h'. PyTorch's order of operations.
Tensor cell_step(const std::string& mode, const Tensor& gi, const Tensor& h, const Tensor& w_hh, const Tensor& b_hh) {
  const Tensor gh = affine(h, w_hh, b_hh);
  if (mode == "GRU") {
    const std::vector<Tensor> xi = chunk(gi, 3, 1), hh = chunk(gh, 3, 1);
    const Tensor r = sigmoid(hh[0] + xi[0]);
    const Tensor z = sigmoid(hh[1] + xi[1]);
    const Tensor n = tanh(xi[2] + hh[2] * r);
    return (h - n) * z + n;
  }
  const Tensor pre = gi + gh;
  return mode == "RNN_RELU" ? relu(pre) : tanh(pre);
}

std::int64_t gates_of(const std::string& mode) {
  if (mode == "LSTM") return 4;
  if (mode == "GRU") return 3;
  return 1;
}

std::string mode_name(const std::string& mode) { return mode.rfind("RNN", 0) == 0 ? "RNN" : mode; }

}  // namespace

// ---- packing ------------------------------------------------------------------------------

namespace utils::rnn {

PackedSequence pack_padded_sequence(const Tensor& input, const Tensor& lengths, bool batch_first, bool enforce_sorted) {
  KINDLING_CHECK(input.dim() >= 2, "pack_padded_sequence: expected a padded batch with at least 2 dimensions, got ",
                 input.dim());
  const std::vector<std::int64_t> len = lengths.cpu().to(kInt64).to_vector<std::int64_t>();
  const Tensor x = batch_first ? input.transpose(0, 1) : input;  // (seq, batch, *)
  KINDLING_CHECK(static_cast<std::int64_t>(len.size()) == x.size(1),
                 "Expected `len(lengths)` to be equal to batch_size, but got ", len.size(), " (batch_size=", x.size(1),
                 ")");
  PackedSequence out;
  std::vector<std::int64_t> order(len.size());
  std::iota(order.begin(), order.end(), 0);
  Tensor sorted = x;
  if (enforce_sorted) {
    KINDLING_CHECK(std::is_sorted(len.rbegin(), len.rend()),
                   "`lengths` array must be sorted in decreasing order when `enforce_sorted` is True. You can pass "
                   "`enforce_sorted=False` to pack_padded_sequence and/or pack_sequence to sidestep this requirement "
                   "if you do not need ONNX exportability.");
  } else {
    std::stable_sort(order.begin(), order.end(), [&](std::int64_t a, std::int64_t b) {
      return len[static_cast<std::size_t>(a)] > len[static_cast<std::size_t>(b)];
    });
    std::vector<std::int64_t> inverse(order.size());
    for (std::size_t i = 0; i < order.size(); ++i)
      inverse[static_cast<std::size_t>(order[i])] = static_cast<std::int64_t>(i);
    out.sorted_indices = tensor(order, TensorOptions(kInt64).device(input.device()));
    out.unsorted_indices = tensor(inverse, TensorOptions(kInt64).device(input.device()));
    sorted = index_select(x, 1, out.sorted_indices);
  }
  std::vector<std::int64_t> sorted_len(len.size());
  for (std::size_t i = 0; i < order.size(); ++i) sorted_len[i] = len[static_cast<std::size_t>(order[i])];
  KINDLING_CHECK(sorted_len.empty() || sorted_len.back() > 0,
                 "Length of all samples has to be greater than 0, but found an element in 'lengths' that is <= 0");
  KINDLING_CHECK(sorted_len.empty() || sorted_len.front() <= x.size(0), "pack_padded_sequence: a length of ",
                 sorted_len.front(), " is longer than the padded sequence (", x.size(0), " steps)");
  std::vector<std::int64_t> batch_sizes;
  TensorList steps;
  for (std::int64_t t = 0; !sorted_len.empty() && t < sorted_len.front(); ++t) {
    const auto running = static_cast<std::int64_t>(
        std::count_if(sorted_len.begin(), sorted_len.end(), [t](std::int64_t l) { return l > t; }));
    batch_sizes.push_back(running);
    steps.push_back(sorted.select(0, t).narrow(0, 0, running));
  }
  out.data = cat(steps, 0);
  out.batch_sizes = tensor(batch_sizes, TensorOptions(kInt64));
  return out;
}

std::tuple<Tensor, Tensor> pad_packed_sequence(const PackedSequence& sequence, bool batch_first, double padding_value) {
  const std::vector<std::int64_t> sizes = sequence.batch_sizes.to_vector<std::int64_t>();
  KINDLING_CHECK(!sizes.empty(), "pad_packed_sequence: the sequence has no steps");
  const std::int64_t batch = sizes.front(), steps = static_cast<std::int64_t>(sizes.size());
  Shape shape = {steps, batch};
  for (std::int64_t d = 1; d < sequence.data.dim(); ++d) shape.push_back(sequence.data.size(d));
  TensorList rows;
  std::vector<std::int64_t> lengths(static_cast<std::size_t>(batch), 0);
  std::int64_t at = 0;
  for (std::int64_t t = 0; t < steps; ++t) {
    const std::int64_t running = sizes[static_cast<std::size_t>(t)];
    Tensor step = sequence.data.narrow(0, at, running);
    if (running < batch) {
      Shape pad = step.sizes().vec();
      pad[0] = batch - running;
      step = cat({step, full(pad, padding_value, sequence.data.options())}, 0);
    }
    rows.push_back(step);
    for (std::int64_t b = 0; b < running; ++b) ++lengths[static_cast<std::size_t>(b)];
    at += running;
  }
  Tensor padded = stack(rows, 0);
  Tensor len = tensor(lengths, TensorOptions(kInt64));
  if (sequence.unsorted_indices.defined()) {
    padded = index_select(padded, 1, sequence.unsorted_indices);
    len = index_select(len, 0, sequence.unsorted_indices.cpu());
  }
  return {batch_first ? padded.transpose(0, 1) : padded, len};
}

}  // namespace utils::rnn

// ---- RNNBase ------------------------------------------------------------------------------

RNNBase::RNNBase(std::string m, std::int64_t in, std::int64_t hidden, RNNOptions o)
    : Module(mode_name(m)), mode(std::move(m)), input_size(in), hidden_size(hidden), options(std::move(o)) {
  KINDLING_CHECK_AS(ValueError, hidden > 0, "hidden_size must be greater than zero");
  KINDLING_CHECK_AS(ValueError, options.num_layers > 0, "num_layers must be greater than zero");
  KINDLING_CHECK_AS(ValueError, options.dropout >= 0 && options.dropout <= 1,
                    "dropout should be a number in range [0, 1] representing the probability of an element being "
                    "zeroed");
  const std::int64_t rows = gate_count() * hidden_size;
  const std::int64_t directions = options.bidirectional ? 2 : 1;
  for (std::int64_t layer = 0; layer < options.num_layers; ++layer) {
    for (std::int64_t d = 0; d < directions; ++d) {
      const std::string suffix = "_l" + std::to_string(layer) + (d == 1 ? "_reverse" : "");
      const std::int64_t layer_in = layer == 0 ? input_size : hidden_size * directions;
      register_parameter("weight_ih" + suffix, empty({rows, layer_in}));
      register_parameter("weight_hh" + suffix, empty({rows, hidden_size}));
      if (options.bias) {
        register_parameter("bias_ih" + suffix, empty({rows}));
        register_parameter("bias_hh" + suffix, empty({rows}));
      }
    }
  }
  reset_parameters();
}

std::int64_t RNNBase::gate_count() const { return gates_of(mode); }

void RNNBase::reset_parameters() {
  const double bound = 1.0 / std::sqrt(static_cast<double>(hidden_size));
  for (Tensor& p : parameters()) init::uniform_(p, -bound, bound);
}

std::vector<Tensor> RNNBase::weights(std::int64_t layer, std::int64_t direction) const {
  const std::string suffix = "_l" + std::to_string(layer) + (direction == 1 ? "_reverse" : "");
  auto find = [&](const std::string& name) {
    for (const auto& [n, t] : const_cast<RNNBase*>(this)->named_parameters(false))
      if (n == name) return t;
    return Tensor();
  };
  return {find("weight_ih" + suffix), find("weight_hh" + suffix), find("bias_ih" + suffix), find("bias_hh" + suffix)};
}

std::string RNNBase::extra_repr() const {
  std::string s = std::to_string(input_size) + ", " + std::to_string(hidden_size);
  if (options.num_layers != 1) s += ", num_layers=" + std::to_string(options.num_layers);
  if (!options.bias) s += ", bias=False";
  if (options.batch_first) s += ", batch_first=True";
  if (options.dropout != 0) s += ", dropout=" + detail::py_float_repr(options.dropout);
  if (options.bidirectional) s += ", bidirectional=True";
  return s;
}

namespace {

// A layer's initial state: zeros like `like` when the caller gave none, else `state` (the given
// one, with a batch dimension) once its shape is `expected`; `given` is what the error quotes.
Tensor initial_state(const Tensor& given, const Tensor& state, const Shape& expected, const char* what,
                     const Tensor& like) {
  if (!given.defined()) return zeros(expected, TensorOptions(like.dtype()).device(like.device()));
  KINDLING_CHECK(state.sizes().vec() == expected, "Expected hidden", what, " size (", expected[0], ", ", expected[1],
                 ", ", expected[2], "), got ", to_string(given.sizes()));
  return state;
}

// One direction of one layer over x (seq, batch, in). `lengths` (per batch row, or empty)
// freeze each row's state after its last step (packed sequences).
struct DirectionResult {
  Tensor output, h, c;
};

DirectionResult run_direction(const std::string& mode, const std::vector<Tensor>& w, const Tensor& x, Tensor h,
                              Tensor c, bool reverse, const std::vector<std::int64_t>& lengths) {
  const std::int64_t steps = x.size(0), batch = x.size(1);
  const bool lstm = mode == "LSTM";
  // The input's part of every gate at every step in one product, as PyTorch does on the CPU (an
  // LSTM's steps go through F::lstm_cell, task week03.lstm_cell, with the input itself).
  const Tensor gi_all =
      lstm ? Tensor() : affine(x.reshape({steps * batch, x.size(2)}), w[0], w[2]).view({steps, batch, w[0].size(0)});
  TensorList outputs(static_cast<std::size_t>(steps));
  for (std::int64_t k = 0; k < steps; ++k) {
    const std::int64_t t = reverse ? steps - 1 - k : k;
    auto [h2, c2] = lstm ? functional::lstm_cell(x.select(0, t), {h, c}, w[0], w[1], w[2], w[3])
                         : std::tuple<Tensor, Tensor>{cell_step(mode, gi_all.select(0, t), h, w[1], w[3]), Tensor()};
    if (!lengths.empty()) {  // rows whose sequence has ended keep their state; their output is 0
      std::vector<float> running(lengths.size());
      for (std::size_t b = 0; b < lengths.size(); ++b) running[b] = lengths[b] > t ? 1.0F : 0.0F;
      const Tensor m = tensor(running, TensorOptions(x.dtype()).device(x.device())).view({batch, 1});
      h2 = m * h2 + (1 - m) * h;
      if (c2.defined()) c2 = m * c2 + (1 - m) * c;
      outputs[static_cast<std::size_t>(t)] = m * h2;
    } else {
      outputs[static_cast<std::size_t>(t)] = h2;
    }
    h = h2;
    c = c2;
  }
  return {stack(outputs, 0), h, c};
}

}  // namespace

std::tuple<Tensor, Tensor, Tensor> RNNBase::run(const Tensor& input, const Tensor& h0, const Tensor& c0) {
  // PyTorch 1.13 treats any input that is not 3-d as unbatched and adds a batch dimension
  // before it checks, hence "got 5" for a 4-d input.
  KINDLING_CHECK(input.dim() == 2 || input.dim() == 3, "input must have 3 dimensions, got ", input.dim() + 1);
  KINDLING_CHECK(input.size(-1) == input_size, "input.size(-1) must be equal to input_size. Expected ", input_size,
                 ", got ", input.size(-1));
  const bool batched = input.dim() == 3;
  const Tensor x = !batched ? input.unsqueeze(1) : options.batch_first ? input.transpose(0, 1) : input;
  const std::int64_t directions = options.bidirectional ? 2 : 1;
  const Shape expected = {options.num_layers * directions, x.size(1), hidden_size};
  // An LSTM's two states are checked together, in PyTorch's words.
  if (mode == "LSTM" && h0.defined() && c0.defined()) {
    const std::int64_t rank = batched ? 3 : 2;
    KINDLING_CHECK(h0.dim() == rank && c0.dim() == rank, "For ", batched ? "batched" : "unbatched", " ", rank,
                   "-D input, hx and cx should also be ", rank, "-D but got (", h0.dim(), "-D, ", c0.dim(),
                   "-D) tensors");
  }
  auto state = [&](const Tensor& given, const char* what) {
    if (given.defined())
      KINDLING_CHECK(given.dim() == (batched ? 3 : 2), "For ", batched ? "batched" : "unbatched", " ", batched ? 3 : 2,
                     "-D input, hx", what, " should also be ", batched ? 3 : 2, "-D but got ", given.dim(),
                     "-D tensor");
    return initial_state(given, batched || !given.defined() ? given : given.unsqueeze(1), expected, what, x);
  };
  const Tensor h_init = state(h0, mode == "LSTM" ? "[0]" : "");
  const Tensor c_init = mode == "LSTM" ? state(c0, "[1]") : Tensor();
  auto [out, h, c] = run_layers(x, h_init, c_init, {});
  if (!batched) return {out.squeeze(1), h.squeeze(1), c.defined() ? c.squeeze(1) : c};
  return {options.batch_first ? out.transpose(0, 1) : out, h, c};
}

std::tuple<Tensor, Tensor, Tensor> RNNBase::run_layers(const Tensor& x, const Tensor& h_init, const Tensor& c_init,
                                                       const std::vector<std::int64_t>& lengths) {
  const std::int64_t directions = options.bidirectional ? 2 : 1;
  Tensor layer_input = x;
  TensorList hs, cs;
  for (std::int64_t layer = 0; layer < options.num_layers; ++layer) {
    TensorList outs;
    for (std::int64_t d = 0; d < directions; ++d) {
      const std::int64_t k = layer * directions + d;
      DirectionResult r = run_direction(mode, weights(layer, d), layer_input, h_init.select(0, k),
                                        c_init.defined() ? c_init.select(0, k) : Tensor(), d == 1, lengths);
      outs.push_back(r.output);
      hs.push_back(r.h);
      if (r.c.defined()) cs.push_back(r.c);
    }
    layer_input = directions == 1 ? outs[0] : cat(outs, 2);
    if (options.dropout > 0 && layer + 1 < options.num_layers)
      layer_input = functional::dropout(layer_input, options.dropout, is_training());
  }
  return {layer_input, stack(hs, 0), cs.empty() ? Tensor() : stack(cs, 0)};
}

std::tuple<utils::rnn::PackedSequence, Tensor, Tensor> RNNBase::run_packed(const utils::rnn::PackedSequence& input,
                                                                           const Tensor& h0, const Tensor& c0) {
  KINDLING_CHECK(input.data.dim() == 2 && input.data.size(1) == input_size,
                 "input.size(-1) must be equal to input_size. Expected ", input_size, ", got ", input.data.size(-1));
  // Unpack in the sorted order (the packed order), run with each row's length, pack again.
  utils::rnn::PackedSequence sorted = input;
  sorted.sorted_indices = Tensor();
  sorted.unsorted_indices = Tensor();
  // Not a structured binding: the lambda below captures `padded`, which Clang (16) refuses for a
  // binding in a file built with OpenMP.
  Tensor padded;
  Tensor len;
  std::tie(padded, len) = utils::rnn::pad_packed_sequence(sorted);
  const std::vector<std::int64_t> lengths = len.to_vector<std::int64_t>();
  const std::int64_t directions = options.bidirectional ? 2 : 1;
  const Shape expected = {options.num_layers * directions, padded.size(1), hidden_size};
  auto state = [&](const Tensor& given, const char* what) {
    const Tensor s = initial_state(given, given, expected, what, padded);
    // The caller's batch order to the packed (sorted) one.
    return given.defined() && input.sorted_indices.defined() ? index_select(s, 1, input.sorted_indices) : s;
  };
  const Tensor h_init = state(h0, mode == "LSTM" ? "[0]" : "");
  const Tensor c_init = mode == "LSTM" ? state(c0, "[1]") : Tensor();
  auto [out, h, c] = run_layers(padded, h_init, c_init, lengths);
  utils::rnn::PackedSequence packed = utils::rnn::pack_padded_sequence(out, len);
  packed.sorted_indices = input.sorted_indices;
  packed.unsorted_indices = input.unsorted_indices;
  if (input.unsorted_indices.defined()) {
    h = index_select(h, 1, input.unsorted_indices);
    if (c.defined()) c = index_select(c, 1, input.unsorted_indices);
  }
  return {packed, h, c};
}

// ---- the three layers ---------------------------------------------------------------------

namespace {
std::string rnn_mode(const RNNOptions& o) {
  KINDLING_CHECK_AS(ValueError, o.nonlinearity == "tanh" || o.nonlinearity == "relu", "Unknown nonlinearity '",
                    o.nonlinearity, "'. Select from 'tanh' or 'relu'.");
  return o.nonlinearity == "tanh" ? "RNN_TANH" : "RNN_RELU";
}
}  // namespace

RNN::RNN(std::int64_t in, std::int64_t hidden, RNNOptions o) : RNNBase(rnn_mode(o), in, hidden, o) {}

std::tuple<Tensor, Tensor> RNN::forward_with_state(const Tensor& input, const Tensor& hx) {
  auto [out, h, c] = run(input, hx, {});
  return {out, h};
}

std::tuple<utils::rnn::PackedSequence, Tensor> RNN::forward_with_packed_input(const utils::rnn::PackedSequence& input,
                                                                              const Tensor& hx) {
  auto [out, h, c] = run_packed(input, hx, {});
  return {out, h};
}

LSTM::LSTM(std::int64_t in, std::int64_t hidden, RNNOptions o) : RNNBase("LSTM", in, hidden, std::move(o)) {}

std::tuple<Tensor, std::tuple<Tensor, Tensor>> LSTM::forward_with_state(
    const Tensor& input, const std::optional<std::tuple<Tensor, Tensor>>& state) {
  auto [out, h, c] = state ? run(input, std::get<0>(*state), std::get<1>(*state)) : run(input, {}, {});
  return {out, {h, c}};
}

std::tuple<utils::rnn::PackedSequence, std::tuple<Tensor, Tensor>> LSTM::forward_with_packed_input(
    const utils::rnn::PackedSequence& input, const std::optional<std::tuple<Tensor, Tensor>>& state) {
  auto [out, h, c] = state ? run_packed(input, std::get<0>(*state), std::get<1>(*state)) : run_packed(input, {}, {});
  return {out, {h, c}};
}

GRU::GRU(std::int64_t in, std::int64_t hidden, RNNOptions o) : RNNBase("GRU", in, hidden, std::move(o)) {}

std::tuple<Tensor, Tensor> GRU::forward_with_state(const Tensor& input, const Tensor& hx) {
  auto [out, h, c] = run(input, hx, {});
  return {out, h};
}

std::tuple<utils::rnn::PackedSequence, Tensor> GRU::forward_with_packed_input(const utils::rnn::PackedSequence& input,
                                                                              const Tensor& hx) {
  auto [out, h, c] = run_packed(input, hx, {});
  return {out, h};
}

// ---- cells --------------------------------------------------------------------------------

RNNCellBase::RNNCellBase(std::string type_name, std::int64_t in, std::int64_t hidden, bool bias, std::int64_t gates)
    : Module(std::move(type_name)), input_size(in), hidden_size(hidden) {
  KINDLING_CHECK_AS(ValueError, hidden > 0, "hidden_size must be greater than zero");
  weight_ih = register_parameter("weight_ih", empty({gates * hidden, in}));
  weight_hh = register_parameter("weight_hh", empty({gates * hidden, hidden}));
  bias_ih = register_parameter("bias_ih", bias ? empty({gates * hidden}) : Tensor());
  bias_hh = register_parameter("bias_hh", bias ? empty({gates * hidden}) : Tensor());
  const double bound = 1.0 / std::sqrt(static_cast<double>(hidden));
  for (Tensor& p : parameters()) init::uniform_(p, -bound, bound);
}

std::string RNNCellBase::extra_repr() const {
  std::string s = std::to_string(input_size) + ", " + std::to_string(hidden_size);
  if (!bias_ih.defined()) s += ", bias=False";
  return s;
}

namespace {
// The cell's input as (batch, in) and its state as (batch, hidden) (zeros when undefined);
// `batched` false for a 1-d input, whose results lose the batch dimension again.
struct CellInput {
  Tensor x, h, c;
  bool batched;
};
CellInput cell_input(const RNNCellBase& cell, const std::string& name, const Tensor& input, const Tensor& hx,
                     const Tensor& cx) {
  KINDLING_CHECK(input.dim() == 1 || input.dim() == 2, name, ": Expected input to be 1-D or 2-D but received ",
                 input.dim(), "-D tensor");
  const bool batched = input.dim() == 2;
  const Tensor x = batched ? input : input.unsqueeze(0);
  KINDLING_CHECK(x.size(1) == cell.input_size, "input has inconsistent input_size: got ", x.size(1), " expected ",
                 cell.input_size);
  auto state = [&](const Tensor& s) {
    if (!s.defined()) return zeros({x.size(0), cell.hidden_size}, TensorOptions(x.dtype()).device(x.device()));
    const Tensor b = batched ? s : s.unsqueeze(0);
    // PyTorch 1.13 labels both of an LSTM cell's states "hidden0", and compares the batch first
    // (a 1-D state for a batch reads as a batch-size mismatch).
    KINDLING_CHECK(b.dim() >= 1 && b.size(0) == x.size(0), "Input batch size ", x.size(0),
                   " doesn't match hidden0 batch size ", b.dim() >= 1 ? b.size(0) : 0);
    KINDLING_CHECK(b.dim() == 2, "hidden0 must be ", batched ? 2 : 1, "-D, got ", s.dim(), "-D");
    KINDLING_CHECK(b.size(1) == cell.hidden_size, "hidden0 has inconsistent hidden_size: got ", b.size(1),
                   ", expected ", cell.hidden_size);
    return b;
  };
  return {x, state(hx), name == "LSTMCell" ? state(cx) : Tensor(), batched};
}
}  // namespace

RNNCell::RNNCell(std::int64_t in, std::int64_t hidden, bool bias, std::string nl)
    : RNNCellBase("RNNCell", in, hidden, bias, 1), nonlinearity(std::move(nl)) {
  KINDLING_CHECK_AS(ValueError, nonlinearity == "tanh" || nonlinearity == "relu",
                    "Unknown nonlinearity: ", nonlinearity);
}

Tensor RNNCell::forward_with_state(const Tensor& input, const Tensor& hx) {
  const CellInput in = cell_input(*this, "RNNCell", input, hx, {});
  const Tensor h = cell_step(nonlinearity == "relu" ? "RNN_RELU" : "RNN_TANH", affine(in.x, weight_ih, bias_ih), in.h,
                             weight_hh, bias_hh);
  return in.batched ? h : h.squeeze(0);
}

LSTMCell::LSTMCell(std::int64_t in, std::int64_t hidden, bool bias) : RNNCellBase("LSTMCell", in, hidden, bias, 4) {}

std::tuple<Tensor, Tensor> LSTMCell::forward_with_state(const Tensor& input,
                                                        const std::optional<std::tuple<Tensor, Tensor>>& state) {
  const CellInput in = cell_input(*this, "LSTMCell", input, state ? std::get<0>(*state) : Tensor(),
                                  state ? std::get<1>(*state) : Tensor());
  auto [h, c] = functional::lstm_cell(in.x, {in.h, in.c}, weight_ih, weight_hh, bias_ih, bias_hh);
  if (!in.batched) return {h.squeeze(0), c.squeeze(0)};
  return {h, c};
}

GRUCell::GRUCell(std::int64_t in, std::int64_t hidden, bool bias) : RNNCellBase("GRUCell", in, hidden, bias, 3) {}

Tensor GRUCell::forward_with_state(const Tensor& input, const Tensor& hx) {
  const CellInput in = cell_input(*this, "GRUCell", input, hx, {});
  const Tensor h = cell_step("GRU", affine(in.x, weight_ih, bias_ih), in.h, weight_hh, bias_hh);
  return in.batched ? h : h.squeeze(0);
}

// ---- Embedding ----------------------------------------------------------------------------

namespace functional {
Tensor embedding(const Tensor& indices, const Tensor& weight, std::optional<std::int64_t> padding_idx) {
  KINDLING_CHECK(indices.dtype() == kInt64 || indices.dtype() == kInt32,
                 "Expected tensor for argument #1 'indices' to have one of the following scalar types: Long, Int; "
                 "but got ",
                 legacy_type_name(indices.dtype()), " instead (while checking arguments for embedding)");
  KINDLING_CHECK(weight.dim() == 2, "'weight' must be 2-D");
  const Tensor flat = indices.reshape({-1}).to(kInt64);
  Shape out_sizes = indices.sizes().vec();
  out_sizes.push_back(weight.size(1));
  Tensor rows = index_select(weight, 0, flat);
  if (padding_idx) {  // the padding row's value, cut from the graph: it gets no gradient
    const std::int64_t pad = *padding_idx < 0 ? *padding_idx + weight.size(0) : *padding_idx;
    const Tensor fixed = index_select(weight.detach(), 0, flat);
    rows = where(eq(flat, pad).view({-1, 1}), fixed, rows);
  }
  return rows.view(out_sizes);
}
}  // namespace functional

Embedding::Embedding(std::int64_t num, std::int64_t dim, std::optional<std::int64_t> pad)
    : Module("Embedding"), num_embeddings(num), embedding_dim(dim), padding_idx(pad) {
  if (padding_idx) {
    KINDLING_CHECK_AS(ValueError, *padding_idx < num && *padding_idx >= -num,
                      "Padding_idx must be within num_embeddings");
    if (*padding_idx < 0) padding_idx = *padding_idx + num;
  }
  weight = register_parameter("weight", empty({num, dim}));
  init::normal_(weight);
  if (padding_idx) {
    NoGradGuard guard;
    weight.select(0, *padding_idx).fill_(0);
  }
}

Tensor Embedding::forward(const Tensor& indices) { return functional::embedding(indices, weight, padding_idx); }

std::string Embedding::extra_repr() const {
  std::string s = std::to_string(num_embeddings) + ", " + std::to_string(embedding_dim);
  if (padding_idx) s += ", padding_idx=" + std::to_string(*padding_idx);
  return s;
}

}  // namespace kindling::nn
