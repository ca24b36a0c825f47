// Week 5 benchmarks; tools/bench-compare runs the same workloads in PyTorch 1.13
// (tools/bench/week05_torch.py) at Kindling's thread count.
// - The performance points of week05.epoch: one epoch of an MLP 784-128-10 over
//   1,000 uint8 images (batch 32) through train_epoch (the student's), against the
//   same loop written here (the reference), timed alternately in one process:
//   counter `ratio` = student / reference.
// - One epoch of an MLP 784-256-10 with SGD (momentum 0.9), batch 64, over 60,000
//   synthetic examples held in memory (the model and the optimizer, not the loader).
// - A small CNN (conv 1->16, pool, conv 16->32, pool, linear), the same loop over
//   6,400 examples (100 batches): a full 60,000-example epoch takes about 9 s here.
// - Those two steps piece by piece (BM_StepPiece/NAME): each layer forward + backward at the
//   step's shapes, the loss, the optimizer's step; the epoch's profile by op.
// - One optimizer step over 10M float32 parameters (SGD with momentum, Adam), with
//   the bytes it must move (SGD: read p, g, buf, write p, buf = 20 bytes per
//   parameter; Adam: read p, g, m, v, write p, m, v = 28) as GB/s, beside a
//   measured copy of 10M floats (8 bytes per element) in the same process.
// - A Linear 784 -> 256 on a batch of 64, in float32 (x W^T + b) and quantised (int8 weights,
//   quint8 inputs, the int32 product of week05.quantize), for the lecture's comparison.

#ifdef _OPENMP
#include <omp.h>
#endif

#include <chrono>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>
#include <kindling/data.hpp>
#include <kindling/nn.hpp>
#include <kindling/quantize.hpp>
#include <kindling/training.hpp>

#include "train_steps.hpp"

using namespace kindling;

namespace {

// The threads Eigen's GEMM may use (OpenMP's default: one per core).
void add_threads(benchmark::State& state) {
#ifdef _OPENMP
  state.counters["kindling_threads"] = omp_get_max_threads();
#else
  state.counters["kindling_threads"] = 1;
#endif
}

void BM_MlpEpoch60k(benchmark::State& state) {
  manual_seed(5);
  const Tensor x = rand({60000, 784});
  const Tensor y = randint(0, 10, {60000});
  nn::Sequential model(nn::Linear(784, 256), nn::ReLU(), nn::Linear(256, 10));
  optim::SGD opt(model.parameters(), optim::SGD::Config{.lr = 0.01, .momentum = 0.9});
  for (auto _ : state) bench::train_steps(model, opt, x, y, 64);
  add_threads(state);
}
BENCHMARK(BM_MlpEpoch60k)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_CnnEpoch6400(benchmark::State& state) {
  manual_seed(6);
  const Tensor x = rand({6400, 1, 28, 28});
  const Tensor y = randint(0, 10, {6400});
  nn::Sequential model(nn::Conv2d(1, 16, 3, nn::Conv2dOptions{.padding = 1}), nn::ReLU(), nn::MaxPool2d(2),
                       nn::Conv2d(16, 32, 3, nn::Conv2dOptions{.padding = 1}), nn::ReLU(), nn::MaxPool2d(2),
                       nn::Flatten(), nn::Linear(32 * 7 * 7, 10));
  optim::SGD opt(model.parameters(), optim::SGD::Config{.lr = 0.01, .momentum = 0.9});
  for (auto _ : state) bench::train_steps(model, opt, x, y, 64);
  add_threads(state);
}
BENCHMARK(BM_CnnEpoch6400)->Unit(benchmark::kMillisecond)->UseRealTime();

// ---- one training step, piece by piece ---------------------------------------------------------
// The steps above, cut into what they run: each layer of the MLP and of the CNN forward and
// backward on its own, at the step's shapes (batch 64), with a given output gradient (rand, made
// once); the loss on 64 x 10 logits; the SGD momentum step over each model's parameters. Gradients
// are handled as in the epoch: parameters' zeroed (zero_grad(), not set to none), so that backward
// adds into them; the input's, which the epoch hands to the layer below, dropped. The pieces of a
// model add up to about one step (epoch / steps), so which piece falls behind PyTorch's as threads
// are added is the epoch's profile by op (tools/bench/week05_torch.py times the same pieces).
using Piece = std::function<void()>;

// One layer (a Sequential of `layers`) on rand input of `shape`.
template <class... Layers>
Piece layer_piece(Shape shape, bool input_grad, Layers&&... layers) {
  auto m = std::make_shared<nn::Sequential>(std::forward<Layers>(layers)...);
  const Tensor x = rand(shape);
  if (input_grad) x.requires_grad_();
  Tensor g;
  {
    NoGradGuard no_grad;
    g = rand((*m)(x).sizes());
  }
  return [m, x, g] {
    (*m)(x).backward(g);
    m->zero_grad(false);
    if (x.requires_grad()) x.mutable_grad() = Tensor();
  };
}

Piece loss_piece() {
  const Tensor logits = rand({64, 10}).requires_grad_();
  const Tensor y = randint(0, 10, {64});
  return [logits, y] {
    nn::functional::cross_entropy(logits, y).backward();
    logits.mutable_grad() = Tensor();
  };
}

// The SGD momentum step over the parameters of `model` (rand gradients; its state made first).
Piece sgd_piece(std::shared_ptr<nn::Module> model) {
  for (const Tensor& p : model->parameters()) p.mutable_grad() = rand(p.sizes());
  auto opt = std::make_shared<optim::SGD>(model->parameters(), optim::SGD::Config{.lr = 0.01, .momentum = 0.9});
  opt->step();
  return [model, opt] { opt->step(); };
}

Piece make_piece(const std::string& name) {
  manual_seed(9);
  const auto conv = [](std::int64_t in, std::int64_t out) {
    return nn::Conv2d(in, out, 3, nn::Conv2dOptions{.padding = 1});
  };
  if (name == "mlp_linear1") return layer_piece({64, 784}, false, nn::Linear(784, 256));
  if (name == "mlp_relu") return layer_piece({64, 256}, true, nn::ReLU());
  if (name == "mlp_linear2") return layer_piece({64, 256}, true, nn::Linear(256, 10));
  if (name == "loss") return loss_piece();
  if (name == "mlp_sgd")
    return sgd_piece(std::make_shared<nn::Sequential>(nn::Linear(784, 256), nn::ReLU(), nn::Linear(256, 10)));
  if (name == "cnn_conv1") return layer_piece({64, 1, 28, 28}, false, conv(1, 16));
  if (name == "cnn_relu1") return layer_piece({64, 16, 28, 28}, true, nn::ReLU());
  if (name == "cnn_pool1") return layer_piece({64, 16, 28, 28}, true, nn::MaxPool2d(2));
  if (name == "cnn_conv2") return layer_piece({64, 16, 14, 14}, true, conv(16, 32));
  if (name == "cnn_relu2") return layer_piece({64, 32, 14, 14}, true, nn::ReLU());
  if (name == "cnn_pool2") return layer_piece({64, 32, 14, 14}, true, nn::MaxPool2d(2));
  if (name == "cnn_head") return layer_piece({64, 32, 7, 7}, true, nn::Flatten(), nn::Linear(32 * 7 * 7, 10));
  if (name == "cnn_sgd")
    return sgd_piece(std::make_shared<nn::Sequential>(conv(1, 16), nn::ReLU(), nn::MaxPool2d(2), conv(16, 32),
                                                      nn::ReLU(), nn::MaxPool2d(2), nn::Flatten(),
                                                      nn::Linear(32 * 7 * 7, 10)));
  throw std::invalid_argument("week05_bench: no step piece named " + name);
}

void BM_StepPiece(benchmark::State& state, const char* name) {
  const Piece piece = make_piece(name);
  piece();  // warm: first-touch pages, gradient buffers, the threads
  for (auto _ : state) piece();
  add_threads(state);
}
#define KINDLING_STEP_PIECE(name) \
  BENCHMARK_CAPTURE(BM_StepPiece, name, #name)->Unit(benchmark::kMicrosecond)->MinTime(0.1)->UseRealTime()
KINDLING_STEP_PIECE(mlp_linear1);
KINDLING_STEP_PIECE(mlp_relu);
KINDLING_STEP_PIECE(mlp_linear2);
KINDLING_STEP_PIECE(loss);
KINDLING_STEP_PIECE(mlp_sgd);
KINDLING_STEP_PIECE(cnn_conv1);
KINDLING_STEP_PIECE(cnn_relu1);
KINDLING_STEP_PIECE(cnn_pool1);
KINDLING_STEP_PIECE(cnn_conv2);
KINDLING_STEP_PIECE(cnn_relu2);
KINDLING_STEP_PIECE(cnn_pool2);
KINDLING_STEP_PIECE(cnn_head);
KINDLING_STEP_PIECE(cnn_sgd);
#undef KINDLING_STEP_PIECE

constexpr std::int64_t kParams = 10'000'000;

// The engine's copy_ of 10M floats at the thread count in force: what PyTorch's `b.copy_(a)`
// is compared with, and the bandwidth the optimizer steps are measured against (a one-thread
// memcpy would make both meaningless above one thread).
void BM_CopyBandwidth(benchmark::State& state) {
  const Tensor a = ones({kParams}), b = full({kParams}, 2.0);
  for (auto _ : state) {
    b.copy_(a);
    benchmark::DoNotOptimize(b.data_ptr());
    benchmark::ClobberMemory();
  }
  state.counters["GB/s"] =
      benchmark::Counter(8.0 * kParams, benchmark::Counter::kIsIterationInvariantRate, benchmark::Counter::kIs1000);
  add_threads(state);
}
BENCHMARK(BM_CopyBandwidth)->Unit(benchmark::kMillisecond)->UseRealTime();

template <class Make>
void optimizer_step(benchmark::State& state, Make make, double bytes_per_param) {
  manual_seed(7);
  const Tensor p = rand({kParams}).requires_grad_();
  p.mutable_grad() = rand({kParams});
  auto opt = make(std::vector<Tensor>{p});
  opt->step();  // creates the state: the steady state is what is measured
  for (auto _ : state) opt->step();
  state.counters["GB/s"] = benchmark::Counter(bytes_per_param * kParams, benchmark::Counter::kIsIterationInvariantRate,
                                              benchmark::Counter::kIs1000);
}

void BM_SgdMomentumStep10M(benchmark::State& state) {
  optimizer_step(
      state,
      [](std::vector<Tensor> ps) {
        return std::make_unique<optim::SGD>(std::move(ps), optim::SGD::Config{.lr = 1e-3, .momentum = 0.9});
      },
      20);
}
BENCHMARK(BM_SgdMomentumStep10M)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_AdamStep10M(benchmark::State& state) {
  optimizer_step(
      state, [](std::vector<Tensor> ps) { return std::make_unique<optim::Adam>(std::move(ps), optim::Adam::Config{}); },
      28);
}
BENCHMARK(BM_AdamStep10M)->Unit(benchmark::kMillisecond)->UseRealTime();

// The reference epoch: what week05.epoch's solution does, kept here so that the ratio
// compares the student's loop with it in the same process.
void reference_epoch(nn::Module& model, data::DataLoader& loader, optim::Optimizer& opt, const train::Prepare& prep) {
  model.train();
  double total = 0, correct = 0;
  for (const data::Batch& batch : loader) {
    opt.zero_grad();
    const Tensor out = model(prep(batch.at(0)));
    const Tensor loss = nn::functional::cross_entropy(out, batch.at(1));
    loss.backward();
    opt.step();
    total += loss.item<double>() * static_cast<double>(batch.at(1).numel());
    correct += eq(argmax(out.detach(), 1), batch.at(1)).sum().item<double>();
  }
  benchmark::DoNotOptimize(total + correct);
}

void BM_EpochVsReference(benchmark::State& state) {
  manual_seed(8);
  const Tensor images = randint(0, 256, {1000, 28, 28}, TensorOptions().dtype(kUInt8));
  const Tensor labels = randint(0, 10, {1000});
  auto dataset = std::make_shared<data::TensorDataset>(TensorList{images, labels});
  data::DataLoaderOptions o;
  o.batch_size = 32;
  data::DataLoader loader(dataset, o);
  const train::Prepare prep = [](const Tensor& x) { return (x.to(kFloat32) / 255.0).reshape({-1, 784}); };
  nn::Sequential a(nn::Linear(784, 128), nn::ReLU(), nn::Linear(128, 10));
  nn::Sequential b(nn::Linear(784, 128), nn::ReLU(), nn::Linear(128, 10));
  optim::SGD opt_a(a.parameters(), optim::SGD::Config{.lr = 0.01, .momentum = 0.9});
  optim::SGD opt_b(b.parameters(), optim::SGD::Config{.lr = 0.01, .momentum = 0.9});
  double t_student = 0, t_reference = 0;
  for (auto _ : state) {
    auto t0 = std::chrono::steady_clock::now();
    benchmark::DoNotOptimize(train::train_epoch(a, loader, opt_a, prep).loss);
    auto t1 = std::chrono::steady_clock::now();
    reference_epoch(b, loader, opt_b, prep);
    auto t2 = std::chrono::steady_clock::now();
    t_student += std::chrono::duration<double>(t1 - t0).count();
    t_reference += std::chrono::duration<double>(t2 - t1).count();
  }
  state.counters["ratio"] = t_student / t_reference;
}
BENCHMARK(BM_EpochVsReference)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();

// ---- a quantised Linear against float32 (the lecture's "Quantised tensors") ----------------------
namespace {
struct LinearCase {
  Tensor x, w, b;
  quant::QuantizedTensor wq;
  LinearCase() {
    manual_seed(0);
    x = rand({64, 784});
    w = randn({256, 784}).mul(0.03);
    b = randn({256}).mul(0.01);
    wq = quant::quantize_per_tensor(w, w.abs().max().item<double>() / 127, 0, quant::kQInt8);
  }
};
}  // namespace

void BM_Linear784Float32(benchmark::State& state) {
  const LinearCase c;
  for (auto _ : state) benchmark::DoNotOptimize(c.x.mm(c.w.t()).add(c.b));
}
BENCHMARK(BM_Linear784Float32)->Unit(benchmark::kMicrosecond)->UseRealTime();

void BM_Linear784Quantized(benchmark::State& state) {
  const LinearCase c;
  for (auto _ : state) benchmark::DoNotOptimize(quant::quantized_linear(c.x, c.wq, c.b, 1.0 / 255, 0));
}
BENCHMARK(BM_Linear784Quantized)->Unit(benchmark::kMicrosecond)->UseRealTime();
