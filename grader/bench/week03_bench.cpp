// Week 3 benchmarks.
// - The layout question: the same plain triple loop over W stored (out, in)
//   (linear_naive, contiguous inner loop) and over W stored (in, out)
//   (matmul_naive_in_out, strided inner loop), timed back to back in one
//   benchmark, reported as the counter `speedup` = time(in, out) / time(out, in).
//   The grader scores week03.layout_gemm on it. BM_GemmLayout asks the same of mm.
// - Linear through the module against the same computation written directly
//   (addmm on the transposed weight): counter `ratio` = module / direct; the
//   grader scores week03.linear_layout's performance points on it.
// - Linear and a small CNN at batch 64 on 28 x 28 input, forward + backward;
//   tools/bench-compare runs the same workloads in PyTorch.

#include <chrono>

#include <benchmark/benchmark.h>
#include <kindling/nn.hpp>

using namespace kindling;

namespace {

double seconds_of(const std::function<void()>& f) {
  const auto t0 = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// x (32, n) times a square n x n weight, both layouts, alternating.
void BM_LayoutSpeedup(benchmark::State& state) {
  const std::int64_t n = state.range(0), batch = 32;
  manual_seed(1);
  const Tensor x = rand({batch, n});
  const Tensor w_out_in = rand({n, n});
  const Tensor w_in_out = w_out_in.t().contiguous();
  double t_out_in = 0, t_in_out = 0;
  for (auto _ : state) {
    t_in_out += seconds_of([&] { benchmark::DoNotOptimize(nn::matmul_naive_in_out(x, w_in_out)); });
    t_out_in += seconds_of([&] { benchmark::DoNotOptimize(nn::linear_naive(x, w_out_in)); });
  }
  const double flops = 2.0 * static_cast<double>(batch * n * n) * static_cast<double>(state.iterations());
  state.counters["speedup"] = t_in_out / t_out_in;
  state.counters["gflops_out_in"] = flops / t_out_in / 1e9;
  state.counters["gflops_in_out"] = flops / t_in_out / 1e9;
}
BENCHMARK(BM_LayoutSpeedup)->Arg(128)->Arg(256)->Arg(512)->Arg(1024)->Unit(benchmark::kMillisecond)->UseRealTime();

// The same question for a packed GEMM: mm(x, W.t()) with W stored (out, in) against
// mm(x, W) with W stored (in, out), alternating; counter `ratio` = time(in, out) /
// time(out, in) (1.0: the layout does not matter). The week-3 lecture quotes it.
void BM_GemmLayout(benchmark::State& state) {
  const std::int64_t n = state.range(0), batch = 32;
  manual_seed(1);
  const Tensor x = rand({batch, n});
  const Tensor w_out_in = rand({n, n});
  const Tensor w_in_out = w_out_in.t().contiguous();
  double t_out_in = 0, t_in_out = 0;
  for (auto _ : state) {
    t_in_out += seconds_of([&] { benchmark::DoNotOptimize(mm(x, w_in_out)); });
    t_out_in += seconds_of([&] { benchmark::DoNotOptimize(mm(x, w_out_in.t())); });
  }
  state.counters["ratio"] = t_in_out / t_out_in;
}
BENCHMARK(BM_GemmLayout)->Arg(128)->Arg(256)->Arg(512)->Arg(1024)->Unit(benchmark::kMillisecond)->UseRealTime();

// Linear(784, 256) at batch 64, forward + backward: the module against addmm directly.
void BM_LinearModuleVsDirect(benchmark::State& state) {
  manual_seed(2);
  nn::Linear lin(784, 256);
  const Tensor x = rand({64, 784});
  const Tensor w = lin.weight.detach().clone().requires_grad_();
  const Tensor b = lin.bias.detach().clone().requires_grad_();
  double t_module = 0, t_direct = 0;
  for (auto _ : state) {
    t_module += seconds_of([&] {
      lin(x).sum().backward();
      lin.zero_grad(true);
    });
    t_direct += seconds_of([&] {
      addmm(b, x, w.t()).sum().backward();
      w.mutable_grad() = Tensor();
      b.mutable_grad() = Tensor();
    });
  }
  state.counters["ratio"] = t_module / t_direct;
}
BENCHMARK(BM_LinearModuleVsDirect)->Unit(benchmark::kMicrosecond)->UseRealTime();

// Linear(784, 256) at batch 64, forward + backward (compared with PyTorch).
void BM_LinearForwardBackward(benchmark::State& state) {
  manual_seed(3);
  nn::Linear lin(784, 256);
  const Tensor x = rand({64, 784});
  for (auto _ : state) {
    lin(x).sum().backward();
    lin.zero_grad(true);
  }
}
BENCHMARK(BM_LinearForwardBackward)->Unit(benchmark::kMicrosecond)->UseRealTime();

// conv(1->16, 3x3, pad 1) relu pool2, conv(16->32, 3x3, pad 1) relu pool2, linear(32*7*7 -> 10).
nn::Sequential small_cnn() {
  return nn::Sequential(nn::Conv2d(1, 16, 3, {.padding = 1}), nn::ReLU(), nn::MaxPool2d(2),
                        nn::Conv2d(16, 32, 3, {.padding = 1}), nn::ReLU(), nn::MaxPool2d(2), nn::Flatten(),
                        nn::Linear(32 * 7 * 7, 10));
}

void BM_CnnForward(benchmark::State& state) {
  manual_seed(4);
  auto net = small_cnn();
  const Tensor x = rand({64, 1, 28, 28});
  NoGradGuard no_grad;
  for (auto _ : state) benchmark::DoNotOptimize(net(x));
}
BENCHMARK(BM_CnnForward)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_CnnForwardBackward(benchmark::State& state) {
  manual_seed(4);
  auto net = small_cnn();
  const Tensor x = rand({64, 1, 28, 28});
  for (auto _ : state) {
    net(x).sum().backward();
    net.zero_grad(true);
  }
}
BENCHMARK(BM_CnnForwardBackward)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
