// Week 6: the CUDA simulator's own speed (docs/building.md, week 6): the cost of switching
// between simulated threads, a 256 x 256 tiled matmul, and one small training step. These time
// the simulator on this machine; they say nothing about a GPU. And the register-blocked GEMM
// against cuBLAS, which only a GPU measures.

#include <benchmark/benchmark.h>

#include <numeric>
#include <vector>

#include <kindling/cuda/caching_allocator.hpp>
#include <kindling/cuda/fixtures.hpp>
#include <kindling/cuda/runtime.hpp>
#include <kindling/kindling.hpp>
#include <kindling/nn.hpp>
#include <kindling/training.hpp>

namespace {
namespace sim = kindling::cuda::sim;
using kindling::cuda::DevPtr;

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

// A 256 x 256 x 256 product through the engine's own tiled GEMM (src/kernels/gemm.cu: 16 x 16
// tiles, 256 blocks of 256 threads, 32 barriers each), on cuda tensors; the engine runs its own
// kernels in one order (no race check).
void BM_SimEngineMatmul256(benchmark::State& state) {
  const kindling::Tensor a = kindling::rand({256, 256}).cuda(), b = kindling::rand({256, 256}).cuda();
  for (auto _ : state) {
    // Not const: Google Benchmark 1.8 (Ubuntu 24.04) deprecates DoNotOptimize of a const object.
    kindling::Tensor c = kindling::mm(a, b);
    kindling::cuda::synchronize();  // streams are lazy: the launch runs here
    benchmark::DoNotOptimize(c);
  }
  state.SetLabel("the engine's tiled GEMM, one order");
}
BENCHMARK(BM_SimEngineMatmul256)->Unit(benchmark::kMillisecond)->Iterations(3);

// One training step of a small MLP (784-64-10, a batch of 32, SGD with momentum) on cuda: the
// forward, the loss, the backward and the update, every kernel on the simulator.
void BM_SimTrainingStep(benchmark::State& state) {
  using namespace kindling;
  manual_seed(0);
  nn::Sequential model(nn::Linear(784, 64), nn::ReLU(), nn::Linear(64, 10));
  model.to(Device("cuda"));
  optim::SGD opt(model.parameters(), optim::SGD::Config{.lr = 0.05, .momentum = 0.9});
  const Tensor x = rand({32, 784}).cuda();
  const Tensor y = randint(0, 10, {32}).cuda();
  for (auto _ : state) {
    opt.zero_grad();
    const Tensor loss = nn::functional::cross_entropy(model(x), y);
    loss.backward();
    opt.step();
    benchmark::DoNotOptimize(loss.item<double>());  // reading the loss synchronises
  }
  state.SetLabel("MLP 784-64-10, batch 32, on the simulator");
}
BENCHMARK(BM_SimTrainingStep)->Unit(benchmark::kMillisecond)->Iterations(3);

// week06.register_gemm's performance points: its GFLOP/s as a fraction of cuBLAS's at 4096^2 fp32,
// on a GPU only. This program links the simulator's build of the kernels, so it measures nothing
// here; the GPU build's benchmark of the same name is in kindling_week06_device_bench
// (grader/bench/gpu/, run by tools/gpu-bench). The grader reports these points as needs_gpu
// wherever the tests ran on the simulator.
void BM_RegisterGemmVsCublas(benchmark::State& state) {
  state.SkipWithError(
      "needs a GPU: this program runs the simulator's kernels, which measure no speed; on a GPU, "
      "kindling_week06_device_bench (tools/gpu-bench) measures this point");
}
BENCHMARK(BM_RegisterGemmVsCublas);
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
