#pragma once
/// @file custom_function.hpp
/// Custom autograd functions, as LibTorch writes them (torch/csrc/autograd/custom_function.h):
///
///     struct MulConstant : autograd::Function<MulConstant> {
///       static Tensor forward(autograd::AutogradContext* ctx, Tensor x, double c) {
///         ctx->saved_data["c"] = c;
///         return x * c;
///       }
///       static TensorList backward(autograd::AutogradContext* ctx, TensorList grad_outputs) {
///         return {grad_outputs[0] * ctx->saved_data["c"].toDouble(), Tensor()};
///       }
///     };
///     Tensor y = MulConstant::apply(x, 5.5);
///
/// `forward` runs with recording off and returns one tensor (or a list of one); `apply` gives
/// it a node whose backward is `backward`: one gradient per argument of forward, an undefined
/// tensor for the arguments that are not tensors. Tensors saved with `save_for_backward` are
/// version-checked like a built-in node's; `saved_data` keeps anything else. A backward written
/// in tensor operations is recorded under create_graph, so it can be differentiated again.
///
/// Not supported (Kindling's nodes have one output): several outputs, and `mark_dirty` (an
/// in-place custom function).
#include <cstddef>
#include <memory>
#include <string>
#include <type_traits>
#include <typeinfo>
#include <unordered_map>
#include <utility>
#include <variant>
#include <vector>

#include <kindling/grad_mode.hpp>
#include <kindling/node.hpp>

namespace kindling::autograd {

/// A value kept in AutogradContext::saved_data (LibTorch's IValue, for the kinds a custom
/// function keeps): none, a double, an integer, a bool, a string or a tensor.
class IValue {
 public:
  /// None.
  IValue() = default;
  /// A double.
  IValue(double v) : value_(v) {}  // NOLINT(google-explicit-constructor): assigned from values, as in LibTorch
  /// A float, kept as a double.
  IValue(float v) : value_(static_cast<double>(v)) {}  // NOLINT(google-explicit-constructor)
  /// An integer.
  IValue(int v) : value_(static_cast<std::int64_t>(v)) {}  // NOLINT(google-explicit-constructor)
  /// An integer.
  IValue(std::int64_t v) : value_(v) {}  // NOLINT(google-explicit-constructor)
  /// A bool.
  IValue(bool v) : value_(v) {}  // NOLINT(google-explicit-constructor)
  /// A string.
  IValue(std::string v) : value_(std::move(v)) {}  // NOLINT(google-explicit-constructor)
  /// A string.
  IValue(const char* v) : value_(std::string(v)) {}  // NOLINT(google-explicit-constructor)
  /// A tensor.
  IValue(Tensor v) : value_(std::move(v)) {}  // NOLINT(google-explicit-constructor)
  /// The value as a double (a double or an integer); throws otherwise.
  double toDouble() const;
  /// The value as an integer; throws for anything else.
  std::int64_t toInt() const;
  /// The value as a bool; throws for anything else.
  bool toBool() const;
  /// The value as a string; throws for anything else.
  const std::string& toStringRef() const;
  /// The value as a tensor; throws for anything else.
  Tensor toTensor() const;
  /// True when nothing was stored.
  bool isNone() const { return value_.index() == 0; }

 private:
  std::variant<std::monostate, double, std::int64_t, bool, std::string, Tensor> value_;
};

/// What forward leaves for backward.
class AutogradContext {
 public:
  /// Tensors backward will read (inputs or the output), each checked on unpacking: modified in
  /// place since, they raise PyTorch's "one of the variables needed for gradient computation
  /// has been modified by an inplace operation" error.
  void save_for_backward(TensorList to_save);
  /// The saved tensors, in the order saved (undefined ones stay undefined).
  TensorList get_saved_variables() const;
  /// Marks outputs that have no gradient: they are returned without a history.
  void mark_non_differentiable(const TensorList& outputs);
  /// True when input `i` (counting forward's tensor arguments) needs a gradient.
  bool needs_input_grad(std::size_t i) const;
  /// Anything else backward needs, by name.
  std::unordered_map<std::string, IValue> saved_data;

 private:
  template <class T>
  friend struct Function;
  friend class CustomNode;
  TensorList to_save_;
  std::vector<const TensorImpl*> non_differentiable_;
  Node* node_ = nullptr;  // set once the node exists (apply with recording on)
};

/// The node of a custom function (the non-template part of Function<T>::apply).
class CustomNode : public Node {
 public:
  /// The function's name (its C++ type, demangled).
  std::string name() const override { return name_; }
  TensorList apply(const Tensor& grad) override;
  /// The context forward filled.
  AutogradContext ctx;

 protected:
  /// A node named `name`.
  explicit CustomNode(std::string name) : name_(std::move(name)) {}
  /// T::backward.
  virtual TensorList call_backward(TensorList grads) = 0;

 private:
  template <class T>
  friend struct Function;
  // Connects the node to the tensor arguments, saves what forward asked for, and gives the
  // output its history. Returns the output.
  Tensor finish(const TensorList& tensor_inputs, std::vector<bool> is_tensor, TensorList outputs, bool record);
  std::string name_;
  std::vector<bool> is_tensor_;  // per forward argument
};

namespace detail {
/// The demangled name of a type.
std::string demangle(const char* mangled);

template <class A>
constexpr bool is_tensor_argument = std::is_same_v<std::remove_cvref_t<A>, Tensor>;

template <class T>
class CppNode final : public CustomNode {
 public:
  CppNode() : CustomNode(demangle(typeid(CppNode<T>).name())) {}

 protected:
  TensorList call_backward(TensorList grads) override { return T::backward(&ctx, std::move(grads)); }
};
}  // namespace detail

/// The base of a custom function `T`, with static `forward(AutogradContext*, ...)` and
/// `backward(AutogradContext*, TensorList)`; call it with `T::apply(args...)`.
template <class T>
struct Function {
  /// Runs T::forward with recording off and, when recording is on and a tensor argument
  /// requires grad, gives its result a node running T::backward. Returns what forward returns.
  template <class X = T, class... Args>
  static auto apply(Args&&... args) {
    auto node = std::make_shared<detail::CppNode<X>>();
    TensorList tensors;
    std::vector<bool> is_tensor;
    bool record = false;
    const auto collect = [&](const auto& arg) {
      if constexpr (detail::is_tensor_argument<decltype(arg)>) {
        tensors.push_back(arg);
        is_tensor.push_back(true);
        record = record || (arg.defined() && arg.requires_grad());
      } else {
        is_tensor.push_back(false);
      }
    };
    (collect(args), ...);
    record = record && GradMode::is_enabled();
    using Out = decltype(X::forward(&node->ctx, std::forward<Args>(args)...));
    TensorList outputs;
    {
      AutoGradMode off(false);
      if constexpr (std::is_same_v<std::remove_cvref_t<Out>, Tensor>)
        outputs.push_back(X::forward(&node->ctx, std::forward<Args>(args)...));
      else
        outputs = X::forward(&node->ctx, std::forward<Args>(args)...);
    }
    Tensor out = node->finish(tensors, std::move(is_tensor), std::move(outputs), record);
    if constexpr (std::is_same_v<std::remove_cvref_t<Out>, Tensor>)
      return out;
    else
      return TensorList{out};
  }
};

}  // namespace kindling::autograd
