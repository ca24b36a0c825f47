// Week 1 benchmarks. Each claim is a ratio of two measurements taken in this one
// process: view of a huge tensor against view of a tiny one (constant time),
// a transposed reshape against memcpy of the same bytes, a sum over a transpose
// against the contiguous sum, and fp32 mm as GFLOP/s (compared with PyTorch by
// tools/bench-compare, which runs the same workloads in PyTorch in the same run).

#include <cstring>
#include <vector>

#include <benchmark/benchmark.h>
#include <kindling/kindling.hpp>

using namespace kindling;

namespace {
const Tensor& huge() {  // 100M floats (400 MB), made once
  static const Tensor t = zeros({100'000'000});
  return t;
}

void BM_ViewTiny(benchmark::State& state) {
  const Tensor t = zeros({100});
  for (auto _ : state) benchmark::DoNotOptimize(t.view({10, -1}));
}
BENCHMARK(BM_ViewTiny);

void BM_ViewHuge(benchmark::State& state) {
  const Tensor& t = huge();
  for (auto _ : state) benchmark::DoNotOptimize(t.view({10'000, -1}));
}
BENCHMARK(BM_ViewHuge);

constexpr std::int64_t kSide = 4096;  // 4096 x 4096 floats = 64 MiB

void BM_MemcpySameBytes(benchmark::State& state) {
  std::vector<float> a(kSide * kSide, 1.0f), b(kSide * kSide);
  for (auto _ : state) {
    std::memcpy(b.data(), a.data(), a.size() * sizeof(float));
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(a.size() * sizeof(float)));
}
BENCHMARK(BM_MemcpySameBytes)->Unit(benchmark::kMillisecond);

// The same bytes into a fresh tensor: allocation and page faults included, as in reshape.
void BM_CloneContiguous(benchmark::State& state) {
  const Tensor x = rand({kSide, kSide});
  for (auto _ : state) benchmark::DoNotOptimize(x.clone());
  state.SetBytesProcessed(state.iterations() * kSide * kSide * 4);
}
BENCHMARK(BM_CloneContiguous)->Unit(benchmark::kMillisecond);

void BM_ReshapeOfTranspose(benchmark::State& state) {
  const Tensor x = rand({kSide, kSide});
  for (auto _ : state) benchmark::DoNotOptimize(x.t().reshape({-1}));
  state.SetBytesProcessed(state.iterations() * kSide * kSide * 4);
}
BENCHMARK(BM_ReshapeOfTranspose)->Unit(benchmark::kMillisecond);

void BM_SumContiguous(benchmark::State& state) {
  const Tensor x = rand({kSide, kSide});
  for (auto _ : state) benchmark::DoNotOptimize(x.sum());
  state.SetBytesProcessed(state.iterations() * kSide * kSide * 4);
}
BENCHMARK(BM_SumContiguous)->Unit(benchmark::kMillisecond);

void BM_SumTransposed(benchmark::State& state) {
  const Tensor x = rand({kSide, kSide}).t();
  for (auto _ : state) benchmark::DoNotOptimize(x.sum());
  state.SetBytesProcessed(state.iterations() * kSide * kSide * 4);
}
BENCHMARK(BM_SumTransposed)->Unit(benchmark::kMillisecond);

// sum(dim=-1) over rows of 8 to 1000 floats: one reduction run per row, so what this
// measures is the per-run set-up of the float sum (its lanes and their fold). One row of
// 2^16 floats (256 KiB, in cache) measures the lanes' throughput instead.
void BM_SumShortRows(benchmark::State& state) {
  const std::int64_t cols = state.range(0);
  const Tensor x = rand({(1 << 16) / cols, cols});
  for (auto _ : state) benchmark::DoNotOptimize(x.sum({-1}));
  state.SetItemsProcessed(state.iterations() * x.size(0));
  state.counters["ns_per_row"] = benchmark::Counter(static_cast<double>(state.iterations() * x.size(0)),
                                                    benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_SumShortRows)->Arg(8)->Arg(32)->Arg(100)->Arg(1000)->Arg(1 << 16)->Unit(benchmark::kMicrosecond);

// The lecture's cache experiment: the same sum written as the obvious index-order
// loop, over a contiguous tensor and over its transpose (strided reads).
double naive_sum(const Tensor& x) {
  const float* p = static_cast<const float*>(x.storage().data());
  const std::int64_t s0 = x.strides()[0], s1 = x.strides()[1];
  double s = 0;
  for (std::int64_t i = 0; i < x.sizes()[0]; ++i)
    for (std::int64_t j = 0; j < x.sizes()[1]; ++j) s += p[i * s0 + j * s1];
  return s;
}

void BM_NaiveLoopContiguous(benchmark::State& state) {
  const Tensor x = rand({kSide, kSide});
  for (auto _ : state) benchmark::DoNotOptimize(naive_sum(x));
  state.SetBytesProcessed(state.iterations() * kSide * kSide * 4);
}
BENCHMARK(BM_NaiveLoopContiguous)->Unit(benchmark::kMillisecond);

void BM_NaiveLoopTransposed(benchmark::State& state) {
  const Tensor x = rand({kSide, kSide}).t();
  for (auto _ : state) benchmark::DoNotOptimize(naive_sum(x));
  state.SetBytesProcessed(state.iterations() * kSide * kSide * 4);
}
BENCHMARK(BM_NaiveLoopTransposed)->Unit(benchmark::kMillisecond);

// Per-op overhead on tiny tensors: the forward half of week 2's autograd benchmark.
void BM_TinyOpChain(benchmark::State& state) {
  const Tensor x = rand({16});
  for (auto _ : state) benchmark::DoNotOptimize(relu(x * 2 + 1).sum().item<float>());
}
BENCHMARK(BM_TinyOpChain);

void BM_Mm(benchmark::State& state) {
  const std::int64_t n = state.range(0);
  const Tensor a = rand({n, n}), b = rand({n, n});
  for (auto _ : state) benchmark::DoNotOptimize(mm(a, b));
  state.counters["GFLOP/s"] =
      benchmark::Counter(2.0 * static_cast<double>(n * n * n), benchmark::Counter::kIsIterationInvariantRate,
                         benchmark::Counter::OneK::kIs1000);
  state.counters["GFLOP/s"].value /= 1e9;
}
BENCHMARK(BM_Mm)->Arg(512)->Arg(1024)->Arg(2048)->Unit(benchmark::kMillisecond)->UseRealTime();
}  // namespace

BENCHMARK_MAIN();
