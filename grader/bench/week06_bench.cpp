// Week 6: the CUDA simulator's own speed (DESIGN-GPU.md, section 6): the cost of switching
// between simulated threads, and a 256 x 256 tiled matmul. These time the simulator on this
// machine; they say nothing about a GPU. Run one order per launch (no race check), as a
// student's timing would, and also the default three, which the tests use.

#include <benchmark/benchmark.h>

#include <numeric>
#include <vector>

#include <kindling/cuda/caching_allocator.hpp>
#include <kindling/cuda/fixtures.hpp>
#include <kindling/cuda/runtime.hpp>

namespace {
namespace sim = kindling::cuda::sim;
using kindling::cuda::DevPtr;

DevPtr<float> device_ramp(std::size_t n) {
  std::vector<float> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<float>(i % 13) * 0.25f;
  sim::Allocation* a = sim::allocate(n * sizeof(float), sizeof(float), "float");
  sim::copy_to_device(a, 0, v.data(), n * sizeof(float));
  return DevPtr<float>(a, 0);
}

// ns per switch: 256 threads x 200 barriers, each barrier one switch out and one back in.
void BM_SimSwitch(benchmark::State& state) {
  sim::set_race_check_orders(1);
  std::uint64_t switches = 0;
  for (auto _ : state) {
    kindling::cuda::fixtures::barriers(1, 256, 200);
    kindling::cuda::synchronize();  // streams are lazy: the launch runs here
    switches += sim::last_counters().switches;
  }
  state.counters["ns_per_switch"] = benchmark::Counter(static_cast<double>(switches) / 1e9,
                                                       benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  sim::set_race_check_orders(3);
}
BENCHMARK(BM_SimSwitch)->Unit(benchmark::kMillisecond);

// A 256 x 256 x 256 tiled matmul (16 x 16 tiles: 256 blocks of 256 threads, 32 barriers each).
void BM_SimTiledMatmul256(benchmark::State& state) {
  const int n = 256;
  const int orders = static_cast<int>(state.range(0));
  sim::set_race_check_orders(orders);
  const auto a = device_ramp(static_cast<std::size_t>(n * n)), b = device_ramp(static_cast<std::size_t>(n * n));
  const DevPtr<float> c(sim::allocate(static_cast<std::size_t>(n * n) * sizeof(float), sizeof(float), "float"), 0);
  for (auto _ : state) {
    kindling::cuda::fixtures::matmul(a, b, c, n, n, n, true);
    kindling::cuda::synchronize();  // streams are lazy: the launch runs here
  }
  sim::release(a.allocation());
  sim::release(b.allocation());
  sim::release(c.allocation());
  sim::set_race_check_orders(3);
  state.SetLabel(orders == 1 ? "one order" : "three orders (the race check)");
}
BENCHMARK(BM_SimTiledMatmul256)->Arg(1)->Arg(3)->Unit(benchmark::kMillisecond)->Iterations(2);
}  // namespace

// allocate + free of one tensor's memory: through the caching allocator (a cached block after
// the first round) and straight from the runtime (the simulated device: a poisoned heap
// allocation, its shadow bytes, and the quarantine at free). Sizes: 4 KiB and 4 MiB.
void BM_AllocFreeCached(benchmark::State& state) {
  kindling::cuda::CachingAllocator cache(kindling::cuda::sim_runtime());
  const auto bytes = static_cast<std::size_t>(state.range(0));
  for (auto _ : state) cache.free(cache.allocate(bytes));
  cache.empty_cache();
  state.SetLabel("caching allocator");
}
BENCHMARK(BM_AllocFreeCached)->Arg(4096)->Arg(4 << 20)->Unit(benchmark::kMicrosecond);

void BM_AllocFreeRaw(benchmark::State& state) {
  kindling::cuda::Runtime& rt = kindling::cuda::sim_runtime();
  const auto bytes = static_cast<std::size_t>(state.range(0));
  for (auto _ : state) rt.free(rt.malloc(bytes));
  state.SetLabel("runtime malloc/free (simulated device)");
}
BENCHMARK(BM_AllocFreeRaw)->Arg(4096)->Arg(4 << 20)->Unit(benchmark::kMicrosecond);

BENCHMARK_MAIN();
