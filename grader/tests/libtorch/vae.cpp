// In the style of the LibTorch tutorials' variational autoencoder, written against
// <kindling/torch.hpp>: an encoder to a mean and a log-variance, the reparameterisation
// (std = log_var.div(2).exp_(), z = mu + eps * std), a decoder back to pixels, and the loss
// binary_cross_entropy(..., BinaryCrossEntropyFuncOptions().reduction(torch::kSum)) plus the
// KL divergence. Trains on the kit's Fashion-MNIST subset; exits 0 when the loss per image fell
// by a third and samples from the prior are images in [0, 1].
#include <kindling/torch.hpp>

#include <cstdio>
#include <iostream>

struct VAEOutput {
  torch::Tensor reconstruction, mu, log_var;
};

class VAEImpl : public torch::nn::Module {
 public:
  VAEImpl(int64_t image_size, int64_t h_dim, int64_t z_dim)
      : fc1(image_size, h_dim), fc2(h_dim, z_dim), fc3(h_dim, z_dim), fc4(z_dim, h_dim), fc5(h_dim, image_size) {
    register_module("fc1", fc1);
    register_module("fc2", fc2);
    register_module("fc3", fc3);
    register_module("fc4", fc4);
    register_module("fc5", fc5);
  }
  std::pair<torch::Tensor, torch::Tensor> encode(torch::Tensor x) {
    auto h = torch::nn::functional::relu(fc1->forward(x));
    return {fc2->forward(h), fc3->forward(h)};
  }
  torch::Tensor reparameterize(torch::Tensor mu, torch::Tensor log_var) {
    if (!is_training()) return mu;
    auto std = log_var.div(2).exp_();
    auto eps = torch::randn_like(std);
    return eps.mul(std).add_(mu);
  }
  torch::Tensor decode(torch::Tensor z) {
    auto h = torch::nn::functional::relu(fc4->forward(z));
    return torch::sigmoid(fc5->forward(h));
  }
  VAEOutput forward(torch::Tensor x) {
    auto [mu, log_var] = encode(x);
    auto z = reparameterize(mu, log_var);
    return {decode(z), mu, log_var};
  }

 private:
  torch::nn::Linear fc1, fc2, fc3, fc4, fc5;
};
TORCH_MODULE(VAE);

int main(int argc, char** argv) {
  const std::string root = argc > 1 ? argv[1] : kindling::data::default_fashion_mnist_root();
  torch::manual_seed(3);
  const int64_t image_size = 784, z_dim = 16;
  VAE model(image_size, 200, z_dim);
  auto dataset = torch::data::datasets::MNIST(root).map(torch::data::transforms::Stack<>());
  const auto num_samples = static_cast<double>(dataset.size().value());
  auto loader = torch::data::make_data_loader<torch::data::samplers::RandomSampler>(std::move(dataset), 100);
  torch::optim::Adam optimizer(model->parameters(), torch::optim::AdamOptions(1e-3));

  double first = -1, last = 0;
  for (int epoch = 1; epoch <= 8; ++epoch) {
    double total = 0;
    for (auto& batch : *loader) {
      auto images = batch.data.reshape({-1, image_size});
      auto output = model->forward(images);
      auto reconstruction_loss = torch::nn::functional::binary_cross_entropy(
          output.reconstruction, images, torch::nn::functional::BinaryCrossEntropyFuncOptions().reduction(torch::kSum));
      auto kl_divergence = -0.5 * torch::sum(1 + output.log_var - output.mu.pow(2) - output.log_var.exp());
      auto loss = reconstruction_loss + kl_divergence;
      optimizer.zero_grad();
      loss.backward();
      optimizer.step();
      total += loss.item<double>();
    }
    last = total / num_samples;
    if (first < 0) first = last;
    std::printf("epoch %d: loss per image %.2f\n", epoch, last);
  }

  torch::NoGradGuard no_grad;
  model->eval();
  auto samples = model->decode(torch::randn({8, z_dim})).view({-1, 1, 28, 28});
  const bool in_range = samples.min().item<double>() >= 0 && samples.max().item<double>() <= 1;
  std::cout << "samples " << samples.sizes() << ", in [0, 1]: " << (in_range ? "yes" : "no") << "\n";
  const bool ok = last < first * 2 / 3 && in_range;
  std::cout << (ok ? "OK" : "FAILED: the autoencoder did not learn") << "\n";
  return ok ? 0 : 1;
}
