// Custom autograd functions (custom_function.hpp): the context, and the node's plumbing.

#include <cxxabi.h>

#include <algorithm>
#include <cstdlib>
#include <kindling/custom_function.hpp>
#include <typeinfo>

#include "autograd_internal.hpp"

namespace kindling::autograd {

namespace {
[[noreturn]] void wrong_kind(const char* wanted) { throw Error(std::string("saved_data: the value is not ") + wanted); }
}  // namespace

double IValue::toDouble() const {
  if (const auto* d = std::get_if<double>(&value_)) return *d;
  if (const auto* i = std::get_if<std::int64_t>(&value_)) return static_cast<double>(*i);
  wrong_kind("a double");
}
std::int64_t IValue::toInt() const {
  if (const auto* i = std::get_if<std::int64_t>(&value_)) return *i;
  wrong_kind("an integer");
}
bool IValue::toBool() const {
  if (const auto* b = std::get_if<bool>(&value_)) return *b;
  wrong_kind("a bool");
}
const std::string& IValue::toStringRef() const {
  if (const auto* s = std::get_if<std::string>(&value_)) return *s;
  wrong_kind("a string");
}
Tensor IValue::toTensor() const {
  if (const auto* t = std::get_if<Tensor>(&value_)) return *t;
  wrong_kind("a tensor");
}

void AutogradContext::save_for_backward(TensorList to_save) { to_save_ = std::move(to_save); }

TensorList AutogradContext::get_saved_variables() const {
  KINDLING_CHECK(node_ != nullptr, "get_saved_variables() is for backward: forward has the tensors themselves");
  TensorList out;
  for (const SavedVariable& s : node_->saved_variables()) out.push_back(detail::unpack_saved(s, *node_));
  return out;
}

void AutogradContext::mark_non_differentiable(const TensorList& outputs) {
  for (const Tensor& t : outputs)
    if (t.defined()) non_differentiable_.push_back(&t.impl());
}

bool AutogradContext::needs_input_grad(std::size_t i) const { return node_ != nullptr && node_->needs_input_grad(i); }

Tensor CustomNode::finish(const TensorList& tensor_inputs, std::vector<bool> is_tensor, TensorList outputs,
                          bool record) {
  KINDLING_CHECK(outputs.size() == 1, "Kindling: a custom function's forward returns one tensor (it returned ",
                 outputs.size(), "); Kindling's graph nodes have one output each");
  Tensor out = std::move(outputs[0]);
  KINDLING_CHECK(out.defined(), "Kindling: a custom function's forward returned an undefined tensor");
  // An input returned as it is: the output is a new handle to it (a leaf must not get a history).
  for (const Tensor& t : tensor_inputs)
    if (t.defined() && &t.impl() == &out.impl()) out = out.detach();
  const bool differentiable = std::find(ctx.non_differentiable_.begin(), ctx.non_differentiable_.end(), &out.impl()) ==
                              ctx.non_differentiable_.end();
  if (!record || !differentiable || !is_floating_point(out.dtype())) {
    ctx.to_save_.clear();
    return out;
  }
  is_tensor_ = std::move(is_tensor);
  for (const Tensor& t : tensor_inputs) next_edges_.push_back(t.defined() ? detail::gradient_edge(t) : Edge{});
  set_output(out);
  detail::set_history(out, shared_from_this());
  for (const Tensor& t : ctx.to_save_) saved_.emplace_back(t, t.defined() && &t.impl() == &out.impl());
  ctx.to_save_.clear();
  ctx.node_ = this;
  return out;
}

TensorList CustomNode::apply(const Tensor& grad) {
  TensorList outputs = call_backward({grad});
  const std::size_t expected = is_tensor_.size();
  if (outputs.size() > expected) {  // extra undefined gradients at the end are allowed, as in LibTorch
    bool all_undefined = true;
    for (std::size_t i = expected; i < outputs.size(); ++i) all_undefined = all_undefined && !outputs[i].defined();
    if (all_undefined) outputs.resize(expected);
  }
  KINDLING_CHECK(outputs.size() == expected, "function ", name(),
                 " returned an incorrect number of gradients (expected ", expected, ", got ", outputs.size(), ")");
  TensorList grads;
  for (std::size_t i = 0; i < expected; ++i) {
    if (is_tensor_[i]) {
      grads.push_back(outputs[i]);
      continue;
    }
    KINDLING_CHECK(!outputs[i].defined(), "function ", name(), " returned a gradient different than None at position ",
                   i + 1, ", but the corresponding forward input was not a Variable");
  }
  for (std::size_t i = 0; i < grads.size(); ++i) {
    if (!grads[i].defined() || !needs_input_grad(i)) continue;
    // PyTorch's rule (validate_outputs): the input's shape must expand to the gradient's, which the
    // engine then sums back to the input's shape (call_node); a gradient of [3] for an input of [2],
    // or of [6] for [2, 3], is an error.
    const IntArrayRef want = next_edges()[i].fn->output_sizes();
    const IntArrayRef got = grads[i].sizes();
    bool expandable = want.size() <= got.size();
    for (std::size_t k = 1; expandable && k <= want.size(); ++k)
      expandable = want[want.size() - k] == got[got.size() - k] || want[want.size() - k] == 1;
    KINDLING_CHECK(expandable, "Function ", name(), " returned an invalid gradient at index ", i, " - got ",
                   to_string(got), " but expected shape compatible with ", to_string(want));
  }
  return grads;
}

namespace detail {
std::string demangle(const char* mangled) {
  int status = 0;
  char* text = abi::__cxa_demangle(mangled, nullptr, nullptr, &status);
  std::string out = status == 0 && text != nullptr ? text : mangled;
  std::free(text);
  return out;
}
}  // namespace detail

}  // namespace kindling::autograd
