// Task week06.warp_tiled_gemm: C = A B with float4 access, double-buffered shared tiles and warp
// tiles, graded for its values and for what the simulator counts (exact, the same on every run):
// load instructions, barriers per step along k, shared-memory bank conflicts, global sectors.

#include <cmath>
#include <cstddef>
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

// Runs the kernel and compares with the host's product within a float's rounding; returns the
// launch's counters.
cu::sim::Counters expect_product(int m, int k, int n) {
  const auto a = sim_arrays::fractions(static_cast<std::size_t>(m) * static_cast<std::size_t>(k), 3);
  const auto b = sim_arrays::fractions(static_cast<std::size_t>(k) * static_cast<std::size_t>(n), 4);
  const DeviceFloats da(a), db(b);
  const DeviceFloats dc = DeviceFloats::uninitialized(static_cast<std::size_t>(m) * static_cast<std::size_t>(n));
  try {
    cu::matmul_warp_tiled(da.cptr(), db.cptr(), dc.ptr(), m, k, n);
    cu::synchronize();
  } catch (const NotImplemented&) {
    throw;
  } catch (const std::exception& e) {
    ADD_FAILURE() << "m = " << m << ", k = " << k << ", n = " << n
                  << ": the kernel failed on the simulator: " << e.what();
    return {};
  }
  const auto counters = cu::sim::last_counters();
  const auto got = dc.host(), want = sim_arrays::host_matmul(a, b, m, k, n);
  for (std::size_t i = 0; i < want.size(); ++i)
    if (!(std::fabs(got[i] - want[i]) <= 1e-4f * (1.0f + std::fabs(want[i])))) {
      ADD_FAILURE() << "A (m x k) times B (k x n) with m = " << m << ", k = " << k << ", n = " << n << ": C["
                    << i / static_cast<std::size_t>(n) << "][" << i % static_cast<std::size_t>(n) << "] is " << got[i]
                    << ", the host's product " << want[i];
      break;
    }
  return counters;
}

// What one launch on m x k x n may count at most: per block and step along k, one float4 load per
// 4 floats of each tile, 8 / 4 + 8 / 4 float4 reads of the shared tiles per thread and product
// column, and one barrier (plus one before the first step).
struct Budget {
  std::uint64_t blocks, steps;
  Budget(int m, int k, int n)
      : blocks(static_cast<std::uint64_t>((m + cu::kWarpBlockM - 1) / cu::kWarpBlockM) *
               static_cast<std::uint64_t>((n + cu::kWarpBlockN - 1) / cu::kWarpBlockN)),
        steps(static_cast<std::uint64_t>((k + cu::kWarpBlockK - 1) / cu::kWarpBlockK)) {}
  std::uint64_t global_loads() const {
    return blocks * steps * (cu::kWarpBlockM * cu::kWarpBlockK + cu::kWarpBlockK * cu::kWarpBlockN) / 4;
  }
  std::uint64_t shared_loads() const { return blocks * steps * cu::kWarpTiledThreads * cu::kWarpBlockK * 4; }
  std::uint64_t barriers() const { return blocks * (steps + 1); }
};
}  // namespace

TEST(week06_warp_tiled_gemm, MultipliesMatricesOfWholeTiles) {
  expect_product(128, 8, 128);   // one block, one step
  expect_product(128, 64, 256);  // two blocks, eight steps: both buffers in turn
}

TEST(week06_warp_tiled_gemm, EdgesThatCutATileAreZeroFilledNotReadOutOfBounds) {
  // The last tiles reach past the matrices: rows of A past m, rows of B past k (k = 12: half a
  // step), float4s of B and C past n. Reading there is out of bounds; a tile not zero-filled adds
  // garbage.
  expect_product(1, 4, 4);
  expect_product(37, 12, 20);
  expect_product(130, 36, 132);
  expect_product(200, 20, 260);
}

TEST(week06_warp_tiled_gemm, KZeroGivesZerosAndEmptyMatricesLaunchNothing) {
  const DeviceFloats none(std::vector<float>{});
  const DeviceFloats c = DeviceFloats::uninitialized(64 * 8);
  cu::matmul_warp_tiled(none.cptr(), none.cptr(), c.ptr(), 64, 0, 8);
  cu::matmul_warp_tiled(none.cptr(), none.cptr(), none.ptr(), 0, 8, 8);
  cu::matmul_warp_tiled(none.cptr(), none.cptr(), none.ptr(), 8, 8, 0);
  const auto got = c.host();
  for (std::size_t i = 0; i < got.size(); ++i) ASSERT_EQ(got[i], 0.0f) << "C[" << i / 8 << "][" << i % 8 << "]";
}

TEST(week06_warp_tiled_gemm, RefusesSizesThatAFloat4CannotCover) {
  expect_product(4, 4, 4);
  const DeviceFloats a(std::vector<float>(64, 1.0f)), b(std::vector<float>(64, 1.0f));
  const DeviceFloats c = DeviceFloats::uninitialized(64);
  EXPECT_THROW(cu::matmul_warp_tiled(a.cptr(), b.cptr(), c.ptr(), 4, 6, 4), Error) << "k = 6";
  EXPECT_THROW(cu::matmul_warp_tiled(a.cptr(), b.cptr(), c.ptr(), 4, 4, 10), Error) << "n = 10";
  EXPECT_THROW(cu::matmul_warp_tiled(a.cptr(), b.cptr(), c.ptr(), -1, 4, 4), Error) << "m = -1";
  EXPECT_THROW(cu::matmul_warp_tiled(a.cptr(), b.cptr(), c.ptr(), 4, -4, 4), Error) << "k = -4";
}

TEST(week06_warp_tiled_gemm, LoadsAndStoresAFloat4AtATime) {
  const int m = 256, k = 64, n = 256;
  const auto c = expect_product(m, k, n);
  sim_arrays::record_counters(c);
  const Budget budget(m, k, n);
  EXPECT_LE(c.global_loads, budget.global_loads())
      << "load instructions from global memory: a float4 counts one, as on a GPU. The block's two tiles per step "
      << "are " << (cu::kWarpBlockM * cu::kWarpBlockK + cu::kWarpBlockK * cu::kWarpBlockN) / 4
      << " float4s; register_gemm loads them a float at a time (4 times as many instructions)";
  EXPECT_LE(c.global_stores, static_cast<std::uint64_t>(m) * n / 4) << "stores into C: one float4 per 4 outputs";
  EXPECT_LE(c.shared_loads, budget.shared_loads())
      << "reads of the shared tiles: per product column, a lane needs 8 values of A and 8 of B, 4 float4s";
}

TEST(week06_warp_tiled_gemm, OneBarrierPerStepWithTwoBuffers) {
  const int m = 128, k = 64, n = 128;  // one block, 8 steps
  const auto c = expect_product(m, k, n);
  sim_arrays::record_counters(c);
  EXPECT_LE(c.barriers, Budget(m, k, n).barriers())
      << "__syncthreads per block: one per step along k, and one before the first. With one buffer per tile a "
      << "block must wait twice per step (before writing a tile that others may still read, and before reading "
      << "it); with two, the copy of the next step's tiles goes into the buffer nobody reads now";
  EXPECT_GE(c.barriers, 8u)
      << "the shared tiles are written by some threads and read by others: a step needs a barrier";
}

TEST(week06_warp_tiled_gemm, NoTwoLanesOfAWarpWaitForOneBank) {
  const auto c = expect_product(128, 32, 128);
  sim_arrays::record_counters(c);
  ASSERT_GT(c.shared_requests, 0u) << "no shared-memory access was counted: the tiles live in shared memory";
  EXPECT_EQ(c.shared_bank_conflicts, 0u)
      << "your shared-memory accesses had " << c.shared_bank_conflicts << " bank conflicts in " << c.shared_requests
      << " warp-wide requests. A float4 request is served 8 lanes at a time (128 bytes): which banks do those 8 "
      << "lanes' words fall in, for the reads of each tile and for the stores into A's transposed tile?";
}

TEST(week06_warp_tiled_gemm, ReadsAndWritesWholeSectors) {
  const auto c = expect_product(256, 64, 256);  // k and n multiples of 8: every row starts on a sector
  sim_arrays::record_counters(c);
  ASSERT_GT(c.global_sectors_min, 0u);
  EXPECT_LE(c.global_sectors * 10, c.global_sectors_min * 11)
      << "your launch touched " << c.global_sectors << " sectors of 32 bytes where its bytes need "
      << c.global_sectors_min << ": within 1.1 times is the contract. Do the lanes of a warp load neighbouring "
      << "float4s of a row?";
}

TEST(week06_warp_tiled_gemm, TheSameResultInEveryThreadOrder) {
  // The simulator runs each launch in three thread orders and checks every access against the
  // others of its barrier interval: a buffer written while another warp still reads it is a race.
  expect_product(128, 40, 128);
  expect_product(64, 24, 200);
}

}  // namespace kindling::testing
