// Tasks week01.transpose, week01.squeeze, week01.expand and week01.slice, with
// property tests that compare every element against a plain index reference.

#include <functional>
#include <numeric>
#include <random>

#include "testing.hpp"

using namespace kindling;
using namespace kindling::testing;

namespace {
// Row-major flat index of `idx` in `sizes`: the value arange() put there.
std::int64_t flat_of(const Shape& idx, const Shape& sizes) {
  std::int64_t flat = 0;
  for (std::size_t d = 0; d < sizes.size(); ++d) flat = flat * sizes[d] + idx[d];
  return flat;
}

// Calls f(idx) for every index of `sizes`, in row-major order. `f` is called
// through std::function: with the test's lambda inlined here, GCC 13 reports a
// false -Wfree-nonheap-object on `idx` (the slice test's ASSERT returns early).
void for_each_index(const Shape& sizes, const std::function<void(const Shape&)>& f) {
  const std::int64_t n = numel_of(sizes);
  Shape idx(sizes.size(), 0);
  for (std::int64_t k = 0; k < n; ++k) {
    f(idx);
    for (std::size_t d = sizes.size(); d-- > 0;) {
      if (++idx[d] < sizes[d]) break;
      idx[d] = 0;
    }
  }
}

Shape random_shape(std::mt19937& rng, int max_dims = 4) {
  Shape s(std::uniform_int_distribution<int>(1, max_dims)(rng));
  for (auto& v : s) v = std::uniform_int_distribution<int>(1, 4)(rng);
  return s;
}
}  // namespace

TEST(week01_transpose, SwapsSizesAndStrides) {
  expect_geometry(zeros({2, 3, 4}).transpose(0, 2), oracle_geometry("transpose"));
  expect_geometry(zeros({2, 3, 4}).transpose(-1, 0), oracle_geometry("transpose"));
}

TEST(week01_transpose, PermuteReordersDims) {
  expect_geometry(zeros({2, 3, 4}).permute({2, 0, 1}), oracle_geometry("permute"));
}

TEST(week01_transpose, TOfAMatrix) { expect_geometry(zeros({2, 3}).t(), oracle_geometry("t")); }

TEST(week01_transpose, MovedimKeepsTheOthersInOrder) {
  expect_geometry(zeros({2, 3, 4}).movedim(0, -1), oracle_geometry("movedim"));
}

TEST(week01_transpose, NoDataMoves) {
  const Tensor a = arange(6).view({2, 3});
  const Tensor t = a.t();
  EXPECT_TRUE(t.is_alias_of(a));
  EXPECT_FALSE(t.is_contiguous());
  a.fill_(7);
  EXPECT_EQ(t.at<std::int64_t>({2, 1}), 7);
}

TEST(week01_transpose, TOfAVectorIsItsOwnView) {
  const Tensor v = arange(3);
  EXPECT_EQ(v.t().sizes().vec(), (Shape{3}));
  EXPECT_TRUE(v.t().is_alias_of(v));
}

TEST(week01_transpose, ErrorsHavePyTorchsMessages) {
  expect_oracle_error([] { (void)zeros({2, 3}).transpose(0, 2); }, "transpose_dim_error");
  expect_oracle_error([] { (void)zeros({2, 3}).permute({0, 1, 2}); }, "permute_count_error");
  expect_oracle_error([] { (void)zeros({2, 3}).permute({0, 0}); }, "permute_duplicate_error");
  expect_oracle_error([] { (void)zeros({2, 3, 4}).t(); }, "t_3d_error");
}

TEST(week01_transpose, RandomPermutationsMatchAnIndexReference) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 100; ++trial) {
    const Shape shape = random_shape(rng);
    Shape perm(shape.size());
    std::iota(perm.begin(), perm.end(), 0);
    std::shuffle(perm.begin(), perm.end(), rng);
    const Tensor p = arange(numel_of(shape)).view(shape).permute(perm);
    for_each_index(p.sizes().vec(), [&](const Shape& j) {
      Shape i(shape.size());
      for (std::size_t k = 0; k < perm.size(); ++k) i[perm[k]] = j[k];
      ASSERT_EQ(p.at<std::int64_t>(j), flat_of(i, shape))
          << "shape " << to_string(shape) << " perm " << to_string(perm);
    });
  }
}

TEST(week01_squeeze, SqueezeDropsEverySizeOneDim) {
  expect_geometry(zeros({2, 1, 3, 1}).squeeze(), oracle_geometry("squeeze_all"));
}

TEST(week01_squeeze, SqueezeDimDropsOnlyThatDim) {
  expect_geometry(zeros({2, 1, 3, 1}).squeeze(1), oracle_geometry("squeeze_dim"));
  expect_geometry(zeros({2, 1, 3, 1}).squeeze(0), oracle_geometry("squeeze_non_one"));
}

TEST(week01_squeeze, UnsqueezeInsertsASizeOneDim) {
  expect_geometry(zeros({2, 3}).unsqueeze(0), oracle_geometry("unsqueeze_front"));
  expect_geometry(zeros({2, 3}).unsqueeze(-1), oracle_geometry("unsqueeze_back"));
  expect_geometry(zeros({2, 3}).t().unsqueeze(1), oracle_geometry("unsqueeze_of_transpose"));
}

TEST(week01_squeeze, UnsqueezeOutOfRangeHasPyTorchsMessage) {
  expect_oracle_error([] { (void)zeros({2, 3}).unsqueeze(3); }, "unsqueeze_dim_error");
}

TEST(week01_squeeze, RoundTripSharesStorage) {
  const Tensor a = arange(6).view({2, 3});
  const Tensor r = a.unsqueeze(1).squeeze(1);
  EXPECT_TRUE(r.is_alias_of(a));
  EXPECT_EQ(r.sizes().vec(), a.sizes().vec());
  EXPECT_TRUE(a.unsqueeze(2).is_contiguous());
}

TEST(week01_expand, NewAndSizeOneDimsGetStrideZero) {
  expect_geometry(zeros({3, 1}).expand({2, 3, 4}), oracle_geometry("expand"));
  expect_geometry(zeros({3, 1}).expand({-1, 5}), oracle_geometry("expand_keep"));
}

TEST(week01_expand, ErrorsHavePyTorchsMessages) {
  expect_oracle_error([] { (void)zeros({2, 3}).expand({3}); }, "expand_count_error");
  expect_oracle_error([] { (void)zeros({3}).expand({2, 4}); }, "expand_mismatch_error");
  expect_oracle_error([] { (void)zeros({3}).expand({-1, 3}); }, "expand_leading_minus_one_error");
}

TEST(week01_expand, BroadcastShapesFollowsNumPy) {
  EXPECT_EQ(broadcast_shapes({2, 1, 3}, {4, 3}), (Shape{2, 4, 3}));
  EXPECT_EQ(broadcast_shapes({}, {5}), (Shape{5}));
  EXPECT_EQ(broadcast_shapes({0, 1}, {1, 3}), (Shape{0, 3}));
  expect_oracle_error([] { broadcast_shapes({2, 3}, {2, 2}); }, "broadcast_error");
}

TEST(week01_expand, OneStoredElementIsSeenManyTimes) {
  const Tensor col = arange(3).view({3, 1});
  const Tensor e = col.expand({3, 4});
  EXPECT_TRUE(e.is_alias_of(col));
  col.fill_(5);
  EXPECT_EQ(e.at<std::int64_t>({2, 3}), 5);
}

TEST(week01_expand, RandomExpandsMatchAnIndexReference) {
  std::mt19937 rng(11);
  for (int trial = 0; trial < 100; ++trial) {
    Shape shape = random_shape(rng, 3);
    for (auto& s : shape)
      if (rng() % 2) s = 1;
    Shape target;
    const int extra = static_cast<int>(rng() % 3);
    for (int i = 0; i < extra; ++i) target.push_back(1 + rng() % 3);
    for (auto s : shape) target.push_back(s == 1 ? 1 + static_cast<std::int64_t>(rng() % 4) : s);
    const Tensor e = arange(numel_of(shape)).view(shape).expand(target);
    for_each_index(target, [&](const Shape& j) {
      Shape i(shape.size());
      for (std::size_t d = 0; d < shape.size(); ++d) i[d] = shape[d] == 1 ? 0 : j[extra + d];
      ASSERT_EQ(e.at<std::int64_t>(j), flat_of(i, shape)) << to_string(shape) << " -> " << to_string(target);
    });
  }
}

TEST(week01_slice, StepAndRangeAsInPython) {
  const Tensor g = arange(24).view({4, 6});
  expect_geometry(g.slice(0, 1, 3).slice(1, std::nullopt, std::nullopt, 2), oracle_geometry("slice_step"));
  expect_geometry(g.slice(1, -2), oracle_geometry("slice_negative"));
  expect_geometry(g.slice(0, 5, 10), oracle_geometry("slice_past_end"));
}

TEST(week01_slice, NarrowAndSelect) {
  const Tensor g = arange(24).view({4, 6});
  expect_geometry(g.narrow(1, 2, 3), oracle_geometry("narrow"));
  expect_geometry(g.narrow(1, -2, 2), oracle_geometry("narrow_negative_start"));
  expect_geometry(g.select(1, 4), oracle_geometry("select"));
  expect_geometry(g[-1], oracle_geometry("select_negative"));
}

TEST(week01_slice, ErrorsHavePyTorchsMessages) {
  const Tensor g = arange(24).view({4, 6});
  expect_oracle_error([&] { (void)g.narrow(1, 3, 5); }, "narrow_length_error");
  expect_oracle_error([&] { (void)g.narrow(1, 7, 0); }, "narrow_start_error");
  expect_oracle_error([&] { (void)g.select(0, 5); }, "select_error");
  expect_oracle_error([&] { (void)g.slice(0, std::nullopt, std::nullopt, 0); }, "slice_step_error");
}

TEST(week01_slice, ChainedViewsReadTheRightElements) {
  // g.t()[1:5:2].permute(1, 0), compared with PyTorch's values.
  const Tensor g = arange(24).view({4, 6});
  expect_values(g.t().slice(0, 1, 5, 2).permute({1, 0}).contiguous(), oracle_values("elements_of_permuted_slice"));
}

TEST(week01_slice, RandomSlicesMatchAnIndexReference) {
  std::mt19937 rng(5);
  for (int trial = 0; trial < 100; ++trial) {
    const Shape shape = random_shape(rng);
    Tensor t = arange(numel_of(shape)).view(shape);
    Shape start(shape.size()), step(shape.size());
    for (std::size_t d = 0; d < shape.size(); ++d) {
      start[d] = static_cast<std::int64_t>(rng() % static_cast<unsigned>(shape[d]));
      step[d] = 1 + static_cast<std::int64_t>(rng() % 3);
      t = t.slice(static_cast<std::int64_t>(d), start[d], std::nullopt, step[d]);
    }
    for (std::size_t d = 0; d < shape.size(); ++d)  // Python: ceil((size - start) / step) elements
      ASSERT_EQ(t.size(static_cast<std::int64_t>(d)), (shape[d] - start[d] + step[d] - 1) / step[d])
          << "shape " << to_string(shape) << ", dim " << d << " sliced from " << start[d] << " by " << step[d];
    for_each_index(t.sizes().vec(), [&](const Shape& j) {
      Shape i(shape.size());
      for (std::size_t d = 0; d < shape.size(); ++d) i[d] = start[d] + j[d] * step[d];
      ASSERT_EQ(t.at<std::int64_t>(j), flat_of(i, shape)) << "shape " << to_string(shape);
    });
  }
}

// PyTorch 1.13: for a 1-d v, v.t() is not v but a view of it (v.t()._base is v).
TEST(week01_transpose, TOfAVectorIsANewViewNotTheSameTensor) {
  const Tensor v = arange(3);
  const Tensor t = v.t();
  EXPECT_FALSE(t.is_same(v));
  EXPECT_TRUE(t.is_view());
  const Tensor s = tensor(2.0);
  EXPECT_FALSE(s.t().is_same(s));
}

TEST(week01_squeeze, SqueezeOfAnOffsetSliceKeepsItsOffset) {
  const Tensor x = arange(12).view({3, 1, 4}).slice(0, 1, 2);  // sizes (1, 1, 4), offset 4
  const Tensor s = x.squeeze();
  EXPECT_EQ(s.sizes().vec(), (Shape{4}));
  EXPECT_EQ(s.storage_offset(), 4);
  EXPECT_EQ(s.to_vector<std::int64_t>(), (std::vector<std::int64_t>{4, 5, 6, 7}));
}

// PyTorch 1.13: torch.arange(5)[0:5:2] is tensor([0, 2, 4]); arange(5)[3:1] has shape (0,);
// arange(5).narrow(0, 5, 0) has shape (0,).
TEST(week01_slice, AStepThatDoesNotDivideTheSpanRoundsTheSizeUp) {
  const Tensor s = arange(5).slice(0, 0, 5, 2);
  EXPECT_EQ(s.sizes().vec(), (Shape{3}));
  EXPECT_EQ(s.to_vector<std::int64_t>(), (std::vector<std::int64_t>{0, 2, 4}));
  EXPECT_EQ(arange(10).slice(0, 1, 8, 3).sizes().vec(), (Shape{3})) << "1, 4, 7";
}

TEST(week01_slice, AnEndBeforeTheStartGivesAnEmptySlice) {
  const Tensor s = arange(5).slice(0, 3, 1);
  EXPECT_EQ(s.sizes().vec(), (Shape{0}));
  EXPECT_EQ(s.numel(), 0);
}

TEST(week01_slice, NarrowMayStartAtTheEndWithLengthZero) {
  const Tensor n = arange(5).narrow(0, 5, 0);
  EXPECT_EQ(n.sizes().vec(), (Shape{0}));
}
