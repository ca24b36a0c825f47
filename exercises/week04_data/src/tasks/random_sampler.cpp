// Task week04.random_sampler. The doc comment above each function is its contract; your code
// goes between BEGIN and END. Hints, one at a time: `./grade hint week04.random_sampler`.

#include <kindling/error.hpp>  // KINDLING_TODO, which the worksheet's stubs call
#include <kindling/sampler.hpp>

namespace kindling::data {

/// One epoch of indices, drawn from the generator.
std::vector<std::int64_t> RandomSampler::indices() {
  // BEGIN TASK week04.random_sampler (replace the stub below with your code)
  KINDLING_TODO("week04.random_sampler");
  // END TASK
}

}  // namespace kindling::data
