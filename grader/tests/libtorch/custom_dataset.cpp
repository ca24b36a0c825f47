// In the style of pytorch/examples cpp/custom-dataset, written against <kindling/torch.hpp>: a
// dataset of one's own (the CRTP base torch::data::datasets::Dataset<Self>, get and size),
// mapped and stacked into batches, trains a small classifier. Exits 0 when it fits the data.
#include <kindling/torch.hpp>

#include <cmath>
#include <iostream>
#include <iterator>

// Points in the plane, labelled by which side of the line x = y they fall on.
class TwoSides : public torch::data::datasets::Dataset<TwoSides> {
 public:
  explicit TwoSides(int64_t n) : points_(torch::rand({n, 2}) * 2 - 1) {}
  torch::data::Example<> get(size_t index) override {
    const auto p = points_[static_cast<int64_t>(index)];
    const auto label = (p[0] > p[1]).to(torch::kLong);
    return {p, label};
  }
  torch::optional<size_t> size() const override { return static_cast<size_t>(points_.size(0)); }

 private:
  torch::Tensor points_;
};

struct ScaleBy {  // a transform of one's own, applied to every example
  double factor;
  torch::data::Example<> operator()(torch::data::Example<> e) const {
    e.data = e.data * factor;
    return e;
  }
};

int main() {
  torch::manual_seed(3);
  auto loader = torch::data::make_data_loader(TwoSides(512).map(ScaleBy{2.0}).map(torch::data::transforms::Stack<>()),
                                              torch::data::DataLoaderOptions().batch_size(64).workers(2));
  // A Sequential of holders with a function in the middle (nn::Functional), as LibTorch writes it.
  torch::nn::Sequential model(torch::nn::Linear(2, 8), torch::nn::Functional(torch::relu), torch::nn::Linear(8, 2));
  torch::optim::AdamW optimizer(model->parameters(), torch::optim::AdamWOptions(0.05).weight_decay(1e-3));
  torch::optim::StepLR scheduler(optimizer, /*step_size=*/10, /*gamma=*/0.5);
  double accuracy = 0;
  for (int epoch = 0; epoch < 20; ++epoch) {
    int64_t correct = 0, seen = 0;
    for (auto& batch : *loader) {
      optimizer.zero_grad();
      auto logits = model(batch.data);
      auto loss = torch::nn::CrossEntropyLoss()(logits, batch.target);
      loss.backward();
      optimizer.step();
      correct += logits.argmax(1).eq(batch.target).sum().item<int64_t>();
      seen += batch.data.size(0);
    }
    accuracy = static_cast<double>(correct) / static_cast<double>(seen);
    scheduler.step();
  }
  std::cout << "accuracy in the last epoch: " << accuracy << "; learning rate "
            << optimizer.param_groups()[0].options().get_lr() << "\n";
  const bool halved =
      std::abs(optimizer.param_groups()[0].options().get_lr() - 0.0125) < 1e-12;  // 0.05, halved twice in 20 epochs

  // A new head for three classes, as LibTorch replaces a registered child: replace_module with a
  // holder, and the member assigned the result.
  struct Net : torch::nn::Module {
    torch::nn::Linear fc{nullptr};
    Net() { fc = register_module("fc", torch::nn::Linear(8, 2)); }
  } net;
  net.fc = net.replace_module("fc", torch::nn::Linear(8, 3));
  const bool replaced = net.parameters().size() == 2 && net.parameters()[0].size(0) == 3 &&
                        net.fc->forward(torch::zeros({4, 8})).size(1) == 3;
  std::cout << "replace_module: " << (replaced ? "the new head is in place" : "FAILED") << "\n";

  // A transform of one's own on LibTorch's base class, and Normalize with a value per channel.
  struct Invert : torch::data::transforms::TensorTransform<> {
    torch::Tensor operator()(torch::Tensor input) override { return 1 - input; }
  };
  torch::data::transforms::Normalize<> per_channel({0.5, 0.4, 0.3}, {0.2, 0.25, 0.5});
  auto example = Invert().apply({torch::zeros({3, 2, 2}), torch::tensor(std::vector<int64_t>{1})});
  auto normalized = per_channel(example.data);
  const bool channels = std::abs(normalized[0][1][1].item<double>() - 2.5) < 1e-6 &&  // (1 - 0.5) / 0.2
                        std::abs(normalized[1][0][0].item<double>() - 2.4) < 1e-6 &&  // (1 - 0.4) / 0.25
                        std::abs(normalized[2][1][0].item<double>() - 1.4) < 1e-6;    // (1 - 0.3) / 0.5
  std::cout << "per-channel Normalize: " << (channels ? "each channel its own mean and std" : "FAILED") << "\n";

  // LibTorch's decay idiom: read the group's rate through its options, set half of it, twice.
  torch::optim::SGD sgd(net.parameters(), torch::optim::SGDOptions(0.1).momentum(0.9));
  for (int i = 0; i < 2; ++i) {
    auto& options = static_cast<torch::optim::SGDOptions&>(sgd.param_groups()[0].options());
    options.lr(options.lr() * 0.5);
  }
  torch::optim::SGDOptions copy = static_cast<torch::optim::SGDOptions&>(sgd.param_groups()[0].options());
  copy.lr(1.0);  // a copy is the caller's own: the optimizer keeps its rate
  const bool decayed =
      std::abs(sgd.param_groups()[0].options().get_lr() - 0.025) < 1e-12 &&
      std::abs(static_cast<torch::optim::SGDOptions&>(sgd.param_groups()[0].options()).momentum() - 0.9) < 1e-12;
  std::cout << "lr decayed through param_groups(): " << (decayed ? "0.1 -> 0.025" : "FAILED") << "\n";

  // A Sequential walked as LibTorch walks one: each module an AnyModule with forward<>().
  auto x = torch::ones({1, 2});
  int64_t walked = 0;
  for (auto m : *model) {
    x = m.forward<>(x);
    ++walked;
  }
  const bool iterated = walked == 3 && std::distance(model->begin(), model->end()) == 3 && x.size(1) == 2;
  std::cout << "Sequential iterated: " << (iterated ? "3 modules" : "FAILED") << "\n";

  const bool ok = accuracy > 0.9 && replaced && halved && channels && decayed && iterated;
  std::cout
      << (ok ? "OK"
             : "FAILED: the classifier did not fit, the schedule did not halve the rate twice, the head was "
               "not replaced, Normalize mixed the channels, the rate did not decay, or the Sequential did not iterate")
      << "\n";
  return ok ? 0 : 1;
}
