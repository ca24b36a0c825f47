// Task week01.add_out: torch.add(a, b, out=out), the casts it allows and the data a
// cast loses. Expected values come from PyTorch 1.13 (tools/oracle/week01.py).

#include <kindling/grad_mode.hpp>

#include "oracle_json.hpp"
#include "testing.hpp"

using namespace kindling;
using namespace kindling::testing;

TEST(week01_add_out, MatchesPyTorchOnRandomCases) {
  // Broadcast operands, int64 or float32, into outs of every castable dtype that
  // start empty, too small, too large or right.
  for (const auto& c : oracle_json("add_out_random")) {
    SCOPED_TRACE(c.dump());
    const Tensor a = tensor_from_json(c.at("a")), b = tensor_from_json(c.at("b"));
    const Tensor out = zeros(c.at("out_sizes").get<Shape>(), oracle_dtype(c.at("out_dtype").get<std::string>()));
    const Tensor r = add_out(out, a, b, c.at("alpha").get<std::int64_t>());
    EXPECT_TRUE(r.is_same(out));
    expect_values(out, values_from_json(c.at("out")));
    EXPECT_TRUE(out.is_contiguous());
  }
}

TEST(week01_add_out, AnEmptyOutIsResizedAndReturnedItself) {
  const auto& expected = oracle_json("add_out_empty");
  const Tensor out = empty({0});
  const std::uint32_t before = out.version();
  const Tensor r = add_out(out, arange(6, kFloat32).view({2, 3}), ones({3}));
  EXPECT_EQ(r.is_same(out), expected.at("same").get<bool>());
  EXPECT_EQ(out.version() - before, expected.at("version_bump").get<std::uint32_t>());
  EXPECT_EQ(out.sizes().vec(), expected.at("sizes").get<Shape>());
  EXPECT_EQ(out.strides().vec(), expected.at("strides").get<Shape>());
  EXPECT_EQ(out.to_vector<float>(), (std::vector<float>{1, 2, 3, 4, 5, 6}));
}

TEST(week01_add_out, ResizingKeepsTheStorageWhenItIsLargeEnough) {
  const auto& expected = oracle_json("add_out_resize");
  const Tensor big = zeros({10});
  const void* p = big.data_ptr();
  add_out(big, arange(6, kFloat32).view({2, 3}), ones({3}));
  EXPECT_EQ(big.data_ptr() == p, expected.at("kept_big_enough").get<bool>());
  EXPECT_EQ(big.strides().vec(), expected.at("strides").get<Shape>());
  const Tensor small = zeros({5});
  const Tensor alias = small;  // another handle: it sees the resize too
  add_out(small, arange(6, kFloat32).view({2, 3}), ones({3}));
  EXPECT_EQ(small.data_ptr() == p, false);
  EXPECT_EQ(small.storage().nbytes() >= 6 * sizeof(float), true);
  EXPECT_EQ(alias.sizes().vec(), (Shape{2, 3}));
  EXPECT_EQ(alias.to_vector<float>(), (std::vector<float>{1, 2, 3, 4, 5, 6}));
  EXPECT_FALSE(expected.at("kept_too_small").get<bool>());
}

TEST(week01_add_out, AnOutOfTheRightShapeIsWrittenThroughItsStrides) {
  const auto& expected = oracle_json("add_out_strided");
  const Tensor base = zeros({3, 2});
  const Tensor out = base.t();
  add_out(out, arange(6, kFloat32).view({2, 3}), ones({3}));
  expect_values(out, values_from_json(expected.at("out")));
  EXPECT_EQ(out.strides().vec(), expected.at("strides").get<Shape>());
  EXPECT_EQ(base.to_vector<float>(), (std::vector<float>{1, 4, 2, 5, 3, 6}));  // written into base's memory
  // Out may overlap an operand: the sum is computed before out is written.
  const Tensor x = arange(4, kFloat32);
  add_out(x.slice(0, 1), x.slice(0, 0, 3), zeros({3}));
  EXPECT_EQ(x.to_vector<float>(), (std::vector<float>{0, 0, 1, 2}));
  add_out(x, x, x);
  EXPECT_EQ(x.to_vector<float>(), (std::vector<float>{0, 0, 2, 4}));
}

TEST(week01_add_out, CastsIntoOutLoseWhatTheOutCannotHold) {
  // int64 -> float32: above 2^24 not every integer is a float.
  const Tensor f = zeros({2});
  add_out(f, tensor(std::vector<std::int64_t>{(1 << 24) + 1, 3}), zeros({2}, kInt64));
  expect_values(f, oracle_values("add_out_int64_to_float32"), 0, 0);
  // bool + bool is a bool (true + true = true), then 1 in a uint8 out.
  const Tensor u = zeros({2}, kUInt8);
  add_out(u, tensor({true, false}), tensor({true, true}));
  expect_values(u, oracle_values("add_out_bool_to_uint8"));
  const Tensor d = zeros({2, 3}, kFloat64);
  add_out(d, arange(6, kFloat32).view({2, 3}), ones({3}));
  EXPECT_EQ(d.dtype(), kFloat64);
  EXPECT_EQ(d.to_vector<double>(), (std::vector<double>{1, 2, 3, 4, 5, 6}));
}

TEST(week01_add_out, ForbiddenCastsAndWritesHavePyTorchsMessages) {
  expect_oracle_error([] { add_out(zeros({2}, kInt64), ones({2}), ones({2})); }, "add_out_float_to_long_error");
  expect_oracle_error([] { add_out(zeros({2}, kBool), ones({2}, kInt64), ones({2}, kInt64)); },
                      "add_out_long_to_bool_error");
  expect_oracle_error(
      [] {
        add_out(zeros({3, 1}).expand({3, 2}), ones({3, 2}), ones({3, 2}));
      },
      "add_out_expanded_error");
  // An out that refused stays as it was.
  const Tensor out = zeros({2}, kInt64);
  EXPECT_THROW(add_out(out, ones({2}), ones({2})), Error);
  EXPECT_EQ(out.version(), 0u);
  EXPECT_EQ(out.sizes().vec(), (Shape{2}));
}

TEST(week01_add_out, OutArgumentsDoNotTakePartInAutograd) {
  const Tensor a = ones({2});
  a.requires_grad_();
  expect_oracle_error([&] { add_out(empty({0}), a, ones({2})); }, "add_out_autograd_error");
  AutoGradMode no_grad(false);  // what week 2's NoGradGuard does
  const Tensor out = empty({0});
  add_out(out, a, ones({2}));
  EXPECT_EQ(out.to_vector<float>(), (std::vector<float>{2, 2}));
}

// torch.add(ones(2, requires_grad=True), ones(2), out=zeros(2, dtype=long)) -> RuntimeError "add(): functions with
// out=... arguments don't support automatic differentiation, but one of the arguments requires grad."
TEST(week01_add_out, TheAutogradCheckComesBeforeTheCastCheck) {
  const Tensor a = ones({2});
  a.requires_grad_();
  SCOPED_TRACE("an add that both requires grad and cannot be cast must report the autograd error (step 1) first");
  expect_error<Error>([&] { add_out(zeros({2}, kInt64), a, ones({2})); },
                      "add(): functions with out=... arguments don't support automatic differentiation, but one of "
                      "the arguments requires grad.");
}

// torch.add(ones(2), ones(2), out=zeros(2, requires_grad=True)) -> RuntimeError "add(): functions with out=...
// arguments don't support automatic differentiation, but one of the arguments requires grad."
TEST(week01_add_out, AnOutThatRequiresGradIsRefusedToo) {
  const Tensor out = zeros({2});
  out.requires_grad_();
  expect_error<Error>([&] { add_out(out, ones({2}), ones({2})); },
                      "add(): functions with out=... arguments don't support automatic differentiation, but one of "
                      "the arguments requires grad.");
  EXPECT_EQ(out.to_vector<float>(), (std::vector<float>{0, 0}))
      << "out requiring grad counts as much as a or b requiring it: nothing may be written";
}

// base = zeros(10); out = base[2:4]; torch.add(arange(6.).view(2, 3), ones(3), out=out)
// -> out.storage_offset() == 2, base == [0, 0, 1, 2, 3, 4, 5, 6, 0, 0]
TEST(week01_add_out, AResizedOutKeepsItsStorageOffset) {
  const Tensor base = zeros({10});
  const Tensor out = base.slice(0, 2, 4);
  add_out(out, arange(6, kFloat32).view({2, 3}), ones({3}));
  EXPECT_EQ(out.sizes().vec(), (Shape{2, 3}));
  EXPECT_EQ(out.storage_offset(), 2) << "resize_ keeps out's storage offset; it does not reset it to 0";
  EXPECT_TRUE(out.is_alias_of(base)) << "offset 2 + 6 elements fit in the 10 of the storage: it must be kept";
  EXPECT_EQ(base.to_vector<float>(), (std::vector<float>{0, 0, 1, 2, 3, 4, 5, 6, 0, 0}))
      << "the sum must be written from out's storage offset on, leaving base[0:2] alone";
}
