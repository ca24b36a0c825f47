// Task week04.batch_sampler. The doc comment above each function is its contract; your code
// goes between BEGIN and END. Hints, one at a time: `./grade hint week04.batch_sampler`.

#include <kindling/error.hpp>  // KINDLING_TODO, which the worksheet's stubs call
#include <kindling/sampler.hpp>

namespace kindling::data {

/// One epoch of batches: the sampler's indices in order, cut every batch_size.
std::vector<std::vector<std::int64_t>> BatchSampler::batches() {
  // BEGIN TASK week04.batch_sampler (replace the stub below with your code)
  KINDLING_TODO("week04.batch_sampler");
  // END TASK
}

}  // namespace kindling::data

namespace kindling::data {

/// Batches per epoch: n / batch_size rounded down with drop_last, up without.
std::int64_t BatchSampler::size() const {
  // BEGIN TASK week04.batch_sampler (replace the stub below with your code)
  KINDLING_TODO("week04.batch_sampler");
  // END TASK
}

}  // namespace kindling::data
