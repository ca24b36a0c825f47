// Task week01.max_dim: max/min with dim and keepdim, argmax/argmin (the study notes'
// torch.argmax(input, dim=1, keepdim=True)). 40 random cases from PyTorch 1.13, with
// ties and NaNs.

#include <cmath>
#include <cstdint>
#include <limits>
#include <tuple>
#include <vector>

#include "oracle_json.hpp"
#include "testing.hpp"

using namespace kindling;
using namespace kindling::testing;

TEST(week01_max_dim, MatchesPyTorchOnRandomCases) {
  for (const auto& c : oracle_json("max_dim_random")) {
    SCOPED_TRACE(c.dump());
    const Tensor x = tensor_from_json(c.at("x"));
    const auto dim = c.at("dim").get<std::int64_t>();
    const bool keepdim = c.at("keepdim").get<bool>();
    const auto [mx, imx] = max(x, dim, keepdim);
    expect_values(mx, values_from_json(c.at("max")));
    expect_values(imx, values_from_json(c.at("argmax_dim")));
    const auto [mn, imn] = min(x, dim, keepdim);
    expect_values(mn, values_from_json(c.at("min")));
    expect_values(imn, values_from_json(c.at("argmin_dim")));
    expect_values(argmax(x, dim, keepdim), values_from_json(c.at("argmax_dim")));
    expect_values(argmin(x, dim, keepdim), values_from_json(c.at("argmin_dim")));
    expect_values(argmax(x), values_from_json(c.at("argmax")));
    expect_values(argmin(x), values_from_json(c.at("argmin")));
    // A non-contiguous copy of x gives the same answers.
    if (x.dim() >= 2) {
      const Tensor xs = x.transpose(0, -1).contiguous().transpose(0, -1);
      expect_values(std::get<1>(max(xs, dim, keepdim)), values_from_json(c.at("argmax_dim")));
    }
  }
}

TEST(week01_max_dim, KeepdimKeepsASizeOneDim) {
  // The notes' argmax(dim=1, keepdim=True): one index per row, as a column.
  const Tensor scores = tensor({{0.1, 0.7, 0.2}, {0.5, 0.3, 0.2}});
  const Tensor best = argmax(scores, 1, true);
  EXPECT_EQ(best.sizes().vec(), (Shape{2, 1}));
  EXPECT_EQ(best.dtype(), kInt64);
  EXPECT_EQ(best.to_vector<std::int64_t>(), (std::vector<std::int64_t>{1, 0}));
  EXPECT_EQ(argmax(scores, 1).sizes().vec(), (Shape{2}));
  const auto [values, indices] = max(scores, 0, true);
  EXPECT_EQ(values.sizes().vec(), (Shape{1, 3}));
  EXPECT_FALSE(values.is_alias_of(scores));
}

TEST(week01_max_dim, IntegersBoolsAndEdges) {
  const Tensor i = tensor({{3, 7, 7}, {2, 1, 2}});
  const auto [v, idx] = max(i, 1);
  expect_values(v, values_from_json(oracle_json("max_dim_int").at("values")));
  expect_values(idx, values_from_json(oracle_json("max_dim_int").at("indices")));
  expect_values(std::get<1>(max(tensor({{false, true, true}, {false, false, false}}), 1)),
                oracle_values("max_dim_bool"));
  expect_values(argmax(zeros({0, 3}), 1), oracle_values("argmax_empty_rows"));
  const auto [s, si] = max(tensor(3.5), 0, true);
  EXPECT_EQ(s.dim(), 0);
  EXPECT_EQ(s.item<double>(), 3.5);
  EXPECT_EQ(si.item<std::int64_t>(), 0);
}

TEST(week01_max_dim, ErrorsArePyTorchs) {
  expect_oracle_error([] { (void)max(zeros({2, 0}), 1); }, "max_dim_empty_error");
  expect_oracle_error([] { (void)argmax(zeros({0})); }, "argmax_empty_error");
  expect_oracle_error([] { (void)argmax(zeros({2, 3}), 2); }, "argmax_dim_range_error");
}

// torch.max(zeros(2, 0), -1) -> IndexError "max(): Expected reduction dim 1 to have non-zero size."
TEST(week01_max_dim, TheEmptyReductionErrorNamesTheWrappedDim) {
  SCOPED_TRACE("the message names the dim after wrapping (-1 -> 1), as PyTorch does");
  expect_error<IndexError>(
      [] {
        (void)max(zeros({2, 0}), -1);
      },
      "max(): Expected reduction dim 1 to have non-zero size.");
}

// torch.max(tensor([1., nan, 3., nan]), 0) -> (nan, 1); torch.min(...) -> (nan, 1); argmax(tensor([[nan, 2., nan]]), 1)
// -> [0]
TEST(week01_max_dim, TheFirstOfSeveralNaNsWins) {
  const double not_a_number = std::numeric_limits<double>::quiet_NaN();
  const Tensor x = tensor({1.0, not_a_number, 3.0, not_a_number});
  const auto [mx, imx] = max(x, 0);
  EXPECT_TRUE(std::isnan(mx.item<double>()));
  EXPECT_EQ(imx.item<std::int64_t>(), 1) << "once a NaN is the best, later NaNs must not replace it";
  EXPECT_EQ(std::get<1>(min(x, 0)).item<std::int64_t>(), 1) << "min: the first NaN wins too";
  EXPECT_EQ(argmax(tensor({{not_a_number, 2.0, not_a_number}}), 1).to_vector<std::int64_t>(),
            (std::vector<std::int64_t>{0}))
      << "a NaN at index 0 must beat the NaN at index 2";
}

// x = tensor(3.5); v, i = torch.max(x, 0); v.fill_(1.) -> x stays tensor(3.5) (v.data_ptr() != x.data_ptr())
TEST(week01_max_dim, TheValuesOfA0dInputAreACopy) {
  const Tensor x = tensor(3.5);
  const auto [v, i] = max(x, 0);
  EXPECT_FALSE(v.is_alias_of(x)) << "the values of a 0-d x must be a copy, not x itself";
  v.fill_(1.0);
  EXPECT_EQ(x.item<double>(), 3.5) << "writing into the values must leave x alone";
  EXPECT_EQ(i.item<std::int64_t>(), 0);
}
