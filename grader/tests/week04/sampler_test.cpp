// Samplers: exact index sequences against PyTorch where they are deterministic,
// statistical checks with fixed seeds and stated tolerances where they are random.

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <set>

#include <kindling/data.hpp>

#include "oracle_json.hpp"
#include "testing.hpp"

namespace kindling::testing {
namespace {

using data::BatchSampler;
using data::DistributedSampler;
using data::RandomSampler;
using data::SequentialSampler;
using data::WeightedRandomSampler;
using Indices = std::vector<std::int64_t>;

Indices iota_n(std::int64_t n) {
  Indices v(static_cast<std::size_t>(n));
  std::iota(v.begin(), v.end(), std::int64_t{0});
  return v;
}

bool is_permutation_of_range(Indices v, std::int64_t n) {
  std::sort(v.begin(), v.end());
  return v == iota_n(n);
}

// Pearson's chi-square statistic of observed counts against expected probabilities.
double chi_square(const std::vector<double>& counts, const std::vector<double>& probs) {
  double total = std::accumulate(counts.begin(), counts.end(), 0.0), stat = 0;
  for (std::size_t i = 0; i < counts.size(); ++i) {
    const double expected = total * probs[i];
    stat += (counts[i] - expected) * (counts[i] - expected) / expected;
  }
  return stat;
}

std::vector<double> histogram(const Indices& draws, std::size_t bins) {
  std::vector<double> h(bins, 0.0);
  for (auto i : draws) h.at(static_cast<std::size_t>(i)) += 1;
  return h;
}

// ---- week04.sequential_sampler -------------------------------------------------------------------
TEST(week04_sequential_sampler, IndicesInOrderAsPyTorch) {
  SequentialSampler s(7);
  EXPECT_EQ(s.indices(), oracle_json("sequential")["indices"].get<Indices>());
  EXPECT_EQ(s.size(), oracle_json("sequential")["len"].get<std::int64_t>());
}

TEST(week04_sequential_sampler, EmptyDatasetGivesNoIndices) {
  SequentialSampler s(0);
  EXPECT_TRUE(s.indices().empty());
}

TEST(week04_sequential_sampler, EveryEpochIsTheSame) {
  SequentialSampler s(1000);
  EXPECT_EQ(s.indices(), s.indices());
  EXPECT_EQ(s.indices(), iota_n(1000));
}

// ---- week04.random_sampler ----------------------------------------------------------------------------
TEST(week04_random_sampler, WithoutReplacementEachEpochIsAPermutation) {
  Generator g(1);
  RandomSampler s(100, false, std::nullopt, &g);
  const Indices a = s.indices(), b = s.indices();
  EXPECT_TRUE(is_permutation_of_range(a, 100));
  EXPECT_TRUE(is_permutation_of_range(b, 100));
  EXPECT_NE(a, b);            // a new order every epoch
  EXPECT_NE(a, iota_n(100));  // and not the identity
  EXPECT_EQ(s.size(), 100);
}

TEST(week04_random_sampler, SeededGeneratorsReproduceTheOrder) {
  Generator g1(7), g2(7);
  RandomSampler a(50, false, std::nullopt, &g1), b(50, false, std::nullopt, &g2);
  EXPECT_EQ(a.indices(), b.indices());
  EXPECT_EQ(a.indices(), b.indices());
}

TEST(week04_random_sampler, MoreSamplesThanItemsChainsPermutations) {
  Generator g(2);
  RandomSampler s(5, false, 12, &g);
  const Indices v = s.indices();
  ASSERT_EQ(v.size(), 12u);
  EXPECT_TRUE(is_permutation_of_range(Indices(v.begin(), v.begin() + 5), 5));
  EXPECT_TRUE(is_permutation_of_range(Indices(v.begin() + 5, v.begin() + 10), 5));
  const std::set<std::int64_t> tail(v.begin() + 10, v.end());
  EXPECT_EQ(tail.size(), 2u);  // the cut permutation has no repeats
  EXPECT_EQ(s.size(), oracle_json("random_len")["more_than_n"].get<std::int64_t>());
}

TEST(week04_random_sampler, WithReplacementIsUniform) {
  Generator g(3);
  RandomSampler s(10, true, 100000, &g);
  const Indices v = s.indices();
  ASSERT_EQ(v.size(), 100000u);
  EXPECT_EQ(s.size(), 100000);
  // Chi-square with 9 degrees of freedom: 27.88 is the 0.999 quantile.
  EXPECT_LT(chi_square(histogram(v, 10), std::vector<double>(10, 0.1)), 27.88);
}

TEST(week04_random_sampler, WithReplacementRepeatsIndices) {
  Generator g(4);
  RandomSampler s(20, true, 20, &g);
  const Indices v = s.indices();
  EXPECT_LT(std::set<std::int64_t>(v.begin(), v.end()).size(), 20u);  // P(no repeat) = 20!/20^20, about 2e-8
  EXPECT_EQ(RandomSampler(5, true, 7).size(), oracle_json("random_len")["replacement"].get<std::int64_t>());
}

TEST(EngineSamplerArguments, RandomSamplerNeedsPositiveNumSamples) {
  expect_oracle_error([] { RandomSampler(5, false, 0); }, "random_num_samples");
}

// Drawing num_samples indices from no items: PyTorch's words (it fails when the epoch starts), at
// construction, where the epoch's loop would otherwise never end (or draw from an empty range).
TEST(EngineSamplerArguments, RandomSamplerOverNoItemsRefusesToDraw) {
  expect_oracle_error([] { RandomSampler(0, true, 5); }, "random_empty_replacement");
  expect_oracle_error([] { RandomSampler(0, false, 5); }, "random_empty");
}

// ---- week04.weighted_sampler ----------------------------------------------------------------------------
TEST(week04_weighted_sampler, WithReplacementFollowsTheWeights) {
  Generator g(5);
  WeightedRandomSampler s({1.0, 2.0, 3.0, 4.0}, 200000, true, &g);
  const Indices v = s.indices();
  ASSERT_EQ(v.size(), 200000u);
  // Chi-square with 3 degrees of freedom: 16.27 is the 0.999 quantile.
  EXPECT_LT(chi_square(histogram(v, 4), {0.1, 0.2, 0.3, 0.4}), 16.27);
}

TEST(week04_weighted_sampler, BalancesFiftyDogsAndOneCat) {
  // The study notes' example: 50 dogs (label 0) and 1 cat (label 1), weight = 1 / class count.
  std::vector<double> weights(51, 1.0 / 50.0);
  weights[50] = 1.0;
  Generator g(6);
  WeightedRandomSampler s(weights, 100000, true, &g);
  const Indices v = s.indices();
  const double cats = static_cast<double>(std::count(v.begin(), v.end(), 50)) / 100000.0;
  EXPECT_NEAR(cats, 0.5, 0.01);  // standard deviation about 0.0016
}

TEST(week04_weighted_sampler, WithoutReplacementNeverRepeats) {
  Generator g(7);
  WeightedRandomSampler all({5.0, 1.0, 0.5, 3.0, 2.0, 0.1}, 6, false, &g);
  EXPECT_TRUE(is_permutation_of_range(all.indices(), 6));
  WeightedRandomSampler some({5.0, 1.0, 0.5, 3.0, 2.0, 0.1}, 4, false, &g);
  const Indices v = some.indices();
  EXPECT_EQ(std::set<std::int64_t>(v.begin(), v.end()).size(), 4u);
}

TEST(week04_weighted_sampler, WithoutReplacementFirstDrawFollowsTheWeights) {
  Generator g(8);
  WeightedRandomSampler s({1.0, 2.0, 3.0, 4.0}, 2, false, &g);
  std::vector<double> first(4, 0.0), second(4, 0.0);
  for (int epoch = 0; epoch < 40000; ++epoch) {
    const Indices v = s.indices();
    first[static_cast<std::size_t>(v[0])] += 1;
    second[static_cast<std::size_t>(v[1])] += 1;
  }
  EXPECT_LT(chi_square(first, {0.1, 0.2, 0.3, 0.4}), 16.27);
  // The second draw is by weight among the rest: P(second = i) = sum_j w_j / W * w_i / (W - w_j).
  std::vector<double> p2(4, 0.0);
  const double w[4] = {1, 2, 3, 4};
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j)
      if (i != j) p2[static_cast<std::size_t>(i)] += w[j] / 10.0 * w[i] / (10.0 - w[j]);
  EXPECT_LT(chi_square(second, p2), 16.27);
}

TEST(week04_weighted_sampler, ZeroWeightsComeLastWithoutReplacement) {
  Generator g(9);
  WeightedRandomSampler s({1.0, 0.0, 0.0, 2.0}, 2, false, &g);
  for (int i = 0; i < 100; ++i) {
    Indices v = s.indices();
    std::sort(v.begin(), v.end());
    EXPECT_EQ(v, oracle_json("weighted_zero_last")["indices"].get<Indices>());
  }
  WeightedRandomSampler with_zeros({1.0, 0.0, 0.0}, 3, false, &g);
  EXPECT_EQ(with_zeros.indices()[0], 0);  // the only positive weight is always first
}

// PyTorch leaves this case undefined: its multinomial docs say num_samples "must be lower than number of
// non-zero elements" without replacement (torch 1.13 then returns one fixed tail, from topk's ties:
// torch.multinomial(torch.tensor([1.,0,0,0,0,0]), 6) is (0, 3, 5, 4, 2, 1) in 100 of 100 tries). The
// contract is Kindling's: once only zero weights are left, they are drawn uniformly.
TEST(week04_weighted_sampler, ZeroWeightTailComesInARandomOrder) {
  Generator g(15);
  WeightedRandomSampler s({1.0, 0.0, 0.0, 0.0, 0.0, 0.0}, 6, false, &g);
  std::set<Indices> tails;
  std::vector<int> first_zero(6, 0);
  for (int epoch = 0; epoch < 600; ++epoch) {
    const Indices v = s.indices();
    ASSERT_TRUE(is_permutation_of_range(v, 6));
    ASSERT_EQ(v[0], 0) << "the only positive weight must come first";
    tails.insert(Indices(v.begin() + 1, v.end()));
    ++first_zero[static_cast<std::size_t>(v[1])];
  }
  // 5! = 120 orders of the tail; 600 uniform epochs show about 119 of them.
  EXPECT_GT(tails.size(), 60u) << "the zero-weight tail came in only " << tails.size()
                               << " different orders in 600 epochs: once only zero weights are left they must be "
                                  "drawn uniformly, not in a fixed order (do zero weights all get the same key?)";
  for (std::size_t i = 1; i < 6; ++i)  // expected 120 each, standard deviation about 10
    EXPECT_GE(first_zero[i], 60) << "zero-weight index " << i << " came right after the positive one in only "
                                 << first_zero[i] << " of 600 epochs; expected about 120 (uniform among 5)";
}

TEST(week04_weighted_sampler, ZeroWeightIsNeverDrawnWithReplacement) {
  Generator g(10);
  WeightedRandomSampler s({0.0, 1.0, 0.0, 1.0}, 10000, true, &g);
  const Indices v = s.indices();
  EXPECT_EQ(std::count(v.begin(), v.end(), 0) + std::count(v.begin(), v.end(), 2), 0);
}

TEST(week04_weighted_sampler, BadWeightsGetPyTorchsErrors) {
  expect_oracle_error([] { WeightedRandomSampler({1.0, -2.0}, 3).indices(); }, "weighted_negative");
  expect_oracle_error([] { WeightedRandomSampler({1.0, std::nan("")}, 3).indices(); }, "weighted_nan");
  expect_oracle_error([] { WeightedRandomSampler({1.0, INFINITY}, 3).indices(); }, "weighted_inf");
  expect_oracle_error([] { WeightedRandomSampler({0.0, 0.0}, 3).indices(); }, "weighted_all_zero");
  expect_oracle_error([] { WeightedRandomSampler({1.0, 2.0}, 3, false).indices(); }, "weighted_too_many");
}

// PyTorch's multinomial checks in a different order with and without replacement, and words one
// of them differently: with replacement, weight by weight (its sign, then whether it is finite),
// then the sum; without, num_samples first, then one check for inf, NaN and negative weights,
// then the sum.
TEST(week04_weighted_sampler, BadWeightsAreCheckedInPyTorchsOrder) {
  const double nan = std::nan("");
  expect_oracle_error([] { WeightedRandomSampler({INFINITY, -1.0}, 1).indices(); }, "weighted_inf_before_negative");
  expect_oracle_error([&] { WeightedRandomSampler({nan, INFINITY}, 1).indices(); }, "weighted_nan_before_inf");
  expect_oracle_error(
      [] {
        WeightedRandomSampler({1.0, -2.0}, 1, false).indices();
      },
      "weighted_no_replacement_negative");
  expect_oracle_error([&] { WeightedRandomSampler({1.0, nan}, 1, false).indices(); }, "weighted_no_replacement_nan");
  expect_oracle_error(
      [] {
        WeightedRandomSampler({1.0, INFINITY}, 1, false).indices();
      },
      "weighted_no_replacement_inf");
  expect_oracle_error(
      [] {
        WeightedRandomSampler({0.0, 0.0}, 1, false).indices();
      },
      "weighted_no_replacement_all_zero");
  expect_oracle_error(
      [] {
        WeightedRandomSampler({-1.0, 1.0}, 3, false).indices();
      },
      "weighted_too_many_before_weights");
  expect_oracle_error([] { WeightedRandomSampler({0.0, 0.0}, 3, false).indices(); }, "weighted_too_many_before_sum");
}

TEST(week04_weighted_sampler, ArgumentErrorsComeFromTheConstructor) {
  expect_oracle_error([] { WeightedRandomSampler({1.0, 2.0}, 0); }, "weighted_num_samples");
  expect_oracle_error([] { WeightedRandomSampler(ones({1, 2}), 2); }, "weighted_shape");
  // The errors above are about the arguments; the sampler itself still has to draw.
  Generator g(11);
  EXPECT_EQ(WeightedRandomSampler(ones({3}), 4, true, &g).indices().size(), 4u);
}

TEST(week04_weighted_sampler, SeededGeneratorsReproduceTheDraws) {
  Generator g1(12), g2(12);
  WeightedRandomSampler a({0.3, 0.7, 2.0}, 50, true, &g1), b({0.3, 0.7, 2.0}, 50, true, &g2);
  EXPECT_EQ(a.indices(), b.indices());
}

// ---- week04.batch_sampler ----------------------------------------------------------------------------------
TEST(week04_batch_sampler, BatchesAndLengthsMatchPyTorch) {
  for (const auto& c : oracle_json("batch_sampler")) {
    const auto n = c["n"].get<std::int64_t>(), bs = c["batch_size"].get<std::int64_t>();
    const bool drop = c["drop_last"].get<bool>();
    BatchSampler b(std::make_shared<SequentialSampler>(n), bs, drop);
    EXPECT_EQ(b.batches(), c["batches"].get<std::vector<Indices>>()) << "n=" << n << " bs=" << bs << " drop=" << drop;
    EXPECT_EQ(b.size(), c["len"].get<std::int64_t>()) << "n=" << n << " bs=" << bs << " drop=" << drop;
  }
}

TEST(week04_batch_sampler, KeepsTheSamplersOrder) {
  Generator g(13);
  auto sampler = std::make_shared<RandomSampler>(10, false, std::nullopt, &g);
  Generator g_copy(13);
  const Indices order = RandomSampler(10, false, std::nullopt, &g_copy).indices();
  BatchSampler b(sampler, 4, false);
  const auto batches = b.batches();
  Indices flat;
  for (const auto& batch : batches) flat.insert(flat.end(), batch.begin(), batch.end());
  EXPECT_EQ(flat, order);
  EXPECT_EQ(batches.back().size(), 2u);
}

TEST(EngineSamplerArguments, BatchSamplerNeedsPositiveBatchSize) {
  expect_oracle_error([] { BatchSampler(std::make_shared<SequentialSampler>(5), 0, false); }, "batch_size_zero");
}

// ---- DistributedSampler (given) -----------------------------------------------------------------------------------
TEST(EngineDistributedSampler, PartitionsExactlyAsPyTorchWithoutShuffle) {
  for (const auto& c : oracle_json("distributed")) {
    const auto n = c["n"].get<std::int64_t>(), replicas = c["replicas"].get<std::int64_t>();
    const bool drop = c["drop_last"].get<bool>();
    for (std::int64_t rank = 0; rank < replicas; ++rank) {
      DistributedSampler s(n, replicas, rank, false, 0, drop);
      const auto& expected = c["ranks"][static_cast<std::size_t>(rank)];
      EXPECT_EQ(s.indices(), expected["indices"].get<Indices>()) << n << " " << replicas << " " << rank << " " << drop;
      EXPECT_EQ(s.size(), expected["len"].get<std::int64_t>());
    }
  }
}

TEST(EngineDistributedSampler, ShuffledRanksAgreeAndCoverTheData) {
  Indices all;
  for (std::int64_t rank = 0; rank < 4; ++rank) {
    DistributedSampler s(20, 4, rank, true, 42);
    s.set_epoch(3);
    const Indices mine = s.indices();
    all.insert(all.end(), mine.begin(), mine.end());
  }
  EXPECT_TRUE(is_permutation_of_range(all, 20));
  DistributedSampler a(20, 4, 0, true, 42), b(20, 4, 0, true, 42);
  EXPECT_EQ(a.indices(), b.indices());
  b.set_epoch(1);
  EXPECT_NE(a.indices(), b.indices());
}

TEST(EngineDistributedSampler, RankOutsideTheGroupIsAValueError) {
  expect_oracle_error([] { DistributedSampler(5, 2, 2); }, "rank_too_big");
  expect_oracle_error([] { DistributedSampler(5, 2, -1); }, "rank_negative");
}

TEST(EngineSubsetRandomSampler, ShufflesTheSubsetOnly) {
  Generator g(14);
  data::SubsetRandomSampler s({3, 9, 27, 81}, &g);
  Indices v = s.indices();
  std::sort(v.begin(), v.end());
  EXPECT_EQ(v, (Indices{3, 9, 27, 81}));
  EXPECT_EQ(s.size(), 4);
}

}  // namespace
}  // namespace kindling::testing
