// Task week01.linspace: evenly spaced values with both ends exact. 60 random cases from
// PyTorch 1.13 (tools/oracle/week01.py) over float32, float64, int64 and int32.

#include "oracle_json.hpp"
#include "testing.hpp"

using namespace kindling;
using namespace kindling::testing;

TEST(week01_linspace, MatchesPyTorchOnRandomCases) {
  for (const auto& c : oracle_json("linspace_random")) {
    SCOPED_TRACE(c.dump());
    const auto& out = c.at("out");
    const ScalarType dtype = oracle_dtype(out.at("dtype").get<std::string>());
    const std::int64_t steps = c.at("steps").get<std::int64_t>();
    const Tensor t = linspace(c.at("start").get<double>(), c.at("end").get<double>(), steps, dtype);
    EXPECT_EQ(t.dtype(), dtype);
    EXPECT_EQ(t.sizes().vec(), (Shape{steps}));
    EXPECT_TRUE(t.is_contiguous());
    const std::vector<double> expected = out.at("values").get<std::vector<double>>();
    const std::vector<double> got = t.to(kFloat64).to_vector<double>();
    ASSERT_EQ(got.size(), expected.size());
    for (std::size_t i = 0; i < got.size(); ++i) {
      if (is_floating_point(dtype)) {
        EXPECT_NEAR(got[i], expected[i], 4e-6 * (1 + std::abs(expected[i]))) << "element " << i;
      } else {
        EXPECT_EQ(got[i], expected[i]) << "element " << i;  // integers: exact
      }
    }
    if (steps > 0) {
      EXPECT_EQ(got.front(), expected.front());  // the first element is start, exactly
    }
  }
}

// The two-sided formula's point. (PyTorch's vectorised float32 kernel, used from 8 elements on,
// can miss end by an ulp: linspace(-13/6, 0.4, 16)[-1] is 0.40000004 there. Short outputs use
// its scalar loop, which this contract follows.)
TEST(week01_linspace, BothEndsAreExact) {
  const auto& e = oracle_json("linspace_endpoints");
  EXPECT_EQ(linspace(-1, 1, 7).to_vector<float>().back(), e.at("last").get<double>());
  EXPECT_EQ(linspace(0.1, 0.3, 5).to_vector<float>().front(), static_cast<float>(e.at("first").get<double>()));
  // 0.1 + 0.1 * 2 is not 0.3 in floating point; counting down from the end, the last value is.
  const std::vector<double> d = linspace(0.1, 0.3, 3, kFloat64).to_vector<double>();
  EXPECT_EQ(d.back(), 0.3);
  EXPECT_EQ(d.front(), 0.1);
}

TEST(week01_linspace, ZeroAndOneStep) {
  expect_values(linspace(8, 17, 1), values_from_json(oracle_json("linspace_endpoints").at("one_step")));
  EXPECT_EQ(linspace(8, 17, 0).numel(), 0);
  EXPECT_EQ(linspace(8, 17, 0, kInt64).dtype(), kInt64);
  expect_oracle_error([] { (void)linspace(0, 1, -1); }, "linspace_negative_error");
}

TEST(week01_linspace, IntegerDtypesTruncateTheEndsFirst) {
  // -3.4 .. 2.9 runs from -3 to 2 in steps of 1.25: -3, -1.75, then from the end -0.5, 0.75, 2,
  // each truncated toward zero (PyTorch: [-3, -1, 0, 0, 2]).
  EXPECT_EQ(linspace(-3.4, 2.9, 5, kInt64).to_vector<std::int64_t>(), (std::vector<std::int64_t>{-3, -1, 0, 0, 2}));
  EXPECT_EQ(linspace(0, 10, 4, kInt32).to_vector<std::int32_t>(), (std::vector<std::int32_t>{0, 3, 6, 10}));
}
