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

// The tensor hooks run on `grad`, which they may change in value but not in type (dtype and
// device) or size. PyTorch checks each Python hook's result, the type first, and names the hook
// ("hook 'hk' has changed the type of value (was torch.FloatTensor got torch.DoubleTensor)");
// Kindling's hooks have no names, so its words say "a hook", and a change is reported after the
// last of them. Without the check, a hook returning grad.sum() left a leaf with a 0-d .grad.
Tensor run_checked_hooks(const HookList* list, Tensor grad) {
  if (list == nullptr) return grad;
  const Shape sizes = grad.sizes().vec();
  const ScalarType dtype = grad.dtype();
  const Device device = grad.device();
  Tensor out = run_hooks(list, std::move(grad));
  // The legacy type name, with ".cuda" for a device tensor, as PyTorch prints it.
  const auto type_name = [](ScalarType t, const Device& d) {
    const std::string name(legacy_type_name(t));
    return d.is_cpu() ? name : "torch.cuda." + name.substr(std::string("torch.").size());
  };
  KINDLING_CHECK(out.dtype() == dtype && out.device() == device, "a hook has changed the type of value (was ",
                 type_name(dtype, device), " got ", type_name(out.dtype(), out.device()), ")");
  KINDLING_CHECK(out.sizes().equals(sizes), "a hook has changed the size of value (was ", to_string(sizes), " got ",
                 to_string(out.sizes()), ")");
  return out;
}
}  // namespace

Node::Node() : sequence_nr_(next_sequence_nr.fetch_add(1, std::memory_order_relaxed)) {}

Node::~Node() {
  Graveyard& g = graveyard();
  for (Edge& e : next_edges_)
    if (e.fn) g.nodes.push_back(std::move(e.fn));
  for (SavedVariable& s : saved_) {
    if (s.data_.defined()) g.tensors.push_back(std::move(s.data_));
    if (s.producer_) g.nodes.push_back(std::move(s.producer_));
  }
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
  Tensor grad = run_checked_hooks(meta.hooks.get(), std::move(grad_output));
  if (!leaf.requires_grad()) return {};  // requires_grad_(false) since the graph was built
  if (GradMode::is_enabled()) {
    // create_graph: `.grad` keeps the gradient's history, recorded like any result: a copy
    // the first time (CopyBackwards, as in PyTorch), then out of place (AddBackward0).
    if (meta.grad.defined()) {
      meta.grad = meta.grad + grad;
    } else {
      Tensor copy = empty_like(grad);
      copy.copy_(grad);
      meta.grad = copy;
    }
  } else {
    // A view that nothing else holds (W.t()'s gradient in nn.Linear: the transpose's node hands on
    // .t() of the product, contiguous in W's layout) becomes a plain tensor over the same memory:
    // the view, and with it its hold on the product, is dropped, so that when nothing else holds
    // that memory the task's rule keeps the gradient itself instead of copying it (PyTorch keeps
    // it too: AccumulateGrad steals an unshared gradient whatever its history).
    if (grad.defined() && grad.is_view() && grad.impl_ptr().use_count() == 1) grad = grad.detach();
    accumulate_grad(meta, std::move(grad));
  }
  if (meta.post_accumulate_hooks) {
    // A copy of the list: a hook may remove itself (or register another) while it runs.
    const auto hooks = meta.post_accumulate_hooks->hooks;
    for (const auto& entry : hooks) entry.second(leaf);
  }
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

namespace detail {
BackwardContext& backward_context() {
  thread_local BackwardContext context;
  return context;
}

Tensor unpack_saved(const SavedVariable& saved, Node& node) {
  Tensor t = saved.unpack(node);
  if (!t.defined() || !saved.is_output() || !GradMode::is_enabled()) return t;
  Tensor alias = Tensor::make(t.storage(), t.sizes().vec(), t.strides().vec(), t.storage_offset(), t.dtype(),
                              t.impl().version_counter);
  set_history(alias, node.shared_from_this());
  return alias;
}

LambdaNode::LambdaNode(std::string name, const TensorList& inputs, const Tensor& out, Fn fn)
    : name_(std::move(name)), fn_(std::move(fn)) {
  for (const Tensor& t : inputs) next_edges_.push_back(t.defined() ? gradient_edge(t) : Edge{});
  set_output(out);
}

Tensor attach_backward(Tensor out, std::string name, const TensorList& inputs, LambdaNode::Fn fn) {
  if (!GradMode::is_enabled()) return out;
  bool wanted = false;
  for (const Tensor& t : inputs) wanted = wanted || (t.defined() && t.requires_grad());
  if (!wanted) return out;
  if (out.requires_grad()) out = out.detach();
  set_history(out, std::make_shared<LambdaNode>(std::move(name), inputs, out, std::move(fn)));
  return out;
}

void refuse_double_backward(TensorList& grads, const std::string& name, const TensorList& inputs) {
  if (!GradMode::is_enabled()) return;
  for (Tensor& g : grads) {
    if (!g.defined() || g.requires_grad()) continue;
    const std::string message = "the derivative for '" + name + "' is not implemented.";
    g = attach_backward(g, "NotImplemented", inputs, [message](const Tensor&) -> TensorList { throw Error(message); });
  }
}
}  // namespace detail

TensorList call_node(Node& node, Tensor grad, bool keep_graph) {
  detail::BackwardContext& context = detail::backward_context();
  if (detail::GradCapture* capture = context.capture) {  // autograd::grad(): capture, and run only what leads on
    if (auto it = capture->at.find(&node); it != capture->at.end())
      for (std::size_t i : it->second) capture->grads[i] = grad;
    if (!capture->through.contains(&node)) return TensorList(node.num_inputs());
  }
  AutoGradMode record(context.create_graph);  // off, unless the backward is to be differentiated again
  TensorList outputs;
  if (grad.defined()) {
    grad = run_checked_hooks(node.tensor_hooks.get(), std::move(grad));
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
  // The Shapes are copied whole: up to five dimensions, no heap block.
  return make(storage(), impl().sizes, impl().strides, storage_offset(), dtype(), impl().version_counter);
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

void Tensor::backward(const Tensor& gradient, std::optional<bool> retain_graph, bool create_graph) const {
  autograd::backward({*this}, {gradient}, retain_graph, create_graph);
}

namespace autograd {
namespace {
// Sets this thread's backward context for one pass, and restores the one before (a backward
// may run inside a hook of another).
class ContextScope {
 public:
  ContextScope(bool create_graph, detail::GradCapture* capture) : saved_(detail::backward_context()) {
    detail::backward_context() = {create_graph, capture};
  }
  ~ContextScope() { detail::backward_context() = saved_; }
  ContextScope(const ContextScope&) = delete;
  ContextScope& operator=(const ContextScope&) = delete;

 private:
  detail::BackwardContext saved_;
};

// make_seed for output i (its messages name element 0 and grad_output[0], as PyTorch's do
// for the first output; the others get their own index).
Tensor seed_for(const Tensor& output, const Tensor& gradient, std::size_t i) {
  try {
    return make_seed(output, gradient);
  } catch (const Error& e) {
    if (i == 0) throw;
    std::string what = e.what();
    for (const std::string from : {"element 0 ", "grad_output[0]", "output[0]"}) {
      const auto at = what.find(from);
      if (at == std::string::npos) continue;
      std::string to = from;
      to.replace(to.find('0'), 1, std::to_string(i));
      what.replace(at, from.size(), to);
    }
    throw Error(what);
  }
}

void seeds_of(const TensorList& outputs, const TensorList& grad_outputs, std::vector<Edge>& roots, TensorList& seeds) {
  KINDLING_CHECK(grad_outputs.empty() || grad_outputs.size() == outputs.size(), "got ", outputs.size(), " tensors and ",
                 grad_outputs.size(), " gradients");
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    seeds.push_back(seed_for(outputs[i], grad_outputs.empty() ? Tensor() : grad_outputs[i], i));
    roots.push_back(detail::gradient_edge(outputs[i]));
  }
}
}  // namespace

void backward(const TensorList& tensors, const TensorList& grad_tensors, std::optional<bool> retain_graph,
              bool create_graph) {
  std::vector<Edge> roots;
  TensorList seeds;
  seeds_of(tensors, grad_tensors, roots, seeds);
  ContextScope scope(create_graph, nullptr);
  execute_graph(roots, seeds, retain_graph.value_or(create_graph));
}

TensorList grad(const TensorList& outputs, const TensorList& inputs, const TensorList& grad_outputs,
                std::optional<bool> retain_graph, bool create_graph, bool allow_unused) {
  std::vector<Edge> roots;
  TensorList seeds;
  seeds_of(outputs, grad_outputs, roots, seeds);
  detail::GradCapture capture;
  capture.grads.resize(inputs.size());
  std::vector<Edge> input_edges;  // holds each input's node (a leaf's accumulator) during the pass
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    KINDLING_CHECK(inputs[i].requires_grad(), "One of the differentiated Tensors does not require grad");
    input_edges.push_back(detail::gradient_edge(inputs[i]));
    capture.at[input_edges.back().fn.get()].push_back(i);
  }
  // The nodes to run: those from which an input's node can be reached (an iterative
  // depth-first walk; a node is decided once all the nodes after it are).
  std::unordered_map<const Node*, bool> leads;  // node -> an input lies after it
  std::vector<std::pair<Node*, std::size_t>> stack;
  for (const Edge& root : roots)
    if (root.valid() && !leads.contains(root.fn.get())) {
      leads[root.fn.get()] = false;
      stack.emplace_back(root.fn.get(), 0);
    }
  while (!stack.empty()) {
    auto& [node, next] = stack.back();
    if (next < node->num_inputs()) {
      Node* child = node->next_edges()[next++].fn.get();
      if (child != nullptr && !leads.contains(child)) {
        leads[child] = false;
        stack.emplace_back(child, 0);
      }
      continue;
    }
    bool any = false;
    for (const Edge& e : node->next_edges())
      if (e.valid()) any = any || capture.at.contains(e.fn.get()) || leads[e.fn.get()];
    leads[node] = any;
    if (any) capture.through.insert(node);
    stack.pop_back();
  }
  {
    ContextScope scope(create_graph, &capture);
    execute_graph(roots, seeds, retain_graph.value_or(create_graph));
  }
  for (const Tensor& g : capture.grads)
    KINDLING_CHECK(allow_unused || g.defined(),
                   "One of the differentiated Tensors appears to not have been used in the graph. Set "
                   "allow_unused=True if this is the desired behavior.");
  return capture.grads;
}
}  // namespace autograd

autograd::HookHandle Tensor::register_hook(std::function<Tensor(const Tensor&)> hook) const {
  KINDLING_CHECK(requires_grad(), "cannot register a hook on a tensor that doesn't require gradient");
  AutogradMeta& meta = meta_of(*this);
  autograd::HookHandle handle = autograd::add_hook(meta.hooks, std::move(hook));
  if (auto fn = grad_fn_of(*this)) fn->tensor_hooks = meta.hooks;
  return handle;
}

autograd::HookHandle Tensor::register_post_accumulate_grad_hook(std::function<void(const Tensor&)> hook) const {
  KINDLING_CHECK(requires_grad(), "cannot register a hook on a tensor that doesn't require gradient");
  KINDLING_CHECK(is_leaf(), "post accumulate grad hooks cannot be registered on non-leaf tensors");
  AutogradMeta& meta = meta_of(*this);
  if (!meta.post_accumulate_hooks) meta.post_accumulate_hooks = std::make_shared<autograd::HookList>();
  autograd::HookList& list = *meta.post_accumulate_hooks;
  const int id = list.next_id++;
  list.hooks.emplace_back(id, [hook = std::move(hook)](const Tensor& leaf) {
    hook(leaf);
    return Tensor();
  });
  return autograd::HookHandle(meta.post_accumulate_hooks, id);
}

}  // namespace kindling
