// The CUDA simulator itself: each class of bug a student writes in a kernel is reported with
// the kernel, the block and the thread, and its fixed form passes (solutions/week06_cuda/src/kernels/fixtures.cu).

#include <chrono>
#include <cmath>
#include <numeric>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <kindling/cuda/kernel.hpp>

#include <kindling/cuda/fixtures.hpp>

namespace {
namespace sim = kindling::cuda::sim;
using kindling::cuda::DevPtr;
using kindling::cuda::KernelError;

template <class T>
DevPtr<T> to_device(const std::vector<T>& v) {
  sim::Allocation* a = sim::allocate(v.size() * sizeof(T), sizeof(T), sim::type_name<T>());
  sim::copy_to_device(a, 0, v.data(), v.size() * sizeof(T));
  return DevPtr<T>(a, 0);
}
template <class T>
DevPtr<T> uninitialized(std::size_t n) {
  return DevPtr<T>(sim::allocate(n * sizeof(T), sizeof(T), sim::type_name<T>()), 0);
}
template <class T>
std::vector<T> to_host(DevPtr<T> p, std::size_t n) {
  std::vector<T> v(n);
  sim::copy_to_host(v.data(), p.allocation(), 0, n * sizeof(T));
  return v;
}
std::vector<float> ramp(int n) {
  std::vector<float> v(static_cast<std::size_t>(n));
  std::iota(v.begin(), v.end(), 1.0f);
  return v;
}

// The simulator's own checks are easiest to read with each launch run when issued (eager):
// the error comes from the launch itself.
class EngineSimulator : public ::testing::Test {
 protected:
  void SetUp() override { sim::set_mode(kindling::cuda::SimMode::Eager); }
  void TearDown() override {
    sim::reset_device();
    sim::set_mode(kindling::cuda::SimMode::Lazy);
  }
};

// Runs `f`, expects a KernelError whose message holds every one of `parts`.
template <class F>
void expect_kernel_error(F f, const std::vector<std::string>& parts) {
  try {
    f();
    FAIL() << "no error was reported";
  } catch (const KernelError& e) {
    const std::string m = e.what();
    for (const auto& p : parts) EXPECT_NE(m.find(p), std::string::npos) << "'" << p << "' not in: " << m;
  }
  sim::reset_device();  // a kernel that faulted leaves a sticky error, as on a GPU
}
}  // namespace

TEST_F(EngineSimulator, ABlockSumWithoutABarrierIsReportedAsARace) {
  const auto x = to_device(ramp(256));
  const auto out = uninitialized<float>(1);
  expect_kernel_error([&] { kindling::cuda::fixtures::block_sum(x, out, 256, /*barrier=*/false); },
                      {"kernel fixtures::block_sum_kernel", "depends on the order in which threads run",
                       "element 0 of allocation", "forward order", "reverse order", "__syncthreads missing"});
  kindling::cuda::fixtures::block_sum(x, out, 256, /*barrier=*/true);
  EXPECT_EQ(to_host(out, 1)[0], 256.0f * 257.0f / 2.0f);
}

TEST_F(EngineSimulator, ASyncthreadsInsideAnIfIsReportedNotHung) {
  auto x = to_device(ramp(100));  // 2 blocks of 64: 28 threads of the second fail `i < n`
  expect_kernel_error([&] { kindling::cuda::fixtures::pair_sum(x, 100, /*inside_if=*/true); },
                      {"kernel fixtures::pair_sum_kernel, block (1, 0, 0)", "__syncthreads at fixtures.cu:",
                       "is reached by 36 of the block's 64 threads; 28 exited without reaching it"});
  x = to_device(ramp(100));
  kindling::cuda::fixtures::pair_sum(x, 100, /*inside_if=*/false);
  const auto y = to_host(x, 100);
  EXPECT_EQ(y[0], 3.0f);     // 1 + 2
  EXPECT_EQ(y[99], 199.0f);  // 100 + 99
}

TEST_F(EngineSimulator, AMemsetWithoutTheElementSizeLeavesElementsNeverWritten) {
  const auto x = uninitialized<float>(64);
  const auto y = uninitialized<float>(64);
  sim::set_bytes(x.allocation(), 0, 0, 64);  // 64 bytes: 16 floats, not 64
  expect_kernel_error([&] { kindling::cuda::fixtures::twice(x, y, 64, false); },
                      {"kernel fixtures::twice_kernel, block (0, 0, 0), thread (16, 0, 0)",
                       "a read of element 16 of allocation", "which was never written"});
  sim::set_bytes(x.allocation(), 0, 0, 64 * sizeof(float));
  kindling::cuda::fixtures::twice(x, y, 64, false);
  EXPECT_EQ(to_host(y, 64), std::vector<float>(64, 0.0f));
}

TEST_F(EngineSimulator, AnIndexOnePastTheEndIsReportedWithTheAllocationsSize) {
  const auto x = to_device(ramp(128));
  const auto y = uninitialized<float>(128);
  // 100 elements in one block of 128 threads: thread 100 passes `i <= n` and reads x[100].
  const auto x2 = to_device(ramp(100));
  const auto y2 = uninitialized<float>(100);
  expect_kernel_error(
      [&] { kindling::cuda::fixtures::twice(x2, y2, 100, /*off_by_one=*/true); },
      {"kernel fixtures::twice_kernel, block (0, 0, 0), thread (100, 0, 0)", "out-of-bounds read at element 100",
       "which has 100 elements (400 bytes)", "bounds guard missing, or off by one"});
  kindling::cuda::fixtures::twice(x2, y2, 100, false);
  EXPECT_EQ(to_host(y2, 100)[99], 200.0f);
  kindling::cuda::fixtures::twice(x, y, 128, false);
  EXPECT_EQ(to_host(y, 128)[127], 256.0f);
}

TEST_F(EngineSimulator, AShuffleWhoseMaskNamesAnExitedLaneIsReported) {
  const auto x = to_device(ramp(20));
  const auto out = uninitialized<float>(1);
  expect_kernel_error(
      [&] { kindling::cuda::fixtures::warp_sum(x, out, 20, /*early_exit=*/true); },
      {"kernel fixtures::warp_sum_kernel", "has mask 0xffffffff, which names lane 20", "which has exited"});
  kindling::cuda::fixtures::warp_sum(x, out, 20, /*early_exit=*/false);
  EXPECT_EQ(to_host(out, 1)[0], 210.0f);
}

TEST_F(EngineSimulator, AUseAfterFreeIsNamedAsOne) {
  const auto x = to_device(ramp(64));
  const auto y = uninitialized<float>(64);
  sim::release(x.allocation());
  expect_kernel_error([&] { kindling::cuda::fixtures::twice(x, y, 64, false); },
                      {"kernel fixtures::twice_kernel", "after cudaFree (use after free)"});
  EXPECT_THROW(sim::release(x.allocation()), KernelError);  // freeing twice
}

TEST_F(EngineSimulator, AtomicsAreNotRacesAndCountExactly) {
  std::vector<float> v = ramp(200);
  for (std::size_t i = 0; i < v.size(); i += 3) v[i] = -v[i];
  const auto x = to_device(v);
  const auto counts = to_device(std::vector<int>{0});
  const auto sum = to_device(std::vector<float>{0.0f});
  kindling::cuda::fixtures::count_positive(x, counts, sum, 200);  // three orders: float sums differ in rounding only
  EXPECT_EQ(to_host(counts, 1)[0], 133);
  EXPECT_FLOAT_EQ(to_host(sum, 1)[0], std::accumulate(v.begin(), v.end(), 0.0f));
}

TEST_F(EngineSimulator, DynamicSharedMemoryIsBoundsChecked) {
  const auto x = to_device(ramp(200));
  const auto y = uninitialized<float>(200);
  expect_kernel_error([&] { kindling::cuda::fixtures::reverse_blocks(x, y, 200, 100); },
                      {"kernel fixtures::reverse_blocks_kernel", "thread (100, 0, 0)",
                       "out-of-bounds write at element 100 (byte offset 400) of the block's dynamic shared memory"});
  kindling::cuda::fixtures::reverse_blocks(x, y, 200, 128);
  const auto r = to_host(y, 200);
  EXPECT_EQ(r[0], 128.0f);
  EXPECT_EQ(r[127], 1.0f);
  EXPECT_EQ(r[128], 200.0f);
  EXPECT_EQ(r[199], 129.0f);
}

TEST_F(EngineSimulator, BallotAndSyncthreadsCountSeeEveryLane) {
  std::vector<float> v(64, -1.0f);
  for (int i : {0, 5, 31, 33, 63}) v[static_cast<std::size_t>(i)] = 1.0f;
  const auto x = to_device(v);
  const auto out = uninitialized<unsigned>(3);
  kindling::cuda::fixtures::ballots(x, out, 64);
  const auto r = to_host(out, 3);
  EXPECT_EQ(r[0], (1u << 0) | (1u << 5) | (1u << 31));
  EXPECT_EQ(r[1], (1u << 1) | (1u << 31));
  EXPECT_EQ(r[2], 5u);
}

TEST_F(EngineSimulator, LaunchesBeyondCudasLimitsAreRefused) {
  const auto x = to_device(ramp(64));
  const auto y = uninitialized<float>(64);
  try {
    kindling::cuda::fixtures::twice_with_block(x, y, 64, 2048);
    FAIL() << "a block of 2048 threads was launched";
  } catch (const kindling::Error& e) {
    EXPECT_NE(
        std::string(e.what()).find("invalid launch configuration: too many threads per block: 2048 (at most 1024)"),
        std::string::npos)
        << e.what();
  }
}

// The naive kernel that the tiled ones are measured against: right, and 2 m n k global loads.
// (The engine's tiled GEMM against it: device_ops_test.cpp.)
TEST_F(EngineSimulator, TheNaiveMatmulIsRightAndReadsTwoMNKFloats) {
  const int m = 48, k = 40, n = 33;  // not multiples of the tile: the edges are guarded
  std::vector<float> a(static_cast<std::size_t>(m * k)), b(static_cast<std::size_t>(k * n));
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = static_cast<float>(i % 7) - 3.0f;
  for (std::size_t i = 0; i < b.size(); ++i) b[i] = static_cast<float>(i % 5) * 0.5f;
  const auto da = to_device(a), db = to_device(b);
  const auto c1 = uninitialized<float>(static_cast<std::size_t>(m * n));
  kindling::cuda::fixtures::matmul_naive(da, db, c1, m, k, n);
  const auto naive_loads = sim::last_counters().global_loads;
  const auto r1 = to_host(c1, static_cast<std::size_t>(m * n));
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      float s = 0.0f;
      for (int p = 0; p < k; ++p) s += a[static_cast<std::size_t>(i * k + p)] * b[static_cast<std::size_t>(p * n + j)];
      ASSERT_NEAR(r1[static_cast<std::size_t>(i * n + j)], s, 1e-4f * (1.0f + std::fabs(s)));
    }
  EXPECT_EQ(naive_loads, 2u * m * n * k);
}

TEST_F(EngineSimulator, OutsideAKernelTheBuiltInsSaySo) {
  EXPECT_THROW((void)threadIdx.x, KernelError);
  EXPECT_THROW(__syncthreads(), KernelError);
}
