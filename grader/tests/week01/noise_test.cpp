// Task week01.noise: Gaussian and uniform noise of one standard deviation, and the Pearson
// correlation that measures what survives them. correlation is checked against
// torch.corrcoef on 42 cases (tools/oracle/week01.py). Kindling's generator is not
// PyTorch's, so the noise is checked by its statistics, on 200000 draws from a fixed seed:
// every bound below is at least 6 standard errors wide, so an honest solution passes
// with any seed, and a wrong scale (uniform on [-std, std], or on [0, std)) fails by
// far more.

#include <cmath>
#include <numeric>

#include <kindling/noise.hpp>

#include "oracle_json.hpp"
#include "testing.hpp"

using namespace kindling;
using namespace kindling::testing;

namespace {
constexpr std::int64_t kDraws = 200000;
const double kSqrt3 = std::sqrt(3.0);

struct Moments {
  double mean = 0, stddev = 0, kurtosis = 0, min = 0, max = 0;
};

Moments moments(const std::vector<double>& v) {
  Moments m;
  const auto n = static_cast<double>(v.size());
  m.mean = std::accumulate(v.begin(), v.end(), 0.0) / n;
  double m2 = 0, m4 = 0;
  m.min = m.max = v.front();
  for (double x : v) {
    const double d = x - m.mean;
    m2 += d * d;
    m4 += d * d * d * d;
    m.min = std::min(m.min, x);
    m.max = std::max(m.max, x);
  }
  m2 /= n;
  m4 /= n;
  m.stddev = std::sqrt(m2);
  m.kurtosis = m4 / (m2 * m2);
  return m;
}

// The noise alone: add_noise of zeros.
std::vector<double> noise(double stddev, NoiseKind kind, std::uint64_t seed, ScalarType dtype = kFloat64) {
  Generator g(seed);
  return add_noise(zeros({kDraws}, dtype), stddev, kind, &g).to_vector<double>();
}
}  // namespace

TEST(week01_noise, CorrelationMatchesTorchCorrcoef) {
  for (const auto& c : oracle_json("correlation_random")) {
    SCOPED_TRACE(c.dump());
    const double r = correlation(exact_tensor_from_json(c.at("a")), exact_tensor_from_json(c.at("b")));
    if (c.at("r").is_null()) {
      EXPECT_TRUE(std::isnan(r)) << r;  // a constant input, or a single element
    } else {
      EXPECT_NEAR(r, c.at("r").get<double>(), 1e-12);
    }
  }
}

TEST(week01_noise, CorrelationPairsElementsInRowMajorOrderWhateverTheLayout) {
  const Tensor m = tensor({{1.0, 5.0, 2.0}, {8.0, 3.0, 4.0}});
  const Tensor t = m.t();  // a transposed view: row-major order is 1, 8, 5, 3, 2, 4
  EXPECT_NEAR(correlation(t, tensor({1.0, 8.0, 5.0, 3.0, 2.0, 4.0})), 1.0, 1e-12);
  EXPECT_NEAR(correlation(m, tensor({{2.0, 10.0, 4.0}, {16.0, 6.0, 8.0}})), 1.0, 1e-12);
  EXPECT_NEAR(correlation(m, tensor({-1.0, -5.0, -2.0, -8.0, -3.0, -4.0})), -1.0, 1e-12);        // shapes may differ
  EXPECT_NEAR(correlation(arange(4), tensor({1.0, 2.0, 3.0, 4.5})), 0.9943767126843691, 1e-12);  // integers too
  expect_oracle_error([] { (void)correlation(zeros({3}), zeros({2, 2})); }, "correlation_size_error");
}

TEST(week01_noise, AddNoiseGivesANewTensorOfXsShapeAndDtype) {
  for (ScalarType dtype : {kFloat32, kFloat64}) {
    for (NoiseKind kind : {NoiseKind::Gaussian, NoiseKind::Uniform}) {
      const Tensor x = arange(12, dtype).view({3, 4}).t();  // a transposed view: any layout
      const std::vector<double> before = x.to_vector<double>();
      Generator g(3);
      const Tensor y = add_noise(x, 0.5, kind, &g);
      EXPECT_EQ(y.dtype(), dtype);
      EXPECT_EQ(y.sizes().vec(), (Shape{4, 3}));
      EXPECT_FALSE(y.is_alias_of(x));
      EXPECT_EQ(x.to_vector<double>(), before);  // x is not touched
      EXPECT_NE(y.to_vector<double>(), before);  // but the result is noisy
      EXPECT_EQ(add_noise(scalar_tensor(2.0, dtype), 1.0, kind, &g).dim(), 0);
      EXPECT_EQ(add_noise(zeros({0, 5}, dtype), 1.0, kind, &g).sizes().vec(), (Shape{0, 5}));
      EXPECT_EQ(add_noise(x, 0.0, kind, &g).to_vector<double>(), before);  // no noise at all
    }
  }
}

TEST(week01_noise, TheSameSeedGivesTheSameNoise) {
  for (NoiseKind kind : {NoiseKind::Gaussian, NoiseKind::Uniform}) {
    EXPECT_EQ(noise(1.0, kind, 11), noise(1.0, kind, 11));
    EXPECT_NE(noise(1.0, kind, 11), noise(1.0, kind, 12));
    const Tensor x = zeros({100});
    manual_seed(5);
    const std::vector<double> a = add_noise(x, 1.0, kind).to_vector<double>();  // the default generator
    manual_seed(5);
    EXPECT_EQ(add_noise(x, 1.0, kind).to_vector<double>(), a);
  }
}

TEST(week01_noise, GaussianNoiseHasMeanZeroTheStdAndANormalShape) {
  for (ScalarType dtype : {kFloat64, kFloat32}) {
    const std::vector<double> v = noise(2.0, NoiseKind::Gaussian, 21, dtype);
    const Moments m = moments(v);
    EXPECT_NEAR(m.mean, 0.0, 0.03);
    EXPECT_NEAR(m.stddev, 2.0, 0.02);
    EXPECT_NEAR(m.kurtosis, 3.0, 0.08);  // a normal distribution's
    // A normal variable lies beyond sqrt(3) standard deviations 8.33% of the time.
    const auto beyond = std::count_if(v.begin(), v.end(), [](double x) { return std::abs(x) > 2.0 * kSqrt3; });
    EXPECT_NEAR(static_cast<double>(beyond) / kDraws, 0.0833, 0.004);
  }
}

TEST(week01_noise, UniformNoiseIsFlatBoundedAndOfTheSameStd) {
  for (ScalarType dtype : {kFloat64, kFloat32}) {
    const std::vector<double> v = noise(2.0, NoiseKind::Uniform, 22, dtype);
    const Moments m = moments(v);
    EXPECT_NEAR(m.mean, 0.0, 0.03);
    EXPECT_NEAR(m.stddev, 2.0, 0.02);       // the same standard deviation as the Gaussian
    EXPECT_NEAR(m.kurtosis, 1.8, 0.03);     // a uniform distribution's
    EXPECT_LE(m.max, 2.0 * kSqrt3 + 1e-6);  // never beyond the bounds
    EXPECT_GE(m.min, -2.0 * kSqrt3 - 1e-6);
    EXPECT_GT(m.max, 2.0 * kSqrt3 * 0.999);  // and reaching both of them
    EXPECT_LT(m.min, -2.0 * kSqrt3 * 0.999);
  }
}

TEST(week01_noise, TheNoiseIsIndependentOfTheSignal) {
  const Tensor x = arange(kDraws, kFloat64) / 1000.0;
  for (NoiseKind kind : {NoiseKind::Gaussian, NoiseKind::Uniform}) {
    Generator g(31);
    const Tensor y = add_noise(x, 1.0, kind, &g);
    EXPECT_NEAR(correlation(x, y - x), 0.0, 0.02);
  }
}

// At equal variance the correlation with the signal is the same for both kinds:
// 1 / sqrt(1 + std^2 / var(x)), whatever the noise's distribution.
TEST(week01_noise, EqualVarianceLeavesTheSameCorrelation) {
  Generator signal(41);
  const Tensor x = randn({kDraws}, kFloat64, &signal);
  for (double stddev : {0.5, 1.0, 3.0}) {
    const double expected = 1.0 / std::sqrt(1.0 + stddev * stddev);
    for (NoiseKind kind : {NoiseKind::Gaussian, NoiseKind::Uniform}) {
      Generator g(42);
      EXPECT_NEAR(correlation(x, add_noise(x, stddev, kind, &g)), expected, 0.013) << "std " << stddev;
    }
  }
}

// Study note 002 expects uniform noise to leave nothing of the signal. Bounded noise leaves
// more: a signal of +-1 under uniform noise of std 0.5 (half-width 0.87 < 1) keeps every
// sign, where Gaussian noise of the same std flips 2.3% of them.
TEST(week01_noise, UniformNoiseHidesNoMoreThanGaussian) {
  Generator signs(51);
  const Tensor x = gt(rand({kDraws}, kFloat64, &signs), 0.5).to(kFloat64) * 2.0 - 1.0;
  auto kept = [&](NoiseKind kind) {
    Generator g(52);
    const std::vector<double> y = add_noise(x, 0.5, kind, &g).to_vector<double>(), s = x.to_vector<double>();
    std::int64_t same = 0;
    for (std::size_t i = 0; i < y.size(); ++i) same += (y[i] > 0) == (s[i] > 0);
    return static_cast<double>(same) / kDraws;
  };
  EXPECT_EQ(kept(NoiseKind::Uniform), 1.0);
  EXPECT_NEAR(kept(NoiseKind::Gaussian), 0.9772, 0.004);
}

TEST(week01_noise, RaisesPyTorchsErrors) {
  for (NoiseKind kind : {NoiseKind::Gaussian, NoiseKind::Uniform}) {
    expect_oracle_error([&] { (void)add_noise(zeros({3}), -1.0, kind); }, "normal_std_error");
    expect_error<Error>([&] { (void)add_noise(zeros({3}), -0.5, kind); },
                        "normal expects std >= 0.0, but found std -0.5");
  }
  expect_oracle_error([] { (void)add_noise(zeros({2}, kInt64), 1.0, NoiseKind::Gaussian); }, "randn_like_long_error");
  expect_oracle_error([] { (void)add_noise(zeros({2}, kInt64), 1.0, NoiseKind::Uniform); }, "rand_like_long_error");
  expect_error<Error>([] { (void)add_noise(zeros({2}, kInt32), 1.0, NoiseKind::Gaussian); },
                      "\"normal_kernel_cpu\" not implemented for 'Int'");
}
