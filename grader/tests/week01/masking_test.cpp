// Task week01.masking: index_select, masked_select and masked_fill_ (the study notes'
// t[t > 3] and torch.index_select(x, 0, torch.LongTensor([0, 2]))). Every expected value
// comes from PyTorch 1.13 (tools/oracle/week01.py), most from seeded random cases.

#include "oracle_json.hpp"
#include "testing.hpp"

using namespace kindling;
using namespace kindling::testing;

namespace {
// The same values in another layout: a transposed copy, transposed back.
Tensor strided_copy(const Tensor& x) { return x.dim() < 2 ? x : x.transpose(0, -1).contiguous().transpose(0, -1); }
Tensor mask_from_json(const nlohmann::json& record) { return tensor_from_json(record).to(kBool); }
}  // namespace

TEST(week01_masking, IndexSelectMatchesPyTorchOnRandomCases) {
  for (const auto& c : oracle_json("index_select_random")) {
    SCOPED_TRACE(c.dump());
    const Tensor x = tensor_from_json(c.at("x"));
    const Tensor index =
        tensor(c.at("index").get<std::vector<std::int64_t>>(), c.at("int32").get<bool>() ? kInt32 : kInt64);
    const auto dim = c.at("dim").get<std::int64_t>();
    const Tensor out = index_select(x, dim, index);
    expect_values(out, values_from_json(c.at("out")));
    EXPECT_TRUE(out.is_contiguous());
    EXPECT_FALSE(out.is_alias_of(x));
    expect_values(index_select(strided_copy(x), dim, index), values_from_json(c.at("out")));
  }
}

TEST(week01_masking, IndexSelectOfTheNotes) {
  // torch.index_select(x, 0, torch.LongTensor([0, 2])) picks rows 0 and 2, copied.
  const Tensor x = arange(12).view({3, 4});
  const Tensor rows = index_select(x, 0, tensor({0, 2}));
  EXPECT_EQ(rows.to_vector<std::int64_t>(), (std::vector<std::int64_t>{0, 1, 2, 3, 8, 9, 10, 11}));
  rows.fill_(-1);
  EXPECT_EQ(x.at<std::int64_t>({0, 0}), 0);
  EXPECT_EQ(rows.version(), 1u);  // a fresh result starts at version 0; fill_ made it 1
  expect_values(index_select(tensor(2.5), 0, tensor({0})), values_from_json(oracle_json("index_select_scalar")));
}

TEST(week01_masking, IndexSelectErrorsAreExactlyPyTorchs) {
  for (const auto& c : oracle_json("index_select_errors")) {
    SCOPED_TRACE(c.dump());
    const Tensor x = zeros(c.at("sizes").get<Shape>());
    const Tensor index = tensor(c.at("index").get<std::vector<std::int64_t>>());
    expect_error_json([&] { (void)index_select(x, c.at("dim").get<std::int64_t>(), index); }, c.at("error"));
  }
  expect_oracle_error([] { (void)index_select(zeros({3}), 0, tensor({{0}})); }, "index_select_matrix_index_error");
  expect_oracle_error([] { (void)index_select(zeros({3}), 0, tensor({0.0})); }, "index_select_float_index_error");
}

TEST(week01_masking, MaskedSelectMatchesPyTorchOnRandomCases) {
  for (const auto& c : oracle_json("masked_select_random")) {
    SCOPED_TRACE(c.dump());
    const Tensor x = tensor_from_json(c.at("x"));
    const Tensor mask = mask_from_json(c.at("mask"));
    expect_values(masked_select(x, mask), values_from_json(c.at("out")));
    expect_values(masked_select(strided_copy(x), strided_copy(mask)), values_from_json(c.at("out")));
    expect_values(masked_select(x, mask.to(kUInt8)), values_from_json(c.at("out")));
  }
}

TEST(week01_masking, MaskedSelectReadsTheNotesExample) {
  // t[t > 3]: a 1-d copy of the elements that pass.
  const Tensor t = arange(6).view({2, 3});
  const Tensor picked = masked_select(t, gt(t, 3));
  EXPECT_EQ(picked.to_vector<std::int64_t>(), (std::vector<std::int64_t>{4, 5}));
  EXPECT_FALSE(picked.is_alias_of(t));
  expect_oracle_error([] { (void)masked_select(zeros({3, 4}), ones({2}, kBool)); }, "masked_select_shape_error");
  expect_oracle_error([] { (void)masked_select(zeros({3, 4}), zeros({3, 4})); }, "masked_select_dtype_error");
}

TEST(week01_masking, MaskedFillMatchesPyTorchOnRandomCases) {
  for (const auto& c : oracle_json("masked_fill_random")) {
    SCOPED_TRACE(c.dump());
    const Tensor mask = mask_from_json(c.at("mask"));
    const double value = c.at("value").get<double>();
    const Tensor x = tensor_from_json(c.at("x"));
    const Tensor r = masked_fill_(x, mask, value);
    expect_values(x, values_from_json(c.at("out")));
    // Through a non-contiguous view: the writes must land in the base's storage.
    const Tensor base = tensor_from_json(c.at("x"));
    const Tensor view = strided_copy(base);
    masked_fill_(view, mask, value);
    expect_values(view, values_from_json(c.at("out")));
    EXPECT_TRUE(r.is_same(x));
  }
}

TEST(week01_masking, MaskedWriteIsInPlaceAndReturnsTheSameTensor) {
  // t[t > 3] = 0 from the notes: the same tensor, changed, its version bumped once.
  const Tensor t = arange(6);
  const std::uint32_t before = t.version();
  const Tensor r = masked_fill_(t, gt(t, 3), 0);
  EXPECT_TRUE(r.is_same(t));
  EXPECT_EQ(t.version(), before + 1);
  expect_values(t, oracle_values("masked_write_notes"));
  // Through a strided view: only the view's elements of the base change.
  const Tensor base = arange(12).view({3, 4});
  masked_fill_(base.slice(1, 1, std::nullopt, 2), tensor({true, false}), -1);
  EXPECT_EQ(base.to_vector<std::int64_t>(), (std::vector<std::int64_t>{0, -1, 2, 3, 4, -1, 6, 7, 8, -1, 10, 11}));
  EXPECT_EQ(base.version(), 1u);  // a view shares its base's version counter
}

TEST(week01_masking, MaskedFillConvertsTheValueAndChecksShapes) {
  const Tensor i = arange(4);
  masked_fill_(i, tensor({true, false, true, false}), 2.5);
  expect_values(i, oracle_values("masked_fill_int_truncates"));
  expect_oracle_error([] { masked_fill_(zeros({3, 4}), ones({2}, kBool), 1.0); }, "masked_fill_broadcast_error");
  expect_oracle_error([] { masked_fill_(zeros({3, 4}), ones({2, 3, 4}, kBool), 1.0); }, "masked_fill_grow_error");
}

// PyTorch 1.13 checks the index's dims before its dtype: a 2-d float index gets IndexError
// "index_select(): Index is supposed to be a vector", not the dtype error.
TEST(week01_masking, IndexSelectChecksTheIndexsDimsBeforeItsDtype) {
  const Tensor x = arange(12, kFloat32).view({3, 4});
  expect_error<IndexError>(
      [&] {
        (void)index_select(x, 0, zeros({2, 2}));
      },
      "index_select(): Index is supposed to be a vector");
}
