// The engine's parallel kernels: large elementwise ops, copies, reductions and
// row-wise kernels give the same bits for any thread count, and agree with a plain
// loop. (Timings live in the benchmarks, never here.)

#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <functional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <kindling/functional.hpp>
#include <kindling/kindling.hpp>

#include "sanitizers.hpp"
#include "testing.hpp"

using namespace kindling;
using kindling::testing::expect_oracle_error;

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
  expect_oracle_error([] { set_num_threads(0); }, "set_num_threads_error");
  expect_oracle_error([] { set_num_threads(-2); }, "set_num_threads_error");
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
  // In double, two orders of additions rarely round alike (a float sum is added up in double,
  // which hides them, and so would floats turned into doubles): along dim 0 each column is added
  // row after row, whether the columns are shared among threads or not; a dim too short to share
  // out (3 columns) cuts the rows into pieces fixed by the size.
  Generator g(4);
  const Tensor xd = randn({1029, 1029}, TensorOptions().dtype(kFloat64), &g), narrow = xd.reshape({-1, 3});
  expect_same_for_any_thread_count([&] {
    return std::vector<Tensor>{xd.sum(), xd.sum({0}), xd.t().sum({1}), xd.sum({1}), narrow.sum({0}), narrow.sum({1})};
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

// A product cut along k adds its slices in an order fixed by the shape: the same bits for any
// thread count (a product too large to share its packings, cut into output blocks, may differ in
// its last bits, parallel.hpp).
TEST(EngineParallel, ProductsCutAlongKAreTheSameForAnyThreadCount) {
  Generator g(8);
  const Tensor a = randn({24, 6000}, TensorOptions(), &g), b = randn({6000, 40}, TensorOptions(), &g);
  const Tensor bias = randn({24, 40}, TensorOptions(), &g);
  expect_same_for_any_thread_count([&] {
    return std::vector<Tensor>{mm(a, b), mm(a.t().contiguous().t(), b), addmm(bias, a, b, 1, 0.5)};
  });
#if KINDLING_ENGINE_HAS_OPENMP
  // And it is cut along k: 6 slices, so 4 threads of 4 (the output alone would give 1).
  ThreadCount restore;
  set_num_threads(4);
  record_parallel_use(true);
  (void)mm(a, b);
  record_parallel_use(false);
  int products = 0;
  for (const ParallelUse& u : parallel_uses())
    if (u.op == "matmul") {
      ++products;
      EXPECT_EQ(u.threads, 4);
    }
  EXPECT_EQ(products, 1);
#endif
}

// A product of moderate size packs its two operands once, the threads sharing the packing, and
// each thread multiplies a block of whole tiles of Eigen's kernel over the panels its one-thread
// product uses: the same bits for any thread count. The shapes: Linear 784->256's three products
// at batch 64, sizes that are multiples of nothing (partial tiles on both sides, and with 127
// columns every narrower kind of tile, for both layouts of b), inner dimensions of more than one
// panel (with AVX-512 and a 48 KB L1, 154 x 1255 x 123 has a second panel of 123 x 623 values,
// which must still start on a whole packet: Eigen loads and stores them as such), column-major
// operands, accumulation, and doubles.
TEST(EngineParallel, ProductsWithSharedPackingsAreTheSameForAnyThreadCount) {
  Generator g(12);
  struct Case {
    std::int64_t n, k, m;
  };
  std::vector<std::pair<Tensor, Tensor>> operands;
  for (const Case c : {Case{64, 784, 256}, Case{64, 256, 784}, Case{256, 64, 784}, Case{97, 333, 131},
                       Case{130, 211, 45}, Case{144, 1568, 64}, Case{154, 1255, 123}, Case{100, 300, 127}})
    operands.emplace_back(randn({c.n, c.k}, TensorOptions(), &g), randn({c.k, c.m}, TensorOptions(), &g));
  const Tensor bias = randn({97, 131}, TensorOptions(), &g);
  const Tensor a64 = randn({90, 300}, TensorOptions().dtype(kFloat64), &g);
  const Tensor b64 = randn({300, 70}, TensorOptions().dtype(kFloat64), &g);
  expect_same_for_any_thread_count([&] {
    std::vector<Tensor> out;
    for (const auto& [a, b] : operands) out.push_back(mm(a, b));
    const auto& [a, b] = operands[3];
    out.push_back(mm(a.t().contiguous().t(), b));
    out.push_back(mm(a, b.t().contiguous().t()));
    out.push_back(addmm(bias, a, b, 0.5, 2));
    const auto& [a127, b127] = operands[7];
    out.push_back(mm(a127.t().contiguous().t(), b127.t().contiguous().t()));
    out.push_back(mm(a64, b64));
    return out;
  });
#if KINDLING_ENGINE_HAS_OPENMP
  // And on 16 threads, more blocks than the 2 cores of a small machine: the bits of one thread.
  ThreadCount restore;
  set_num_threads(1);
  const Tensor one = mm(operands[0].first, operands[0].second);
  set_num_threads(16);
  EXPECT_EQ(mm(operands[0].first, operands[0].second).to_vector<float>(), one.to_vector<float>());
#endif
}

// A convolution shares its images among the threads and sums its weight and bias gradients over
// pieces of the batch fixed by the shape: the same bits for any thread count, for the output and
// all three gradients, with groups, a stride and 'same' padding (the copy of whole rows).
TEST(EngineParallel, ConvolutionsAreTheSameForAnyThreadCount) {
  Generator g(9);
  const Tensor x = randn({176, 4, 13, 11}, TensorOptions(), &g), w = randn({6, 2, 3, 3}, TensorOptions(), &g);
  const Tensor b = randn({6}, TensorOptions(), &g), gy_same = randn({176, 6, 13, 11}, TensorOptions(), &g);
  const Tensor gy_strided = randn({176, 6, 6, 5}, TensorOptions(), &g);
  const auto run = [&] {
    std::vector<Tensor> results;
    for (const bool strided : {false, true}) {
      const Tensor xs = x.clone().requires_grad_(), ws = w.clone().requires_grad_(), bs = b.clone().requires_grad_();
      const Tensor y =
          strided ? nn::functional::conv2d(xs, ws, bs, 2, 0, 1, 2) : nn::functional::conv2d(xs, ws, bs, 1, 1, 1, 2);
      y.backward(strided ? gy_strided : gy_same);
      results.insert(results.end(), {y.detach(), xs.grad(), ws.grad(), bs.grad()});
    }
    return results;
  };
  expect_same_for_any_thread_count(run);
#if KINDLING_ENGINE_HAS_OPENMP
  // Enough images for the threads to share: with 4 allowed, the 'same' forward (176 x 6 x 18 x 143
  // multiply-adds, 10 grains) and both backwards (both products) run on 4, the strided forward
  // (176 x 6 x 18 x 30, 2 grains) on 2.
  ThreadCount restore;
  set_num_threads(4);
  record_parallel_use(true);
  (void)run();
  record_parallel_use(false);
  std::vector<std::pair<std::string, int>> seen;
  for (const ParallelUse& u : parallel_uses())
    if (u.op.rfind("conv2d", 0) == 0) seen.emplace_back(u.op, u.threads);
  EXPECT_EQ(seen, (std::vector<std::pair<std::string, int>>{
                      {"conv2d", 4}, {"conv2d.backward", 4}, {"conv2d", 2}, {"conv2d.backward", 4}}));
#endif
}

// The band form (stride 1, 'same' width, at least 16 input channels per group under a 3 x 3 kernel).
// Many images: the threads share them, each image's products on its thread with the weight packed
// once for the batch, and the bits are the same for any thread count; so with two images on up to 4
// threads (each product over two grains: were it cut inside the images' region, or packed whole with
// other tiles than Eigen's one-thread product, its last bits could move). One large image: its
// products are cut for the threads instead, with their operands packed once between them, and give
// the same bits too.
TEST(EngineParallel, BandConvolutionsAreTheSameForAnyThreadCount) {
  Generator g(10);
  struct Case {
    Tensor x, w, b, gy;
    std::int64_t groups;
  };
  const auto make = [&](Shape x, Shape w, std::int64_t groups) {
    const std::int64_t o = w[0];
    Shape y = x;
    y[1] = o;
    return Case{randn(x, TensorOptions(), &g), randn(w, TensorOptions(), &g), randn({o}, TensorOptions(), &g),
                randn(y, TensorOptions(), &g), groups};
  };
  const Case many = make({40, 32, 9, 10}, {12, 16, 3, 3}, 2), two = make({2, 40, 48, 48}, {2, 40, 3, 3}, 1),
             one = make({1, 16, 32, 32}, {16, 16, 3, 3}, 1);
  const auto run = [](const Case& c) {
    const Tensor xs = c.x.clone().requires_grad_(), ws = c.w.clone().requires_grad_(),
                 bs = c.b.clone().requires_grad_();
    const Tensor y = nn::functional::conv2d(xs, ws, bs, 1, 1, 1, c.groups);
    y.backward(c.gy);
    return std::vector<Tensor>{y.detach(), xs.grad(), ws.grad(), bs.grad()};
  };
  expect_same_for_any_thread_count([&] {
    std::vector<Tensor> results = run(many);
    for (const Case* c : {&two, &one})
      for (const Tensor& t : run(*c)) results.push_back(t);
    return results;
  });
#if KINDLING_ENGINE_HAS_OPENMP
  // With 4 allowed: the 40 images (40 x 12 x 144 x 90 multiply-adds, 23 grains) on 4 threads, forward
  // and backward, and no product of their own; the two images on 2 (each image's products inside the
  // region, on its thread: packed, but for the weight gradient's six, 2 x 120 x 2304, whose inner
  // dimension is longer than one of Eigen's panels, which go through gemm_raw); the one image on one thread, its
  // forward's three products (16 x 1024 x 48, 3 grains) and its input gradient's (48 x 1024 x 16) on 3 each, its weight
  // gradient's (16 x 48 x 1024: one tile of Eigen's kernel by four of its panels, which 3 threads
  // could share only as 2 + 2) on 2.
  ThreadCount restore;
  set_num_threads(4);
  record_parallel_use(true);
  (void)run(many);
  (void)run(two);
  (void)run(one);
  record_parallel_use(false);
  std::vector<std::pair<std::string, int>> seen;
  for (const ParallelUse& u : parallel_uses())
    if (u.op.rfind("conv2d", 0) == 0 || u.op == "matmul") seen.emplace_back(u.op, u.threads);
  using Use = std::pair<std::string, int>;
  const Use product3{"matmul", 3}, product2{"matmul", 2}, product1{"matmul", 1};
  EXPECT_EQ(seen, (std::vector<Use>{{"conv2d", 4},
                                    {"conv2d.backward", 4},
                                    {"conv2d", 2},
                                    {"conv2d.backward", 2},
                                    product1,
                                    product1,
                                    product1,
                                    product1,
                                    product1,
                                    product1,
                                    {"conv2d", 1},
                                    product3,
                                    product3,
                                    product3,
                                    {"conv2d.backward", 1},
                                    product2,
                                    product2,
                                    product2,
                                    product3,
                                    product3,
                                    product3}));
#endif
}

TEST(EngineParallel, NaNStillWinsInAParallelMax) {
  ThreadCount restore;
  set_num_threads(4);
  Tensor x = big();
  x.view({-1}).narrow(0, 900000, 1).fill_(Scalar(NAN));
  EXPECT_TRUE(std::isnan(x.max().item<float>()));
  EXPECT_TRUE(std::isnan(x.sum().item<float>()));
}

// Products are cut into a grid of output blocks, or along k, one piece per thread: every layout,
// with and without accumulation, must still agree with a plain loop, on 1, 3 and 8 threads.
TEST(EngineParallel, MatrixProductsCutIntoBlocksAgreeWithAPlainLoop) {
  ThreadCount restore;
  Generator g(5);
  struct Case {
    std::int64_t n, k, m;
  };
  // The last two are cut along k (a long inner dimension, few outputs): 5 and 20 slices.
  for (const Case c :
       {Case{64, 784, 256}, Case{300, 480, 40}, Case{97, 333, 131}, Case{32, 4500, 144}, Case{9, 20000, 16}}) {
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
    for (int threads : {1, 3, 8}) {  // 8 allowed: grids of 1 x 8, 8 x 1 and 2 x 2; 5 and 20 slices of k on 5 and 8
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

// A product cut for two threads packs its operands on each of them. Eigen allocated those buffers
// and freed them on every call, and on the worker thread glibc handed the pages back each time: a
// Linear 784->256 forward at batch 64 took 90 page faults per call there (and twice the time).
// Each thread now keeps its buffers, so repeated products take no new pages.
// The count is the process's, so it includes each product's result: the 64 x 256 one (64 KiB) is
// below the engine's buffer cache and comes from malloc every call. glibc keeps such a block mapped;
// a sanitizer's allocator does not (a probe of 100 mallocs of 64 KiB, each touched and freed, faulted
// 17 times plain and 12,630 times under GCC 12's ThreadSanitizer), so under one this test would
// count the sanitizer's pages, not the engine's.
TEST(EngineParallel, ProductsOnWorkerThreadsKeepTheirPackingBuffers) {
#if defined(KINDLING_SANITIZED)
  GTEST_SKIP() << "a sanitizer's allocator maps the results' memory afresh on every call, so page faults "
                  "cannot show the engine's packing buffers under it";
#endif
  ThreadCount restore;
  set_num_threads(2);
  Generator g(6);
  const Tensor x = randn({64, 784}, TensorOptions(), &g), w = randn({256, 784}, TensorOptions(), &g);
  const Tensor gy = randn({64, 256}, TensorOptions(), &g);
  const auto products = [&] {
    (void)mm(x, w.t());   // the forward: a 1 x 2 grid of 64 x 128 blocks, k = 784
    (void)mm(gy.t(), x);  // the weight gradient
    (void)mm(x.t(), gy);  // and its transpose
  };
  for (int i = 0; i < 5; ++i) products();
  const auto minor_faults = [] {
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return u.ru_minflt;
  };
  const long before = minor_faults();
  for (int i = 0; i < 100; ++i) products();
  EXPECT_LT(minor_faults() - before, 100) << "page faults over 100 rounds of three products at 2 threads";
}

// An empty product (an inner dimension of 0: a convolution's weight gradient over an empty batch)
// must not reach Eigen's panel sizes, which divide by that dimension (SIGFPE). Its result is zeros,
// in each of the convolution's forms (im2col, bands, the direct loop of a one-channel input), also
// right after a batch with images has left its partial sums in memory the allocator hands out again.
TEST(EngineParallel, EmptyProductsGiveZerosOnAnyThreadCount) {
  ThreadCount restore;
  struct Form {
    std::int64_t C, H, padding;
  };
  for (const Form form : {Form{16, 10, 0}, Form{16, 10, 1}, Form{1, 10, 1}})
    for (int threads : {1, 2}) {
      set_num_threads(threads);
      Generator g(7);
      const Tensor w = randn({64, form.C, 3, 3}, TensorOptions(), &g).requires_grad_();
      nn::functional::conv2d(randn({8, form.C, form.H, form.H}, TensorOptions(), &g), w, {}, 1, form.padding)
          .sum()
          .backward();
      w.mutable_grad() = Tensor();
      const Tensor x = randn({0, form.C, form.H, form.H}, TensorOptions(), &g).requires_grad_();
      const Tensor y = nn::functional::conv2d(x, w, {}, 1, form.padding);
      const std::int64_t side = form.H + 2 * form.padding - 2;
      EXPECT_EQ(y.sizes().vec(), (std::vector<std::int64_t>{0, 64, side, side}));
      y.sum().backward();
      ASSERT_TRUE(w.grad().defined());
      EXPECT_EQ(w.grad().abs().sum().item<float>(), 0.0f)
          << threads << " thread(s), " << form.C << " channel(s), padding " << form.padding;
    }
}

namespace {
// The decisions of the loops that `f` runs, with `threads` threads allowed.
std::vector<ParallelUse> uses_of(int threads, const std::function<void()>& f) {
  ThreadCount restore;
  set_num_threads(threads);
  record_parallel_use(true);
  f();
  record_parallel_use(false);
  return parallel_uses();
}

// The threads of the one decision named `op` in `uses` (a failure if there is not exactly one).
int threads_of(const std::vector<ParallelUse>& uses, const std::string& op, std::int64_t work) {
  int found = 0, threads = 0;
  for (const ParallelUse& u : uses)
    if (u.op == op && u.work == work) {
      ++found;
      threads = u.threads;
    }
  EXPECT_EQ(found, 1) << "decisions named " << op << " for " << work;
  return threads;
}
}  // namespace

// The one rule (kindling/parallel.hpp): min(threads allowed, work / 32768), at least one thread;
// every parallel kernel follows it, and the counter shows what each one chose. 16 threads are
// allowed here on any machine (OpenMP starts them on 2 cores too): the rule, not the machine,
// must keep a small op on one thread.
TEST(EngineParallel, EveryLoopRunsOnAtMostOneThreadPerGrain) {
#if !KINDLING_ENGINE_HAS_OPENMP
  GTEST_SKIP() << "the engine was built without OpenMP (the tsan preset): every loop runs on one thread";
#endif
  ASSERT_EQ(kParallelGrain, 32768);
  struct Case {
    std::int64_t numel;
    int threads;  // of 16 allowed
  };
  for (const Case c : {Case{1000, 1}, Case{65535, 1}, Case{65536, 2}, Case{3 * 32768 + 5, 3}, Case{10 * 32768 - 1, 9},
                       Case{1 << 20, 16}, Case{40 << 20, 16}}) {
    SCOPED_TRACE(std::to_string(c.numel) + " elements");
    const Tensor x = ones({c.numel}), y = ones({c.numel});
    const auto uses = uses_of(16, [&] {
      Tensor sum = x + y;         // elementwise
      Tensor r = x.relu();        // elementwise (unary)
      Tensor d = x.to(kFloat64);  // copy
      (void)sum, (void)r, (void)d;
    });
    int elementwise = 0;
    for (const ParallelUse& u : uses)
      if (u.op == "elementwise") {
        ++elementwise;
        EXPECT_EQ(u.work, c.numel);
        EXPECT_EQ(u.threads, c.threads);
      }
    EXPECT_EQ(elementwise, 2);
    EXPECT_EQ(threads_of(uses, "copy", c.numel), c.threads);
  }
  // Fewer threads allowed than grains: the allowed count; one allowed: one.
  const Tensor big_x = ones({1 << 20});
  EXPECT_EQ(threads_of(uses_of(3, [&] { (void)(big_x * 2); }), "elementwise", 1 << 20), 3);
  EXPECT_EQ(threads_of(uses_of(1, [&] { (void)(big_x * 2); }), "elementwise", 1 << 20), 1);
}

TEST(EngineParallel, WhereAndFillFollowTheSameRule) {
#if !KINDLING_ENGINE_HAS_OPENMP
  GTEST_SKIP() << "the engine was built without OpenMP (the tsan preset): every loop runs on one thread";
#endif
  // ReLU's backward is a where; zeros() and a gradient's zero_() are fills.
  const Tensor x = big();
  const Tensor zero = zeros({});
  EXPECT_EQ(threads_of(uses_of(16, [&] { (void)where(gt(x, 0), x, zero); }), "where", 1029 * 1029), 16);
  EXPECT_EQ(threads_of(uses_of(3, [&] { (void)where(gt(x, 0), zero, x); }), "where", 1029 * 1029), 3);
  EXPECT_EQ(threads_of(uses_of(16, [&] { (void)zeros({1 << 20}); }), "fill", 1 << 20), 16);
  EXPECT_EQ(threads_of(uses_of(16, [&] { (void)full({65535}, 1.5); }), "fill", 65535), 1);
  // The same bits as a plain loop, whichever operand is a 0-d tensor, and through strided views.
  const auto plain = [](const Tensor& c, const Tensor& a, const Tensor& b) {
    const Tensor cc = c.contiguous(), ac = a.expand(c.sizes()).contiguous(), bc = b.expand(c.sizes()).contiguous();
    std::vector<float> out(static_cast<std::size_t>(c.numel()));
    const bool* cp = cc.data_ptr<bool>();
    const float *ap = ac.data_ptr<float>(), *bp = bc.data_ptr<float>();
    for (std::size_t i = 0; i < out.size(); ++i) out[i] = cp[i] ? ap[i] : bp[i];
    return out;
  };
  const Tensor y = big() * 2, mask = gt(x, 0.5);
  expect_same_for_any_thread_count([&] {
    return std::vector<Tensor>{where(mask, x, zero), where(mask, zero, x), where(mask, x, y), where(mask.t(), x.t(), y),
                               full({1029, 1029}, 2.5)};
  });
  EXPECT_EQ(where(mask, x, zero).contiguous().to_vector<float>(), plain(mask, x, zero));
  EXPECT_EQ(where(mask, zero, x).contiguous().to_vector<float>(), plain(mask, zero, x));
  EXPECT_EQ(where(mask, x, y).contiguous().to_vector<float>(), plain(mask, x, y));
  EXPECT_EQ(where(mask.t(), x.t(), y).contiguous().to_vector<float>(), plain(mask.t(), x.t(), y));
}

// fork() after the parent ran a parallel region: OpenMP cannot start a team in the child,
// which would wait forever. The child runs its loops on its own thread and finishes.
TEST(EngineParallel, AForkedChildRunsEveryLoopOnItsOwnThread) {
#if !KINDLING_ENGINE_HAS_OPENMP
  GTEST_SKIP() << "the engine was built without OpenMP (the tsan preset): every loop runs on one thread";
#endif
  ThreadCount restore;
  set_num_threads(2);
  const Tensor x = big();
  (void)(x * 2);  // the parent's team exists now
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {  // never return into the test runner from the child
    try {
      // Elementwise ops, fill, reductions, where, a product cut into blocks and a convolution.
      const bool ok = get_num_threads() == 1 && (zeros({1 << 20}) + x.sum()).sum().item<float>() != 0 &&
                      where(gt(x, 0), x, zeros({})).numel() == x.numel() && mm(x, x).sizes()[0] == 1029 &&
                      nn::functional::conv2d(ones({64, 16, 28, 28}), ones({32, 16, 3, 3})).numel() == 64 * 32 * 26 * 26;
      ::_exit(ok ? 0 : 1);
    } catch (...) {
      ::_exit(2);
    }
  }
  int status = 0;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  pid_t done = 0;
  while ((done = ::waitpid(pid, &status, WNOHANG)) == 0 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  if (done == 0) {
    ::kill(pid, SIGKILL);
    ::waitpid(pid, &status, 0);
    FAIL() << "the forked child did not finish in 60 s (an OpenMP team in a forked child waits forever)";
  }
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_NE(WEXITSTATUS(status), 2) << "an operation threw in the child";
  EXPECT_NE(WEXITSTATUS(status), 1) << "the child saw more than one thread, or a wrong result";
  EXPECT_EQ(get_num_threads(), 2) << "the parent is not a forked child";
}

TEST(EngineParallel, ReductionsRowKernelsAndProductsFollowTheSameRule) {
#if !KINDLING_ENGINE_HAS_OPENMP
  GTEST_SKIP() << "the engine was built without OpenMP (the tsan preset): every loop runs on one thread";
#endif
  // A row-wise kernel cuts rows: 4 rows of 2^16 can use 4 threads of 16 (8 grains), 64 rows 8.
  const Tensor wide = ones({4, 1 << 16}), tall = ones({64, 1 << 12});
  EXPECT_EQ(threads_of(uses_of(16, [&] { (void)softmax(wide, 1); }), "rowwise", 1 << 18), 4);
  EXPECT_EQ(threads_of(uses_of(16, [&] { (void)softmax(tall, 1); }), "rowwise", 1 << 18), 8);
  EXPECT_EQ(threads_of(uses_of(16, [&] { (void)softmax(ones({8, 100}), 1); }), "rowwise", 800), 1);
  // A full reduction: pieces fixed by the size (one per 2^18 elements), threads by the rule.
  EXPECT_EQ(threads_of(uses_of(16, [&] { (void)ones({1 << 20}).sum(); }), "reduce", 1 << 20), 4);
  // Along a kept dim of 1024 rows: pieces of rows, 16 threads (32 grains); 512 rows: 8 grains.
  EXPECT_EQ(threads_of(uses_of(16, [&] { (void)ones({1024, 1024}).sum({1}); }), "reduce", 1 << 20), 16);
  EXPECT_EQ(threads_of(uses_of(16, [&] { (void)ones({512, 512}).sum({1}); }), "reduce", 1 << 18), 8);
  // A convolution's bias gradient (batch 64, 8 channels of 26 x 26): 10 grains, 8 channels to
  // share when each channel's sum is written once, at the end of its row; summed over the
  // (N, C, H, W) gradient, the 8 sums (one cache line) would be written by every thread after
  // every image, so that loop stays on one thread.
  const Tensor rows = ones({8, 64 * 26 * 26}), nchw = ones({64, 8, 26, 26});
  EXPECT_EQ(threads_of(uses_of(16, [&] { (void)rows.sum({1}); }), "reduce", 64 * 8 * 26 * 26), 8);
  EXPECT_EQ(threads_of(uses_of(16, [&] { (void)nchw.sum({0, 2, 3}); }), "reduce", 64 * 8 * 26 * 26), 1);
  EXPECT_EQ(threads_of(uses_of(16, [&] { (void)ones({64, 256, 26}).sum({0, 2}); }), "reduce", 64 * 256 * 26), 13);
  // Three columns of 2^19 rows: too few to share among the 6 pieces of 2^18 elements, so rows are cut.
  EXPECT_EQ(threads_of(uses_of(16, [&] { (void)ones({1 << 19, 3}).sum({0}); }), "reduce", 3 << 19), 6);
  // A product counts multiply-adds, 262,144 per thread (OpenBLAS's rule), and uses as many threads as
  // its grid has blocks: Linear(784, 256) at batch 64 (12.8 million, 48 grains) packs its operands
  // once between the threads, and its 64 x 256 outputs are 6 tiles of Eigen's kernel (48 columns)
  // by 16 of 4 rows: 6 x 2 blocks of 48 x 32 are the grid with the shortest slowest block, 12
  // threads; the three products of Linear(256, 10) at batch 64 (163,840 each, under one grain) one;
  // 16 x 16 x 16 one.
  const Tensor a = ones({64, 784}), b = ones({784, 256});
  EXPECT_EQ(threads_of(uses_of(16, [&] { (void)mm(a, b); }), "matmul", 64 * 784 * 256), 12);
  EXPECT_EQ(threads_of(uses_of(16, [&] { (void)mm(ones({64, 256}), ones({256, 10})); }), "matmul", 64 * 256 * 10), 1);
  EXPECT_EQ(threads_of(uses_of(16, [&] { (void)mm(ones({10, 64}), ones({64, 256})); }), "matmul", 64 * 256 * 10), 1);
  EXPECT_EQ(threads_of(uses_of(16, [&] { (void)mm(ones({64, 10}), ones({10, 256})); }), "matmul", 64 * 256 * 10), 1);
  EXPECT_EQ(threads_of(uses_of(16, [&] { (void)mm(ones({16, 16}), ones({16, 16})); }), "matmul", 4096), 1);
  // Two grains and a piece for each thread: 64 x 64 x 128 (524,288) runs on 2.
  EXPECT_EQ(threads_of(uses_of(16, [&] { (void)mm(ones({64, 64}), ones({64, 128})); }), "matmul", 64 * 64 * 128), 2);
  // A convolution's weight gradient at batch 64, 32 x 144 outputs over k = 12,544: cut along k into
  // 13 slices of at most 1024 (the output alone would give 4 pieces); 16 x 9 over 50,176: 49 slices, 27 grains, 16.
  const Tensor g2 = ones({32, 12544}), cols2 = ones({12544, 144});
  EXPECT_EQ(threads_of(uses_of(16, [&] { (void)mm(g2, cols2); }), "matmul", 32 * 12544 * 144), 13);
  const Tensor g1 = ones({16, 50176}), cols1 = ones({50176, 9});
  EXPECT_EQ(threads_of(uses_of(16, [&] { (void)mm(g1, cols1); }), "matmul", 16 * 50176 * 9), 16);
  // More than 2^16 outputs (260 x 260) keep the grid of output blocks, whatever k: 260 / 32 = 8.
  const Tensor wide_a = ones({260, 4096}), wide_b = ones({4096, 260});
  EXPECT_EQ(threads_of(uses_of(16, [&] { (void)mm(wide_a, wide_b); }), "matmul", 260 * 4096 * 260), 8);
  // Convolution and pooling. A convolution on the CPU shares its images among the threads, each
  // image's product counted as multiply-adds: 8 MNIST images through a 5x5 convolution to 6
  // channels (6 x 25 x 576 each, 2.6 grains in all) use 2 threads, 64 images (21 grains) all 16,
  // one image one (then its product is cut as any other); its backward, both products of 8
  // images (5.3 grains), 5.
  const Tensor img = ones({8, 1, 28, 28}), w = ones({6, 1, 5, 5});
  const auto conv = uses_of(16, [&] { (void)nn::functional::conv2d(img, w); });
  EXPECT_EQ(threads_of(conv, "conv2d", 8 * 6 * 25 * 576), 2);
  const auto batch = uses_of(16, [&] { (void)nn::functional::conv2d(ones({64, 1, 28, 28}), w); });
  EXPECT_EQ(threads_of(batch, "conv2d", 64 * 6 * 25 * 576), 16);
  const auto one_image = uses_of(16, [&] { (void)nn::functional::conv2d(ones({1, 1, 28, 28}), w); });
  EXPECT_EQ(threads_of(one_image, "conv2d", 6 * 25 * 576), 1);
  const Tensor wg = ones({6, 1, 5, 5}).requires_grad_(), imgg = ones({8, 1, 28, 28}).requires_grad_();
  const auto backward = uses_of(16, [&] { nn::functional::conv2d(imgg, wg).sum().backward(); });
  EXPECT_EQ(threads_of(backward, "conv2d.backward", 2 * 8 * 6 * 25 * 576), 5);
  const auto pool = uses_of(16, [&] { (void)nn::functional::max_pool2d(ones({64, 6, 24, 24}), 2); });
  EXPECT_EQ(threads_of(pool, "max_pool2d", 64 * 6 * 24 * 24), 6);
}

namespace {
// The operating system's ids of this process's threads.
std::set<std::string> os_threads() {
  std::set<std::string> ids;
  for (const auto& entry : std::filesystem::directory_iterator("/proc/self/task"))
    ids.insert(entry.path().filename().string());
  return ids;
}
}  // namespace

// Every parallel region starts OpenMP's whole team, whatever number of threads its loop uses
// (loop.hpp, KINDLING_OMP_FOR): libgomp ends the threads a smaller team leaves idle and creates
// new ones for the next larger team, which made each step of a small model create threads.
TEST(EngineParallel, RegionsOfDifferentSizesKeepOpenMPsThreads) {
#if !KINDLING_ENGINE_HAS_OPENMP
  GTEST_SKIP() << "the engine was built without OpenMP (the tsan preset): every loop runs on one thread";
#endif
  if (!std::filesystem::exists("/proc/self/task")) GTEST_SKIP() << "no /proc/self/task to list threads";
  ThreadCount restore;
  set_num_threads(16);
  const Tensor big = ones({1 << 20}), mid = ones({1 << 16}), wide = ones({4, 1 << 16});
  const Tensor a = ones({64, 784}), b = ones({784, 256}), w = ones({512, 64});
  (void)(big + 1);  // 16 threads: the whole team exists from here on
  const std::set<std::string> before = os_threads();
  for (int i = 0; i < 3; ++i) {
    (void)(mid + 1);               // 2 threads
    (void)softmax(wide, 1);        // 4
    (void)mm(a, b);                // 8
    (void)mm(ones({64, 512}), w);  // 2
    (void)ones({1 << 20}).sum();   // 4
    (void)(big + 1);               // 16
  }
  // No thread may be new (one from before may have ended: a machine with more than 16 cores
  // starts with a larger team, whose extra threads end when the first 16-thread region runs).
  const std::set<std::string> after = os_threads();
  EXPECT_TRUE(std::includes(before.begin(), before.end(), after.begin(), after.end()))
      << "a region with fewer threads ended some of OpenMP's threads, and a larger one started new ones";
}

TEST(EngineParallel, TheCounterIsOffUnlessAsked) {
  record_parallel_use(true);
  record_parallel_use(false);
  (void)(ones({1 << 17}) + 1);
  EXPECT_TRUE(parallel_uses().empty());
}
