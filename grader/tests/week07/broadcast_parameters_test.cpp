// Task week07.broadcast_parameters: every replica ends with the root's parameters and buffers, in
// the tensors it had (an optimizer built before still holds them).

#include <string>
#include <vector>

#include <kindling/ddp.hpp>
#include <kindling/kindling.hpp>
#include <kindling/nn.hpp>

#include "ranks.hpp"
#include "testing.hpp"

namespace kindling::testing {
namespace {
using distributed::ProcessGroup;

// A model whose weights depend on the seed, and whose BatchNorm buffers on `stats`.
nn::Sequential model_of(std::uint64_t seed, double stats) {
  manual_seed(seed);
  nn::Sequential m(nn::Linear(5, 4), nn::BatchNorm1d(4), nn::Linear(4, 2));
  for (auto& [name, b] : m.named_buffers())
    if (b.dtype() == kInt64)
      b.fill_(static_cast<std::int64_t>(stats));
    else
      b.fill_(stats);
  return m;
}

// Broadcasts rank `root`'s model and checks every tensor against it, and that none was replaced.
void expect_root_everywhere(ProcessGroup& g, int root) {
  nn::Sequential mine = model_of(100 + static_cast<std::uint64_t>(g.rank()), g.rank() + 0.5);
  std::vector<const void*> storage;
  for (const Tensor& p : mine.parameters()) storage.push_back(p.data_ptr());
  for (const Tensor& b : mine.buffers()) storage.push_back(b.data_ptr());
  distributed::broadcast_parameters(g, mine, root);
  nn::Sequential want = model_of(100 + static_cast<std::uint64_t>(root), root + 0.5);
  const auto got_p = mine.named_parameters(), want_p = want.named_parameters();
  const auto got_b = mine.named_buffers(), want_b = want.named_buffers();
  ASSERT_EQ(got_p.size(), want_p.size());
  ASSERT_EQ(got_b.size(), want_b.size());
  for (std::size_t i = 0; i < got_p.size(); ++i)
    EXPECT_TRUE(equal(got_p[i].second, want_p[i].second))
        << "rank " << g.rank() << ": parameter " << got_p[i].first << " is not rank " << root << "'s";
  for (std::size_t i = 0; i < got_b.size(); ++i)
    EXPECT_TRUE(equal(got_b[i].second, want_b[i].second))
        << "rank " << g.rank() << ": buffer " << got_b[i].first << " is not rank " << root
        << "'s (BatchNorm's running statistics must start equal too)";
  std::size_t k = 0;
  for (const Tensor& p : mine.parameters())
    EXPECT_EQ(p.data_ptr(), storage[k++]) << "a parameter's storage was replaced: an optimizer built "
                                             "before would update the old one";
  for (const Tensor& b : mine.buffers()) EXPECT_EQ(b.data_ptr(), storage[k++]) << "a buffer's storage was replaced";
}
}  // namespace

TEST(week07_broadcast_parameters, EveryRankEndsWithRankZerosWeightsAndBuffers) {
  run_ranks(3, [](ProcessGroup& g) { expect_root_everywhere(g, 0); });
}

TEST(week07_broadcast_parameters, AnotherRootIsHonoured) {
  run_ranks(3, [](ProcessGroup& g) { expect_root_everywhere(g, 2); });
  run_ranks(4, [](ProcessGroup& g) { expect_root_everywhere(g, 3); });
}

TEST(week07_broadcast_parameters, ARequiresGradParameterStaysALeafThatRequiresGrad) {
  run_ranks(2, [](ProcessGroup& g) {
    nn::Sequential m = model_of(7 + static_cast<std::uint64_t>(g.rank()), 0.0);
    distributed::broadcast_parameters(g, m);
    for (const auto& [name, p] : m.named_parameters()) {
      EXPECT_TRUE(p.requires_grad()) << name;
      EXPECT_TRUE(p.is_leaf()) << name;
    }
  });
}

TEST(week07_broadcast_parameters, ModelsOfDifferentShapesAndABadRootAreErrors) {
  run_ranks(2, [](ProcessGroup& g) {
    manual_seed(1);
    nn::Sequential m(nn::Linear(5, g.rank() == 0 ? 4 : 3));
    EXPECT_THROW(distributed::broadcast_parameters(g, m), distributed::DistributedError)
        << "rank 0's weight has 20 elements, rank 1's 15";
  });
  run_ranks(2, [](ProcessGroup& g) {
    nn::Sequential m(nn::Linear(2, 2));
    EXPECT_THROW(distributed::broadcast_parameters(g, m, 2), distributed::DistributedError);
  });
}

}  // namespace kindling::testing
