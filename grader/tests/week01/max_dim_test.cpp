// Task week01.max_dim: max/min with dim and keepdim, argmax/argmin (the study notes'
// torch.argmax(input, dim=1, keepdim=True)). 40 random cases from PyTorch 1.13, with
// ties and NaNs.

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
