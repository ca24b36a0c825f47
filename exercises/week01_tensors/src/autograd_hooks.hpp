#pragma once
// The extension point through which week 2 records autograd history.
//
// Note: every differentiable week-1 operation computes its result and then hands
// it to `record`, which week 2 defines: that keeps the kernels free of autograd
// and puts every gradient formula in one file (week 2's formulas.cpp), as
// PyTorch's derivatives.yaml does. The fast path costs one pointer test per
// input: a tensor without AutogradMeta can never require grad, so operations on
// plain tensors (all of week 1) never reach week 2's code.

#include <functional>
#include <initializer_list>
#include <optional>
#include <source_location>

#include <kindling/device_hooks.hpp>
#include <kindling/grad_mode.hpp>
#include <kindling/tensor.hpp>

namespace kindling::detail::autograd {

/// The differentiable operations, one per gradient formula.
enum class Op : std::uint8_t {
  // binary elementwise (inputs: a, b)
  Add,
  Sub,
  Mul,
  Div,
  Pow,
  Maximum,
  Minimum,
  // unary elementwise (input: x)
  Neg,
  Abs,
  Sign,
  Exp,
  Log,
  Log1p,
  Sqrt,
  Rsqrt,
  Sin,
  Cos,
  Tanh,
  Sigmoid,
  Relu,
  Floor,
  Ceil,
  Round,
  Reciprocal,
  Clamp,
  Clone,
  ToCopy,
  // reductions (input: x)
  Sum,
  Mean,
  Prod,
  MaxAll,
  MinAll,
  MaxDim,
  MinDim,
  Logsumexp,
  Softmax,
  LogSoftmax,
  // matrix products
  Dot,
  Mv,
  Mm,
  Bmm,
  Addmm,
  // joining and indexing
  Cat,
  Stack,
  IndexSelect,
  MaskedFill,
  Where,
  // in-place writes with no other differentiable input
  Fill,
  Copy,
};

/// The non-tensor arguments a formula needs; each op reads the fields it uses.
struct OpArgs {
  Scalar alpha = 1;                ///< add/sub/addmm alpha, pow exponent (as Scalar), masked_fill value
  Scalar beta = 1;                 ///< addmm beta
  std::optional<Scalar> min, max;  ///< clamp bounds
  Shape dims;                      ///< reduced dims (empty: all)
  std::int64_t dim = 0;            ///< softmax/cat/stack/index_select/max(dim) dim
  bool keepdim = false;            ///< reductions
  bool scalar_exponent = false;    ///< pow with a Scalar exponent
  Tensor aux;                      ///< index, mask, condition or argmax indices (saved, not differentiated)
  /// `x op 2.0` computed without a wrapped 0-d tensor: the Scalar as given (backward
  /// converts it to the op's dtype) stands for input 1, which is passed undefined (it
  /// never needs a gradient).
  std::optional<Scalar> scalar_operand;
  /// Recorded by PyTorch's Scalar overload (mul.Scalar: MulBackward1), as its own backward
  /// formulas call it (detail::mul_scalar_overload).
  bool scalar_overload = false;
  /// ToCopy across devices: the input's device, to which backward moves the gradient back
  /// (empty for a change of dtype only).
  std::optional<Device> device;
  /// mm and addmm: bit 0 (mat1) and bit 1 (mat2) set when that operand was stored column-major,
  /// as the transpose of a contiguous matrix is (its strides are (1, rows)). Backward then
  /// returns that operand's gradient in the same layout, as PyTorch's mm_mat1_backward and
  /// mm_mat2_backward do (column_major_bits).
  std::uint8_t column_major = 0;
};

/// mm's and addmm's OpArgs::column_major bits for (mat1, mat2): PyTorch's test, strides
/// (1, rows) exactly.
inline std::uint8_t column_major_bits(const Tensor& mat1, const Tensor& mat2) {
  const auto column_major = [](const Tensor& m) { return m.strides()[0] == 1 && m.strides()[1] == m.sizes()[0]; };
  return static_cast<std::uint8_t>((column_major(mat1) ? 1 : 0) | (column_major(mat2) ? 2 : 0));
}

/// Operands, passed without copying the handles (no reference-count traffic on the fast path).
using TensorRefs = std::initializer_list<std::reference_wrapper<const Tensor>>;

/// True when `t` might require grad (has autograd state at all).
inline bool may_require_grad(const Tensor& t) { return t.defined() && t.impl().autograd != nullptr; }

// ---- defined by week 2 ---------------------------------------------------------------
/// Attaches a node for `op` to `out` if grad mode is on and an input requires grad.
void record(Op op, const Tensor& out, TensorRefs inputs, OpArgs args);
/// The name of t's grad_fn ("" for none), for printing.
std::string grad_fn_name(const Tensor& t);
/// record() for ops over a list of tensors (cat, stack).
void record_list(Op op, const Tensor& out, const TensorList& inputs, OpArgs args);
/// Records `view` as a view of `base` made by the function named in `caller`.
void record_view(const Tensor& base, const Tensor& view, const std::source_location& caller);
/// Records `out`, base's elements in another shape but not a view, as UnsafeViewBackward0.
void record_unsafe_view(const Tensor& base, const Tensor& out);

/// An in-place write on a tensor that takes part in autograd. Construct before
/// the write (it checks the leaf rule and saves what the formula needs at the
/// current versions), call commit() after it (it rebases the history of `self`).
class InplaceRecord {
 public:
  InplaceRecord(Op op, const Tensor& self, TensorRefs others, OpArgs args);
  ~InplaceRecord();
  InplaceRecord(const InplaceRecord&) = delete;
  InplaceRecord& operator=(const InplaceRecord&) = delete;
  /// Makes the recorded node the new history of the written tensor.
  void commit();

 private:
  struct State;
  State* state_ = nullptr;
};

// ---- helpers for week-1 operations -------------------------------------------------------
// The op's arguments are built by `make_args` only when the op is recorded, so an
// op on plain tensors pays nothing for them (`sum(x, dims)` copies its dims only
// then). `make_args` runs after `compute`, so it may read what compute produced.

/// No arguments.
inline OpArgs no_args() { return {}; }

/// Runs `compute`; when `wanted` and grad mode is on, runs it with grad mode off
/// (the helpers it calls record nothing) and hands the result to `record_result`.
template <class Compute, class Record>
Tensor run_recorded(bool wanted, Compute&& compute, Record&& record_result) {
  if (!wanted || !GradMode::is_enabled()) return compute();
  Tensor out;
  {
    AutoGradMode off(false);
    out = compute();
  }
  record_result(out);
  return out;
}

/// Runs `compute` and records `op` over `inputs` when any of them might require grad.
template <class Compute, class MakeArgs = OpArgs (*)()>
Tensor differentiable(Op op, TensorRefs inputs, Compute&& compute, MakeArgs&& make_args = no_args) {
  bool wanted = false;
  for (const Tensor& t : inputs) wanted = wanted || may_require_grad(t);
  return run_recorded(wanted, compute, [&](const Tensor& out) { record(op, out, inputs, make_args()); });
}

/// differentiable() for ops over a list of tensors (cat, stack).
template <class Compute, class MakeArgs = OpArgs (*)()>
Tensor differentiable_list(Op op, const TensorList& inputs, Compute&& compute, MakeArgs&& make_args = no_args) {
  bool wanted = false;
  for (const Tensor& t : inputs) wanted = wanted || may_require_grad(t);
  return run_recorded(wanted, compute, [&](const Tensor& out) { record_list(op, out, inputs, make_args()); });
}

/// Runs the in-place write `write` on `self`, recording it when `self` or an
/// operand takes part in autograd.
template <class Write, class MakeArgs = OpArgs (*)()>
void inplace(Op op, const Tensor& self, TensorRefs others, Write&& write, MakeArgs&& make_args = no_args) {
  const auto& base = self.impl().view_base;
  bool wanted = may_require_grad(self) || (base && base->autograd);
  for (const Tensor& t : others) wanted = wanted || may_require_grad(t);
  if (!wanted || !GradMode::is_enabled()) {
    write();
    return;
  }
  InplaceRecord rec(op, self, others, make_args());
  {
    AutoGradMode off(false);
    write();
  }
  rec.commit();
}

}  // namespace kindling::detail::autograd
