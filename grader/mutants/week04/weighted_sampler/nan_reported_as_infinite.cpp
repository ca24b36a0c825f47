// MUTANT: checks finiteness before sign, so a NaN weight gets the "infinity or NaN" message instead of PyTorch's "< 0"
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
  // BEGIN SOLUTION week04.weighted_sampler
  const auto n = static_cast<std::int64_t>(weights_.size());
  KINDLING_CHECK(replacement_ || num_samples_ <= n,
                 "cannot sample n_sample > prob_dist.size(-1) samples without replacement");
  double total = 0;
  for (double w : weights_) {
    if (replacement_) {
      KINDLING_CHECK(std::isfinite(w),
                     "invalid multinomial distribution (encountering probability entry = infinity or NaN)");
      KINDLING_CHECK(!(w < 0) && !std::isnan(w),
                     "invalid multinomial distribution (encountering probability entry < 0)");
    } else {
      KINDLING_CHECK(w >= 0 && std::isfinite(w), "probability tensor contains either `inf`, `nan` or element < 0");
    }
    total += w;
  }
  KINDLING_CHECK(total > 0, "invalid multinomial distribution (sum of probabilities <= 0)");
  std::vector<std::int64_t> out(static_cast<std::size_t>(num_samples_));
  generator_or_default(generator_).with_engine([&](std::mt19937_64& engine) {
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    if (replacement_) {
      // Vose's alias table: each of the n columns holds probability mass 1/n,
      // split between its own index and one alias. A draw is one column and one coin.
      std::vector<double> prob(static_cast<std::size_t>(n));
      std::vector<std::int64_t> alias(static_cast<std::size_t>(n), 0);
      std::vector<std::int64_t> small, large;
      for (std::int64_t i = 0; i < n; ++i) {
        prob[static_cast<std::size_t>(i)] = weights_[static_cast<std::size_t>(i)] * static_cast<double>(n) / total;
        (prob[static_cast<std::size_t>(i)] < 1.0 ? small : large).push_back(i);
      }
      while (!small.empty() && !large.empty()) {
        const std::int64_t s = small.back(), l = large.back();
        small.pop_back();
        alias[static_cast<std::size_t>(s)] = l;
        prob[static_cast<std::size_t>(l)] -= 1.0 - prob[static_cast<std::size_t>(s)];
        if (prob[static_cast<std::size_t>(l)] < 1.0) {
          large.pop_back();
          small.push_back(l);
        }
      }
      for (std::int64_t i : large) prob[static_cast<std::size_t>(i)] = 1.0;  // rounding leftovers
      for (std::int64_t i : small) prob[static_cast<std::size_t>(i)] = 1.0;
      std::uniform_int_distribution<std::int64_t> column(0, n - 1);
      for (auto& o : out) {
        const std::int64_t c = column(engine);
        o = unit(engine) < prob[static_cast<std::size_t>(c)] ? c : alias[static_cast<std::size_t>(c)];
      }
      return;
    }
    // Without replacement: the exponential race. Index i "arrives" at time E_i / w_i
    // with E_i ~ Exp(1); the first arrivals are a draw without replacement by
    // weight. Zero weights never arrive; they get negative keys in random order.
    std::exponential_distribution<double> exp1(1.0);
    std::vector<std::pair<double, std::int64_t>> keys(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i) {
      const double w = weights_[static_cast<std::size_t>(i)], e = exp1(engine);
      keys[static_cast<std::size_t>(i)] = {w > 0 ? w / e : -e, i};  // larger key = earlier arrival
    }
    const auto k = static_cast<std::ptrdiff_t>(num_samples_);
    // The k largest keys, in order: select them first, then sort only those.
    std::nth_element(keys.begin(), keys.begin() + (k - 1), keys.end(), std::greater<>());
    std::sort(keys.begin(), keys.begin() + k, std::greater<>());
    for (std::ptrdiff_t i = 0; i < k; ++i) out[static_cast<std::size_t>(i)] = keys[static_cast<std::size_t>(i)].second;
  });
  return out;
  // END SOLUTION
}

}  // namespace kindling::data
