// Task week06.warp_reduce: row sums with warp shuffles, one value per warp through shared memory
// and a single barrier per block, on the simulator.

#include <string>
#include <vector>

#include <kindling/cuda/kernels.hpp>
#include <kindling/cuda/sim.hpp>
#include <kindling/kindling.hpp>

#include "sim_arrays.hpp"
#include "testing.hpp"

namespace kindling::testing {
namespace {
namespace cu = kindling::cuda;
using sim_arrays::DeviceFloats;

std::vector<float> row_sums(const std::vector<float>& x, int rows, int cols) {
  const DeviceFloats dx(x);
  const DeviceFloats out = DeviceFloats::uninitialized(static_cast<std::size_t>(rows));
  cu::row_sums_warp(dx.cptr(), out.ptr(), rows, cols);
  return out.host();
}

std::vector<double> expected_sums(const std::vector<float>& x, int rows, int cols) {
  std::vector<double> s(static_cast<std::size_t>(rows), 0.0);
  for (int r = 0; r < rows; ++r)
    for (int j = 0; j < cols; ++j)
      s[static_cast<std::size_t>(r)] +=
          x[static_cast<std::size_t>(r) * static_cast<std::size_t>(cols) + static_cast<std::size_t>(j)];
  return s;
}
}  // namespace

TEST(week06_warp_reduce, SumsEachRowForWidthsThatAreNotMultiplesOfAWarp) {
  for (int cols : {1, 31, 32, 33, 255, 256, 257, 1000}) {
    const int rows = 4;
    const auto x = sim_arrays::small_integers(static_cast<std::size_t>(rows * cols), cols);
    const auto got = row_sums(x, rows, cols);
    const auto want = expected_sums(x, rows, cols);
    for (int r = 0; r < rows; ++r)
      ASSERT_EQ(got[static_cast<std::size_t>(r)], static_cast<float>(want[static_cast<std::size_t>(r)]))
          << "row " << r << " of " << rows << " x " << cols;
  }
}

TEST(week06_warp_reduce, FractionsSumToTheSameValueInEveryThreadOrder) {
  const int rows = 3, cols = 600;
  const auto x = sim_arrays::fractions(static_cast<std::size_t>(rows * cols), 3);
  std::vector<float> got;
  try {
    got = row_sums(x, rows, cols);
  } catch (const NotImplemented&) {
    throw;
  } catch (const std::exception& e) {
    FAIL() << "the kernel failed on the simulator: " << e.what();
  }
  const auto want = expected_sums(x, rows, cols);
  for (int r = 0; r < rows; ++r)
    EXPECT_NEAR(got[static_cast<std::size_t>(r)], want[static_cast<std::size_t>(r)], 1e-3) << "row " << r;
}

TEST(week06_warp_reduce, OneBarrierAndOneSharedStorePerWarp) {
  // The warps combine their values in registers: per block one __syncthreads and one shared store
  // per warp (8), where the tree of week06.block_reduce takes 9 barriers and 256 + 255 stores.
  const int rows = 3, cols = 700;
  const auto x = sim_arrays::small_integers(static_cast<std::size_t>(rows * cols), 4);
  (void)row_sums(x, rows, cols);
  const auto c = cu::sim::last_counters();
  sim_arrays::record_counters(c);
  EXPECT_EQ(c.barriers, static_cast<std::uint64_t>(rows)) << "__syncthreads per block: " << c.barriers / rows;
  EXPECT_LE(c.shared_stores, static_cast<std::uint64_t>(rows) * (cu::kRowThreads / 32))
      << "stores to shared memory: " << c.shared_stores;
  EXPECT_GE(c.shared_stores, static_cast<std::uint64_t>(rows)) << "one value per warp goes through shared memory";
}

TEST(week06_warp_reduce, ManyRowsARowOfNoColumnsAndNoRows) {
  const int rows = 130, cols = 2;
  const auto x = sim_arrays::small_integers(static_cast<std::size_t>(rows * cols), 6);
  const auto got = row_sums(x, rows, cols);
  const auto want = expected_sums(x, rows, cols);
  for (int r = 0; r < rows; ++r)
    ASSERT_EQ(got[static_cast<std::size_t>(r)], static_cast<float>(want[static_cast<std::size_t>(r)])) << "row " << r;
  const DeviceFloats out = DeviceFloats::uninitialized(3);
  const DeviceFloats none(std::vector<float>{});
  cu::row_sums_warp(none.cptr(), out.ptr(), 3, 0);
  EXPECT_EQ(out.host(), std::vector<float>(3, 0.0f));
  cu::row_sums_warp(cu::DevPtr<const float>(), cu::DevPtr<float>(), 0, 10);
  cu::synchronize();
}

}  // namespace kindling::testing
