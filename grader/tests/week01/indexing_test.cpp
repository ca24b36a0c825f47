// The given engine (not graded): Python's x[...] as LibTorch's x.index({...}) and
// x.index_put_({...}, v) (indexing.hpp), against PyTorch 1.13: basic indexing is a view with
// PyTorch's geometry, a tensor index is a copy, and the errors are PyTorch's.
#include <kindling/kindling.hpp>

#include <gtest/gtest.h>

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
  expect_oracle_error([&] { x.index({longs({3})}); }, "index_tensor_out_of_range");
  expect_oracle_error([&] { x.index({mask({1, 0})}); }, "index_mask_mismatch");
  expect_oracle_error([&] { x.index_put_({5}, 1.0); }, "index_out_of_range");
  EXPECT_THROW(x.index({"..", 0}), ValueError);
  EXPECT_THROW(x.index({x}), IndexError);  // a float tensor is no index
  // Two groups of tensor indices apart: PyTorch moves their dimensions to the front; here a clear refusal.
  EXPECT_THROW(x.index({longs({0}), Slice(), longs({1})}), Error);
}
