// MUTANT: refuses only negative counts, so count=0 is accepted
// Task week02.running_loss. The doc comment above each function is its contract; your code
// goes between BEGIN and END. Hints, one at a time: `./grade hint week02.running_loss`.

#include <string>

#include <kindling/error.hpp>  // KINDLING_TODO, which the worksheet's stubs call
#include <kindling/running_loss.hpp>

namespace kindling::autograd {

/// Adds loss * count to the total and count to the count.
/// - `loss` must hold exactly one element (any shape, any floating dtype); otherwise
///   throws kindling::Error with PyTorch's message for `.item()`,
///   `a Tensor with 2 elements cannot be converted to Scalar` (2: its numel).
/// - `count` must be positive; otherwise throws kindling::ValueError
///   `count should be a positive integer, but got count=0` (0: the value given).
/// - After a throw, total() and count() are unchanged.
/// - Keeps no reference to `loss` or to its graph: after the caller drops the
///   loss, Storage::allocated_bytes() is back where it was before the forward
///   pass that made it, however many losses were added.
void RunningLoss::add(const Tensor& loss, std::int64_t count) {
  // BEGIN SOLUTION week02.running_loss
  if (count < 0) throw ValueError("count should be a positive integer, but got count=" + std::to_string(count));
  const double value = loss.item<double>();  // a number: the graph stays with the caller
  total_ += value * static_cast<double>(count);
  count_ += count;
  // END SOLUTION
}

/// total() / count(). Throws kindling::ValueError
/// `RunningLoss.mean(): no loss was added` when count() is 0.
double RunningLoss::mean() const {
  // BEGIN SOLUTION week02.running_loss
  if (count_ == 0) throw ValueError("RunningLoss.mean(): no loss was added");
  return total_ / static_cast<double>(count_);
  // END SOLUTION
}

/// Forgets every loss: total() and count() become 0.
void RunningLoss::reset() {
  // BEGIN SOLUTION week02.running_loss
  total_ = 0.0;
  count_ = 0;
  // END SOLUTION
}

}  // namespace kindling::autograd
