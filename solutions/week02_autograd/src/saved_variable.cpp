// Saved tensors (node.hpp's SavedVariable): what a node keeps for its formula, and how it
// hands it back. The version check itself is the task week02.saved_version
// (tasks/saved_version.cpp). Kept out of graph.cpp, whose engine code is the hot path of
// every backward.

#include "autograd_internal.hpp"

namespace kindling {
namespace autograd {

SavedVariable::SavedVariable(const Tensor& t, bool is_output) : is_output_(is_output) {
  if (!t.defined()) return;
  saved_version_ = t.version();
  version_counter_ = t.impl().version_counter;
  if (!is_output && t.requires_grad() && t.is_leaf()) {
    data_ = t;  // invariant 3's exception: a leaf that requires grad never gets a grad_fn
    return;
  }
  // An alias of the data with no autograd state (PyTorch's tensor_data()), sharing the
  // counter: the node owns neither its own output (invariant 1) nor an input whose history
  // may be rewritten to lead back to it (invariant 3).
  data_ = t.detach();
  if (is_output) return;
  original_ = t.impl_ptr();
  original_id_ = &t.impl();
  original_was_view_ = t.is_view();
  producer_ = t.grad_fn();
}

Tensor SavedVariable::tensor() const {
  if (is_output_ || !data_.defined() || original_id_ == nullptr) return data_;
  if (std::shared_ptr<TensorImpl> original = original_.lock()) return Tensor(std::move(original));
  if (!producer_) return data_;
  Tensor alias = data_.detach();
  detail::set_history(alias, producer_);
  return alias;
}

std::string SavedVariable::producer_name() const {
  if (is_output_ || !data_.defined()) return {};
  if (original_id_ == nullptr) {  // a leaf that requires grad, kept whole
    auto fn = data_.grad_fn();
    return fn ? fn->name() : std::string();
  }
  if (std::shared_ptr<TensorImpl> original = original_.lock()) {
    auto fn = Tensor(std::move(original)).grad_fn();
    return fn ? fn->name() : std::string();
  }
  // Every handle is gone: what the tensor's producer was when the last one died. An in-place
  // write with history recorded it on the counter; a view's history is then rebuilt as
  // AsStridedBackward0 (grad_fn_of), as PyTorch rebuilds it.
  const bool rewritten = version_counter_ && !version_counter_->rewritten_by.empty();
  if (original_was_view_) return producer_ || rewritten ? "AsStridedBackward0" : "";
  if (rewritten && version_counter_->rewritten == original_id_) return version_counter_->rewritten_by;
  return producer_ ? producer_->name() : std::string();
}

void SavedVariable::release() {
  if (!data_.defined()) return;
  data_ = Tensor();
  version_counter_.reset();
  original_.reset();
  producer_.reset();
  released_ = true;
}

}  // namespace autograd
}  // namespace kindling
