// In the style of pytorch/examples cpp/regression, written against <kindling/torch.hpp> exactly
// as LibTorch code is written: fit a polynomial with one Linear layer and SGD. Exits 0 when the
// learned coefficients are within 0.05 of the true ones.
#include <kindling/torch.hpp>

#include <cmath>
#include <iostream>
#include <vector>

namespace {
constexpr int64_t kDegree = 3;

// Columns x, x^2, ..., x^kDegree.
torch::Tensor features(const torch::Tensor& x) {
  std::vector<torch::Tensor> columns;
  for (int64_t p = 1; p <= kDegree; ++p) columns.push_back(x.unsqueeze(1).pow(p));
  return torch::cat(columns, 1);
}
}  // namespace

int main() {
  torch::manual_seed(7);
  const auto true_w = torch::tensor({0.5, -1.5, 2.0}, torch::kFloat).view({kDegree, 1});
  const float true_b = 0.25f;

  torch::nn::Linear model(kDegree, 1);
  torch::optim::SGD optimizer(model->parameters(), torch::optim::SGDOptions(0.1).momentum(0.9));

  float loss_value = 0;
  int64_t step = 0;
  for (; step < 2000; ++step) {
    const auto x = features(torch::rand({64}) * 2 - 1);
    const auto y = x.mm(true_w) + true_b;
    optimizer.zero_grad();
    auto loss = torch::smooth_l1_loss(model(x), y);
    loss.backward();
    optimizer.step();
    loss_value = loss.item<float>();
    if (loss_value < 1e-6f) break;
  }
  const auto w = model->weight.view({-1});
  std::cout << "loss " << loss_value << " after " << step << " steps\n";
  std::cout << "learned: " << w << " + " << model->bias.item<float>() << "\n";
  const bool close =
      (w - true_w.view({-1})).abs().max().item<float>() < 0.05f && std::abs(model->bias.item<float>() - true_b) < 0.05f;
  std::cout << (close ? "OK" : "FAILED: the coefficients are off") << "\n";
  return close ? 0 : 1;
}
