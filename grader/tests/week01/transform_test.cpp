// Tasks week01.transpose, week01.squeeze, week01.expand and week01.slice, with
// property tests that compare every element against a plain index reference.

#include <functional>
#include <numeric>
#include <random>

#include "oracle_json.hpp"
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

// ---- week01.slice and week01.squeeze: the rules a plausible wrong solution skips -------------------------
// Geometry and error texts from PyTorch 1.13 (tools/oracle/week01.py, the cases at its end).
namespace {
// The view that make() returns has PyTorch's geometry `expected`. `rule` says in words what the
// student got wrong when it does not, and comes with every failure (a throw included).
void expect_view(const std::function<Tensor()>& make, const Geometry& expected, const std::string& rule) {
  SCOPED_TRACE(rule);
  Tensor t;
  try {
    t = make();
  } catch (const NotImplemented&) {
    throw;
  } catch (const std::exception& e) {
    FAIL() << "threw \"" << e.what() << "\" instead of returning a view: " << rule;
  }
  expect_geometry(t, expected);
}

// A geometry record of a list case: {"sizes", "strides", "offset", ...}.
Geometry geometry_of(const nlohmann::json& c) {
  return {c.at("sizes").get<Shape>(), c.at("strides").get<Shape>(), c.at("offset").get<std::int64_t>()};
}
}  // namespace

// PyTorch 1.13: torch.arange(24).view(4, 6)[:, 1:-1] has sizes (4, 4), offset 1.
TEST(week01_slice, ANegativeEndCountsFromTheBackLikeANegativeStart) {
  const Tensor g = arange(24).view({4, 6});
  expect_view([&] { return g.slice(1, 1, -1); }, oracle_geometry("slice_negative_end"),
              "slice(1, 1, -1) is Python's g[:, 1:-1]: a negative end counts from the back (-1 means size - 1) "
              "exactly as a negative start does, before both are clamped into [0, size]");
}

// PyTorch 1.13: g[-10:] is all of g; g[:, -10:-3:2] has sizes (4, 2), strides (6, 2), offset 0.
TEST(week01_slice, AStartStillBeforeTheBeginningAfterWrappingIsClampedToZero) {
  const Tensor g = arange(24).view({4, 6});
  const std::string rule =
      "a start of -10 on a dim of size 4 is -6 after adding the size, still before the beginning: Python "
      "clamps it up to 0 (the slice starts at the first element); clamp both ends into [0, size] after wrapping, "
      "from below as well as from above";
  expect_view([&] { return g.slice(0, -10); }, oracle_geometry("slice_start_before_begin"), rule);
  expect_view([&] { return g.slice(1, -10, -3, 2); }, oracle_geometry("slice_before_begin_with_step"), rule);
}

// PyTorch 1.13: g[::-1] raises ValueError "step must be greater than zero".
TEST(week01_slice, ANegativeStepIsAValueError) {
  const Tensor g = arange(24).view({4, 6});
  SCOPED_TRACE(
      "PyTorch cannot slice backwards: a negative step is refused up front with the ValueError \"step must be "
      "greater than zero\" (a step of 0 has its own message)");
  expect_oracle_error([&] { (void)g.slice(0, std::nullopt, std::nullopt, -1); }, "slice_negative_step_error");
  expect_oracle_error([&] { (void)g.slice(1, 5, 1, -2); }, "slice_negative_step_error");
}

// PyTorch 1.13: g.narrow(1, 2, -1) and g.narrow(1, 0, -1) raise "start (S) + length (-1) exceeds dimension
// size (6).": a negative length is not an empty slice, nor a length counted from the end.
TEST(week01_slice, NarrowRefusesANegativeLength) {
  const Tensor g = arange(24).view({4, 6});
  SCOPED_TRACE(
      "narrow(dim, start, length) needs length >= 0: a negative length must raise PyTorch's \"start + length "
      "exceeds dimension size\" error, not return an empty slice or let slice() wrap start + length as a "
      "negative end");
  expect_oracle_error([&] { (void)g.narrow(1, 2, -1); }, "narrow_negative_length_error");
  expect_oracle_error([&] { (void)g.narrow(1, 0, -1); }, "narrow_negative_length_at_start_error");
}

// PyTorch 1.13: g.select(0, 4) and g[:2].select(0, 2) raise IndexError "select(): index I out of range ...".
TEST(week01_slice, SelectRefusesAnIndexEqualToTheSize) {
  const Tensor g = arange(24).view({4, 6});
  SCOPED_TRACE(
      "select(dim, index) accepts -size <= index < size: index == size is one past the last element and must "
      "raise select()'s IndexError, even when the storage behind a view has more rows there");
  expect_oracle_error([&] { (void)g.select(0, 4); }, "select_index_equal_to_size_error");
  expect_oracle_error([&] { (void)g.slice(0, 0, 2).select(0, 2); }, "select_past_end_of_a_slice_error");
}

// PyTorch 1.13: torch.tensor(1.).narrow(0, 0, 1) and .select(0, 0) raise "... cannot be applied to a 0-dim tensor.".
TEST(week01_slice, A0dTensorCannotBeNarrowedOrSelected) {
  SCOPED_TRACE(
      "a 0-d tensor has no dimension to narrow or select along: check dim() > 0 first, with PyTorch's "
      "messages, before wrap_dim (which accepts 0 and -1 for a 0-d tensor)");
  expect_oracle_error([] { (void)tensor(1.0).narrow(0, 0, 1); }, "narrow_0d_error");
  expect_oracle_error([] { (void)tensor(1.0).select(0, 0); }, "select_0d_error");
}

// PyTorch 1.13: zeros(2, 1, 3).squeeze(-2) is (2, 3), zeros(2, 3, 1).squeeze(-2) is unchanged, ...
TEST(week01_squeeze, ANegativeDimCountsFromTheLastDim) {
  for (const auto& c : oracle_json("squeeze_negative_dim")) {
    const Shape input = c.at("input").get<Shape>();
    const auto dim = c.at("dim").get<std::int64_t>();
    expect_view([&] { return zeros(input).squeeze(dim); }, geometry_of(c),
                "squeeze(" + std::to_string(dim) + ") of a tensor of sizes " + to_string(input) +
                    ": a negative dim counts back from the last of its dim() dims (-1 is the last), so wrap it "
                    "over dim(), not over dim() + 1 as unsqueeze does");
  }
}

// PyTorch 1.13: zeros(1, 1, 3).squeeze() is (3,); zeros(2, 1, 1, 3, 1, 1).squeeze() is (2, 3).
TEST(week01_squeeze, SqueezeDropsSizeOneDimsThatAreNeighbours) {
  for (const auto& c : oracle_json("squeeze_consecutive_ones")) {
    const Shape input = c.at("input").get<Shape>();
    SCOPED_TRACE("squeeze() of a tensor of sizes " + to_string(input) +
                 ": every size-1 dim goes, two in a row too; erasing a dim while the index walks forwards skips "
                 "the dim that slides into its place");
    const Tensor s = zeros(input).squeeze();
    EXPECT_EQ(s.sizes().vec(), c.at("sizes").get<Shape>());
    EXPECT_EQ(s.strides().vec(), c.at("strides").get<Shape>());
  }
}

// PyTorch 1.13: zeros(1, 1).squeeze() and zeros(1).squeeze() are 0-d: sizes (), strides ().
TEST(week01_squeeze, SqueezingOnlySizeOneDimsLeavesA0dTensor) {
  for (const auto& c : oracle_json("squeeze_all_ones")) {
    const Shape input = c.at("input").get<Shape>();
    SCOPED_TRACE("squeeze() of a tensor of sizes " + to_string(input) +
                 ": when every dim has size 1, all of them go and the result is a 0-d tensor holding the one "
                 "element (as in PyTorch and NumPy), not a tensor that keeps one dim of size 1");
    const Tensor s = arange(1).view(input).squeeze();
    EXPECT_EQ(s.sizes().vec(), c.at("sizes").get<Shape>());
    EXPECT_EQ(s.strides().vec(), c.at("strides").get<Shape>());
    EXPECT_EQ(s.dim(), 0);
    EXPECT_EQ(s.numel(), 1);
  }
}

// PyTorch 1.13: torch.tensor(2.).squeeze(0) and .squeeze(-1) are 0-d; .squeeze(1) is an IndexError.
TEST(week01_squeeze, A0dTensorAcceptsDim0AndMinus1Only) {
  for (const auto& c : oracle_json("squeeze_0d")) {
    const auto dim = c.at("dim").get<std::int64_t>();
    SCOPED_TRACE("squeeze(" + std::to_string(dim) +
                 ") of a 0-d tensor: like PyTorch, a 0-d tensor accepts dim 0 and -1 and stays 0-d (it has no "
                 "dim to drop)");
    const Tensor s = tensor(2.0).squeeze(dim);
    EXPECT_EQ(s.sizes().vec(), c.at("sizes").get<Shape>());
    EXPECT_EQ(s.item<double>(), 2.0);
  }
  SCOPED_TRACE("squeeze(1) of a 0-d tensor is out of range: wrap_dim's IndexError, as in PyTorch");
  expect_oracle_error([] { (void)tensor(2.0).squeeze(1); }, "squeeze_0d_dim_error");
}

// PyTorch 1.13: zeros(2, 1).squeeze(2) raises IndexError "Dimension out of range (expected to be in range of
// [-2, 1], but got 2)".
TEST(week01_squeeze, AnOutOfRangeDimIsAnIndexError) {
  SCOPED_TRACE("squeeze(dim) checks dim against the tensor's dim() with wrap_dim, which raises PyTorch's IndexError");
  expect_oracle_error([] { (void)zeros({2, 1}).squeeze(2); }, "squeeze_dim_out_of_range_error");
}

// PyTorch 1.13: for x = zeros(2, 3), x.squeeze(0) is not x, but a view of it (its _base is x), and so is
// x.squeeze(): squeeze with nothing to drop still returns a new view, as every view function does.
TEST(week01_squeeze, NothingToDropStillGivesANewView) {
  const auto& expected = oracle_json("squeeze_unchanged_is_a_new_view");
  const Tensor x = zeros({2, 3});
  const Tensor s = x.squeeze(0);
  EXPECT_EQ(s.is_same(x), expected.at("dim_is_same").get<bool>())
      << "squeeze(0) of a dim of size 2 returned the input tensor itself: PyTorch returns a new view with the "
         "same sizes (as_strided over the same storage), so that the result is a tensor of its own";
  EXPECT_EQ(s.is_view(), expected.at("dim_is_view").get<bool>())
      << "squeeze(0) with nothing to drop must still return a view of its input";
  EXPECT_TRUE(s.is_alias_of(x)) << "squeeze(0) must share its input's storage, not copy it";
  const Tensor a = x.squeeze();
  EXPECT_EQ(a.is_same(x), expected.at("all_is_same").get<bool>())
      << "squeeze() of a tensor without size-1 dims returned the input tensor itself: PyTorch returns a new view";
  EXPECT_EQ(a.is_view(), expected.at("all_is_view").get<bool>())
      << "squeeze() with nothing to drop must still return a view of its input";
}
