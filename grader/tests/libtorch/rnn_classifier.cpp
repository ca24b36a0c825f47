// In the style of the LibTorch tutorials' recurrent classifier, written against
// <kindling/torch.hpp>: each Fashion-MNIST image is read as a sequence of 28 rows by a two-layer
// LSTM (torch::nn::LSTMOptions(...).num_layers(2).batch_first(true)); the last step's output,
// taken with x.index({Slice(), -1}), goes to a linear layer. Trains three epochs on the kit's
// subset and exits 0 when the loss fell and the test accuracy beats chance by far (> 0.5).
#include <kindling/torch.hpp>

#include <cstdio>
#include <iostream>

using torch::indexing::Slice;

struct RNNImpl : torch::nn::Module {
  RNNImpl(int64_t input_size, int64_t hidden_size, int64_t num_layers, int64_t num_classes)
      : lstm(torch::nn::LSTMOptions(input_size, hidden_size).num_layers(num_layers).batch_first(true)),
        fc(hidden_size, num_classes) {
    register_module("lstm", lstm);
    register_module("fc", fc);
  }
  torch::Tensor forward(torch::Tensor x) {
    auto out = std::get<0>(lstm->forward(x)).index({Slice(), -1});  // (batch, hidden): the last step
    return fc->forward(out);
  }
  torch::nn::LSTM lstm;
  torch::nn::Linear fc;
};
TORCH_MODULE(RNN);

int main(int argc, char** argv) {
  const std::string root = argc > 1 ? argv[1] : kindling::data::default_fashion_mnist_root();
  torch::manual_seed(1);
  const int64_t sequence_length = 28, input_size = 28;
  RNN model(input_size, 48, 2, 10);
  std::cout << model << "\n";

  auto train_set = torch::data::datasets::MNIST(root)
                       .map(torch::data::transforms::Normalize<>(0.2860, 0.3530))
                       .map(torch::data::transforms::Stack<>());
  auto train_loader = torch::data::make_data_loader<torch::data::samplers::RandomSampler>(std::move(train_set), 50);
  auto test_set = torch::data::datasets::MNIST(root, torch::data::datasets::MNIST::Mode::kTest)
                      .map(torch::data::transforms::Normalize<>(0.2860, 0.3530))
                      .map(torch::data::transforms::Stack<>());
  const size_t test_size = test_set.size().value();
  auto test_loader = torch::data::make_data_loader<torch::data::samplers::SequentialSampler>(std::move(test_set), 250);

  torch::optim::Adam optimizer(model->parameters(), torch::optim::AdamOptions(0.005));
  double first_loss = -1, last_loss = 0;
  for (int epoch = 1; epoch <= 3; ++epoch) {
    double sum = 0;
    size_t batches = 0;
    for (auto& batch : *train_loader) {
      auto data = batch.data.view({-1, sequence_length, input_size});
      auto output = model->forward(data);
      auto loss = torch::nn::functional::cross_entropy(output, batch.target);
      optimizer.zero_grad();
      loss.backward();
      optimizer.step();
      sum += loss.item<double>();
      ++batches;
    }
    last_loss = sum / static_cast<double>(batches);
    if (first_loss < 0) first_loss = last_loss;
    std::printf("epoch %d: mean loss %.4f\n", epoch, last_loss);
  }

  torch::NoGradGuard no_grad;
  int64_t correct = 0;
  for (const auto& batch : *test_loader) {
    auto output = model->forward(batch.data.view({-1, sequence_length, input_size}));
    correct += output.argmax(1).eq(batch.target).sum().item<int64_t>();
  }
  const double accuracy = static_cast<double>(correct) / static_cast<double>(test_size);
  std::printf("test accuracy %.3f\n", accuracy);
  const bool ok = last_loss < first_loss && accuracy > 0.5;
  std::cout << (ok ? "OK" : "FAILED: the LSTM did not learn") << "\n";
  return ok ? 0 : 1;
}
