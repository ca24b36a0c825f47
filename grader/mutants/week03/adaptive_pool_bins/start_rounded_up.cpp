// MUTANT: rounds the start up like the end, so bins never overlap and the elements between them are skipped
// Task week03.adaptive_pool_bins. The doc comment above each function is its contract; your code
// goes between BEGIN and END. Hints, one at a time: `./grade hint week03.adaptive_pool_bins`.

#include <kindling/error.hpp>  // KINDLING_TODO, which the worksheet's stubs call
#include <kindling/pooling.hpp>

namespace kindling::nn {

/// The window of output cell `i` of an adaptive pool from length `in` to
/// length `out`: [floor(i * in / out), ceil((i + 1) * in / out)). The windows
/// cover the input, may overlap by one, and all have the same length when `out`
/// divides `in` (then the pool equals avg_pool with kernel = stride = in / out).
/// Returns {start, end}; requires 0 <= i < out.
std::pair<std::int64_t, std::int64_t> adaptive_pool_bin(std::int64_t i, std::int64_t in, std::int64_t out) {
  // BEGIN SOLUTION week03.adaptive_pool_bins
  const std::int64_t start = (i * in + out - 1) / out;
  const std::int64_t end = ((i + 1) * in + out - 1) / out;
  return {start, end};
  // END SOLUTION
}

}  // namespace kindling::nn
