// Task week06.device_moves: Tensor::to(device, non_blocking, copy).

#include <algorithm>
#include <string>
#include <vector>

#include <kindling/cuda/runtime.hpp>
#include <kindling/kindling.hpp>
#include <kindling/no_grad.hpp>
#include <kindling/node.hpp>

#include "oracle_json.hpp"
#include "testing.hpp"

namespace kindling::testing {
namespace {
Tensor sample(IntArrayRef sizes) { return (arange(numel_of(sizes), kFloat32).reshape(sizes) * 0.25 - 1.0); }
}  // namespace

TEST(week06_device_moves, ToCudaMakesARowMajorCopyOnCuda0WithTheSameValues) {
  const Tensor x = sample({3, 4});
  for (const Device d : {Device("cuda"), Device("cuda:0"), Device(kCUDA)}) {
    const Tensor y = x.to(d);
    EXPECT_EQ(y.device(), Device("cuda:0")) << "\"cuda\" means cuda:0";
    EXPECT_EQ(y.sizes().vec(), x.sizes().vec());
    EXPECT_EQ(y.dtype(), kFloat32);
    EXPECT_TRUE(y.is_contiguous());
    EXPECT_EQ(y.storage_offset(), 0);
    EXPECT_TRUE(equal(y.cpu(), x));
  }
  const Tensor i = arange(6, kInt64).reshape({2, 3});
  EXPECT_EQ(i.to(Device("cuda")).dtype(), kInt64);
  EXPECT_TRUE(equal(i.to(Device("cuda")).cpu(), i));
}

TEST(week06_device_moves, AStridedOrOffsetTensorArrivesWithItsOwnValues) {
  const Tensor x = sample({4, 6});
  for (const Tensor& v : {x.t(), x.slice(1, 1, 6, 2), x.select(0, 2), x[1].slice(0, 3, 6), x.narrow(0, 1, 2).t(),
                          x.slice(0, 0, 1).expand({3, 6})}) {
    const Tensor y = v.to(Device("cuda"));
    EXPECT_EQ(y.sizes().vec(), v.sizes().vec());
    EXPECT_EQ(y.storage_offset(), 0) << "the copy has a storage of its own, from its start";
    EXPECT_TRUE(equal(y.cpu(), v)) << v;
  }
}

// PyTorch's memory_format=torch.preserve_format, empty_like's rule: a transpose or permute of a
// contiguous tensor keeps its strides on the device; a tensor with gaps or overlaps arrives
// dense, in its own memory order (a step slice of a transpose stays column-major). The expected
// strides are PyTorch 1.13's own (tools/oracle/week06.py, through aten::_to_copy).
TEST(week06_device_moves, TheCopyKeepsTheStridesOfADenseTensorAsPyTorchDoes) {
  for (const auto& c : oracle_json("to_layouts")) {
    const std::string name = c["name"].get<std::string>();
    const auto sizes = c["sizes"].get<std::vector<std::int64_t>>();
    const auto strides = c["strides"].get<std::vector<std::int64_t>>();
    const auto want = c["to_dtype_strides"].get<std::vector<std::int64_t>>();
    const std::int64_t base = std::max<std::int64_t>(c["base"].get<std::int64_t>(), 1);
    const Tensor v = arange(base, kFloat32).as_strided(sizes, strides, c["offset"].get<std::int64_t>());
    const Tensor y = v.to(Device("cuda"));
    EXPECT_EQ(y.strides().vec(), want) << name << ": x.to(cuda) of sizes " << ::testing::PrintToString(sizes)
                                       << " and strides " << ::testing::PrintToString(strides);
    EXPECT_EQ(y.storage_offset(), 0) << name;
    EXPECT_TRUE(equal(y.cpu(), v)) << name;
    const Tensor back = y.to(kCPU);
    EXPECT_EQ(back.strides().vec(), want) << name << ": back to the CPU, the layout stays";
    EXPECT_TRUE(equal(back, v)) << name;
    EXPECT_EQ(v.to(kCPU, false, /*copy=*/true).strides().vec(), c["to_copy_strides"].get<std::vector<std::int64_t>>())
        << name << ": x.to(cpu, copy=true)";
  }
  const Tensor x = sample({3, 5});
  EXPECT_EQ(x.t().to(Device("cuda")).strides().vec(), (std::vector<std::int64_t>{1, 5})) << "x.t().cuda()";
}

TEST(week06_device_moves, OnItsDeviceAlreadyATensorIsReturnedItselfUnlessACopyIsAsked) {
  const Tensor x = sample({2, 3});
  EXPECT_TRUE(x.to(kCPU).is_same(x));
  const Tensor d = x.to(Device("cuda"));
  EXPECT_TRUE(d.to(Device("cuda")).is_same(d)) << "cuda and cuda:0 are the same device here";
  EXPECT_TRUE(d.to(Device("cuda:0")).is_same(d));
  const Tensor c = d.to(Device("cuda"), false, /*copy=*/true);
  EXPECT_FALSE(c.is_same(d));
  EXPECT_FALSE(c.is_alias_of(d));
  EXPECT_TRUE(equal(c.cpu(), x));
  const Tensor h = x.to(kCPU, false, /*copy=*/true);
  EXPECT_FALSE(h.is_alias_of(x));
  EXPECT_TRUE(equal(h, x));
}

TEST(week06_device_moves, BackToTheCpuAndBetweenMovesTheValuesSurvive) {
  const Tensor x = sample({5});
  const Tensor back = x.to(Device("cuda")).to(kCPU);
  EXPECT_TRUE(back.device().is_cpu());
  EXPECT_FALSE(back.is_alias_of(x));
  EXPECT_TRUE(equal(back, x));
  const Tensor t = x.to(Device("cuda")).reshape({5, 1}).expand({5, 2}).to(kCPU);  // strided on the device
  EXPECT_TRUE(t.is_contiguous());
  EXPECT_TRUE(equal(t, x.reshape({5, 1}).expand({5, 2})));
}

TEST(week06_device_moves, AnIndexBeyondTheDevicesIsRefused) {
  const Tensor x = sample({2});
  expect_error<Error>([&] { (void)x.to(Device("cuda:1")); }, "CUDA error: invalid device ordinal");
}

TEST(week06_device_moves, AMoveOfATensorThatRequiresGradIsRecordedAndItsGradientComesBack) {
  const Tensor leaf = sample({2, 3}).requires_grad_();
  const Tensor d = leaf.to(Device("cuda"));
  ASSERT_TRUE(d.is_cuda());
  EXPECT_TRUE(d.requires_grad());
  EXPECT_FALSE(d.is_leaf()) << "the moved tensor is a result of the move, not a leaf (its .grad stays empty)";
  ASSERT_TRUE(d.grad_fn() != nullptr);
  EXPECT_EQ(d.grad_fn()->name(), "ToCopyBackward0");
  (d * d).sum().backward();
  ASSERT_TRUE(leaf.grad().defined()) << "backward did not reach the CPU leaf through the move";
  EXPECT_TRUE(leaf.grad().device().is_cpu()) << "the gradient must come back to the leaf's device";
  EXPECT_TRUE(allclose(leaf.grad(), leaf.detach() * 2));
  EXPECT_FALSE(d.grad().defined());

  // A leaf on the device, moved to the CPU: the gradient goes back to cuda:0.
  const Tensor dev_leaf = sample({4}).to(Device("cuda")).requires_grad_();
  const Tensor h = dev_leaf.to(kCPU);
  EXPECT_EQ(h.grad_fn()->name(), "ToCopyBackward0");
  (h * 3.0).sum().backward();
  ASSERT_TRUE(dev_leaf.grad().defined());
  EXPECT_EQ(dev_leaf.grad().device(), Device("cuda:0"));
  EXPECT_TRUE(equal(dev_leaf.grad().cpu(), full({4}, 3.0)));

  // copy=true on the tensor's own device is a recorded copy too (PyTorch: ToCopyBackward0).
  const Tensor c = leaf.to(kCPU, false, /*copy=*/true);
  EXPECT_FALSE(c.is_alias_of(leaf));
  ASSERT_TRUE(c.grad_fn() != nullptr);
  EXPECT_EQ(c.grad_fn()->name(), "ToCopyBackward0");
  // Without a copy, the tensor itself: still the leaf, no node.
  EXPECT_TRUE(leaf.to(kCPU).is_same(leaf));
  EXPECT_TRUE(leaf.to(kCPU).is_leaf());
}

TEST(week06_device_moves, WithoutAGradientWantedAMoveRecordsNothing) {
  const Tensor leaf = sample({2}).requires_grad_();
  {
    NoGradGuard no_grad;
    const Tensor d = leaf.to(Device("cuda"));
    EXPECT_TRUE(d.is_cuda());
    EXPECT_FALSE(d.requires_grad()) << "under no_grad a move records nothing";
  }
  const Tensor d = leaf.detach().to(Device("cuda"));
  EXPECT_FALSE(d.requires_grad());
  EXPECT_TRUE(equal(d.cpu(), leaf.detach()));
}

TEST(week06_device_moves, NonBlockingFromPinnedMemoryIsAsynchronousAndCorrectAfterSynchronising) {
  const Tensor x = sample({64}).pin_memory();
  ASSERT_TRUE(x.is_pinned());
  ASSERT_TRUE(cuda::sim_runtime().is_pinned(x.data_ptr())) << "week 4's pool registers its pages";
  const Tensor d = x.to(Device("cuda"), /*non_blocking=*/true);
  EXPECT_FALSE(cuda::sim_runtime().query_stream(nullptr)) << "a non_blocking copy from pinned memory was not queued";
  cuda::synchronize();
  EXPECT_TRUE(equal(d.cpu(), x));
  // non_blocking=false from pinned memory: the move returns once the copy is done.
  const Tensor e2 = x.to(Device("cuda"), /*non_blocking=*/false);
  EXPECT_TRUE(cuda::sim_runtime().query_stream(nullptr)) << "non_blocking=false returned before the copy was done";
  EXPECT_TRUE(equal(e2.cpu(), x));
  const Tensor p = sample({64});  // pageable: synchronous whatever non_blocking says
  const Tensor e = p.to(Device("cuda"), true);
  EXPECT_TRUE(cuda::sim_runtime().query_stream(nullptr));
  EXPECT_TRUE(equal(e.cpu(), p));
}

}  // namespace kindling::testing
