// The given engine (not graded): recurrent layers (RNN, LSTM, GRU, their cells, packed
// sequences), Embedding and cumsum against PyTorch 1.13, and gradcheck of each layer.
#include <cmath>
#include <functional>

#include "oracle_json.hpp"
#include "week03_support.hpp"

using namespace kindling;
using namespace kindling::testing;
namespace F = kindling::nn::functional;
namespace rnn = kindling::nn::utils::rnn;

namespace {

struct RnnCase {
  std::string name;
  std::function<std::shared_ptr<nn::RNNBase>()> make;
  Shape x;
  bool with_state;
};

nn::RNNOptions layers(std::int64_t n, bool batch_first, bool bidirectional) {
  nn::RNNOptions o;
  o.num_layers = n;
  o.batch_first = batch_first;
  o.bidirectional = bidirectional;
  return o;
}

// The layer's output and state, joined as the oracle joins them.
Tensor run_layer(nn::RNNBase& layer, const Tensor& x, const Tensor& h0, const Tensor& c0) {
  if (auto* lstm = dynamic_cast<nn::LSTM*>(&layer)) {
    auto [out, state] =
        h0.defined() ? lstm->forward_with_state(x, std::make_tuple(h0, c0)) : lstm->forward_with_state(x);
    return joined({out, std::get<0>(state), std::get<1>(state)});
  }
  auto [out, h] = dynamic_cast<nn::GRU*>(&layer) ? dynamic_cast<nn::GRU&>(layer).forward_with_state(x, h0)
                                                 : dynamic_cast<nn::RNN&>(layer).forward_with_state(x, h0);
  return joined({out, h});
}

}  // namespace

TEST(EngineRecurrent, LayersMatchPyTorchForwardAndEveryGradient) {
  nn::RNNOptions no_bias;
  no_bias.bias = false;
  nn::RNNOptions relu_first = layers(1, true, false);
  relu_first.nonlinearity = "relu";
  const std::vector<RnnCase> cases = {
      {"lstm_basic", [] { return std::make_shared<nn::LSTM>(3, 4); }, {5, 2, 3}, false},
      {"lstm_deep", [] { return std::make_shared<nn::LSTM>(3, 4, layers(2, true, true)); }, {2, 5, 3}, true},
      {"lstm_unbatched_nobias", [=] { return std::make_shared<nn::LSTM>(3, 4, no_bias); }, {5, 3}, true},
      {"gru_basic", [] { return std::make_shared<nn::GRU>(3, 4); }, {4, 2, 3}, true},
      {"gru_deep", [] { return std::make_shared<nn::GRU>(3, 5, layers(2, false, true)); }, {4, 3, 3}, false},
      {"rnn_tanh_deep", [] { return std::make_shared<nn::RNN>(3, 4, layers(2, false, false)); }, {4, 2, 3}, true},
      {"rnn_relu_batch_first", [=] { return std::make_shared<nn::RNN>(3, 4, relu_first); }, {2, 4, 3}, false},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    auto layer = c.make();
    EXPECT_EQ(param_names(*layer), oracle_strings(c.name, "names"));
    const TensorList params = fill_params(*layer);
    const Tensor x = oracle_ramp(c.x, 9.0, 1.0);
    TensorList leaves;
    leaves.push_back(x);
    Tensor h0, c0;
    if (c.with_state) {
      const nn::RNNOptions& o = layer->options;
      const bool batched = c.x.size() == 3;
      const std::int64_t d = (o.bidirectional ? 2 : 1) * o.num_layers;
      const Shape s =
          batched ? Shape{d, o.batch_first ? c.x[0] : c.x[1], layer->hidden_size} : Shape{d, layer->hidden_size};
      h0 = oracle_ramp(s, 11.0, 0.3);
      leaves.push_back(h0);
      if (layer->mode == "LSTM") {
        c0 = oracle_ramp(s, 5.0, 0.6);
        leaves.push_back(c0);
      }
    }
    leaves.insert(leaves.end(), params.begin(), params.end());
    expect_case(
        c.name, [&] { return run_layer(*layer, x, h0, c0); }, leaves);
  }
}

TEST(EngineRecurrent, CellsMatchPyTorch) {
  {
    nn::LSTMCell cell(3, 4);
    const TensorList p = fill_params(cell);
    const Tensor x = oracle_ramp({2, 3}, 9.0, 1.0), h = oracle_ramp({2, 4}, 11.0, 0.3),
                 c = oracle_ramp({2, 4}, 5.0, 0.6);
    expect_case("lstm_cell",
                [&] {
                  auto [h2, c2] = cell.forward_with_state(x, std::make_tuple(h, c));
                  return joined({h2, c2});
                },
                {x, h, c, p[0], p[1], p[2], p[3]});
  }
  {
    nn::GRUCell cell(3, 4);
    const TensorList p = fill_params(cell);
    const Tensor x = oracle_ramp({2, 3}, 9.0, 1.0), h = oracle_ramp({2, 4}, 11.0, 0.3);
    expect_case("gru_cell", [&] { return cell.forward_with_state(x, h); }, {x, h, p[0], p[1], p[2], p[3]});
  }
  {
    nn::RNNCell cell(3, 4, true, "relu");
    const TensorList p = fill_params(cell);
    const Tensor x = oracle_ramp({3}, 9.0, 1.0), h = oracle_ramp({4}, 11.0, 0.3);
    expect_case("rnn_cell_unbatched", [&] { return cell.forward_with_state(x, h); }, {x, h, p[0], p[1], p[2], p[3]});
  }
}

TEST(EngineRecurrent, PackedSequencesStopEachRowAtItsOwnLength) {
  nn::LSTM lstm(3, 4, layers(1, false, true));
  TensorList leaves = fill_params(lstm);
  const Tensor x = oracle_ramp({5, 3, 3}, 9.0, 1.0);
  leaves.insert(leaves.begin(), x);
  expect_case(
      "lstm_packed",
      [&] {
        const rnn::PackedSequence packed =
            rnn::pack_padded_sequence(x, tensor(std::vector<std::int64_t>{3, 5, 2}), false, /*enforce_sorted=*/false);
        EXPECT_EQ(packed.batch_sizes.to_vector<std::int64_t>(), oracle_int_rows("lstm_packed_meta", "batch_sizes")[0]);
        EXPECT_EQ(packed.sorted_indices.to_vector<std::int64_t>(),
                  oracle_int_rows("lstm_packed_meta", "sorted_indices")[0]);
        auto [out, state] = lstm.forward_with_packed_input(packed);
        auto [padded, lengths] = rnn::pad_packed_sequence(out);
        EXPECT_EQ(lengths.to_vector<std::int64_t>(), oracle_int_rows("lstm_packed_meta", "lengths")[0]);
        return joined({padded, std::get<0>(state), std::get<1>(state)});
      },
      leaves);
  expect_oracle_error(
      [] {
        rnn::pack_padded_sequence(zeros({5, 3, 2}), tensor(std::vector<std::int64_t>{3, 5, 2}));
      },
      "pack_not_sorted");
}

TEST(EngineRecurrent, EmbeddingAndCumsumMatchPyTorch) {
  const Tensor idx = tensor(std::vector<std::int64_t>{1, 2, 4, 4, 3, 9}).view({2, 3});
  const Tensor w = oracle_ramp({10, 3}, 4.0, 1.0);
  expect_case("embedding", [&] { return F::embedding(idx, w); }, {w});
  const Tensor w2 = oracle_ramp({10, 3}, 4.0, 1.0);
  expect_case("embedding_padding", [&] { return F::embedding(idx, w2, 4); }, {w2});
  expect_oracle_error([&] { F::embedding(zeros({2}), w); }, "embedding_float_indices");
  expect_oracle_error([&] { F::embedding(tensor(std::vector<std::int64_t>{10}), w); }, "embedding_out_of_range");
  nn::Embedding table(10, 3, 0);
  EXPECT_EQ(table.repr(), oracle_string("rnn_reprs", "embedding"));
  EXPECT_EQ(table.weight[0].abs().sum().item<double>(), 0.0);  // the padding row starts at zero
  EXPECT_EQ(table(idx).sizes().vec(), (Shape{2, 3, 3}));

  const Tensor c1 = oracle_ramp({3, 4});
  expect_case("cumsum_dim1", [&] { return cumsum(c1, 1); }, {c1});
  const Tensor c0 = oracle_ramp({3, 4});
  expect_case("cumsum_dim0", [&] { return c0.cumsum(0); }, {c0});
  expect_values(cumsum(tensor(std::vector<std::int32_t>{1, 2, 3, 4, 5, 6}).view({2, 3}), 1),
                oracle_values("cumsum_int", "out"));
  EXPECT_EQ(cumsum(oracle_ramp({3, 4}), 0).grad_fn()->name(), oracle_string("cumsum_name", "name"));
}

TEST(EngineRecurrent, BadInputGetsPyTorchsErrors) {
  expect_oracle_error([] { nn::LSTM(3, 4).forward_with_state(zeros({5, 2, 6})); }, "lstm_wrong_input_size");
  expect_oracle_error([] { nn::LSTM(3, 4).forward_with_state(zeros({5, 2, 3, 1})); }, "lstm_wrong_dims");
  expect_oracle_error([] { nn::GRU(3, 4).forward_with_state(zeros({5, 2, 3, 1})); }, "gru_wrong_dims");
  expect_oracle_error([] { nn::RNN(3, 4).forward_with_state(zeros({5})); }, "rnn_wrong_dims");
  expect_oracle_error(
      [] {
        nn::LSTM(3, 4, {.num_layers = 2})
            .forward_with_state(zeros({5, 2, 3}), std::make_tuple(zeros({1, 2, 4}), zeros({2, 2, 4})));
      },
      "lstm_wrong_hidden");
  expect_oracle_error([] { nn::GRU(3, 4).forward_with_state(zeros({5, 2, 3}), zeros({1, 3, 4})); }, "gru_wrong_hidden");
  expect_oracle_error([] { nn::LSTMCell(3, 4).forward_with_state(zeros({2, 5})); }, "lstm_cell_wrong_input");
  expect_oracle_error([] { nn::GRUCell(3, 4).forward_with_state(zeros({2, 2, 3}), {}); }, "gru_cell_wrong_dims");
  expect_oracle_error(
      [] {
        nn::RNNCell(3, 4).forward_with_state(zeros({2, 3}), zeros({3, 4}));
      },
      "rnn_cell_wrong_hidden");
  // States of the wrong rank, an LSTM's two checked together; an LSTM cell's states both read "hidden0".
  const auto& e = oracle_json("rnn_state_errors");
  const auto lstm = [](const Tensor& x, const Tensor& h, const Tensor& c) {
    nn::LSTM(3, 4).forward_with_state(x, std::make_tuple(h, c));
  };
  expect_error_json([&] { lstm(zeros({5, 2, 3}), zeros({2, 4}), zeros({1, 2, 4})); }, e.at("lstm_hx_2d"));
  expect_error_json([&] { lstm(zeros({5, 2, 3}), zeros({2, 4}), zeros({2, 4})); }, e.at("lstm_both_2d"));
  expect_error_json([&] { lstm(zeros({5, 3}), zeros({1, 1, 4}), zeros({1, 1, 4})); }, e.at("lstm_unbatched_3d"));
  expect_error_json([] { nn::GRU(3, 4).forward_with_state(zeros({5, 2, 3}), zeros({2, 4})); }, e.at("gru_hx_2d"));
  expect_error_json(
      [] {
        nn::LSTMCell(3, 4).forward_with_state(zeros({2, 3}), std::make_tuple(zeros({2, 4}), zeros({3, 4})));
      },
      e.at("lstm_cell_cx_batch"));
  expect_error_json(
      [] {
        nn::LSTMCell(3, 4).forward_with_state(zeros({2, 3}), std::make_tuple(zeros({4}), zeros({2, 4})));
      },
      e.at("lstm_cell_hx_1d"));
}

TEST(EngineRecurrent, ReprsAndParameterLayoutArePyTorchs) {
  EXPECT_EQ(nn::LSTM(10, 20, layers(2, true, true)).repr(), oracle_string("rnn_reprs", "lstm"));
  nn::RNNOptions gru_options = layers(2, false, false);
  gru_options.bias = false;
  gru_options.dropout = 0.5;
  EXPECT_EQ(nn::GRU(3, 4, gru_options).repr(), oracle_string("rnn_reprs", "gru"));
  nn::RNNOptions relu;
  relu.nonlinearity = "relu";
  EXPECT_EQ(nn::RNN(3, 4, relu).repr(), oracle_string("rnn_reprs", "rnn"));
  EXPECT_EQ(nn::LSTMCell(3, 4).repr(), oracle_string("rnn_reprs", "lstm_cell"));
  EXPECT_EQ(nn::GRUCell(3, 4, false).repr(), oracle_string("rnn_reprs", "gru_cell"));
  nn::LSTM deep(3, 4, layers(2, false, true));
  EXPECT_EQ(param_names(deep), oracle_strings("lstm_parameters", "names"));
  std::vector<std::vector<std::int64_t>> shapes;
  for (auto& [name, p] : deep.named_parameters()) shapes.push_back(p.sizes().vec());
  EXPECT_EQ(shapes, oracle_int_rows("lstm_parameters", "shapes"));
  // PyTorch's initialisation: every parameter within 1 / sqrt(hidden).
  for (auto& [name, p] : deep.named_parameters()) EXPECT_LE(p.abs().max().item<double>(), 0.5 + 1e-6) << name;
}

TEST(EngineRecurrent, GradcheckOfEachLayer) {
  manual_seed(1);
  const auto r = [](const Shape& s) {
    Tensor t = randn(s, kFloat64);
    t.requires_grad_();
    return t;
  };
  auto lstm = std::make_shared<nn::LSTM>(2, 3, layers(2, false, true));
  lstm->to(kFloat64);
  EXPECT_TRUE(autograd::gradcheck(
      [&](const TensorList& v) {
        auto [out, state] = lstm->forward_with_state(v[0], std::make_tuple(v[1], v[2]));
        return joined({out, std::get<0>(state), std::get<1>(state)});
      },
      {r({3, 2, 2}), r({4, 2, 3}), r({4, 2, 3})}));
  auto gru = std::make_shared<nn::GRU>(2, 3, layers(1, true, false));
  gru->to(kFloat64);
  EXPECT_TRUE(autograd::gradcheck(
      [&](const TensorList& v) {
        auto [out, h] = gru->forward_with_state(v[0], v[1]);
        return joined({out, h});
      },
      {r({2, 3, 2}), r({1, 2, 3})}));
  auto rnn_layer = std::make_shared<nn::RNN>(2, 3);
  rnn_layer->to(kFloat64);
  EXPECT_TRUE(autograd::gradcheck([&](const TensorList& v) { return std::get<0>(rnn_layer->forward_with_state(v[0])); },
                                  {r({3, 1, 2})}));
  nn::LSTMCell cell(2, 3);
  cell.to(kFloat64);
  EXPECT_TRUE(autograd::gradcheck(
      [&](const TensorList& v) {
        auto [h, c] = cell.forward_with_state(v[0], std::make_tuple(v[1], v[2]));
        return joined({h, c});
      },
      {r({2, 2}), r({2, 3}), r({2, 3})}));
  EXPECT_TRUE(autograd::gradcheck([](const TensorList& v) { return cumsum(v[0], 1); }, {r({2, 4})}));
}
