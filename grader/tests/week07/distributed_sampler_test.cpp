// Task week07.distributed_sampler: torch.randperm's permutation for a seed, and each rank's share
// of an epoch, value for value against PyTorch 1.13 (tools/oracle/week07.py).

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include <kindling/distributed_sampler.hpp>
#include <kindling/kindling.hpp>

#include "oracle_json.hpp"
#include "testing.hpp"

namespace kindling::testing {
namespace {
using distributed::DistributedSampler;
using distributed::torch_randperm;

std::string head(const std::vector<std::int64_t>& v) {
  std::string s = "[";
  for (std::size_t i = 0; i < v.size() && i < 8; ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + (v.size() > 8 ? ", ...]" : "]");
}
}  // namespace

TEST(week07_distributed_sampler, RandpermGivesPyTorchsPermutationForEverySeed) {
  for (const auto& c : oracle_json("randperm")) {
    const auto n = c["n"].get<std::int64_t>();
    const auto seed = c["seed"].get<std::uint64_t>();
    const auto want = c["perm"].get<std::vector<std::int64_t>>();
    const auto got = torch_randperm(n, seed);
    ASSERT_EQ(got, want) << "torch.randperm(" << n << ") after manual_seed(" << seed << "): yours starts " << head(got)
                         << ", PyTorch's " << head(want);
  }
}

TEST(week07_distributed_sampler, RandpermOfNothingIsEmptyAndNegativeIsRefused) {
  EXPECT_TRUE(torch_randperm(0, 3).empty());
  EXPECT_THROW(torch_randperm(-1, 0), ValueError);
}

TEST(week07_distributed_sampler, EveryRanksIndicesArePyTorchsForEverySeedEpochAndDropLast) {
  for (const auto& c : oracle_json("distributed_sampler")) {
    const auto n = c["n"].get<std::int64_t>(), replicas = c["replicas"].get<std::int64_t>();
    const auto seed = c["seed"].get<std::uint64_t>();
    const auto epoch = c["epoch"].get<std::int64_t>();
    const bool drop = c["drop_last"].get<bool>();
    for (std::int64_t rank = 0; rank < replicas; ++rank) {
      DistributedSampler s(n, replicas, rank, true, seed, drop);
      s.set_epoch(epoch);
      const auto want = c["ranks"][static_cast<std::size_t>(rank)].get<std::vector<std::int64_t>>();
      const auto got = s.indices();
      ASSERT_EQ(got, want) << "n " << n << ", rank " << rank << " of " << replicas << ", seed " << seed << ", epoch "
                           << epoch << (drop ? ", drop_last" : "") << ": yours " << head(got) << ", PyTorch's "
                           << head(want);
      ASSERT_EQ(s.size(), c["len"].get<std::int64_t>());
    }
  }
}

TEST(week07_distributed_sampler, WithoutShuffleTheRanksTakeTurnsInOrder) {
  DistributedSampler s(7, 3, 1, false);
  EXPECT_EQ(s.indices(), (std::vector<std::int64_t>{1, 4, 0})) << "7 padded to 9 by repeating 0 and 1";
  DistributedSampler d(7, 3, 2, false, 0, true);
  EXPECT_EQ(d.indices(), (std::vector<std::int64_t>{2, 5})) << "cut to 6";
}

TEST(week07_distributed_sampler, TheEpochChangesTheOrderAndEveryRankAgreesOnIt) {
  // Together the ranks read every example once (without drop_last, a few twice), whatever the epoch.
  for (const std::int64_t epoch : {0, 1, 2}) {
    std::multiset<std::int64_t> seen;
    std::vector<std::vector<std::int64_t>> parts;
    for (std::int64_t r = 0; r < 4; ++r) {
      DistributedSampler s(10, 4, r, true, 3);
      s.set_epoch(epoch);
      parts.push_back(s.indices());
      seen.insert(parts.back().begin(), parts.back().end());
    }
    for (std::int64_t i = 0; i < 10; ++i) EXPECT_GE(seen.count(i), 1u) << "epoch " << epoch << ": example " << i;
    EXPECT_EQ(seen.size(), 12u);
  }
  DistributedSampler a(50, 2, 0, true, 3);
  const auto first = a.indices();
  a.set_epoch(1);
  EXPECT_NE(a.indices(), first) << "set_epoch(1) must draw another order (seed + epoch)";
}

// The constructor is given (week 4's checks): an engine test, not the task's.
TEST(EngineDistributedSampler, ARankOutsideTheGroupIsRefusedAsByPyTorch) {
  expect_error_json([] { DistributedSampler(5, 2, 2); }, oracle_json("rank_too_big"));
  expect_error_json([] { DistributedSampler(5, 2, -1); }, oracle_json("rank_negative"));
}

}  // namespace kindling::testing
