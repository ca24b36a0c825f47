// MUTANT: adds the cell candidate to the kept state without the input gate
// Task week03.lstm_cell. The doc comment above each function is its contract; your code
// goes between BEGIN and END. Hints, one at a time: `./grade hint week03.lstm_cell`.
//
// nn::LSTMCell and every step of nn::LSTM (src/recurrent.cpp) call this function: write it
// from recorded operations (products, sums, sigmoid, tanh, chunk) and autograd unrolls the
// layer's loop into one graph, with every step's gradient reaching the same weights.

#include <kindling/error.hpp>  // KINDLING_TODO, which the worksheet's stubs call
#include <kindling/join.hpp>
#include <kindling/linalg.hpp>
#include <kindling/ops.hpp>
#include <kindling/recurrent.hpp>

namespace kindling::nn::functional {

/// One step of an LSTM (torch.lstm_cell, what nn.LSTMCell computes), for a batch:
/// `input` (batch, in), `hx` = (h, c) each (batch, hidden), `w_ih` (4·hidden, in), `w_hh`
/// (4·hidden, hidden), `b_ih` and `b_hh` (4·hidden) or both undefined (bias=False).
///
///   gates = input w_ihᵀ + b_ih + h w_hhᵀ + b_hh           (batch, 4·hidden)
///   i, f, g, o = the four blocks of `hidden` columns of gates, in this order
///   i = σ(i), f = σ(f), g = tanh(g), o = σ(o)              (σ: the sigmoid)
///   c' = f · c + i · g        h' = o · tanh(c')            (elementwise)
///
/// Returns (h', c'), each (batch, hidden). Every operation is a recorded one, so gradients
/// reach all six inputs. Shapes are the caller's to check (nn::LSTMCell checks them).
std::tuple<Tensor, Tensor> lstm_cell(const Tensor& input, const std::tuple<Tensor, Tensor>& hx, const Tensor& w_ih,
                                     const Tensor& w_hh, const Tensor& b_ih, const Tensor& b_hh) {
  // BEGIN SOLUTION week03.lstm_cell
  const auto& [h, c] = hx;
  Tensor gates = matmul(input, w_ih.t()) + matmul(h, w_hh.t());
  if (b_ih.defined()) gates = gates + b_ih + b_hh;
  const std::vector<Tensor> g = chunk(gates, 4, 1);
  const Tensor in_gate = sigmoid(g[0]), forget_gate = sigmoid(g[1]), cell_gate = tanh(g[2]), out_gate = sigmoid(g[3]);
  const Tensor c_next = forget_gate * c + cell_gate;
  return {out_gate * tanh(c_next), c_next};
  // END SOLUTION
}

}  // namespace kindling::nn::functional
