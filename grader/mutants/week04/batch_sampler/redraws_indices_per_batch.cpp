// MUTANT: asks the sampler for the epoch inside the loop: each batch slices a different permutation
// Task week04.batch_sampler. The doc comment above each function is its contract; your code
// goes between BEGIN and END. Hints, one at a time: `./grade hint week04.batch_sampler`.

#include <kindling/error.hpp>  // KINDLING_TODO, which the worksheet's stubs call
#include <kindling/sampler.hpp>

namespace kindling::data {

/// One epoch of batches: the sampler's indices in order, cut every batch_size.
std::vector<std::vector<std::int64_t>> BatchSampler::batches() {
  // BEGIN SOLUTION week04.batch_sampler
  std::vector<std::vector<std::int64_t>> out;
  const auto total = static_cast<std::size_t>(sampler_->size());
  for (std::size_t start = 0; start < total; start += static_cast<std::size_t>(batch_size_)) {
    const std::vector<std::int64_t> all = sampler_->indices();
    const std::size_t end = std::min(all.size(), start + static_cast<std::size_t>(batch_size_));
    if (drop_last_ && end - start < static_cast<std::size_t>(batch_size_)) break;
    out.emplace_back(all.begin() + static_cast<std::ptrdiff_t>(start), all.begin() + static_cast<std::ptrdiff_t>(end));
  }
  return out;
  // END SOLUTION
}

}  // namespace kindling::data

namespace kindling::data {

/// Batches per epoch: n / batch_size rounded down with drop_last, up without.
std::int64_t BatchSampler::size() const {
  // BEGIN SOLUTION week04.batch_sampler
  const std::int64_t n = sampler_->size();
  return drop_last_ ? n / batch_size_ : (n + batch_size_ - 1) / batch_size_;
  // END SOLUTION
}

}  // namespace kindling::data
