#pragma once
/// @file node.hpp
/// The graph autograd records: nodes, edges, saved tensors and the per-tensor state.
///
/// Every operation on a tensor that requires grad adds a Node: an object that
/// knows how to turn the gradient of its result into gradients of its inputs
/// (the vector-Jacobian product). `next_edges()` point at the nodes of those
/// inputs, so the graph runs from the loss back to the leaves, where
/// AccumulateGrad nodes add into `.grad`.

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <kindling/tensor.hpp>

namespace kindling {
namespace autograd {

class Node;

/// Where a gradient goes: the node that computes the gradient of one input. An
/// input that does not require grad has an invalid (null) edge.
struct Edge {
  std::shared_ptr<Node> fn;  ///< the input's grad_fn or AccumulateGrad node; null if none
  /// True when a gradient is wanted along this edge.
  bool valid() const { return fn != nullptr; }
};

/// The edges of a node, in input order: up to two are kept inside the node (most
/// operations have one or two inputs), more go to the heap. Iterate it, index it and
/// ask its size() as you would a std::vector.
///
/// Note: why not a std::vector? A backward pass reads every node's edges. A vector's
/// elements are a separate heap block, placed wherever the allocator had room; on a
/// graph larger than the cache that is one more cache miss per node (measured: a
/// 1M-node chain ran up to 1.8x slower per node than a 10k-node one, depending on
/// the allocator's state). Inside the node, the edges come with the node.
class EdgeList {
 public:
  /// No edges.
  EdgeList() = default;
  /// The given edges, in order.
  EdgeList(std::vector<Edge> edges) {  // NOLINT(google-explicit-constructor): as a vector would
    for (Edge& e : edges) push_back(std::move(e));
  }
  /// Appends an edge.
  void push_back(Edge e) {
    if (heap_.empty() && inline_size_ < kInline) {
      inline_[inline_size_++] = std::move(e);
      return;
    }
    if (heap_.empty()) {  // a third edge: move all of them to the heap
      heap_.reserve(2 * kInline);
      for (std::size_t i = 0; i < inline_size_; ++i) heap_.push_back(std::move(inline_[i]));
      inline_size_ = 0;
    }
    heap_.push_back(std::move(e));
  }
  /// Number of edges.
  std::size_t size() const { return heap_.empty() ? inline_size_ : heap_.size(); }
  /// True when there are none.
  bool empty() const { return size() == 0; }
  /// Edge `i` (unchecked).
  const Edge& operator[](std::size_t i) const { return data()[i]; }
  /// Edge `i` (unchecked).
  Edge& operator[](std::size_t i) { return data()[i]; }
  /// Iteration in input order.
  const Edge* begin() const { return data(); }
  /// See begin().
  const Edge* end() const { return data() + size(); }
  /// Iteration in input order.
  Edge* begin() { return data(); }
  /// See begin().
  Edge* end() { return data() + size(); }

 private:
  static constexpr std::size_t kInline = 2;
  const Edge* data() const { return heap_.empty() ? inline_.data() : heap_.data(); }
  Edge* data() { return heap_.empty() ? inline_.data() : heap_.data(); }
  std::array<Edge, kInline> inline_;
  std::size_t inline_size_ = 0;
  std::vector<Edge> heap_;
};

/// A tensor hook: sees the gradient; a defined return value replaces it.
using TensorHook = std::function<Tensor(const Tensor&)>;

/// The hooks registered on one tensor, in registration order. The list is shared
/// by the tensor's AutogradMeta and the node that computes its gradient, so a hook
/// registered before an in-place op stays with the history it was registered on.
struct HookList {
  std::vector<std::pair<int, TensorHook>> hooks;  ///< (id, hook)
  int next_id = 0;                                ///< id of the next registration
};

/// What register_hook returns: remove() unregisters the hook (once; later calls
/// do nothing, and so does a handle whose tensor is gone).
class HookHandle {
 public:
  /// A handle that removes nothing.
  HookHandle() = default;
  /// A handle for hook `id` in `list`.
  HookHandle(std::weak_ptr<HookList> list, int id) : list_(std::move(list)), id_(id) {}
  /// Unregisters the hook.
  void remove();

 private:
  std::weak_ptr<HookList> list_;
  int id_ = -1;
};

/// A tensor a node keeps for its backward formula, with the version it had when
/// saved.
///
/// Note: three invariants; the first two are PyTorch's.
/// 1. A node must not own the tensor it produced (the tensor owns the node
///    through grad_fn: a cycle, and a leak). Outputs, and the tensor an in-place
///    op overwrites, are therefore saved as an alias of the storage with no
///    autograd state.
/// 2. The version check must not depend on whether any handle to the saved
///    tensor is still alive. `{ Tensor y = x.exp(); z = y.sum(); y.mul_(2); }`
///    drops y's last handle after the write, yet z.backward() must fail. So the
///    saved variable keeps the version counter itself (a shared object, like
///    PyTorch's VariableVersion), never a link to the tensor that may die first:
///    a weak link would read "nobody can write any more" and silently return
///    a wrong gradient (2·exp(x) in that example).
/// 3. Nor may a node own an input whose grad_fn can change: `x.add_(x * v)` gives
///    x a node that leads back to the product, which saved x (PyTorch 1.13 keeps
///    x, and leaks that cycle). An input is saved as an alias with the producer
///    it had when saved, plus a weak link to the tensor itself: unpacking returns
///    the tensor while a handle to it lives, else the alias with that producer,
///    which is the same tensor as far as a formula can tell, since its version
///    has not changed. A leaf that requires grad is kept whole, as in PyTorch:
///    it can never get a grad_fn, and AccumulateGrad needs the leaf itself.
class SavedVariable {
 public:
  /// Nothing saved.
  SavedVariable() = default;
  /// Saves `t` and its version counter. `is_output`: `t` is the saving node's own
  /// output, kept as an alias without autograd state (see the note above).
  SavedVariable(const Tensor& t, bool is_output);
  /// The saved tensor. Throws when it was released by a backward without
  /// retain_graph, or when it was modified in place since it was saved.
  /// `node` names the node that saved it (used when it is that node's output).
  Tensor unpack(const Node& node) const;
  /// Frees the tensor (after backward, unless retain_graph).
  void release();
  /// True when something was saved (and not yet released).
  bool defined() const { return data_.defined(); }

  /// The version the tensor had when it was saved.
  std::uint32_t saved_version() const { return saved_version_; }
  /// The saved tensor's version now, read from the counter this object keeps
  /// (saved_version() if nothing was saved).
  std::uint32_t current_version() const;
  /// The saved data, unchecked: an alias without autograd state, except for a
  /// leaf that requires grad, which is the leaf itself.
  const Tensor& data() const { return data_; }
  /// The saved tensor as it was saved, unchecked: a node's own output as data();
  /// an input as the tensor itself while a handle to it lives, else as data()
  /// with the producer the input had when it was saved.
  Tensor tensor() const;
  /// The name of the node that produces the saved input now (an in-place write
  /// gives it a new one), or "" for a leaf and for a node's own output.
  std::string producer_name() const;
  /// Whether release() ran.
  bool was_released() const { return released_; }
  /// True for a node's own output.
  bool is_output() const { return is_output_; }

 private:
  friend class Node;
  Tensor data_;
  std::shared_ptr<VersionCounter> version_counter_;  // the saved tensor's counter, kept alive here
  std::weak_ptr<TensorImpl> original_;               // an input saved as an alias: the tensor itself
  const TensorImpl* original_id_ = nullptr;          // ... and its address, to compare once it is gone
  std::shared_ptr<Node> producer_;                   // ... and its grad_fn when saved (null: none)
  std::uint32_t saved_version_ = 0;
  bool is_output_ = false;
  bool original_was_view_ = false;
  bool released_ = false;
};

/// A backward function in the graph. Each node computes the gradient of one
/// tensor (its output), and `apply` turns that into one gradient per next edge.
///
/// Note: subclasses keep every tensor they need in `saved_` (SavedVariable) and
/// every input in `next_edges_`; the base destructor frees long chains without
/// recursion, which only works if no subclass member owns a Node or a Tensor.
class Node : public std::enable_shared_from_this<Node> {
 public:
  Node();
  virtual ~Node();
  Node(const Node&) = delete;
  Node& operator=(const Node&) = delete;

  /// PyTorch's name for the node, e.g. "MulBackward0".
  virtual std::string name() const = 0;
  /// Gradient of the output -> gradients of the inputs, one per next edge (an
  /// undefined tensor where no gradient flows).
  virtual TensorList apply(const Tensor& grad_output) = 0;
  /// apply() on a gradient that the caller hands over (call_node does): a node that
  /// keeps its gradient, as AccumulateGrad does for a leaf's `.grad`, can then take it
  /// instead of copying it. By default, apply().
  virtual TensorList apply_moved(Tensor&& grad_output) { return apply(grad_output); }
  /// Frees the saved tensors (backward without retain_graph).
  virtual void release_variables();

  /// The nodes of the inputs, in input order.
  const EdgeList& next_edges() const { return next_edges_; }
  /// Number of inputs.
  std::size_t num_inputs() const { return next_edges_.size(); }
  /// The tensors this node saved for its formula (for pictures of the graph: draw_graph.hpp).
  const std::vector<SavedVariable>& saved_variables() const { return saved_; }
  /// True when input `i` needs a gradient.
  bool needs_input_grad(std::size_t i) const { return i < next_edges_.size() && next_edges_[i].valid(); }
  /// Creation order: later nodes run first among ready nodes, as in PyTorch.
  std::uint64_t sequence_nr() const { return sequence_nr_; }
  /// Shape of the tensor this node computes the gradient of.
  IntArrayRef output_sizes() const {
    return output_ndim_ <= kInlineDims ? IntArrayRef(output_sizes_inline_.data(), output_ndim_)
                                       : IntArrayRef(output_sizes_heap_);
  }
  /// Dtype of that tensor.
  ScalarType output_dtype() const { return output_dtype_; }

  /// Hooks of the tensor this node produced (run on its gradient before apply;
  /// retain_grad() is one of them).
  std::shared_ptr<HookList> tensor_hooks;

  /// The backward engine's bookkeeping for this node during one backward pass
  /// (week02.engine_order): which pass last reached it, how many of its incoming
  /// edges have still to run, and the gradient gathered for it so far. The engine
  /// empties `gradient` on its way out, so that outside a pass it holds no tensor
  /// (and no graph: see the note on the destructor above).
  struct EngineState {
    std::uint64_t pass = 0;  ///< the pass that last counted this node (0: none)
    int dependencies = 0;    ///< incoming edges from reachable nodes not yet run
    Tensor gradient;         ///< the sum of the gradients that have arrived
  };
  EngineState engine;  ///< see EngineState

 protected:
  /// Sets the output's shape and dtype (every node does this once).
  void set_output(const Tensor& out);
  /// Sets the output's shape and dtype from raw values.
  void set_output(IntArrayRef sizes, ScalarType dtype);
  EdgeList next_edges_;                 ///< one per input
  std::vector<SavedVariable> saved_;    ///< everything the formula reads
  ScalarType output_dtype_ = kFloat32;  ///< see output_dtype()
  std::uint64_t sequence_nr_;           ///< see sequence_nr()

 private:
  // output_sizes(), inside the node up to kInlineDims dims (for the reason EdgeList gives).
  static constexpr std::size_t kInlineDims = 4;
  std::array<std::int64_t, kInlineDims> output_sizes_inline_{};
  Shape output_sizes_heap_;  // used when there are more dims
  std::size_t output_ndim_ = 0;
};

}  // namespace autograd

/// Autograd state of a tensor (created on demand: plain tensors have none).
struct AutogradMeta {
  bool requires_grad = false;                      ///< set by requires_grad_() on a leaf
  bool retains_grad = false;                       ///< retain_grad() was called
  Tensor grad;                                     ///< the accumulated gradient
  std::shared_ptr<autograd::Node> grad_fn;         ///< producer (null for leaves)
  std::weak_ptr<autograd::Node> grad_accumulator;  ///< a leaf's AccumulateGrad, while a graph uses it
  std::shared_ptr<autograd::HookList> hooks;       ///< this tensor's hooks
  /// A leaf's hooks that run after its `.grad` was accumulated (their results are ignored).
  std::shared_ptr<autograd::HookList> post_accumulate_hooks;
  std::uint32_t attr_version = 0;  ///< a view's version when its grad_fn was set
};

}  // namespace kindling

// The inline definitions of the member functions students write.
#include <kindling/hooks.hpp>           // NOLINT(misc-header-include-cycle)
#include <kindling/saved_variable.hpp>  // NOLINT(misc-header-include-cycle)
