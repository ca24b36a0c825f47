// Task week04.weighted_sampler. The doc comment above each function is its contract; your code
// goes between BEGIN and END. Hints are in this week's README.md.

#include <kindling/error.hpp>  // KINDLING_TODO, which the worksheet's stubs call
#include <kindling/sampler.hpp>

namespace kindling::data {

std::vector<std::int64_t> WeightedRandomSampler::indices() {
  // BEGIN TASK week04.weighted_sampler (replace the stub below with your code)
  KINDLING_TODO("week04.weighted_sampler");
  // END TASK
}

}  // namespace kindling::data
