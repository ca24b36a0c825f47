// In the style of pytorch/examples cpp/mnist, written against <kindling/torch.hpp>: a small CNN
// (two convolutions, max-pooling, channel dropout, two linear layers) on the kit's Fashion-MNIST
// subset, through torch::data (MNIST, Normalize, Stack, make_data_loader). Trains five epochs
// and exits 0 when the loss fell and the test accuracy beats chance by far (> 0.5).
#include <kindling/torch.hpp>

#include <cstdio>
#include <iostream>

struct Net : torch::nn::Module {
  Net()
      : conv1(torch::nn::Conv2dOptions(1, 10, /*kernel_size=*/5)),
        conv2(torch::nn::Conv2dOptions(10, 20, /*kernel_size=*/5)),
        fc1(320, 50),
        fc2(50, 10) {
    register_module("conv1", conv1);
    register_module("conv2", conv2);
    register_module("conv2_drop", conv2_drop);
    register_module("fc1", fc1);
    register_module("fc2", fc2);
  }

  torch::Tensor forward(torch::Tensor x) {
    x = torch::relu(torch::max_pool2d(conv1->forward(x), 2));
    x = torch::relu(torch::max_pool2d(conv2_drop->forward(conv2->forward(x)), 2));
    x = x.view({-1, 320});
    x = torch::relu(fc1->forward(x));
    x = torch::dropout(x, /*p=*/0.5, /*training=*/is_training());
    return torch::log_softmax(fc2->forward(x), /*dim=*/1);
  }

  torch::nn::Conv2d conv1;
  torch::nn::Conv2d conv2;
  torch::nn::Dropout2d conv2_drop;
  torch::nn::Linear fc1;
  torch::nn::Linear fc2;
};

int main(int argc, char** argv) {
  const std::string root = argc > 1 ? argv[1] : kindling::data::default_fashion_mnist_root();
  torch::manual_seed(1);
  torch::Device device(torch::cuda::is_available() ? torch::kCUDA : torch::kCPU);
  Net model;
  model.to(device);

  auto train_set = torch::data::datasets::MNIST(root)
                       .map(torch::data::transforms::Normalize<>(0.2860, 0.3530))
                       .map(torch::data::transforms::Stack<>());
  const size_t train_size = train_set.size().value();
  auto train_loader = torch::data::make_data_loader<torch::data::samplers::RandomSampler>(std::move(train_set), 32);
  auto test_set = torch::data::datasets::MNIST(root, torch::data::datasets::MNIST::Mode::kTest)
                      .map(torch::data::transforms::Normalize<>(0.2860, 0.3530))
                      .map(torch::data::transforms::Stack<>());
  const size_t test_size = test_set.size().value();
  auto test_loader = torch::data::make_data_loader(std::move(test_set), 250);

  torch::optim::SGD optimizer(model.parameters(), torch::optim::SGDOptions(0.05).momentum(0.5));
  double first_loss = -1, last_loss = 0;
  for (int epoch = 1; epoch <= 5; ++epoch) {
    model.train();
    double sum = 0;
    size_t batches = 0;
    for (auto& batch : *train_loader) {
      auto data = batch.data.to(device), targets = batch.target.to(device);
      optimizer.zero_grad();
      auto loss = torch::nll_loss(model.forward(data), targets);
      AT_ASSERT(!std::isnan(loss.template item<float>()));
      loss.backward();
      optimizer.step();
      sum += loss.template item<float>();
      ++batches;
    }
    last_loss = sum / static_cast<double>(batches);
    if (first_loss < 0) first_loss = last_loss;
    std::printf("epoch %d: mean loss %.4f over %zu examples\n", epoch, last_loss, train_size);
  }

  torch::NoGradGuard no_grad;
  model.eval();
  double test_loss = 0;
  int64_t correct = 0;
  for (const auto& batch : *test_loader) {
    auto output = model.forward(batch.data.to(device));
    auto targets = batch.target.to(device);
    test_loss += torch::nll_loss(output, targets, /*weight=*/{}, Reduction::Sum).template item<float>();
    correct += output.argmax(1).eq(targets).sum().template item<int64_t>();
  }
  const double accuracy = static_cast<double>(correct) / static_cast<double>(test_size);
  std::printf("test: mean loss %.4f, accuracy %.3f\n", test_loss / static_cast<double>(test_size), accuracy);
  const bool ok = last_loss < first_loss && accuracy > 0.5;
  std::cout << (ok ? "OK" : "FAILED: the model did not learn") << "\n";
  return ok ? 0 : 1;
}
