// Tasks week01.contiguous_strides, week01.is_contiguous and week01.strided_access:
// the stride arithmetic, tested as plain functions (no tensors needed).

#include <random>

#include "testing.hpp"

using namespace kindling;
using namespace kindling::testing;

TEST(week01_contiguous_strides, MatchPyTorchForEveryShapeInTheTable) {
  for (const auto& c : oracle_stride_cases("contiguous_strides"))
    EXPECT_EQ(contiguous_strides(c.sizes), c.strides) << "sizes " << to_string(c.sizes);
}

TEST(week01_contiguous_strides, LastDimHasStrideOneAndEachDimStepsOverTheRest) {
  EXPECT_EQ(contiguous_strides({2, 3, 4}), (Shape{12, 4, 1}));
  EXPECT_EQ(contiguous_strides({7}), (Shape{1}));
}

TEST(week01_contiguous_strides, EmptyDimsCountAsOne) { EXPECT_EQ(contiguous_strides({2, 0, 3}), (Shape{3, 3, 1})); }

TEST(week01_contiguous_strides, ZeroDimShapeHasNoStrides) { EXPECT_TRUE(contiguous_strides({}).empty()); }

TEST(week01_contiguous_strides, FactoriesUseThem) { EXPECT_EQ(zeros({4, 5, 6}).strides().vec(), (Shape{30, 6, 1})); }

TEST(week01_is_contiguous, MatchPyTorchForEveryLayoutInTheTable) {
  for (const auto& c : oracle_stride_cases("is_contiguous", "contiguous"))
    EXPECT_EQ(is_contiguous(c.sizes, c.strides), c.flag)
        << "sizes " << to_string(c.sizes) << " strides " << to_string(c.strides);
}

TEST(week01_is_contiguous, TransposeIsNotContiguous) {
  EXPECT_TRUE(is_contiguous({2, 3}, {3, 1}));
  EXPECT_FALSE(is_contiguous({3, 2}, {1, 3}));
}

TEST(week01_is_contiguous, SizeOneDimsIgnoreTheirStride) { EXPECT_TRUE(is_contiguous({2, 1, 3}, {3, 99, 1})); }

TEST(week01_is_contiguous, EmptyTensorIsContiguous) { EXPECT_TRUE(is_contiguous({0, 4}, {7, 7})); }

TEST(week01_is_contiguous, GapsAreNotContiguous) { EXPECT_FALSE(is_contiguous({2, 3}, {4, 1})); }

// Reference: a layout is contiguous iff visiting indices in row-major order visits
// offsets 0, 1, 2, ... (computed here by brute force, independent of the engine).
TEST(week01_is_contiguous, AgreesWithABruteForceWalkOnRandomLayouts) {
  std::mt19937 rng(1234);
  for (int trial = 0; trial < 300; ++trial) {
    const int nd = std::uniform_int_distribution<int>(0, 4)(rng);
    Shape sizes(nd), strides(nd);
    for (int d = 0; d < nd; ++d) {
      sizes[d] = std::uniform_int_distribution<int>(0, 3)(rng);
      strides[d] = std::uniform_int_distribution<int>(0, 12)(rng);
    }
    bool walk = true;
    const std::int64_t n = numel_of(sizes);
    for (std::int64_t flat = 0; flat < n && walk; ++flat) {
      std::int64_t rem = flat, offset = 0;
      for (int d = nd - 1; d >= 0; --d) {
        offset += (rem % sizes[d]) * strides[d];
        rem /= sizes[d];
      }
      walk = offset == flat;
    }
    EXPECT_EQ(is_contiguous(sizes, strides), walk) << "sizes " << to_string(sizes) << " strides " << to_string(strides);
  }
}

TEST(week01_strided_access, OffsetIsStorageOffsetPlusIndexDotStrides) {
  EXPECT_EQ(index_to_offset({1, 2}, {6, 2}, 5), 5 + 6 + 4);
  EXPECT_EQ(index_to_offset({}, {}, 3), 3);
}

TEST(week01_strided_access, FlatToIndexIsRowMajor) {
  EXPECT_EQ(flat_to_index(5, {2, 3}), (Shape{1, 2}));
  EXPECT_EQ(flat_to_index(0, {2, 3, 4}), (Shape{0, 0, 0}));
  EXPECT_EQ(flat_to_index(23, {2, 3, 4}), (Shape{1, 2, 3}));
}

TEST(week01_strided_access, FlatToIndexInvertsCounting) {
  const Shape sizes{3, 1, 4, 2};
  for (std::int64_t flat = 0; flat < numel_of(sizes); ++flat) {
    const Shape idx = flat_to_index(flat, sizes);
    EXPECT_EQ(index_to_offset(idx, contiguous_strides(sizes), 0), flat);
  }
}

TEST(week01_strided_access, AtReadsThroughStrides) {
  // g = arange(24).view(4, 6); element [2][3] of its transpose is g[3][2] = 20.
  const Tensor g = arange(24).view({4, 6});
  EXPECT_EQ(g.t().at<std::int64_t>({2, 3}), 20);
  EXPECT_EQ(g.slice(1, 1, 6, 2).at<std::int64_t>({3, 2}), 23);
}

TEST(week01_strided_access, AtRejectsBadIndices) {
  const Tensor g = zeros({2, 3});
  expect_error<IndexError>([&] { (void)g.at<float>({2, 0}); }, "index 2 is out of bounds for dimension 0 with size 2");
  expect_error<IndexError>([&] { (void)g.at<float>({0}); }, "expected an index of 2 dimensions, got 1");
}
