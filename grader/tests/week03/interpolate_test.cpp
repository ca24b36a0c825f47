// Task week03.interpolate: where each output of F::interpolate reads from, for "nearest" and
// "bilinear" with and without align_corners. Expected values from PyTorch 1.13: interpolating
// arange(in) along one axis gives each output's source position (for nearest, its index).
#include <cmath>

#include <kindling/nn.hpp>

#include "oracle_json.hpp"
#include "testing.hpp"

namespace kindling::testing {
namespace {

namespace F = nn::functional;

std::optional<double> scale_of(const nlohmann::json& c) {
  if (c.at("scale").is_null()) return std::nullopt;
  return c.at("scale").get<double>();
}

std::string describe(const nlohmann::json& c) { return c.dump(); }

TEST(week03_interpolate, NearestIndicesMatchPyTorch) {
  for (const auto& c : oracle_json("nearest_indices")) {
    SCOPED_TRACE(describe(c));
    const auto got =
        F::nearest_source_indices(c.at("in").get<std::int64_t>(), c.at("out").get<std::int64_t>(), scale_of(c));
    EXPECT_EQ(got, c.at("index").get<std::vector<std::int64_t>>());
  }
}

// F.interpolate(torch.arange(14.).view(1, 1, 14), size=46)[0, 0, 23] -> 6. (float 23 * (14 / 46) is 6.9999995)
// F.interpolate(torch.arange(26.).view(1, 1, 26), size=46)[0, 0, 23] -> 13. (double 23 * (26 / 46) is 12.99...)
// F.interpolate(torch.arange(16.).view(1, 1, 16), scale_factor=2.6)[0, 0, 39] -> 15. (double 39 / 2.6 is 14.99...)
TEST(week03_interpolate, NearestPositionIsComputedInFloat) {
  EXPECT_EQ(F::nearest_source_indices(14, 46, std::nullopt).at(23), 6)
      << "in 14, out 46: in float, 23 * (14 / 46) is 6.9999995, so output 23 copies input 6 (7 in double)";
  EXPECT_EQ(F::nearest_source_indices(26, 46, std::nullopt).at(23), 13)
      << "in 26, out 46: in float, 23 * (26 / 46) is exactly 13 (12.999... in double)";
  EXPECT_EQ(F::nearest_source_indices(16, 41, 2.6).at(39), 15)
      << "in 16, scale_factor 2.6: in float, 39 * float(1 / 2.6) is exactly 15 (14.999... in double)";
}

TEST(week03_interpolate, BilinearTapsPlaceEachOutputWherePyTorchDoes) {
  for (const auto& c : oracle_json("linear_positions")) {
    SCOPED_TRACE(describe(c));
    const std::int64_t in = c.at("in").get<std::int64_t>();
    const auto want = c.at("position").get<std::vector<double>>();
    const F::LinearTaps t =
        F::linear_source_taps(in, c.at("out").get<std::int64_t>(), scale_of(c), c.at("align_corners").get<bool>());
    ASSERT_EQ(t.lo.size(), want.size());
    ASSERT_EQ(t.hi.size(), want.size());
    ASSERT_EQ(t.lambda.size(), want.size());
    for (std::size_t o = 0; o < want.size(); ++o) {
      SCOPED_TRACE("output " + std::to_string(o));
      EXPECT_GE(t.lo[o], 0);
      EXPECT_LT(t.lo[o], in);
      EXPECT_EQ(t.hi[o], t.lo[o] < in - 1 ? t.lo[o] + 1 : t.lo[o]);
      EXPECT_GE(t.lambda[o], 0.0f);
      EXPECT_LE(t.lambda[o], 1.0f);
      // Interpolating arange(in) gives the position each output reads from.
      const double position = (1.0 - t.lambda[o]) * static_cast<double>(t.lo[o]) +
                              static_cast<double>(t.lambda[o]) * static_cast<double>(t.hi[o]);
      EXPECT_NEAR(position, want[o], 1e-5);
    }
  }
}

TEST(week03_interpolate, TheLowerTapIsTheFloorOfTheSourcePosition) {
  // in 2, out 4, no align_corners: src = -0.25 (clamped to 0), 0.25, 0.75, 1.25.
  const F::LinearTaps t = F::linear_source_taps(2, 4, std::nullopt, false);
  EXPECT_EQ(t.lo, (std::vector<std::int64_t>{0, 0, 0, 1}));
  EXPECT_EQ(t.hi, (std::vector<std::int64_t>{1, 1, 1, 1}));
  EXPECT_EQ(t.lambda, (std::vector<float>{0.0f, 0.25f, 0.75f, 0.25f}));
  // align_corners with one output reads the first input only.
  const F::LinearTaps one = F::linear_source_taps(6, 1, std::nullopt, true);
  EXPECT_EQ(one.lo, (std::vector<std::int64_t>{0}));
  EXPECT_EQ(one.lambda, (std::vector<float>{0.0f}));
}

TEST(week03_interpolate, WholeImagesMatchPyTorch) {
  const Tensor x = oracle_ramp({1, 2, 3, 4}, 3.0, 1.0).detach();
  const auto& want = oracle_json("interpolate_outputs");
  auto check = [&](const std::string& key, const Tensor& got) {
    SCOPED_TRACE(key);
    expect_values(got, values_from_json(want.at(key)), 1e-5, 1e-6);
  };
  check("nearest_size", F::interpolate(x, nn::Pair2{5, 7}));
  check("nearest_scale", F::interpolate(x, std::nullopt, std::pair{2.0, 2.0}));
  check("nearest_down", F::interpolate(x, nn::Pair2{2, 3}));
  check("bilinear_size", F::interpolate(x, nn::Pair2{5, 7}, std::nullopt, "bilinear", false));
  check("bilinear_corners", F::interpolate(x, nn::Pair2{5, 7}, std::nullopt, "bilinear", true));
  check("bilinear_scale", F::interpolate(x, std::nullopt, std::pair{1.5, 1.5}, "bilinear"));
  check("bilinear_down", F::interpolate(x, nn::Pair2{2, 2}, std::nullopt, "bilinear"));
  check("upsample_corners", nn::Upsample(std::nullopt, 2.0, "bilinear", true)(x));
}

TEST(week03_interpolate, BilinearIsDifferentiable) {
  // The taps only choose rows and weights: autograd differentiates the gather and the sum.
  const Tensor x = oracle_ramp({1, 1, 2, 2});
  F::interpolate(x, nn::Pair2{4, 4}, std::nullopt, "bilinear", true).sum().backward();
  // With align_corners, 4 outputs over 2 inputs weigh each input 1 + 2/3 + 1/3 = 2 per axis.
  EXPECT_TRUE(allclose(x.grad(), full({1, 1, 2, 2}, 4.0f), 1e-5, 1e-6));
}

}  // namespace
}  // namespace kindling::testing
