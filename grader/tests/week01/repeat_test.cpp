// Task week01.repeat: repeat copies, expand views with stride 0. 30 random cases from
// PyTorch 1.13 (tools/oracle/week01.py).

#include "oracle_json.hpp"
#include "testing.hpp"

using namespace kindling;
using namespace kindling::testing;

TEST(week01_repeat, MatchesPyTorchOnRandomCases) {
  for (const auto& c : oracle_json("repeat_random")) {
    SCOPED_TRACE(c.dump());
    Tensor x = tensor_from_json(c.at("x"));
    if (c.at("strided").get<bool>()) x = x.transpose(0, -1).contiguous().transpose(0, -1);
    const Tensor r = repeat(x, c.at("repeats").get<Shape>());
    expect_values(r, values_from_json(c.at("out")));
    EXPECT_TRUE(r.is_contiguous());
    if (r.numel() > 0) {
      EXPECT_FALSE(r.is_alias_of(x));
    }
  }
}

TEST(week01_repeat, RepeatCopiesWhereExpandViews) {
  const Tensor row = tensor({1, 2, 3});
  const Tensor tiled = repeat(row.unsqueeze(0), {2, 1});
  const Tensor viewed = row.expand({2, 3});
  EXPECT_EQ(tiled.to_vector<std::int64_t>(), viewed.to_vector<std::int64_t>());
  EXPECT_EQ(tiled.strides().vec(), (Shape{3, 1}));   // its own memory, 6 elements
  EXPECT_EQ(viewed.strides().vec(), (Shape{0, 1}));  // 3 elements, each read twice
  EXPECT_EQ(tiled.storage().nbytes(), 6 * sizeof(std::int64_t));
  tiled.fill_(0);
  EXPECT_EQ(row.to_vector<std::int64_t>(), (std::vector<std::int64_t>{1, 2, 3}));
  // More repeats than dims: x gains leading dims; a repeat of 0 empties that dim.
  EXPECT_EQ(repeat(row, {2, 1, 2}).sizes().vec(), (Shape{2, 1, 6}));
  EXPECT_EQ(repeat(zeros({2, 3}), {0, 2}).sizes().vec(), (Shape{0, 6}));
  EXPECT_EQ(repeat(tensor(5), {2, 2}).to_vector<std::int64_t>(), (std::vector<std::int64_t>{5, 5, 5, 5}));
}

TEST(week01_repeat, ErrorsArePyTorchs) {
  expect_oracle_error([] { (void)repeat(zeros({2, 3}), {2}); }, "repeat_error");
  expect_oracle_error([] { (void)repeat(zeros({2, 3}), {2, -1}); }, "repeat_negative_error");
}

// torch.arange(6)[2:5].repeat(2) -> [2, 3, 4, 2, 3, 4]; torch.arange(6).view(2, 3)[1:].repeat(2, 2)
// -> [[3, 4, 5, 3, 4, 5], [3, 4, 5, 3, 4, 5]]
TEST(week01_repeat, ASlicedXTilesItsOwnElements) {
  const Tensor x = arange(6).slice(0, 2, 5);
  EXPECT_EQ(repeat(x, {2}).to_vector<std::int64_t>(), (std::vector<std::int64_t>{2, 3, 4, 2, 3, 4}))
      << "the tiled view must start at x's storage offset, not at the start of the storage";
  const Tensor row = arange(6).view({2, 3}).slice(0, 1);
  EXPECT_EQ(repeat(row, {2, 2}).to_vector<std::int64_t>(),
            (std::vector<std::int64_t>{3, 4, 5, 3, 4, 5, 3, 4, 5, 3, 4, 5}));
}
