// MUTANT: numbers the indices from 1, counting items instead of positions
// Task week04.sequential_sampler. The doc comment above each function is its contract;
// your code goes between BEGIN and END. Hints, one at a time: `./grade hint week04.sequential_sampler`.

#include <kindling/error.hpp>  // KINDLING_TODO, which the worksheet's stubs call
#include <kindling/sampler.hpp>

namespace kindling::data {

/// SequentialSampler: [0, 1, ..., n - 1], the dataset's indices in order.
std::vector<std::int64_t> SequentialSampler::indices() {
  // BEGIN SOLUTION week04.sequential_sampler
  std::vector<std::int64_t> out(static_cast<std::size_t>(n_));
  std::iota(out.begin(), out.end(), std::int64_t{1});
  return out;
  // END SOLUTION
}

}  // namespace kindling::data
