// Task week01.split: chunk and split cut a tensor into views along one dim. 40 random
// cases from PyTorch 1.13 (tools/oracle/week01.py) give each piece's sizes, strides and
// storage offset; the errors are PyTorch's, word for word.

#include "oracle_json.hpp"
#include "testing.hpp"

using namespace kindling;
using namespace kindling::testing;

TEST(week01_split, PiecesMatchPyTorchOnRandomCases) {
  for (const auto& c : oracle_json("split_random")) {
    SCOPED_TRACE(c.dump());
    const Shape shape = c.at("shape").get<Shape>();
    Tensor x = arange(numel_of(shape), kFloat32).reshape(shape);
    if (c.at("transposed").get<bool>()) x = x.transpose(0, -1);
    const std::int64_t dim = c.at("dim").get<std::int64_t>();
    const std::string kind = c.at("kind").get<std::string>();
    const std::vector<Tensor> pieces = kind == "chunk" ? chunk(x, c.at("arg").get<std::int64_t>(), dim)
                                       : kind == "split_size"
                                           ? split(x, c.at("arg").get<std::int64_t>(), dim)
                                           : split(x, c.at("arg").get<std::vector<std::int64_t>>(), dim);
    const auto& expected = c.at("pieces");
    ASSERT_EQ(pieces.size(), expected.size());
    for (std::size_t i = 0; i < pieces.size(); ++i) {
      SCOPED_TRACE("piece " + std::to_string(i));
      EXPECT_EQ(pieces[i].sizes().vec(), expected[i].at("sizes").get<Shape>());
      EXPECT_EQ(pieces[i].strides().vec(), expected[i].at("strides").get<Shape>());
      EXPECT_EQ(pieces[i].storage_offset(), expected[i].at("offset").get<std::int64_t>());
      EXPECT_TRUE(pieces[i].is_alias_of(x)) << "a piece must be a view of x, not a copy";
    }
  }
}

TEST(week01_split, ChunkMayReturnFewerPieces) {
  // Six rows in four chunks: pieces of ceil(6 / 4) = 2 rows, so only three of them.
  const std::vector<Tensor> pieces = chunk(arange(6), 4);
  ASSERT_EQ(pieces.size(), 3U);
  for (const Tensor& p : pieces) EXPECT_EQ(p.sizes().vec(), (Shape{2}));
  EXPECT_EQ(pieces[2].to_vector<std::int64_t>(), (std::vector<std::int64_t>{4, 5}));
  // Five in three: 2, 2 and the 1 left over. A size-0 dim gives `chunks` empty pieces.
  const std::vector<Tensor> five = chunk(arange(5), 3);
  ASSERT_EQ(five.size(), 3U);
  EXPECT_EQ(five[2].numel(), 1);
  EXPECT_EQ(chunk(zeros({0, 3}), 3).size(), 3U);
  EXPECT_EQ(split(zeros({0, 3}), 2).size(), 1U);
}

TEST(week01_split, PiecesShareMemoryWithTheWhole) {
  const Tensor x = zeros({4, 6});
  std::vector<Tensor> halves = split(x, 3, 1);
  ASSERT_EQ(halves.size(), 2U);
  halves[1].fill_(7.0);  // the right half of every row
  EXPECT_EQ(x.select(0, 2).to_vector<float>(), (std::vector<float>{0, 0, 0, 7, 7, 7}));
  EXPECT_EQ(halves[1].strides().vec(), (Shape{6, 1}));  // still rows of 6: a view, not contiguous
  EXPECT_FALSE(halves[1].is_contiguous());
  const std::vector<Tensor> rows = split(x, std::vector<std::int64_t>{1, 0, 3});
  ASSERT_EQ(rows.size(), 3U);
  EXPECT_EQ(rows[1].numel(), 0);
  EXPECT_EQ(rows[2].storage_offset(), 6);
}

TEST(week01_split, ErrorsArePyTorchs) {
  const auto& e = oracle_json("split_errors");
  expect_error_json([] { (void)split(zeros({5}), 0); }, e.at("split_zero"));
  expect_error_json([] { (void)split(zeros({5}), -1); }, e.at("split_negative"));
  expect_error_json([] { (void)split(zeros({2, 5}), std::vector<std::int64_t>{2, 2}, 1); }, e.at("sizes_sum"));
  expect_error_json([] { (void)split(zeros({5}), std::vector<std::int64_t>{6, -1}); }, e.at("sizes_negative"));
  expect_error_json([] { (void)split(scalar_tensor(5.0), 1); }, e.at("split_0d"));
  expect_error_json([] { (void)chunk(scalar_tensor(5.0), 1); }, e.at("chunk_0d"));
  expect_error_json([] { (void)chunk(zeros({5}), 0); }, e.at("chunk_zero"));
  expect_error_json([] { (void)chunk(zeros({5}), 2, 1); }, e.at("dim_range"));
}

// PyTorch 1.13: torch.zeros(2, 5).split([2, 2], -1) raises "split_with_sizes expects split_sizes to sum
// exactly to 5 (input tensor's size at dimension -1), but got split_sizes=[2, 2]": the dim as given.
TEST(week01_split, TheSumErrorNamesTheDimAsTheCallerWroteIt) {
  expect_error<Error>(
      [] {
        (void)split(zeros({2, 5}), {2, 2}, -1);
      },
      "split_with_sizes expects split_sizes to sum exactly to 5 (input tensor's size at dimension -1), "
      "but got split_sizes=[2, 2]");
}
