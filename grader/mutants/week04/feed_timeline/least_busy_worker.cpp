// MUTANT: a batch goes to the worker that is free first, not to worker k mod n
// Task week04.feed_timeline. The doc comment above each function is its contract;
// your code goes between BEGIN and END. Hints, one at a time: `./grade hint week04.feed_timeline`.

#include <algorithm>
#include <cmath>
#include <utility>

#include <kindling/error.hpp>  // KINDLING_TODO, which the worksheet's stubs call
#include <kindling/feed.hpp>

namespace kindling::data {

/// One epoch of the DataLoader's protocol, timed (see <kindling/feed.hpp>): with n workers and
/// prefetch_factor p, the first n × p batches (or all, if fewer) are sent when the epoch starts,
/// batch k to worker k mod n; each worker loads its batches one after another in the order they
/// were sent; the loop takes batch k once it is ready and its step on batch k - 1 is done, and
/// taking a batch sends the next unsent one at that moment. With no workers the loop loads each
/// batch itself when it asks for it. The errors are listed in <kindling/feed.hpp>.
std::vector<FedBatch> feed_timeline(const std::vector<double>& load_ms, double step_ms, std::int64_t num_workers,
                                    std::int64_t prefetch_factor) {
  // BEGIN SOLUTION week04.feed_timeline
  const auto check_time = [](double ms, const char* what) {
    KINDLING_CHECK_AS(ValueError, std::isfinite(ms) && ms >= 0, what,
                      " should be a finite, non-negative time in ms, but got ", ms);
  };
  for (const double ms : load_ms) check_time(ms, "load_ms");
  check_time(step_ms, "step_ms");
  KINDLING_CHECK_AS(ValueError, num_workers >= 0,
                    "num_workers option should be non-negative; use num_workers=0 to disable multiprocessing.");
  KINDLING_CHECK_AS(ValueError, prefetch_factor > 0, "prefetch_factor should be a positive integer value, but got ",
                    prefetch_factor);
  const auto total = static_cast<std::int64_t>(load_ms.size());
  std::vector<FedBatch> out(load_ms.size());
  double loop_free = 0;  // when the loop's step on the previous batch ends
  if (num_workers == 0) {
    for (std::int64_t k = 0; k < total; ++k) {
      FedBatch& b = out[static_cast<std::size_t>(k)];
      b.sent = b.begin = loop_free;
      b.ready = b.taken = b.begin + load_ms[static_cast<std::size_t>(k)];
      b.done = loop_free = b.taken + step_ms;
    }
    return out;
  }
  // (Sized and capped so that no num_workers or prefetch_factor overflows or over-allocates.)
  std::vector<double> worker_free(static_cast<std::size_t>(std::min(num_workers, total)), 0.0);
  const std::int64_t rounds = total / num_workers + (total % num_workers != 0);  // batches per worker
  const std::int64_t cap = prefetch_factor >= rounds ? total : num_workers * prefetch_factor;
  std::int64_t sent = 0;
  const auto send = [&](double at) {
    FedBatch& b = out[static_cast<std::size_t>(sent)];
    b.worker = std::min_element(worker_free.begin(), worker_free.end()) - worker_free.begin();
    double& free = worker_free[static_cast<std::size_t>(b.worker)];
    b.sent = at;
    b.begin = std::max(at, free);
    b.ready = free = b.begin + load_ms[static_cast<std::size_t>(sent)];
    ++sent;
  };
  while (sent < cap) send(0);
  for (std::int64_t k = 0; k < total; ++k) {
    FedBatch& b = out[static_cast<std::size_t>(k)];
    b.taken = std::max(loop_free, b.ready);
    if (sent < total) send(b.taken);  // taking batch k frees its slot
    b.done = loop_free = b.taken + step_ms;
  }
  return out;
  // END SOLUTION
}

/// The smallest n with n × step_ms >= load_ms, computed in double (0 when load_ms is 0); see
/// <kindling/feed.hpp> for the errors.
std::int64_t workers_to_feed(double load_ms, double step_ms) {
  // BEGIN SOLUTION week04.feed_timeline
  for (const auto& [ms, what] : {std::pair{load_ms, "load_ms"}, std::pair{step_ms, "step_ms"}})
    KINDLING_CHECK_AS(ValueError, std::isfinite(ms) && ms >= 0, what,
                      " should be a finite, non-negative time in ms, but got ", ms);
  KINDLING_CHECK_AS(ValueError, step_ms > 0 || load_ms == 0,
                    "no number of workers keeps up with a loop that takes no time (step_ms 0, load_ms ", load_ms, ")");
  KINDLING_CHECK_AS(ValueError, load_ms <= 1e12 * step_ms, "load_ms ", load_ms, " over step_ms ", step_ms,
                    " asks for more than 10^12 workers");
  if (load_ms == 0) return 0;
  auto n = static_cast<std::int64_t>(std::ceil(load_ms / step_ms));
  while (n > 1 && static_cast<double>(n - 1) * step_ms >= load_ms) --n;  // the quotient rounded up past a whole
  while (static_cast<double>(n) * step_ms < load_ms) ++n;                // or down below one
  return n;
  // END SOLUTION
}

}  // namespace kindling::data
