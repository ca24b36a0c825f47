// The schedulers' shared machinery (PyTorch 1.13's _LRScheduler and SequentialLR),
// the schedules other than the week's task, OneCycleLR, and every schedule's
// state_dict() / load_state_dict() (the week's CosineAnnealingLR and LinearLR included).

#include <algorithm>
#include <cmath>
#include <iostream>
#include <limits>
#include <numbers>
#include <set>

#include <kindling/lr_scheduler.hpp>
#include <kindling/module.hpp>  // nn::detail::py_float_repr

namespace kindling::optim::lr_scheduler {

using nn::detail::py_float_repr;

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

// ---- reading a SchedulerState ---------------------------------------------------------------------------------------
// Every load error starts with kKeyError and the key, so that SequentialLR can name a
// nested key in full ("_schedulers.1.T_max").
namespace {
constexpr const char* kKeyError = "load_state_dict: key \"";
constexpr const char* kPerGroup = "one per parameter group";

[[noreturn]] void bad_key(const std::string& key, const std::string& what) {
  throw ValueError(kKeyError + key + "\" " + what);
}

std::string count_of(std::size_t n) { return std::to_string(n) + (n == 1 ? " value" : " values"); }

const std::vector<double>& numbers_at(const SchedulerState& s, const std::string& key) {
  const auto it = s.numbers.find(key);
  if (it != s.numbers.end()) return it->second;
  if (s.strings.count(key) > 0) bad_key(key, "holds a string where numbers belong");
  bad_key(key, "is missing from the state");
}

std::vector<double> list_at(const SchedulerState& s, const std::string& key, std::size_t n, const char* why) {
  const std::vector<double>& v = numbers_at(s, key);
  if (v.size() != n) bad_key(key, "holds " + count_of(v.size()) + ", expected " + std::to_string(n) + " (" + why + ")");
  return v;
}

double scalar_at(const SchedulerState& s, const std::string& key) {
  const std::vector<double>& v = numbers_at(s, key);
  if (v.size() != 1) bad_key(key, "holds " + count_of(v.size()) + ", expected 1");
  return v[0];
}

std::int64_t as_integer(const std::string& key, double v) {
  if (!(std::isfinite(v) && v == std::floor(v) && std::abs(v) <= 9007199254740992.0))
    bad_key(key, "holds " + py_float_repr(v) + ", expected an integer");
  return static_cast<std::int64_t>(v);
}

std::int64_t integer_at(const SchedulerState& s, const std::string& key) { return as_integer(key, scalar_at(s, key)); }

std::vector<std::int64_t> integers_at(const SchedulerState& s, const std::string& key) {
  std::vector<std::int64_t> out;
  for (double v : numbers_at(s, key)) out.push_back(as_integer(key, v));
  return out;
}

bool flag_at(const SchedulerState& s, const std::string& key) {
  const double v = scalar_at(s, key);
  if (v != 0 && v != 1) bad_key(key, "holds " + py_float_repr(v) + ", expected 0 or 1");
  return v == 1;
}

const std::string& string_at(const SchedulerState& s, const std::string& key) {
  const auto it = s.strings.find(key);
  if (it != s.strings.end()) return it->second;
  if (s.numbers.count(key) > 0) bad_key(key, "holds numbers where a string belongs");
  bad_key(key, "is missing from the state");
}

std::vector<double> one(double v) { return {v}; }
std::vector<double> one(std::int64_t v) { return {static_cast<double>(v)}; }
}  // namespace

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

SchedulerState LRScheduler::state_dict() const {
  SchedulerState s;
  s.numbers["base_lrs"] = base_lrs_;
  s.numbers["last_epoch"] = one(last_epoch_);
  s.numbers["_step_count"] = one(step_count_);
  s.numbers["_last_lr"] = last_lr_;
  s.numbers["verbose"] = one(0.0);
  s.numbers["_get_lr_called_within_step"] = one(0.0);
  return s;
}

// Reads every key before changing anything; a subclass reads its own keys, then calls
// this, then assigns, so that a throw anywhere leaves the schedule as it was.
void LRScheduler::load_state_dict(const SchedulerState& state) {
  const std::size_t groups = optimizer_.param_groups().size();
  std::vector<double> base_lrs = list_at(state, "base_lrs", groups, kPerGroup);
  const std::int64_t last_epoch = integer_at(state, "last_epoch");
  const std::int64_t step_count = integer_at(state, "_step_count");
  std::vector<double> last_lr = list_at(state, "_last_lr", groups, kPerGroup);
  base_lrs_ = std::move(base_lrs);
  last_epoch_ = last_epoch;
  step_count_ = step_count;
  last_lr_ = std::move(last_lr);
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

SchedulerState StepLR::state_dict() const {
  SchedulerState s = LRScheduler::state_dict();
  s.numbers["step_size"] = one(step_size_);
  s.numbers["gamma"] = one(gamma_);
  return s;
}

void StepLR::load_state_dict(const SchedulerState& state) {
  const std::int64_t step_size = integer_at(state, "step_size");
  if (step_size <= 0) bad_key("step_size", "holds " + std::to_string(step_size) + ", expected a positive number");
  const double gamma = scalar_at(state, "gamma");
  LRScheduler::load_state_dict(state);
  step_size_ = step_size;
  gamma_ = gamma;
}

SchedulerState MultiStepLR::state_dict() const {
  SchedulerState s = LRScheduler::state_dict();
  s.numbers["milestones"] = std::vector<double>(milestones_.begin(), milestones_.end());
  s.numbers["gamma"] = one(gamma_);
  return s;
}

void MultiStepLR::load_state_dict(const SchedulerState& state) {
  std::vector<std::int64_t> milestones = integers_at(state, "milestones");
  std::sort(milestones.begin(), milestones.end());
  const double gamma = scalar_at(state, "gamma");
  LRScheduler::load_state_dict(state);
  milestones_ = std::move(milestones);
  gamma_ = gamma;
}

SchedulerState ExponentialLR::state_dict() const {
  SchedulerState s = LRScheduler::state_dict();
  s.numbers["gamma"] = one(gamma_);
  return s;
}

void ExponentialLR::load_state_dict(const SchedulerState& state) {
  const double gamma = scalar_at(state, "gamma");
  LRScheduler::load_state_dict(state);
  gamma_ = gamma;
}

// The week's two schedules (tasks/cosine_schedule.cpp): their state here, beside the others'.
SchedulerState CosineAnnealingLR::state_dict() const {
  SchedulerState s = LRScheduler::state_dict();
  s.numbers["T_max"] = one(T_max_);
  s.numbers["eta_min"] = one(eta_min_);
  return s;
}

void CosineAnnealingLR::load_state_dict(const SchedulerState& state) {
  const std::int64_t T_max = integer_at(state, "T_max");
  if (T_max <= 0) bad_key("T_max", "holds " + std::to_string(T_max) + ", expected a positive number");
  const double eta_min = scalar_at(state, "eta_min");
  LRScheduler::load_state_dict(state);
  T_max_ = T_max;
  eta_min_ = eta_min;
}

SchedulerState LinearLR::state_dict() const {
  SchedulerState s = LRScheduler::state_dict();
  s.numbers["start_factor"] = one(start_factor_);
  s.numbers["end_factor"] = one(end_factor_);
  s.numbers["total_iters"] = one(total_iters_);
  return s;
}

void LinearLR::load_state_dict(const SchedulerState& state) {
  const double start_factor = scalar_at(state, "start_factor");
  if (!(start_factor > 0 && start_factor <= 1))
    bad_key("start_factor", "holds " + py_float_repr(start_factor) + ", expected a factor in (0, 1]");
  const double end_factor = scalar_at(state, "end_factor");
  if (!(end_factor >= 0 && end_factor <= 1))
    bad_key("end_factor", "holds " + py_float_repr(end_factor) + ", expected a factor in [0, 1]");
  const std::int64_t total_iters = integer_at(state, "total_iters");
  if (total_iters <= 0) bad_key("total_iters", "holds " + std::to_string(total_iters) + ", expected a positive number");
  LRScheduler::load_state_dict(state);
  start_factor_ = start_factor;
  end_factor_ = end_factor;
  total_iters_ = total_iters;
}

// ---- OneCycleLR -----------------------------------------------------------------------------------------------------
// PyTorch computes the cycle in Python, which rounds every product and sum; this file is
// compiled with -ffp-contract=off (CMakeLists.txt), so that a * b + c is never fused into
// one rounding under -mfma (pct_start * total_steps - 1 would then miss an exact 0, and the
// rates would drift in the last bits).
namespace {
// PyTorch's _format_param: one value for every group, or exactly one per group.
std::vector<double> per_group(const char* name, const std::vector<double>& values, std::size_t groups) {
  if (values.size() == 1) return std::vector<double>(groups, values[0]);
  KINDLING_CHECK_AS(ValueError, values.size() == groups, "expected ", groups, " values for ", name, ", got ",
                    values.size());
  return values;
}

// What Python says when OneCycleLR compares a missing (None) epochs or steps_per_epoch with 0.
constexpr const char* kNoneCompared = "'<=' not supported between instances of 'NoneType' and 'int'";

// Where PyTorch's phases end: float(pct_start * total_steps) - 1, then (three_phase)
// float(2 * pct_start * total_steps) - 2, then total_steps - 1.
std::vector<double> phase_ends(double pct_start, std::int64_t total_steps, bool three_phase) {
  const auto total = static_cast<double>(total_steps);
  if (three_phase) return {pct_start * total - 1, 2 * pct_start * total - 2, total - 1};
  return {pct_start * total - 1, total - 1};
}

double anneal_cos(double start, double end, double pct) {
  const double cos_out = std::cos(std::numbers::pi * pct) + 1;
  return end + (start - end) / 2.0 * cos_out;
}

double anneal_linear(double start, double end, double pct) { return (end - start) * pct + start; }

bool is_phase_option(const std::string& name) {
  return name == "initial_lr" || name == "max_lr" || name == "min_lr" || name == "max_momentum" ||
         name == "base_momentum";
}
}  // namespace

OneCycleLR::OneCycleLR(Optimizer& optimizer, std::vector<double> max_lr, Config config)
    : LRScheduler(optimizer), anneal_strategy_(config.anneal_strategy), cycle_momentum_(config.cycle_momentum) {
  // PyTorch's checks, in its order.
  if (!config.total_steps && !config.epochs && !config.steps_per_epoch)
    throw ValueError("You must define either total_steps OR (epochs AND steps_per_epoch)");
  if (config.total_steps) {
    KINDLING_CHECK_AS(ValueError, *config.total_steps > 0, "Expected positive integer total_steps, but got ",
                      *config.total_steps);
    total_steps_ = *config.total_steps;
  } else {
    KINDLING_CHECK_AS(TypeError, config.epochs.has_value(), kNoneCompared);
    KINDLING_CHECK_AS(ValueError, *config.epochs > 0, "Expected positive integer epochs, but got ", *config.epochs);
    KINDLING_CHECK_AS(TypeError, config.steps_per_epoch.has_value(), kNoneCompared);
    KINDLING_CHECK_AS(ValueError, *config.steps_per_epoch > 0, "Expected positive integer steps_per_epoch, but got ",
                      *config.steps_per_epoch);
    total_steps_ = *config.epochs * *config.steps_per_epoch;
  }
  const double pct = config.pct_start;
  const std::vector<double> ends = phase_ends(pct, total_steps_, config.three_phase);
  if (config.three_phase)
    phases_ = {{ends[0], "initial_lr", "max_lr", "max_momentum", "base_momentum"},
               {ends[1], "max_lr", "initial_lr", "base_momentum", "max_momentum"},
               {ends[2], "initial_lr", "min_lr", "max_momentum", "max_momentum"}};
  else
    phases_ = {{ends[0], "initial_lr", "max_lr", "max_momentum", "base_momentum"},
               {ends[1], "max_lr", "min_lr", "base_momentum", "max_momentum"}};
  KINDLING_CHECK_AS(ValueError, !(pct < 0 || pct > 1), "Expected float between 0 and 1 pct_start, but got ",
                    py_float_repr(pct));
  KINDLING_CHECK_AS(ValueError, anneal_strategy_ == "cos" || anneal_strategy_ == "linear",
                    "anneal_strategy must by one of 'cos' or 'linear', instead got ", anneal_strategy_);
  auto& groups = optimizer_.param_groups();
  const std::vector<double> max_lrs = per_group("max_lr", max_lr, groups.size());
  std::vector<double> max_momentums, base_momentums;
  if (cycle_momentum_) {
    const auto all_have = [&](const char* name) {
      return std::all_of(groups.begin(), groups.end(), [&](const ParamGroup& g) { return g.options.has(name); });
    };
    use_beta1_ = all_have("beta1");
    KINDLING_CHECK_AS(ValueError, use_beta1_ || all_have("momentum"),
                      "optimizer must support momentum with `cycle_momentum` option enabled");
    max_momentums = per_group("max_momentum", config.max_momentum, groups.size());
    base_momentums = per_group("base_momentum", config.base_momentum, groups.size());
  }
  base_lrs_.clear();
  for (std::size_t i = 0; i < groups.size(); ++i) {
    Options& o = groups[i].options;
    o.set("initial_lr", max_lrs[i] / config.div_factor);
    o.set("max_lr", max_lrs[i]);
    o.set("min_lr", o["initial_lr"] / config.final_div_factor);
    if (cycle_momentum_) {
      o.set(use_beta1_ ? "beta1" : "momentum", max_momentums[i]);
      o.set("max_momentum", max_momentums[i]);
      o.set("base_momentum", base_momentums[i]);
    }
    base_lrs_.push_back(o["initial_lr"]);
  }
  initial_step();
}

double OneCycleLR::anneal(double start, double end, double pct) const {
  return anneal_strategy_ == "linear" ? anneal_linear(start, end, pct) : anneal_cos(start, end, pct);
}

std::vector<double> OneCycleLR::get_lr() const {
  KINDLING_CHECK_AS(ValueError, last_epoch_ <= total_steps_, "Tried to step ", last_epoch_ + 1,
                    " times. The specified number of total steps is ", total_steps_);
  const auto step = static_cast<double>(last_epoch_);
  std::vector<double> lrs;
  for (ParamGroup& g : optimizer_.param_groups()) {
    double start_step = 0;
    for (std::size_t i = 0; i < phases_.size(); ++i) {
      const Phase& phase = phases_[i];
      if (step <= phase.end_step || i + 1 == phases_.size()) {
        const double span = phase.end_step - start_step;
        KINDLING_CHECK(span != 0, "float division by zero");  // PyTorch's ZeroDivisionError
        const double pct = (step - start_step) / span;
        lrs.push_back(anneal(g.options[phase.start_lr], g.options[phase.end_lr], pct));
        if (cycle_momentum_)
          g.options.set(use_beta1_ ? "beta1" : "momentum",
                        anneal(g.options[phase.start_momentum], g.options[phase.end_momentum], pct));
        break;
      }
      start_step = phase.end_step;
    }
  }
  return lrs;
}

std::vector<double> OneCycleLR::closed_form_lr() const { return get_lr(); }

SchedulerState OneCycleLR::state_dict() const {
  SchedulerState s = LRScheduler::state_dict();
  s.numbers["total_steps"] = one(total_steps_);
  for (std::size_t i = 0; i < phases_.size(); ++i) {
    const std::string at = "_schedule_phases." + std::to_string(i) + ".";
    s.numbers[at + "end_step"] = one(phases_[i].end_step);
    s.strings[at + "start_lr"] = phases_[i].start_lr;
    s.strings[at + "end_lr"] = phases_[i].end_lr;
    s.strings[at + "start_momentum"] = phases_[i].start_momentum;
    s.strings[at + "end_momentum"] = phases_[i].end_momentum;
  }
  s.numbers["cycle_momentum"] = one(cycle_momentum_ ? 1.0 : 0.0);
  if (cycle_momentum_) s.numbers["use_beta1"] = one(use_beta1_ ? 1.0 : 0.0);
  s.strings["anneal_strategy"] = anneal_strategy_;
  return s;
}

void OneCycleLR::load_state_dict(const SchedulerState& state) {
  const std::int64_t total_steps = integer_at(state, "total_steps");
  if (total_steps <= 0) bad_key("total_steps", "holds " + std::to_string(total_steps) + ", expected a positive number");
  const std::string anneal_strategy = string_at(state, "anneal_strategy");  // a copy: GCC 13 warns of a reference
  if (anneal_strategy != "cos" && anneal_strategy != "linear")
    bad_key("anneal_strategy", "holds '" + anneal_strategy + "', expected 'cos' or 'linear'");
  const bool cycle_momentum = flag_at(state, "cycle_momentum");
  const bool use_beta1 = cycle_momentum && flag_at(state, "use_beta1");
  const auto& groups = optimizer_.param_groups();
  // The phases: _schedule_phases.0. up to the highest index any key names, each complete.
  std::size_t phase_count = 1;
  const std::string phase_prefix = "_schedule_phases.";
  const auto count_phase = [&](const std::string& key) {
    if (key.rfind(phase_prefix, 0) != 0) return;
    const std::size_t dot = key.find('.', phase_prefix.size());
    const std::string index =
        key.substr(phase_prefix.size(), dot == std::string::npos ? dot : dot - phase_prefix.size());
    const bool digits = !index.empty() && index.size() < 6 &&
                        std::all_of(index.begin(), index.end(), [](char ch) { return ch >= '0' && ch <= '9'; });
    if (!digits || dot == std::string::npos) bad_key(key, "is not of the form _schedule_phases.<i>.<key>");
    phase_count = std::max(phase_count, static_cast<std::size_t>(std::stoul(index)) + 1);
  };
  for (const auto& entry : state.numbers) count_phase(entry.first);
  for (const auto& entry : state.strings) count_phase(entry.first);
  std::vector<Phase> phases;
  for (std::size_t i = 0; i < phase_count; ++i) {
    const std::string at = phase_prefix + std::to_string(i) + ".";
    Phase phase{scalar_at(state, at + "end_step"), string_at(state, at + "start_lr"), string_at(state, at + "end_lr"),
                string_at(state, at + "start_momentum"), string_at(state, at + "end_momentum")};
    const std::pair<const char*, const std::string*> names[] = {{"start_lr", &phase.start_lr},
                                                                {"end_lr", &phase.end_lr},
                                                                {"start_momentum", &phase.start_momentum},
                                                                {"end_momentum", &phase.end_momentum}};
    for (const auto& [field, name] : names) {
      if (!is_phase_option(*name))
        bad_key(at + field,
                "holds '" + *name + "', expected one of initial_lr, max_lr, min_lr, max_momentum, base_momentum");
      const bool needed = cycle_momentum || std::string(field).find("momentum") == std::string::npos;
      for (std::size_t g = 0; g < groups.size() && needed; ++g)
        if (!groups[g].options.has(*name))
          bad_key(at + field, "names option '" + *name + "', which param_groups[" + std::to_string(g) + "] lacks");
    }
    phases.push_back(std::move(phase));
  }
  if (cycle_momentum)
    for (std::size_t g = 0; g < groups.size(); ++g)
      if (!groups[g].options.has(use_beta1 ? "beta1" : "momentum"))
        bad_key("use_beta1", std::string("says to cycle '") + (use_beta1 ? "beta1" : "momentum") +
                                 "', which param_groups[" + std::to_string(g) + "] lacks");
  LRScheduler::load_state_dict(state);
  total_steps_ = total_steps;
  phases_ = std::move(phases);
  anneal_strategy_ = anneal_strategy;
  cycle_momentum_ = cycle_momentum;
  use_beta1_ = use_beta1;
}

// ---- SequentialLR ------------------------------------------------------------------------------------------------
SequentialLR::SequentialLR(Optimizer& optimizer, std::vector<std::shared_ptr<LRScheduler>> schedulers,
                           std::vector<std::int64_t> milestones)
    : optimizer_(optimizer), schedulers_(std::move(schedulers)), milestones_(std::move(milestones)) {
  for (std::size_t i = 0; i < schedulers_.size(); ++i)
    KINDLING_CHECK_AS(ValueError, &schedulers_[i]->optimizer_ == &optimizer_,
                      "Sequential Schedulers expects all schedulers to belong to the same optimizer, but got "
                      "schedulers at index ",
                      i, " to be different than the optimizer passed in.");
  // No scheduler at all fails here too, as in PyTorch 1.13 ("... schedulers 0 and ... equal to 0").
  KINDLING_CHECK_AS(ValueError, milestones_.size() + 1 == schedulers_.size(),
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

SchedulerState SequentialLR::state_dict() const {
  SchedulerState s;
  s.numbers["_milestones"] = std::vector<double>(milestones_.begin(), milestones_.end());
  s.numbers["last_epoch"] = one(last_epoch_);
  s.numbers["_last_lr"] = last_lr_;
  for (std::size_t i = 0; i < schedulers_.size(); ++i) {
    const std::string at = "_schedulers." + std::to_string(i) + ".";
    const SchedulerState inner = schedulers_[i]->state_dict();
    for (const auto& [key, v] : inner.numbers) s.numbers[at + key] = v;
    for (const auto& [key, v] : inner.strings) s.strings[at + key] = v;
  }
  return s;
}

void SequentialLR::load_state_dict(const SchedulerState& state) {
  std::vector<std::int64_t> milestones = integers_at(state, "_milestones");
  if (milestones.size() != schedulers_.size() - 1)
    bad_key("_milestones", "holds " + count_of(milestones.size()) + ", expected " +
                               std::to_string(schedulers_.size() - 1) + " (one fewer than the schedulers)");
  const std::int64_t last_epoch = integer_at(state, "last_epoch");
  std::vector<double> last_lr = list_at(state, "_last_lr", optimizer_.param_groups().size(), kPerGroup);
  // Split off each scheduler's keys; the state must hold exactly as many schedulers.
  std::vector<SchedulerState> inner(schedulers_.size());
  const std::string nested = "_schedulers.";
  const auto route = [&](const std::string& key) -> SchedulerState* {
    if (key.rfind(nested, 0) != 0) return nullptr;
    const std::size_t dot = key.find('.', nested.size());
    const std::string index = key.substr(nested.size(), dot == std::string::npos ? dot : dot - nested.size());
    const bool digits = !index.empty() && index.size() < 6 &&
                        std::all_of(index.begin(), index.end(), [](char ch) { return ch >= '0' && ch <= '9'; });
    if (!digits || dot == std::string::npos) bad_key(key, "is not of the form _schedulers.<i>.<key>");
    const std::size_t i = std::stoul(index);
    if (i >= schedulers_.size())
      bad_key(key, "belongs to a schedule this SequentialLR lacks (it has " + std::to_string(schedulers_.size()) + ")");
    return &inner[i];
  };
  for (const auto& [key, v] : state.numbers)
    if (SchedulerState* s = route(key)) s->numbers[key.substr(key.find('.', nested.size()) + 1)] = v;
  for (const auto& [key, v] : state.strings)
    if (SchedulerState* s = route(key)) s->strings[key.substr(key.find('.', nested.size()) + 1)] = v;
  // Load each scheduler; if one refuses, put back those already loaded.
  std::vector<SchedulerState> before;
  for (const auto& s : schedulers_) before.push_back(s->state_dict());
  for (std::size_t i = 0; i < schedulers_.size(); ++i) {
    try {
      schedulers_[i]->load_state_dict(inner[i]);
    } catch (const ValueError& e) {
      for (std::size_t j = 0; j < i; ++j) schedulers_[j]->load_state_dict(before[j]);
      std::string message = e.what();
      const std::string prefix = kKeyError;
      if (message.rfind(prefix, 0) == 0)
        message.insert(prefix.size(), nested + std::to_string(i) + ".");
      else
        message = nested + std::to_string(i) + ": " + message;
      throw ValueError(message);
    }
  }
  milestones_ = std::move(milestones);
  last_epoch_ = last_epoch;
  last_lr_ = std::move(last_lr);
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
  min_lrs_.assign(optimizer_.param_groups().size(), c_.min_lr);
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
    auto& groups = optimizer_.param_groups();
    for (std::size_t i = 0; i < groups.size(); ++i) {
      const double old_lr = groups[i].options["lr"];
      const double new_lr = std::max(old_lr * c_.factor, i < min_lrs_.size() ? min_lrs_[i] : c_.min_lr);
      if (old_lr - new_lr > c_.eps) groups[i].options.set("lr", new_lr);
    }
    cooldown_counter_ = c_.cooldown;
    bad_epochs_ = 0;
  }
  last_lr_.clear();
  for (const auto& g : optimizer_.param_groups()) last_lr_.push_back(g.options["lr"]);
}

SchedulerState ReduceLROnPlateau::state_dict() const {
  SchedulerState s;
  s.numbers["factor"] = one(c_.factor);
  s.numbers["min_lrs"] = min_lrs_;
  s.numbers["patience"] = one(c_.patience);
  s.numbers["verbose"] = one(0.0);
  s.numbers["cooldown"] = one(c_.cooldown);
  s.numbers["cooldown_counter"] = one(cooldown_counter_);
  s.strings["mode"] = c_.mode;
  s.numbers["threshold"] = one(c_.threshold);
  s.strings["threshold_mode"] = c_.threshold_mode;
  s.numbers["best"] = one(best_);
  s.numbers["num_bad_epochs"] = one(bad_epochs_);
  const double inf = std::numeric_limits<double>::infinity();
  s.numbers["mode_worse"] = one(c_.mode == "min" ? inf : -inf);
  s.numbers["eps"] = one(c_.eps);
  s.numbers["last_epoch"] = one(last_epoch_);
  s.numbers["_last_lr"] = last_lr_;
  return s;
}

void ReduceLROnPlateau::load_state_dict(const SchedulerState& state) {
  const std::size_t groups = optimizer_.param_groups().size();
  Config c = c_;
  c.factor = scalar_at(state, "factor");
  if (!(c.factor < 1.0)) bad_key("factor", "holds " + py_float_repr(c.factor) + ", expected less than 1.0");
  std::vector<double> min_lrs = list_at(state, "min_lrs", groups, kPerGroup);
  c.patience = integer_at(state, "patience");
  c.cooldown = integer_at(state, "cooldown");
  const std::int64_t cooldown_counter = integer_at(state, "cooldown_counter");
  c.mode = string_at(state, "mode");
  c.threshold = scalar_at(state, "threshold");
  c.threshold_mode = string_at(state, "threshold_mode");
  // PyTorch's load_state_dict re-runs _init_is_better: its texts, and mode_worse from mode.
  KINDLING_CHECK_AS(ValueError, c.mode == "min" || c.mode == "max", "mode ", c.mode, " is unknown!");
  KINDLING_CHECK_AS(ValueError, c.threshold_mode == "rel" || c.threshold_mode == "abs", "threshold mode ",
                    c.threshold_mode, " is unknown!");
  const double best = scalar_at(state, "best");
  const std::int64_t bad_epochs = integer_at(state, "num_bad_epochs");
  c.eps = scalar_at(state, "eps");
  const std::int64_t last_epoch = integer_at(state, "last_epoch");
  std::vector<double> last_lr;
  if (state.numbers.count("_last_lr") > 0 || state.strings.count("_last_lr") > 0)
    last_lr = list_at(state, "_last_lr", groups, kPerGroup);
  else
    for (const auto& g : optimizer_.param_groups()) last_lr.push_back(g.options["lr"]);
  c.min_lr = min_lrs.empty() ? c_.min_lr : min_lrs.front();
  c_ = std::move(c);
  min_lrs_ = std::move(min_lrs);
  cooldown_counter_ = cooldown_counter;
  best_ = best;
  bad_epochs_ = bad_epochs;
  last_epoch_ = last_epoch;
  last_lr_ = std::move(last_lr);
}

}  // namespace kindling::optim::lr_scheduler
