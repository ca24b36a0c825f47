// MUTANT: treats uniform_int_distribution(0, n) as half-open, so replacement draws can return n
// Task week04.random_sampler. The doc comment above each function is its contract; your code
// goes between BEGIN and END. Hints, one at a time: `./grade hint week04.random_sampler`.

#include <kindling/error.hpp>  // KINDLING_TODO, which the worksheet's stubs call
#include <kindling/sampler.hpp>

namespace kindling::data {

/// One epoch of indices, drawn from the generator.
std::vector<std::int64_t> RandomSampler::indices() {
  // BEGIN SOLUTION week04.random_sampler
  std::vector<std::int64_t> out;
  out.reserve(static_cast<std::size_t>(num_samples_));
  generator_or_default(generator_).with_engine([&](std::mt19937_64& engine) {
    if (replacement_) {
      std::uniform_int_distribution<std::int64_t> pick(0, n_);
      for (std::int64_t i = 0; i < num_samples_; ++i) out.push_back(pick(engine));
      return;
    }
    std::vector<std::int64_t> perm(static_cast<std::size_t>(n_));
    while (static_cast<std::int64_t>(out.size()) < num_samples_) {
      std::iota(perm.begin(), perm.end(), std::int64_t{0});
      std::shuffle(perm.begin(), perm.end(), engine);
      const auto take = std::min<std::int64_t>(n_, num_samples_ - static_cast<std::int64_t>(out.size()));
      out.insert(out.end(), perm.begin(), perm.begin() + take);
    }
  });
  return out;
  // END SOLUTION
}

}  // namespace kindling::data
