#pragma once
/// @file running_loss.hpp
/// A running average of losses for logging that keeps no graph alive.
///
/// A loss tensor owns its grad_fn, which owns every node before it and what
/// those nodes saved for backward (activations of the whole batch). Summing
/// losses as tensors (`total = total + loss`) records one more node per step
/// and keeps every step's graph alive; RunningLoss keeps a plain number.

#include <cstdint>

#include <kindling/tensor.hpp>

namespace kindling::autograd {

/// The running mean of per-batch losses, as a training loop logs it
/// (`running_loss += loss.item() * batch_size`).
/// (Task week02.running_loss: the contract and the code are in src/tasks/running_loss.cpp.)
class RunningLoss {
 public:
  /// Adds one batch's mean loss `loss` (a one-element tensor, usually with a
  /// grad_fn) for `count` examples.
  void add(const Tensor& loss, std::int64_t count = 1);
  /// Sum over the added losses of loss * count.
  double total() const { return total_; }
  /// Sum of the counts added.
  std::int64_t count() const { return count_; }
  /// total() / count(); throws kindling::ValueError when nothing was added.
  double mean() const;
  /// Back to no losses at all.
  void reset();

 private:
  double total_ = 0.0;
  std::int64_t count_ = 0;
};

}  // namespace kindling::autograd
