// Task week04.weighted_sampler. The doc comment above each function is its contract; your code
// goes between BEGIN and END. Hints, one at a time: `./grade hint week04.weighted_sampler`.

#include <kindling/error.hpp>  // KINDLING_TODO, which the worksheet's stubs call
#include <kindling/sampler.hpp>

namespace kindling::data {

/// One epoch of num_samples indices (as torch.multinomial), checking the
/// arguments first, in this order. Throws kindling::Error, word for word:
/// - with replacement, weight by weight from the first: a negative or NaN weight,
///   "invalid multinomial distribution (encountering probability entry < 0)"; an infinite one,
///   "invalid multinomial distribution (encountering probability entry = infinity or NaN)";
/// - without replacement, first num_samples > number of weights:
///   "cannot sample n_sample > prob_dist.size(-1) samples without replacement";
///   then any infinite, NaN or negative weight:
///   "probability tensor contains either `inf`, `nan` or element < 0";
/// - then, either way, all weights zero: "invalid multinomial distribution (sum of probabilities <= 0)".
/// With replacement, draws are independent, and each costs O(1) or O(log n) after
/// at most O(n) work once per epoch: never a scan of all weights per draw.
/// Without replacement, the first index is drawn by weight, the next by weight
/// among those left, and so on; once only zero weights are left, those are
/// drawn uniformly.
std::vector<std::int64_t> WeightedRandomSampler::indices() {
  // BEGIN TASK week04.weighted_sampler (replace the stub below with your code)
  KINDLING_TODO("week04.weighted_sampler");
  // END TASK
}

}  // namespace kindling::data
