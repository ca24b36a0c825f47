// In the style of pytorch/examples cpp/dcgan, written against <kindling/torch.hpp>: a small DCGAN
// (a generator of transposed convolutions with batch norm, a convolutional discriminator) takes
// a few steps on the kit's Fashion-MNIST subset, each step a discriminator update on real and
// fake images and a generator update, with Adam and binary cross-entropy. Exits 0 when every
// loss is finite, the generator's images have MNIST's shape and range, and the generator moved.
#include <kindling/torch.hpp>

#include <cmath>
#include <cstdio>
#include <iostream>

namespace {
constexpr int64_t kNoise = 16;

struct GeneratorImpl : torch::nn::Module {
  explicit GeneratorImpl(int64_t noise)
      : conv1(torch::nn::ConvTranspose2dOptions(noise, 32, 7).bias(false)),  // 1 -> 7
        batch_norm1(32),
        conv2(torch::nn::ConvTranspose2dOptions(32, 16, 4).stride(2).padding(1).bias(false)),  // 7 -> 14
        batch_norm2(16),
        conv3(torch::nn::ConvTranspose2dOptions(16, 1, 4).stride(2).padding(1).bias(false)) {  // 14 -> 28
    register_module("conv1", conv1);
    register_module("batch_norm1", batch_norm1);
    register_module("conv2", conv2);
    register_module("batch_norm2", batch_norm2);
    register_module("conv3", conv3);
  }
  torch::Tensor forward(torch::Tensor x) {
    x = torch::relu(batch_norm1(conv1(x)));
    x = torch::relu(batch_norm2(conv2(x)));
    return torch::tanh(conv3(x));
  }
  torch::nn::ConvTranspose2d conv1;
  torch::nn::BatchNorm2d batch_norm1;
  torch::nn::ConvTranspose2d conv2;
  torch::nn::BatchNorm2d batch_norm2;
  torch::nn::ConvTranspose2d conv3;
};
TORCH_MODULE(Generator);

struct DiscriminatorImpl : torch::nn::Module {
  DiscriminatorImpl()
      : conv1(torch::nn::Conv2dOptions(1, 16, 4).stride(2).padding(1).bias(false)),   // 28 -> 14
        conv2(torch::nn::Conv2dOptions(16, 32, 4).stride(2).padding(1).bias(false)),  // 14 -> 7
        conv3(torch::nn::Conv2dOptions(32, 1, 7).bias(false)) {                       // 7 -> 1
    register_module("conv1", conv1);
    register_module("conv2", conv2);
    register_module("conv3", conv3);
  }
  torch::Tensor forward(torch::Tensor x) {
    x = torch::leaky_relu(conv1(x), 0.2);
    x = torch::leaky_relu(conv2(x), 0.2);
    return torch::sigmoid(conv3(x)).view({-1});
  }
  torch::nn::Conv2d conv1, conv2, conv3;
};
TORCH_MODULE(Discriminator);
}  // namespace

int main() {
  torch::manual_seed(1);
  Generator generator(kNoise);
  Discriminator discriminator;
  torch::optim::Adam g_opt(generator->parameters(), torch::optim::AdamOptions(2e-4).betas({0.5, 0.999}));
  torch::optim::Adam d_opt(discriminator->parameters(), torch::optim::AdamOptions(2e-4).betas({0.5, 0.999}));
  const auto before = generator->conv3->weight.clone();

  auto data = torch::data::datasets::MNIST(kindling::data::default_fashion_mnist_root())
                  .map(torch::data::transforms::Normalize<>(0.5, 0.5))
                  .map(torch::data::transforms::Stack<>());
  auto loader = torch::data::make_data_loader(std::move(data), torch::data::DataLoaderOptions().batch_size(32));
  bool finite = true;
  int steps = 0;
  for (auto& batch : *loader) {
    if (++steps > 8) break;
    const int64_t n = batch.data.size(0);
    // The discriminator: real images towards 1, fakes towards 0.
    d_opt.zero_grad();
    auto real_loss = torch::binary_cross_entropy(discriminator(batch.data), torch::full({n}, 0.9));
    auto fake = generator(torch::randn({n, kNoise, 1, 1}));
    auto fake_loss = torch::binary_cross_entropy(discriminator(fake.detach()), torch::zeros({n}));
    (real_loss + fake_loss).backward();
    d_opt.step();
    // The generator: its fakes towards 1.
    g_opt.zero_grad();
    auto g_loss = torch::binary_cross_entropy(discriminator(fake), torch::ones({n}));
    g_loss.backward();
    g_opt.step();
    const float d = (real_loss + fake_loss).item<float>(), g = g_loss.item<float>();
    std::printf("step %d: D loss %.4f, G loss %.4f\n", steps, d, g);
    finite = finite && std::isfinite(d) && std::isfinite(g);
  }
  torch::NoGradGuard no_grad;
  generator->eval();
  const auto samples = generator(torch::randn({4, kNoise, 1, 1}));
  const bool shape_ok = samples.sizes().vec() == std::vector<int64_t>{4, 1, 28, 28};
  const bool range_ok = samples.abs().max().item<float>() <= 1.0f;
  const bool moved = !torch::allclose(before, generator->conv3->weight);
  std::cout << "samples " << kindling::to_string(samples.sizes()) << ", |x| <= 1: " << range_ok
            << ", the generator moved: " << moved << "\n";
  const bool ok = finite && shape_ok && range_ok && moved;
  std::cout << (ok ? "OK" : "FAILED") << "\n";
  return ok ? 0 : 1;
}
