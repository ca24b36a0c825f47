// Task week05.cosine_schedule. The doc comment above each function is its contract; your code
// goes between BEGIN and END. Hints, one at a time: `./grade hint week05.cosine_schedule`.

#include <cmath>
#include <numbers>

#include <kindling/error.hpp>  // KINDLING_TODO, which the worksheet's stubs call
#include <kindling/lr_scheduler.hpp>
#include <kindling/module.hpp>

namespace kindling::optim::lr_scheduler {

CosineAnnealingLR::CosineAnnealingLR(Optimizer& optimizer, std::int64_t T_max, double eta_min)
    : LRScheduler(optimizer), T_max_(T_max), eta_min_(eta_min) {
  // PyTorch divides by T_max at the first step (ZeroDivisionError); Kindling refuses at once.
  KINDLING_CHECK_AS(ValueError, T_max > 0, "T_max must be a positive number of epochs, got ", T_max);
  initial_step();
}

/// The rates for epoch last_epoch_ (at least 0) from the groups' current rates
/// (current_lrs()) and base_lrs_, by PyTorch 1.13's recursive formula, per group:
/// - epoch 0: the current rate, unchanged;
/// - when (epoch - 1 - T_max) is a multiple of 2 T_max (the bottom of a cycle was
///   just passed): lr + (base - eta_min) (1 - cos(pi / T_max)) / 2;
/// - otherwise: (1 + cos(pi epoch / T_max)) / (1 + cos(pi (epoch - 1) / T_max))
///   (lr - eta_min) + eta_min.
/// Computed in double, as Python does.
std::vector<double> CosineAnnealingLR::get_lr() const {
  // BEGIN SOLUTION week05.cosine_schedule
  const double pi = std::numbers::pi;
  const auto t = static_cast<double>(last_epoch_);
  const auto T = static_cast<double>(T_max_);
  std::vector<double> lrs = current_lrs();
  if (last_epoch_ == 0) return lrs;
  for (std::size_t i = 0; i < lrs.size(); ++i) {
    if ((last_epoch_ - 1 - T_max_) % (2 * T_max_) == 0)
      lrs[i] = lrs[i] + (base_lrs_[i] - eta_min_) * (1 - std::cos(pi / T)) / 2;
    else
      lrs[i] = (1 + std::cos(pi * t / T)) / (1 + std::cos(pi * (t - 1) / T)) * (lrs[i] - eta_min_) + eta_min_;
  }
  return lrs;
  // END SOLUTION
}

/// The closed form for epoch last_epoch_: eta_min + (base - eta_min)(1 + cos(pi epoch / T_max)) / 2.
std::vector<double> CosineAnnealingLR::closed_form_lr() const {
  // BEGIN SOLUTION week05.cosine_schedule
  std::vector<double> lrs;
  for (double base : base_lrs_)
    lrs.push_back(
        eta_min_ +
        (base - eta_min_) *
            (1 + std::cos(std::numbers::pi * static_cast<double>(last_epoch_) / static_cast<double>(T_max_))) / 2);
  return lrs;
  // END SOLUTION
}

LinearLR::LinearLR(Optimizer& optimizer, double start_factor, double end_factor, std::int64_t total_iters)
    : LRScheduler(optimizer), start_factor_(start_factor), end_factor_(end_factor), total_iters_(total_iters) {
  KINDLING_CHECK_AS(ValueError, start_factor >= 0 && start_factor <= 1,
                    "Starting multiplicative factor expected to be between 0 and 1.");
  KINDLING_CHECK_AS(ValueError, end_factor >= 0 && end_factor <= 1,
                    "Ending multiplicative factor expected to be between 0 and 1.");
  KINDLING_CHECK_AS(ValueError, total_iters > 0, "total_iters must be a positive number of epochs, got ", total_iters);
  // PyTorch accepts a start_factor of 0 and divides by total_iters * start_factor at the first step
  // (ZeroDivisionError); Kindling refuses at once, in those words, where the rate would become NaN.
  KINDLING_CHECK(start_factor > 0, "float division by zero");
  initial_step();
}

/// The warm-up ramp by PyTorch 1.13's recursive formula, per group:
/// - epoch 0: lr * start_factor;
/// - epoch > total_iters: lr, unchanged;
/// - otherwise: lr * (1 + (end - start) / (total_iters * start + (epoch - 1)(end - start))).
std::vector<double> LinearLR::get_lr() const {
  // BEGIN SOLUTION week05.cosine_schedule
  std::vector<double> lrs = current_lrs();
  const double span = end_factor_ - start_factor_;
  for (double& lr : lrs) {
    if (last_epoch_ == 0)
      lr *= start_factor_;
    else if (last_epoch_ <= total_iters_)
      lr *= 1.0 +
            span / (static_cast<double>(total_iters_) * start_factor_ + static_cast<double>(last_epoch_ - 1) * span);
  }
  return lrs;
  // END SOLUTION
}

/// The closed form: base * (start + (end - start) min(total_iters, epoch) / total_iters).
std::vector<double> LinearLR::closed_form_lr() const {
  // BEGIN SOLUTION week05.cosine_schedule
  std::vector<double> lrs;
  const auto done = static_cast<double>(std::min(total_iters_, last_epoch_));
  for (double base : base_lrs_)
    lrs.push_back(base * (start_factor_ + (end_factor_ - start_factor_) * done / static_cast<double>(total_iters_)));
  return lrs;
  // END SOLUTION
}

}  // namespace kindling::optim::lr_scheduler
