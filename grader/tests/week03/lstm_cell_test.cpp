// Task week03.lstm_cell: one LSTM step (F::lstm_cell), against PyTorch 1.13 on one step and
// through the layers that call it (nn::LSTMCell, a two-layer bidirectional nn::LSTM, an LSTM
// without biases), gradients included.
#include "week03_support.hpp"

using namespace kindling;
using namespace kindling::testing;
namespace F = kindling::nn::functional;

TEST(week03_lstm_cell, OneStepMatchesPyTorchWithEveryGradient) {
  // The oracle's LSTMCell(3, 4): weight_ih, weight_hh, bias_ih, bias_hh filled with ramps.
  nn::LSTMCell cell(3, 4);
  const TensorList p = fill_params(cell);
  const Tensor x = oracle_ramp({2, 3}, 9.0, 1.0), h = oracle_ramp({2, 4}, 11.0, 0.3), c = oracle_ramp({2, 4}, 5.0, 0.6);
  expect_case("lstm_cell",
              [&] {
                auto [h2, c2] = F::lstm_cell(x, {h, c}, p[0], p[1], p[2], p[3]);
                EXPECT_EQ(h2.sizes().vec(), (Shape{2, 4}));
                EXPECT_EQ(c2.sizes().vec(), (Shape{2, 4}));
                return joined({h2, c2});
              },
              {x, h, c, p[0], p[1], p[2], p[3]});
}

TEST(week03_lstm_cell, TheGatesComeInPyTorchsOrder) {
  // No weights, only biases: each gate's pre-activation is its bias block, so the result shows
  // which block is which. i = σ(0) = 0.5, f = σ(-30) ≈ 0, g = tanh(1), o = σ(30) ≈ 1.
  const Tensor w_ih = zeros({4, 1}), w_hh = zeros({4, 1});
  const Tensor b_ih = tensor({0.0F, -30.0F, 1.0F, 30.0F}), b_hh = zeros({4});
  auto [h, c] = F::lstm_cell(ones({1, 1}), {ones({1, 1}), full({1, 1}, 5.0)}, w_ih, w_hh, b_ih, b_hh);
  const double g = std::tanh(1.0);
  EXPECT_NEAR(c.item<double>(), 0.5 * g, 1e-6);             // c' = f c + i g, with f ≈ 0: the old 5 is forgotten
  EXPECT_NEAR(h.item<double>(), std::tanh(0.5 * g), 1e-6);  // h' = o tanh(c'), o ≈ 1
}

TEST(week03_lstm_cell, LayersUnrolledFromYourStepMatchPyTorch) {
  // A two-layer bidirectional LSTM, batch first, with a given state: 20 steps of your cell.
  nn::RNNOptions deep;
  deep.num_layers = 2;
  deep.batch_first = true;
  deep.bidirectional = true;
  nn::LSTM lstm(3, 4, deep);
  TensorList leaves = fill_params(lstm);
  const Tensor x = oracle_ramp({2, 5, 3}, 9.0, 1.0), h0 = oracle_ramp({4, 2, 4}, 11.0, 0.3),
               c0 = oracle_ramp({4, 2, 4}, 5.0, 0.6);
  leaves.insert(leaves.begin(), {x, h0, c0});
  expect_case(
      "lstm_deep",
      [&] {
        auto [out, state] = lstm.forward_with_state(x, std::make_tuple(h0, c0));
        return joined({out, std::get<0>(state), std::get<1>(state)});
      },
      leaves);
}

TEST(week03_lstm_cell, WithoutBiases) {
  nn::RNNOptions no_bias;
  no_bias.bias = false;
  nn::LSTM lstm(3, 4, no_bias);
  TensorList leaves = fill_params(lstm);
  const Tensor x = oracle_ramp({5, 3}, 9.0, 1.0), h0 = oracle_ramp({1, 4}, 11.0, 0.3),
               c0 = oracle_ramp({1, 4}, 5.0, 0.6);
  leaves.insert(leaves.begin(), {x, h0, c0});
  expect_case(
      "lstm_unbatched_nobias",
      [&] {
        auto [out, state] = lstm.forward_with_state(x, std::make_tuple(h0, c0));
        return joined({out, std::get<0>(state), std::get<1>(state)});
      },
      leaves);
}

TEST(week03_lstm_cell, GradcheckOfEveryInput) {
  manual_seed(4);
  const auto r = [](const Shape& s) {
    Tensor t = randn(s, kFloat64);
    t.requires_grad_();
    return t;
  };
  EXPECT_TRUE(autograd::gradcheck(
      [](const TensorList& v) {
        auto [h, c] = F::lstm_cell(v[0], {v[1], v[2]}, v[3], v[4], v[5], v[6]);
        return joined({h, c});
      },
      {r({2, 3}), r({2, 2}), r({2, 2}), r({8, 3}), r({8, 2}), r({8}), r({8})}));
}
