// Week 6 on a GPU: the figures of week 6's targets (docs/performance.md), measured in one process on one device. This
// program links the device build of the kernels (nvcc's), so `cuda` tensors live on the GPU and the
// engine's matmul calls cuBLAS. tools/gpu-bench runs it beside the same workloads in PyTorch
// (tools/bench/week06_torch_gpu.py) and prints the comparison. Without a device every benchmark
// says so and measures nothing.
//
// - GEMM at 4096^2 fp32: cuBLAS, the engine's matmul, and the three steps students write (naive,
//   shared-memory tiles, 2-D register blocking), each with its fraction of cuBLAS's GFLOP/s
//   (BM_RegisterGemmVsCublas is week06.register_gemm's performance point);
// - bandwidth: a device-to-device copy, the task kernels axpy, the two row reductions and the row
//   softmax, and the engine's add and sum, each as a fraction of the copy's bytes per second;
// - host to device at 200 KB and 64 MB, from pageable and from pinned memory (cudaMemcpy, and the
//   engine's Tensor::to);
// - allocate + free through the kit's caching allocator and straight from cudaMalloc/cudaFree;
// - the week-5 MLP epoch (60,000 examples) and CNN epoch (6,400) on the GPU;
// - week 4's feed pipeline with the GPU in it: compressed images read from disk and decoded by the
//   DataLoader's workers, pinned, copied with non_blocking and trained on by a small CNN, for
//   num_workers 0 to 12 (BM_FeedPipeline), beside its two stages alone (BM_FeedLoad, BM_FeedStep).

#include <benchmark/benchmark.h>
#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>

#include <kindling/cuda/caching_allocator.hpp>
#include <kindling/cuda/runtime.hpp>
#include <kindling/data.hpp>
#include <kindling/kindling.hpp>
#include <kindling/nn.hpp>
#include <kindling/optim.hpp>
#include <kindling/training.hpp>

#include "../image_files.hpp"
#include "../train_steps.hpp"
#include "task_kernels.hpp"

namespace {
using namespace kindling;

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}

// Runs a benchmark's body; an error (a CUDA call that failed, a kernel that faulted) becomes that
// benchmark's error message instead of ending the program, so the others still run.
void guarded(benchmark::State& state, const std::function<void()>& body) {
  try {
    body();
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
  }
}

bool skip_without_gpu(benchmark::State& state) {
  if (cuda::device_present()) return false;
  state.SkipWithError("no GPU here: this program runs its kernels on a device only (the simulator measures no speed)");
  return true;
}

// Seconds per run of `work`, timed on the default stream by two CUDA events around `runs` runs
// (the host issues the next run while the device runs this one).
double seconds_per_run(const std::function<void()>& work, int runs) {
  cudaEvent_t start = nullptr, stop = nullptr;
  check(cudaEventCreate(&start), "cudaEventCreate");
  check(cudaEventCreate(&stop), "cudaEventCreate");
  check(cudaEventRecord(start, nullptr), "cudaEventRecord");
  for (int run = 0; run < runs; ++run) work();
  check(cudaEventRecord(stop, nullptr), "cudaEventRecord");
  check(cudaEventSynchronize(stop), "cudaEventSynchronize");
  float ms = 0;
  check(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime");
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  return ms / 1e3 / runs;
}

// Times `work` with CUDA events: one warm-up, then per iteration kRuns runs between two events (as
// tools/bench/week06_torch_gpu.py times PyTorch). Returns the mean seconds per run, which is also
// each iteration's reported time.
constexpr int kRuns = 10;
double time_on_device(benchmark::State& state, const std::function<void()>& work) {
  work();
  check(cudaDeviceSynchronize(), "warm-up");
  double total = 0;
  for (auto _ : state) {
    const double seconds = seconds_per_run(work, kRuns);
    state.SetIterationTime(seconds);
    total += seconds;
  }
  check(cudaGetLastError(), "a kernel");
  return state.iterations() > 0 ? total / static_cast<double>(state.iterations()) : 0.0;
}

Tensor cuda_rand(IntArrayRef sizes) { return rand(sizes).cuda(); }
Tensor cuda_empty(IntArrayRef sizes) { return empty(sizes, TensorOptions(kFloat32).device(Device("cuda"))); }
const float* in(const Tensor& t) { return static_cast<const float*>(t.data_ptr()); }
float* out(const Tensor& t) { return static_cast<float*>(t.data_ptr()); }

// ---- GEMM ------------------------------------------------------------------------------------
constexpr int kGemm = 4096;

double seconds_of_cublas(int n) {  // one cuBLAS product of n x n fp32, the mean of 10 after warm-up
  static double cached = 0;
  if (cached > 0) return cached;
  const Tensor a = cuda_rand({n, n}), b = cuda_rand({n, n}), c = cuda_empty({n, n});
  cublasHandle_t h = nullptr;
  cublasCreate(&h);
  const float one = 1, zero = 0;
  const auto run = [&] {
    cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, in(b), n, in(a), n, &zero, out(c), n);
  };
  run();
  check(cudaDeviceSynchronize(), "warm-up");
  cached = seconds_per_run(run, 10);
  cublasDestroy(h);
  return cached;
}

// GFLOP/s of a product that took `seconds`, cuBLAS's, and the fraction (the same as the ratio of
// cuBLAS's time to this one's), both measured in this process on this device.
void gemm_counters(benchmark::State& state, int n, double seconds) {
  const double flops = 2.0 * n * n * static_cast<double>(n);
  state.counters["gflops"] = flops / seconds / 1e9;
  state.counters["cublas_gflops"] = flops / seconds_of_cublas(n) / 1e9;
  state.counters["fraction_of_cublas"] = seconds_of_cublas(n) / seconds;
}

enum class Gemm { Cublas, EngineMatmul, Naive, Tiled, Register, WarpTiled };

void run_gemm(benchmark::State& state, Gemm which) {
  if (skip_without_gpu(state)) return;
  const int n = kGemm;
  const Tensor a = cuda_rand({n, n}), b = cuda_rand({n, n}), c = cuda_empty({n, n});
  cublasHandle_t h = nullptr;
  cublasCreate(&h);
  const float one = 1, zero = 0;
  const double seconds = time_on_device(state, [&] {
    switch (which) {
      case Gemm::Cublas:
        cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, in(b), n, in(a), n, &zero, out(c), n);
        break;
      case Gemm::EngineMatmul:
        benchmark::DoNotOptimize(mm(a, b));
        break;
      case Gemm::Naive:
        gpu::matmul_naive(in(a), in(b), out(c), n, n, n);
        break;
      case Gemm::Tiled:
        gpu::matmul_tiled(in(a), in(b), out(c), n, n, n);
        break;
      case Gemm::Register:
        gpu::matmul_register_blocked(in(a), in(b), out(c), n, n, n);
        break;
      case Gemm::WarpTiled:
        gpu::matmul_warp_tiled(in(a), in(b), out(c), n, n, n);
        break;
    }
  });
  cublasDestroy(h);
  gemm_counters(state, n, seconds);
  state.SetLabel("4096^2 fp32");
}

void BM_GemmCublas(benchmark::State& state) {
  guarded(state, [&] { run_gemm(state, Gemm::Cublas); });
}
void BM_GemmEngineMatmul(benchmark::State& state) {
  guarded(state, [&] { run_gemm(state, Gemm::EngineMatmul); });
}
void BM_GemmNaive(benchmark::State& state) {
  guarded(state, [&] { run_gemm(state, Gemm::Naive); });
}
void BM_GemmTiled(benchmark::State& state) {
  guarded(state, [&] { run_gemm(state, Gemm::Tiled); });
}
// week06.register_gemm's performance point (grader/tasks.json): fraction_of_cublas.
void BM_RegisterGemmVsCublas(benchmark::State& state) {
  guarded(state, [&] { run_gemm(state, Gemm::Register); });
}
// week06.warp_tiled_gemm, the stretch step (graded on the simulator's counters; measured here).
void BM_GemmWarpTiled(benchmark::State& state) {
  guarded(state, [&] { run_gemm(state, Gemm::WarpTiled); });
}

// ---- bandwidth ---------------------------------------------------------------------------------
constexpr std::int64_t kRows = 16384, kCols = 4096, kElems = kRows * kCols;  // 64 Mi floats, 256 MiB

double copy_bytes_per_second() {  // a device-to-device copy of kElems floats, bytes read + written
  static double cached = 0;
  if (cached > 0) return cached;
  const Tensor x = cuda_rand({kElems}), y = cuda_empty({kElems});
  const auto bytes = static_cast<std::size_t>(kElems) * sizeof(float);
  const auto copy = [&] { cudaMemcpyAsync(out(y), in(x), bytes, cudaMemcpyDeviceToDevice, nullptr); };
  copy();
  check(cudaDeviceSynchronize(), "warm-up");
  cached = 2.0 * static_cast<double>(bytes) / seconds_per_run(copy, 20);
  return cached;
}

// `bytes` moved per iteration (read + written) in `seconds`, as GB/s and as a fraction of the
// device-to-device copy's bytes per second.
void bandwidth(benchmark::State& state, double bytes, double seconds) {
  state.counters["gbps"] = bytes / seconds / 1e9;
  state.counters["copy_gbps"] = copy_bytes_per_second() / 1e9;
  state.counters["fraction_of_copy"] = bytes / seconds / copy_bytes_per_second();
}

enum class Stream { Copy, Axpy, RowSumsShared, RowSumsWarp, SoftmaxRows, EngineAdd, EngineSum, EngineSoftmax };

void run_stream(benchmark::State& state, Stream which) {
  if (skip_without_gpu(state)) return;
  const Tensor x = cuda_rand({kRows, kCols}), y = cuda_rand({kRows, kCols});
  const Tensor sums = cuda_empty({kRows}), z = cuda_empty({kRows, kCols});
  const double f = sizeof(float);
  double bytes = 0;
  switch (which) {
    case Stream::Copy:
      bytes = 2 * f * kElems;
      break;
    case Stream::Axpy:
    case Stream::EngineAdd:
      bytes = 3 * f * kElems;
      break;
    case Stream::RowSumsShared:
    case Stream::RowSumsWarp:
    case Stream::EngineSum:
      bytes = f * (kElems + kRows);
      break;
    case Stream::SoftmaxRows:
    case Stream::EngineSoftmax:
      bytes = 2 * f * kElems;  // at least: read once, write once
      break;
  }
  const double seconds = time_on_device(state, [&] {
    switch (which) {
      case Stream::Copy:
        cudaMemcpyAsync(out(z), in(x), static_cast<std::size_t>(kElems) * sizeof(float), cudaMemcpyDeviceToDevice,
                        nullptr);
        break;
      case Stream::Axpy:
        gpu::axpy(0.5f, in(x), out(y), kElems);
        break;
      case Stream::RowSumsShared:
        gpu::row_sums_shared(in(x), out(sums), static_cast<int>(kRows), static_cast<int>(kCols));
        break;
      case Stream::RowSumsWarp:
        gpu::row_sums_warp(in(x), out(sums), static_cast<int>(kRows), static_cast<int>(kCols));
        break;
      case Stream::SoftmaxRows:
        gpu::softmax_rows(in(x), out(z), static_cast<int>(kRows), static_cast<int>(kCols));
        break;
      case Stream::EngineAdd:
        benchmark::DoNotOptimize(x + y);
        break;
      case Stream::EngineSum:
        benchmark::DoNotOptimize(x.sum({1}));
        break;
      case Stream::EngineSoftmax:
        benchmark::DoNotOptimize(softmax(x, 1));
        break;
    }
  });
  bandwidth(state, bytes, seconds);
  state.SetLabel("16384 x 4096 fp32");
}

void BM_CopyDeviceToDevice(benchmark::State& state) {
  guarded(state, [&] { run_stream(state, Stream::Copy); });
}
void BM_Axpy(benchmark::State& state) {
  guarded(state, [&] { run_stream(state, Stream::Axpy); });
}
void BM_RowSumsShared(benchmark::State& state) {
  guarded(state, [&] { run_stream(state, Stream::RowSumsShared); });
}
void BM_RowSumsWarp(benchmark::State& state) {
  guarded(state, [&] { run_stream(state, Stream::RowSumsWarp); });
}
void BM_SoftmaxRows(benchmark::State& state) {
  guarded(state, [&] { run_stream(state, Stream::SoftmaxRows); });
}
void BM_EngineAdd(benchmark::State& state) {
  guarded(state, [&] { run_stream(state, Stream::EngineAdd); });
}
void BM_EngineSum(benchmark::State& state) {
  guarded(state, [&] { run_stream(state, Stream::EngineSum); });
}
void BM_EngineSoftmax(benchmark::State& state) {
  guarded(state, [&] { run_stream(state, Stream::EngineSoftmax); });
}

// ---- host to device --------------------------------------------------------------------------
// range(0): bytes; range(1): 1 pinned (cudaHostAlloc), 0 pageable (malloc, touched). Wall time of
// a synchronous cudaMemcpy, as the host sees it.
void BM_HostToDevice_body(benchmark::State& state) {
  if (skip_without_gpu(state)) return;
  const auto bytes = static_cast<std::size_t>(state.range(0));
  const bool pinned = state.range(1) != 0;
  void* host = nullptr;
  if (pinned)
    check(cudaHostAlloc(&host, bytes, cudaHostAllocDefault), "cudaHostAlloc");
  else
    host = std::malloc(bytes);
  std::memset(host, 1, bytes);
  void* dev = nullptr;
  check(cudaMalloc(&dev, bytes), "cudaMalloc");
  check(cudaMemcpy(dev, host, bytes, cudaMemcpyHostToDevice), "warm-up");
  for (auto _ : state) check(cudaMemcpy(dev, host, bytes, cudaMemcpyHostToDevice), "cudaMemcpy");
  state.SetBytesProcessed(static_cast<std::int64_t>(bytes) * state.iterations());
  state.SetLabel(pinned ? "pinned" : "pageable");
  cudaFree(dev);
  if (pinned)
    cudaFreeHost(host);
  else
    std::free(host);
}
void BM_HostToDevice(benchmark::State& state) {
  guarded(state, [&] { BM_HostToDevice_body(state); });
}
BENCHMARK(BM_HostToDevice)
    ->Args({200 * 1000, 0})
    ->Args({200 * 1000, 1})
    ->Args({64 << 20, 0})
    ->Args({64 << 20, 1})
    ->UseRealTime();

// The engine's path: x.to(cuda) from a pageable tensor, and from a pinned one with non_blocking
// (then a synchronize), 64 MiB.
void BM_TensorToCuda_body(benchmark::State& state) {
  if (skip_without_gpu(state)) return;
  const bool pinned = state.range(0) != 0;
  Tensor x = rand({16 << 20});
  if (pinned) x = x.pin_memory();
  for (auto _ : state) {
    const Tensor d = x.to(Device("cuda"), /*non_blocking=*/pinned);
    cuda::synchronize();
    benchmark::DoNotOptimize(d.data_ptr());
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(x.numel() * 4) * state.iterations());
  state.SetLabel(pinned ? "pinned, non_blocking" : "pageable");
}
void BM_TensorToCuda(benchmark::State& state) {
  guarded(state, [&] { BM_TensorToCuda_body(state); });
}
BENCHMARK(BM_TensorToCuda)->Arg(0)->Arg(1)->UseRealTime();

// ---- allocation ------------------------------------------------------------------------------
void BM_AllocFreeCached_body(benchmark::State& state) {
  if (skip_without_gpu(state)) return;
  cuda::CachingAllocator cache(cuda::device_runtime());
  const auto bytes = static_cast<std::size_t>(state.range(0));
  for (auto _ : state) cache.free(cache.allocate(bytes));
  cache.empty_cache();
  state.SetLabel("caching allocator");
}
void BM_AllocFreeCached(benchmark::State& state) {
  guarded(state, [&] { BM_AllocFreeCached_body(state); });
}
BENCHMARK(BM_AllocFreeCached)->Arg(4096)->Arg(4 << 20)->Unit(benchmark::kMicrosecond);

void BM_AllocFreeRaw_body(benchmark::State& state) {
  if (skip_without_gpu(state)) return;
  cuda::Runtime& rt = cuda::device_runtime();
  const auto bytes = static_cast<std::size_t>(state.range(0));
  for (auto _ : state) rt.free(rt.malloc(bytes));
  state.SetLabel("cudaMalloc + cudaFree");
}
void BM_AllocFreeRaw(benchmark::State& state) {
  guarded(state, [&] { BM_AllocFreeRaw_body(state); });
}
BENCHMARK(BM_AllocFreeRaw)->Arg(4096)->Arg(4 << 20)->Unit(benchmark::kMicrosecond);

// ---- training --------------------------------------------------------------------------------
// As week05_bench.cpp's BM_MlpEpoch60k and BM_CnnEpoch6400, with the data and the model on the GPU:
// the same loop (train_steps.hpp), then a wait for the device.
void train_steps(nn::Module& model, optim::Optimizer& opt, const Tensor& x, const Tensor& y, std::int64_t batch) {
  bench::train_steps(model, opt, x, y, batch);
  cuda::synchronize();
}

void BM_MlpEpoch60k_body(benchmark::State& state) {
  if (skip_without_gpu(state)) return;
  manual_seed(5);
  const Tensor x = rand({60000, 784}).cuda();
  const Tensor y = randint(0, 10, {60000}).cuda();
  nn::Sequential model(nn::Linear(784, 256), nn::ReLU(), nn::Linear(256, 10));
  model.to(Device("cuda"));
  optim::SGD opt(model.parameters(), optim::SGD::Config{.lr = 0.01, .momentum = 0.9});
  train_steps(model, opt, x.slice(0, 0, 640), y.slice(0, 0, 640), 64);  // warm-up: the allocator's cache
  for (auto _ : state) train_steps(model, opt, x, y, 64);
  state.SetLabel("MLP 784-256-10, SGD momentum, batch 64, on the GPU");
}
void BM_MlpEpoch60k(benchmark::State& state) {
  guarded(state, [&] { BM_MlpEpoch60k_body(state); });
}
BENCHMARK(BM_MlpEpoch60k)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(3);

void BM_CnnEpoch6400_body(benchmark::State& state) {
  if (skip_without_gpu(state)) return;
  manual_seed(6);
  const Tensor x = rand({6400, 1, 28, 28}).cuda();
  const Tensor y = randint(0, 10, {6400}).cuda();
  nn::Sequential model(nn::Conv2d(1, 16, 3, nn::Conv2dOptions{.padding = 1}), nn::ReLU(), nn::MaxPool2d(2),
                       nn::Conv2d(16, 32, 3, nn::Conv2dOptions{.padding = 1}), nn::ReLU(), nn::MaxPool2d(2),
                       nn::Flatten(), nn::Linear(32 * 7 * 7, 10));
  model.to(Device("cuda"));
  optim::SGD opt(model.parameters(), optim::SGD::Config{.lr = 0.01, .momentum = 0.9});
  train_steps(model, opt, x.slice(0, 0, 640), y.slice(0, 0, 640), 64);
  for (auto _ : state) train_steps(model, opt, x, y, 64);
  state.SetLabel("CNN 2 conv + 2 pool + linear, SGD momentum, batch 64, on the GPU");
}
void BM_CnnEpoch6400(benchmark::State& state) {
  guarded(state, [&] { BM_CnnEpoch6400_body(state); });
}
BENCHMARK(BM_CnnEpoch6400)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(3);

// ---- the feed pipeline: disk -> workers -> pinned memory -> GPU -> a training step --------------
// Week 4's measurement (kindling-figures --record-feed, lectures/week04-data.md "Feeding the GPU")
// with its stand-in replaced by the GPU: 1,536 zlib-compressed 3 x 96 x 96 images in a temporary
// folder, the page cache dropped before every epoch, batches of 32. BM_FeedLoad is a worker's part
// alone (L: read, decode and collate, num_workers 0, no model), BM_FeedStep the loop's part alone
// on one batch (S: pin it, as the loader's pin_memory does on the loop's thread, copy it with
// non_blocking and take a step of a small CNN), BM_FeedPipeline/n the whole epoch with n workers
// and pin_memory; each reports ms_per_batch. workers_to_feed(L, S) is the rule to compare the
// pipeline's curve with.
struct FeedFiles {
  std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("kindling-feed-bench-" + std::to_string(::getpid()));
  FeedFiles() { bench::write_image_files(dir); }
  ~FeedFiles() {
    std::error_code ignored;
    std::filesystem::remove_all(dir, ignored);
  }
};
const FeedFiles& feed_files() {
  static const FeedFiles files;
  return files;
}

struct FeedModel {
  nn::Sequential model{nn::Conv2d(3, 16, 3, nn::Conv2dOptions{.padding = 1}),
                       nn::ReLU(),
                       nn::MaxPool2d(2),
                       nn::Conv2d(16, 32, 3, nn::Conv2dOptions{.padding = 1}),
                       nn::ReLU(),
                       nn::MaxPool2d(2),
                       nn::Flatten(),
                       nn::Linear(32 * 24 * 24, 10)};
  std::unique_ptr<optim::SGD> opt;
  FeedModel() {
    manual_seed(7);
    model.to(Device("cuda"));
    opt = std::make_unique<optim::SGD>(model.parameters(), optim::SGD::Config{.lr = 0.01, .momentum = 0.9});
  }
  // One step on a pinned batch: the copy with non_blocking, forward, backward, SGD. The wait at the
  // end stands for a loss.item(), and is needed: the batch's pinned buffer returns to the pool for
  // the next batch when the batch is dropped, and must not be reused while a copy still reads it.
  void step(const data::Batch& b) {
    const Tensor x = b[0].to(Device("cuda"), /*non_blocking=*/true), y = b[1].to(Device("cuda"), true);
    opt->zero_grad();
    const Tensor loss = nn::functional::cross_entropy(model(x), y);
    loss.backward();
    opt->step();
    cuda::synchronize();
  }
};

constexpr std::int64_t kFeedBatches = bench::kImageItems / bench::kImageBatch;  // an epoch's

// ms_per_batch: `total_ms` over the state's epochs of kFeedBatches.
void report_per_batch(benchmark::State& state, double total_ms) {
  state.counters["ms_per_batch"] = total_ms / static_cast<double>(state.iterations() * kFeedBatches);
}

void BM_FeedLoad_body(benchmark::State& state) {
  const auto& files = feed_files();
  auto ds = std::make_shared<bench::ImageFiles>(files.dir);
  double total = 0;
  for (auto _ : state) {
    state.PauseTiming();
    bench::drop_image_files_from_cache(files.dir);
    state.ResumeTiming();
    const auto t0 = std::chrono::steady_clock::now();
    data::DataLoader loader(ds, {.batch_size = bench::kImageBatch});
    for (const data::Batch& b : loader) benchmark::DoNotOptimize(b[0].data_ptr());
    total += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  }
  report_per_batch(state, total);
  state.SetLabel("L: read, decode and collate a batch of 32, no workers, no model");
}
void BM_FeedLoad(benchmark::State& state) {
  guarded(state, [&] { BM_FeedLoad_body(state); });
}
BENCHMARK(BM_FeedLoad)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(3);

void BM_FeedStep_body(benchmark::State& state) {
  if (skip_without_gpu(state)) return;
  const auto& files = feed_files();
  auto ds = std::make_shared<bench::ImageFiles>(files.dir);
  data::DataLoader loader(ds, {.batch_size = bench::kImageBatch});
  const data::Batch batch = *loader.begin();
  const auto pool = data::PinnedMemoryPool::create();
  FeedModel m;
  const auto step = [&] { m.step({pool->pinned_copy(batch[0]), pool->pinned_copy(batch[1])}); };
  for (int i = 0; i < 8; ++i) step();  // warm-up: the allocator's cache and the pinned pool
  double total = 0;
  for (auto _ : state) {
    const auto t0 = std::chrono::steady_clock::now();
    for (std::int64_t k = 0; k < kFeedBatches; ++k) step();
    total += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  }
  report_per_batch(state, total);
  state.SetLabel("S: pin a batch of 32, copy it with non_blocking and train a small CNN on it on the GPU");
}
void BM_FeedStep(benchmark::State& state) {
  guarded(state, [&] { BM_FeedStep_body(state); });
}
BENCHMARK(BM_FeedStep)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(3);

void BM_FeedPipeline_body(benchmark::State& state) {
  if (skip_without_gpu(state)) return;
  const auto& files = feed_files();
  auto ds = std::make_shared<bench::ImageFiles>(files.dir);
  FeedModel m;
  {
    data::DataLoader warm(ds, {.batch_size = bench::kImageBatch, .num_workers = 2, .pin_memory = true});
    for (const data::Batch& b : warm) m.step(b);
  }
  double total = 0;
  for (auto _ : state) {
    state.PauseTiming();
    bench::drop_image_files_from_cache(files.dir);
    state.ResumeTiming();
    const auto t0 = std::chrono::steady_clock::now();
    data::DataLoader loader(ds, {.batch_size = bench::kImageBatch, .num_workers = state.range(0), .pin_memory = true});
    for (const data::Batch& b : loader) m.step(b);
    total += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  }
  report_per_batch(state, total);
  state.SetLabel("an epoch from disk through num_workers workers and pinned memory to a CNN step on the GPU");
}
void BM_FeedPipeline(benchmark::State& state) {
  guarded(state, [&] { BM_FeedPipeline_body(state); });
}
BENCHMARK(BM_FeedPipeline)
    ->Arg(0)
    ->Arg(1)
    ->Arg(2)
    ->Arg(4)
    ->Arg(8)
    ->Arg(12)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->Iterations(3);

}  // namespace

BENCHMARK(BM_GemmCublas)->UseManualTime()->Unit(benchmark::kMillisecond)->MinTime(0.5);
BENCHMARK(BM_GemmEngineMatmul)->UseManualTime()->Unit(benchmark::kMillisecond)->MinTime(0.5);
BENCHMARK(BM_GemmNaive)->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(1);
BENCHMARK(BM_GemmTiled)->UseManualTime()->Unit(benchmark::kMillisecond)->MinTime(0.5);
BENCHMARK(BM_RegisterGemmVsCublas)->UseManualTime()->Unit(benchmark::kMillisecond)->MinTime(0.5);
BENCHMARK(BM_GemmWarpTiled)->UseManualTime()->Unit(benchmark::kMillisecond)->MinTime(0.5);
BENCHMARK(BM_CopyDeviceToDevice)->UseManualTime()->Unit(benchmark::kMicrosecond)->MinTime(0.3);
BENCHMARK(BM_Axpy)->UseManualTime()->Unit(benchmark::kMicrosecond)->MinTime(0.3);
BENCHMARK(BM_RowSumsShared)->UseManualTime()->Unit(benchmark::kMicrosecond)->MinTime(0.3);
BENCHMARK(BM_RowSumsWarp)->UseManualTime()->Unit(benchmark::kMicrosecond)->MinTime(0.3);
BENCHMARK(BM_SoftmaxRows)->UseManualTime()->Unit(benchmark::kMicrosecond)->MinTime(0.3);
BENCHMARK(BM_EngineAdd)->UseManualTime()->Unit(benchmark::kMicrosecond)->MinTime(0.3);
BENCHMARK(BM_EngineSum)->UseManualTime()->Unit(benchmark::kMicrosecond)->MinTime(0.3);
BENCHMARK(BM_EngineSoftmax)->UseManualTime()->Unit(benchmark::kMicrosecond)->MinTime(0.3);

BENCHMARK_MAIN();
