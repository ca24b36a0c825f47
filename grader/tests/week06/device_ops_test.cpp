// Week 6 part 2: the engine's ops on `cuda` tensors: on the simulator in kindling_week06_tests,
// and on a GPU in kindling_gpu_tests (grader/tests/gpu/), which compiles this file too.
// Reductions, softmax, matrix products and where agree with the CPU; every differentiable op
// passes gradcheck on the device in float64; a training step of an MLP on the device agrees with
// the same step on the CPU; a checkpoint saved from the device loads on the CPU and back.

#include <cmath>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include <kindling/cuda/runtime.hpp>
#include <kindling/cuda/sim.hpp>
#include <kindling/grad.hpp>
#include <kindling/gradcheck.hpp>
#include <kindling/kindling.hpp>
#include <kindling/nn.hpp>
#include <kindling/node.hpp>
#include <kindling/training.hpp>

#include "testing.hpp"

namespace kindling::testing {
namespace {

Tensor sample(IntArrayRef sizes, ScalarType t = kFloat32, int salt = 0) {
  Tensor x = arange(numel_of(sizes), kFloat64).reshape(sizes);
  return (sin(x * 0.37 + salt) * 3.0 + 0.01 * x).to(t);
}

// The device result, brought back, against the CPU's: same shape, dtype and values (float rounding
// apart: the device adds in another order).
void expect_agrees(const Tensor& on_device, const Tensor& on_cpu, const std::string& what, double tol = 1e-5) {
  ASSERT_TRUE(on_device.is_cuda()) << what;
  const Tensor back = on_device.detach().cpu();
  ASSERT_EQ(back.sizes().vec(), on_cpu.sizes().vec()) << what;
  ASSERT_EQ(back.dtype(), on_cpu.dtype()) << what;
  EXPECT_TRUE(allclose(back.to(kFloat64), on_cpu.to(kFloat64), tol, tol, /*equal_nan=*/true)) << what << "\ndevice:\n"
                                                                                              << back << "\ncpu:\n"
                                                                                              << on_cpu;
}
}  // namespace

TEST(EngineDeviceOps, ReductionsAgreeWithTheCpu) {
  for (const ScalarType t : {kFloat32, kFloat64}) {
    const Tensor x = sample({3, 4, 5}, t), d = x.cuda();
    expect_agrees(d.sum(), x.sum(), "sum()");
    expect_agrees(d.sum({1}), x.sum({1}), "sum(1)");
    expect_agrees(d.sum({0, 2}, true), x.sum({0, 2}, true), "sum((0, 2), keepdim)");
    expect_agrees(d.mean(), x.mean(), "mean()");
    expect_agrees(d.mean({-1}), x.mean({-1}), "mean(-1)");
    expect_agrees(max(d), max(x), "max()");
    expect_agrees(min(d), min(x), "min()");
    expect_agrees(logsumexp(d, {1}), logsumexp(x, {1}), "logsumexp(1)");
    const auto [v, i] = max(d, 1, false);
    const auto [cv, ci] = max(x, 1, false);
    expect_agrees(v, cv, "max(1) values");
    expect_agrees(i, ci, "max(1) indices");
    const auto [mv, mi] = min(d.transpose(0, 2), 0, true);  // a strided input
    const auto [cmv, cmi] = min(x.transpose(0, 2), 0, true);
    expect_agrees(mv, cmv, "min(0, keepdim) of a transpose");
    expect_agrees(mi, cmi, "its indices");
    expect_agrees(argmax(d, 2), argmax(x, 2), "argmax(2)");
    expect_agrees(argmax(d), argmax(x), "argmax()");
  }
  const Tensor b = gt(sample({6, 7}), 0);
  expect_agrees(b.cuda().sum(), b.sum(), "the sum of a bool tensor is int64");
  const Tensor n = arange(12, kInt64).reshape({3, 4});
  expect_agrees(n.cuda().sum({0}), n.sum({0}), "an int64 sum");
  const Tensor e = zeros({0, 3});
  expect_agrees(e.cuda().sum({0}), e.sum({0}), "a sum over no elements is 0");
  const Tensor big = sample({3, 1000});  // more elements per output than a block has threads
  expect_agrees(big.cuda().sum({1}), big.sum({1}), "1000 elements per row", 1e-4);
}

TEST(EngineDeviceOps, MaxAlongADimFollowsPyTorchOnNaNAndTies) {
  const Tensor x = tensor({1.0f, 3.0f, 3.0f, NAN, 2.0f, 5.0f, 5.0f, 0.0f}).reshape({2, 4});
  const auto [v, i] = max(x.cuda(), 1, false);
  EXPECT_TRUE(std::isnan(v.cpu()[0].item<float>()));
  EXPECT_EQ(i.cpu().to_vector<std::int64_t>(), (std::vector<std::int64_t>{3, 1}));  // the NaN; the first 5
  EXPECT_EQ(argmax(tensor({2.0, 7.0, 7.0}).cuda()).item<std::int64_t>(), 1);
  EXPECT_THROW((void)max(zeros({2, 0}).cuda(), 1, false), IndexError);
}

TEST(EngineDeviceOps, SoftmaxAndLogSoftmaxAgreeAlongEveryDim) {
  for (const ScalarType t : {kFloat32, kFloat64}) {
    const Tensor x = sample({3, 4, 5}, t) * 20.0, d = x.cuda();
    for (const std::int64_t dim : {0, 1, 2, -1}) {
      expect_agrees(softmax(d, dim), softmax(x, dim), "softmax dim " + std::to_string(dim));
      expect_agrees(log_softmax(d, dim), log_softmax(x, dim), "log_softmax dim " + std::to_string(dim));
    }
  }
  const Tensor large = tensor({1000.0f, 1001.0f, 1002.0f}).reshape({1, 3});
  expect_agrees(softmax(large.cuda(), 1), softmax(large, 1), "inputs near 1000 do not overflow");
}

TEST(EngineDeviceOps, MatrixProductsAgreeWithStridesBatchesAndAddmm) {
  for (const ScalarType t : {kFloat32, kFloat64}) {
    const Tensor a = sample({37, 20}, t, 1), b = sample({20, 29}, t, 2), c = sample({29, 37}, t, 3);
    const Tensor da = a.cuda(), db = b.cuda(), dc = c.cuda();
    expect_agrees(mm(da, db), mm(a, b), "mm", 1e-4);
    expect_agrees(mm(db.t(), da.t()), mm(b.t(), a.t()), "mm of transposes", 1e-4);
    expect_agrees(addmm(dc.t(), da, db, 0.5, 2.0), addmm(c.t(), a, b, 0.5, 2.0), "addmm with beta, alpha", 1e-4);
    const Tensor bias = sample({29}, t, 4);
    expect_agrees(addmm(bias.cuda(), da, db), addmm(bias, a, b), "addmm with a broadcast bias", 1e-4);
    const Tensor x = sample({4, 6, 5}, t, 5), y = sample({4, 5, 3}, t, 6);
    expect_agrees(bmm(x.cuda(), y.cuda()), bmm(x, y), "bmm", 1e-4);
    expect_agrees(matmul(x.cuda(), y[0].cuda()), matmul(x, y[0]), "matmul, a batch times a matrix", 1e-4);
    expect_agrees(matmul(sample({5}, t).cuda(), y[1].cuda()), matmul(sample({5}, t), y[1]), "vector @ matrix", 1e-4);
    expect_agrees(dot(sample({7}, t).cuda(), sample({7}, t, 1).cuda()), dot(sample({7}, t), sample({7}, t, 1)), "dot");
  }
  expect_agrees(mm(zeros({2, 0}).cuda(), zeros({0, 3}).cuda()), zeros({2, 3}), "an inner size of 0 gives zeros");
  EXPECT_THROW((void)mm(ones({2, 2}).cuda(), ones({2, 2})), Error);  // two devices
  EXPECT_THROW((void)mm(ones({2, 2}, kInt64).cuda(), ones({2, 2}, kInt64).cuda()), Error);
}

TEST(EngineDeviceOps, CatStackAndMaskedFillAgreeWithTheCpu) {
  const Tensor a = sample({2, 3}), b = sample({2, 4}, kFloat64, 1), e = empty({0});
  expect_agrees(cat({a.cuda(), b.cuda(), e.cuda()}, 1), cat({a, b, e}, 1), "cat with a promotion and a skipped []");
  expect_agrees(stack({a.cuda(), a.cuda() * 2}, 1), stack({a, a * 2}, 1), "stack along dim 1");
  const Tensor mask = gt(sample({1, 3}, kFloat32, 2), 0);
  expect_agrees(masked_fill(a.cuda(), mask.cuda(), -1.5), masked_fill(a, mask, -1.5), "masked_fill, broadcast mask");
  EXPECT_THROW((void)cat({a.cuda(), a}), Error);  // two devices
}

TEST(EngineDeviceOps, WhereAgreesWithBroadcastingAndScalars) {
  const Tensor cond = gt(sample({4, 1, 5}), 0), a = sample({3, 5}, kFloat32, 1), b = sample({4, 3, 1}, kFloat32, 2);
  expect_agrees(where(cond.cuda(), a.cuda(), b.cuda()), where(cond, a, b), "where, broadcast");
  expect_agrees(where(cond.cuda(), a.cuda(), tensor(0.0f)), where(cond, a, tensor(0.0f)), "where with a CPU 0-d");
  EXPECT_THROW((void)where(cond.cuda(), a, b.cuda()), Error);
}

TEST(EngineDeviceOps, IndexSelectAgreesWithTheCpuAndChecksItsIndex) {
  const Tensor x = sample({3, 4, 5}), d = x.cuda();
  const Tensor idx = tensor({2, 0, 2, 1});
  for (const std::int64_t dim : {0, 1, 2, -1}) {
    const Tensor i = dim == 0 ? tensor({2, 0, 2}) : idx;
    expect_agrees(index_select(d, dim, i.cuda()), index_select(x, dim, i), "index_select dim " + std::to_string(dim));
  }
  expect_agrees(index_select(d, 1, idx.to(kInt32).cuda()), index_select(x, 1, idx), "an int32 index");
  expect_agrees(index_select(d.transpose(0, 2), 1, idx.cuda()), index_select(x.transpose(0, 2), 1, idx),
                "a strided input");
  expect_agrees(index_select(d, 1, zeros({0}, kInt64).cuda()), index_select(x, 1, zeros({0}, kInt64)), "no entries");
  expect_agrees(index_select(tensor(7.5).cuda(), 0, tensor({0}).cuda()), index_select(tensor(7.5), 0, tensor({0})),
                "a 0-d input");
  expect_agrees(index_select(arange(6, kInt64).cuda(), 0, tensor({5, 5, 0}).cuda()),
                index_select(arange(6, kInt64), 0, tensor({5, 5, 0})), "an int64 input");
  // The CPU's errors, word for word; an index on the other device is refused.
  expect_error<Error>([&] { (void)index_select(d, 1, tensor({4}).cuda()); },
                      "INDICES element is out of DATA bounds, id=4 axis_dim=4");
  expect_error<IndexError>([&] { (void)index_select(d, 0, tensor({-1}).cuda()); }, "index out of range in self");
  expect_error<IndexError>(
      [&] {
        (void)index_select(d, 0, zeros({1, 1}, kInt64).cuda());
      },
      "index_select(): Index is supposed to be a vector");
  try {
    (void)index_select(d, 0, tensor({0}));
    ADD_FAILURE() << "an index on the CPU was taken for a cuda tensor";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("must be on the current device"), std::string::npos) << e.what();
  }
  // Its gradient: repeated entries add up, on the device.
  const Tensor leaf = x.cuda().requires_grad_(), host_leaf = x.clone().requires_grad_();
  (index_select(leaf, 1, idx.cuda()) * 2.0).sum().backward();
  (index_select(host_leaf, 1, idx) * 2.0).sum().backward();
  expect_agrees(leaf.grad(), host_leaf.grad(), "index_select's gradient");
}

TEST(EngineDeviceOps, ProdAgreesWithTheCpuWithZerosAndIntegers) {
  Tensor x = sample({3, 4}) * 0.5;
  x[1][2].fill_(0.0);  // one zero in row 1
  x[2][0].fill_(0.0);  // two in row 2
  x[2][3].fill_(0.0);
  const Tensor d = x.cuda();
  expect_agrees(prod(d), prod(x), "prod()");
  expect_agrees(prod(d, 1, false), prod(x, 1, false), "prod(1)");
  expect_agrees(prod(d, 0, true), prod(x, 0, true), "prod(0, keepdim)");
  expect_agrees(prod(arange(1, 7, 1, kInt32).cuda()), prod(arange(1, 7, 1, kInt32)), "an int32 product is int64");
  expect_agrees(prod(zeros({0}).cuda()), prod(zeros({0})), "the product of nothing is 1");
  for (const std::int64_t dim : {0, 1}) {
    const Tensor leaf = d.clone().requires_grad_(), host_leaf = x.clone().requires_grad_();
    prod(leaf, dim, false).sum().backward();
    prod(host_leaf, dim, false).sum().backward();
    expect_agrees(leaf.grad(), host_leaf.grad(), "prod's gradient along " + std::to_string(dim) + ", with zeros");
  }
  for (const bool one_zero : {false, true}) {  // over all elements: no zero, then exactly one
    Tensor y = x.abs() + 0.5;
    if (one_zero) y[1][1].fill_(0.0);
    const Tensor leaf = y.cuda().requires_grad_(), host_leaf = y.clone().requires_grad_();
    prod(leaf).backward();
    prod(host_leaf).backward();
    expect_agrees(leaf.grad(), host_leaf.grad(),
                  one_zero ? "prod()'s gradient, one zero" : "prod()'s gradient, no zero");
  }
}

// Ops with no device kernel of their own go through the host and answer on the input's device:
// masked_select (its size depends on the data), eigh and matrix functions (Jacobi on the CPU), and
// dropout's mask (drawn from the CPU generator, so a seed gives the CPU's mask).
TEST(EngineDeviceOps, OpsWithoutADeviceKernelAnswerOnTheInputsDevice) {
  const Tensor x = sample({3, 4}), d = x.cuda();
  expect_agrees(masked_select(d, gt(d, 0)), masked_select(x, gt(x, 0)), "masked_select");
  expect_agrees(masked_select(d, gt(d.slice(0, 0, 1), 0)), masked_select(x, gt(x.slice(0, 0, 1), 0)),
                "masked_select with a broadcast mask");
  EXPECT_THROW((void)masked_select(d, gt(x, 0)), Error) << "a mask on the other device";
  const Tensor a = mm(x, x.t()).to(kFloat64), da = a.cuda();
  const EighResult e = eigh(da), h = eigh(a);
  expect_agrees(e.eigenvalues, h.eigenvalues, "eigh's values", 1e-9);
  expect_agrees(e.eigenvectors.abs(), h.eigenvectors.abs(), "eigh's vectors (up to sign)", 1e-9);
  EXPECT_EQ(e.eigenvectors.strides().vec(), h.eigenvectors.strides().vec()) << "the eigenvectors' column-major layout";
  expect_agrees(matrix_function(da, [](const Tensor& w) { return sqrt(w.clamp(0.0, 1e300)); }),
                matrix_function(a, [](const Tensor& w) { return sqrt(w.clamp(0.0, 1e300)); }), "a matrix square root",
                1e-9);
  manual_seed(5);
  const Tensor host_leaf = x.clone().requires_grad_();
  const Tensor on_cpu = nn::functional::dropout(host_leaf, 0.4, true);
  on_cpu.sum().backward();
  manual_seed(5);
  const Tensor leaf = d.clone().requires_grad_();
  const Tensor on_device = nn::functional::dropout(leaf, 0.4, true);
  expect_agrees(on_device, on_cpu, "dropout with the same seed");
  on_device.sum().backward();
  expect_agrees(leaf.grad(), host_leaf.grad(), "dropout's gradient");
  EXPECT_TRUE(nn::functional::dropout(d, 0.4, false).is_same(d)) << "in eval mode, x itself";
}

// gradcheck on the device: the inputs are float64 CUDA tensors, the perturbations and the
// backward passes run there.
TEST(EngineDeviceOps, EveryDifferentiableOpPassesGradcheckOnTheDevice) {
  const auto leaf = [](IntArrayRef sizes, int salt) {
    return sample(sizes, kFloat64, salt).cuda().requires_grad_(true);
  };
  const Tensor a = leaf({3, 4}, 1), b = leaf({4, 2}, 2), s = leaf({3, 4}, 3), v = leaf({2, 3, 4}, 4),
               w = leaf({2, 4, 3}, 5), bias = leaf({2}, 6);
  const Tensor pos = (sample({3, 4}, kFloat64, 7).abs() + 0.5).cuda().requires_grad_(true);
  const Tensor labels = tensor({1, 0, 3}).cuda();
  const Tensor mask = gt(sample({3, 4}, kFloat64, 8), 0).cuda();
  const Tensor rows = tensor({2, 0, 2}).cuda();
  Tensor zeroed_host = sample({3, 4}, kFloat64, 9);
  zeroed_host[1][2].fill_(0.0);
  zeroed_host[2][0].fill_(0.0);
  zeroed_host[2][3].fill_(0.0);
  const Tensor zeroed = zeroed_host.cuda().requires_grad_(true);
  using F = std::function<Tensor(const TensorList&)>;
  const std::vector<std::pair<std::string, std::pair<F, TensorList>>> cases = {
      {"add, sub, mul, div", {[](const TensorList& t) { return (t[0] + t[1]) * t[0] / (t[1] - 10.0); }, {a, s}}},
      {"pow, exp, log, sqrt",
       {[](const TensorList& t) { return exp(t[0]) + log(t[0]) * sqrt(t[0]) + pow(t[0], Scalar(3)); }, {pos}}},
      {"tanh, sigmoid, relu", {[](const TensorList& t) { return tanh(t[0]) + sigmoid(t[0]) * relu(t[0]); }, {a}}},
      {"sum over dims, mean", {[](const TensorList& t) { return t[0].sum({1}) + t[0].mean({1}); }, {a}}},
      {"sum (all), mean (all)", {[](const TensorList& t) { return t[0].sum() * t[0].mean(); }, {v}}},
      {"max along a dim", {[](const TensorList& t) { return std::get<0>(max(t[0], 1, false)); }, {a}}},
      {"max and min of all", {[](const TensorList& t) { return max(t[0]) - min(t[0]); }, {a}}},
      {"softmax", {[](const TensorList& t) { return softmax(t[0], 1); }, {a}}},
      {"log_softmax", {[](const TensorList& t) { return log_softmax(t[0], 0); }, {a}}},
      {"logsumexp", {[](const TensorList& t) { return logsumexp(t[0], {1}); }, {a}}},
      {"mm", {[](const TensorList& t) { return mm(t[0], t[1]); }, {a, b}}},
      {"addmm", {[](const TensorList& t) { return addmm(t[2], t[0], t[1], 0.5, 2.0); }, {a, b, bias}}},
      {"bmm", {[](const TensorList& t) { return bmm(t[0], t[1]); }, {v, w}}},
      {"matmul broadcast", {[](const TensorList& t) { return matmul(t[0], t[1]); }, {v, b}}},
      {"where", {[mask](const TensorList& t) { return where(mask, t[0], t[1]); }, {a, s}}},
      {"clamp", {[](const TensorList& t) { return clamp(t[0], -1.0, 1.0); }, {a}}},
      {"cat, stack",
       {[](const TensorList& t) {
          return stack({cat({t[0], t[1]}, 1), cat({t[1], t[0]}, 1)});
        },
        {a, s}}},
      {"masked_fill", {[mask](const TensorList& t) { return masked_fill(t[0], mask, 2.5); }, {a}}},
      {"cross_entropy", {[labels](const TensorList& t) { return nn::functional::cross_entropy(t[0], labels); }, {a}}},
      {"addmm (Linear's forward)", {[](const TensorList& t) { return addmm(t[2], t[0], t[1]); }, {a, b, bias}}},
      {"index_select with repeats",
       {[rows](const TensorList& t) {
          return index_select(t[0], 1, rows) * index_select(t[0], 0, rows).narrow(1, 0, 3);
        },
        {a}}},
      {"maximum, minimum, neg, abs",
       {[](const TensorList& t) { return maximum(t[0], t[1]) - minimum(t[0], -t[1]) * abs(t[0]); }, {a, s}}},
      {"log1p, rsqrt, sin, cos, reciprocal",
       {[](const TensorList& t) { return log1p(t[0]) * rsqrt(t[0]) + sin(t[0]) * cos(t[0]) + reciprocal(t[0]); },
        {pos}}},
      {"dot, mv", {[](const TensorList& t) { return mv(t[0], t[1].select(1, 0)) * dot(t[2], t[2]); }, {a, b, bias}}},
      {"min along a dim, clone", {[](const TensorList& t) { return std::get<0>(min(t[0].clone(), 0, true)); }, {a}}},
      {"views: transpose, slice, expand, select, permute, reshape",
       {[](const TensorList& t) {
          return t[0].t().slice(0, 1, 4, 2).reshape({-1}) *
                 t[1].select(0, 1).expand({2, 3, 4}).permute({2, 0, 1}).sum();
        },
        {a, v}}},
      {"in place on a non-leaf: mul_, add_, copy_ into a slice",
       {[](const TensorList& t) {
          Tensor y = t[0] * 1.0;
          y.mul_(t[1]).add_(t[0], 2.0);
          y.slice(1, 0, 2).copy_(t[1].slice(1, 2, 4));
          return y;
        },
        {a, s}}},
      {"sign, floor, ceil, round: zero gradients",
       {[](const TensorList& t) { return t[0] * sign(t[0]) + floor(t[0]) + ceil(t[0]) * round(t[0]); }, {a}}},
      {"fill_ of a slice of a non-leaf",
       {[](const TensorList& t) {
          Tensor y = t[0] * 2.0;
          y.slice(0, 1, 2).fill_(0.5);
          return y;
        },
        {a}}},
      {"prod (no zero, one, two in a row)",
       {[](const TensorList& t) { return prod(t[0], 1, false).sum() + prod(t[0] * 0.5); }, {zeroed}}},
  };
  for (const auto& [name, c] : cases) {
    try {
      EXPECT_TRUE(autograd::gradcheck(c.first, c.second)) << name;
    } catch (const std::exception& e) {
      ADD_FAILURE() << name << ": " << e.what();
    }
  }
}

// A move is recorded (ToCopyBackward0): backward takes the gradient back to the device the
// tensor came from, and under create_graph the move back is itself recorded.
TEST(EngineDeviceOps, AMoveBetweenDevicesIsDifferentiableTwice) {
  const Tensor host = sample({3, 4}, kFloat64, 11).requires_grad_(true);
  const Tensor dev = sample({2, 5}, kFloat64, 12).cuda().requires_grad_(true);
  using F = std::function<Tensor(const TensorList&)>;
  const std::vector<std::pair<std::string, std::pair<F, TensorList>>> cases = {
      {"cpu -> cuda -> cpu", {[](const TensorList& t) { return (t[0].cuda() * t[0].cuda()).cpu() * t[0]; }, {host}}},
      {"cuda -> cpu -> cuda", {[](const TensorList& t) { return (tanh(t[0].cpu()) * 3.0).cuda() * t[0]; }, {dev}}},
      {"to(device, dtype) with the same dtype",
       {[](const TensorList& t) { return sin(t[0].to(Device("cuda"), kFloat64)).to(kCPU).sum(); }, {host}}},
  };
  for (const auto& [name, c] : cases) {
    try {
      EXPECT_TRUE(autograd::gradcheck(c.first, c.second)) << name;
      EXPECT_TRUE(autograd::gradgradcheck(c.first, c.second)) << name;
    } catch (const std::exception& e) {
      ADD_FAILURE() << name << ": " << e.what();
    }
  }
  const Tensor moved = host.cuda();
  EXPECT_EQ(moved.grad_fn()->name(), "ToCopyBackward0");
  const Tensor g = autograd::grad({(moved * moved).sum()}, {host}, {}, std::nullopt, /*create_graph=*/true)[0];
  EXPECT_TRUE(g.device().is_cpu());
  ASSERT_TRUE(g.grad_fn() != nullptr) << "under create_graph the move back is recorded";
  EXPECT_EQ(g.grad_fn()->name(), "ToCopyBackward0");
  EXPECT_TRUE(allclose(g, host.detach() * 2));
  // A move and a change of dtype at once: one node (PyTorch's _to_copy), and the gradient comes
  // back in the leaf's dtype on the leaf's device.
  const Tensor narrow = host.to(Device("cuda"), kFloat32);
  EXPECT_EQ(narrow.dtype(), kFloat32);
  ASSERT_TRUE(narrow.grad_fn() != nullptr);
  EXPECT_EQ(narrow.grad_fn()->name(), "ToCopyBackward0");
  EXPECT_EQ(narrow.grad_fn()->next_edges()[0].fn->name(), "torch::autograd::AccumulateGrad") << "one node, not two";
  const Tensor g32 = autograd::grad({(narrow * narrow).sum()}, {host})[0];
  EXPECT_EQ(g32.dtype(), kFloat64);
  EXPECT_TRUE(g32.device().is_cpu());
  EXPECT_TRUE(allclose(g32, host.detach() * 2, 1e-5, 1e-5));
}

namespace {
// The same MLP on either device, from the same initial weights.
std::shared_ptr<nn::Sequential> mlp(Device device) {
  manual_seed(3);
  auto model = std::make_shared<nn::Sequential>(nn::Linear(12, 16), nn::ReLU(), nn::Linear(16, 4));
  model->to(device);
  return model;
}
}  // namespace

TEST(EngineDeviceOps, ATrainingStepOnTheDeviceAgreesWithTheCpu) {
  const Tensor x = sample({8, 12}, kFloat32, 9), y = tensor({0, 1, 2, 3, 3, 2, 1, 0});
  for (const bool adam : {false, true}) {
    auto cpu_model = mlp(kCPU), dev_model = mlp(Device("cuda"));
    std::unique_ptr<optim::Optimizer> cpu_opt, dev_opt;
    if (adam) {
      cpu_opt = std::make_unique<optim::Adam>(cpu_model->parameters(), optim::Adam::Config{.lr = 1e-2});
      dev_opt = std::make_unique<optim::Adam>(dev_model->parameters(), optim::Adam::Config{.lr = 1e-2});
    } else {
      cpu_opt = std::make_unique<optim::SGD>(cpu_model->parameters(), optim::SGD::Config{.lr = 0.1, .momentum = 0.9});
      dev_opt = std::make_unique<optim::SGD>(dev_model->parameters(), optim::SGD::Config{.lr = 0.1, .momentum = 0.9});
    }
    for (int step = 0; step < 3; ++step) {
      cpu_opt->zero_grad();
      dev_opt->zero_grad();
      const Tensor cpu_loss = nn::functional::cross_entropy((*cpu_model)(x), y);
      const Tensor dev_loss = nn::functional::cross_entropy((*dev_model)(x.cuda()), y.cuda());
      expect_agrees(dev_loss, cpu_loss, "loss at step " + std::to_string(step));
      cpu_loss.backward();
      dev_loss.backward();
      cpu_opt->step();
      dev_opt->step();
    }
    const auto cp = cpu_model->parameters(), dp = dev_model->parameters();
    ASSERT_EQ(cp.size(), dp.size());
    for (std::size_t i = 0; i < cp.size(); ++i) {
      expect_agrees(dp[i].grad(), cp[i].grad(), "gradient of parameter " + std::to_string(i), 1e-4);
      expect_agrees(dp[i].detach(), cp[i].detach(), "parameter " + std::to_string(i) + " after 3 steps", 1e-4);
    }
  }
}

namespace {
// Runs f on the CPU and on the device from the same inputs (leaves requiring grad), backward with
// the same seed, and compares the outputs and every input's gradient.
void expect_forward_and_backward_agree(const std::function<Tensor(const TensorList&)>& f, const TensorList& inputs,
                                       const std::string& what, double tol = 1e-4) {
  TensorList cpu, dev;
  for (const Tensor& t : inputs) {
    cpu.push_back(t.detach().clone().requires_grad_(true));
    dev.push_back(t.detach().cuda().requires_grad_(true));
  }
  const Tensor y_cpu = f(cpu), y_dev = f(dev);
  expect_agrees(y_dev, y_cpu, what + ": output", tol);
  const Tensor seed = sample(y_cpu.sizes(), y_cpu.dtype(), 7);
  y_cpu.backward(seed);
  y_dev.backward(seed.cuda());
  for (std::size_t i = 0; i < inputs.size(); ++i)
    expect_agrees(dev[i].grad(), cpu[i].grad(), what + ": gradient of input " + std::to_string(i), tol);
}
}  // namespace

TEST(EngineDeviceOps, ConvolutionsAgreeWithTheCpuForwardAndBackward) {
  namespace F = nn::functional;
  const Tensor x = sample({2, 4, 9, 8}, kFloat32, 1), w = sample({6, 4, 3, 3}, kFloat32, 2) * 0.3;
  const Tensor b = sample({6}, kFloat32, 3), wg = sample({6, 2, 3, 2}, kFloat32, 4) * 0.3;
  expect_forward_and_backward_agree([](const TensorList& t) { return F::conv2d(t[0], t[1], t[2]); }, {x, w, b},
                                    "conv2d");
  expect_forward_and_backward_agree(
      [](const TensorList& t) {
        return F::conv2d(t[0], t[1], t[2], nn::Pair2{2, 1}, nn::Pair2{1, 2}, nn::Pair2{1, 2});
      },
      {x, w, b}, "conv2d, stride (2, 1), padding (1, 2), dilation (1, 2)");
  expect_forward_and_backward_agree(
      [](const TensorList& t) { return F::conv2d(t[0], t[1], Tensor(), 1, 1, 1, /*groups=*/2); }, {x, wg},
      "conv2d, 2 groups, no bias");
  expect_forward_and_backward_agree([](const TensorList& t) { return F::conv2d(t[0], t[1], t[2]); }, {x[0], w, b},
                                    "conv2d of one unbatched image");
}

TEST(EngineDeviceOps, PoolingAgreesWithTheCpuForwardAndBackward) {
  namespace F = nn::functional;
  const Tensor x = sample({2, 3, 9, 8}, kFloat32, 5);
  expect_forward_and_backward_agree([](const TensorList& t) { return F::max_pool2d(t[0], 2); }, {x}, "max_pool2d(2)");
  expect_forward_and_backward_agree(
      [](const TensorList& t) {
        return F::max_pool2d(t[0], 3, nn::Pair2{2, 2}, 1, 1, /*ceil_mode=*/true);
      },
      {x}, "max_pool2d(3, stride 2, padding 1, ceil_mode): overlapping windows");
  expect_forward_and_backward_agree(
      [](const TensorList& t) {
        return F::avg_pool2d(t[0], 3, nn::Pair2{2, 2}, 1, false, /*count_include_pad=*/false);
      },
      {x}, "avg_pool2d(3, stride 2, padding 1, count_include_pad false)");
  expect_forward_and_backward_agree(
      [](const TensorList& t) {
        return F::adaptive_avg_pool2d(t[0], nn::Pair2{4, 3});
      },
      {x}, "adaptive_avg_pool2d((4, 3))");
  const Tensor nan = tensor({1.0f, NAN, 3.0f, 2.0f}).reshape({1, 1, 2, 2});
  const Tensor m = F::max_pool2d(nan.cuda(), 2).cpu();
  EXPECT_TRUE(std::isnan(m.item<float>())) << "a NaN in the window wins, as in PyTorch";
}

TEST(EngineDeviceOps, ACnnTrainingStepOnTheDeviceAgreesWithTheCpu) {
  const auto cnn = [](Device device) {
    manual_seed(4);
    auto model =
        std::make_shared<nn::Sequential>(nn::Conv2d(1, 4, 3, nn::Conv2dOptions{.padding = 1}), nn::ReLU(),
                                         nn::MaxPool2d(2), nn::Conv2d(4, 6, 3, nn::Conv2dOptions{.padding = 1}),
                                         nn::ReLU(), nn::AvgPool2d(2), nn::Flatten(), nn::Linear(6 * 2 * 2, 3));
    model->to(device);
    return model;
  };
  auto cpu_model = cnn(kCPU), dev_model = cnn(Device("cuda"));
  optim::SGD cpu_opt(cpu_model->parameters(), optim::SGD::Config{.lr = 0.1, .momentum = 0.9});
  optim::SGD dev_opt(dev_model->parameters(), optim::SGD::Config{.lr = 0.1, .momentum = 0.9});
  const Tensor x = sample({5, 1, 8, 8}, kFloat32, 6), y = tensor({0, 1, 2, 1, 0});
  for (int step = 0; step < 3; ++step) {
    cpu_opt.zero_grad();
    dev_opt.zero_grad();
    const Tensor cpu_loss = nn::functional::cross_entropy((*cpu_model)(x), y);
    const Tensor dev_loss = nn::functional::cross_entropy((*dev_model)(x.cuda()), y.cuda());
    expect_agrees(dev_loss, cpu_loss, "loss at step " + std::to_string(step));
    cpu_loss.backward();
    dev_loss.backward();
    cpu_opt.step();
    dev_opt.step();
  }
  const auto cp = cpu_model->parameters(), dp = dev_model->parameters();
  for (std::size_t i = 0; i < cp.size(); ++i)
    expect_agrees(dp[i].detach(), cp[i].detach(), "parameter " + std::to_string(i) + " after 3 steps", 1e-4);
}

TEST(EngineDeviceOps, ACheckpointSavedFromTheDeviceLoadsOnTheCpuAndBack) {
  const auto dir = std::filesystem::temp_directory_path() / "kindling-device-checkpoint";
  std::filesystem::create_directories(dir);
  auto dev_model = mlp(Device("cuda"));
  optim::SGD opt(dev_model->parameters(), optim::SGD::Config{.lr = 0.1, .momentum = 0.9});
  opt.zero_grad();
  nn::functional::cross_entropy((*dev_model)(sample({4, 12}).cuda()), tensor({0, 1, 2, 3}).cuda()).backward();
  opt.step();
  serialize::save_checkpoint(dir / "model.ckpt", *dev_model, &opt, 1);
  auto cpu_model = mlp(kCPU);
  optim::SGD cpu_opt(cpu_model->parameters(), optim::SGD::Config{.lr = 0.1, .momentum = 0.9});
  serialize::load_checkpoint(dir / "model.ckpt", *cpu_model, &cpu_opt);
  const auto dp = dev_model->parameters(), cp = cpu_model->parameters();
  for (std::size_t i = 0; i < dp.size(); ++i) {
    EXPECT_TRUE(cp[i].device().is_cpu());
    EXPECT_TRUE(equal(dp[i].detach().cpu(), cp[i].detach())) << "parameter " << i;
  }
  auto back = mlp(Device("cuda"));
  optim::SGD back_opt(back->parameters(), optim::SGD::Config{.lr = 0.1, .momentum = 0.9});
  serialize::save_checkpoint(dir / "cpu.ckpt", *cpu_model, &cpu_opt, 1);
  serialize::load_checkpoint(dir / "cpu.ckpt", *back, &back_opt);
  const auto bp = back->parameters();
  for (std::size_t i = 0; i < bp.size(); ++i) {
    EXPECT_TRUE(bp[i].is_cuda()) << "a loaded parameter stays where the model is";
    EXPECT_TRUE(equal(bp[i].detach().cpu(), cp[i].detach())) << "parameter " << i;
  }
  // The optimizer's momentum came back too: one more step moves both models alike.
  const Tensor x = sample({4, 12}), y = tensor({3, 2, 1, 0});
  for (auto* p : {&back_opt, &cpu_opt}) p->zero_grad();
  nn::functional::cross_entropy((*back)(x.cuda()), y.cuda()).backward();
  nn::functional::cross_entropy((*cpu_model)(x), y).backward();
  back_opt.step();
  cpu_opt.step();
  for (std::size_t i = 0; i < bp.size(); ++i) expect_agrees(bp[i].detach(), cp[i].detach(), "after a step", 1e-4);
  std::filesystem::remove_all(dir);
}

}  // namespace kindling::testing
