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
  // BEGIN TASK week04.feed_timeline (replace the stub below with your code)
  KINDLING_TODO("week04.feed_timeline");
  // END TASK
}

/// The smallest n with n × step_ms >= load_ms, computed in double (0 when load_ms is 0); see
/// <kindling/feed.hpp> for the errors.
std::int64_t workers_to_feed(double load_ms, double step_ms) {
  // BEGIN TASK week04.feed_timeline (replace the stub below with your code)
  KINDLING_TODO("week04.feed_timeline");
  // END TASK
}

}  // namespace kindling::data
