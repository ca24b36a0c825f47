// The engine's parallel kernels: large elementwise ops, copies, reductions and
// row-wise kernels give the same bits for any thread count, and agree with a plain
// loop. (Timings live in the benchmarks, never here.)

#include <cmath>
#include <functional>
#include <vector>

#include <gtest/gtest.h>
#include <kindling/kindling.hpp>

using namespace kindling;

namespace {

// Restores the thread count a test changed.
struct ThreadCount {
  int saved = get_num_threads();
  ~ThreadCount() { set_num_threads(saved); }
};

// f() computed with 1, 2, 3 and 4 threads: every result has the same bits.
void expect_same_for_any_thread_count(const std::function<std::vector<Tensor>()>& f) {
  ThreadCount restore;
  set_num_threads(1);
  const std::vector<Tensor> one = f();
  for (int threads : {2, 3, 4}) {
    set_num_threads(threads);
    const std::vector<Tensor> many = f();
    ASSERT_EQ(many.size(), one.size());
    for (std::size_t i = 0; i < one.size(); ++i) {
      ASSERT_EQ(many[i].sizes().vec(), one[i].sizes().vec()) << "result " << i;
      const Tensor a = one[i].to(kFloat64).contiguous(), b = many[i].to(kFloat64).contiguous();
      EXPECT_EQ(a.to_vector<double>(), b.to_vector<double>()) << "result " << i << " with " << threads << " threads";
    }
  }
}

// 1,058,841 elements: above every parallel threshold, and not a multiple of anything.
Tensor big() {
  Generator g(3);
  return randn({1029, 1029}, TensorOptions(), &g);
}

}  // namespace

TEST(EngineParallel, SetNumThreadsIsCheckedAndKept) {
#if !KINDLING_ENGINE_HAS_OPENMP
  GTEST_SKIP() << "the engine was built without OpenMP (the tsan preset turns it off, as libgomp is not "
                  "instrumented): it runs on one thread, and set_num_threads has no team to size";
#endif
  ThreadCount restore;
  set_num_threads(3);
  EXPECT_EQ(get_num_threads(), 3);
  EXPECT_THROW(set_num_threads(0), ValueError);
  EXPECT_EQ(get_num_threads(), 3);
}

TEST(EngineParallel, ReductionsAreTheSameForAnyThreadCount) {
  const Tensor x = big();
  expect_same_for_any_thread_count([&] {
    return std::vector<Tensor>{x.sum(),
                               x.t().sum(),
                               x.sum({0}),
                               x.sum({1}),
                               x.t().sum({0}),
                               x.mean(),
                               x.mean({0}),
                               x.max(),
                               x.min(),
                               std::get<0>(kindling::max(x, 1)),
                               std::get<1>(kindling::max(x, 1)),
                               std::get<1>(kindling::min(x.t(), 0)),
                               argmax(x, 0),
                               logsumexp(x, {1}),
                               softmax(x, 0),
                               log_softmax(x, 1),
                               prod(x * 1e-3 + 1)};
  });
}

TEST(EngineParallel, ReductionsAgreeWithAPlainLoop) {
  ThreadCount restore;
  set_num_threads(4);
  const Tensor x = big();
  const auto v = x.to_vector<float>();
  double total = 0, largest = -INFINITY;
  std::vector<double> col(1029, 0.0);
  for (std::size_t i = 0; i < v.size(); ++i) {
    total += v[i];
    largest = std::max<double>(largest, v[i]);
    col[i % 1029] += v[i];
  }
  EXPECT_NEAR(x.sum().item<float>(), total, 1e-6 * std::abs(total) + 1e-3);
  EXPECT_NEAR(x.t().sum().item<float>(), total, 1e-6 * std::abs(total) + 1e-3);
  EXPECT_EQ(x.max().item<float>(), static_cast<float>(largest));
  const auto sums = x.sum({0}).to_vector<float>();
  for (std::size_t j = 0; j < col.size(); ++j) ASSERT_NEAR(sums[j], col[j], 1e-4) << "column " << j;
}

TEST(EngineParallel, ElementwiseOpsAndCopiesAreTheSameForAnyThreadCount) {
  const Tensor x = big();
  const Tensor y = big().t();
  expect_same_for_any_thread_count([&] {
    return std::vector<Tensor>{x + y,     (x * 2 + 1).relu(), x.exp(), x.t().contiguous(),
                               x.clone(), x.to(kFloat64),     gt(x, y)};
  });
}

TEST(EngineParallel, ElementwiseOpsAgreeWithAPlainLoop) {
  ThreadCount restore;
  set_num_threads(4);
  const Tensor x = big(), y = big().t();
  const auto out = (x + y * 2).to_vector<float>();
  const auto xs = x.to_vector<float>(), ys = y.contiguous().to_vector<float>();
  for (std::size_t i = 0; i < out.size(); ++i) ASSERT_EQ(out[i], xs[i] + ys[i] * 2) << i;
  const auto t = x.t().contiguous().to_vector<float>();
  for (std::size_t i = 0; i < 1029; i += 97)
    for (std::size_t j = 0; j < 1029; j += 89) ASSERT_EQ(t[i * 1029 + j], xs[j * 1029 + i]);
}

TEST(EngineParallel, NaNStillWinsInAParallelMax) {
  ThreadCount restore;
  set_num_threads(4);
  Tensor x = big();
  x.view({-1}).narrow(0, 900000, 1).fill_(Scalar(NAN));
  EXPECT_TRUE(std::isnan(x.max().item<float>()));
  EXPECT_TRUE(std::isnan(x.sum().item<float>()));
}

// Mid-sized products (2^20 to 2^25 multiply-adds) are cut into column or row blocks,
// one per thread: every layout, with and without accumulation, must still agree with
// a plain loop, on 1 and on 3 threads.
TEST(EngineParallel, MatrixProductsCutIntoBlocksAgreeWithAPlainLoop) {
  ThreadCount restore;
  Generator g(5);
  struct Case {
    std::int64_t n, k, m;
  };
  for (const Case c : {Case{64, 784, 256}, Case{300, 120, 40}, Case{97, 333, 131}}) {
    const Tensor a = randn({c.n, c.k}, TensorOptions(), &g), b = randn({c.k, c.m}, TensorOptions(), &g);
    const Tensor bias = randn({c.n, c.m}, TensorOptions(), &g);
    const auto av = a.to_vector<float>(), bv = b.to_vector<float>(), biasv = bias.to_vector<float>();
    std::vector<double> want(static_cast<std::size_t>(c.n * c.m));
    for (std::int64_t i = 0; i < c.n; ++i)
      for (std::int64_t j = 0; j < c.m; ++j) {
        double s = 0;
        for (std::int64_t p = 0; p < c.k; ++p)
          s += static_cast<double>(av[static_cast<std::size_t>(i * c.k + p)]) *
               bv[static_cast<std::size_t>(p * c.m + j)];
        want[static_cast<std::size_t>(i * c.m + j)] = s;
      }
    for (int threads : {1, 3}) {
      set_num_threads(threads);
      const Tensor at = a.t().contiguous().t(), bt = b.t().contiguous().t();  // column-major operands
      const std::vector<std::pair<std::string, Tensor>> results = {
          {"mm", mm(a, b)},
          {"mm, column-major a", mm(at, b)},
          {"mm, column-major b", mm(a, bt)},
          {"mm, both column-major", mm(at, bt)},
          {"addmm beta 1 alpha 0.5", addmm(bias, a, b, 1, 0.5)}};
      for (const auto& [name, r] : results) {
        SCOPED_TRACE(name + ", " + std::to_string(threads) + " thread(s), " + std::to_string(c.n) + "x" +
                     std::to_string(c.k) + "x" + std::to_string(c.m));
        const auto got = r.contiguous().to_vector<float>();
        const bool add = name.rfind("addmm", 0) == 0;
        for (std::size_t i = 0; i < want.size(); ++i) {
          const double expect = add ? biasv[i] + 0.5 * want[i] : want[i];
          ASSERT_NEAR(got[i], expect, 1e-3 + 1e-4 * std::abs(expect)) << "element " << i;
        }
      }
    }
  }
}
