// use_deterministic_algorithms on the device (kindling/deterministic.hpp): the engine's one
// non-deterministic path, index_add on float tensors (index_select's gradient), adds with atomics
// in whatever order the threads reach an element; under the flag it adds in the CPU's order. On the
// simulator a launch's thread order is chosen (sim::ScopedThreadOrder), which shows both.

#include <vector>

#include <gtest/gtest.h>
#include <kindling/cuda/runtime.hpp>
#include <kindling/cuda/sim.hpp>
#include <kindling/deterministic.hpp>
#include <kindling/kindling.hpp>

#include "testing.hpp"

namespace kindling::testing {
namespace {
namespace sim = kindling::cuda::sim;

// Restores the flag a test changed.
struct Deterministic {
  bool saved = are_deterministic_algorithms_enabled();
  ~Deterministic() { use_deterministic_algorithms(saved); }
};

// Values whose float32 sum depends on the order of the additions: 1e8 and -1e8 first, then n - 2
// ones. In that order the large pair cancels and the ones add up exactly (n - 2); the other way
// round, the ones make n - 2, which -1e8 swallows to a multiple of 8 before +1e8 comes back.
std::vector<float> uneven(int n) {
  std::vector<float> v(static_cast<std::size_t>(n), 1.0f);
  v[0] = 1e8f;
  v[1] = -1e8f;
  return v;
}

float sum_in_order(const std::vector<float>& v, bool reverse) {
  float s = 0.0f;
  for (std::size_t j = 0; j < v.size(); ++j) s += v[reverse ? v.size() - 1 - j : j];
  return s;
}

// x.grad of y = x.index_select(0, [0, 0, ..., 0]) with y's gradient g: every g[j] added into
// x.grad[0] by the device's index_add, the threads running in `order`.
float gradient_sum(const std::vector<float>& g, int order) {
  const auto n = static_cast<std::int64_t>(g.size());
  const Tensor x = zeros({1, 1}).cuda().requires_grad_();
  const Tensor index = zeros({n}, kInt64).cuda();
  const Tensor y = index_select(x, 0, index);
  const sim::ScopedThreadOrder threads(order);
  y.backward(tensor(g).reshape({n, 1}).cuda());
  return x.grad().cpu().item<float>();
}
}  // namespace

TEST(EngineDeterminism, TheFlagIsOffUnlessSet) {
  Deterministic restore;
  use_deterministic_algorithms(false);
  EXPECT_FALSE(are_deterministic_algorithms_enabled());
  use_deterministic_algorithms(true, /*warn_only=*/true);
  EXPECT_TRUE(are_deterministic_algorithms_enabled());
  EXPECT_TRUE(is_deterministic_algorithms_warn_only_enabled());
  use_deterministic_algorithms(true);
  EXPECT_FALSE(is_deterministic_algorithms_warn_only_enabled());
}

TEST(EngineDeterminism, AnAtomicIndexAddChangesItsLastBitsWithTheThreadOrder) {
  Deterministic restore;
  use_deterministic_algorithms(false);
  const std::vector<float> g = uneven(102);
  const float forward = sum_in_order(g, false), reverse = sum_in_order(g, true);
  ASSERT_NE(forward, reverse) << "the values must round differently in the two orders";
  EXPECT_EQ(gradient_sum(g, 0), forward) << "threads in forward order add g[0], g[1], ... in turn";
  EXPECT_EQ(gradient_sum(g, 1), reverse) << "in reverse order, the atomics add the same values the other way";
}

TEST(EngineDeterminism, UnderTheFlagEveryThreadOrderGivesTheCpusBits) {
  Deterministic restore;
  use_deterministic_algorithms(true);
  const std::vector<float> g = uneven(102);
  const Tensor x = zeros({1, 1}).requires_grad_();
  index_select(x, 0, zeros({102}, kInt64)).backward(tensor(g).reshape({102, 1}));
  const float cpu = x.grad().item<float>();
  for (const int order : {0, 1, 2, 3}) EXPECT_EQ(gradient_sum(g, order), cpu) << "thread order " << order;
}

namespace {
// Restores benchmark mode and the default algorithm a test changed, and forgets the choices.
struct GemmSettings {
  bool benchmark = kindling::cuda::benchmark_enabled();
  ~GemmSettings() {
    kindling::cuda::set_benchmark(benchmark);
    kindling::cuda::set_default_gemm_algorithm(kindling::cuda::GemmAlgorithm::Tiled);
    kindling::cuda::clear_benchmark_cache();
  }
};

Tensor product_with(kindling::cuda::GemmAlgorithm algorithm, const Tensor& a, const Tensor& b) {
  kindling::cuda::set_default_gemm_algorithm(algorithm);
  return mm(a, b).cpu();
}

// Values of mixed magnitudes, so that the order of the additions shows in the last bits.
Tensor mixed(std::int64_t rows, std::int64_t cols, double salt) {
  const Tensor i = arange(rows * cols, kFloat64).reshape({rows, cols});
  return (sin(i * 0.731 + salt) * exp(sin(i * 0.113) * 6.0)).to(kFloat32);
}
}  // namespace

// The two algorithms of the engine's product add the same products in different orders: close to
// each other and to the CPU, and not the same bits.
TEST(EngineDeterminism, TheTwoProductAlgorithmsDifferInTheLastBits) {
  GemmSettings restore;
  kindling::cuda::set_benchmark(false);
  const Tensor a = mixed(8, 256, 0.0), b = mixed(256, 8, 1.0);
  const Tensor tiled = product_with(kindling::cuda::GemmAlgorithm::Tiled, a.cuda(), b.cuda());
  const Tensor split = product_with(kindling::cuda::GemmAlgorithm::SplitK, a.cuda(), b.cuda());
  const Tensor cpu = mm(a.to(kFloat64), b.to(kFloat64));
  EXPECT_TRUE(allclose(tiled.to(kFloat64), cpu, 1e-4, 1e-3));
  EXPECT_TRUE(allclose(split.to(kFloat64), cpu, 1e-4, 1e-3));
  EXPECT_FALSE(equal(tiled, split)) << "split-k adds the four quarters of k separately, then the quarters";
  EXPECT_TRUE(equal(product_with(kindling::cuda::GemmAlgorithm::SplitK, a.cuda(), b.cuda()), split))
      << "each algorithm on its own gives the same bits every time";
}

// Benchmark mode times both algorithms on the first product of a shape and keeps the faster one for
// that shape: the result is that algorithm's, bit for bit, and stays so; another shape is timed anew.
TEST(EngineDeterminism, BenchmarkModeTimesEachShapeOnceAndKeepsItsChoice) {
  GemmSettings restore;
  const Tensor a = mixed(8, 256, 0.0), b = mixed(256, 8, 1.0);
  const Tensor by_algorithm[2] = {product_with(kindling::cuda::GemmAlgorithm::Tiled, a.cuda(), b.cuda()),
                                  product_with(kindling::cuda::GemmAlgorithm::SplitK, a.cuda(), b.cuda())};
  kindling::cuda::set_default_gemm_algorithm(kindling::cuda::GemmAlgorithm::Tiled);
  kindling::cuda::clear_benchmark_cache();
  kindling::cuda::set_benchmark(true);
  const Tensor first = mm(a.cuda(), b.cuda()).cpu();
  const auto chosen = kindling::cuda::gemm_algorithm(8, 256, 8);
  EXPECT_TRUE(equal(first, by_algorithm[chosen == kindling::cuda::GemmAlgorithm::SplitK ? 1 : 0]))
      << "the result is the chosen algorithm's";
  for (int again = 0; again < 3; ++again) {
    EXPECT_TRUE(equal(mm(a.cuda(), b.cuda()).cpu(), first)) << "the choice is kept for the shape";
    EXPECT_EQ(kindling::cuda::gemm_algorithm(8, 256, 8), chosen);
  }
  kindling::cuda::set_benchmark(false);
  EXPECT_EQ(kindling::cuda::gemm_algorithm(8, 256, 8), kindling::cuda::GemmAlgorithm::Tiled)
      << "off, the default runs again";
  EXPECT_TRUE(equal(mm(a.cuda(), b.cuda()).cpu(), by_algorithm[0]));
}

}  // namespace kindling::testing
