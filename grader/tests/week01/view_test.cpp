// Tasks week01.infer_size, week01.view, week01.reshape and week01.contiguous.

#include <random>

#include "testing.hpp"

using namespace kindling;
using namespace kindling::testing;

TEST(week01_infer_size, MinusOneBecomesWhatIsLeft) {
  EXPECT_EQ(infer_size({-1, 4}, 24), (Shape{6, 4}));
  EXPECT_EQ(infer_size({2, -1, 3}, 24), (Shape{2, 4, 3}));
  EXPECT_EQ(infer_size({-1}, 0), (Shape{0}));
}

TEST(week01_infer_size, ShapesWithoutMinusOneAreReturnedAsTheyAre) {
  EXPECT_EQ(infer_size({3, 0}, 0), (Shape{3, 0}));
  EXPECT_EQ(infer_size({}, 1), Shape{});
}

TEST(week01_infer_size, WrongCountHasPyTorchsMessage) {
  expect_oracle_error([] { infer_size({4, 2}, 6); }, "view_size_error");
  expect_error<Error>([] { infer_size({-1, 4}, 6); }, "shape '[-1, 4]' is invalid for input of size 6");
}

TEST(week01_infer_size, TwoMinusOnesHavePyTorchsMessage) {
  expect_oracle_error([] { infer_size({-1, -1}, 6); }, "view_two_inferred_error");
}

TEST(week01_infer_size, NegativeSizeHasPyTorchsMessage) {
  expect_oracle_error([] { infer_size({-2, 3}, 6); }, "view_negative_error");
}

TEST(week01_infer_size, AmbiguousZeroHasPyTorchsMessage) {
  expect_oracle_error([] { infer_size({0, -1}, 0); }, "view_ambiguous_zero_error");
}

TEST(week01_view, StridedSliceCanBeFlattenedAsInPyTorch) {
  // zeros(4, 6)[:, ::2].view(12): the slice is one chunk, so this is a view.
  const Tensor base = zeros({4, 6});
  const Tensor v = base.slice(1, std::nullopt, std::nullopt, 2).view({12});
  expect_geometry(v, oracle_geometry("view_of_strided_slice"));
  EXPECT_TRUE(v.is_alias_of(base));
}

TEST(week01_view, SplittingInsideAChunkWorks) {
  expect_geometry(zeros({4, 6}).slice(1, std::nullopt, std::nullopt, 2).view({2, 2, 3}),
                  oracle_geometry("view_split_dims"));
}

TEST(week01_view, InfersMinusOne) { expect_geometry(zeros({2, 3, 4}).view({-1, 4}), oracle_geometry("view_infer")); }

TEST(week01_view, ZeroElementViews) { expect_geometry(zeros({0, 3}).view({3, 0}), oracle_geometry("view_zero_numel")); }

TEST(week01_view, TransposedTensorCannotBeViewed) {
  expect_oracle_error([] { (void)zeros({2, 3}).t().view({6}); }, "view_of_transpose_error");
}

TEST(week01_view, WrongSizeHasPyTorchsMessage) {
  expect_oracle_error([] { (void)zeros({6}).view({4, 2}); }, "view_size_error");
}

TEST(week01_view, ViewSharesStorageSoWritesShowThrough) {
  // The study notes' experiment: b = a.view(...); a.fill_(1) changes b.
  const Tensor a = arange(6, kFloat32).view({2, 3});
  const Tensor b = a.view({3, 2});
  EXPECT_EQ(b.data_ptr() == a.data_ptr(), oracle_bool("view_shares_storage", "same_data_ptr"));
  a.fill_(1);
  expect_values(b, oracle_values("view_shares_storage", "after_fill"));
}

TEST(week01_view, KeepsTheStorageOffset) {
  const Tensor row = arange(12).view({3, 4}).select(0, 2);
  const Tensor v = row.view({2, 2});
  EXPECT_EQ(v.storage_offset(), 8);
  EXPECT_EQ(v.at<std::int64_t>({1, 1}), 11);
}

TEST(week01_view, ScalarViewsAsAnyShapeOfOneElement) {
  const Tensor s = full({}, 3.0);
  EXPECT_EQ(s.view({1, 1}).strides().vec(), (Shape{1, 1}));
  EXPECT_EQ(s.view({1, 1, 1}).item<float>(), 3.0f);
}

// Property: viewing a contiguous tensor with any regrouping of its size keeps
// row-major element order (reference: the flat index itself).
TEST(week01_view, RandomRegroupingsKeepElementOrder) {
  std::mt19937 rng(99);
  const std::vector<Shape> shapes{{24}, {2, 12}, {4, 6}, {2, 3, 4}, {3, 2, 2, 2}, {1, 24, 1}, {6, 1, 4}};
  for (int trial = 0; trial < 60; ++trial) {
    const Shape& from = shapes[rng() % shapes.size()];
    const Shape& to = shapes[rng() % shapes.size()];
    const Tensor v = arange(24).view(from).view(to);
    EXPECT_EQ(v.sizes().vec(), to);
    for (std::int64_t flat = 0; flat < 24; ++flat) {
      Shape idx(to.size());
      std::int64_t rem = flat;
      for (std::size_t d = to.size(); d-- > 0;) {
        idx[d] = rem % to[d];
        rem /= to[d];
      }
      ASSERT_EQ(v.at<std::int64_t>(idx), flat) << to_string(from) << " -> " << to_string(to);
    }
  }
}

TEST(week01_reshape, OfTransposeCopiesSoWritesDoNotShowThrough) {
  // The study notes' experiment: b = a.t().reshape(6); a.fill_(1) leaves b alone.
  const Tensor a = arange(6, kFloat32).view({2, 3});
  const Tensor b = a.t().reshape({6});
  EXPECT_EQ(b.data_ptr() != a.data_ptr(), oracle_bool("reshape_of_transpose_copies", "copied"));
  EXPECT_FALSE(b.is_alias_of(a));
  EXPECT_EQ(b.is_view(), oracle_bool("reshape_of_transpose_copies", "is_view"))
      << "the copy must not be a view (of the temporary it was copied into)";
  a.fill_(1);
  expect_values(b, oracle_values("reshape_of_transpose_copies", "after_fill"));
}

TEST(week01_reshape, OfContiguousIsAView) {
  const Tensor a = arange(6, kFloat32).view({2, 3});
  const Tensor b = a.reshape({3, 2});
  EXPECT_EQ(b.data_ptr() == a.data_ptr(), oracle_bool("reshape_contiguous_is_view", "same_data_ptr"));
  EXPECT_TRUE(b.is_alias_of(a));
}

TEST(week01_reshape, OfStridedSliceIsAViewWhenTheRuleAllows) {
  const Tensor base = zeros({4, 6});
  EXPECT_TRUE(base.slice(1, std::nullopt, std::nullopt, 2).reshape({12}).is_alias_of(base));
}

TEST(week01_reshape, CopyHasTheRightValuesAndIsContiguous) {
  const Tensor r = arange(6).view({2, 3}).t().reshape({2, 3});
  EXPECT_TRUE(r.is_contiguous());
  EXPECT_EQ(r.to_vector<std::int64_t>(), (std::vector<std::int64_t>{0, 3, 1, 4, 2, 5}));
}

TEST(week01_reshape, ErrorsAreInferSizes) {
  expect_oracle_error([] { (void)zeros({2, 3}).t().reshape({4, 2}); }, "view_size_error");
}

TEST(week01_contiguous, ContiguousTensorIsReturnedItself) {
  const Tensor a = zeros({2, 3});
  EXPECT_TRUE(a.contiguous().is_same(a));
}

TEST(week01_contiguous, TransposeGetsARowMajorCopy) {
  const Tensor a = arange(6).view({2, 3});
  const Tensor c = a.t().contiguous();
  EXPECT_FALSE(c.is_alias_of(a));
  EXPECT_EQ(c.strides().vec(), (Shape{2, 1}));
  EXPECT_EQ(c.to_vector<std::int64_t>(), (std::vector<std::int64_t>{0, 3, 1, 4, 2, 5}));
}

TEST(week01_contiguous, ExpandedTensorGetsMaterialised) {
  const Tensor c = arange(3).view({3, 1}).expand({3, 2}).contiguous();
  EXPECT_EQ(c.strides().vec(), (Shape{2, 1}));
  EXPECT_EQ(c.to_vector<std::int64_t>(), (std::vector<std::int64_t>{0, 0, 1, 1, 2, 2}));
}

// PyTorch 1.13: torch.arange(6).as_strided((2, 1, 3), (3, 99, 1)).view(6) has stride (1,): a size-1
// dim's stride never moves the index, so it cannot break a chunk.
TEST(week01_view, ASizeOneDimWithAnyStrideStaysInsideItsChunk) {
  const Tensor odd = arange(6).as_strided({2, 1, 3}, {3, 99, 1});
  const Tensor flat = odd.view({6});
  EXPECT_EQ(flat.strides().vec(), (Shape{1}));
  EXPECT_EQ(flat.to_vector<std::int64_t>(), (std::vector<std::int64_t>{0, 1, 2, 3, 4, 5}));
}

TEST(week01_reshape, AViewableReshapeOfAnOffsetRowKeepsItsOffset) {
  const Tensor row = arange(12).view({3, 4})[1];  // storage offset 4
  const Tensor r = row.reshape({2, 2});
  EXPECT_TRUE(r.is_alias_of(row)) << "a contiguous row reshapes as a view";
  EXPECT_EQ(r.storage_offset(), 4);
  EXPECT_EQ(r.to_vector<std::int64_t>(), (std::vector<std::int64_t>{4, 5, 6, 7}));
}

TEST(week01_contiguous, SizeOneDimsWithOddStridesAndEmptyTensorsAreAlreadyContiguous) {
  const Tensor odd = arange(6).as_strided({2, 1, 3}, {3, 99, 1});
  EXPECT_TRUE(odd.contiguous().is_same(odd)) << "a size-1 dim's stride does not matter";
  const Tensor empty = zeros({0, 3}).t();
  EXPECT_TRUE(empty.contiguous().is_same(empty)) << "a tensor with no elements is contiguous";
}
