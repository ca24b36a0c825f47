// The schedulers' shared machinery (PyTorch 1.13's _LRScheduler and SequentialLR)
// and the schedules other than the week's task.

#include <algorithm>
#include <cmath>
#include <iostream>
#include <limits>
#include <set>

#include <kindling/lr_scheduler.hpp>

namespace kindling::optim::lr_scheduler {

const char* const kStepOrderWarning =
    "Detected call of `lr_scheduler.step()` before `optimizer.step()`. In PyTorch 1.1.0 and later, you should call "
    "them in the opposite order: `optimizer.step()` before `lr_scheduler.step()`.  Failure to do this will result in "
    "PyTorch skipping the first value of the learning rate schedule. See more details at "
    "https://pytorch.org/docs/stable/optim.html#how-to-adjust-learning-rate";

namespace {
WarningHandler& handler() {
  static WarningHandler h = [](const std::string& text) {
    static std::set<std::string> shown;  // Python shows a warning once per place
    if (shown.insert(text).second) std::cerr << "UserWarning: " << text << "\n";
  };
  return h;
}
}  // namespace

WarningHandler set_warning_handler(WarningHandler h) { return std::exchange(handler(), std::move(h)); }

LRScheduler::LRScheduler(Optimizer& optimizer) : optimizer_(optimizer) {
  for (auto& g : optimizer_.param_groups()) {
    if (!g.options.has("initial_lr")) g.options.set("initial_lr", g.options["lr"]);
    base_lrs_.push_back(g.options["initial_lr"]);
  }
}

void LRScheduler::initial_step() {
  step_count_ = 0;
  step();
}

std::vector<double> LRScheduler::current_lrs() const {
  std::vector<double> out;
  for (const auto& g : optimizer_.param_groups()) out.push_back(g.options["lr"]);
  return out;
}

void LRScheduler::step() {
  if (step_count_ == 1 && optimizer_.step_count() < 1) handler()(kStepOrderWarning);
  ++step_count_;
  ++last_epoch_;
  const std::vector<double> lrs = get_lr();
  auto& groups = optimizer_.param_groups();
  for (std::size_t i = 0; i < groups.size() && i < lrs.size(); ++i) groups[i].options.set("lr", lrs[i]);
  last_lr_ = current_lrs();
}

void LRScheduler::step(std::int64_t epoch) {
  ++step_count_;
  last_epoch_ = epoch;
  const std::vector<double> lrs = closed_form_lr();
  auto& groups = optimizer_.param_groups();
  for (std::size_t i = 0; i < groups.size() && i < lrs.size(); ++i) groups[i].options.set("lr", lrs[i]);
  last_lr_ = current_lrs();
}

// ---- StepLR, MultiStepLR, ExponentialLR ---------------------------------------------------------------------
StepLR::StepLR(Optimizer& optimizer, std::int64_t step_size, double gamma)
    : LRScheduler(optimizer), step_size_(step_size), gamma_(gamma) {
  // PyTorch divides by step_size at the first step (ZeroDivisionError); Kindling refuses at once.
  KINDLING_CHECK_AS(ValueError, step_size > 0, "step_size must be a positive number of epochs, got ", step_size);
  initial_step();
}

std::vector<double> StepLR::get_lr() const {
  std::vector<double> lrs = current_lrs();
  if (last_epoch_ == 0 || last_epoch_ % step_size_ != 0) return lrs;
  for (double& lr : lrs) lr *= gamma_;
  return lrs;
}

std::vector<double> StepLR::closed_form_lr() const {
  std::vector<double> lrs;
  for (double base : base_lrs_) lrs.push_back(base * std::pow(gamma_, static_cast<double>(last_epoch_ / step_size_)));
  return lrs;
}

MultiStepLR::MultiStepLR(Optimizer& optimizer, std::vector<std::int64_t> milestones, double gamma)
    : LRScheduler(optimizer), milestones_(std::move(milestones)), gamma_(gamma) {
  std::sort(milestones_.begin(), milestones_.end());
  initial_step();
}

std::vector<double> MultiStepLR::get_lr() const {
  std::vector<double> lrs = current_lrs();
  const auto hits = std::count(milestones_.begin(), milestones_.end(), last_epoch_);
  if (hits == 0) return lrs;
  for (double& lr : lrs) lr *= std::pow(gamma_, static_cast<double>(hits));
  return lrs;
}

std::vector<double> MultiStepLR::closed_form_lr() const {
  const auto passed = std::upper_bound(milestones_.begin(), milestones_.end(), last_epoch_) - milestones_.begin();
  std::vector<double> lrs;
  for (double base : base_lrs_) lrs.push_back(base * std::pow(gamma_, static_cast<double>(passed)));
  return lrs;
}

ExponentialLR::ExponentialLR(Optimizer& optimizer, double gamma) : LRScheduler(optimizer), gamma_(gamma) {
  initial_step();
}

std::vector<double> ExponentialLR::get_lr() const {
  std::vector<double> lrs = current_lrs();
  if (last_epoch_ == 0) return lrs;
  for (double& lr : lrs) lr *= gamma_;
  return lrs;
}

std::vector<double> ExponentialLR::closed_form_lr() const {
  std::vector<double> lrs;
  for (double base : base_lrs_) lrs.push_back(base * std::pow(gamma_, static_cast<double>(last_epoch_)));
  return lrs;
}

// ---- SequentialLR ------------------------------------------------------------------------------------------------
SequentialLR::SequentialLR(Optimizer& optimizer, std::vector<std::shared_ptr<LRScheduler>> schedulers,
                           std::vector<std::int64_t> milestones)
    : optimizer_(optimizer), schedulers_(std::move(schedulers)), milestones_(std::move(milestones)) {
  KINDLING_CHECK_AS(ValueError, !schedulers_.empty(),
                    "SequentialLR expects at least one scheduler, but got no scheduler.");
  for (std::size_t i = 0; i < schedulers_.size(); ++i)
    KINDLING_CHECK_AS(ValueError, &schedulers_[i]->optimizer_ == &optimizer_,
                      "Sequential Schedulers expects all schedulers to belong to the same optimizer, but got "
                      "schedulers at index ",
                      i, " to be different than the optimizer passed in.");
  KINDLING_CHECK_AS(ValueError, milestones_.size() == schedulers_.size() - 1,
                    "Sequential Schedulers expects number of schedulers provided to be one more than the number of "
                    "milestone points, but got number of schedulers ",
                    schedulers_.size(), " and the number of milestones to be equal to ", milestones_.size());
  // As PyTorch: back to the initial rates, undo every scheduler's first step, and
  // replay the first scheduler's.
  for (auto& g : optimizer_.param_groups()) g.options.set("lr", g.options["initial_lr"]);
  for (auto& s : schedulers_) s->last_epoch_ -= 1;
  schedulers_.front()->initial_step();
  last_lr_ = schedulers_.front()->get_last_lr();
}

void SequentialLR::step() {
  ++last_epoch_;
  const auto idx = static_cast<std::size_t>(std::upper_bound(milestones_.begin(), milestones_.end(), last_epoch_) -
                                            milestones_.begin());
  LRScheduler& s = *schedulers_[idx];
  if (idx > 0 && milestones_[idx - 1] == last_epoch_)
    s.step(0);
  else
    s.step();
  last_lr_ = s.get_last_lr();
}

// ---- ReduceLROnPlateau
// -----------------------------------------------------------------------------------------------
ReduceLROnPlateau::ReduceLROnPlateau(Optimizer& optimizer, Config config)
    : optimizer_(optimizer), c_(std::move(config)) {
  KINDLING_CHECK_AS(ValueError, c_.factor < 1.0, "Factor should be < 1.0.");
  KINDLING_CHECK_AS(ValueError, c_.mode == "min" || c_.mode == "max", "mode ", c_.mode, " is unknown!");
  KINDLING_CHECK_AS(ValueError, c_.threshold_mode == "rel" || c_.threshold_mode == "abs", "threshold mode ",
                    c_.threshold_mode, " is unknown!");
  best_ = c_.mode == "min" ? std::numeric_limits<double>::infinity() : -std::numeric_limits<double>::infinity();
  last_lr_ = [&] {
    std::vector<double> out;
    for (const auto& g : optimizer_.param_groups()) out.push_back(g.options["lr"]);
    return out;
  }();
}

bool ReduceLROnPlateau::is_better(double a) const {
  const bool rel = c_.threshold_mode == "rel";
  if (c_.mode == "min") return rel ? a < best_ * (1 - c_.threshold) : a < best_ - c_.threshold;
  return rel ? a > best_ * (c_.threshold + 1) : a > best_ + c_.threshold;
}

void ReduceLROnPlateau::step(double metric) {
  ++last_epoch_;
  if (is_better(metric)) {
    best_ = metric;
    bad_epochs_ = 0;
  } else {
    ++bad_epochs_;
  }
  if (cooldown_counter_ > 0) {
    --cooldown_counter_;
    bad_epochs_ = 0;  // bad epochs in a cooldown do not count
  }
  if (bad_epochs_ > c_.patience) {
    for (auto& g : optimizer_.param_groups()) {
      const double old_lr = g.options["lr"];
      const double new_lr = std::max(old_lr * c_.factor, c_.min_lr);
      if (old_lr - new_lr > c_.eps) g.options.set("lr", new_lr);
    }
    cooldown_counter_ = c_.cooldown;
    bad_epochs_ = 0;
  }
  last_lr_.clear();
  for (const auto& g : optimizer_.param_groups()) last_lr_.push_back(g.options["lr"]);
}

}  // namespace kindling::optim::lr_scheduler
