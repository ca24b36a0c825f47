// The graph's plumbing: nodes, saved tensors, per-tensor autograd state, and
// Tensor's autograd methods.

#include <algorithm>
#include <atomic>
#include <cstdint>

#include "autograd_internal.hpp"

namespace kindling {
namespace autograd {

namespace {
std::atomic<std::uint64_t> next_sequence_nr{0};

// Note: destroying the last handle of a long graph would recurse once per node
// (node -> edge -> node ...) and overflow the stack at ~100,000 nodes. Instead,
// a dying node moves what it owns into this thread's graveyard, and only the
// outermost destructor empties it, in a loop.
struct Graveyard {
  std::vector<std::shared_ptr<Node>> nodes;
  std::vector<Tensor> tensors;
  bool draining = false;
};
Graveyard& graveyard() {
  thread_local Graveyard g;
  return g;
}
}  // namespace

Node::Node() : sequence_nr_(next_sequence_nr.fetch_add(1, std::memory_order_relaxed)) {}

Node::~Node() {
  Graveyard& g = graveyard();
  for (Edge& e : next_edges_)
    if (e.fn) g.nodes.push_back(std::move(e.fn));
  for (SavedVariable& s : saved_)
    if (s.data_.defined()) g.tensors.push_back(std::move(s.data_));
  if (g.draining) return;
  g.draining = true;
  while (!g.nodes.empty() || !g.tensors.empty()) {
    if (!g.tensors.empty()) {
      Tensor t = std::move(g.tensors.back());
      g.tensors.pop_back();
    } else {
      std::shared_ptr<Node> n = std::move(g.nodes.back());
      g.nodes.pop_back();
    }
  }
  g.draining = false;
}

void Node::release_variables() {
  for (SavedVariable& s : saved_) s.release();
}

void Node::set_output(const Tensor& out) { set_output(out.sizes(), out.dtype()); }
void Node::set_output(IntArrayRef sizes, ScalarType dtype) {
  output_ndim_ = sizes.size();
  if (output_ndim_ <= kInlineDims)
    std::copy(sizes.begin(), sizes.end(), output_sizes_inline_.begin());
  else
    output_sizes_heap_ = sizes.vec();
  output_dtype_ = dtype;
}

SavedVariable::SavedVariable(const Tensor& t, bool is_output) : is_output_(is_output) {
  if (!t.defined()) return;
  saved_version_ = t.version();
  version_counter_ = t.impl().version_counter;
  if (!is_output) {
    data_ = t;
    return;
  }
  // An alias of the data with no autograd state (so the node does not own its own
  // output), sharing the counter (PyTorch's tensor_data()).
  data_ =
      Tensor::make(t.storage(), t.sizes().vec(), t.strides().vec(), t.storage_offset(), t.dtype(), version_counter_);
}

void SavedVariable::release() {
  if (!data_.defined()) return;
  data_ = Tensor();
  version_counter_.reset();
  released_ = true;
}

// ---- AccumulateGrad ----------------------------------------------------------------------
AccumulateGrad::AccumulateGrad(const Tensor& leaf) {
  saved_.emplace_back(leaf, false);
  set_output(leaf);
  sequence_nr_ = UINT64_MAX;  // ready leaves accumulate first, as in PyTorch
}

// A gradient the caller keeps a handle to: a copy of the handle, so accumulate_grad
// sees it shared and copies the data.
TensorList AccumulateGrad::apply(const Tensor& grad_output) { return apply_moved(Tensor(grad_output)); }

TensorList AccumulateGrad::apply_moved(Tensor&& grad_output) {
  const Tensor& leaf = variable();
  AutogradMeta& meta = detail::meta_of(leaf);
  Tensor grad = run_hooks(meta.hooks.get(), std::move(grad_output));
  if (!leaf.requires_grad()) return {};  // requires_grad_(false) since the graph was built
  accumulate_grad(meta, std::move(grad));
  return {};
}

// ---- engine helpers ------------------------------------------------------------------------
std::uint64_t new_backward_pass() {
  static std::atomic<std::uint64_t> passes{0};
  return ++passes;  // starts at 1: a node's engine.pass of 0 means "never reached"
}

void add_to_slot(Tensor& slot, const Tensor& grad) {
  if (!slot.defined()) {
    slot = grad;
    return;
  }
  slot = slot + grad;
}

TensorList call_node(Node& node, Tensor grad, bool keep_graph) {
  AutoGradMode no_grad(false);
  TensorList outputs;
  if (grad.defined()) {
    grad = run_hooks(node.tensor_hooks.get(), std::move(grad));
    outputs = node.apply_moved(std::move(grad));
  }
  if (!keep_graph) node.release_variables();
  outputs.resize(node.num_inputs());
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    const Edge& edge = node.next_edges()[i];
    if (!edge.valid()) {
      outputs[i] = Tensor();
      continue;
    }
    Tensor& g = outputs[i];
    if (!g.defined()) continue;
    if (!g.sizes().equals(edge.fn->output_sizes())) g = sum_to_size(g, edge.fn->output_sizes());
    if (g.dtype() != edge.fn->output_dtype()) g = g.to(edge.fn->output_dtype());
  }
  return outputs;
}

}  // namespace autograd

// ---- per-tensor state ------------------------------------------------------------------------
namespace autograd::detail {

AutogradMeta& meta_of(const Tensor& t) {
  auto& slot = t.impl().autograd;
  if (!slot) slot = std::make_shared<AutogradMeta>();
  return *slot;
}

std::shared_ptr<Node> grad_fn_of(const Tensor& t) {
  AutogradMeta* meta = meta_if(t);
  const auto& base_impl = t.impl().view_base;
  if (!base_impl) return meta ? meta->grad_fn : nullptr;
  // A view: if its base (or another view of it) was written in place since the
  // view's grad_fn was set, the view's history is now "a slice of the base".
  if (meta == nullptr || !meta->grad_fn || meta->attr_version == t.version()) return meta ? meta->grad_fn : nullptr;
  const Tensor base(base_impl);
  if (!base.requires_grad()) return meta->grad_fn;
  AutogradMeta& m = meta_of(t);
  m.grad_fn = std::make_shared<ViewNode>("AsStridedBackward0", gradient_edge(base), Geometry::of(base), t);
  m.attr_version = t.version();
  return m.grad_fn;
}

Edge gradient_edge(const Tensor& t) {
  if (auto fn = grad_fn_of(t)) return {fn};
  AutogradMeta* meta = meta_if(t);
  if (meta == nullptr || !meta->requires_grad) return {};
  auto acc = meta->grad_accumulator.lock();
  if (!acc) {
    acc = std::make_shared<AccumulateGrad>(t);
    meta->grad_accumulator = acc;
  }
  return {acc};
}

void set_history(const Tensor& t, const std::shared_ptr<Node>& node) {
  AutogradMeta& meta = meta_of(t);
  meta.grad_fn = node;
  meta.attr_version = t.version();
  meta.hooks.reset();  // hooks registered before stay with the old history
  meta.retains_grad = false;
}

}  // namespace autograd::detail

using autograd::detail::grad_fn_of;
using autograd::detail::meta_if;
using autograd::detail::meta_of;

bool Tensor::requires_grad() const {
  AutogradMeta* meta = meta_if(*this);
  if (meta && meta->requires_grad) return true;
  if (meta == nullptr && !impl().view_base) return false;
  return grad_fn_of(*this) != nullptr;
}

const Tensor& Tensor::requires_grad_(bool requires_grad) const {
  if (!is_leaf())
    KINDLING_CHECK(requires_grad,
                   "you can only change requires_grad flags of leaf variables. If you want to use a computed "
                   "variable in a subgraph that doesn't require differentiation use var_no_grad = var.detach().");
  KINDLING_CHECK(!requires_grad || is_floating_point(), "only Tensors of floating point dtype can require gradients");
  if (requires_grad || meta_if(*this)) meta_of(*this).requires_grad = requires_grad;
  return *this;
}

bool Tensor::is_leaf() const { return grad_fn_of(*this) == nullptr; }

Tensor Tensor::grad() const {
  AutogradMeta* meta = meta_if(*this);
  return meta ? meta->grad : Tensor();
}

Tensor& Tensor::mutable_grad() const { return meta_of(*this).grad; }

std::shared_ptr<autograd::Node> Tensor::grad_fn() const { return grad_fn_of(*this); }

const Tensor& Tensor::retain_grad() const {
  KINDLING_CHECK(requires_grad(), "can't retain_grad on Tensor that has requires_grad=False");
  if (is_leaf()) return *this;  // leaves keep their gradient anyway
  AutogradMeta& meta = meta_of(*this);
  if (meta.retains_grad) return *this;
  meta.retains_grad = true;
  // As in PyTorch 1.13, retaining is a hook: it sees the gradient as the hooks
  // registered before it left it. The weak link avoids a cycle through the node.
  std::weak_ptr<TensorImpl> self = impl_ptr();
  register_hook([self](const Tensor& grad) {
    if (auto impl = self.lock()) {
      Tensor& slot = impl->autograd->grad;
      slot = slot.defined() ? slot + grad : grad.clone();
    }
    return Tensor();
  });
  return *this;
}

bool Tensor::retains_grad() const {
  AutogradMeta* meta = meta_if(*this);
  return meta && meta->retains_grad && !is_leaf();
}

Tensor Tensor::detach() const {
  return make(storage(), sizes().vec(), strides().vec(), storage_offset(), dtype(), impl().version_counter);
}

const Tensor& Tensor::detach_() const {
  // PyTorch 1.13's whole message; its second part is about DistributedDataParallel's gradient buckets.
  KINDLING_CHECK(!is_view(),
                 "Can't detach views in-place. Use detach() instead. If you are using DistributedDataParallel (DDP) "
                 "for training, and gradient_as_bucket_view is set as True, gradients are views of DDP buckets, and "
                 "hence detach_() cannot be called on these gradients. To fix this error, please refer to the "
                 "Optimizer.zero_grad() function in torch/optim/optimizer.py as the solution.");
  if (AutogradMeta* meta = meta_if(*this)) {
    meta->grad_fn.reset();
    meta->requires_grad = false;
  }
  return *this;
}

void Tensor::backward(const Tensor& gradient, bool retain_graph) const {
  const Tensor seed = autograd::make_seed(*this, gradient);
  autograd::execute_graph({autograd::detail::gradient_edge(*this)}, {seed}, retain_graph);
}

autograd::HookHandle Tensor::register_hook(std::function<Tensor(const Tensor&)> hook) const {
  KINDLING_CHECK(requires_grad(), "cannot register a hook on a tensor that doesn't require gradient");
  AutogradMeta& meta = meta_of(*this);
  autograd::HookHandle handle = autograd::add_hook(meta.hooks, std::move(hook));
  if (auto fn = grad_fn_of(*this)) fn->tensor_hooks = meta.hooks;
  return handle;
}

}  // namespace kindling
