#pragma once
/// @file feed.hpp
/// How many workers keep a training loop fed: the DataLoader's protocol as a timeline.
///
/// feed_timeline() plays one epoch of the DataLoader's protocol with given durations instead of a
/// real dataset: batch k goes to worker k mod n, at most n × prefetch_factor batches are out, the
/// loop takes them in order and hands a slot back as it takes one. It answers, before anything
/// runs, what a profiler shows afterwards: when each batch was loaded, when the loop got it, and
/// how long the loop waited. workers_to_feed() is the rule that the timeline shows for batches
/// that all take the same time (up to rounding: the timeline adds its times one step at a time).
///
/// @code
/// // 12 ms to load a batch, 3 ms to train on it: 4 workers, and the loop waits only for batch 0.
/// const auto t = data::feed_timeline(std::vector<double>(64, 12.0), 3.0, data::workers_to_feed(12.0, 3.0));
/// @endcode

#include <cstdint>
#include <vector>

namespace kindling::data {

/// One batch's life in feed_timeline(), in milliseconds from the start of the epoch.
struct FedBatch {
  std::int64_t worker = -1;  ///< the worker that loads it (-1: the loop itself, with no workers)
  double sent = 0;           ///< when it is handed to its worker (with no workers: when the loop asks)
  double begin = 0;          ///< when loading it starts
  double ready = 0;          ///< when it is loaded and collated
  double taken = 0;          ///< when the loop's next() returns it
  double done = 0;           ///< when the loop has finished its step on it
};

/// One epoch of the DataLoader's protocol, timed: batch k takes `load_ms[k]` to load (on a worker
/// with a core of its own, or in the loop with `num_workers` 0) and the loop spends `step_ms` on
/// each batch it gets (the copy to the device and the step, as the host sees them). Returns one
/// FedBatch per batch, in order. Throws ValueError for a time that is negative or not finite
/// ("load_ms should be a finite, non-negative time in ms, but got -1"), a negative `num_workers`
/// (the DataLoader's own message) or a `prefetch_factor` below 1 (likewise).
std::vector<FedBatch> feed_timeline(const std::vector<double>& load_ms, double step_ms, std::int64_t num_workers,
                                    std::int64_t prefetch_factor = 2);

/// The fewest workers with which a loop that spends `step_ms` per batch never waits after the
/// first batch, when every batch takes `load_ms` to load: the smallest n with n × step_ms >=
/// load_ms in double arithmetic (0 when loading takes no time). Throws ValueError for times that
/// are negative or not finite (as feed_timeline), for `step_ms` 0 with `load_ms` above 0 ("no
/// number of workers keeps up with a loop that takes no time (step_ms 0, load_ms 1)"), and when
/// the answer would exceed 10^12 ("load_ms 1e+300 over step_ms 1e-300 asks for more than 10^12
/// workers").
std::int64_t workers_to_feed(double load_ms, double step_ms);

}  // namespace kindling::data
