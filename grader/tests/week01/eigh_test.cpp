// Task week01.eigh: torch.linalg.eigh (eigenvalues ascending, orthonormal eigenvectors laid
// out column-major, only the lower triangle read) and f(A) = V diag(f(w)) V^T. 30 random
// batches and 12 matrix functions from PyTorch 1.13 (tools/oracle/week01.py). Eigenvectors
// are compared up to sign, as LAPACK's signs are arbitrary, and only for simple eigenvalues.

#include <cmath>

#include <kindling/eigh.hpp>

#include "oracle_json.hpp"
#include "testing.hpp"

using namespace kindling;
using namespace kindling::testing;

namespace {
double max_abs(const std::vector<double>& v) {
  double m = 0;
  for (double x : v) m = std::max(m, std::abs(x));
  return m;
}

// Checks A V = V diag(w) and V^T V = I for every matrix of the batch, with A symmetrised from
// its lower triangle; `a`, `w` and `v` are row-major values.
void expect_decomposition(const std::vector<double>& a, const std::vector<double>& w, const std::vector<double>& v,
                          std::int64_t n, double tol) {
  const std::int64_t batch = n == 0 ? 0 : static_cast<std::int64_t>(a.size()) / (n * n);
  for (std::int64_t b = 0; b < batch; ++b) {
    auto A = [&](std::int64_t i, std::int64_t j) { return a[b * n * n + std::max(i, j) * n + std::min(i, j)]; };
    auto V = [&](std::int64_t i, std::int64_t j) { return v[b * n * n + i * n + j]; };
    for (std::int64_t k = 0; k < n; ++k) {
      if (k > 0) {
        EXPECT_LE(w[b * n + k - 1], w[b * n + k]) << "eigenvalues ascend";
      }
      for (std::int64_t i = 0; i < n; ++i) {
        double av = 0;
        for (std::int64_t j = 0; j < n; ++j) av += A(i, j) * V(j, k);
        EXPECT_NEAR(av, w[b * n + k] * V(i, k), tol) << "(A v)[" << i << "] for eigenvalue " << k << ", matrix " << b;
      }
      for (std::int64_t l = 0; l < n; ++l) {
        double dot = 0;
        for (std::int64_t i = 0; i < n; ++i) dot += V(i, k) * V(i, l);
        EXPECT_NEAR(dot, k == l ? 1.0 : 0.0, tol) << "columns " << k << " and " << l << ", matrix " << b;
      }
    }
  }
}
}  // namespace

TEST(week01_eigh, MatchesPyTorchOnRandomBatches) {
  for (const auto& c : oracle_json("eigh_random")) {
    SCOPED_TRACE(c.at("a").at("sizes").dump() + " " + c.at("a").at("dtype").get<std::string>());
    const Tensor a = exact_tensor_from_json(c.at("a"));
    const std::int64_t n = a.size(-1);
    const EighResult r = eigh(a);
    const Tensor w_expected = exact_tensor_from_json(c.at("w")), v_expected = exact_tensor_from_json(c.at("v"));
    EXPECT_EQ(r.eigenvalues.dtype(), a.dtype());
    EXPECT_EQ(r.eigenvectors.dtype(), a.dtype());
    ASSERT_EQ(r.eigenvalues.sizes().vec(), w_expected.sizes().vec());
    ASSERT_EQ(r.eigenvectors.sizes().vec(), v_expected.sizes().vec());
    if (a.numel() == 0) continue;
    EXPECT_EQ(r.eigenvectors.strides().vec(), c.at("v_strides").get<Shape>()) << "LAPACK's column-major layout";
    EXPECT_EQ(r.eigenvalues.strides().vec(), c.at("w_strides").get<Shape>());
    const std::vector<double> w = r.eigenvalues.to_vector<double>(), we = w_expected.to_vector<double>();
    const std::vector<double> v = r.eigenvectors.to_vector<double>(), ve = v_expected.to_vector<double>();
    const double scale = 1.0 + max_abs(we);
    const double tol = (a.dtype() == kFloat64 ? 1e-10 : 2e-5) * scale;
    for (std::size_t i = 0; i < w.size(); ++i) EXPECT_NEAR(w[i], we[i], tol) << "eigenvalue " << i;
    // Each eigenvector against PyTorch's, up to sign, where the eigenvalue is simple.
    for (std::size_t b = 0; b * static_cast<std::size_t>(n) < w.size(); ++b) {
      for (std::int64_t k = 0; k < n; ++k) {
        const std::size_t wk = b * n + k;
        const bool simple =
            (k == 0 || we[wk] - we[wk - 1] > 1e-3 * scale) && (k == n - 1 || we[wk + 1] - we[wk] > 1e-3 * scale);
        if (!simple) continue;
        double dot = 0;
        for (std::int64_t i = 0; i < n; ++i) dot += v[b * n * n + i * n + k] * ve[b * n * n + i * n + k];
        const double sign = dot < 0 ? -1.0 : 1.0;
        for (std::int64_t i = 0; i < n; ++i) {
          EXPECT_NEAR(v[b * n * n + i * n + k], sign * ve[b * n * n + i * n + k], a.dtype() == kFloat64 ? 1e-7 : 2e-3)
              << "eigenvector " << k << " of matrix " << b << ", row " << i;
        }
      }
    }
    expect_decomposition(a.to_vector<double>(), w, v, n, a.dtype() == kFloat64 ? 1e-9 * scale : 1e-4 * scale);
  }
}

TEST(week01_eigh, ReadsOnlyTheLowerTriangle) {
  // [[2, 1], [5, 3]] is read as [[2, 5], [5, 3]]: eigenvalues (5 -+ sqrt(101)) / 2.
  const std::vector<double> expected =
      oracle_json("eigh_lower_triangle").at("w").at("values").get<std::vector<double>>();
  const std::vector<double> w = eigh(tensor({{2.0F, 1.0F}, {5.0F, 3.0F}})).eigenvalues.to_vector<double>();
  ASSERT_EQ(w.size(), 2U);
  EXPECT_NEAR(w[0], expected[0], 1e-5);
  EXPECT_NEAR(w[1], expected[1], 1e-5);
  const Tensor upper_garbage = tensor({{1.0, 1e9, -7.0}, {2.0, 4.0, 1e300}, {0.5, -3.0, 6.0}});
  const Tensor mirrored = tensor({{1.0, 2.0, 0.5}, {2.0, 4.0, -3.0}, {0.5, -3.0, 6.0}});
  const std::vector<double> a = eigh(upper_garbage).eigenvalues.to_vector<double>();
  const std::vector<double> b = eigh(mirrored).eigenvalues.to_vector<double>();
  for (std::size_t i = 0; i < 3; ++i) EXPECT_NEAR(a[i], b[i], 1e-12);
}

TEST(week01_eigh, AnyInputLayoutAndALargerMatrix) {
  // A transposed view of a symmetric matrix is the same matrix; n = 30 needs several sweeps.
  Generator g(61);
  const Tensor r = randn({30, 30}, kFloat64, &g);
  const Tensor sym = r + r.t();
  const EighResult e = eigh(sym.t());
  expect_decomposition(sym.contiguous().to_vector<double>(), e.eigenvalues.to_vector<double>(),
                       e.eigenvectors.to_vector<double>(), 30, 1e-9 * 30);
  // The trace is the sum of the eigenvalues.
  double trace = 0;
  const std::vector<double> s = sym.contiguous().to_vector<double>();
  for (std::int64_t i = 0; i < 30; ++i) trace += s[i * 31];
  EXPECT_NEAR(e.eigenvalues.sum().item<double>(), trace, 1e-9);
}

TEST(week01_eigh, RaisesPyTorchsErrors) {
  expect_oracle_error([] { (void)eigh(zeros({3})); }, "eigh_1d_error");
  expect_oracle_error([] { (void)eigh(zeros({2, 3})); }, "eigh_square_error");
  expect_oracle_error([] { (void)eigh(zeros({2, 2}, kInt64)); }, "eigh_long_error");
  expect_oracle_error([] { (void)eigh(zeros({2, 2}, kBool)); }, "eigh_bool_error");
  expect_error<Error>(
      [] {
        (void)eigh(zeros({4, 3, 2}));
      },
      "linalg.eigh: A must be batches of square matrices, but they are 3 by 2 matrices");
  expect_oracle_error(
      [] {
        (void)matrix_function(zeros({2, 3}), [](const Tensor& w) { return exp(w); });
      },
      "eigh_square_error");
}

TEST(week01_eigh, MatrixFunctionsMatchPyTorch) {
  for (const auto& c : oracle_json("matrix_function_random")) {
    SCOPED_TRACE(c.at("a").dump());
    const Tensor a = exact_tensor_from_json(c.at("a"));  // lower triangle: a positive definite matrix; upper: noise
    auto check = [&](const char* field, const std::function<Tensor(const Tensor&)>& f) {
      const Tensor got = matrix_function(a, f);
      const Tensor expected = exact_tensor_from_json(c.at(field));
      ASSERT_EQ(got.sizes().vec(), expected.sizes().vec()) << field;
      const std::vector<double> g = got.to_vector<double>(), e = expected.to_vector<double>();
      const double tol = 1e-9 * (1.0 + max_abs(e));
      for (std::size_t i = 0; i < g.size(); ++i) EXPECT_NEAR(g[i], e[i], tol) << field << " element " << i;
    };
    check("exp", [](const Tensor& w) { return exp(w); });          // torch.matrix_exp
    check("square", [](const Tensor& w) { return pow(w, 2); });    // A @ A
    check("cube", [](const Tensor& w) { return pow(w, 3); });      // torch.linalg.matrix_power(A, 3)
    check("inverse", [](const Tensor& w) { return pow(w, -1); });  // torch.linalg.inv
    check("sqrt", [](const Tensor& w) { return pow(w, 0.5); });    // S with S @ S = A
    check("log", [](const Tensor& w) { return log(w); });          // exp's inverse
  }
}

TEST(week01_eigh, AFunctionOfANegativeEigenvalueIsNaN) {
  // diag(-1, 4): log(-1) is NaN, so the log of the matrix is NaN too (PyTorch's log gives NaN).
  const Tensor m = matrix_function(tensor({{-1.0, 0.0}, {0.0, 4.0}}), [](const Tensor& w) { return log(w); });
  EXPECT_TRUE(std::isnan(m.to_vector<double>()[0]));
  const Tensor s = matrix_function(tensor({{4.0, 0.0}, {0.0, 9.0}}), [](const Tensor& w) { return pow(w, 0.5); });
  const std::vector<double> root = s.to_vector<double>(), expected = {2.0, 0.0, 0.0, 3.0};
  for (std::size_t i = 0; i < 4; ++i) EXPECT_NEAR(root[i], expected[i], 1e-12);
}
