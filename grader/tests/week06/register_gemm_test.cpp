// Task week06.register_gemm: C = A B with 2-D register blocking, graded for its values and for its
// global-memory traffic (the simulator's counters: exact and the same on every run, no clock).

#include <cmath>
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

// Runs the kernel and compares with the host's product, within a float's rounding (the compilers
// may fuse a multiply and an add into one FMA, as nvcc does by default, on either side).
void expect_product(int m, int k, int n) {
  const auto a = sim_arrays::fractions(static_cast<std::size_t>(m * k), 1);
  const auto b = sim_arrays::fractions(static_cast<std::size_t>(k * n), 2);
  const DeviceFloats da(a), db(b);
  const DeviceFloats dc = DeviceFloats::uninitialized(static_cast<std::size_t>(m * n));
  try {
    cu::matmul_register_blocked(da.cptr(), db.cptr(), dc.ptr(), m, k, n);
    cu::synchronize();
  } catch (const NotImplemented&) {
    throw;
  } catch (const std::exception& e) {
    FAIL() << "m = " << m << ", k = " << k << ", n = " << n << ": the kernel failed on the simulator: " << e.what();
  }
  const auto got = dc.host(), want = sim_arrays::host_matmul(a, b, m, k, n);
  for (std::size_t i = 0; i < want.size(); ++i)
    ASSERT_NEAR(got[i], want[i], 1e-4f * (1.0f + std::fabs(want[i])))
        << "A (m x k) times B (k x n) with m = " << m << ", k = " << k << ", n = " << n << ": C["
        << i / static_cast<std::size_t>(n) << "][" << i % static_cast<std::size_t>(n) << "] is yours, the other "
        << "value the host's product";
}
}  // namespace

TEST(week06_register_gemm, MultipliesMatricesOfWholeTiles) {
  expect_product(64, 8, 64);    // m = 64, k = 8, n = 64
  expect_product(128, 64, 64);  // m = 128, k = 64, n = 64: one block tile, several steps along k
}

TEST(week06_register_gemm, EdgesThatCutATileAreZeroFilledNotReadOutOfBounds) {
  // 37 x 50 times 50 x 29: the last tiles of each matrix reach past its edge; reading there is
  // an access out of bounds (the simulator names it), and a tile that is not zero-filled adds garbage.
  expect_product(37, 50, 29);
  expect_product(1, 1, 1);
  expect_product(3, 17, 5);
  expect_product(20, 3, 1);
  expect_product(65, 17, 130);  // one row and two columns past a block tile
  expect_product(100, 9, 70);
}

TEST(week06_register_gemm, NoInnerDimensionGivesZerosAndEmptyOutputsLaunchNothing) {
  const DeviceFloats none(std::vector<float>{});
  const DeviceFloats c = DeviceFloats::uninitialized(6);
  cu::matmul_register_blocked(none.cptr(), none.cptr(), c.ptr(), 2, 0, 3);
  EXPECT_EQ(c.host(), std::vector<float>(6, 0.0f));
  cu::matmul_register_blocked(none.cptr(), none.cptr(), c.ptr(), 0, 4, 3);
  cu::matmul_register_blocked(none.cptr(), none.cptr(), c.ptr(), 2, 4, 0);
  cu::synchronize();
}

TEST(week06_register_gemm, ReadsGlobalMemoryAtLeastTwiceLessThanSixteenBySixteenTiles) {
  // The naive kernel reads 2 m n k floats; 16 x 16 tiles (week06.tiled_gemm) cut that 16 times;
  // 128 x 128 block tiles cut it 128 times. At least 2 kTile = 32 times is asked, on 128 x 128 x 128.
  const int m = 128, k = 128, n = 128;
  const auto a = sim_arrays::fractions(static_cast<std::size_t>(m * k), 3);
  const auto b = sim_arrays::fractions(static_cast<std::size_t>(k * n), 4);
  const DeviceFloats da(a), db(b);
  const DeviceFloats c1 = DeviceFloats::uninitialized(static_cast<std::size_t>(m * n));
  const DeviceFloats c2 = DeviceFloats::uninitialized(static_cast<std::size_t>(m * n));
  cu::fixtures::matmul_naive(da.cptr(), db.cptr(), c1.ptr(), m, k, n);
  cu::synchronize();
  const auto naive = cu::sim::last_counters().global_loads;
  cu::matmul_register_blocked(da.cptr(), db.cptr(), c2.ptr(), m, k, n);
  cu::synchronize();
  const auto tiled = cu::sim::last_counters().global_loads;
  sim_arrays::record_counters(cu::sim::last_counters());
  const auto naive_c = c1.host(), fast_c = c2.host();
  for (std::size_t i = 0; i < naive_c.size(); ++i)
    ASSERT_NEAR(fast_c[i], naive_c[i], 1e-4f * (1.0f + std::fabs(naive_c[i])));
  EXPECT_LE(tiled * (2 * cu::kTile), naive) << "global loads: register-blocked " << tiled << ", naive " << naive;
}

}  // namespace kindling::testing
