#pragma once
/// @file lr_scheduler.hpp
/// kindling::optim::lr_scheduler: learning-rate schedules that follow PyTorch
/// 1.13's recursive ("chainable") formulas step by step, so that their sequences
/// match PyTorch's to rounding.

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <kindling/optim.hpp>

namespace kindling::optim::lr_scheduler {

/// Where the schedulers' warnings go (PyTorch's UserWarning): by default, printed
/// once each to stderr as "UserWarning: <text>". Returns the previous handler.
using WarningHandler = std::function<void(const std::string&)>;
/// Sends the schedulers' warnings to `handler`; returns the previous one.
WarningHandler set_warning_handler(WarningHandler handler);

/// PyTorch's text when scheduler.step() comes before any optimizer.step().
extern const char* const kStepOrderWarning;

/// The base of every schedule (torch.optim.lr_scheduler._LRScheduler). Creating one
/// records each group's "initial_lr" (once) and takes the first step, which sets the
/// learning rates for epoch 0.
class LRScheduler {
 public:
  virtual ~LRScheduler() = default;
  LRScheduler(const LRScheduler&) = delete;
  LRScheduler& operator=(const LRScheduler&) = delete;
  /// Advances one epoch and writes the new rates into the optimizer's groups.
  void step();
  /// Jumps to `epoch` with the closed form (what SequentialLR does at a milestone).
  void step(std::int64_t epoch);
  /// The rates set by the last step, one per group.
  const std::vector<double>& get_last_lr() const { return last_lr_; }
  /// The epoch of the last step (0 after construction).
  std::int64_t last_epoch() const { return last_epoch_; }

 protected:
  /// Binds to `optimizer`; a subclass constructor calls initial_step() once its
  /// own members are set.
  explicit LRScheduler(Optimizer& optimizer);
  /// The first step (epoch 0), as PyTorch's constructor takes it.
  void initial_step();
  /// The rates for last_epoch_ from the groups' current rates (chainable form).
  virtual std::vector<double> get_lr() const = 0;
  /// The rates for last_epoch_ from base_lrs_ alone.
  virtual std::vector<double> closed_form_lr() const = 0;
  /// The current rate of every group.
  std::vector<double> current_lrs() const;
  Optimizer& optimizer_;          ///< the optimizer whose rates this schedule sets
  std::vector<double> base_lrs_;  ///< each group's initial_lr
  std::int64_t last_epoch_ = -1;  ///< the epoch of the last step
  std::int64_t step_count_ = 0;   ///< steps taken, the constructor's included
  std::vector<double> last_lr_;   ///< the rates the last step set
  friend class SequentialLR;
};

/// lr * gamma every `step_size` epochs.
class StepLR : public LRScheduler {
 public:
  /// Decays by `gamma` every `step_size` epochs.
  StepLR(Optimizer& optimizer, std::int64_t step_size, double gamma = 0.1);

 protected:
  std::vector<double> get_lr() const override;
  std::vector<double> closed_form_lr() const override;
  std::int64_t step_size_;  ///< epochs between decays
  double gamma_;            ///< the decay factor
};

/// lr * gamma at each milestone epoch.
class MultiStepLR : public LRScheduler {
 public:
  /// Decays by `gamma` at each of `milestones` (increasing epochs).
  MultiStepLR(Optimizer& optimizer, std::vector<std::int64_t> milestones, double gamma = 0.1);

 protected:
  std::vector<double> get_lr() const override;
  std::vector<double> closed_form_lr() const override;
  std::vector<std::int64_t> milestones_;  ///< the epochs at which the rate decays
  double gamma_;                          ///< the decay factor
};

/// lr * gamma every epoch.
class ExponentialLR : public LRScheduler {
 public:
  /// Decays by `gamma` every epoch.
  ExponentialLR(Optimizer& optimizer, double gamma);

 protected:
  std::vector<double> get_lr() const override;
  std::vector<double> closed_form_lr() const override;
  double gamma_;  ///< the decay factor per epoch
};

/// Cosine annealing from the base rate down to eta_min over T_max epochs (and back
/// up, if stepped further), by PyTorch's recursive formula. (Task week05.cosine_schedule.)
class CosineAnnealingLR : public LRScheduler {
 public:
  /// Anneals to `eta_min` over `T_max` epochs.
  CosineAnnealingLR(Optimizer& optimizer, std::int64_t T_max, double eta_min = 0.0);

 protected:
  std::vector<double> get_lr() const override;
  std::vector<double> closed_form_lr() const override;
  std::int64_t T_max_;  ///< epochs from the base rate down to eta_min
  double eta_min_;      ///< the lowest rate
};

/// A linear ramp of the rate's factor from start_factor to end_factor over
/// total_iters epochs: the usual warm-up. (Task week05.cosine_schedule.)
class LinearLR : public LRScheduler {
 public:
  /// Ramps the factor; PyTorch's ValueErrors for factors outside (0, 1] and [0, 1].
  LinearLR(Optimizer& optimizer, double start_factor = 1.0 / 3, double end_factor = 1.0, std::int64_t total_iters = 5);

 protected:
  std::vector<double> get_lr() const override;
  std::vector<double> closed_form_lr() const override;
  double start_factor_;       ///< the factor at epoch 0
  double end_factor_;         ///< the factor from total_iters on
  std::int64_t total_iters_;  ///< epochs of the ramp
};

/// Runs `schedulers` one after another, switching at `milestones` (one fewer than
/// schedulers): warm-up then decay.
class SequentialLR {
 public:
  /// Takes over the schedulers (already created on `optimizer`), as PyTorch does:
  /// resets the rates to initial_lr and replays the first scheduler's first step.
  SequentialLR(Optimizer& optimizer, std::vector<std::shared_ptr<LRScheduler>> schedulers,
               std::vector<std::int64_t> milestones);
  /// Advances one epoch: steps the scheduler whose interval contains it (from its
  /// epoch 0 at a milestone).
  void step();
  /// The rates after the last step.
  const std::vector<double>& get_last_lr() const { return last_lr_; }

 private:
  Optimizer& optimizer_;
  std::vector<std::shared_ptr<LRScheduler>> schedulers_;
  std::vector<std::int64_t> milestones_;
  std::int64_t last_epoch_ = 0;
  std::vector<double> last_lr_;
};

/// Cuts the rate by `factor` once a metric has stopped improving for `patience`
/// epochs (torch.optim.lr_scheduler.ReduceLROnPlateau). Stepped with the metric:
/// `scheduler.step(validation_loss)`.
class ReduceLROnPlateau {
 public:
  /// The options, with PyTorch's defaults.
  struct Config {
    std::string mode = "min";            ///< "min": lower is better; "max": higher is better
    double factor = 0.1;                 ///< new rate = rate * factor (must be < 1)
    std::int64_t patience = 10;          ///< epochs without improvement tolerated
    double threshold = 1e-4;             ///< how much better counts as better
    std::string threshold_mode = "rel";  ///< "rel": relative to the best; "abs": absolute
    std::int64_t cooldown = 0;           ///< epochs to wait after a cut before counting again
    double min_lr = 0;                   ///< the rate never goes below this
    double eps = 1e-8;                   ///< a cut smaller than this is skipped
  };
  /// Checks the options as PyTorch does (ValueError "Factor should be < 1.0.", and
  /// the mode and threshold_mode names).
  ReduceLROnPlateau(Optimizer& optimizer, Config config);
  /// One epoch's metric: a better one resets the count of bad epochs; more than
  /// `patience` bad epochs (outside a cooldown) cut every group's rate.
  void step(double metric);
  /// The rates after the last step.
  const std::vector<double>& get_last_lr() const { return last_lr_; }

 private:
  bool is_better(double a) const;
  Optimizer& optimizer_;
  Config c_;
  double best_;
  std::int64_t bad_epochs_ = 0, cooldown_counter_ = 0, last_epoch_ = 0;
  std::vector<double> last_lr_;
};

}  // namespace kindling::optim::lr_scheduler
