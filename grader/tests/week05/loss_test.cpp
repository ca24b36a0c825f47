// Week 5's losses against PyTorch 1.13 (tools/oracle/week05.py): every case's
// value and its gradient for the stored upstream gradient, and the taught errors.

#include <cmath>

#include <gtest/gtest.h>
#include <kindling/kindling.hpp>
#include <kindling/training.hpp>

#include "oracle_json.hpp"
#include "testing.hpp"

using namespace kindling;
using namespace kindling::testing;
namespace F = kindling::nn::functional;

namespace {

void expect_close(const Tensor& a, const Tensor& b) {
  EXPECT_TRUE(allclose(a.detach(), b.detach(), 1e-5, 1e-6)) << a << "\n" << b;
}

// Runs one "losses" case: the loss named by "fn" with its options, then backward
// with the stored gout; compares the value and the input's gradient.
void check_loss_case(const nlohmann::json& c) {
  SCOPED_TRACE(c.at("name").get<std::string>());
  const Tensor input = tensor_from_json(c.at("input")).requires_grad_();
  const Tensor target = tensor_from_json(c.at("target"));
  const Tensor weight = c.at("weight").is_null() ? Tensor() : tensor_from_json(c.at("weight"));
  const Tensor pos_weight = c.at("pos_weight").is_null() ? Tensor() : tensor_from_json(c.at("pos_weight"));
  const auto& o = c.at("options");
  const std::string fn = c.at("fn").get<std::string>();
  const std::string reduction = o.value("reduction", "mean");
  Tensor out;
  if (fn == "cross_entropy") {
    F::CrossEntropyOptions ce;
    ce.weight = weight;
    ce.reduction = reduction;
    ce.ignore_index = o.value("ignore_index", std::int64_t{-100});
    ce.label_smoothing = o.value("label_smoothing", 0.0);
    out = F::cross_entropy(input, target, ce);
  } else if (fn == "nll_loss") {
    out = F::nll_loss(input, target, weight, o.value("ignore_index", std::int64_t{-100}), reduction);
  } else if (fn == "mse_loss") {
    out = F::mse_loss(input, target, reduction);
  } else if (fn == "l1_loss") {
    out = F::l1_loss(input, target, reduction);
  } else if (fn == "smooth_l1_loss") {
    out = F::smooth_l1_loss(input, target, reduction, o.value("beta", 1.0));
  } else if (fn == "huber_loss") {
    out = F::huber_loss(input, target, reduction, o.value("delta", 1.0));
  } else if (fn == "binary_cross_entropy") {
    out = F::binary_cross_entropy(input, target, weight, reduction);
  } else if (fn == "binary_cross_entropy_with_logits") {
    out = F::binary_cross_entropy_with_logits(input, target, weight, reduction, pos_weight);
  } else {
    FAIL() << "unknown loss " << fn;
  }
  expect_values(out.detach(), values_from_json(c.at("out")), 1e-5, 1e-5);
  out.backward(tensor_from_json(c.at("gout")));
  ASSERT_TRUE(input.grad().defined());
  expect_values(input.grad(), values_from_json(c.at("grad")), 1e-5, 1e-6);
}

// Every "losses" case whose name starts with one of `prefixes`; at least one must.
void check_losses(std::initializer_list<const char*> prefixes) {
  int n = 0;
  for (const auto& c : oracle_json("losses")) {
    const std::string name = c.at("name").get<std::string>();
    for (const char* p : prefixes)
      if (name.rfind(p, 0) == 0) {
        check_loss_case(c);
        ++n;
        break;
      }
  }
  EXPECT_GT(n, 0) << "no oracle case matched";
}

}  // namespace

// ---- week05.one_hot_nll ----------------------------------------------------------------------------------------
TEST(week05_one_hot_nll, OneHotMatchesPyTorch) {
  for (const auto& c : oracle_json("one_hot")) {
    const Tensor out = F::one_hot(tensor_from_json(c.at("target")), c.at("num_classes").get<std::int64_t>());
    const Values want = values_from_json(c.at("out"));
    ASSERT_EQ(out.sizes().vec(), want.sizes);
    EXPECT_EQ(out.scalar_type(), kInt64);
    EXPECT_EQ(out.to_vector<double>(), want.values);
  }
}

TEST(week05_one_hot_nll, OneHotErrors) {
  const auto& e = oracle_json("one_hot_errors");
  expect_error_json([] { F::one_hot(tensor(std::vector<std::int64_t>{0, 3}), 3); }, e.at("too_small"));
  expect_error_json([] { F::one_hot(tensor(std::vector<std::int64_t>{-1, 0}), 3); }, e.at("negative"));
  expect_error<Error>([] { F::one_hot(tensor({0.0f, 1.0f}), 3); }, "one_hot is only applicable to index tensor.");
}

// torch.nn.functional.one_hot(torch.tensor([-1, 5]), 3) -> RuntimeError: Class values must be non-negative.
TEST(week05_one_hot_nll, ANegativeClassIsReportedBeforeATooLargeOne) {
  SCOPED_TRACE(
      "a target holding both a value below 0 and one >= num_classes: check the smallest value first, "
      "as PyTorch does");
  expect_error<Error>(
      [] {
        F::one_hot(tensor(std::vector<std::int64_t>{-1, 5}), 3);
      },
      "Class values must be non-negative.");
}

// F.one_hot(torch.tensor([[0, 1, 2], [2, 0, 1]]).t(), 3).tolist()
//   -> [[[1, 0, 0], [0, 0, 1]], [[0, 1, 0], [1, 0, 0]], [[0, 0, 1], [0, 1, 0]]]
TEST(week05_one_hot_nll, OneHotOfATransposedTargetFollowsItsStrides) {
  const Tensor target = tensor(std::vector<std::int64_t>{0, 1, 2, 2, 0, 1}).reshape({2, 3}).t();
  const Tensor out = F::one_hot(target, 3);
  ASSERT_EQ(out.sizes().vec(), (std::vector<std::int64_t>{3, 2, 3}));
  EXPECT_EQ(out.to_vector<std::int64_t>(),
            (std::vector<std::int64_t>{1, 0, 0, 0, 0, 1, 0, 1, 0, 1, 0, 0, 0, 0, 1, 0, 1, 0}))
      << "target[i][j] is at i * stride(0) + j * stride(1): read a non-contiguous target through its strides "
         "(or make it contiguous first), not as if its memory were in row-major order";
}

TEST(week05_one_hot_nll, NllLossValuesAndGradients) { check_losses({"nll_"}); }

// The shape mistakes PyTorch 1.13 reports (detail::check_nll_shapes), each in the words of its
// input's rank: a column of labels, a target for one example, a weight of the wrong length.
TEST(week05_one_hot_nll, NllLossShapeErrors) {
  const auto& e = oracle_json("nll_shape_errors");
  const auto longs = [](const Shape& s) { return zeros(s, TensorOptions(kInt64)); };
  const Tensor lp = zeros({3, 5});
  expect_error_json([&] { F::nll_loss(lp, longs({3, 1})); }, e.at("column_target"));
  expect_error_json([&] { F::nll_loss(zeros({5}), longs({1})); }, e.at("unbatched_target"));
  expect_error_json([&] { F::nll_loss(lp, longs({3}), ones({3})); }, e.at("weight_length"));
  expect_error_json([&] { F::nll_loss(zeros({3, 5, 4}), longs({3})); }, e.at("target_3d_input"));
  expect_error_json([&] { F::nll_loss(zeros({3, 5, 4, 2}), longs({3, 4})); }, e.at("target_4d_input_rank"));
  expect_error_json([&] { F::nll_loss(zeros({3, 5, 4, 2}), longs({3, 4, 3})); }, e.at("target_4d_input_size"));
  expect_error_json([&] { F::nll_loss(zeros({3, 5, 4}), longs({3, 4}), ones({2})); }, e.at("weight_3d_input"));
  // A column of labels with as many rows as classes used to broadcast to a loss without an error.
  expect_error_json([&] { F::nll_loss(zeros({3, 3}), longs({3, 1})); }, e.at("column_target"));
  // A spatial target's weight is checked before its sizes; a 1-D input with a 1-D target of its
  // length is a batch, not a mistake.
  expect_error_json(
      [&] {
        F::nll_loss(zeros({3, 5, 4, 2}), longs({3, 4, 3}), ones({2}));
      },
      e.at("weight_4d_before_size"));
  EXPECT_EQ(F::nll_loss(zeros({1}), longs({1})).item<double>(),
            oracle_json("nll_one_example_batch")["loss"].get<double>());
}

TEST(week05_one_hot_nll, NllLossErrors) {
  const auto& e = oracle_json("loss_errors");
  expect_error_json([] { F::nll_loss(zeros({2, 3}), tensor({0.0f, 1.0f})); }, e.at("nll_wrong_target_dtype"));
  expect_error_json(
      [] {
        F::nll_loss(zeros({3, 4}), tensor(std::vector<std::int64_t>{0, 1}));
      },
      e.at("ce_batch_mismatch"));
  expect_error_json(
      [] {
        F::nll_loss(zeros({2, 3}), tensor(std::vector<std::int64_t>{0, 3}));
      },
      e.at("ce_target_out_of_bounds"));
  // An ignored target may be out of range.
  const Tensor ok = F::nll_loss(zeros({2, 3}), tensor(std::vector<std::int64_t>{0, -100}));
  EXPECT_EQ(ok.item<float>(), 0.0f);
}

// ---- week05.cross_entropy --------------------------------------------------------------------------------------
TEST(week05_cross_entropy, StableLogSoftmaxIsFiniteForHugeLogits) {
  const Tensor x = tensor({{1e4f, -1e4f, 0.0f}, {-1e4f, 1e4f, 5.0f}}).requires_grad_();
  const Tensor y = F::stable_log_softmax(x, 1);
  for (double v : y.to_vector<double>()) EXPECT_TRUE(std::isfinite(v)) << v;
  const auto got = y.detach().to_vector<double>();
  EXPECT_NEAR(got[0], 0.0, 1e-6);
  EXPECT_NEAR(got[5], -9995.0, 1e-2);
  y.sum().backward();
  for (double v : x.grad().to_vector<double>()) EXPECT_TRUE(std::isfinite(v)) << v;
  // Ordinary logits: equal to the week-1 log_softmax.
  const Tensor z = tensor({{0.5f, -1.0f, 2.0f}, {3.0f, 0.0f, -2.0f}});
  expect_close(F::stable_log_softmax(z, 1), log_softmax(z, 1));
}

TEST(week05_cross_entropy, ClassIndexTargets) { check_losses({"ce_index_", "ce_unbatched_", "ce_spatial_"}); }
TEST(week05_cross_entropy, ClassProbabilityTargets) { check_losses({"ce_prob_"}); }
TEST(week05_cross_entropy, HugeLogitsStayFinite) { check_losses({"huge_ce_"}); }

TEST(week05_cross_entropy, GradcheckOfTheComposition) {
  const Tensor x =
      tensor({{0.3, -1.2, 0.8, 0.1}, {1.5, 0.2, -0.4, -2.0}, {0.0, 0.7, 0.2, -0.3}}, TensorOptions().dtype(kFloat64))
          .requires_grad_();
  const Tensor t = tensor(std::vector<std::int64_t>{2, 0, 3});
  F::CrossEntropyOptions o;
  o.label_smoothing = 0.2;
  EXPECT_TRUE(autograd::gradcheck([&](const TensorList& in) { return F::cross_entropy(in[0], t, o); }, {x}));
}

TEST(week05_cross_entropy, Errors) {
  const auto& e = oracle_json("loss_errors");
  expect_error_json(
      [] {
        F::cross_entropy(zeros({2, 3}), tensor(std::vector<std::int64_t>{0, 3}));
      },
      e.at("ce_target_out_of_bounds"));
  expect_error_json(
      [] {
        F::cross_entropy(zeros({3, 4}), tensor(std::vector<std::int64_t>{0, 1}));
      },
      e.at("ce_batch_mismatch"));
  const auto& s = oracle_json("nll_shape_errors");
  expect_error_json(
      [] {
        F::cross_entropy(zeros({3, 5}), zeros({3, 1}, TensorOptions(kInt64)));
      },
      s.at("ce_column_target"));
  expect_error_json(
      [] {
        F::cross_entropy(zeros({3, 5}), tensor(std::vector<std::int64_t>{1, 0, 2}),
                         F::CrossEntropyOptions{.weight = ones({3})});
      },
      s.at("ce_weight_length"));
  expect_error_json(
      [] { F::cross_entropy(zeros({5}), tensor(std::int64_t{1}), F::CrossEntropyOptions{.weight = ones({3})}); },
      s.at("ce_unbatched_weight_length"));
}

// ---- the other losses (given) -----------------------------------------------------------------------------------
TEST(EngineLosses, RegressionLosses) { check_losses({"mse_", "l1_", "smooth_l1_", "huber_"}); }
TEST(EngineLosses, BinaryCrossEntropy) { check_losses({"bce_", "huge_bce_"}); }

TEST(EngineLosses, BinaryCrossEntropyAtExactlyZeroAndOneHasPyTorchsFiniteGradient) {
  // PyTorch's gradient is (x - t) / max(x (1 - x), 1e-12): 0 where x equals t, even at 0 and 1.
  const Tensor x = tensor({0.0f, 1.0f, 0.5f}).requires_grad_();
  const Tensor t = tensor({0.0f, 1.0f, 1.0f});
  const Tensor loss = F::binary_cross_entropy(x, t);
  EXPECT_NEAR(loss.item<float>(), std::log(2.0) / 3, 1e-6);
  loss.backward();
  const auto g = x.grad().to_vector<float>();
  EXPECT_EQ(g[0], 0.0f);
  EXPECT_EQ(g[1], 0.0f);
  EXPECT_NEAR(g[2], -2.0 / 3, 1e-6);
}

TEST(EngineLosses, SizeErrors) {
  const auto& e = oracle_json("loss_errors");
  expect_error_json([] { F::binary_cross_entropy(full({2, 3}, 0.5), full({3, 2}, 0.5)); }, e.at("bce_target_size"));
  expect_error_json(
      [] {
        F::binary_cross_entropy_with_logits(zeros({2, 3}), zeros({3, 2}));
      },
      e.at("bce_with_logits_size"));
  expect_error<ValueError>([] { F::mse_loss(zeros({2}), zeros({2}), "average"); },
                           "average is not a valid value for reduction");
}

// The mistakes of a first binary classifier: logits where BCE wants probabilities, class labels
// (integers) where it wants float targets; and the smooth losses' bad thresholds.
TEST(EngineLosses, ValueAndDtypeErrors) {
  const auto& e = oracle_json("loss_errors");
  const Tensor labels = tensor(std::vector<std::int64_t>{1, 0});
  expect_error_json(
      [] {
        F::binary_cross_entropy(tensor({1.5f, -0.2f}), tensor({1.0f, 0.0f}));
      },
      e.at("bce_input_range"));
  expect_error_json([] { F::binary_cross_entropy(tensor({NAN, 0.2f}), tensor({1.0f, 0.0f})); }, e.at("bce_input_nan"));
  expect_error_json([&] { F::binary_cross_entropy(tensor({1.5f, -0.2f}), labels); }, e.at("bce_long_target"));
  expect_error_json(
      [] {
        F::binary_cross_entropy(tensor({0.5f, 0.5f}), tensor({1.0f, 0.0f}).to(kFloat64));
      },
      e.at("bce_double_target"));
  expect_error_json(
      [] {
        F::binary_cross_entropy_with_logits(tensor({0.5f, 0.5f}), tensor(std::vector<std::int64_t>{1, 1}));
      },
      e.at("bce_with_logits_long_target"));
  expect_error_json(
      [] {
        F::binary_cross_entropy_with_logits(tensor({0.5f, 0.5f}).to(kFloat64), tensor(std::vector<std::int32_t>{1, 1}));
      },
      e.at("bce_with_logits_int_target"));
  expect_error_json([] { F::smooth_l1_loss(ones({2}), zeros({2}), "mean", -1.0); }, e.at("smooth_l1_negative_beta"));
  expect_error_json([] { F::huber_loss(ones({2}), zeros({2}), "mean", 0.0); }, e.at("huber_zero_delta"));
  // At the edges the loss is still finite (each log clamped at -100), as in PyTorch.
  EXPECT_NEAR(F::binary_cross_entropy(tensor({0.0f, 1.0f}), tensor({1.0f, 0.0f})).item<float>(), 100.0f, 1e-4);
}

TEST(EngineLosses, ModulesPrintAndComputeLikeTheFunctions) {
  nn::CrossEntropyLoss ce;
  EXPECT_EQ(ce.repr(), "CrossEntropyLoss()");
  const Tensor x = tensor({{0.5f, -1.0f, 2.0f}, {3.0f, 0.0f, -2.0f}});
  const Tensor t = tensor(std::vector<std::int64_t>{2, 0});
  expect_close(ce(x, t), F::cross_entropy(x, t));
  nn::MSELoss mse("sum");
  expect_close(mse(x, zeros_like(x)), (x * x).sum());
  EXPECT_EQ(nn::BCEWithLogitsLoss().repr(), "BCEWithLogitsLoss()");
}

// F.nll_loss(torch.tensor([0.5, -1.0, 2.0]).log_softmax(0), torch.tensor(1), reduction='none').shape
// -> torch.Size([]): an unbatched input gives a 0-d loss, not a (1) one.
TEST(week05_one_hot_nll, AnUnbatchedInputWithReductionNoneGivesA0dLoss) {
  const Tensor logp = log_softmax(tensor({0.5f, -1.0f, 2.0f}), 0);
  const Tensor loss = F::nll_loss(logp, tensor(std::int64_t{1}), {}, -100, "none");
  EXPECT_EQ(loss.dim(), 0) << "an unbatched (C) input has no batch dim to keep: its 'none' loss is 0-d";
}

// F.cross_entropy(torch.zeros(2, 3), torch.zeros(2, 3, dtype=torch.long)) raises RuntimeError
// "Expected floating point type for target with class probabilities, got Long".
TEST(week05_cross_entropy, AnIntegerTargetOfTheInputsShapeIsRefused) {
  expect_error<Error>(
      [] {
        (void)F::cross_entropy(zeros({2, 3}), zeros({2, 3}, kInt64));
      },
      "Expected floating point type for target with class probabilities, got Long");
}
