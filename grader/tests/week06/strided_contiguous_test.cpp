// Task week06.strided_contiguous: compact(x), a kernel that gathers a strided tensor into
// row-major order (needle's Compact).

#include <string>

#include <kindling/cuda/kernels.hpp>
#include <kindling/cuda/sim.hpp>
#include <kindling/kindling.hpp>

#include "testing.hpp"

namespace kindling::testing {
namespace {
namespace cu = kindling::cuda;

void expect_compact(const Tensor& view_on_device, const Tensor& same_view_on_cpu, const std::string& what) {
  const Tensor c = cu::compact(view_on_device);
  cu::synchronize();
  ASSERT_TRUE(c.is_cuda()) << what;
  EXPECT_TRUE(c.is_contiguous()) << what;
  EXPECT_EQ(c.storage_offset(), 0) << what;
  EXPECT_EQ(c.sizes().vec(), same_view_on_cpu.sizes().vec()) << what;
  EXPECT_FALSE(c.is_alias_of(view_on_device)) << what;
  EXPECT_TRUE(equal(c.cpu(), same_view_on_cpu)) << what << "\nyours (compact's result, copied back):\n"
                                                << c.cpu() << "\nexpected (the same view on the CPU):\n"
                                                << same_view_on_cpu;
}
}  // namespace

TEST(week06_strided_contiguous, TransposesAndPermutationsComeOutRowMajor) {
  const Tensor x = arange(60, kFloat32).reshape({3, 4, 5});
  const Tensor d = x.cuda();
  expect_compact(d, x, "an already contiguous tensor");
  expect_compact(d.transpose(0, 2), x.transpose(0, 2), "transpose(0, 2)");
  expect_compact(d.permute({1, 2, 0}), x.permute({1, 2, 0}), "permute(1, 2, 0)");
  expect_compact(d[1].t(), x[1].t(), "a transposed matrix");
}

TEST(week06_strided_contiguous, StepSlicesAndStorageOffsetsAreReadWhereTheElementsLive) {
  const Tensor x = arange(80, kFloat32).reshape({8, 10});
  const Tensor d = x.cuda();
  expect_compact(d.slice(1, 1, 10, 3), x.slice(1, 1, 10, 3), "a step slice of the columns");
  expect_compact(d.slice(0, 2, 7, 2).slice(1, 3, 9), x.slice(0, 2, 7, 2).slice(1, 3, 9), "an offset block");
  expect_compact(d[5], x[5], "a row: offset 50");
  expect_compact(d.select(1, 7), x.select(1, 7), "a column: offset 7, stride 10");
  expect_compact(d.narrow(0, 3, 4).t().slice(0, 2, 8, 5), x.narrow(0, 3, 4).t().slice(0, 2, 8, 5), "all together");
}

TEST(week06_strided_contiguous, BroadcastDimensionsOfStrideZeroRepeatTheirElement) {
  const Tensor x = arange(4, kFloat32).reshape({4, 1});
  expect_compact(x.cuda().expand({4, 6}), x.expand({4, 6}), "expand along columns");
  const Tensor r = arange(3, kFloat32);
  expect_compact(r.cuda().expand({2, 5, 3}), r.expand({2, 5, 3}), "expand to three dimensions");
}

TEST(week06_strided_contiguous, ScalarsEmptyTensorsAndManyElements) {
  const Tensor s = tensor(4.5);
  expect_compact(s.cuda(), s, "a 0-d tensor");
  const Tensor e = zeros({3, 0, 2});
  expect_compact(e.cuda().transpose(0, 2), e.transpose(0, 2), "no elements");
  const Tensor big = arange(3 * 140 * 150, kFloat32).reshape({3, 140, 150});  // more elements than the grid's threads
  expect_compact(big.cuda().permute({2, 0, 1}), big.permute({2, 0, 1}), "63000 elements, permuted");
}

TEST(week06_strided_contiguous, OtherDtypesCpuTensorsAndTooManyDimensionsAreRefused) {
  const Tensor i = arange(4, kInt64);
  try {
    (void)cu::compact(i.cuda());
    ADD_FAILURE() << "an int64 tensor was compacted";
  } catch (const NotImplemented&) {
    throw;
  } catch (const Error&) {
  }
  try {
    (void)cu::compact(arange(4, kFloat32));
    ADD_FAILURE() << "a CPU tensor was compacted";
  } catch (const NotImplemented&) {
    throw;
  } catch (const Error&) {
  }
  try {
    (void)cu::compact(ones({1, 1, 1, 1, 1, 1, 1, 1, 2}, kCUDA));
    ADD_FAILURE() << "a 9-d tensor was compacted";
  } catch (const NotImplemented&) {
    throw;
  } catch (const Error&) {
  }
}

}  // namespace kindling::testing
