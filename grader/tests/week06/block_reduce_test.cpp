// Task week06.block_reduce: row sums with one block per row and a tree in shared memory, on the
// simulator (which runs each launch in several thread orders and reports a difference as a race).

#include <cmath>
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

// Runs row_sums_shared on rows x cols values and returns the sums (the simulator's errors propagate).
std::vector<float> row_sums(const std::vector<float>& x, int rows, int cols) {
  const DeviceFloats dx(x);
  const DeviceFloats out = DeviceFloats::uninitialized(static_cast<std::size_t>(rows));
  cu::row_sums_shared(dx.cptr(), out.ptr(), rows, cols);
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

TEST(week06_block_reduce, SumsEachRowForWidthsThatAreNotMultiplesOfTheBlock) {
  // Small integers: every order of addition gives the same float, so the sums are exact.
  for (int cols : {1, 7, 255, 256, 257, 1000}) {
    const int rows = 5;
    const auto x = sim_arrays::small_integers(static_cast<std::size_t>(rows * cols), cols);
    const auto got = row_sums(x, rows, cols);
    const auto want = expected_sums(x, rows, cols);
    for (int r = 0; r < rows; ++r)
      ASSERT_EQ(got[static_cast<std::size_t>(r)], static_cast<float>(want[static_cast<std::size_t>(r)]))
          << "row " << r << " of " << rows << " x " << cols;
  }
}

TEST(week06_block_reduce, FractionsSumToTheSameValueInEveryThreadOrder) {
  // With fractions the order of additions shows in the last bits: the simulator runs the launch
  // forward, reversed and shuffled, and a result that changes is reported as a race.
  const int rows = 3, cols = 777;
  const auto x = sim_arrays::fractions(static_cast<std::size_t>(rows * cols), 1);
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

TEST(week06_block_reduce, ManyRowsEachGetTheirOwnBlock) {
  const int rows = 300, cols = 3;
  const auto x = sim_arrays::small_integers(static_cast<std::size_t>(rows * cols), 5);
  const auto got = row_sums(x, rows, cols);
  const auto want = expected_sums(x, rows, cols);
  for (int r = 0; r < rows; ++r)
    ASSERT_EQ(got[static_cast<std::size_t>(r)], static_cast<float>(want[static_cast<std::size_t>(r)])) << "row " << r;
}

TEST(week06_block_reduce, ARowOfNoColumnsSumsToZeroAndNoRowsLaunchNothing) {
  const DeviceFloats out = DeviceFloats::uninitialized(4);
  const DeviceFloats none(std::vector<float>{});
  cu::row_sums_shared(none.cptr(), out.ptr(), 4, 0);
  EXPECT_EQ(out.host(), std::vector<float>(4, 0.0f));
  cu::row_sums_shared(cu::DevPtr<const float>(), cu::DevPtr<float>(), 0, 10);  // no block: nothing read or written
  cu::synchronize();
}

TEST(week06_block_reduce, ThePartialSumsAreCombinedAsATree) {
  // 256 partial sums combined in pairs take log2(256) = 8 levels, and a thread reads at most two
  // partial sums per level: about 2 log2(256) = 16 reads of shared memory by the busiest thread.
  // Thread 0 adding up all 256 partial sums alone reads 256 of them, while 255 threads idle.
  // (The simulator counts each thread's reads; barriers are not counted, so padding a kernel
  // with them changes nothing.)
  const int rows = 2, cols = 512;
  const auto x = sim_arrays::small_integers(static_cast<std::size_t>(rows * cols), 2);
  (void)row_sums(x, rows, cols);
  const auto c = cu::sim::last_counters();
  sim_arrays::record_counters(c);
  EXPECT_LE(c.max_thread_shared_loads, 2u * 8u + 2u)
      << "the busiest thread read " << c.max_thread_shared_loads
      << " values of shared memory; a tree of 256 partial sums needs about 16 (two per level)";
  EXPECT_GE(c.shared_stores, static_cast<std::uint64_t>(rows * cu::kRowThreads))
      << "every thread stores its partial sum in shared memory (stores per block: " << c.shared_stores / rows << ")";
}

}  // namespace kindling::testing
