// Week 4 benchmarks: WeightedRandomSampler, 10^6 draws from 10^6 weights, with
// and without replacement (tools/bench-compare runs torch.multinomial on the
// same workload), and the same draws by a linear scan per draw, the approach
// the task warns against, on a smaller problem so that it finishes.

#include <random>

#include <benchmark/benchmark.h>
#include <kindling/data.hpp>

using namespace kindling;

namespace {

std::vector<double> weights(std::int64_t n) {
  std::mt19937_64 engine(1);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::vector<double> w(static_cast<std::size_t>(n));
  for (auto& x : w) x = u(engine);
  return w;
}

void BM_WeightedSampler(benchmark::State& state) {
  const std::int64_t n = state.range(0);
  const bool replacement = state.range(1) != 0;
  Generator g(2);
  data::WeightedRandomSampler s(weights(n), n, replacement, &g);
  for (auto _ : state) benchmark::DoNotOptimize(s.indices());
  state.SetItemsProcessed(state.iterations() * n);
}
BENCHMARK(BM_WeightedSampler)
    ->Args({1'000'000, 1})
    ->Args({1'000'000, 0})
    ->Args({10'000, 1})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

// One draw = one scan of the cumulative weights: O(n) per draw.
void BM_WeightedLinearScan(benchmark::State& state) {
  const std::int64_t n = state.range(0);
  const std::vector<double> w = weights(n);
  std::mt19937_64 engine(3);
  double total = 0;
  for (double x : w) total += x;
  std::uniform_real_distribution<double> u(0.0, total);
  for (auto _ : state) {
    std::vector<std::int64_t> out(static_cast<std::size_t>(n));
    for (auto& o : out) {
      double r = u(engine), acc = 0;
      std::int64_t i = 0;
      for (; i < n - 1; ++i) {
        acc += w[static_cast<std::size_t>(i)];
        if (r < acc) break;
      }
      o = i;
    }
    benchmark::DoNotOptimize(out);
  }
  state.SetItemsProcessed(state.iterations() * n);
}
BENCHMARK(BM_WeightedLinearScan)->Arg(10'000)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
