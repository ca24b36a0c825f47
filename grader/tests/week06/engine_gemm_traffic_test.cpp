// The engine's GEMM on the simulator: its global-memory traffic, from the simulator's counters
// (deterministic, no clock). Apart from device_ops_test.cpp because the GPU agreement tests
// (kindling_gpu_tests) compile that file too, and this one counts the simulator's loads and runs
// its naive fixture.

#include <gtest/gtest.h>

#include <kindling/cuda/fixtures.hpp>
#include <kindling/cuda/runtime.hpp>
#include <kindling/cuda/sim.hpp>
#include <kindling/kindling.hpp>

namespace kindling {
namespace {

Tensor sample(IntArrayRef sizes, int salt) {
  Tensor x = arange(numel_of(sizes), kFloat64).reshape(sizes);
  return (sin(x * 0.37 + salt) * 3.0 + 0.01 * x).to(kFloat32);
}

TEST(EngineDeviceOps, TheEnginesGemmReadsGlobalMemorySixteenTimesLessThanTheNaiveKernel) {
  // The engine's GEMM (src/kernels/gemm.cu) tiles 16 x 16: each element of A and B is read from
  // global memory once per tile of C, against once per element of C for the naive kernel.
  const int m = 64, k = 48, n = 64;
  const Tensor a = sample({m, k}, 1).cuda(), b = sample({k, n}, 2).cuda();
  const Tensor naive = empty({m, n}, TensorOptions(kFloat32).device(Device("cuda")));
  cuda::fixtures::matmul_naive(cuda::device_ptr<const float>(a.data_ptr()), cuda::device_ptr<const float>(b.data_ptr()),
                               cuda::device_ptr<float>(naive.data_ptr()), m, k, n);
  cuda::synchronize();
  const auto naive_loads = cuda::sim::last_counters().global_loads;
  const Tensor tiled = mm(a, b);
  cuda::synchronize();
  const auto tiled_loads = cuda::sim::last_counters().global_loads;
  EXPECT_EQ(naive_loads, 2u * m * n * k);
  EXPECT_EQ(tiled_loads, naive_loads / 16) << "tiled " << tiled_loads << ", naive " << naive_loads;
  EXPECT_TRUE(allclose(tiled.cpu(), naive.cpu(), 1e-4, 1e-4)) << "the two products differ";
}

}  // namespace
}  // namespace kindling
