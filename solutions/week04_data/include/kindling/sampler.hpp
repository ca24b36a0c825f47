#pragma once
/// @file sampler.hpp
/// Samplers: which dataset indices an epoch visits, and in what order.
///
/// A Dataset answers "what is item i?"; a Sampler answers "which i next?". The
/// DataLoader asks the sampler for an epoch's indices, groups them into batches
/// (BatchSampler) and fetches the items. Changing the sampler changes what the
/// model sees without touching the data: shuffling, sampling with replacement,
/// rebalancing classes (WeightedRandomSampler), or splitting the data among
/// processes (DistributedSampler).

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <numeric>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include <kindling/error.hpp>
#include <kindling/generator.hpp>
#include <kindling/tensor.hpp>

namespace kindling::data {

/// A source of dataset indices, one epoch at a time (torch.utils.data.Sampler).
class Sampler {
 public:
  virtual ~Sampler() = default;
  /// The indices of one epoch, in order. Random samplers draw anew on every call.
  virtual std::vector<std::int64_t> indices() = 0;
  /// How many indices an epoch yields (len(sampler)).
  virtual std::int64_t size() const = 0;
};

/// The generator a sampler draws from: the one given, or the default generator.
inline Generator& generator_or_default(Generator* g) { return g ? *g : default_generator(); }

/// 0, 1, ..., n - 1 in order.
class SequentialSampler : public Sampler {
 public:
  /// A sampler over a dataset of `n` items.
  explicit SequentialSampler(std::int64_t n) : n_(n) {}
  /// [0, 1, ..., n - 1]. (Task week04.sequential_sampler: src/tasks/sequential_sampler.cpp.)
  std::vector<std::int64_t> indices() override;
  /// n.
  std::int64_t size() const override { return n_; }

 private:
  std::int64_t n_;
};

/// Uniformly random indices of a dataset of n items (torch.utils.data.RandomSampler).
class RandomSampler : public Sampler {
 public:
  /// - without `replacement`: each epoch is a random permutation of 0..n-1; with
  ///   `num_samples` > n, whole permutations follow each other and the last is cut
  ///   (as PyTorch 1.13 does);
  /// - with `replacement`: `num_samples` independent uniform draws from 0..n-1.
  /// `num_samples` defaults to n. Throws ValueError, word for word:
  /// "num_samples should be a positive integer value, but got num_samples=0". With n = 0 and a
  /// positive num_samples, throws Error with the words PyTorch uses when the epoch starts: with
  /// replacement "random_ expects 'from' to be less than 'to', but got from=0 >= to=0", without
  /// "integer division or modulo by zero" (PyTorch builds such a sampler and fails on its first
  /// epoch; Kindling refuses at once, where the epoch would otherwise never end).
  RandomSampler(std::int64_t n, bool replacement = false, std::optional<std::int64_t> num_samples = std::nullopt,
                Generator* generator = nullptr);
  /// One epoch of indices, drawn from the generator.
  std::vector<std::int64_t> indices() override;
  /// num_samples.
  std::int64_t size() const override { return num_samples_; }

 private:
  std::int64_t n_, num_samples_;
  bool replacement_;
  Generator* generator_;
};

inline RandomSampler::RandomSampler(std::int64_t n, bool replacement, std::optional<std::int64_t> num_samples,
                                    Generator* generator)
    : n_(n), num_samples_(num_samples.value_or(n)), replacement_(replacement), generator_(generator) {
  KINDLING_CHECK_AS(ValueError, num_samples_ > 0,
                    "num_samples should be a positive integer value, but got num_samples=", num_samples_);
  KINDLING_CHECK(n_ > 0 || !replacement_, "random_ expects 'from' to be less than 'to', but got from=0 >= to=0");
  KINDLING_CHECK(n_ > 0, "integer division or modulo by zero");
}

/// A random permutation of the given indices on every epoch (SubsetRandomSampler).
class SubsetRandomSampler : public Sampler {
 public:
  /// Samples from `subset` (for example the indices of a validation split).
  explicit SubsetRandomSampler(std::vector<std::int64_t> subset, Generator* generator = nullptr)
      : subset_(std::move(subset)), generator_(generator) {}
  /// The subset, shuffled.
  std::vector<std::int64_t> indices() override;
  /// The subset's size.
  std::int64_t size() const override { return static_cast<std::int64_t>(subset_.size()); }

 private:
  std::vector<std::int64_t> subset_;
  Generator* generator_;
};

/// Index i with probability proportional to weights[i] (WeightedRandomSampler):
/// the tool for class imbalance. Give each example the weight 1 / (count of its
/// class) and every class is drawn equally often.
class WeightedRandomSampler : public Sampler {
 public:
  /// Throws ValueError "num_samples should be a positive integer value, but got
  /// num_samples=0". Weights need not sum to 1.
  WeightedRandomSampler(std::vector<double> weights, std::int64_t num_samples, bool replacement = true,
                        Generator* generator = nullptr);
  /// Weights from a 1-d tensor; throws ValueError "weights should be a 1d sequence
  /// but given weights have shape (1, 2)" otherwise.
  WeightedRandomSampler(const Tensor& weights, std::int64_t num_samples, bool replacement = true,
                        Generator* generator = nullptr);
  /// One epoch of num_samples indices (as torch.multinomial), checking the
  /// weights first. Throws kindling::Error, word for word:
  /// - a negative or NaN weight: "invalid multinomial distribution (encountering probability entry < 0)";
  /// - an infinite weight: "invalid multinomial distribution (encountering probability entry = infinity or NaN)";
  /// - all weights zero: "invalid multinomial distribution (sum of probabilities <= 0)";
  /// - without replacement, num_samples > number of weights:
  ///   "cannot sample n_sample > prob_dist.size(-1) samples without replacement".
  /// With replacement, draws are independent; build a table once per epoch so
  /// that each draw costs O(1) or O(log n), never a scan of all weights.
  /// Without replacement, the first index is drawn by weight, the next by weight
  /// among those left, and so on; once only zero weights are left, those are
  /// drawn uniformly.
  std::vector<std::int64_t> indices() override;
  /// num_samples.
  std::int64_t size() const override { return num_samples_; }
  /// The weights, as given.
  const std::vector<double>& weights() const { return weights_; }

 private:
  std::vector<double> weights_;
  std::int64_t num_samples_;
  bool replacement_;
  Generator* generator_;
};

/// Groups another sampler's indices into batches (torch.utils.data.BatchSampler).
class BatchSampler {
 public:
  /// Batches of `batch_size` indices from `sampler`; with `drop_last`, a short
  /// final batch is dropped. Throws ValueError "batch_size should be a positive
  /// integer value, but got batch_size=0".
  BatchSampler(std::shared_ptr<Sampler> sampler, std::int64_t batch_size, bool drop_last);
  /// One epoch of batches: the sampler's indices in order, cut every batch_size.
  std::vector<std::vector<std::int64_t>> batches();
  /// Batches per epoch: n / batch_size rounded down with drop_last, up without.
  std::int64_t size() const;
  /// The wrapped sampler.
  Sampler& sampler() const { return *sampler_; }
  /// Indices per batch.
  std::int64_t batch_size() const { return batch_size_; }
  /// Whether a short final batch is dropped.
  bool drop_last() const { return drop_last_; }

 private:
  std::shared_ptr<Sampler> sampler_;
  std::int64_t batch_size_;
  bool drop_last_;
};

/// This process's share of the data when `num_replicas` processes train together
/// (torch.utils.data.distributed.DistributedSampler). Every rank gets the same
/// number of indices: without drop_last the list is padded by repeating its
/// start, with drop_last its tail is cut; rank r takes every num_replicas-th
/// index from position r. With `shuffle`, the permutation is seeded by
/// seed + epoch, so all ranks agree; call set_epoch() before each epoch.
class DistributedSampler : public Sampler {
 public:
  /// Throws ValueError "Invalid rank 2, rank should be in the interval [0, 1]".
  DistributedSampler(std::int64_t dataset_size, std::int64_t num_replicas, std::int64_t rank, bool shuffle = true,
                     std::uint64_t seed = 0, bool drop_last = false);
  /// This rank's indices for the current epoch.
  std::vector<std::int64_t> indices() override;
  /// Indices per rank per epoch.
  std::int64_t size() const override { return num_samples_; }
  /// Selects the epoch's permutation (seed + epoch).
  void set_epoch(std::int64_t epoch) { epoch_ = epoch; }

 private:
  std::int64_t n_, replicas_, rank_, num_samples_, total_size_, epoch_ = 0;
  bool shuffle_, drop_last_;
  std::uint64_t seed_;
};

}  // namespace kindling::data
