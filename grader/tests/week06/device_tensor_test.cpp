// Tensors on `cuda` (the simulated device where no GPU is): devices parse and print as in
// PyTorch, elementwise ops on the device agree with the CPU for every dtype, broadcast and
// strided layout, mixing devices gives PyTorch's error, and the CPU's kernels refuse device
// memory.

#include <string>
#include <vector>

#include <kindling/cuda/caching_allocator.hpp>
#include <kindling/cuda/runtime.hpp>
#include <kindling/kindling.hpp>
#include <kindling/nn.hpp>

#include "oracle_json.hpp"
#include "testing.hpp"

namespace kindling::testing {
namespace {

// The oracle's device rule was recorded with "meta" in CUDA's place (tools/oracle/week06.py).
template <class F>
void expect_error_contains(F f, const std::string& part) {
  try {
    f();
    ADD_FAILURE() << "no error; expected one containing: " << part;
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
  }
}

std::string as_cuda(std::string message) {
  const auto at = message.find("meta");
  if (at != std::string::npos) message.replace(at, 4, "cuda:0");
  return message;
}

Tensor sample(ScalarType t, IntArrayRef sizes, int salt = 0) {
  Tensor x = arange(numel_of(sizes), kFloat64).reshape(sizes);
  x = sin(x * 0.37 + salt) * 9.0;  // values of both signs, not integers
  if (t == kBool) return gt(x, 0);
  if (t == kUInt8) return x.abs().to(t);
  return x.to(t);
}

void expect_same(const Tensor& device, const Tensor& cpu, const std::string& what) {
  ASSERT_TRUE(device.is_cuda()) << what;
  EXPECT_EQ(device.dtype(), cpu.dtype()) << what;
  EXPECT_EQ(device.sizes().vec(), cpu.sizes().vec()) << what;
  const Tensor back = device.cpu();
  EXPECT_TRUE(back.device().is_cpu());
  if (cpu.is_floating_point())
    EXPECT_TRUE(allclose(back, cpu, 1e-6, 1e-6, /*equal_nan=*/true)) << what << "\n" << back << "\n" << cpu;
  else
    EXPECT_TRUE(equal(back, cpu)) << what << "\n" << back << "\n" << cpu;
}

}  // namespace

TEST(EngineDevices, DeviceStringsParseAndFailAsInPyTorch) {
  for (const auto& c : oracle_json("devices")) {
    const std::string spec = c["spec"];
    if (c.contains("error")) {
      expect_error_json([&] { Device d(spec); }, c["error"]);
      continue;
    }
    const Device d(spec);
    EXPECT_EQ(d.is_cpu() ? "cpu" : "cuda", c["type"].get<std::string>()) << spec;
    EXPECT_EQ(d.index, c["index"].get<int>()) << spec;
    EXPECT_EQ(to_string(d), c["str"].get<std::string>()) << spec;
  }
  EXPECT_EQ(Device("cuda") == Device("cuda:0"), oracle_json("device_equality")["cuda_vs_cuda0"].get<bool>());
  EXPECT_EQ(Device("cpu") == Device("cpu:0"), oracle_json("device_equality")["cpu_vs_cpu0"].get<bool>());
}

TEST(EngineDevices, MixingDevicesGivesPyTorchsErrorAndA0dCpuTensorMayJoin) {
  const Tensor dev = ones({2, 3}, kCUDA), cpu = ones({2, 3});
  const auto& m = oracle_json("mixed");
  expect_error<Error>([&] { (void)(dev + cpu); }, as_cuda(m["device_plus_cpu"]["message"]));
  expect_error<Error>([&] { (void)(cpu + dev); }, as_cuda(m["cpu_plus_device"]["message"]));
  expect_error<Error>([&] { cpu.add_(dev); }, as_cuda(m["cpu_inplace_device"]["message"]));
  expect_error<Error>([&] { (void)mul(dev, cpu); }, as_cuda(m["device_mul_cpu"]["message"]));
  EXPECT_EQ(to_string((dev + tensor(2.0)).device()), as_cuda(m["device_plus_cpu_0d_ok"]));
  EXPECT_EQ(to_string((tensor(2.0) + dev).device()), as_cuda(m["cpu_0d_plus_device_ok"]));
  expect_same(dev + tensor(2.0), full({2, 3}, 3.0), "a 0-d CPU operand");
}

TEST(EngineDevices, CpuKernelsRefuseDeviceMemoryWithAClearError) {
  const Tensor dev = ones({4, 4}, kCUDA);
  expect_error_contains([&] { (void)dev.data_ptr<float>(); }, "copy it with .cpu() first");
}

TEST(EngineDevices, FactoriesMovesAndPrinting) {
  EXPECT_TRUE(cuda::is_available());
  EXPECT_EQ(cuda::device_count(), 1);
  const Tensor z = zeros({2, 3}, TensorOptions(kInt64).device(Device("cuda")));
  EXPECT_EQ(z.device(), Device("cuda:0"));
  EXPECT_EQ(to_string(z), "tensor([[0, 0, 0],\n        [0, 0, 0]], device='cuda:0')");
  EXPECT_EQ(to_string(ones({2}, kCUDA)), "tensor([1., 1.], device='cuda:0')");
  EXPECT_EQ(to_string(arange(3, TensorOptions(kCUDA)).to(kFloat64)),
            "tensor([0., 1., 2.], device='cuda:0', dtype=torch.float64)");
  expect_error<Error>([&] { (void)ones({2}, Device("cuda:1")); }, "CUDA error: invalid device ordinal");
  const Tensor x = sample(kFloat32, {3, 4});
  const Tensor d = x.cuda();
  EXPECT_TRUE(d.cuda().is_same(d));  // already there: the same tensor
  EXPECT_TRUE(d.is_contiguous());
  expect_same(d, x, "cuda() then cpu()");
  expect_same(x.t().cuda(), x.t().contiguous(), "a transposed tensor moved");
  expect_same(zeros_like(d), zeros({3, 4}), "zeros_like keeps the device");
  EXPECT_EQ(d[1][2].item<float>(), x.at<float>({1, 2}));
  EXPECT_FLOAT_EQ(d.at<float>({2, 3}), x.at<float>({2, 3}));
  EXPECT_EQ(d.to_vector<float>(), x.to_vector<float>());
}

TEST(EngineDevices, UnaryOpsAgreeWithTheCpuForEveryDtype) {
  using UnaryFn = Tensor (*)(const Tensor&);
  const std::vector<std::pair<const char*, UnaryFn>> ops{{"neg", neg},
                                                         {"abs", abs},
                                                         {"sign", sign},
                                                         {"exp", exp},
                                                         {"log", log},
                                                         {"log1p", log1p},
                                                         {"sqrt", sqrt},
                                                         {"rsqrt", rsqrt},
                                                         {"sin", sin},
                                                         {"cos", cos},
                                                         {"tanh", tanh},
                                                         {"sigmoid", sigmoid},
                                                         {"reciprocal", reciprocal},
                                                         {"relu", relu},
                                                         {"floor", floor},
                                                         {"ceil", ceil},
                                                         {"round", round},
                                                         {"isnan", isnan},
                                                         {"isfinite", isfinite},
                                                         {"logical_not", logical_not}};
  for (ScalarType t : {kBool, kUInt8, kInt32, kInt64, kFloat32, kFloat64}) {
    const Tensor x = sample(t, {5, 7});
    for (const auto& [name, f] : ops) {
      const std::string what = std::string(name) + " of " + std::string(dtype_name(t));
      Tensor expected;
      try {
        expected = f(x);
      } catch (const Error& e) {  // refused on the CPU: refused on the device too
        expect_error<Error>([&] { (void)f(x.cuda()); }, e.what());
        continue;
      }
      expect_same(f(x.cuda()), expected, what);
      expect_same(f(x.t().cuda().t().t()), f(x.t()), what + " (strided)");
    }
  }
}

TEST(EngineDevices, BinaryOpsAgreeWithTheCpuWithBroadcastingStridesAndScalars) {
  using BinaryFn = Tensor (*)(const Tensor&, const Tensor&);
  const std::vector<std::pair<const char*, BinaryFn>> ops{
      {"mul", mul}, {"div", div}, {"maximum", maximum}, {"minimum", minimum}, {"pow", pow}, {"eq", eq},
      {"ne", ne},   {"lt", lt},   {"le", le},           {"gt", gt},           {"ge", ge}};
  for (ScalarType t : {kBool, kUInt8, kInt32, kInt64, kFloat32, kFloat64}) {
    const Tensor a = sample(t, {4, 1, 6}), b = sample(t, {5, 1}, 3).to(t);
    for (const auto& [name, f] : ops) {
      const std::string what = std::string(name) + " of " + std::string(dtype_name(t));
      Tensor expected;
      try {
        expected = f(a, b);
      } catch (const Error& e) {
        expect_error<Error>([&] { (void)f(a.cuda(), b.cuda()); }, e.what());
        continue;
      }
      expect_same(f(a.cuda(), b.cuda()), expected, what);
    }
    if (t != kBool) {
      expect_same(add(a.cuda(), b.cuda(), 3), add(a, b, 3), "add with alpha");
      expect_same(sub(a.cuda(), b.cuda(), 2), sub(a, b, 2), "sub with alpha");
      expect_same(a.cuda() * 2.5, a * 2.5, "times a Scalar");
      expect_same(a.cuda() + 3, a + 3, "plus an int Scalar");
    }
  }
  // Mixed dtypes promote as on the CPU; a permuted, sliced operand is read through its strides.
  const Tensor i = sample(kInt32, {6, 8}), f = sample(kFloat64, {8, 6}).t().slice(1, 1, 8, 3);
  expect_same(i.cuda().slice(1, 0, 8, 3) + f.cuda(), i.slice(1, 0, 8, 3) + f, "int32 + float64, strided");
  expect_same(gt(i.cuda(), 2.5), gt(i, 2.5), "a comparison with a Scalar");
}

TEST(EngineDevices, InPlaceOpsCastsCopiesAndFillsStayOnTheDevice) {
  const Tensor x = sample(kFloat32, {3, 5});
  const Tensor d = x.cuda();
  const void* where = d.data_ptr();
  d.add_(ones({5}, kCUDA), 2).mul_(3.0);
  EXPECT_EQ(d.data_ptr(), where);
  EXPECT_EQ(d.version(), 2u);
  expect_same(d, (x + 2) * 3, "add_ and mul_");
  expect_same(d.to(kInt64), ((x + 2) * 3).to(kInt64), "a cast on the device");
  expect_same(d.to(kUInt8), ((x + 2) * 3).to(kUInt8), "a cast to uint8");
  const Tensor target = zeros({5, 3}, kCUDA);
  target.t().copy_(x);  // device <- host, through the target's strides
  expect_same(target, x.t().contiguous(), "copy_ from the CPU into a transposed device view");
  Tensor host = zeros({5, 3});
  host.copy_(target);
  EXPECT_TRUE(equal(host, x.t()));
  d.fill_(7);
  expect_same(d, full({3, 5}, 7.0), "fill_");
  d.slice(1, 0, 5, 2).zero_();
  const Tensor expected = full({3, 5}, 7.0);
  expected.slice(1, 0, 5, 2).zero_();
  expect_same(d.clone(), expected, "a strided zero_ and clone");
  expect_same(d.t().contiguous(), expected.t().contiguous(), "contiguous() of a transposed device tensor");
  expect_error_contains([&] { d.add_(ones({5})); }, "Expected all tensors to be on the same device");
}

// The kernels index at most 8 dims; a tensor of more reaches them with its dims merged where it
// steps across them as across one (a contiguous tensor of any rank is one dim), so it works.
TEST(EngineDevices, ATensorOfMoreDimsThanTheKernelsIndexWorksWhenItsDimsMerge) {
  const std::vector<std::int64_t> sizes{2, 1, 3, 2, 1, 2, 2, 1, 3, 2};  // 10 dims, 288 elements
  const Tensor x = arange(288, kFloat32).reshape(sizes);
  const Tensor d = x.to(Device("cuda"));
  EXPECT_EQ(d.sizes().vec(), sizes);
  EXPECT_TRUE(equal(d.cpu(), x));
  EXPECT_TRUE(equal((d * 2 + 1).cpu(), x * 2 + 1));
  EXPECT_TRUE(equal(exp(d * 0.01).cpu(), exp(x * 0.01)));
  EXPECT_TRUE(equal(zeros(sizes, TensorOptions(kFloat32).device(Device("cuda"))).cpu(), zeros(sizes)));
  EXPECT_NEAR(d.sum().item<double>(), x.sum().item<double>(), 1e-3);
  EXPECT_TRUE(allclose(d.sum(std::vector<std::int64_t>{8, 9}).cpu(), x.sum(std::vector<std::int64_t>{8, 9})));
  EXPECT_TRUE(equal(where(gt(d, 100.0), d, zeros_like(d)).cpu(), where(gt(x, 100.0), x, zeros_like(x))));
  // A transpose of the last two dims still merges into fewer than 9 runs.
  EXPECT_TRUE(equal(d.transpose(8, 9).contiguous().cpu(), x.transpose(8, 9).contiguous()));
}

TEST(EngineDevices, ModuleToMovesParametersInPlaceAndBack) {
  nn::Linear lin(3, 2);
  const auto before = lin.named_parameters();
  std::vector<Tensor> values;
  for (const auto& [name, p] : before) values.push_back(p.detach().clone());
  lin.to(Device("cuda"));
  const auto after = lin.named_parameters();
  ASSERT_EQ(after.size(), before.size());
  for (std::size_t i = 0; i < after.size(); ++i) {
    EXPECT_TRUE(after[i].second.is_same(before[i].second)) << after[i].first << ": the same tensor object, moved";
    EXPECT_TRUE(after[i].second.is_cuda()) << after[i].first;
    EXPECT_TRUE(after[i].second.requires_grad()) << after[i].first;
    EXPECT_TRUE(equal(after[i].second.detach().cpu(), values[i])) << after[i].first;
  }
  expect_error<Error>([&] { lin.to(Device("cuda:3")); }, "CUDA error: invalid device ordinal");
  lin.to(kCPU);
  for (std::size_t i = 0; i < after.size(); ++i) EXPECT_TRUE(before[i].second.device().is_cpu());
  EXPECT_TRUE(equal(lin.named_parameters()[0].second.detach(), values[0]));
}

}  // namespace kindling::testing
