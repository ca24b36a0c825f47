#pragma once
/// @file generator.hpp
/// A seedable random number generator, like torch.Generator.

#include <cstdint>
#include <mutex>
#include <random>

namespace kindling {

/// A random source with a seed. Random factories take an optional Generator*;
/// without one they use default_generator(), which manual_seed() reseeds.
/// Note: the streams are Kindling's own (a 64-bit Mersenne Twister), so seeded
/// values are reproducible in Kindling but differ from PyTorch's numbers.
class Generator {
 public:
  /// A generator seeded with `seed`.
  explicit Generator(std::uint64_t seed = 67280421310721ULL) { manual_seed(seed); }
  /// Restarts the stream from `seed`.
  void manual_seed(std::uint64_t seed) {
    std::lock_guard lock(mutex_);
    seed_ = seed;
    engine_.seed(seed);
  }
  /// The seed last set.
  std::uint64_t initial_seed() const { return seed_; }
  /// 64 random bits.
  std::uint64_t next() {
    std::lock_guard lock(mutex_);
    return engine_();
  }
  /// Runs `f(engine)` under the generator's lock, for drawing many numbers at once.
  template <class F>
  void with_engine(F&& f) {
    std::lock_guard lock(mutex_);
    f(engine_);
  }

 private:
  std::mutex mutex_;
  std::uint64_t seed_ = 0;
  std::mt19937_64 engine_;
};

/// The process-wide generator used when none is passed.
Generator& default_generator();
/// Reseeds the default generator (torch.manual_seed).
void manual_seed(std::uint64_t seed);

}  // namespace kindling
