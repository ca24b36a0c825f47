#pragma once
/// @file lr_scheduler.hpp
/// kindling::optim::lr_scheduler: learning-rate schedules that follow PyTorch
/// 1.13's recursive ("chainable") formulas step by step, so that their sequences
/// match PyTorch's to rounding.

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
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

/// A schedule's state, as PyTorch's scheduler.state_dict() names it (every attribute but the optimizer):
/// numbers as lists (a scalar is a list of one; a bool is 0 or 1), strings apart. Nested schedules
/// (SequentialLR's _schedulers) are flattened as "_schedulers.<i>.<key>".
///
/// As in PyTorch, a schedule's state is not the optimizer's: the groups' "lr" (which the
/// chainable schedules read back), "initial_lr" and OneCycleLR's "max_lr", "min_lr",
/// "max_momentum", "base_momentum" and cycled "momentum"/"beta1" travel with the optimizer's
/// own state (Optimizer::state_dict()'s param_groups), to be restored alongside.
///
/// Keys that differ from PyTorch's: OneCycleLR's "anneal_func" (a bound method) is stored
/// as the string "anneal_strategy" ("cos" or "linear"); ReduceLROnPlateau's "_last_lr" is
/// present from construction on (PyTorch sets it at the first step).
struct SchedulerState {
  std::map<std::string, std::vector<double>> numbers;  ///< "base_lrs" -> {0.1}, "last_epoch" -> {37}, ...
  std::map<std::string, std::string> strings;          ///< "mode" -> "min", "anneal_strategy" -> "cos", ...
};

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
  /// PyTorch's scheduler.state_dict(): base_lrs, last_epoch, _step_count, _last_lr, verbose (always 0)
  /// and _get_lr_called_within_step (0 between steps), plus each schedule's own attributes.
  virtual SchedulerState state_dict() const;
  /// Restores what state_dict() saved (the optimizer's groups are left alone, as in PyTorch).
  /// Unlike PyTorch's __dict__.update, it checks first: a key it needs that is missing, holds
  /// a string where numbers belong (or the reverse), has the wrong length (base_lrs and _last_lr
  /// need one value per group, a scalar one value), or holds a non-integer where an integer
  /// belongs throws ValueError naming the key, and nothing changes. verbose and
  /// _get_lr_called_within_step are optional and ignored; keys it does not know are ignored.
  virtual void load_state_dict(const SchedulerState& state);

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
  /// Adds "step_size" and "gamma".
  SchedulerState state_dict() const override;
  /// Loads "step_size" and "gamma" too.
  void load_state_dict(const SchedulerState& state) override;

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
  /// Adds "milestones" (PyTorch's Counter, as its sorted epochs, repeats included) and "gamma".
  SchedulerState state_dict() const override;
  /// Loads "milestones" (any number of epochs) and "gamma" too.
  void load_state_dict(const SchedulerState& state) override;

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
  /// Adds "gamma".
  SchedulerState state_dict() const override;
  /// Loads "gamma" too.
  void load_state_dict(const SchedulerState& state) override;

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
  /// Adds "T_max" and "eta_min".
  SchedulerState state_dict() const override;
  /// Loads "T_max" and "eta_min" too.
  void load_state_dict(const SchedulerState& state) override;

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
  /// Ramps the factor; PyTorch's ValueErrors for factors outside [0, 1], then Error "float division
  /// by zero" for a start_factor of 0 (PyTorch's ZeroDivisionError at the first step).
  LinearLR(Optimizer& optimizer, double start_factor = 1.0 / 3, double end_factor = 1.0, std::int64_t total_iters = 5);
  /// Adds "start_factor", "end_factor" and "total_iters".
  SchedulerState state_dict() const override;
  /// Loads "start_factor", "end_factor" and "total_iters" too.
  void load_state_dict(const SchedulerState& state) override;

 protected:
  std::vector<double> get_lr() const override;
  std::vector<double> closed_form_lr() const override;
  double start_factor_;       ///< the factor at epoch 0
  double end_factor_;         ///< the factor from total_iters on
  std::int64_t total_iters_;  ///< epochs of the ramp
};

/// The 1cycle policy (torch.optim.lr_scheduler.OneCycleLR), stepped once per batch: the
/// rate rises from max_lr / div_factor to max_lr over the first pct_start of total_steps,
/// then falls to initial_lr / final_div_factor (with three_phase: back to initial_lr, then
/// down to the minimum), while the momentum (SGD's "momentum", or "beta1" for Adam-style
/// groups) moves the opposite way between max_momentum and base_momentum. Not chainable:
/// every step computes the rate from the groups' "initial_lr", "max_lr" and "min_lr", which
/// the constructor sets, as PyTorch does (with "max_momentum" and "base_momentum" when it
/// cycles the momentum).
class OneCycleLR : public LRScheduler {
 public:
  /// The options, with PyTorch's defaults. Give total_steps, or epochs and steps_per_epoch.
  struct Config {
    std::optional<std::int64_t> total_steps;      ///< steps in the cycle
    std::optional<std::int64_t> epochs;           ///< with steps_per_epoch, total_steps = epochs * steps_per_epoch
    std::optional<std::int64_t> steps_per_epoch;  ///< see epochs
    double pct_start = 0.3;                       ///< the fraction of the steps spent raising the rate
    std::string anneal_strategy = "cos";          ///< "cos" or "linear"
    bool cycle_momentum = true;                   ///< move the momentum (or beta1) against the rate
    std::vector<double> base_momentum{0.85};      ///< the momentum at the peak rate: one value, or one per group
    std::vector<double> max_momentum{0.95};       ///< the momentum at the start: one value, or one per group
    double div_factor = 25.0;                     ///< initial_lr = max_lr / div_factor
    double final_div_factor = 1e4;                ///< min_lr = initial_lr / final_div_factor
    bool three_phase = false;                     ///< come back to initial_lr before annealing to min_lr
  };
  /// Checks the options in PyTorch's order and with its texts: ValueError "You must define
  /// either total_steps OR (epochs AND steps_per_epoch)", "Expected positive integer
  /// total_steps, but got 0" (and for epochs, steps_per_epoch), "Expected float between 0 and
  /// 1 pct_start, but got 1.5", "anneal_strategy must by one of 'cos' or 'linear', instead got
  /// exp", "expected 2 values for max_lr, got 3" (and for max_momentum, base_momentum),
  /// "optimizer must support momentum with `cycle_momentum` option enabled" (no group has
  /// "momentum" or "beta1"); TypeError "'<=' not supported between instances of 'NoneType'
  /// and 'int'" when only one of epochs and steps_per_epoch is given. `max_lr` is one value
  /// (for every group; a list of one is taken as PyTorch takes a number) or one per group.
  /// Then sets each group's initial_lr, max_lr, min_lr (and momentum or beta1, max_momentum,
  /// base_momentum) and takes the first step.
  OneCycleLR(Optimizer& optimizer, std::vector<double> max_lr, Config config);
  /// Adds "total_steps", "_schedule_phases.<i>.end_step" and the phases' option names
  /// ("_schedule_phases.<i>.start_lr", "end_lr", "start_momentum", "end_momentum", strings),
  /// "cycle_momentum", "use_beta1" (only when cycle_momentum, as in PyTorch) and the string
  /// "anneal_strategy" (PyTorch keeps the function itself, "anneal_func", instead).
  SchedulerState state_dict() const override;
  /// Loads those keys too (any number of phases; each phase's option names must be among
  /// initial_lr, max_lr, min_lr, max_momentum, base_momentum and present in every group).
  void load_state_dict(const SchedulerState& state) override;

 protected:
  /// One phase of the cycle, as PyTorch's _schedule_phases holds it: where it ends and
  /// which group options it anneals between.
  struct Phase {
    double end_step;             ///< the step at which the phase ends
    std::string start_lr;        ///< the option the rate starts from ("initial_lr", "max_lr", "min_lr")
    std::string end_lr;          ///< the option the rate ends at
    std::string start_momentum;  ///< the option the momentum starts from ("max_momentum", "base_momentum")
    std::string end_momentum;    ///< the option the momentum ends at
  };
  /// The rates for step last_epoch_ (and, as PyTorch's get_lr does, writes each group's
  /// momentum or beta1 when cycling). ValueError "Tried to step 102 times. The specified
  /// number of total steps is 100" past the end; Error "float division by zero" in a phase
  /// that spans no steps (PyTorch's ZeroDivisionError).
  std::vector<double> get_lr() const override;
  /// get_lr(): the schedule has no other closed form (PyTorch's has none).
  std::vector<double> closed_form_lr() const override;
  /// Anneals from `start` to `end` as `pct` goes from 0 to 1, by anneal_strategy_.
  double anneal(double start, double end, double pct) const;
  std::int64_t total_steps_;     ///< steps in the cycle
  std::vector<Phase> phases_;    ///< two phases, or three with three_phase
  std::string anneal_strategy_;  ///< "cos" or "linear"
  bool cycle_momentum_;          ///< whether the momentum (or beta1) is cycled
  bool use_beta1_ = false;       ///< cycle "beta1" (Adam-style groups) rather than "momentum"
};

/// Runs `schedulers` one after another, switching at `milestones` (one fewer than
/// schedulers): warm-up then decay.
class SequentialLR {
 public:
  /// Takes over the schedulers (already created on `optimizer`), as PyTorch does:
  /// resets the rates to initial_lr and replays the first scheduler's first step. Throws
  /// ValueError for a scheduler of another optimizer, then unless there is one scheduler more
  /// than milestones (none at all included).
  SequentialLR(Optimizer& optimizer, std::vector<std::shared_ptr<LRScheduler>> schedulers,
               std::vector<std::int64_t> milestones);
  /// Advances one epoch: steps the scheduler whose interval contains it (from its
  /// epoch 0 at a milestone).
  void step();
  /// The rates after the last step.
  const std::vector<double>& get_last_lr() const { return last_lr_; }
  /// PyTorch's SequentialLR.state_dict(): "_milestones", "last_epoch", "_last_lr", and each
  /// scheduler's state under "_schedulers.<i>.". (No base_lrs nor _step_count: PyTorch's
  /// SequentialLR never runs the base constructor.)
  SchedulerState state_dict() const;
  /// Restores what state_dict() saved into these same schedulers. ValueError naming the key
  /// (a nested one in full, "_schedulers.1.T_max") when one is missing or malformed, when
  /// "_milestones" does not hold one fewer value than there are schedulers, or when the state
  /// holds a different number of schedulers; nothing changes when it throws.
  void load_state_dict(const SchedulerState& state);

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
  /// PyTorch's state_dict(): factor, min_lrs (one per group), patience, verbose (0), cooldown,
  /// cooldown_counter, threshold, best, num_bad_epochs, mode_worse, eps, last_epoch, _last_lr,
  /// and the strings mode and threshold_mode.
  SchedulerState state_dict() const;
  /// Restores what state_dict() saved. As PyTorch's, it checks mode and threshold_mode
  /// (ValueError "mode x is unknown!") and derives mode_worse from mode (the key is optional);
  /// verbose is optional and ignored, _last_lr optional (PyTorch has none before the first
  /// step; then the groups' rates). Every other key missing or malformed throws ValueError
  /// naming it, as does a factor of 1 or more; nothing changes when it throws.
  void load_state_dict(const SchedulerState& state);

 private:
  bool is_better(double a) const;
  Optimizer& optimizer_;
  Config c_;
  std::vector<double> min_lrs_;
  double best_;
  std::int64_t bad_epochs_ = 0, cooldown_counter_ = 0, last_epoch_ = 0;
  std::vector<double> last_lr_;
};

}  // namespace kindling::optim::lr_scheduler
