// Week 5's epoch function: the loop's statistics, eval mode without a graph, the
// step budget, and a real model reaching a set accuracy on the shipped
// Fashion-MNIST subset within that budget.

#include <cmath>

#include <gtest/gtest.h>
#include <kindling/data.hpp>
#include <kindling/kindling.hpp>
#include <kindling/nn.hpp>
#include <kindling/training.hpp>

#include "testing.hpp"

using namespace kindling;
using namespace kindling::testing;

namespace {

// Records the modes it ran in; otherwise a Linear layer.
struct Probe : nn::Module {
  Probe() : Module("Probe") { fc = register_module("fc", std::make_shared<nn::Linear>(2, 3)); }
  Tensor forward(const Tensor& x) override {
    grad_modes.push_back(GradMode::is_enabled());
    training_modes.push_back(is_training());
    return (*fc)(x);
  }
  std::shared_ptr<nn::Linear> fc;
  std::vector<bool> grad_modes, training_modes;
};

// 10 examples of 2 features with labels 0, 1, 2, 0, 1, ...
std::shared_ptr<data::TensorDataset> tiny() {
  std::vector<float> x(20);
  std::vector<std::int64_t> y(10);
  for (int i = 0; i < 10; ++i) {
    x[2 * i] = static_cast<float>(i);
    x[2 * i + 1] = 1.0f;
    y[i] = i % 3;
  }
  return std::make_shared<data::TensorDataset>(TensorList{tensor(x).reshape({10, 2}), tensor(y)});
}

// Its input rows are the logits themselves, times one trainable scale (1): a model whose
// per-example losses the test chooses.
struct GivenLogits : nn::Module {
  GivenLogits() : Module("GivenLogits") { scale = register_parameter("scale", ones({1})); }
  Tensor forward(const Tensor& x) override { return x * scale; }
  Tensor scale;
};

// An optimizer that changes nothing: the losses stay those the test chose.
struct FrozenOptimizer : optim::Optimizer {
  explicit FrozenOptimizer(const Tensor& p) : Optimizer(optim::Options().set("lr", 0.0)) { add_param_group({{p}, {}}); }
  void update() override {}
};

// `rows` logit rows of 3 classes and their labels.
std::shared_ptr<data::TensorDataset> logits_dataset(const std::vector<std::vector<float>>& rows,
                                                    const std::vector<std::int64_t>& labels) {
  std::vector<float> x;
  for (const auto& r : rows) x.insert(x.end(), r.begin(), r.end());
  return std::make_shared<data::TensorDataset>(
      TensorList{tensor(x).reshape({static_cast<std::int64_t>(rows.size()), 3}), tensor(labels)});
}

// The mean of the per-example cross-entropies of the whole set, summed in double.
double mean_loss(const data::TensorDataset& examples) {
  const Tensor all =
      nn::functional::cross_entropy(examples.tensors().at(0), examples.tensors().at(1), {.reduction = "none"});
  double total = 0;
  for (double v : all.to_vector<double>()) total += v;
  return total / static_cast<double>(all.numel());
}

Tensor identity(const Tensor& x) { return x; }

}  // namespace

TEST(week05_epoch, TheLossIsTheMeanPerExampleAndProgressSeesEveryBatch) {
  // Zero weights: every logit is 0, so every example's loss is log(3), and arg-max
  // picks class 0 (the first of equal maxima): 4 of the 10 labels are 0.
  Probe model;
  model.fc->weight.detach().zero_();
  model.fc->bias.detach().zero_();
  optim::SGD opt(model.parameters(), optim::SGD::Config{.lr = 0.0});
  data::DataLoaderOptions o;
  o.batch_size = 4;  // batches of 4, 4 and 2: a plain mean of batch means would be wrong
  data::DataLoader loader(tiny(), o);
  std::vector<std::int64_t> seen;
  const train::EpochStats s = train::train_epoch(
      model, loader, opt, identity, [&](std::int64_t done, std::int64_t total, const train::EpochStats& r) {
        seen.push_back(done);
        EXPECT_EQ(total, 3);
        EXPECT_EQ(r.batches, done);
      });
  EXPECT_NEAR(s.loss, std::log(3.0), 1e-6);
  EXPECT_NEAR(s.accuracy, 0.4, 1e-12);
  EXPECT_EQ(s.examples, 10);
  EXPECT_EQ(s.batches, 3);
  EXPECT_EQ(seen, (std::vector<std::int64_t>{1, 2, 3}));
  EXPECT_GE(s.seconds, 0.0);
}

TEST(week05_epoch, AShortLastBatchWeighsByItsSize) {
  // Batches of 4, 4 and 2: eight examples of loss log(3), then two of loss log(e^4 + 2).
  std::vector<std::vector<float>> rows(8, {0.0f, 0.0f, 0.0f});
  rows.push_back({4.0f, 0.0f, 0.0f});
  rows.push_back({4.0f, 0.0f, 0.0f});
  const auto data_set = logits_dataset(rows, {0, 0, 0, 0, 0, 0, 0, 0, 1, 1});
  GivenLogits model;
  FrozenOptimizer opt(model.scale);
  data::DataLoaderOptions o;
  o.batch_size = 4;
  data::DataLoader loader(data_set, o);
  const train::EpochStats s = train::train_epoch(model, loader, opt, identity);
  EXPECT_NEAR(s.loss, mean_loss(*data_set), 1e-5)
      << "the epoch's loss is the mean over examples (sum of loss * batch size, over the example count), not the "
         "mean of the batch means: the last batch holds 2 examples, not 4";
}

TEST(week05_epoch, TheRunningLossIsADoubleNotAFloatTensor) {
  // Four examples of loss 1e8, then six of loss log(3). A float32 running total of 4e8 has
  // a step of 32, so adding 4 log(3) and 2 log(3) to it changes nothing; a double keeps them.
  std::vector<std::vector<float>> rows(4, {1e8f, 0.0f, 0.0f});
  for (int i = 0; i < 6; ++i) rows.push_back({0.0f, 0.0f, 0.0f});
  const auto data_set = logits_dataset(rows, {1, 1, 1, 1, 0, 0, 0, 0, 0, 0});
  GivenLogits model;
  FrozenOptimizer opt(model.scale);
  data::DataLoaderOptions o;
  o.batch_size = 4;
  data::DataLoader loader(data_set, o);
  const train::EpochStats s = train::train_epoch(model, loader, opt, identity);
  EXPECT_NEAR(s.loss, mean_loss(*data_set), 1e-3)
      << "add loss.item() * batch size to a double: a running total kept as a float32 tensor (total + loss * n) "
         "loses the small batches beside a large one, and holds every step's graph alive";
}

TEST(week05_epoch, TrainingRecordsInTrainModeAndEvaluationNeither) {
  Probe model;
  optim::SGD opt(model.parameters(), optim::SGD::Config{.lr = 0.01});
  data::DataLoaderOptions o;
  o.batch_size = 5;
  data::DataLoader loader(tiny(), o);
  model.eval();  // train_epoch must switch training mode back on
  train::train_epoch(model, loader, opt, identity);
  ASSERT_EQ(model.grad_modes.size(), 2u);
  EXPECT_TRUE(model.grad_modes[0] && model.grad_modes[1]);
  EXPECT_TRUE(model.training_modes[0] && model.training_modes[1]);
  model.grad_modes.clear();
  model.training_modes.clear();
  const train::EpochStats s = train::evaluate(model, loader, identity);
  ASSERT_EQ(model.grad_modes.size(), 2u);
  EXPECT_FALSE(model.grad_modes[0] || model.grad_modes[1]) << "evaluation must not record a graph";
  EXPECT_FALSE(model.training_modes[0] || model.training_modes[1]) << "evaluation runs in eval mode";
  EXPECT_TRUE(GradMode::is_enabled()) << "the grad mode is restored afterwards";
  EXPECT_EQ(s.examples, 10);
}

TEST(week05_epoch, TheStepBudgetStopsTheEpoch) {
  Probe model;
  optim::SGD opt(model.parameters(), optim::SGD::Config{.lr = 0.01});
  data::DataLoaderOptions o;
  o.batch_size = 2;
  data::DataLoader loader(tiny(), o);
  const train::EpochStats s = train::train_epoch(model, loader, opt, identity, {}, /*max_batches=*/2);
  EXPECT_EQ(s.batches, 2);
  EXPECT_EQ(s.examples, 4);
}

TEST(week05_epoch, AnMlpLearnsTheFashionMnistSubsetWithinTheBudget) {
  // The shipped subset (1,000 training, 500 test examples), an MLP 784-128-10, SGD
  // with momentum, 5 epochs of 32-example batches (160 steps). The reference reaches
  // 78% test accuracy with this seed (74-78% with seeds 5, 11, 23); 70% leaves room
  // for a different order of floating-point operations, and is far above the 10%
  // of guessing.
  manual_seed(5);
  const std::string root = std::string(KINDLING_TEST_DATA) + "/../../../../datasets/fashion-mnist-subset";
  auto train_set = std::make_shared<data::FashionMNIST>(root, true);
  auto test_set = std::make_shared<data::FashionMNIST>(root, false);
  Generator g(5);
  data::DataLoaderOptions to;
  to.batch_size = 32;
  to.shuffle = true;
  to.generator = &g;
  data::DataLoaderOptions eo;
  eo.batch_size = 250;
  data::DataLoader train_loader(train_set, to), test_loader(test_set, eo);
  nn::Sequential model(nn::Linear(784, 128), nn::ReLU(), nn::Linear(128, 10));
  optim::SGD opt(model.parameters(), optim::SGD::Config{.lr = 0.05, .momentum = 0.9});
  const auto prepare = [](const Tensor& images) { return (images.to(kFloat32) / 255.0).reshape({-1, 784}); };
  for (int epoch = 0; epoch < 5; ++epoch) train::train_epoch(model, train_loader, opt, prepare);
  const train::EpochStats s = train::evaluate(model, test_loader, prepare);
  EXPECT_EQ(s.examples, 500);
  EXPECT_GE(s.accuracy, 0.70) << "test accuracy after 160 steps";
  std::cout << "[ info ] test accuracy after 160 steps: " << s.accuracy << "\n";
}

TEST(EngineTrainLoop, CurvesAsCsvAndSvg) {
  std::vector<train::CurvePoint> pts = {{1, {1.5, 0.5, 10, 1, 0.1}, {1.2, 0.6, 5, 1, 0.1}},
                                        {2, {0.8, 0.7, 10, 1, 0.1}, {0.9, 0.65, 5, 1, 0.1}}};
  const std::string csv = train::curves_csv(pts);
  EXPECT_EQ(csv.substr(0, csv.find('\n')), "epoch,train_loss,train_accuracy,test_loss,test_accuracy,seconds");
  EXPECT_NE(csv.find("\n2,0.8,0.7,0.9,0.65,0.2\n"), std::string::npos) << csv;
  const std::string svg = train::curves_svg(pts, "t");
  EXPECT_EQ(svg.rfind("<svg", 0), 0u);
  EXPECT_EQ(std::count(svg.begin(), svg.end(), '\n') > 5, true);
  EXPECT_NE(svg.find("<polyline"), std::string::npos);
}

TEST(EngineTrainLoop, TheProgressBarIsPlainWithoutATerminal) {
  std::ostringstream out;
  train::ProgressBar bar(out, /*tty=*/false, "epoch 1/1", /*every=*/2);
  train::EpochStats r;
  r.loss = 0.5;
  r.accuracy = 0.25;
  r.examples = 64;
  for (std::int64_t i = 1; i <= 3; ++i) bar(i, 3, r);
  const std::string text = out.str();
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 2) << text;  // batch 2 and the last
  EXPECT_EQ(text.find('\033'), std::string::npos) << "no escape codes off a terminal";
  EXPECT_NE(text.find("loss 0.5000  acc  25.0%"), std::string::npos) << text;
}
