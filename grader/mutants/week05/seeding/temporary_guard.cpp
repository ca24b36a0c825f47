// MUTANT: writes GeneratorGuard{generator};, a temporary that restores the old default at once
// Task week05.seeding. The doc comment above each function is its contract; your code
// goes between BEGIN and END. Hints, one at a time: `./grade hint week05.seeding`.

#include <kindling/error.hpp>  // KINDLING_TODO, which the worksheet's stubs call
#include <kindling/reproducibility.hpp>

namespace kindling::data {

/// Kindling's per-item seed: with
///   mix(z): z += 0x9e3779b97f4a7c15; z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9;
///           z = (z ^ (z >> 27)) * 0x94d049bb133111eb; return z ^ (z >> 31);
/// return mix(mix(mix(seed) ^ uint64_t(epoch)) ^ uint64_t(index)). All arithmetic is
/// on std::uint64_t, where overflow wraps (as the rule intends).
std::uint64_t sample_seed(std::uint64_t seed, std::int64_t epoch, std::int64_t index) {
  // BEGIN SOLUTION week05.seeding
  auto mix = [](std::uint64_t z) {
    z += 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  };
  return mix(mix(mix(seed) ^ static_cast<std::uint64_t>(epoch)) ^ static_cast<std::uint64_t>(index));
  // END SOLUTION
}

SeededDataset::SeededDataset(std::shared_ptr<Dataset> inner, std::uint64_t seed)
    : inner_(std::move(inner)), seed_(seed) {
  KINDLING_CHECK(inner_ != nullptr, "SeededDataset needs a dataset");
}

/// Item `index` of the inner dataset, loaded while the calling thread's
/// default_generator() is a fresh Generator seeded with sample_seed(seed, epoch(),
/// index). Use a GeneratorGuard (kindling/generator.hpp): it restores the previous
/// default when it goes out of scope, whether get() returns or throws.
Example SeededDataset::get(std::int64_t index) {
  // BEGIN SOLUTION week05.seeding
  Generator generator(sample_seed(seed_, epoch_, index));
  GeneratorGuard{generator};
  return inner_->get(index);
  // END SOLUTION
}

}  // namespace kindling::data
