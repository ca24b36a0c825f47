// Task week01.lossy_casts: type_as returns x itself when nothing changes, and
// count_lossy counts what a round trip through a dtype loses. 60 random cases over the
// six dtypes from PyTorch 1.13 (tools/oracle/week01.py).

#include <cstdint>

#include <kindling/casts.hpp>

#include "oracle_json.hpp"
#include "testing.hpp"

using namespace kindling;
using namespace kindling::testing;

namespace {
using I64 = std::vector<std::int64_t>;
}  // namespace

TEST(week01_lossy_casts, CountsWhatARoundTripLosesAsPyTorch) {
  for (const auto& c : oracle_json("lossy_casts_random")) {
    SCOPED_TRACE(c.dump());
    const Tensor x = exact_tensor_from_json(c.at("x"));
    const ScalarType to = oracle_dtype(c.at("to").get<std::string>());
    EXPECT_EQ(count_lossy(x, to), c.at("lossy").get<std::int64_t>());
    // The loss seen from the other side: what x holds in `to` (exact, no tolerance).
    const Tensor through = x.to(to), expected = exact_tensor_from_json(c.at("through"));
    EXPECT_EQ(through.dtype(), expected.dtype());
    if (x.numel() > 0) {
      EXPECT_TRUE(equal(through, expected));
    }
  }
}

TEST(week01_lossy_casts, TheTextbookLosses) {
  EXPECT_EQ(count_lossy(tensor(I64{16777216, 16777217}), kFloat32), 1);   // 2^24 + 1 has no float32
  EXPECT_EQ(count_lossy(tensor({1.5, -1.5, 2.0}), kInt64), 2);            // truncation toward zero
  EXPECT_EQ(count_lossy(tensor(I64{-1, 255, 256}), kUInt8), 2);           // wraps modulo 256
  EXPECT_EQ(count_lossy(tensor(I64{0, 1, 2}), kBool), 1);                 // 2 -> true -> 1
  EXPECT_EQ(count_lossy(tensor(std::vector<double>{0.1}), kFloat32), 1);  // 0.1 has more digits than float32 keeps
  EXPECT_EQ(count_lossy(tensor(std::vector<double>{0.5, 0.25}), kFloat32), 0);  // powers of two are exact
  EXPECT_EQ(count_lossy(zeros({0, 3}), kUInt8), 0);
  // Any layout: a transposed view of [[1.5, 2], [3, 4.5]] loses the same two elements.
  EXPECT_EQ(count_lossy(tensor({{1.5F, 2.0F}, {3.0F, 4.5F}}).t(), kInt32), 2);
}

TEST(week01_lossy_casts, TypeAsReturnsXItselfWhenTheDtypeMatches) {
  EXPECT_TRUE(oracle_json("type_as_same_dtype_is_self").get<bool>());  // PyTorch: x.type_as(y) is x
  const Tensor x = ones({3});
  const Tensor same = type_as(x, zeros({7, 2}));  // only the dtype of other matters
  EXPECT_TRUE(same.is_same(x));
  same.fill_(2.0);
  EXPECT_EQ(x.to_vector<float>(), (std::vector<float>{2, 2, 2}));
}

TEST(week01_lossy_casts, TypeAsCopiesIntoAnotherDtype) {
  EXPECT_TRUE(oracle_json("type_as_other_dtype_copies").get<bool>());
  const Tensor x = tensor({1.75F, -2.5F});
  const Tensor d = type_as(x, zeros({1}, kFloat64));
  EXPECT_EQ(d.dtype(), kFloat64);
  EXPECT_FALSE(d.is_alias_of(x));
  const Tensor i = type_as(x, tensor(I64{0}));
  EXPECT_EQ(i.dtype(), kInt64);
  EXPECT_EQ(i.to_vector<std::int64_t>(), (std::vector<std::int64_t>{1, -2}));
  d.fill_(0.0);
  EXPECT_EQ(x.to_vector<float>(), (std::vector<float>{1.75F, -2.5F}));
}

// x = arange(6.).view(2, 3).t(); r = x.type_as(zeros(1)) -> r is x: True, r.stride() == (1, 3)
TEST(week01_lossy_casts, TypeAsKeepsANonContiguousXAsItIs) {
  const Tensor x = arange(6, kFloat32).view({2, 3}).t();
  const Tensor same = type_as(x, zeros({1}));
  EXPECT_TRUE(same.is_same(x)) << "a non-contiguous x of the right dtype must come back itself, not a copy";
  EXPECT_EQ(same.strides().vec(), (Shape{1, 3})) << "type_as must not make x contiguous";
}
