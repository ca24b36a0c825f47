// The given samplers and constructors.

#include <kindling/factory.hpp>
#include <kindling/sampler.hpp>

namespace kindling::data {

std::vector<std::int64_t> SubsetRandomSampler::indices() {
  std::vector<std::int64_t> out = subset_;
  generator_or_default(generator_).with_engine([&](std::mt19937_64& engine) {
    std::shuffle(out.begin(), out.end(), engine);
  });
  return out;
}

WeightedRandomSampler::WeightedRandomSampler(std::vector<double> weights, std::int64_t num_samples, bool replacement,
                                             Generator* generator)
    : weights_(std::move(weights)), num_samples_(num_samples), replacement_(replacement), generator_(generator) {
  KINDLING_CHECK_AS(ValueError, num_samples > 0,
                    "num_samples should be a positive integer value, but got num_samples=", num_samples);
}

namespace {
std::vector<double> weights_of(const Tensor& t) {
  if (t.dim() != 1) {
    std::string shape = "(";
    for (std::int64_t d = 0; d < t.dim(); ++d)
      shape += (d ? ", " : "") + std::to_string(t.sizes()[static_cast<std::size_t>(d)]);
    shape += ")";
    throw ValueError("weights should be a 1d sequence but given weights have shape " + shape);
  }
  const Tensor d = t.to(kFloat64).contiguous();
  const double* p = d.data_ptr<double>();
  return std::vector<double>(p, p + d.numel());
}
}  // namespace

WeightedRandomSampler::WeightedRandomSampler(const Tensor& weights, std::int64_t num_samples, bool replacement,
                                             Generator* generator)
    : WeightedRandomSampler(weights_of(weights), num_samples, replacement, generator) {}

BatchSampler::BatchSampler(std::shared_ptr<Sampler> sampler, std::int64_t batch_size, bool drop_last)
    : sampler_(std::move(sampler)), batch_size_(batch_size), drop_last_(drop_last) {
  KINDLING_CHECK_AS(ValueError, batch_size > 0,
                    "batch_size should be a positive integer value, but got batch_size=", batch_size);
  KINDLING_CHECK(sampler_ != nullptr, "BatchSampler needs a sampler");
}

DistributedSampler::DistributedSampler(std::int64_t dataset_size, std::int64_t num_replicas, std::int64_t rank,
                                       bool shuffle, std::uint64_t seed, bool drop_last)
    : n_(dataset_size), replicas_(num_replicas), rank_(rank), shuffle_(shuffle), drop_last_(drop_last), seed_(seed) {
  KINDLING_CHECK_AS(ValueError, num_replicas > 0,
                    "num_replicas should be a positive integer value, but got num_replicas=", num_replicas);
  KINDLING_CHECK_AS(ValueError, rank >= 0 && rank < num_replicas, "Invalid rank ", rank,
                    ", rank should be in the interval [0, ", num_replicas - 1, "]");
  // As torch/utils/data/distributed.py: with drop_last, the largest multiple of
  // num_replicas not above n; otherwise n rounded up to one.
  if (drop_last_ && n_ % replicas_ != 0)
    num_samples_ = (n_ - replicas_ + replicas_ - 1) / replicas_;  // ceil((n - r) / r)
  else
    num_samples_ = (n_ + replicas_ - 1) / replicas_;
  total_size_ = num_samples_ * replicas_;
}

std::vector<std::int64_t> DistributedSampler::indices() {
  std::vector<std::int64_t> all(static_cast<std::size_t>(n_));
  std::iota(all.begin(), all.end(), std::int64_t{0});
  if (shuffle_) {
    Generator g(seed_ + static_cast<std::uint64_t>(epoch_));
    g.with_engine([&](std::mt19937_64& engine) { std::shuffle(all.begin(), all.end(), engine); });
  }
  if (!drop_last_) {
    const std::size_t padding = static_cast<std::size_t>(total_size_) - all.size();
    const std::vector<std::int64_t> base = all;
    for (std::size_t i = 0; i < padding; ++i) all.push_back(base[i % base.size()]);
  } else {
    all.resize(static_cast<std::size_t>(total_size_));
  }
  std::vector<std::int64_t> mine;
  for (std::int64_t i = rank_; i < total_size_; i += replicas_) mine.push_back(all[static_cast<std::size_t>(i)]);
  return mine;
}

}  // namespace kindling::data
