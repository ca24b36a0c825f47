// MUTANT: treats n as an inclusive upper end and yields 0..n (n + 1 indices)
// Task week04.sequential_sampler. The doc comment above each function is its contract;
// your code goes between BEGIN and END. Hints, one at a time: `./grade hint week04.sequential_sampler`.

#include <kindling/error.hpp>  // KINDLING_TODO, which the worksheet's stubs call
#include <kindling/sampler.hpp>

namespace kindling::data {

/// SequentialSampler: [0, 1, ..., n - 1], the dataset's indices in order.
std::vector<std::int64_t> SequentialSampler::indices() {
  // BEGIN SOLUTION week04.sequential_sampler
  std::vector<std::int64_t> out;
  for (std::int64_t i = 0; i <= n_; ++i) out.push_back(i);
  return out;
  // END SOLUTION
}

}  // namespace kindling::data
