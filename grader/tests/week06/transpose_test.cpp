// Task week06.transpose: out = in^T through a shared-memory tile, graded for its values (any
// shape, a matrix inside a wider one) and for its memory traffic (the simulator's counters, exact
// and the same on every run): global sectors against the fewest the bytes need, and shared-memory
// bank conflicts.

#include <cstddef>
#include <string>
#include <vector>

#include <kindling/cuda/fixtures.hpp>
#include <kindling/cuda/kernels.hpp>
#include <kindling/cuda/sim.hpp>
#include <kindling/kindling.hpp>

#include "sim_arrays.hpp"
#include "testing.hpp"

namespace kindling::testing {
namespace {
namespace cu = kindling::cuda;
using sim_arrays::DeviceFloats;

// A rows x cols matrix inside a rows x ld one: element (r, c) is r * 1000 + c (exact in float),
// and the ld - cols elements after each row are -1 (a kernel that reads them moves a -1 into out).
std::vector<float> pitched(int rows, int cols, int ld) {
  std::vector<float> v(static_cast<std::size_t>(rows) * static_cast<std::size_t>(ld), -1.0f);
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) v[static_cast<std::size_t>(r) * ld + c] = static_cast<float>(r * 1000 + c);
  return v;
}

// Runs the task's transpose and checks every element of out; returns the launch's counters.
cu::sim::Counters expect_transpose(int rows, int cols, int ld) {
  const DeviceFloats in(pitched(rows, cols, ld));
  const DeviceFloats out = DeviceFloats::uninitialized(static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols));
  try {
    cu::transpose(in.cptr(), out.ptr(), rows, cols, ld);
    cu::synchronize();
  } catch (const NotImplemented&) {
    throw;
  } catch (const std::exception& e) {
    ADD_FAILURE() << "rows = " << rows << ", cols = " << cols << ", ld = " << ld
                  << ": the kernel failed on the simulator: " << e.what();
    return {};
  }
  const auto counters = cu::sim::last_counters();
  const auto got = out.host();
  for (int c = 0; c < cols; ++c)
    for (int r = 0; r < rows; ++r) {
      const float want = static_cast<float>(r * 1000 + c), have = got[static_cast<std::size_t>(c) * rows + r];
      if (have != want) {
        ADD_FAILURE() << "rows = " << rows << ", cols = " << cols << ", ld = " << ld << ": out[" << c << "][" << r
                      << "] is " << have << ", want in[" << r << "][" << c << "] = " << want
                      << (have == -1.0f ? " (a -1 comes from past the end of a row of in: is the row step ld?)" : "");
        return counters;
      }
    }
  return counters;
}
}  // namespace

TEST(week06_transpose, TransposesSquareAndRectangularMatrices) {
  expect_transpose(32, 32, 32);  // one tile
  expect_transpose(64, 96, 96);  // 2 x 3 tiles: wider than tall
  expect_transpose(96, 64, 64);  // 3 x 2 tiles: taller than wide
}

TEST(week06_transpose, EdgesThatCutATileAreGuardedNotReadOrWrittenOutOfBounds) {
  // The last tiles reach past the matrix: a read or write there is an access out of bounds (the
  // simulator names it), and a guard that swaps rows and cols on the way out misses elements.
  expect_transpose(37, 50, 50);
  expect_transpose(1, 1, 1);
  expect_transpose(1, 70, 70);
  expect_transpose(70, 1, 1);
  expect_transpose(33, 31, 31);
}

TEST(week06_transpose, ReadsAMatrixInsideAWiderOneByItsRowStep) {
  // Rows of 30 floats, 45 apart: the 15 floats after each row belong to someone else.
  expect_transpose(20, 30, 45);
  expect_transpose(40, 33, 64);
}

TEST(week06_transpose, AnEmptyMatrixLaunchesNothingAndBadArgumentsAreRefused) {
  const DeviceFloats none(std::vector<float>{});
  cu::transpose(none.cptr(), none.ptr(), 0, 5, 5);
  cu::transpose(none.cptr(), none.ptr(), 5, 0, 0);
  cu::synchronize();
  const DeviceFloats in(pitched(4, 4, 4));
  const DeviceFloats out = DeviceFloats::uninitialized(16);
  EXPECT_THROW(cu::transpose(in.cptr(), out.ptr(), 4, 4, 3), Error) << "ld = 3 < cols = 4: the rows would overlap";
  EXPECT_THROW(cu::transpose(in.cptr(), out.ptr(), -1, 4, 4), Error) << "rows = -1";
  EXPECT_THROW(cu::transpose(in.cptr(), out.ptr(), 4, -2, 4), Error) << "cols = -2";
}

TEST(week06_transpose, ReadsAndWritesWholeSectorsWhereTheNaiveTransposeDoesNot) {
  // 128 x 256: every row of in and of out starts on a sector. The naive kernel's warps read 4
  // sectors and write 32 (a column of out): (4 + 32) / (4 + 4) = 4.5 times the fewest.
  const int rows = 128, cols = 256;
  const DeviceFloats in(pitched(rows, cols, cols));
  const DeviceFloats naive_out = DeviceFloats::uninitialized(static_cast<std::size_t>(rows * cols));
  cu::fixtures::transpose_naive(in.cptr(), naive_out.ptr(), rows, cols);
  cu::synchronize();
  const auto naive = cu::sim::last_counters();
  const auto yours = expect_transpose(rows, cols, cols);
  sim_arrays::record_counters(yours);
  ASSERT_GT(yours.global_sectors_min, 0u);
  EXPECT_LE(yours.global_sectors * 10, yours.global_sectors_min * 11)
      << "your launch touched " << yours.global_sectors << " sectors of 32 bytes where its bytes need "
      << yours.global_sectors_min << " (the naive transpose: " << naive.global_sectors << " for "
      << naive.global_sectors_min << "): within 1.1 times is the contract. A warp whose 32 lanes read or write 32 "
      << "floats in 32 different rows touches 32 sectors for 4 floats' worth: do both your reads and your writes "
      << "go along rows, with the turn made in shared memory?";
  EXPECT_GT(yours.shared_requests, 0u) << "the transpose's turn goes through shared memory";
}

TEST(week06_transpose, NoTwoLanesOfAWarpWaitForOneBank) {
  const auto c = expect_transpose(64, 64, 64);
  sim_arrays::record_counters(c);
  ASSERT_GT(c.shared_requests, 0u) << "no shared-memory access was counted: the tile lives in shared memory";
  EXPECT_EQ(c.shared_bank_conflicts, 0u)
      << "your shared-memory accesses had " << c.shared_bank_conflicts << " bank conflicts in " << c.shared_requests
      << " warp-wide requests. Shared memory has 32 banks of 4-byte words (word w is in bank w % 32): when the "
      << "32 lanes of a warp read a column of a tile whose rows are 32 floats long, in which banks are their words?";
}

TEST(week06_transpose, TheSameResultInEveryThreadOrder) {
  // The simulator runs each launch in three orders of its threads and checks every access
  // against the others of its barrier interval: a tile read before every thread has written it
  // is a data race it names.
  expect_transpose(64, 32, 32);
  expect_transpose(45, 77, 80);
}

}  // namespace kindling::testing
