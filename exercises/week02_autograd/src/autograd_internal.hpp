#pragma once
// Private pieces of week 2 shared by its source files.

#include <functional>
#include <span>
#include <unordered_map>
#include <unordered_set>

#include <kindling/autograd.hpp>

#include "autograd_hooks.hpp"

namespace kindling::autograd::detail {

using kindling::detail::autograd::Op;
using kindling::detail::autograd::OpArgs;

/// The tensor's AutogradMeta, created if absent.
AutogradMeta& meta_of(const Tensor& t);
/// The tensor's AutogradMeta or null.
inline AutogradMeta* meta_if(const Tensor& t) { return t.defined() ? t.impl().autograd.get() : nullptr; }
/// grad_fn, regenerating a view's when its base was modified in place since.
std::shared_ptr<Node> grad_fn_of(const Tensor& t);
/// Where the gradient of `t` goes: its grad_fn, its leaf accumulator, or nowhere.
Edge gradient_edge(const Tensor& t);
/// Makes `node` the history of `t` (a fresh result or an in-place target).
void set_history(const Tensor& t, const std::shared_ptr<Node>& node);

/// What the running backward pass was asked for (set by backward() and grad(), read by
/// call_node): whether to record the formulas (create_graph), and for grad() which nodes'
/// gradients to capture and which nodes to run at all.
struct GradCapture {
  std::unordered_map<const Node*, std::vector<std::size_t>> at;  ///< an input's node -> its indices
  std::unordered_set<const Node*> through;                       ///< nodes that lead to an input: the only ones run
  TensorList grads;                                              ///< one per input
};
struct BackwardContext {
  bool create_graph = false;
  GradCapture* capture = nullptr;
};
/// This thread's context (a backward inside a hook gets its own, restored afterwards).
BackwardContext& backward_context();

/// A saved tensor as a formula reads it: unpack(), and under create_graph a node's own
/// output comes back with that node as its grad_fn (the saved alias has no history, so that
/// the node does not own itself), so that derivatives through it are recorded.
Tensor unpack_saved(const SavedVariable& saved, Node& node);

/// A node whose backward is a function (the second derivatives of the formulas that are not
/// written in recorded operations: index scatters, strided scatters).
class LambdaNode final : public Node {
 public:
  using Fn = std::function<TensorList(const Tensor&)>;
  LambdaNode(std::string name, const TensorList& inputs, const Tensor& out, Fn fn);
  std::string name() const override { return name_; }
  TensorList apply(const Tensor& grad) override { return fn_(grad); }

 private:
  std::string name_;
  Fn fn_;  // must own no tensor with a history (see Node's note)
};

/// Under create_graph: `out`, computed from `inputs` without recording, gets a LambdaNode
/// with backward `fn` when one of `inputs` requires grad. Returns `out`.
Tensor attach_backward(Tensor out, std::string name, const TensorList& inputs, LambdaNode::Fn fn);

/// Under create_graph: each defined gradient in `grads` that a node computed without
/// recording (its kernels are not week-1 operations) gets a node that refuses to be
/// differentiated, when one of `inputs` (the incoming gradient, the saved tensors) requires
/// grad: "the derivative for 'NAME' is not implemented." (PyTorch's words for such a formula).
void refuse_double_backward(TensorList& grads, const std::string& name, const TensorList& inputs);

/// Sizes, strides and offset of a tensor, as a view node remembers them.
struct Geometry {
  Shape sizes, strides;
  std::int64_t offset = 0;
  static Geometry of(const Tensor& t) { return {t.sizes().vec(), t.strides().vec(), t.storage_offset()}; }
};

/// The gradient of a view's input, given the gradient of the view: elements the
/// view shows get their gradient, the others zero (expand sums, as it must).
/// `name`: the view node's (its second derivative's node is named after it).
Tensor view_backward(const Tensor& grad, const Geometry& input, const Geometry& view, ScalarType dtype,
                     const std::string& name = "AsStridedBackward0");

/// A node for a view: ViewBackward0, TransposeBackward0, ..., AsStridedBackward0.
class ViewNode final : public Node {
 public:
  ViewNode(std::string name, Edge input, Geometry in, const Tensor& view);
  std::string name() const override { return name_; }
  TensorList apply(const Tensor& grad) override;

 private:
  std::string name_;
  Geometry in_, out_;
};

/// The node of a week-1 operation, whose formula lives in formulas.cpp.
class OpNode final : public Node {
 public:
  /// Slots in saved_: the inputs, the output, the auxiliary tensor.
  enum Slot { kIn0, kIn1, kIn2, kOut, kAux, kSlots };
  /// `inputs` as the op received them; `self_weak` saves input 0 as a weak alias
  /// (the target of an in-place op).
  OpNode(Op op, const Tensor& out, std::span<const Tensor* const> inputs, OpArgs args, bool inplace);
  std::string name() const override;
  TensorList apply(const Tensor& grad) override;
  /// Saves the output (after the constructor, once the output has its history).
  void save_output(const Tensor& out);
  /// True when the formula reads the output.
  bool needs_output() const;
  void release_variables() override;

 private:
  /// The saved slot `i`, made to exist (saved_ only grows as far as it is used).
  SavedVariable& slot(std::size_t i);

  Op op_;
  OpArgs args_;                          // aux moved into saved_
  std::vector<std::int64_t> cat_sizes_;  // cat/stack: each input's size along dim (rare: kept out of the node)
  bool wrapped_exponent_ = false;
  bool reversed_sub_ = false;  // Scalar - Tensor: PyTorch's rsub
  bool all_dims_ = true;
  bool output_needed_ = false;
  // A wrapped number (the 2 of x * 2) the formula reads: its value and dtype, not a
  // 0-d tensor. It cannot be written in place (no handle to it escapes), so it needs
  // no version check, and keeping it here saves a tensor's four allocations per
  // node: the graph of a long chain stays small enough to walk fast.
  Scalar wrapped_value_;
  ScalarType wrapped_dtype_ = kFloat32;
  std::int8_t wrapped_slot_ = -1;  // the slot it stands for; -1: none
  bool wrapped_released_ = false;  // freed by a backward without retain_graph
};

/// Gradients of op `op` (formulas.cpp): one per input, at the broadcast shape.
TensorList op_formula(Op op, const Tensor& grad, const std::array<Tensor, OpNode::kSlots>& saved, const OpArgs& args,
                      const Node& node, IntArrayRef cat_sizes);

/// The node an in-place write on a view gives its base: the base's gradient with
/// the view's part replaced by what the in-place op's node makes of it.
class CopySlices final : public Node {
 public:
  CopySlices(const Tensor& base, Edge base_edge, const Tensor& view, std::shared_ptr<Node> fn);
  std::string name() const override { return "torch::autograd::CopySlices"; }  // PyTorch's name()
  TensorList apply(const Tensor& grad) override;
  void release_variables() override;

 private:
  Geometry base_, view_;
  std::shared_ptr<Node> fn_;
};

}  // namespace kindling::autograd::detail
