// The given engine (not graded): Python's x[...] as LibTorch's x.index({...}) and
// x.index_put_({...}, v) (indexing.hpp), against PyTorch 1.13: basic indexing is a view with
// PyTorch's geometry, a tensor index is a copy, and the errors are PyTorch's.
#include <kindling/kindling.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

#include "testing.hpp"

using namespace kindling;
using namespace kindling::testing;
using namespace kindling::indexing;

namespace {
Tensor ix() { return arange(60, kFloat32).reshape({3, 4, 5}) / 7 - 1.5; }
Tensor longs(std::vector<std::int64_t> v) { return tensor(v); }
Tensor mask(std::vector<std::int64_t> v) { return ne(tensor(v), 0); }

void expect_index(const std::string& name, const Tensor& x, const Tensor& y) {
  SCOPED_TRACE(name);
  expect_values(y, oracle_values(name, "out"));
  const bool shares = oracle_bool(name, "shares");
  EXPECT_EQ(y.is_alias_of(x), shares);
  if (shares) expect_geometry(y, oracle_geometry(name));  // a view: PyTorch's sizes, strides and offset
}
}  // namespace

TEST(EngineIndexing, BasicIndexingIsAViewWithPyTorchsGeometry) {
  const Tensor x = ix();
  expect_index("index_basic", x, x.index({Slice(0, 2), None, Ellipsis, 1}));
  expect_index("index_negative", x, x.index({-1}));
  expect_index("index_step", x, x.index({Slice(), Slice(None, None, 2)}));
  expect_index("index_ellipsis", x, x.index({"...", 2}));
  expect_index("index_true", x, x.index({true}));
  expect_index("index_false", x, x.index({false}));
  expect_index("index_two_ellipses", x, x.index({Ellipsis, 0, Ellipsis}));
  // A write through the view reaches x.
  x.index({1, Slice(1, 3)}).fill_(100);
  EXPECT_EQ(x.at<float>({1, 2, 4}), 100.0F);
  EXPECT_NE(x.at<float>({1, 3, 4}), 100.0F);
}

TEST(EngineIndexing, TensorIndicesCopyLikePyTorch) {
  const Tensor x = ix();
  expect_index("index_long", x, x.index({longs({2, 0, 2})}));
  expect_index("index_long_2d", x, x.index({Slice(), longs({0, 1, 3, 3}).view({2, 2})}));
  expect_index("index_pair", x, x.index({longs({0, 2}), longs({1, 3})}));
  expect_index("index_negative_tensor", x, x.index({longs({-1, 0})}));
  expect_index("index_mask", x, x.index({gt(x, 0.5)}));
  expect_index("index_mask_partial", x, x.index({Slice(), mask({1, 0, 1, 1})}));
  expect_index("index_slice_then_tensor", x, x.index({Slice(1, None), longs({3, 0}), Slice(2, 4)}));
}

TEST(EngineIndexing, GradientsFlowBackThroughEveryIndexAndAccumulate) {
  const Tensor x = ix().requires_grad_();
  const Tensor y = x.index({longs({2, 0, 2}), Slice(1, 3)});
  expect_values(y.detach(), oracle_values("index_grad", "out"));
  y.backward(oracle_gout(y.sizes().vec()));
  expect_values(x.grad(), oracle_values("index_grad", "grad"));  // row 2 twice: its gradients add up
}

TEST(EngineIndexing, WritesMatchPyTorch) {
  auto put = [](const std::string& name, const std::function<void(const Tensor&)>& fn) {
    SCOPED_TRACE(name);
    const Tensor z = zeros({3, 4});
    fn(z);
    expect_values(z, oracle_values(name, "out"));
  };
  put("put_row", [](const Tensor& z) { z[1] = 5; });
  put("put_col", [](const Tensor& z) { z.index({Slice(), 2}) = tensor(std::vector<float>{1, 2, 3}); });
  put("put_mask", [](const Tensor& z) {
    z.index_put_({1, 1}, 2);
    z.index_put_({eq(z, 0)}, -1);
  });
  put("put_long", [](const Tensor& z) { z.index_put_({longs({0, 2})}, tensor(std::vector<float>{1, 2, 3, 4})); });
  put("put_pair", [](const Tensor& z) {
    z.index_put_({longs({0, 2}), longs({1, 3})}, tensor(std::vector<float>{7, 8}));
  });
  // Index dimensions after the first: the value lines up with what index() would return.
  put("put_col_pair", [](const Tensor& z) {
    z.index_put_({Slice(), longs({0, 2})}, tensor(std::vector<float>{1, 2, 3, 4, 5, 6}).view({3, 2}));
  });
  put("put_cols_broadcast", [](const Tensor& z) {
    z.index_put_({Slice(), longs({0, 2})}, tensor(std::vector<float>{7, 8}));
  });
  put("put_mask_cols", [](const Tensor& z) {
    z.index_put_({Slice(1, None), mask({1, 0, 1, 0})}, tensor(std::vector<float>{1, 2, 3, 4}).view({2, 2}));
  });
  expect_oracle_error([] { zeros({3, 3}).index_put_({longs({0})}, ones({5, 3})); }, "put_mismatch");
  // Assignment to a named tensor rebinds the name; only a temporary (an index) writes.
  Tensor a = zeros({2});
  const Tensor b = a;
  a = ones({2});
  EXPECT_EQ(b.sum().item<double>(), 0.0);
}

TEST(EngineIndexing, BadIndicesGetPyTorchsErrors) {
  const Tensor x = ix();
  expect_oracle_error([&] { x.index({0, 0, 0, 0}); }, "index_too_many");
  expect_oracle_error([&] { x.index({5}); }, "index_out_of_range");
  expect_oracle_error([&] { x.index({Slice(None, None, 0)}); }, "slice_step_zero_error");
  expect_oracle_error([&] { x.index({longs({3})}); }, "index_tensor_out_of_range");
  expect_oracle_error([&] { x.index({mask({1, 0})}); }, "index_mask_mismatch");
  expect_oracle_error([&] { x.index_put_({5}, 1.0); }, "index_out_of_range");
  EXPECT_THROW(x.index({"..", 0}), ValueError);
  EXPECT_THROW(x.index({x}), IndexError);  // a float tensor is no index
  expect_oracle_error([&] { x.index({tensor(std::vector<std::int32_t>{0})}); }, "index_int32_rejected");
  expect_index("index_bool_tensor_0d", x, x.index({ne(scalar_tensor(1), 0)}));  // a 0-d mask is Python's True
  // Two groups of tensor indices apart: PyTorch moves their dimensions to the front; here a clear refusal.
  EXPECT_THROW(x.index({longs({0}), Slice(), longs({1})}), Error);
}

TEST(EngineTensorMethods, ChannelsLastHasPyTorchsStrides) {
  const Tensor x = arange(120, kFloat32).reshape({2, 3, 4, 5});
  const Tensor y = x.contiguous(MemoryFormat::ChannelsLast);
  expect_geometry(y, oracle_geometry("channels_last"));
  expect_values(y, oracle_values("channels_last", "out"));
  EXPECT_EQ(y.is_contiguous(MemoryFormat::ChannelsLast), oracle_bool("channels_last", "is_cl"));
  EXPECT_EQ(x.is_contiguous(MemoryFormat::ChannelsLast), oracle_bool("channels_last", "plain_is_cl"));
  EXPECT_TRUE(y.contiguous(MemoryFormat::ChannelsLast).is_same(y));  // already so: itself
  expect_geometry(arange(6, kFloat32).reshape({1, 3, 1, 2}).contiguous(MemoryFormat::ChannelsLast),
                  oracle_geometry("channels_last_ones"));
  const Tensor z = x.to(kCPU, kFloat32, false, false, MemoryFormat::ChannelsLast);
  expect_geometry(z, oracle_geometry("channels_last"));
  EXPECT_FALSE(x.to(kCPU, kFloat32, false, /*copy=*/true).is_alias_of(x));
  EXPECT_THROW(zeros({2, 3}).contiguous(MemoryFormat::ChannelsLast), Error);
}

TEST(EngineTensorMethods, FlipNewZerosAllAnyMatchPyTorch) {
  const Tensor x = ix();
  expect_values(x.flip({0, 2}), oracle_values("flip", "out"));
  expect_values(x.flip({-1}), oracle_values("flip_last", "out"));
  EXPECT_FALSE(x.flip({0}).is_alias_of(x));
  EXPECT_THROW(x.flip({0, 0}), Error);
  expect_values(ones({2}, kFloat64).new_zeros({2, 3}), oracle_values("new_zeros", "out"));
  const Tensor ab = tensor(std::vector<std::int64_t>{1, 0, 2, 3, 4, 5}).view({2, 3});
  expect_values(ab.all(1), oracle_values("all_any_dim", "all1"));
  expect_values(ab.any(0), oracle_values("all_any_dim", "any0"));
  expect_values(ab.all(0, true), oracle_values("all_any_dim", "all0_keep"));
}

TEST(EngineTensorMethods, InPlaceShapeAndScalarForms) {
  Tensor a = arange(6, kFloat32).view({2, 3});
  const Tensor alias = a;
  a.unsqueeze_(0);
  EXPECT_EQ(alias.sizes().vec(), (Shape{1, 2, 3}));  // the tensor itself changed, not a new one
  a.squeeze_(0);
  EXPECT_EQ(a.sizes().vec(), (Shape{2, 3}));
  a.sub_(1).exp_();
  EXPECT_NEAR(a.at<float>({0, 0}), std::exp(-1.0F), 1e-6);
  EXPECT_THROW(ones({2}).requires_grad_().unsqueeze_(0), Error);             // a leaf that requires grad
  expect_values(arange(5).sub_(1), oracle_values("sub_scalar_int", "out"));  // stays int64
  expect_oracle_error([] { arange(3).exp_(); }, "exp_int");
  expect_values(scalar_tensor(5.0).flip({0}), oracle_values("flip_0d", "out"));
  EXPECT_EQ(Scalar(2.5).toLong(), 2);
  EXPECT_EQ(Scalar(std::int64_t{7}).toDouble(), 7.0);
  EXPECT_EQ(IntArrayRef(Shape{2, 3, 4}).slice(1).vec(), (Shape{3, 4}));
  EXPECT_THROW(IntArrayRef(Shape{2}).slice(2), std::out_of_range);
}

TEST(EngineTensorMethods, MultinomialDrawsWithTheGivenWeights) {
  manual_seed(11);
  const Tensor p = tensor(std::vector<float>{1, 0, 3});
  // With replacement: category 1 never comes; 2 comes about three times as often as 0.
  const std::vector<std::int64_t> draws = p.multinomial(4000, true).to_vector<std::int64_t>();
  std::int64_t counts[3] = {0, 0, 0};
  for (const std::int64_t d : draws) ++counts[d];
  EXPECT_EQ(counts[1], 0);
  EXPECT_NEAR(static_cast<double>(counts[2]) / 4000, 0.75, 0.03);
  // Without replacement: each index once, the zero-weight one last, one row per input row.
  const Tensor rows = tensor(std::vector<float>{1, 0, 3, 5, 1, 0}).view({2, 3}).multinomial(2);
  EXPECT_EQ(rows.sizes().vec(), (Shape{2, 2}));
  const auto r = rows.to_vector<std::int64_t>();
  EXPECT_NE(r[0], r[1]);
  EXPECT_NE(r[0], 1);
  EXPECT_NE(r[1], 1);
  EXPECT_NE(r[2], 2);
  EXPECT_NE(r[3], 2);
  expect_oracle_error([] { tensor(std::vector<float>{0.5F, 0.5F}).multinomial(3); }, "multinomial_too_many");
  expect_oracle_error([] { tensor(std::vector<float>{0.5F, -0.5F}).multinomial(1); }, "multinomial_negative");
  expect_oracle_error([] { tensor(std::vector<float>{0, 0}).multinomial(1); }, "multinomial_zero_sum");
  expect_oracle_error([] { ones({2, 2, 2}).multinomial(1); }, "multinomial_three_d");
}
