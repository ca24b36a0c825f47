// Week 4 benchmarks (tools/bench-compare runs the same workloads in PyTorch):
// - WeightedRandomSampler, 10^6 draws from 10^6 weights, with and without
//   replacement, and a linear scan per draw for contrast (on 10^4);
// - worker scaling: a dataset that waits 1 ms per item, batch 32, 0-8 workers,
//   counter `efficiency` = items/s / (1000 * max(1, workers));
// - per-batch overhead: an in-memory 60,000 x 784 float dataset at batch 64;
// - staging copies: a batch copied into a recycled pinned buffer vs into fresh
//   pageable memory;
// - with CUDA and a device: the host-to-device copy of a batch staged in
//   pageable or in pinned memory (skipped, saying why, without one).

#include <chrono>
#include <random>
#include <thread>

#include <benchmark/benchmark.h>
#include <kindling/data.hpp>
#include <kindling/kindling.hpp>

#if KINDLING_HAS_CUDA
#include <cuda_runtime_api.h>
#endif

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

// The cost of one draw as the weights grow (the task week04.weighted_sampler's performance
// points): an epoch of 300,000 draws with replacement from 1,000 weights and from 32,000, timed in
// the same process; counter `growth` = the larger's time over the smaller's. A draw of O(1) or
// O(log n) keeps it near 1 (building the alias table is O(n) once per epoch); a draw that walks
// or rebuilds the weights, O(n), multiplies it by about 32.
void BM_WeightedSamplerPerDrawGrowth(benchmark::State& state) {
  constexpr std::int64_t kDraws = 300'000;
  Generator g(4);
  data::WeightedRandomSampler small(weights(1'000), kDraws, true, &g);
  data::WeightedRandomSampler large(weights(32'000), kDraws, true, &g);
  double t_small = 0, t_large = 0;
  const auto seconds = [](data::WeightedRandomSampler& s) {
    const auto start = std::chrono::steady_clock::now();
    benchmark::DoNotOptimize(s.indices());
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  for (auto _ : state) {
    t_small += seconds(small);
    t_large += seconds(large);
  }
  state.counters["growth"] = t_large / t_small;
}
BENCHMARK(BM_WeightedSamplerPerDrawGrowth)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(3);

// Items that take 1 ms to "load" (a sleep: I/O-bound, like decoding from disk).
struct SleepyDataset : data::Dataset {
  data::Example get(std::int64_t i) override {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
    return {full({4}, static_cast<double>(i))};
  }
  std::int64_t size() const override { return 32 * 16; }
};

void BM_WorkerScaling(benchmark::State& state) {
  const std::int64_t workers = state.range(0);
  auto ds = std::make_shared<SleepyDataset>();
  data::DataLoader loader(ds, {.batch_size = 32, .num_workers = workers});
  std::int64_t items = 0;
  for (auto _ : state)
    for (const data::Batch& b : loader) items += b[0].sizes()[0];
  state.counters["items_per_s"] = benchmark::Counter(static_cast<double>(items), benchmark::Counter::kIsRate);
  state.counters["efficiency"] = benchmark::Counter(
      static_cast<double>(items) / (1000.0 * static_cast<double>(std::max<std::int64_t>(1, workers))),
      benchmark::Counter::kIsRate);
}
BENCHMARK(BM_WorkerScaling)->Arg(0)->Arg(1)->Arg(2)->Arg(4)->Arg(8)->Unit(benchmark::kMillisecond)->UseRealTime();

// 60,000 x 784 floats in memory, batch 64: what does the loader itself cost per batch?
void BM_PerBatchOverhead(benchmark::State& state) {
  const std::int64_t workers = state.range(0);
  static const Tensor images = rand({60000, 784});
  static const Tensor labels = randint(10, {60000});
  auto ds = std::make_shared<data::TensorDataset>(TensorList{images, labels});
  data::DataLoader loader(ds, {.batch_size = 64, .shuffle = true, .num_workers = workers});
  std::int64_t batches = 0;
  for (auto _ : state)
    for (const data::Batch& b : loader) {
      benchmark::DoNotOptimize(b[0].data_ptr());
      ++batches;
    }
  state.counters["us_per_batch"] =
      benchmark::Counter(static_cast<double>(batches), benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_PerBatchOverhead)->Arg(0)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();

// One 64 x 784 float batch (196 KiB): into a recycled pinned buffer, or into fresh pageable memory.
void BM_StagingPinnedRecycled(benchmark::State& state) {
  const Tensor batch = rand({64, 784});
  auto pool = data::PinnedMemoryPool::create();
  for (auto _ : state) benchmark::DoNotOptimize(pool->pinned_copy(batch).data_ptr());
}
BENCHMARK(BM_StagingPinnedRecycled)->Unit(benchmark::kMicrosecond)->UseRealTime();

void BM_StagingPageableFresh(benchmark::State& state) {
  const Tensor batch = rand({64, 784});
  for (auto _ : state) benchmark::DoNotOptimize(batch.clone().data_ptr());
}
BENCHMARK(BM_StagingPageableFresh)->Unit(benchmark::kMicrosecond)->UseRealTime();

// Locking a fresh buffer for every batch: what the pool avoids.
void BM_StagingPinnedFresh(benchmark::State& state) {
  const Tensor batch = rand({64, 784});
  for (auto _ : state) benchmark::DoNotOptimize(batch.pin_memory().data_ptr());
}
BENCHMARK(BM_StagingPinnedFresh)->Unit(benchmark::kMicrosecond)->UseRealTime();

// Staging plus the copy to the device, per 64 x 784 batch: from fresh pageable memory (the driver
// copies it into its own pinned buffer first) or from a recycled pinned buffer (one DMA).
void BM_HostToDevice(benchmark::State& state) {
  const data::CudaHostStatus& cuda = data::cuda_host_status();
  if (!cuda.available) {
    state.SkipWithError(("no CUDA device: " + cuda.reason).c_str());
    return;
  }
#if KINDLING_HAS_CUDA
  const bool pinned = state.range(0) == 1;
  const Tensor batch = rand({64, 784});
  const std::size_t bytes = static_cast<std::size_t>(batch.numel()) * sizeof(float);
  void* device = nullptr;
  if (cudaMalloc(&device, bytes) != cudaSuccess) {
    state.SkipWithError("cudaMalloc failed");
    return;
  }
  auto pool = data::PinnedMemoryPool::create();
  for (auto _ : state) {
    const Tensor staged = pinned ? pool->pinned_copy(batch) : batch.clone();
    if (cudaMemcpy(device, staged.data_ptr(), bytes, cudaMemcpyHostToDevice) != cudaSuccess) {
      state.SkipWithError("cudaMemcpy failed");
      break;
    }
  }
  cudaFree(device);
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * static_cast<std::int64_t>(bytes));
#endif
}
BENCHMARK(BM_HostToDevice)->ArgName("pinned")->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
