// The output-size and adaptive-bin rules (tasks), and every layer against PyTorch.

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "oracle_json.hpp"
#include "week03_support.hpp"

namespace kindling::testing {
namespace {

using nn::Pair2;
namespace F = nn::functional;

// ---- week03.conv_output_shape ------------------------------------------------------------------------------------
TEST(week03_conv_output_shape, MatchesPyTorchForConvAndPoolSettings) {
  for (const auto& row : oracle_int_rows("output_sizes", "")) {
    const auto [in, k, s, p, d, ceil, out] = std::tuple{row[0], row[1], row[2], row[3], row[4], row[5], row[6]};
    EXPECT_EQ(nn::conv_output_size(in, k, s, p, d, ceil != 0), out)
        << "in=" << in << " kernel=" << k << " stride=" << s << " padding=" << p << " dilation=" << d
        << " ceil_mode=" << ceil;
  }
}

TEST(week03_conv_output_shape, SamePaddingKeepsTheSize) {
  for (std::int64_t n : {1, 7, 28, 100}) EXPECT_EQ(nn::conv_output_size(n, 3, 1, 1), n);
  EXPECT_EQ(nn::conv_output_size(28, 5, 1, 2), 28);
}

TEST(week03_conv_output_shape, KernelLargerThanInputGivesZeroOrLess) {
  EXPECT_LE(nn::conv_output_size(2, 3, 1, 0), 0);
  EXPECT_LE(nn::conv_output_size(2, 2, 1, 0, 3), 0);
}

// F.max_pool2d(torch.zeros(1, 1, 2, 2), 3, 2) -> "Calculated output size: (1x0x0). Output size is too small"
// F.max_pool2d(torch.zeros(1, 1, 1, 1), 4, 2) -> "Calculated output size: (1x-1x-1). Output size is too small"
TEST(week03_conv_output_shape, ANegativeSpanIsFlooredNotTruncated) {
  EXPECT_EQ(nn::conv_output_size(2, 3, 2, 0), 0)
      << "in=2 kernel=3 stride=2: floor(-1 / 2) + 1 is 0; C++'s / rounds -1 / 2 toward zero, giving 1";
  EXPECT_EQ(nn::conv_output_size(1, 4, 2, 0), -1)
      << "in=1 kernel=4 stride=2: floor(-3 / 2) + 1 is -1; C++'s / rounds -3 / 2 toward zero, giving 0";
}

// F.max_pool1d(torch.zeros(1, 1, 5), 2, 2, padding=1, ceil_mode=True).shape -> torch.Size([1, 1, 3])
// F.max_pool1d(torch.zeros(1, 1, 4), 1, 2, ceil_mode=True).shape -> torch.Size([1, 1, 2])
TEST(week03_conv_output_shape, CeilModeDropsAWindowStartingExactlyAtTheEndOfTheInput) {
  EXPECT_EQ(nn::conv_output_size(5, 2, 2, 1, 1, true), 3)
      << "in=5 kernel=2 stride=2 padding=1 ceil_mode: the 4th window would start at 6 = in + padding, in the "
         "right padding only, so it is dropped (>=, not >)";
  EXPECT_EQ(nn::conv_output_size(4, 1, 2, 0, 1, true), 2)
      << "in=4 kernel=1 stride=2 ceil_mode: the 3rd window would start at 4 = in, past the input, so it is dropped";
}

TEST(week03_conv_output_shape, ConvAndPoolLayersProduceThoseShapes) {
  const Tensor x = zeros({2, 3, 13, 11});
  EXPECT_EQ(F::max_pool2d(x, 3, 2, 1).sizes().vec(),
            (Shape{2, 3, nn::conv_output_size(13, 3, 2, 1), nn::conv_output_size(11, 3, 2, 1)}));
  EXPECT_EQ(F::avg_pool2d(x, 2, 2, 0, true).sizes().vec(),
            (Shape{2, 3, nn::conv_output_size(13, 2, 2, 0, 1, true), nn::conv_output_size(11, 2, 2, 0, 1, true)}));
  EXPECT_EQ(F::conv2d(x, zeros({4, 3, 3, 2}), {}, {2, 1}, {0, 1}, {2, 1}).sizes().vec(),
            (Shape{2, 4, nn::conv_output_size(13, 3, 2, 0, 2), nn::conv_output_size(11, 2, 1, 1, 1)}));
}

// ---- week03.adaptive_pool_bins ------------------------------------------------------------------------------------
TEST(week03_adaptive_pool_bins, BinsMatchWhichInputsPyTorchAverages) {
  for (const auto& [in, out] :
       std::vector<std::pair<int, int>>{{7, 3}, {5, 2}, {10, 4}, {3, 5}, {6, 6}, {1, 1}, {13, 5}}) {
    const auto expected = oracle_int_rows("adaptive_bins", std::to_string(in) + "_" + std::to_string(out));
    for (int i = 0; i < out; ++i) {
      const auto [start, end] = nn::adaptive_pool_bin(i, in, out);
      EXPECT_EQ(start, expected[static_cast<std::size_t>(i)][0]) << in << " -> " << out << ", bin " << i;
      EXPECT_EQ(end, expected[static_cast<std::size_t>(i)][1]) << in << " -> " << out << ", bin " << i;
    }
  }
}

TEST(week03_adaptive_pool_bins, DivisibleSizesGiveEqualNonOverlappingBins) {
  for (std::int64_t i = 0; i < 4; ++i)
    EXPECT_EQ(nn::adaptive_pool_bin(i, 12, 4), (std::pair<std::int64_t, std::int64_t>{3 * i, 3 * i + 3}));
}

TEST(week03_adaptive_pool_bins, AdaptivePoolValuesMatchPyTorch) {
  const Tensor x = (sin(arange(2 * 3 * 7 * 5, kFloat32) * 1.3) * 3).reshape({2, 3, 7, 5}).requires_grad_();
  expect_case("adaptive_3x2", [&] { return F::adaptive_avg_pool2d(x, {3, 2}); }, {x});
}

// ---- everything else, ungraded
// ---------------------------------------------------------------------------------------
Tensor bumpy() { return (sin(arange(2 * 3 * 7 * 5, kFloat32) * 1.3) * 3).reshape({2, 3, 7, 5}).requires_grad_(); }

TEST(EngineLayers, ActivationsMatchPyTorch) {
  const std::vector<std::pair<std::string, std::function<Tensor(const Tensor&)>>> acts = {
      {"relu", [](const Tensor& t) { return nn::ReLU()(t); }},
      {"leaky_relu", [](const Tensor& t) { return nn::LeakyReLU(0.2)(t); }},
      {"gelu", [](const Tensor& t) { return nn::GELU()(t); }},
      {"sigmoid", [](const Tensor& t) { return nn::Sigmoid()(t); }},
      {"tanh", [](const Tensor& t) { return nn::Tanh()(t); }},
      {"softmax", [](const Tensor& t) { return nn::Softmax(1)(t); }},
      {"flatten", [](const Tensor& t) { return nn::Flatten()(t); }},
  };
  for (const auto& [name, fn] : acts) {
    SCOPED_TRACE(name);
    const Tensor a = oracle_ramp({2, 3, 4}, 3.0, 4.0);
    expect_case("act_" + name, [&] { return fn(a); }, {a});
  }
  EXPECT_EQ(F::leaky_relu(oracle_ramp({2}), 0.2).grad_fn()->name(), oracle_string("act_names", "leaky_relu"));
  EXPECT_EQ(F::gelu(oracle_ramp({2})).grad_fn()->name(), oracle_string("act_names", "gelu"));
}

struct ConvCase {
  const char* name;
  Shape x, w;
  bool bias;
  Pair2 stride, padding, dilation;
  std::int64_t groups;
};

TEST(EngineLayers, Conv2dMatchesPyTorch) {
  const std::vector<ConvCase> cases = {
      {"conv_basic", {2, 3, 6, 5}, {4, 3, 3, 3}, true, 1, 1, 1, 1},
      {"conv_stride_dilation", {2, 2, 9, 8}, {3, 2, 3, 2}, true, {2, 3}, {0, 1}, {2, 1}, 1},
      {"conv_groups", {1, 4, 5, 5}, {6, 2, 2, 2}, false, 1, 0, 1, 2},
      {"conv_unbatched", {3, 5, 5}, {2, 3, 3, 3}, true, 2, 1, 1, 1},
      {"conv_same_dilated", {3, 2, 7, 9}, {4, 2, 3, 3}, true, 1, 2, 2, 1},
      {"conv_same_wide", {2, 3, 6, 7}, {5, 3, 3, 5}, false, 1, {1, 2}, 1, 1},
      {"conv_tall_padding", {2, 2, 4, 4}, {3, 2, 3, 3}, true, 1, {3, 1}, 1, 1},
      {"conv_batch_groups", {9, 4, 5, 5}, {6, 2, 3, 3}, true, 1, 1, 1, 2},
      {"conv_row_stride", {2, 2, 7, 6}, {3, 2, 3, 3}, true, {2, 1}, 1, 1, 1},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    const Tensor x = oracle_ramp(c.x, 11.0, 1.0), w = oracle_ramp(c.w, 13.0, 0.8);
    const Tensor b = c.bias ? oracle_ramp({c.w[0]}, 2.0, 0.5) : Tensor();
    TensorList leaves;
    for (const Tensor& t : {x, w, b})
      if (t.defined()) leaves.push_back(t);
    expect_case(
        c.name, [&] { return F::conv2d(x, w, b, c.stride, c.padding, c.dilation, c.groups); }, leaves);
  }
  EXPECT_EQ(F::conv2d(oracle_ramp({1, 1, 3, 3}), oracle_ramp({1, 1, 2, 2})).grad_fn()->name(),
            oracle_string("conv_names", "conv"));
}

// A convolution by its definition, a direct loop in double: the output and the three gradients
// (given the output's gradient GY) of x (N, C, H, W) with w (O, C / G, kh, kw) and bias b.
struct ConvGeometry {
  int N, C, H, W, O, G, kh, kw, sh, sw, ph, pw, dh, dw;
  int OH() const { return (H + 2 * ph - dh * (kh - 1) - 1) / sh + 1; }
  int OW() const { return (W + 2 * pw - dw * (kw - 1) - 1) / sw + 1; }
};
struct ConvByDefinition {
  std::vector<double> Y, GX, GW, GB;
};
ConvByDefinition conv_by_definition(const ConvGeometry& c, const std::vector<double>& X, const std::vector<double>& Wt,
                                    const std::vector<double>& B, const std::vector<double>& GY) {
  const int Cg = c.C / c.G, Og = c.O / c.G, OH = c.OH(), OW = c.OW();
  ConvByDefinition r{std::vector<double>(GY.size()), std::vector<double>(X.size()), std::vector<double>(Wt.size()),
                     std::vector<double>(B.size())};
  for (int n = 0; n < c.N; ++n)
    for (int o = 0; o < c.O; ++o)
      for (int i = 0; i < OH; ++i)
        for (int j = 0; j < OW; ++j) {
          const std::size_t yi = static_cast<std::size_t>(((n * c.O + o) * OH + i) * OW + j);
          double sum = B[static_cast<std::size_t>(o)];
          r.GB[static_cast<std::size_t>(o)] += GY[yi];
          for (int ch = 0; ch < Cg; ++ch)
            for (int a = 0; a < c.kh; ++a)
              for (int e = 0; e < c.kw; ++e) {
                const int ih = i * c.sh - c.ph + a * c.dh, iw = j * c.sw - c.pw + e * c.dw;
                if (ih < 0 || ih >= c.H || iw < 0 || iw >= c.W) continue;
                const auto xi = static_cast<std::size_t>(((n * c.C + o / Og * Cg + ch) * c.H + ih) * c.W + iw);
                const auto wi = static_cast<std::size_t>(((o * Cg + ch) * c.kh + a) * c.kw + e);
                sum += Wt[wi] * X[xi];
                r.GX[xi] += Wt[wi] * GY[yi];
                r.GW[wi] += X[xi] * GY[yi];
              }
          r.Y[yi] = sum;
        }
  return r;
}

// Each value of t (float32 or float64) within tol * (1 + |want|) of want's.
void expect_close(const Tensor& t, const std::vector<double>& want, double tol, const std::string& what) {
  ASSERT_TRUE(t.defined()) << what;
  const auto got = t.to(kFloat64).contiguous().to_vector<double>();
  ASSERT_EQ(got.size(), want.size()) << what;
  for (std::size_t i = 0; i < got.size(); ++i)
    ASSERT_NEAR(got[i], want[i], tol * (1 + std::abs(want[i]))) << what << " [" << i << "]";
}

// 300 random geometries (batch, groups, window, stride, padding, dilation; a third of them with
// stride 1 and rows as wide as the input's, which the CPU copies and adds as whole runs) in float64,
// against the definition written as a direct loop: the output and the three gradients (every
// fourth without a bias: its outputs then start from zero).
TEST(EngineLayers, Conv2dAgreesWithADirectLoop) {
  std::mt19937 rng(5);
  const auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  int runs = 0, bands = 0, shallow = 0, shallow_many = 0, shallow_blocks = 0, shallow_unbiased = 0;
  for (int it = 0; it < 300; ++it) {
    // A third with 4-9 channels a group: with a kernel 4 or 5 wide, the products of the CPU's band form.
    // A sixth with up to 20 outputs a group and planes up to 20 x 20: with few channels, the CPU's
    // direct form for shallow sums (outputs 8 at a time, positions a vector or two at a time).
    const int kind = pick(0, 5), wide = kind <= 1, big = kind == 2;
    const int G = pick(1, 3), N = pick(1, 5), Cg = wide ? pick(4, 9) : pick(1, 3), Og = big ? pick(1, 20) : pick(1, 3),
              C = G * Cg, O = G * Og;
    const int kh = pick(1, 4), kw = pick(1, 5), dh = pick(1, 2), dw = pick(1, 3), H = pick(1, big ? 20 : 9),
              W = pick(1, big ? 20 : 9);
    const bool unit_stride = pick(0, 1) == 0;
    const int sh = unit_stride ? 1 : pick(1, 3), sw = unit_stride ? 1 : pick(1, 3);
    int ph = pick(0, 3), pw = pick(0, 4);
    if (pick(0, 1) && dw * (kw - 1) % 2 == 0) pw = dw * (kw - 1) / 2;
    if (pick(0, 1) && dh * (kh - 1) % 2 == 0) ph = dh * (kh - 1) / 2;
    if (H + 2 * ph < dh * (kh - 1) + 1 || W + 2 * pw < dw * (kw - 1) + 1) continue;
    const int OH = (H + 2 * ph - dh * (kh - 1) - 1) / sh + 1, OW = (W + 2 * pw - dw * (kw - 1) - 1) / sw + 1;
    runs += sh == 1 && sw == 1 && OW == W;
    bands += sh == 1 && sw == 1 && OW == W && kh > 1 && Cg * kw >= 16;
    const bool direct = sh == 1 && sw == 1 && OW == W && Cg * kh * kw < 16;
    shallow += direct;
    shallow_many += direct && Og >= 8 && OH * OW >= 40;
    shallow_blocks += direct && Og >= 16;
    const bool with_bias = it % 4 != 3;
    shallow_unbiased += direct && !with_bias;
    SCOPED_TRACE("N" + std::to_string(N) + " C" + std::to_string(C) + " " + std::to_string(H) + "x" +
                 std::to_string(W) + " O" + std::to_string(O) + " k" + std::to_string(kh) + "x" + std::to_string(kw) +
                 " s" + std::to_string(sh) + "x" + std::to_string(sw) + " p" + std::to_string(ph) + "x" +
                 std::to_string(pw) + " d" + std::to_string(dh) + "x" + std::to_string(dw) + " G" + std::to_string(G));
    Generator gen(static_cast<std::uint64_t>(it));
    const TensorOptions f64 = TensorOptions(kFloat64);
    const Tensor x = randn({N, C, H, W}, f64, &gen).requires_grad_(),
                 w = randn({O, Cg, kh, kw}, f64, &gen).requires_grad_();
    const Tensor b = with_bias ? randn({O}, f64, &gen).requires_grad_() : Tensor();
    const Tensor gy = randn({N, O, OH, OW}, f64, &gen);
    const Tensor y = F::conv2d(x, w, b, {sh, sw}, {ph, pw}, {dh, dw}, G);
    y.backward(gy);
    const ConvByDefinition reference = conv_by_definition(
        {N, C, H, W, O, G, kh, kw, sh, sw, ph, pw, dh, dw}, x.detach().to_vector<double>(),
        w.detach().to_vector<double>(),
        with_bias ? b.detach().to_vector<double>() : std::vector<double>(static_cast<std::size_t>(O)),
        gy.to_vector<double>());
    const auto& [Y, GX, GW, GB] = reference;
    expect_close(y.detach(), Y, 1e-9, "output");
    expect_close(x.grad(), GX, 1e-9, "input gradient");
    expect_close(w.grad(), GW, 1e-9, "weight gradient");
    if (with_bias) expect_close(b.grad(), GB, 1e-9, "bias gradient");
    if (big) {  // and in float32, whose vectors hold twice as many positions
      const Tensor xf = x.detach().to(kFloat32).requires_grad_(), wf = w.detach().to(kFloat32).requires_grad_();
      const Tensor bf = with_bias ? b.detach().to(kFloat32).requires_grad_() : Tensor();
      const Tensor yf = F::conv2d(xf, wf, bf, {sh, sw}, {ph, pw}, {dh, dw}, G);
      yf.backward(gy.to(kFloat32));
      expect_close(yf.detach(), Y, 1e-4, "output, float32");
      expect_close(xf.grad(), GX, 1e-4, "input gradient, float32");
      expect_close(wf.grad(), GW, 1e-4, "weight gradient, float32");
      if (with_bias) expect_close(bf.grad(), GB, 1e-4, "bias gradient, float32");
    }
  }
  EXPECT_GT(runs, 50) << "geometries with rows as wide as the input's";
  EXPECT_GT(bands, 10) << "geometries whose products the CPU splits by kernel row";
  EXPECT_GT(shallow, 20) << "geometries whose sums the CPU computes directly";
  EXPECT_GT(shallow_many, 2) << "... with 8 outputs or more a group and 40 positions or more";
  EXPECT_GT(shallow_blocks, 1) << "... with two blocks of 8 outputs or more a group";
  EXPECT_GT(shallow_unbiased, 3) << "... without a bias";
}

// More images than the backward's pieces of the batch (64): a piece then sums the weight and bias
// gradients of several images, each added to the last. Geometries for each of the CPU's three
// forms (the direct sums of one channel a group, alone and in groups; the bands of a 'same'
// convolution; im2col), in float64 and float32, against the definition.
TEST(EngineLayers, Conv2dSumsGradientsOverMoreImagesThanPieces) {
  const std::vector<ConvGeometry> geometries = {
      {150, 1, 6, 6, 9, 1, 3, 3, 1, 1, 1, 1, 1, 1},   // direct: 9 products a sum
      {150, 2, 6, 5, 16, 2, 3, 3, 1, 1, 1, 1, 1, 1},  // direct, in 2 groups of 8 outputs
      {150, 8, 5, 5, 3, 1, 3, 3, 1, 1, 1, 1, 1, 1},   // bands: 8 channels x 3 columns = 24 deep
      {150, 2, 7, 6, 3, 1, 3, 2, 2, 1, 0, 1, 1, 1}};  // im2col: stride 2
  for (const ConvGeometry& c : geometries)
    for (const ScalarType dtype : {kFloat64, kFloat32}) {
      SCOPED_TRACE("C" + std::to_string(c.C) + " O" + std::to_string(c.O) + " " + std::string(dtype_short_name(dtype)));
      Generator gen(3);
      const TensorOptions f64 = TensorOptions(kFloat64);
      const Tensor x = randn({c.N, c.C, c.H, c.W}, f64, &gen), w = randn({c.O, c.C / c.G, c.kh, c.kw}, f64, &gen);
      const Tensor b = randn({c.O}, f64, &gen), gy = randn({c.N, c.O, c.OH(), c.OW()}, f64, &gen);
      const ConvByDefinition want = conv_by_definition(c, x.to_vector<double>(), w.to_vector<double>(),
                                                       b.to_vector<double>(), gy.to_vector<double>());
      // Fresh leaves (to() of the same dtype would return x, w and b themselves).
      const auto leaf = [dtype](const Tensor& t) { return t.to(dtype).clone().requires_grad_(); };
      const Tensor xd = leaf(x), wd = leaf(w), bd = leaf(b);
      F::conv2d(xd, wd, bd, {c.sh, c.sw}, {c.ph, c.pw}, {c.dh, c.dw}, c.G).backward(gy.to(dtype));
      const double tol = dtype == kFloat64 ? 1e-9 : 1e-4;
      expect_close(wd.grad(), want.GW, tol, "weight gradient");
      expect_close(bd.grad(), want.GB, tol, "bias gradient");
      expect_close(xd.grad(), want.GX, tol, "input gradient");
      // An empty batch: zero gradients for the weight and the bias.
      const Tensor w0 = leaf(w), b0 = leaf(b);
      F::conv2d(zeros({0, c.C, c.H, c.W}, TensorOptions(dtype)), w0, b0, {c.sh, c.sw}, {c.ph, c.pw}, {c.dh, c.dw}, c.G)
          .sum()
          .backward();
      EXPECT_EQ(w0.grad().abs().sum().item<double>(), 0.0) << "weight gradient over an empty batch";
      EXPECT_EQ(b0.grad().abs().sum().item<double>(), 0.0) << "bias gradient over an empty batch";
    }
}

TEST(EngineLayers, Conv2dErrors) {
  expect_oracle_error([] { F::conv2d(zeros({2, 4, 8, 8}), zeros({8, 3, 3, 3})); }, "conv_wrong_channels");
  expect_oracle_error([] { F::conv2d(zeros({3, 8}), zeros({8, 3, 3, 3})); }, "conv_wrong_rank");
  expect_oracle_error([] { F::conv2d(zeros({1, 3, 2, 2}), zeros({8, 3, 3, 3})); }, "conv_kernel_too_big");
  expect_oracle_error([] { F::conv2d(zeros({1, 3, 5, 5}), zeros({8, 3, 3, 3}), zeros({7})); }, "conv_bad_bias");
  expect_oracle_error(
      [] {
        F::conv2d(zeros({1, 3, 5, 5}), zeros({8, 3, 3, 3}), zeros({8}, kFloat64));
      },
      "conv_bias_dtype");
  expect_oracle_error([] { nn::Conv2d(3, 4, 3, {.groups = 2}); }, "conv_groups_divide");
  expect_oracle_error([] { nn::Conv2d(4, 3, 3, {.groups = 2}); }, "conv_out_groups_divide");
}

// A float64 batch into a float32 layer, and the other dtype mistakes, in PyTorch's order and words
// (the bias's check first, the input's dtype named before the weight's); an unbatched input's
// channels named with the batch dim PyTorch adds.
TEST(EngineLayers, ConvDtypeErrorsMatchPyTorch) {
  const auto& e = oracle_json("conv_dtype_errors");
  const auto z64 = [](const Shape& s) { return zeros(s, kFloat64); };
  expect_error_json([&] { nn::Conv2d(3, 8, 3)(z64({1, 3, 8, 8})); }, e.at("double_input_float_layer"));
  expect_error_json([&] { F::conv2d(z64({1, 3, 8, 8}), zeros({8, 3, 3, 3})); }, e.at("double_input_no_bias"));
  expect_error_json([&] { F::conv2d(zeros({1, 3, 8, 8}), z64({8, 3, 3, 3})); }, e.at("float_input_double_weight"));
  expect_error_json([&] { F::conv2d(zeros({1, 3, 8, 8}), z64({8, 3, 3, 3}), z64({8})); }, e.at("bias_checked_first"));
  expect_error_json(
      [&] {
        F::conv2d(z64({1, 4, 8, 8}), zeros({8, 3, 3, 3}), zeros({8}));
      },
      e.at("bias_before_channels"));
  expect_error_json(
      [] {
        F::conv2d(zeros({1, 3, 8, 8}, kInt64), zeros({8, 3, 3, 3}), zeros({8}));
      },
      e.at("long_input_float_bias"));
  expect_error_json([] { F::conv2d(zeros({4, 8, 8}), zeros({8, 3, 3, 3})); }, e.at("unbatched_channels"));
  expect_error_json(
      [&] {
        F::conv_transpose2d(z64({1, 3, 8, 8}), zeros({3, 8, 3, 3}));
      },
      e.at("transposed_double_input"));
  expect_error_json(
      [&] {
        F::conv_transpose2d(zeros({1, 3, 8, 8}), zeros({3, 8, 3, 3}), z64({8}));
      },
      e.at("transposed_double_bias"));
  expect_error_json(
      [] {
        F::conv_transpose2d(zeros({4, 8, 8}), zeros({3, 8, 3, 3}));
      },
      e.at("transposed_unbatched_channels"));
  // The input's dtype against the weight's comes after the shapes' checks.
  expect_error_json([&] { F::conv2d(zeros({1, 4, 8, 8}), z64({8, 3, 3, 3})); }, e.at("channels_before_weight_dtype"));
  expect_error_json(
      [&] {
        F::conv2d(zeros({1, 3, 8, 8}), z64({8, 3, 3, 3}), zeros({4}));
      },
      e.at("bias_size_before_weight_dtype"));
  expect_error_json(
      [&] {
        F::conv_transpose2d(zeros({1, 4, 8, 8}), z64({3, 8, 3, 3}));
      },
      e.at("transposed_channels_before_dtype"));
  // Integer tensors of one dtype: PyTorch convolves them; Kindling says plainly that it does not.
  expect_error<Error>(
      [] {
        F::conv2d(zeros({1, 3, 8, 8}, kInt64), zeros({8, 3, 3, 3}, kInt64));
      },
      "conv2d: Kindling convolves float32 and float64 tensors, not Long");
}

TEST(EngineLayers, PoolingMatchesPyTorch) {
  const std::vector<std::pair<std::string, std::function<Tensor(const Tensor&)>>> pools = {
      {"maxpool_2", [](const Tensor& t) { return nn::MaxPool2d(2)(t); }},
      {"maxpool_3s2p1", [](const Tensor& t) { return F::max_pool2d(t, 3, 2, 1); }},
      {"maxpool_dilation_ceil", [](const Tensor& t) { return F::max_pool2d(t, 2, 2, 0, 2, true); }},
      {"avgpool_3s2p1", [](const Tensor& t) { return nn::AvgPool2d(3, 2, 1)(t); }},
      {"avgpool_no_pad_count", [](const Tensor& t) { return F::avg_pool2d(t, 3, 2, 1, false, false); }},
      {"avgpool_ceil", [](const Tensor& t) { return F::avg_pool2d(t, 2, 2, 0, true); }},
      {"adaptive_1", [](const Tensor& t) { return nn::AdaptiveAvgPool2d(1)(t); }},
      {"adaptive_up",
       [](const Tensor& t) {
         return F::adaptive_avg_pool2d(t, {9, 6});
       }},
  };
  for (const auto& [name, fn] : pools) {
    SCOPED_TRACE(name);
    const Tensor x = bumpy();
    expect_case(name, [&] { return fn(x); }, {x});
  }
  EXPECT_EQ(F::max_pool2d(oracle_ramp({1, 1, 2, 2}), 2).grad_fn()->name(), oracle_string("pool_names", "max"));
  EXPECT_EQ(F::avg_pool2d(oracle_ramp({1, 1, 2, 2}), 2).grad_fn()->name(), oracle_string("pool_names", "avg"));
  expect_oracle_error([] { F::max_pool2d(zeros({1, 3, 2, 2}), 3); }, "pool_too_small");
  expect_oracle_error([] { F::max_pool2d(zeros({1, 1, 8, 8}), 2, std::nullopt, 2); }, "pool_pad_too_big");
  expect_oracle_error([] { F::avg_pool2d(zeros({1, 1, 8, 8}), 2, std::nullopt, 2); }, "avgpool_pad_too_big");
}

// Pooling's argument errors, in PyTorch's order and words, and each op's for an input of the
// wrong rank (average pooling reads size(-3) first: an IndexError for a 2-D input).
TEST(EngineLayers, PoolingArgumentErrorsMatchPyTorch) {
  const auto& e = oracle_json("pool_errors");
  const Tensor p = zeros({1, 1, 8, 8});
  expect_error_json([&] { F::max_pool2d(p, 0); }, e.at("kernel_zero"));
  expect_error_json([&] { F::max_pool2d(p, 0, Pair2(1)); }, e.at("kernel_zero_stride_one"));
  expect_error_json([&] { F::avg_pool2d(p, 2, Pair2(-1)); }, e.at("stride_negative"));
  expect_error_json([&] { F::max_pool2d(p, 2, Pair2(2), 0, 0); }, e.at("dilation_zero"));
  expect_error_json([&] { F::max_pool2d(p, 2, Pair2(2), {0, -1}); }, e.at("pad_negative"));
  expect_error_json([&] { F::max_pool2d(p, {4, 2}, Pair2(2), {1, 2}); }, e.at("pad_width_too_big"));
  expect_error_json([&] { F::avg_pool2d(p, {2, 4}, Pair2(2), {2, 3}); }, e.at("pad_both_too_big"));
  expect_error_json([] { F::max_pool2d(zeros({8, 8}), 0); }, e.at("max_2d"));
  expect_error_json([] { F::max_pool2d(zeros({1, 1, 1, 8, 8}), 2); }, e.at("max_5d"));
  expect_error_json([] { F::avg_pool2d(zeros({8, 8}), 0); }, e.at("avg_2d"));
  expect_error_json([] { F::avg_pool2d(zeros({1, 1, 1, 8, 8}), 2); }, e.at("avg_5d"));
  expect_error_json([] { F::avg_pool2d(zeros({1, 1, 1, 8, 8}), 0); }, e.at("avg_5d_stride_zero"));
  expect_error_json([] { F::adaptive_avg_pool2d(zeros({8, 8}), 2); }, e.at("adaptive_2d"));
}

// Where the gradient goes when a window has equal maxima or NaNs (the first maximum; the last NaN),
// through the 2 x 2 fast path, the general path and partial ceil_mode windows.
TEST(EngineLayers, MaxPoolTiesAndNaNsRouteTheGradientAsPyTorch) {
  const std::vector<std::pair<std::string, std::function<Tensor(const Tensor&)>>> pools = {
      {"maxpool_ties_2", [](const Tensor& t) { return F::max_pool2d(t, 2); }},
      {"maxpool_ties_2s1", [](const Tensor& t) { return F::max_pool2d(t, 2, 1); }},
      {"maxpool_ties_2_ceil", [](const Tensor& t) { return F::max_pool2d(t, 2, std::nullopt, 0, 1, true); }},
  };
  const float nan = std::nanf("");
  const std::vector<float> tie_values = {0, nan, 1, 1, nan, 2, 0, 2, nan, 0, 1, 0, 2, 2, 0};
  for (const auto& [name, fn] : pools) {
    SCOPED_TRACE(name);
    std::vector<float> v(2 * 3 * 7 * 5);
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = tie_values[(i * 7) % tie_values.size()];
    const Tensor x = tensor(v).reshape({2, 3, 7, 5}).requires_grad_();
    expect_case(name, [&] { return fn(x); }, {x});
  }
  // Rows of 19 and 16 windows: 16 at a time on a CPU with AVX-512, then the rest of the row.
  for (const auto& [name, width] : {std::pair<std::string, std::int64_t>{"maxpool_ties_2_wide", 38},
                                    std::pair<std::string, std::int64_t>{"maxpool_ties_2_16", 32}}) {
    SCOPED_TRACE(name);
    std::vector<float> v(static_cast<std::size_t>(2 * 3 * 6 * width));
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = tie_values[(i * 7) % tie_values.size()];
    const Tensor x = tensor(v).reshape({2, 3, 6, width}).requires_grad_();
    expect_case(name, [&] { return F::max_pool2d(x, 2); }, {x});
  }
}

TEST(EngineLayers, MaxPoolPropagatesNaNAndRoutesTheGradientToTheMaximum) {
  const Tensor x = tensor({{1.0f, 5.0f, 2.0f, 0.0f}, {3.0f, 4.0f, std::nanf(""), 9.0f}}).reshape({1, 1, 2, 4});
  const Tensor leaf = x.detach().requires_grad_();
  const Tensor y = F::max_pool2d(leaf, 2);
  EXPECT_EQ(y.select(3, 0).item<float>(), 5.0f);
  EXPECT_TRUE(std::isnan(y.select(3, 1).item<float>()));
  y.sum().backward();
  EXPECT_TRUE(equal(leaf.grad().reshape({8}), tensor({0.0f, 1.0f, 0.0f, 0.0f, 0.0f, 0.0f, 1.0f, 0.0f})));
}

TEST(EngineLayers, BatchNormTrainingMatchesPyTorchAndUpdatesRunningStats) {
  nn::BatchNorm2d bn(3);
  assign(bn.weight, tensor({1.5f, -0.5f, 2.0f}));
  assign(bn.bias, tensor({0.1f, 0.2f, -0.3f}));
  const Tensor bx = oracle_ramp({4, 3, 2, 2}, 5.0, 2.0);
  const Tensor sq = (bx * bx).detach().requires_grad_();
  expect_case("bn2d_train", [&] { return bn(sq); }, {sq, bn.weight, bn.bias});
  expect_values(bn.running_mean, oracle_values("bn2d_train", "running_mean"));
  expect_values(bn.running_var, oracle_values("bn2d_train", "running_var"));
  EXPECT_EQ(bn.num_batches_tracked.item<std::int64_t>(), oracle_number("bn2d_train", "num_batches_tracked"));
  bn.eval();
  bn.weight.mutable_grad() = Tensor();
  bn.bias.mutable_grad() = Tensor();
  const Tensor ex = oracle_ramp({2, 3, 2, 2}, 3.0, 1.0);
  expect_case("bn2d_eval", [&] { return bn(ex); }, {ex, bn.weight, bn.bias});
}

TEST(EngineLayers, BatchNorm1dCumulativeAverageWithoutMomentum) {
  nn::BatchNorm1d bn(3, 1e-5, std::nullopt);
  const Tensor a = oracle_ramp({5, 3}, 2.0, 1.0).detach();
  NoGradGuard g;
  bn(a * a);
  bn(oracle_ramp({5, 3, 2}, 3.0, 0.5).detach());
  expect_values(bn.running_mean, oracle_values("bn1d_cumulative", "running_mean"));
  expect_values(bn.running_var, oracle_values("bn1d_cumulative", "running_var"));
}

TEST(EngineLayers, BatchNormErrors) {
  expect_oracle_error([] { nn::BatchNorm2d(3)(zeros({2, 3, 4})); }, "bn2d_rank");
  expect_oracle_error([] { nn::BatchNorm1d(3)(zeros({2, 3, 4, 4})); }, "bn1d_rank");
  expect_oracle_error([] { nn::BatchNorm1d(3)(zeros({1, 3})); }, "bn1d_single");
  const auto& e = oracle_json("bn_channel_errors");
  const Tensor x = zeros({2, 4, 5, 5});
  expect_error_json([&] { F::batch_norm(x, {}, {}, ones({3}), ones({4}), true); }, e.at("weight"));
  expect_error_json([&] { F::batch_norm(x, {}, {}, ones({4}), ones({3}), true); }, e.at("bias"));
  expect_error_json([&] { F::batch_norm(x, zeros({4}), ones({3}), {}, {}, true); }, e.at("running_var"));
  expect_error_json([&] { F::batch_norm(x, zeros({3}), ones({4}), ones({3}), {}, true); }, e.at("running_mean_first"));
}

TEST(EngineLayers, InterpolateMatchesPyTorch) {
  const std::vector<std::pair<std::string, std::function<Tensor(const Tensor&)>>> cases = {
      {"nearest_size",
       [](const Tensor& t) {
         return F::interpolate(t, Pair2{5, 7});
       }},
      {"nearest_scale", [](const Tensor& t) { return nn::Upsample(std::nullopt, 2.0)(t); }},
      {"nearest_down",
       [](const Tensor& t) {
         return F::interpolate(t, Pair2{2, 3});
       }},
      {"bilinear_size",
       [](const Tensor& t) {
         return F::interpolate(t, Pair2{5, 7}, std::nullopt, "bilinear", false);
       }},
      {"bilinear_corners",
       [](const Tensor& t) {
         return F::interpolate(t, Pair2{5, 7}, std::nullopt, "bilinear", true);
       }},
      {"bilinear_scale", [](const Tensor& t) { return nn::Upsample(std::nullopt, 1.5, "bilinear")(t); }},
      {"bilinear_down",
       [](const Tensor& t) {
         return F::interpolate(t, Pair2{2, 2}, std::nullopt, "bilinear");
       }},
  };
  for (const auto& [name, fn] : cases) {
    SCOPED_TRACE(name);
    const Tensor it = oracle_ramp({1, 2, 3, 4}, 3.0, 1.0);
    expect_case("interp_" + name, [&] { return fn(it * it); }, {it});
  }
  expect_error<ValueError>(
      [] {
        F::interpolate(zeros({1, 1, 2, 2}), std::nullopt);
      },
      "either size or scale_factor should be defined");
}

TEST(EngineLayers, GradcheckEveryLayerInDouble) {
  auto dbl = [](const Shape& s, double scale) {
    return (oracle_ramp(s, scale, 0.7).detach() * 1.0).to(kFloat64).requires_grad_();
  };
  const std::vector<std::pair<std::string, std::function<Tensor(const TensorList&)>>> layers = {
      {"conv", [](const TensorList& t) { return F::conv2d(t[0], t[1], t[2], 2, 1, 1, 1); }},
      {"conv_groups_dilation", [](const TensorList& t) { return F::conv2d(t[0], t[3], {}, 1, 1, 2, 3); }},
      {"maxpool", [](const TensorList& t) { return F::max_pool2d(t[0] * t[0], 2, 1, 1); }},
      {"avgpool", [](const TensorList& t) { return F::avg_pool2d(t[0], 3, 2, 1, false, false); }},
      {"adaptive",
       [](const TensorList& t) {
         return F::adaptive_avg_pool2d(t[0], {2, 3});
       }},
      {"gelu", [](const TensorList& t) { return F::gelu(t[0]); }},
      {"leaky_relu", [](const TensorList& t) { return F::leaky_relu(t[0], 0.1); }},
      {"batch_norm", [](const TensorList& t) { return F::batch_norm(t[0], {}, {}, t[2], t[2], true); }},
      {"bilinear",
       [](const TensorList& t) {
         return F::interpolate(t[0], Pair2{4, 7}, std::nullopt, "bilinear");
       }},
      {"linear",
       [](const TensorList& t) {
         return addmm(t[2], t[0].reshape({-1, 3}), t[4].t());
       }},
      {"nearest",
       [](const TensorList& t) {
         return F::interpolate(t[0], Pair2{7, 3});
       }},
      {"dropout",
       [](const TensorList& t) {
         Generator gen(9);  // the same mask on every call, so the function is deterministic
         return F::dropout(t[0], 0.4, true, &gen);
       }},
      {"flatten_softmax", [](const TensorList& t) { return softmax(F::flatten(t[0]), 1); }},
  };
  // x (2, 3, 4, 5), conv weight (3, 3, 3, 3), bias (3), grouped weight (3, 1, 2, 2), linear weight (3, 3)
  const TensorList inputs = {dbl({2, 3, 4, 5}, 17.0), dbl({3, 3, 3, 3}, 29.0), dbl({3}, 3.0), dbl({3, 1, 2, 2}, 5.0),
                             dbl({3, 3}, 4.0)};
  for (const auto& [name, fn] : layers) EXPECT_TRUE(autograd::gradcheck(fn, inputs)) << name;
}

TEST(EngineLayers, FoldedConvBatchNormGivesTheSameOutputInEval) {
  manual_seed(21);
  for (bool conv_bias : {true, false}) {
    nn::Conv2d conv(3, 4, 3, {.padding = 1, .bias = conv_bias});
    nn::BatchNorm2d bn(4);
    nn::init::uniform_(bn.weight, 0.5, 1.5);
    nn::init::uniform_(bn.bias, -0.5, 0.5);
    {
      NoGradGuard g;
      for (int i = 0; i < 3; ++i) bn(conv(randn({8, 3, 6, 6}) * 2 + 1));  // train: collect statistics
    }
    conv.eval();
    bn.eval();
    const nn::Conv2d folded = nn::fold_conv_bn(conv, bn);
    const Tensor x = randn({2, 3, 6, 6});
    NoGradGuard g;
    const Tensor expected = bn(conv(x));
    EXPECT_TRUE(allclose(const_cast<nn::Conv2d&>(folded)(x), expected, 1e-4, 1e-5)) << "conv bias " << conv_bias;
    EXPECT_TRUE(folded.bias.defined());
  }
}

// ---- modules
// --------------------------------------------------------------------------------------------------------------
TEST(EngineModules, ReprsMatchPyTorch) {
  struct Net : nn::Module {
    Net() : Module("Net") {
      register_module("features", std::make_shared<nn::Sequential>(nn::Conv2d(1, 4, 3, {.padding = 1}),
                                                                   nn::BatchNorm2d(4), nn::ReLU(), nn::MaxPool2d(2)));
      register_module("head", std::make_shared<nn::Sequential>(nn::Flatten(), nn::Linear(64, 10, false)));
    }
  };
  const std::vector<std::pair<std::string, std::string>> reprs = {
      {"mlp", nn::Sequential(nn::Linear(4, 3), nn::ReLU(), nn::Dropout(0.25), nn::Linear(3, 2)).repr()},
      {"net", Net().repr()},
      {"conv_basic", nn::Conv2d(3, 8, 3).repr()},
      {"conv_full",
       nn::Conv2d(4, 8, {3, 5}, {.stride = 2, .padding = {1, 2}, .dilation = 2, .groups = 2, .bias = false}).repr()},
      {"maxpool", nn::MaxPool2d(2).repr()},
      {"maxpool_full", nn::MaxPool2d({2, 3}, 1, 1, 2, true).repr()},
      {"avgpool", nn::AvgPool2d(3, 2, 1).repr()},
      {"adaptive", nn::AdaptiveAvgPool2d({1, 1}).repr()},
      {"adaptive_int", nn::AdaptiveAvgPool2d(3).repr()},
      {"bn2d", nn::BatchNorm2d(4).repr()},
      {"bn1d_none", nn::BatchNorm1d(3, 1e-3, std::nullopt, false).repr()},
      {"leaky", nn::LeakyReLU().repr()},
      {"leaky_02", nn::LeakyReLU(0.2).repr()},
      {"gelu", nn::GELU().repr()},
      {"softmax", nn::Softmax(1).repr()},
      {"flatten", nn::Flatten().repr()},
      {"identity", nn::Identity().repr()},
      {"sigmoid", nn::Sigmoid().repr()},
      {"tanh", nn::Tanh().repr()},
      {"dropout", nn::Dropout().repr()},
      {"upsample_scale", nn::Upsample(std::nullopt, 2.0).repr()},
      {"upsample_size", nn::Upsample(Pair2{4, 6}, std::nullopt, "bilinear").repr()},
      {"module_list", nn::ModuleList(nn::Linear(2, 2), nn::ReLU()).repr()},
      {"module_dict",
       nn::ModuleDict({{"act", std::make_shared<nn::ReLU>()}, {"fc", std::make_shared<nn::Linear>(2, 1)}}).repr()},
      {"empty_sequential", nn::Sequential().repr()},
  };
  for (const auto& [key, text] : reprs) EXPECT_EQ(text, oracle_string("reprs", key)) << key;
}

TEST(EngineModules, TrainAndEvalReachEveryDescendant) {
  nn::Sequential seq(nn::Sequential(nn::Dropout()), nn::BatchNorm1d(2));
  seq.eval();
  for (const auto& [name, m] : seq.named_modules()) EXPECT_FALSE(m->is_training()) << name;
  seq.train();
  for (const auto& [name, m] : seq.named_modules()) EXPECT_TRUE(m->is_training()) << name;
}

// LibTorch's replace_module (PyTorch's `model.fc = nn.Linear(...)`): the new child takes the old
// one's place; the old parameters leave the registries; the forward uses the new child.
TEST(EngineModules, ReplaceModuleKeepsThePlaceAndDropsTheOldChild) {
  nn::Sequential seq(nn::Linear(4, 8), nn::ReLU(), nn::Linear(8, 3));
  const Tensor old_weight = seq.at<nn::Linear>(2).weight;
  auto head = seq.replace_module("2", std::make_shared<nn::Linear>(8, 5));
  EXPECT_EQ(&seq[2], head.get());
  std::vector<std::string> names;
  for (const auto& [name, p] : seq.named_parameters()) {
    names.push_back(name);
    EXPECT_FALSE(p.is_same(old_weight)) << name;
  }
  EXPECT_EQ(names, (std::vector<std::string>{"0.weight", "0.bias", "2.weight", "2.bias"}));
  EXPECT_EQ(seq.at<nn::Linear>(2).weight.sizes().vec(), (std::vector<std::int64_t>{5, 8}));
  EXPECT_EQ(seq.forward(zeros({3, 4})).sizes().vec(), (std::vector<std::int64_t>{3, 5}));
  EXPECT_EQ(seq.repr(),
            "Sequential(\n  (0): Linear(in_features=4, out_features=8, bias=True)\n  (1): ReLU()\n  (2): "
            "Linear(in_features=8, out_features=5, bias=True)\n)");
  expect_error<IndexError>([&] { seq.replace_module("3", std::make_shared<nn::ReLU>()); },
                           "replace_module: Sequential has no submodule '3'");
  EXPECT_THROW(seq.replace_module("1", std::shared_ptr<nn::ReLU>()), Error);
}

TEST(EngineModules, ApplyVisitsChildrenBeforeParents) {
  nn::Sequential seq{nn::ReLU(), nn::Sequential(nn::Tanh())};
  std::vector<std::string> order;
  seq.apply([&](nn::Module& m) { order.push_back(m.type_name()); });
  EXPECT_EQ(order, (std::vector<std::string>{"ReLU", "Tanh", "Sequential", "Sequential"}));
}

TEST(EngineModules, ForwardHooksCanReplaceInputAndOutputAndBeRemoved) {
  nn::ReLU act;
  auto pre = act.register_forward_pre_hook([](nn::Module&, const Tensor& x) -> std::optional<Tensor> { return x - 1; });
  auto post = act.register_forward_hook(
      [](nn::Module&, const Tensor&, const Tensor& y) -> std::optional<Tensor> { return y * 10; });
  EXPECT_TRUE(equal(act(tensor({0.5f, 3.0f})), tensor({0.0f, 20.0f})));
  pre.remove();
  EXPECT_TRUE(equal(act(tensor({0.5f, 3.0f})), tensor({5.0f, 30.0f})));
  post.remove();
  post.remove();  // a second remove does nothing
  EXPECT_TRUE(equal(act(tensor({0.5f, 3.0f})), tensor({0.5f, 3.0f})));
}

TEST(EngineModules, ToDoubleConvertsInPlaceAndKeepsHandles) {
  nn::Linear lin(3, 2);
  const Tensor handle = lin.weight;
  lin(ones({1, 3})).sum().backward();
  lin.to(kFloat64);
  EXPECT_EQ(handle.dtype(), kFloat64);
  EXPECT_EQ(lin.named_parameters()[0].second.dtype(), kFloat64);
  EXPECT_EQ(lin.weight.grad().dtype(), kFloat64);
  EXPECT_TRUE(lin.weight.is_leaf());
  EXPECT_EQ(lin(ones({1, 3}, kFloat64)).dtype(), kFloat64);
}

TEST(EngineModules, ZeroGradKeepsOrDropsTensors) {
  nn::Linear lin(3, 2);
  lin(ones({1, 3})).sum().backward();
  const void* storage = lin.weight.grad().data_ptr();
  lin.zero_grad();
  EXPECT_EQ(lin.weight.grad().data_ptr(), storage);
  EXPECT_TRUE(equal(lin.weight.grad(), zeros({2, 3})));
  lin.zero_grad(true);
  EXPECT_FALSE(lin.weight.grad().defined());
}

TEST(EngineModules, ContainersWithoutForwardSaySo) {
  nn::ModuleList list{nn::ReLU()};
  expect_oracle_error([&] { list(zeros({1})); }, "missing_forward");
}

TEST(EngineModules, ContainerIndexingAndKeys) {
  nn::ModuleList list{nn::ReLU(), nn::Tanh()};
  EXPECT_EQ(list[-1].type_name(), "Tanh");
  expect_error<IndexError>([&] { (void)list[2]; }, "index 2 is out of range");
  nn::ModuleDict dict({{"act", std::make_shared<nn::ReLU>()}});
  dict.insert("out", std::make_shared<nn::Linear>(2, 1));
  EXPECT_EQ(dict.keys(), (std::vector<std::string>{"act", "out"}));
  EXPECT_EQ(dict["out"].type_name(), "Linear");
  EXPECT_EQ(dict.size(), 2u);
  expect_error<IndexError>([&] { (void)dict["nope"]; }, "'nope'");
  nn::Sequential seq(nn::Linear(2, 2));
  expect_error<Error>([&] { (void)seq.at<nn::ReLU>(0); }, "module 0 of Sequential is a Linear");
}

TEST(EngineModules, RegistrationNamesAreChecked) {
  nn::Module m;
  m.register_parameter("w", zeros({1}));
  expect_error<IndexError>([&] { m.register_parameter("w", zeros({1})); }, "attribute 'w' already exists");
  expect_error<IndexError>([&] { m.register_buffer("a.b", zeros({1})); }, "buffer name can't contain \".\"");
  expect_error<IndexError>([&] { m.register_module("", std::make_shared<nn::ReLU>()); },
                           "module name can't be empty string \"\"");
}

}  // namespace
}  // namespace kindling::testing
