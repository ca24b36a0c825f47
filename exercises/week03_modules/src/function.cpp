// Week 3's own graph nodes: layers whose kernels are not week-1 operations
// (convolution, pooling, GELU) plug into the week-2 engine through one node type.

#include "autograd_internal.hpp"
#include "nn_internal.hpp"

namespace kindling::nn::detail {
namespace {

class FunctionNode final : public autograd::Node {
 public:
  FunctionNode(const char* name, const Tensor& out, const TensorList& inputs, const TensorList& saved,
               BackwardFn backward)
      : name_(name), backward_(std::move(backward)) {
    for (const Tensor& t : inputs)
      next_edges_.push_back(t.defined() ? autograd::detail::gradient_edge(t) : autograd::Edge{});
    for (const Tensor& t : saved) saved_.emplace_back(t, false);
    set_output(out);
  }
  std::string name() const override { return name_; }
  TensorList apply(const Tensor& grad) override {
    TensorList saved;
    saved.reserve(saved_.size());
    for (const auto& s : saved_) saved.push_back(autograd::detail::unpack_saved(s, *this));
    std::vector<bool> needs(num_inputs());
    for (std::size_t i = 0; i < needs.size(); ++i) needs[i] = needs_input_grad(i);
    TensorList grads = backward_(grad, saved, needs);
    for (std::size_t i = 0; i < grads.size(); ++i)
      if (!needs_input_grad(i)) grads[i] = Tensor();
    // These kernels are not recorded operations: under create_graph their gradients refuse
    // to be differentiated again instead of passing for constants.
    saved.push_back(grad);
    autograd::detail::refuse_double_backward(grads, name_, saved);
    return grads;
  }

 private:
  const char* name_;
  BackwardFn backward_;
};

}  // namespace

namespace {
// True when recording is on and one of `inputs` requires grad.
bool wants_grad(const TensorList& inputs) {
  if (!GradMode::is_enabled()) return false;
  for (const Tensor& t : inputs)
    if (t.defined() && t.requires_grad()) return true;
  return false;
}
}  // namespace

void record_function(const char* name, const Tensor& out, const TensorList& inputs, const TensorList& saved,
                     BackwardFn backward) {
  if (!wants_grad(inputs)) return;
  auto node = std::make_shared<FunctionNode>(name, out, inputs, saved, std::move(backward));
  autograd::detail::set_history(out, node);
}

void set_data(const Tensor& t, const Tensor& value) {
  TensorImpl& dst = t.impl();
  const TensorImpl& src = value.impl();
  dst.storage = src.storage;
  dst.sizes = src.sizes;
  dst.strides = src.strides;
  dst.storage_offset = src.storage_offset;
  dst.dtype = src.dtype;
}

}  // namespace kindling::nn::detail
