// MUTANT: checks 'nothing saved' before 'released': a freed graph returns an undefined tensor, no error
// Task week02.saved_version. The doc comment above each function is its contract; your code
// goes between BEGIN and END. Hints, one at a time: `./grade hint week02.saved_version`.

#include <kindling/error.hpp>  // KINDLING_TODO, which the worksheet's stubs call
#include <kindling/saved_variable.hpp>

namespace kindling::autograd {

/// The version of the saved tensor now: the number of in-place writes its storage has had,
/// counting a write made through a handle that is gone by the time this is asked (the last
/// handle to a saved tensor may be dropped right after an in-place write, and that write must
/// still count). When nothing was saved: its version at save time.
std::uint32_t SavedVariable::current_version() const {
  // BEGIN SOLUTION week02.saved_version
  return version_counter_ ? version_counter_->version.load(std::memory_order_relaxed) : saved_version_;
  // END SOLUTION
}

}  // namespace kindling::autograd

namespace kindling::autograd {

/// Returns the saved tensor after two checks (kindling::Error on failure):
/// 1. released (was_released()): throw kFreedGraphMessage.
/// 2. current_version() differs from saved_version(): throw, word for word,
///    "one of the variables needed for gradient computation has been modified by
///    an inplace operation: [torch.FloatTensor [3]], which is output 0 of
///    SigmoidBackward0, is at version 1; expected version 0 instead. Hint: enable
///    anomaly detection to find the operation that failed to compute its gradient,
///    with torch.autograd.set_detect_anomaly(True)."
///    The type is legacy_type_name(dtype), the shape to_string(sizes). The
///    ", which is output 0 of NAME," part names the node that produces the tensor
///    now: `node` itself when is_output(), else producer_name() (an in-place op
///    may have given it a new one); a leaf (no producer) has no such part.
/// Nothing saved (!data().defined() and not released): return an undefined tensor.
/// Otherwise return tensor(), the saved tensor as it was saved.
Tensor SavedVariable::unpack(const Node& node) const {
  // BEGIN SOLUTION week02.saved_version
  if (!data_.defined()) return {};
  KINDLING_CHECK(!released_, kFreedGraphMessage);
  const std::uint32_t now = current_version();
  if (now != saved_version_) {
    std::ostringstream msg;
    msg << "one of the variables needed for gradient computation has been modified by an inplace operation: ["
        << legacy_type_name(data_.dtype()) << " " << to_string(data_.sizes()) << "]";
    const std::string producer = is_output_ ? node.name() : producer_name();
    if (!producer.empty()) msg << ", which is output 0 of " << producer << ",";
    msg << " is at version " << now << "; expected version " << saved_version_
        << " instead. Hint: enable anomaly detection to find the operation that failed to compute its gradient, "
           "with torch.autograd.set_detect_anomaly(True).";
    throw Error(msg.str());
  }
  return tensor();
  // END SOLUTION
}

}  // namespace kindling::autograd
