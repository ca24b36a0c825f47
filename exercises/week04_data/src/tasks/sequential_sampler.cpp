// Task week04.sequential_sampler. The doc comment above each function is its contract;
// your code goes between BEGIN and END. Hints, one at a time: `./grade hint week04.sequential_sampler`.

#include <kindling/error.hpp>  // KINDLING_TODO, which the worksheet's stubs call
#include <kindling/sampler.hpp>

namespace kindling::data {

/// SequentialSampler: [0, 1, ..., n - 1], the dataset's indices in order.
std::vector<std::int64_t> SequentialSampler::indices() {
  // BEGIN TASK week04.sequential_sampler (replace the stub below with your code)
  KINDLING_TODO("week04.sequential_sampler");
  // END TASK
}

}  // namespace kindling::data
