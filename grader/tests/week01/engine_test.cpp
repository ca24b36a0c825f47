// The given engine of week 1 (not a student task): values, dtypes, errors and
// printing compared with PyTorch 1.13's, read from data/oracle.json.

#include <cmath>
#include <sstream>
#include <thread>

#include "oracle_json.hpp"
#include "sanitizers.hpp"
#include "testing.hpp"

using namespace kindling;
using namespace kindling::testing;

namespace {
const std::vector<ScalarType> kDtypes{kBool, kUInt8, kInt32, kInt64, kFloat32, kFloat64};
}

TEST(EnginePromotion, TensorTensorMatchesPyTorch) {
  const auto table = oracle_dtype_table("promote_tensor_tensor");
  for (std::size_t i = 0; i < kDtypes.size(); ++i)
    for (std::size_t j = 0; j < kDtypes.size(); ++j)
      EXPECT_EQ(dtype_name((ones({2}, kDtypes[i]) + ones({2}, kDtypes[j])).dtype()), table[i][j])
          << dtype_name(kDtypes[i]) << " + " << dtype_name(kDtypes[j]);
}

TEST(EnginePromotion, ScalarsAndZeroDimTensorsOnlyRaiseTheCategory) {
  const auto with_int = oracle_dtype_table("promote_tensor_int")[0];
  const auto with_float = oracle_dtype_table("promote_tensor_float")[0];
  const auto zero_dim = oracle_dtype_table("promote_tensor_zero_dim");
  for (std::size_t i = 0; i < kDtypes.size(); ++i) {
    EXPECT_EQ(dtype_name((ones({2}, kDtypes[i]) * 2).dtype()), with_int[i]) << dtype_name(kDtypes[i]);
    EXPECT_EQ(dtype_name((ones({2}, kDtypes[i]) * 2.5).dtype()), with_float[i]) << dtype_name(kDtypes[i]);
    for (std::size_t j = 0; j < kDtypes.size(); ++j)
      EXPECT_EQ(dtype_name((ones({2}, kDtypes[i]) + ones({}, kDtypes[j])).dtype()), zero_dim[i][j])
          << dtype_name(kDtypes[i]) << " + 0-d " << dtype_name(kDtypes[j]);
  }
}

TEST(EnginePromotion, IntegerDivisionIsTrueDivision) {
  expect_values(tensor({1, 2, 3}) / 2, oracle_values("int_true_division"));
}

// A Scalar out of an integer tensor's range: true division and pow's check must see the
// Scalar's own value, not its value cast to uint8 or int32 (the engine wraps a Scalar in
// the op's dtype only when that dtype is floating).
TEST(EnginePromotion, ScalarOperandsKeepTheirValueBesideSmallInts) {
  const Tensor u8 = tensor(std::vector<std::uint8_t>{4, 9});
  expect_values(u8 / -2, oracle_values("scalar_u8_div_neg2"));
  expect_values(u8 / 256, oracle_values("scalar_u8_div_256"));
  expect_values(-1 / u8, oracle_values("scalar_neg1_div_u8"));
  expect_values(tensor(std::vector<std::int32_t>{4, 9}) / (std::int64_t{1} << 33), oracle_values("scalar_i32_div_big"));
  expect_values(u8 * 300, oracle_values("scalar_u8_mul_300"));
  expect_oracle_error([&] { (void)pow(u8, -1); }, "u8_negative_power_error");
  expect_oracle_error([] { (void)pow(tensor({4, 9}), -1); }, "i64_negative_power_error");
  expect_oracle_error([] { (void)pow(tensor({true}), -1); }, "bool_negative_power_error");
}

// Only a Scalar exponent is refused when it is a negative integer: a tensor of exponents (a 0-d
// one included) takes PyTorch's truncated reciprocals, 1 for 1, +-1 for -1, 0 for the rest.
TEST(EnginePromotion, IntegerTensorsToNegativeTensorPowersAreTruncatedAsInPyTorch) {
  const auto& c = oracle_json("int_pow_negative");
  const Tensor base = tensor({2, 1, -1, -1, 0, -2, 3, 5, 1, -1});
  const Tensor exps = tensor({-1, -1, -1, -2, -1, -2, -3, 0, -7, -7});
  expect_values(pow(base, exps), values_from_json(c.at("int64")));
  expect_values(pow(base.to(kInt32), exps.to(kInt32)), values_from_json(c.at("int32")));
  expect_values(pow(base, tensor(-1)), values_from_json(c.at("zero_dim_exponent")));
  expect_values(pow(tensor({2, 0, 1}).to(kUInt8), tensor(-1)), values_from_json(c.at("uint8_zero_dim")));
  expect_values(pow(full({}, 2, kInt64), exps), values_from_json(c.at("scalar_base")));
}

// Kernels with no bool version: PyTorch names its CPU kernel, after checking the arguments.
TEST(EnginePromotion, OpsWithNoBoolKernelRefuseBoolAsPyTorchDoes) {
  const auto& e = oracle_json("bool_kernel_errors");
  const Tensor flags = tensor({true, false});
  expect_error_json([&] { (void)abs(flags); }, e.at("abs"));
  expect_error_json([&] { (void)floor(flags); }, e.at("floor"));
  expect_error_json([&] { (void)ceil(flags); }, e.at("ceil"));
  expect_error_json([&] { (void)round(flags); }, e.at("round"));
  expect_error_json([&] { (void)pow(flags, flags); }, e.at("pow"));
  expect_error_json([&] { (void)pow(flags, true); }, e.at("pow_scalar"));
  expect_error_json([&] { (void)argmax(flags); }, e.at("argmax"));
  expect_error_json([] { (void)argmin(zeros({2, 3}, kBool), 1); }, e.at("argmin_dim"));
  expect_error_json([&] { (void)argmax(flags, 3); }, e.at("argmax_dim_first"));
  expect_error_json([] { (void)argmax(zeros({0, 3}, kBool), 0); }, e.at("argmax_empty_dim_first"));
}

// PyTorch runs no argmax kernel where a given dim has size 1 or the result is empty, so bool is
// accepted there; without a dim, keepdim keeps every dim (as size 1).
TEST(EnginePromotion, ArgmaxOfBoolWithoutAKernelAndKeepdimWithoutADim) {
  const auto& c = oracle_json("arg_extreme_no_kernel");
  expect_values(argmax(tensor({true}), 0), values_from_json(c.at("size_one_dim")));
  expect_values(argmin(tensor({{true}, {false}}), 1, true), values_from_json(c.at("size_one_dim_keep")));
  expect_values(argmax(zeros({3, 0}, kBool), 0), values_from_json(c.at("empty_result")));
  expect_error_json([] { (void)argmax(tensor(true), 0); }, c.at("zero_dim_bool"));
  expect_values(argmax(tensor({{1.0F, 5.0F, 2.0F}, {0.0F, 7.0F, 1.0F}}), std::nullopt, true),
                values_from_json(c.at("keepdim_no_dim")));
  expect_values(softmax(zeros({0, 3}, kInt64), 0), values_from_json(c.at("softmax_empty_int")));
  expect_values(log_softmax(zeros({0, 3}, kInt64), 1), values_from_json(c.at("log_softmax_empty_int")));
}

// pow(Tensor, Scalar) runs sqrt for the exponent 0.5 exactly, compared as a double: 0.50000001
// (0.5 once rounded to float32) is std::pow's, with its +0.0 and inf for -0.0 and -inf.
TEST(EngineMath, PowRunsSqrtOnlyForAnExponentOfExactlyOneHalf) {
  const auto& c = oracle_json("pow_near_special_exponents");
  const Tensor x = tensor({-0.0F, -INFINITY, 4.0F});
  const std::vector<std::pair<std::string, Tensor>> cases = {{"float32_above_half", pow(x, 0.50000001)},
                                                             {"float32_half", pow(x, 0.5)},
                                                             {"float64_half", pow(x.to(kFloat64), 0.5)},
                                                             {"float32_near_minus_half", pow(x, -0.49999999)}};
  for (const auto& [name, y] : cases) {
    SCOPED_TRACE(name);
    expect_values(y, values_from_json(c.at(name)));
    const auto& first = c.at(name).at("values").at(0);  // -0.0 or 0.0 (or "inf"): its sign counts
    if (first.is_number()) {
      EXPECT_EQ(std::signbit(y.to(kFloat64).to_vector<double>()[0]), std::signbit(first.get<double>()));
    }
  }
}

// relu is 0 only where x < 0: a NaN stays NaN (not a quiet 0) and -0.0 stays -0.0; abs(-0.0) is +0.0.
TEST(EngineMath, ReluAndAbsKeepNaNAndTheSignOfZeroAsPyTorch) {
  const auto& c = oracle_json("relu_abs_specials");
  const Tensor x = tensor({NAN, -0.0F, 0.0F, -1.0F, 2.0F});
  for (const char* op : {"relu", "abs"}) {
    SCOPED_TRACE(op);
    const Tensor y = std::string(op) == "relu" ? relu(x) : abs(x);
    expect_values(y, values_from_json(c.at(op)));
    const auto signs = c.at(std::string(op) + "_signbit").get<std::vector<bool>>();
    const auto got = y.to_vector<float>();
    for (std::size_t i = 0; i < signs.size(); ++i) EXPECT_EQ(std::signbit(got[i]), signs[i]) << "element " << i;
  }
  Tensor in_place = x.clone();
  relu_(in_place);
  EXPECT_TRUE(std::isnan(in_place.to_vector<float>()[0])) << "relu_ keeps a NaN too";
}

// A comparison with a Scalar is computed in result_type(tensor, scalar), without a
// wrapped 0-d tensor: the same values as PyTorch for out-of-range, fractional and big scalars.
TEST(EnginePromotion, ComparisonsWithAScalarMatchPyTorch) {
  const Tensor u8 = tensor(std::vector<std::uint8_t>{4, 9, 255});
  const Tensor i32 = tensor(std::vector<std::int32_t>{1, 2, 3});
  const Tensor i64 = tensor(std::vector<std::int64_t>{std::int64_t{1} << 53, (std::int64_t{1} << 53) + 1});
  const Tensor flags = tensor({true, false});
  expect_values(gt(u8, -1), oracle_values("compare_u8_gt_neg1"));
  expect_values(lt(u8, 256), oracle_values("compare_u8_lt_256"));
  expect_values(eq(u8, 255), oracle_values("compare_u8_eq_255"));
  expect_values(gt(i32, 2.5), oracle_values("compare_i32_gt_2p5"));
  expect_values(le(i32, 2), oracle_values("compare_i32_le_2"));
  expect_values(eq(tensor({0.1F, 0.2F}), 0.1), oracle_values("compare_f32_eq_0p1"));
  expect_values(ne(tensor({0.1, 0.2}), 0.1), oracle_values("compare_f64_ne_0p1"));
  expect_values(eq(flags, 1), oracle_values("compare_bool_eq_1"));
  expect_values(ge(flags, 0.5), oracle_values("compare_bool_ge_0p5"));
  expect_values(eq(i64, (std::int64_t{1} << 53) + 1), oracle_values("compare_i64_eq_big"));
  expect_values(gt(i64, 9007199254740992.0), oracle_values("compare_i64_gt_float"));
  expect_values(gt(tensor({NAN, 1.0F}), 0), oracle_values("compare_nan_gt_0"));
}

TEST(EngineInPlace, ErrorsMatchPyTorch) {
  expect_oracle_error([] { ones({3}, kInt64).add_(ones({3})); }, "inplace_cast_error");
  expect_oracle_error([] { ones({3}).add_(ones({2, 3})); }, "inplace_broadcast_error");
  expect_oracle_error([] { zeros({3, 1}).expand({3, 4}).add_(1); }, "expanded_write_error");
  expect_oracle_error([] { (void)(tensor({true}) - tensor({false})); }, "bool_sub_error");
  // One bool operand is refused too, a Scalar `true` included (it is not silently 1).
  expect_oracle_error([] { (void)(tensor({1.0F, 2.0F}) - true); }, "sub_bool_scalar_error");
  expect_oracle_error([] { (void)(true - tensor({1.0F, 2.0F})); }, "sub_scalar_bool_error");
  expect_oracle_error([] { (void)(tensor({1, 2}) - true); }, "sub_int_bool_scalar_error");
  expect_oracle_error([] { (void)(tensor({1.0F}) - tensor({true})); }, "sub_float_bool_tensor_error");
  expect_oracle_error([] { (void)(tensor({true}) - true); }, "sub_bool_bool_scalar_error");
}

TEST(EngineInPlace, WritesThroughViewsAndBumpsTheVersion) {
  const Tensor a = zeros({2, 3});
  const Tensor row = a.select(0, 1);
  const auto v0 = a.version();
  row.add_(ones({3}));
  EXPECT_EQ(a.to_vector<float>(), (std::vector<float>{0, 0, 0, 1, 1, 1}));
  EXPECT_GT(a.version(), v0);  // views share the counter
}

TEST(EngineInPlace, SelfOverlappingCopyIsSafe) {
  const Tensor a = arange(4).view({2, 2});
  a.copy_(a.t());
  EXPECT_EQ(a.to_vector<std::int64_t>(), (std::vector<std::int64_t>{0, 2, 1, 3}));
}

TEST(EngineMath, UnaryOpsMatchPyTorch) {
  const Tensor x = oracle_x();
  const std::vector<std::pair<std::string, Tensor>> ops{{"exp", exp(x)},         {"tanh", tanh(x)},
                                                        {"sigmoid", sigmoid(x)}, {"relu", relu(x)},
                                                        {"abs", abs(x)},         {"neg", -x},
                                                        {"floor", floor(x)},     {"ceil", ceil(x)},
                                                        {"round", round(x)},     {"sin", sin(x)},
                                                        {"cos", cos(x)},         {"square", square(x)},
                                                        {"sign", sign(x)},       {"log", log(abs(x) + 0.1)},
                                                        {"sqrt", sqrt(abs(x))}};
  for (const auto& [name, got] : ops) {
    SCOPED_TRACE(name);
    expect_values(got, oracle_values("unary_" + name));
  }
}

TEST(EngineMath, BroadcastingArithmeticMatchesPyTorch) {
  const Tensor x = oracle_x();
  expect_values(x * tensor({1.0, -2.0, 3.0, 0.5}) + x.slice(1, 0, 1) / 3 - x.mean(), oracle_values("binary_broadcast"));
  expect_values(pow(abs(x), 1.5), oracle_values("pow"));
  expect_values(maximum(x, index_select(x, 2, tensor({3, 2, 1, 0}))), oracle_values("maximum"));
  expect_values(clamp(x, -0.5, 0.75), oracle_values("clamp"));
  expect_values(gt(x, 0.1), oracle_values("compare"));
}

TEST(EngineReduce, SumsMeansAndProductsMatchPyTorch) {
  const Tensor x = oracle_x();
  expect_values(x.sum(), oracle_values("sum_all"));
  expect_values(x.sum({1}), oracle_values("sum_dim1"));
  expect_values(x.sum({0, 2}, true), oracle_values("sum_dims_keep"));
  expect_values(arange(10, kInt32).sum(), oracle_values("sum_int"));
  expect_values(x.transpose(0, 2).sum({0}), oracle_values("sum_transposed"));
  expect_values(x.mean({-1}), oracle_values("mean_dim"));
  expect_values(prod(x, 2), oracle_values("prod_dim"));
  expect_oracle_error([] { (void)arange(3).mean(); }, "mean_int_error");
}

// Whichever path a reduction takes (a small contiguous sum, a strided one, one over dims),
// its result is a tensor of its own: not a view, so detach_() works on it.
TEST(EngineReduce, ResultsAreNotViews) {
  const Tensor x = oracle_x();
  const std::vector<Tensor> results = {x.sum(),           x.transpose(0, 2).sum(),
                                       x.sum({1}),        x.sum({0, 2}, true),
                                       x.mean(),          x.mean({-1}),
                                       prod(x, 2),        x.max(),
                                       logsumexp(x, {1}), arange(10, kInt32).sum()};
  const auto& expected = oracle_json("reductions_are_not_views");
  ASSERT_EQ(expected.size(), results.size());
  for (std::size_t i = 0; i < results.size(); ++i) {
    EXPECT_EQ(results[i].is_view(), expected[i].get<bool>()) << "result " << i;
    EXPECT_NO_THROW(results[i].detach_()) << "result " << i;
  }
}

TEST(EngineReduce, MaxMinAndArgMatchPyTorch) {
  const Tensor x = oracle_x();
  auto [mv, mi] = max(x, 1);
  expect_values(mv, oracle_values("max_dim", "values"));
  expect_values(mi, oracle_values("max_dim", "indices"));
  auto [nv, ni] = min(x, 2, true);
  expect_values(nv, oracle_values("min_dim_keep", "values"));
  expect_values(ni, oracle_values("min_dim_keep", "indices"));
  expect_values(argmax(x), oracle_values("argmax_all"));
  expect_values(argmin(x, 0), oracle_values("argmin_dim"));
  expect_values(argmax(tensor({1.0, 3.0, 3.0, 2.0})), oracle_values("argmax_ties"));
  expect_oracle_error([] { (void)zeros({0}).max(); }, "max_empty_error");
}

TEST(EngineReduce, SoftmaxFamilyIsStableForLargeInputs) {
  const Tensor big = tensor({{1000.0, 1001.0, 1002.0}, {-1000.0, -1001.0, -1002.0}});
  expect_values(softmax(big, 1), oracle_values("softmax_large"));
  expect_values(log_softmax(big, 1), oracle_values("log_softmax_large"));
  expect_values(logsumexp(big, {1}), oracle_values("logsumexp_large"));
  const double inf = INFINITY;
  expect_values(logsumexp(tensor({{-inf, -inf}, {inf, 1.0}}), {1}), oracle_values("logsumexp_inf"));
  expect_values(softmax(oracle_x(), 0), oracle_values("softmax_dim0"));
  expect_values(log_softmax(oracle_x(), 1), oracle_values("log_softmax_dim1"));
}

TEST(EngineReduce, SoftmaxOfIntegersNamesPyTorchsKernel) {
  const Tensor l = zeros({2, 3}, kInt64);
  const auto& e = oracle_json("softmax_integer_errors");
  expect_error_json([&] { (void)softmax(l, -1); }, e.at("softmax_last"));
  expect_error_json([&] { (void)log_softmax(l, 1); }, e.at("log_softmax_last"));
  expect_error_json([&] { (void)softmax(l, 0); }, e.at("softmax_dim0"));
  expect_error_json([&] { (void)log_softmax(l, 0); }, e.at("log_softmax_dim0"));
  expect_error_json([&] { (void)log_softmax(tensor(1), 0); }, e.at("log_softmax_scalar"));
  expect_error_json([&] { (void)softmax(tensor({true}), 0); }, e.at("softmax_bool"));
  expect_error_json([&] { (void)softmax(l, 5); }, e.at("bad_dim_first"));
}

TEST(EngineLinalg, ProductsMatchPyTorch) {
  const Tensor x = oracle_x();
  const Tensor a = x[0], b = x[1].t();
  expect_values(mm(a, b), oracle_values("mm"));
  expect_values(mm(a.t(), a), oracle_values("mm_transposed_a"));
  expect_values(mv(a, x[1][0]), oracle_values("mv"));
  expect_values(dot(x[0][0], x[1][2]), oracle_values("dot"));
  expect_values(bmm(x, x.transpose(1, 2)), oracle_values("bmm"));
  expect_values(matmul(x.unsqueeze(1), x[0].t()), oracle_values("matmul_broadcast"));
  expect_values(matmul(x, x[0][0]), oracle_values("matmul_batched_vector"));
  expect_values(matmul(x[0][0], x[1].t()), oracle_values("matmul_vector_matrix"));
  expect_values(addmm(tensor({1.0, -1.0, 0.5}), a, b, 0.5, 2.0), oracle_values("addmm"));
  expect_values(mm(arange(6).view({2, 3}), arange(6).view({3, 2})), oracle_values("mm_int"));
}

TEST(EngineLinalg, ShapeAndDtypeErrorsMatchPyTorch) {
  expect_oracle_error([] { (void)mm(zeros({2, 3}), zeros({2, 3})); }, "mm_shape_error");
  expect_oracle_error([] { (void)mm(zeros({2, 2}), zeros({2, 2}, kFloat64)); }, "mm_dtype_error");
  expect_oracle_error([] { (void)bmm(ones({2, 2, 3}), ones({2, 3, 4}, kFloat64)); }, "bmm_dtype_error");
  // addmm compares its dtypes before its shapes, in words of its own; nn::Linear with a bias is
  // addmm(bias, x, W^T), so a float64 batch into a float32 layer reads "mat1 and mat2".
  expect_oracle_error(
      [] {
        (void)addmm(ones({2, 4}), ones({2, 3}), ones({3, 4}, kFloat64));
      },
      "addmm_self_dtype_error");
  expect_oracle_error([] { (void)addmm(ones({4}), ones({2, 3}, kFloat64), ones({3, 4})); }, "addmm_mat1_dtype_error");
  expect_oracle_error(
      [] {
        (void)addmm(ones({2, 4}), ones({2, 3}), ones({4, 4}, kFloat64));
      },
      "addmm_dtype_before_shape_error");
  expect_oracle_error(
      [] {
        (void)addmm(ones({4}), ones({5, 3}, kFloat64), ones({4, 3}).t());
      },
      "linear_double_input_error");
  expect_oracle_error([] { (void)addmm(ones({2, 4}), ones({3}), ones({3, 4})); }, "addmm_mat1_rank_error");
  expect_oracle_error(
      [] {
        (void)addmm(ones({2, 4}), ones({3}), ones({3, 4}, kFloat64));
      },
      "addmm_dtype_before_rank_error");
  expect_oracle_error([] { (void)dot(zeros({3}), zeros({2})); }, "dot_size_error");
  expect_oracle_error([] { (void)mv(zeros({2, 3}), zeros({2})); }, "mv_size_error");
  expect_oracle_error([] { (void)bmm(zeros({2, 3, 4}), zeros({2, 5, 6})); }, "bmm_size_error");
  expect_oracle_error([] { (void)matmul(zeros({2, 3, 4}), zeros({5, 6})); }, "matmul_nd_error");
}

TEST(EngineLinalg, LargeProductAgreesWithANaiveLoop) {
  // Big enough for Eigen's blocked, multi-threaded path; the reference is a double loop.
  const Tensor a = randn({67, 130}), b = randn({130, 45}).t().contiguous().t();
  const Tensor c = mm(a, b);
  const auto av = a.to_vector<double>(), bv = b.to_vector<double>(), cv = c.to_vector<double>();
  for (int i = 0; i < 67; ++i)
    for (int j = 0; j < 45; ++j) {
      double s = 0;
      for (int k = 0; k < 130; ++k) s += av[i * 130 + k] * bv[k * 45 + j];
      ASSERT_NEAR(cv[i * 45 + j], s, 1e-3) << i << "," << j;
    }
}

TEST(EngineJoin, CatStackSplitAndIndexingMatchPyTorch) {
  const Tensor x = oracle_x();
  expect_values(cat({x[0], x[1].slice(1, 0, 2)}, 1), oracle_values("cat_dim1"));
  expect_values(cat({arange(2), tensor({0.5})}), oracle_values("cat_promotes"));
  expect_oracle_error([] { (void)cat({zeros({2, 3}), zeros({3, 3})}, 1); }, "cat_size_error");
  expect_oracle_error([] { (void)cat({ones({2, 2}), ones({3}), tensor(2.0f)}); }, "cat_zero_dim_error");
  expect_oracle_error([] { (void)ones({2, 3}).flip({1, -1}); }, "flip_duplicate_error");
  expect_oracle_error([] { (void)relu(tensor(std::vector<bool>{true})); }, "relu_bool_error");
  expect_values(stack({x[0][0], x[1][1]}, 1), oracle_values("stack_dim1"));
  expect_oracle_error([] { (void)stack({zeros({2}), zeros({3})}); }, "stack_size_error");
  std::vector<Shape> chunks, splits;
  for (const auto& c : chunk(arange(10), 4)) chunks.push_back(c.sizes().vec());
  for (const auto& s : split(arange(10), 3)) splits.push_back(s.sizes().vec());
  EXPECT_EQ(chunks, oracle_shapes("chunk_sizes"));
  EXPECT_EQ(splits, oracle_shapes("split_sizes"));
  expect_oracle_error([] { (void)split(arange(4), std::vector<std::int64_t>{1, 2}); }, "split_with_sizes_error");
  expect_values(index_select(x, 2, tensor({3, 0, 3})), oracle_values("index_select"));
  expect_oracle_error([&] { (void)index_select(x, 1, tensor({3})); }, "index_select_error");
  expect_values(masked_select(x, gt(x, 0.5)), oracle_values("masked_select"));
  expect_values(masked_fill(x, gt(x.slice(2, 0, 1), 0), -1.0), oracle_values("masked_fill"));
  expect_values(where(gt(x, 0), x, tensor(0.25)), oracle_values("where"));
  expect_values(where(tensor({{2}, {0}}).to(kUInt8), x.select(0, 0).slice(0, 0, 2).slice(1, 0, 3), tensor(0.25)),
                oracle_values("where_uint8"));
  expect_oracle_error([] { (void)where(tensor({1, 0}).to(kInt32), zeros({2}), ones({2})); }, "where_int_error");
  expect_values(repeat(tensor({{1, 2}, {3, 4}}), {2, 1, 3}), oracle_values("repeat"));
  expect_oracle_error([] { (void)repeat(zeros({2, 3}), {2}); }, "repeat_error");
}

TEST(EngineJoin, EinsumMatchesPyTorch) {
  const Tensor x = oracle_x();
  const Tensor a = x[0], b = x[1].t();
  expect_values(einsum("ij,jk->ik", {a, b}), oracle_values("einsum_mm"));
  expect_values(einsum("bij,bkj->bik", {x, x}), oracle_values("einsum_bmm"));
  expect_values(einsum("ii->", {mm(a, b)}), oracle_values("einsum_trace"));
  expect_values(einsum("ii->i", {mm(a, b)}), oracle_values("einsum_diag"));
  expect_values(einsum("ij->ji", {a}), oracle_values("einsum_transpose"));
  expect_values(einsum("i,j->ij", {x[0][0], x[1][1]}), oracle_values("einsum_outer"));
  expect_values(einsum("bij->j", {x}), oracle_values("einsum_sum"));
  expect_values(einsum("ij,jk", {a, b}), oracle_values("einsum_implicit"));
  expect_oracle_error([] { (void)einsum("ij,kk->ik", {ones({2, 2}), ones({3, 2})}); }, "einsum_repeated_error");
}

TEST(EngineFactory, RangesAndListsMatchPyTorch) {
  expect_values(arange(0, 1, 0.25), oracle_values("arange_float"));
  expect_values(linspace(-1, 1, 5), oracle_values("linspace"));
  expect_values(full({2}, 7), oracle_values("full_int"));
  expect_values(tensor({{1, 2}, {3, 4}}), oracle_values("tensor_nested"));
  expect_values(tensor({1, 2.5}), oracle_values("tensor_mixed"));
  expect_oracle_error([] { (void)tensor({{1, 2}, {3}}); }, "tensor_ragged_error");
  expect_oracle_error([] { (void)zeros({2, -1}); }, "negative_size_error");
}

TEST(EngineFactory, SeededRandomnessIsReproducible) {
  Generator g1(42), g2(42);
  EXPECT_TRUE(equal(rand({100}, {}, &g1), rand({100}, {}, &g2)));
  manual_seed(3);
  const Tensor a = randn({50});
  manual_seed(3);
  EXPECT_TRUE(equal(a, randn({50})));
  const auto perm = randperm(20, {}, &g1).to_vector<std::int64_t>();
  std::vector<std::int64_t> sorted = perm;
  std::sort(sorted.begin(), sorted.end());
  for (std::int64_t i = 0; i < 20; ++i) EXPECT_EQ(sorted[i], i);
  expect_oracle_error([] { (void)randperm(-1); }, "randperm_negative_error");
  const Tensor u = rand({10000}, {}, &g1);
  EXPECT_GE(u.min().item<float>(), 0.0f);
  EXPECT_LT(u.max().item<float>(), 1.0f);
  EXPECT_NEAR(u.mean().item<float>(), 0.5f, 0.02f);
}

TEST(EngineFactory, FromBlobSharesTheCallersMemory) {
  std::vector<float> data{1, 2, 3, 4, 5, 6};
  bool freed = false;
  {
    const Tensor t = from_blob(data.data(), {2, 3}, kFloat32, [&](void*) { freed = true; });
    t.select(1, 0).fill_(0);
    EXPECT_EQ(t.t().at<float>({2, 1}), 6.0f);
  }
  EXPECT_TRUE(freed);
  EXPECT_EQ(data, (std::vector<float>{0, 2, 3, 0, 5, 6}));
}

TEST(EnginePrint, MatchesPyTorchsRepr) {
  const std::vector<std::pair<std::string, Tensor>> cases{
      {"ints_2x3", arange(6).view({2, 3})},
      {"floats_int_mode", arange(6, kFloat32).view({2, 3})},
      {"floats_fixed", oracle_x()[0]},
      {"floats_sci", tensor({1e-5, 1.0, 123456.0})},
      {"float64", tensor({0.5, 1.25}, kFloat64)},
      {"int32", tensor({1, -20}, kInt32)},
      {"bools", tensor({true, false})},
      {"scalar", tensor(3.5)},
      {"empty", zeros({0})},
      {"empty_2d_int", zeros({0, 3}, kInt64)},
      {"three_d", arange(8).view({2, 2, 2})},
      {"nan_inf", tensor({NAN, INFINITY, -1.0, 2.0})},
      {"long_row", arange(30, kFloat32) / 3},
      {"summarized", arange(2000).view({40, 50})},
      {"uint8_suffix_wrap", arange(20, kUInt8) * 11},
  };
  for (const auto& [name, t] : cases) EXPECT_EQ(to_string(t), oracle_string("print", name)) << name;
}

TEST(EngineErrors, UndefinedTensorAndBadDimsGetClearErrors) {
  expect_error<Error>([] { (void)Tensor().sizes(); }, "this tensor is undefined (default-constructed)");
  expect_oracle_error([] { (void)arange(24).view({4, 6}).size(2); }, "dim_out_of_range_error");
  expect_error<Error>([] { (void)zeros({2, 3}).data_ptr<double>(); }, "expected scalar type Double but found Float");
  expect_error<Error>([] { (void)zeros({2}).item<float>(); }, "a Tensor with 2 elements cannot be converted to Scalar");
}

TEST(EngineReduce, LargeFloatSumIsAccurate) {
  // 10^7 copies of 0.1f: a sequential float sum drifts to about 1087937; the
  // blocked sum must stay within float rounding of the exact 1000000.0149.
  const double exact = 1e7 * static_cast<double>(0.1f);
  EXPECT_NEAR(full({10'000'000}, 0.1f, kFloat32).sum().item<double>(), exact, exact * 1e-6);
  EXPECT_NEAR(full({10'000'000}, 0.1f, kFloat32).t().sum().item<double>(), exact, exact * 1e-6);
}

TEST(EngineReduce, TransposedAndStridedSumsAgreeWithContiguous) {
  const Tensor x = rand({37, 53});
  const double ref = x.contiguous().sum().item<double>();
  EXPECT_NEAR(x.t().sum().item<double>(), ref, 1e-3);
  EXPECT_NEAR(x.slice(1, 0, 53, 2).sum().item<double>() + x.slice(1, 1, 53, 2).sum().item<double>(), ref, 1e-3);
  EXPECT_TRUE(allclose(x.t().sum({0}), x.sum({1}), 1e-5, 1e-5));
}

TEST(EngineFactory, OnesAndZerosDefaultToFloat32) {
  EXPECT_EQ(ones({2}).dtype(), kFloat32);
  EXPECT_EQ(zeros({2}).dtype(), kFloat32);
  EXPECT_EQ(full({2}, 1).dtype(), kInt64);  // full follows its value, as in PyTorch
}

TEST(EngineCopy, TiledTransposeCopyMatchesElementByElement) {
  // Sizes that exercise full 64x64 tiles, partial tiles and the 8x8 register path.
  for (std::int64_t rows : {1, 7, 64, 130}) {
    for (std::int64_t cols : {1, 9, 64, 131}) {
      const Tensor x = arange(rows * cols, kFloat32).view({rows, cols});
      const Tensor y = x.t().contiguous();
      const auto v = y.to_vector<float>();
      for (std::int64_t i = 0; i < cols; ++i)
        for (std::int64_t j = 0; j < rows; ++j)
          ASSERT_EQ(v[i * rows + j], static_cast<float>(j * cols + i)) << rows << "x" << cols;
      const Tensor yi = arange(rows * cols, kInt32).view({rows, cols}).t().contiguous();
      EXPECT_TRUE(equal(yi, y.to(kInt32)));
    }
  }
}

TEST(EngineInPlace, ViewsOfViewsShareOneCounterEvenAfterTheBaseIsGone) {
  Tensor v;
  Tensor w;
  {
    const Tensor base = zeros({4, 4});
    v = base.select(0, 1);
    w = v.slice(0, 0, 2);  // a view of a view
  }
  const auto before = v.version();
  w.fill_(3);
  EXPECT_EQ(v.version(), before + 1);
  EXPECT_EQ(w.version(), v.version());
  EXPECT_EQ(v.to_vector<float>(), (std::vector<float>{3, 3, 0, 0}));
  const Tensor fresh = zeros({2});
  EXPECT_EQ(fresh.version(), 0u);
  EXPECT_EQ(fresh.clone().version(), 0u);  // a copy starts its own count
}

TEST(EngineThreads, ConcurrentViewsAndReadsOfOneTensor) {
  // Worker threads (week 4) take views of one shared dataset tensor at once.
  const Tensor data = arange(1000, kFloat32).view({100, 10});
  std::vector<std::thread> threads;
  std::vector<double> sums(4, 0.0);
  for (int k = 0; k < 4; ++k)
    threads.emplace_back([&, k] {
      for (int i = 0; i < 2000; ++i) sums[k] += data.select(0, i % 100).sum().item<double>();
    });
  for (auto& t : threads) t.join();
  double expected = 0;
  for (int i = 0; i < 2000; ++i) expected += 10 * (10 * (i % 100)) + 45;
  for (double s : sums) EXPECT_EQ(s, expected);
}

// Buffers of 256 KiB and more are recycled (Storage::allocate): the next tensor of the same size gets
// the freed buffer back, and a factory that promises values writes them over whatever the buffer held.
TEST(EngineStorage, LargeBuffersAreRecycledAndFactoriesOverwriteThem) {
  const std::int64_t n = 1 << 19;  // 2 MiB of float32
  const void* first = nullptr;
  {
    const Tensor a = full({n}, 7.0);
    first = a.data_ptr();
  }
  const Tensor z = zeros({n});
#if defined(KINDLING_ASAN)
  EXPECT_NE(z.data_ptr(), first);  // the cache is off under AddressSanitizer: a freed buffer stays poisoned
#else
  EXPECT_EQ(z.data_ptr(), first) << "the freed 2 MiB buffer was not reused";
#endif
  EXPECT_EQ(z.abs().max().item<float>(), 0.0f);
  const void* gradient = nullptr;  // the size of Linear(784, 256)'s weight gradient, 784 KiB
  { gradient = full({256, 784}, 1.0).data_ptr(); }
  const Tensor again = zeros({256, 784});
#if !defined(KINDLING_ASAN)
  EXPECT_EQ(again.data_ptr(), gradient) << "the freed 784 KiB buffer was not reused";
#endif
  EXPECT_EQ(again.abs().max().item<float>(), 0.0f);
  const Tensor small = full({16}, 3.0);  // below 256 KiB: an ordinary allocation
  EXPECT_EQ(small.sum().item<float>(), 48.0f);
}

TEST(EngineCasts, ConversionsLoseDataAsPyTorchDoes) {
  // Float to integer truncates toward zero; floats reach uint8 through int64 (so -1.5
  // wraps to 255); anything nonzero, NaN included, is true; int64 to float32 rounds.
  const auto& c = oracle_json("casts");
  expect_values(tensor({-2.7, 2.7, -0.5, 0.5}).to(kInt64), values_from_json(c.at("float_to_int64")));
  expect_values(tensor({-1.5, 300.7, 255.9}).to(kUInt8), values_from_json(c.at("float_to_uint8")));
  expect_values(tensor({0.0, -0.0, 0.1, NAN}).to(kBool), values_from_json(c.at("to_bool")));
  expect_values(tensor(std::vector<std::int64_t>{1 << 24, (1 << 24) + 1, (1 << 24) + 3}).to(kFloat32),
                values_from_json(c.at("int64_to_float32")), 0, 0);
}

// A sum or product of int64 that overflows wraps around, as PyTorch's does (two's complement),
// instead of the undefined behaviour of a signed overflow in C++ (found by fuzzing decode).
// PyTorch 1.13: torch.tensor([2**62] * 3).sum() -> -4611686018427387904,
// torch.tensor([2**62, 4]).prod() -> 0, an int32 sum promotes to int64.
TEST(EngineReductions, IntegerSumsAndProductsWrapAroundAsInPyTorch) {
  const std::int64_t big = std::int64_t{1} << 62;
  EXPECT_EQ(tensor(std::vector<std::int64_t>{big, big, big}).sum().item<std::int64_t>(), -4611686018427387904LL);
  EXPECT_EQ(tensor(std::vector<std::int64_t>(20, big)).sum().item<std::int64_t>(), 0);  // the 8-way loop too
  EXPECT_EQ(prod(tensor(std::vector<std::int64_t>{big, 4})).item<std::int64_t>(), 0);
  EXPECT_EQ(tensor(std::vector<std::int32_t>{2147483647, 5}).sum().item<std::int64_t>(), 2147483652LL);
}
