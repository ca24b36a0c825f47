// Week 2 benchmarks: autograd overhead on tiny tensors, backward of a long chain
// (time and graph memory per node at 10k, 100k and 1M nodes: linear means the
// per-node figures stay flat; the 1M graph takes about 1 GB), and forward+backward of a 3-layer MLP at batch 64.
// tools/bench-compare runs the same workloads in PyTorch in the same run.

#include <malloc.h>

#include <benchmark/benchmark.h>
#include <kindling/autograd.hpp>

using namespace kindling;

namespace {
void BM_TinyForwardBackward(benchmark::State& state) {
  const Tensor x = rand({16}).requires_grad_();
  for (auto _ : state) {
    (x * 2 + 1).relu().sum().backward();
    x.mutable_grad() = Tensor();
  }
}
BENCHMARK(BM_TinyForwardBackward);

// Backward of y = x * 1 * 1 * ... (n nodes); the graph is rebuilt untimed.
void BM_ChainBackward(benchmark::State& state) {
  const auto n = state.range(0);
  const Tensor x = rand({4}).requires_grad_();
  double bytes = 0;
  for (auto _ : state) {
    state.PauseTiming();
    const auto before = mallinfo2().uordblks;
    Tensor y = x;
    for (std::int64_t i = 0; i < n; ++i) y = y * 1.0;
    Tensor loss = y.sum();
    bytes = static_cast<double>(mallinfo2().uordblks - before);
    y = Tensor();
    state.ResumeTiming();
    loss.backward();
    state.PauseTiming();
    loss = Tensor();  // frees the graph, untimed
    x.mutable_grad() = Tensor();
    state.ResumeTiming();
  }
  state.counters["ns_per_node"] = benchmark::Counter(
      static_cast<double>(n), benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
  state.counters["graph_bytes_per_node"] = bytes / static_cast<double>(n);
}
BENCHMARK(BM_ChainBackward)->Arg(10'000)->Arg(100'000)->Arg(1'000'000)->Unit(benchmark::kMillisecond)->UseRealTime();

// 784 -> 256 -> 256 -> 10, tanh, mean squared error, batch 64: forward + backward.
void BM_MlpForwardBackward(benchmark::State& state) {
  manual_seed(0);
  const Tensor x = rand({64, 784});
  const Tensor target = rand({64, 10});
  const TensorList params = {randn({256, 784}) / 28, zeros({256}),          randn({256, 256}) / 16,
                             zeros({256}),           randn({10, 256}) / 16, zeros({10})};
  for (const Tensor& p : params) p.requires_grad_();
  for (auto _ : state) {
    Tensor h = tanh(addmm(params[1], x, params[0].t()));
    h = tanh(addmm(params[3], h, params[2].t()));
    Tensor out = addmm(params[5], h, params[4].t());
    pow(out - target, 2).mean().backward();
    autograd::zero_grad(params, /*set_to_none=*/true);
  }
}
BENCHMARK(BM_MlpForwardBackward)->Unit(benchmark::kMicrosecond);
}  // namespace

BENCHMARK_MAIN();
