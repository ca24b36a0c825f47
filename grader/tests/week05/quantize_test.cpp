// Task week05.quantize: per-tensor affine quantisation, integer for integer against PyTorch 1.13's
// torch.quantize_per_tensor (ties, saturation, NaN and infinities included; tools/oracle/week05.py),
// dequantize, and the exact 32-bit integer product of a quantised Linear layer.

#include <cmath>
#include <string>
#include <vector>

#include <kindling/kindling.hpp>
#include <kindling/quantize.hpp>

#include "oracle_json.hpp"
#include "testing.hpp"

namespace kindling::testing {
namespace {
using quant::QDtype;
using quant::QuantizedTensor;

QDtype qdtype_named(const std::string& name) {
  return name == "quint8" ? quant::kQUInt8 : name == "qint8" ? quant::kQInt8 : quant::kQInt32;
}

std::vector<std::int64_t> ints_of(const Tensor& t) {
  const Tensor c = t.to(kInt64).contiguous();
  const auto* p = static_cast<const std::int64_t*>(c.data_ptr());
  return {p, p + c.numel()};
}

// A quantised tensor made from the oracle's integers, without the task's code.
QuantizedTensor from_ints(const nlohmann::json& c, const std::string& who) {
  const QDtype dtype = qdtype_named(c[who + "_dtype"].get<std::string>());
  const auto values = c[who].get<std::vector<std::int64_t>>();
  const auto shape = c[who + "_shape"].get<std::vector<std::int64_t>>();
  Tensor ints = tensor(values).reshape(shape).to(dtype == quant::kQUInt8 ? kUInt8 : kInt32);
  return {ints, c[who + "_scale"].get<double>(), c[who + "_zero_point"].get<std::int64_t>(), dtype};
}
}  // namespace

TEST(week05_quantize, QuantizeGivesPyTorchsIntegersForEveryCase) {
  for (const auto& c : oracle_json("quantize")) {
    const Tensor x = exact_tensor_from_json(c["x"]);
    const auto scale = c["scale"].get<double>();
    const auto zp = c["zero_point"].get<std::int64_t>();
    const std::string name = c["dtype"].get<std::string>();
    const QuantizedTensor q = quant::quantize_per_tensor(x, scale, zp, qdtype_named(name));
    const std::string what =
        "quantize_per_tensor(x, " + std::to_string(scale) + ", " + std::to_string(zp) + ", torch." + name + ")";
    ASSERT_EQ(q.int_repr.sizes().vec(), x.sizes().vec()) << what;
    EXPECT_EQ(q.int_repr.dtype(), name == "quint8" ? kUInt8 : kInt32) << what;
    EXPECT_EQ(q.scale, scale) << what;
    EXPECT_EQ(q.zero_point, zp) << what;
    EXPECT_EQ(q.dtype, qdtype_named(name)) << what;
    const auto got = ints_of(q.int_repr);
    const auto want = c["int_repr"].get<std::vector<std::int64_t>>();
    const Tensor flat = x.contiguous().reshape({-1});
    for (std::size_t i = 0; i < want.size(); ++i)
      ASSERT_EQ(got[i], want[i]) << what << ": element " << i << " ("
                                 << flat[static_cast<std::int64_t>(i)].item<float>() << ") is " << got[i]
                                 << ", PyTorch's " << want[i];
  }
}

TEST(week05_quantize, DequantizeGivesPyTorchsFloats) {
  for (const auto& c : oracle_json("quantize")) {
    const Tensor x = exact_tensor_from_json(c["x"]);
    const QuantizedTensor q = quant::quantize_per_tensor(
        x, c["scale"].get<double>(), c["zero_point"].get<std::int64_t>(), qdtype_named(c["dtype"].get<std::string>()));
    const Tensor d = quant::dequantize(q);
    EXPECT_EQ(d.dtype(), kFloat32);
    // PyTorch's vectorised dequantize uses a fused multiply-add: the last bit may differ. And for
    // qint32 it subtracts the zero point in 32-bit integers, which wraps round where q - zero_point
    // does not fit (q = -2^31 with a positive zero point): the kit's exact value is not compared there.
    Values want = values_from_json(c["dequantized"]);
    const auto ints = ints_of(q.int_repr);
    Tensor got = d.reshape({-1}).clone();
    for (std::size_t i = 0; i < ints.size(); ++i) {
      const std::int64_t diff = ints[i] - q.zero_point;
      if (diff < -2147483648LL || diff > 2147483647LL) {
        want.values[i] = 0;
        got[static_cast<std::int64_t>(i)].fill_(0);
      }
    }
    expect_values(got.reshape(want.sizes), want, 1e-6, 1e-6);
  }
}

TEST(week05_quantize, ErrorsArePyTorchsAndABadScaleIsRefused) {
  const auto& e = oracle_json("quantize_errors");
  const Tensor x = ones({3});
  EXPECT_EQ(ints_of(quant::quantize_per_tensor(x, 0.1, 255, quant::kQUInt8).int_repr)[0], 255);
  expect_error_json([&] { quant::quantize_per_tensor(x, 0.1, 300, quant::kQUInt8); }, e["above"]);
  expect_error_json([&] { quant::quantize_per_tensor(x, 0.1, -1, quant::kQUInt8); }, e["below"]);
  expect_error_json([&] { quant::quantize_per_tensor(x, 0.1, 128, quant::kQInt8); }, e["qint8_above"]);
  expect_error_json([&] { quant::quantize_per_tensor(x.to(kFloat64), 0.1, 0, quant::kQUInt8); }, e["double"]);
  for (const double bad : {0.0, -0.5, static_cast<double>(INFINITY), static_cast<double>(NAN)})
    EXPECT_THROW(quant::quantize_per_tensor(x, bad, 0, quant::kQUInt8), Error) << "scale " << bad;
}

TEST(week05_quantize, TheIntegerProductIsExactUpToTheLargestSums) {
  for (const auto& c : oracle_json("int_matmul")) {
    const QuantizedTensor a = from_ints(c, "a"), b = from_ints(c, "b");
    const Tensor p = quant::int_matmul_t(a, b);
    EXPECT_EQ(p.dtype(), kInt32);
    ASSERT_EQ(p.sizes().vec(), Shape({a.int_repr.size(0), b.int_repr.size(0)}));
    EXPECT_EQ(ints_of(p), c["product"].get<std::vector<std::int64_t>>())
        << "k = " << a.int_repr.size(1) << ": the sum over k of (a - a.zero_point)(b - b.zero_point), exactly";
  }
}

TEST(week05_quantize, TheIntegerProductRefusesWhatIsNotALinearLayer) {
  const QuantizedTensor a = quant::quantize_per_tensor(ones({2, 3}), 0.1, 0, quant::kQUInt8);
  EXPECT_EQ(ints_of(quant::int_matmul_t(a, a)), (std::vector<std::int64_t>{300, 300, 300, 300}));
  const QuantizedTensor b = quant::quantize_per_tensor(ones({2, 4}), 0.1, 0, quant::kQInt8);
  EXPECT_THROW(quant::int_matmul_t(a, b), Error) << "k = 3 against k = 4";
  EXPECT_THROW(quant::int_matmul_t(quant::quantize_per_tensor(ones({3}), 0.1, 0, quant::kQUInt8), a), Error);
  EXPECT_THROW(quant::int_matmul_t(a, quant::quantize_per_tensor(ones({2, 3}), 0.1, 0, quant::kQInt32)), Error);
}

TEST(week05_quantize, AQuantizedLinearStaysWithinItsRoundingBounds) {
  // A Linear(64, 32) with weights quantised to qint8 (scale max|W| / 127) and inputs in [0, 1) to
  // quint8 (scale 1 / 255): against the float layer with the dequantised weights, each output can
  // be off by at most sum_k |W_jk| x_scale / 2 (every input rounded by at most half a step).
  manual_seed(3);
  const Tensor w = randn({32, 64}).mul(0.2), b = randn({32}).mul(0.1), x = rand({16, 64});
  const double w_scale = w.abs().max().item<double>() / 127;
  const QuantizedTensor wq = quant::quantize_per_tensor(w, w_scale, 0, quant::kQInt8);
  const double x_scale = 1.0 / 255;
  const Tensor y = quant::quantized_linear(x, wq, b, x_scale, 0);
  const Tensor wd = quant::dequantize(wq);
  const Tensor reference = x.mm(wd.t()).add(b);
  const Tensor bound = wd.abs().sum(1).mul(x_scale / 2).add(1e-5);  // (32,)
  EXPECT_TRUE(y.sub(reference).abs().le(bound.unsqueeze(0)).all().item<bool>())
      << "largest error " << y.sub(reference).abs().max().item<double>();
  // And the weights' own rounding: at most half a step each.
  EXPECT_LE(wd.sub(w).abs().max().item<double>(), w_scale / 2 + 1e-7);
}

}  // namespace kindling::testing
