// Task week01.empty_like: the *_like constructors keep their input's shape, dtype and
// memory layout (PyTorch's preserve_format), in new, uninitialised storage. The
// strides of 80 random views come from PyTorch 1.13 (tools/oracle/week01.py). No test
// reads the elements of an empty tensor: they are whatever the memory held.

#include "oracle_json.hpp"
#include "testing.hpp"

using namespace kindling;
using namespace kindling::testing;

namespace {
// A tensor with exactly this geometry, over a storage just large enough.
Tensor with_geometry(const Shape& sizes, const Shape& strides, std::int64_t offset) {
  std::int64_t extent = offset + 1;
  for (std::size_t d = 0; d < sizes.size(); ++d) extent += std::max<std::int64_t>(sizes[d] - 1, 0) * strides[d];
  return zeros({extent}).as_strided(sizes, strides, offset);
}
}  // namespace

TEST(week01_empty_like, StridesFollowPyTorchOnRandomViews) {
  for (const auto& c : oracle_json("empty_like_random")) {
    SCOPED_TRACE(c.dump());
    const Tensor x =
        with_geometry(c.at("sizes").get<Shape>(), c.at("strides").get<Shape>(), c.at("offset").get<std::int64_t>());
    const Tensor e = empty_like(x);
    EXPECT_EQ(e.sizes().vec(), x.sizes().vec());
    EXPECT_EQ(e.strides().vec(), c.at("like_strides").get<Shape>());
    EXPECT_EQ(e.storage_offset(), 0);
    EXPECT_EQ(e.dtype(), kFloat32);
    EXPECT_FALSE(e.is_alias_of(x));
  }
}

TEST(week01_empty_like, TransposeKeepsItsLayoutAndDtypeCanChange) {
  const auto& notes = oracle_json("empty_like_notes");
  const Tensor t = zeros({2, 3}).t();
  EXPECT_EQ(empty_like(t).strides().vec(), notes.at("strides").get<Shape>());
  const Tensor i = empty_like(t, kInt64);
  EXPECT_EQ(i.dtype(), kInt64);
  EXPECT_EQ(i.strides().vec(), notes.at("int64_strides").get<Shape>());
  EXPECT_EQ(empty_like(arange(3)).dtype(), kInt64);
}

TEST(week01_empty_like, StorageIsNewAndJustLargeEnough) {
  // Every element reachable, none shared: the storage holds exactly numel elements
  // when the result is dense, whatever gaps or stride-0 dims the input had.
  for (const Tensor& x : {zeros({4, 6}).slice(1, std::nullopt, std::nullopt, 2), zeros({3, 1}).expand({3, 4}),
                          zeros({2, 3, 4}).permute({2, 0, 1}), zeros({0, 3}), zeros({})}) {
    const Tensor e = empty_like(x, kFloat64);
    EXPECT_EQ(e.storage().nbytes(), static_cast<std::size_t>(x.numel()) * 8) << to_string(x.sizes());
    EXPECT_FALSE(e.is_alias_of(x));
  }
  // Writing into the result leaves the input alone.
  const Tensor x = arange(6, kFloat32).view({2, 3}).t();
  empty_like(x).fill_(7);
  EXPECT_EQ(x.sum().item<double>(), 15.0);
}

// PyTorch 1.13: torch.empty_like(torch.arange(6.).as_strided((3, 1, 2), (1, 99, 3))).stride() is
// (1, 99, 3): a dense layout keeps every stride as it is, a size-1 dim's odd one included.
TEST(week01_empty_like, ADenseNonContiguousLayoutKeepsEvenASizeOneDimsStride) {
  const Tensor t = arange(6, kFloat32).as_strided({3, 1, 2}, {1, 99, 3});
  EXPECT_EQ(empty_like(t).strides().vec(), (Shape{1, 99, 3}))
      << "t is dense (no gaps, no overlap) though not row-major: its strides are kept exactly";
}
