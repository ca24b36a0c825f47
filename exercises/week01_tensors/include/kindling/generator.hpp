#pragma once
/// @file generator.hpp
/// A seedable random number generator, like torch.Generator.

#include <cstdint>
#include <mutex>
#include <random>
#include <string>

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
  /// The whole state (seed and engine), as text: set_state() of it continues the
  /// stream exactly where get_state() left it (torch.Generator.get_state()).
  std::string get_state() const;
  /// Restores a state from get_state(). Throws kindling::Error for text that is not
  /// one, leaving the generator as it was.
  void set_state(const std::string& state);
  /// Runs `f(engine)` under the generator's lock, for drawing many numbers at once.
  template <class F>
  void with_engine(F&& f) {
    std::lock_guard lock(mutex_);
    f(engine_);
  }

 private:
  mutable std::mutex mutex_;
  std::uint64_t seed_ = 0;
  std::mt19937_64 engine_;
};

/// The generator used when none is passed: the calling thread's, while a
/// GeneratorGuard is installed in it, else the process-wide one.
Generator& default_generator();
/// Reseeds the default generator (torch.manual_seed).
void manual_seed(std::uint64_t seed);

/// Makes `generator` the calling thread's default_generator() until the guard is
/// destroyed, then restores the previous one (guards nest). Other threads are not
/// affected. DataLoader workers run under one seeded with base_seed + worker id, as
/// each PyTorch worker process calls torch.manual_seed(base_seed + id).
class GeneratorGuard {
 public:
  /// Installs `generator` (which must outlive the guard).
  explicit GeneratorGuard(Generator& generator);
  /// Restores the previous default.
  ~GeneratorGuard();
  GeneratorGuard(const GeneratorGuard&) = delete;
  GeneratorGuard& operator=(const GeneratorGuard&) = delete;

 private:
  Generator* previous_;
};

}  // namespace kindling
