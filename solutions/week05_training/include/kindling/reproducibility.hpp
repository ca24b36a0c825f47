#pragma once
/// @file reproducibility.hpp
/// Seeds that make data loading reproducible for any num_workers.
///
/// PyTorch seeds worker i with base_seed + i, so a random augmentation gives the same
/// batches for the same seed only with the same num_workers: which worker loads an
/// item decides which stream it draws from. With num_workers = 0 the augmentation
/// draws from the main generator, which Dropout uses too. SeededDataset removes both
/// dependencies: item i of epoch e draws from its own generator, seeded from
/// (seed, e, i) alone, whichever thread loads it.

#include <cstdint>
#include <memory>

#include <kindling/dataset.hpp>
#include <kindling/generator.hpp>

namespace kindling::data {

/// A 64-bit seed for item `index` of epoch `epoch`, from `seed`: distinct for
/// distinct (seed, epoch, index) with overwhelming probability, and well mixed, so
/// that neighbouring items do not get neighbouring (correlated) streams. Kindling's
/// rule: SplitMix64's finaliser applied three times, chained,
/// h = mix(mix(mix(seed) ^ epoch) ^ index), where mix(z) is
///   z += 0x9e3779b97f4a7c15; z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9;
///   z = (z ^ (z >> 27)) * 0x94d049bb133111eb; return z ^ (z >> 31);
/// (epoch and index are converted to uint64_t). (Task week05.seeding.)
std::uint64_t sample_seed(std::uint64_t seed, std::int64_t epoch, std::int64_t index);

/// A dataset whose items draw their randomness from per-item generators: while
/// `inner.get(i)` runs, default_generator() is a Generator seeded with
/// sample_seed(seed, epoch, i), on whichever thread calls get(). So an augmentation
/// that draws from the default generator gives the same item for the same (seed,
/// epoch, index), for any num_workers and any order of loading, and never touches
/// the calling thread's own generator (Dropout's stream).
class SeededDataset : public Dataset {
 public:
  /// Wraps `inner`; items of epoch 0 until set_epoch() says otherwise.
  SeededDataset(std::shared_ptr<Dataset> inner, std::uint64_t seed);
  /// Selects the epoch whose augmentations get() draws (call it before each epoch,
  /// as with DistributedSampler.set_epoch), so that epochs differ.
  void set_epoch(std::int64_t epoch) { epoch_ = epoch; }
  /// The epoch set last.
  std::int64_t epoch() const { return epoch_; }
  /// inner.get(index) under a GeneratorGuard of a Generator seeded with
  /// sample_seed(seed, epoch(), index); the caller's default generator is back in
  /// place afterwards, also when inner.get throws (the exception passes through).
  /// (Task week05.seeding.)
  Example get(std::int64_t index) override;
  /// inner.size().
  std::int64_t size() const override { return inner_->size(); }

 private:
  std::shared_ptr<Dataset> inner_;
  std::uint64_t seed_;
  std::int64_t epoch_ = 0;
};

}  // namespace kindling::data
