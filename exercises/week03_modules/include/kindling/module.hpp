#pragma once
/// @file module.hpp
/// nn::Module: the base class of every layer and model.
///
/// A Module owns three registries, each in registration order: its parameters
/// (tensors an optimizer trains), its buffers (state that is saved but not
/// trained, such as BatchNorm's running mean) and its children (submodules).
/// Everything else (named_parameters, state_dict, train/eval, to, printing)
/// walks those registries recursively, giving dotted names such as
/// "features.0.weight", in the same order as PyTorch.
///
/// Note: a layer keeps its parameters as `Tensor` members too (`linear.weight`);
/// the member and the registry entry are two handles to one tensor. Operations
/// that change a parameter (load_state_dict, to) therefore write into the
/// existing tensor instead of replacing it, so both handles keep seeing it. Do
/// not assign a new tensor to a member after registering it.

#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

#include <kindling/autograd.hpp>

namespace kindling::nn {

/// An ordered name -> tensor map: what state_dict() returns and load_state_dict() reads.
class StateDict {
 public:
  /// (key, tensor) in insertion order.
  using Item = std::pair<std::string, Tensor>;
  /// Adds `key`, or replaces its tensor (keeping its position).
  void insert(const std::string& key, Tensor value);
  /// The tensor under `key`, or null.
  const Tensor* find(const std::string& key) const;
  /// True when `key` is present.
  bool contains(const std::string& key) const { return find(key) != nullptr; }
  /// The tensor under `key`; throws kindling::IndexError (Python's KeyError) if absent.
  const Tensor& at(const std::string& key) const;
  /// Removes `key` if present.
  void erase(const std::string& key);
  /// The keys in order.
  std::vector<std::string> keys() const;
  /// Number of entries.
  std::size_t size() const { return items_.size(); }
  /// First entry.
  std::vector<Item>::const_iterator begin() const { return items_.begin(); }
  /// Past the last entry.
  std::vector<Item>::const_iterator end() const { return items_.end(); }

 private:
  std::vector<Item> items_;
  std::unordered_map<std::string, std::size_t> index_;
};

/// What load_state_dict(sd, strict=false) reports: keys the module has that `sd`
/// lacks, and keys of `sd` that match nothing.
struct IncompatibleKeys {
  std::vector<std::string> missing_keys;     ///< in the module, not in the state dict
  std::vector<std::string> unexpected_keys;  ///< in the state dict, not in the module
};

/// Undoes a registration (a hook): remove() unregisters it once; later calls do nothing.
class RemovableHandle {
 public:
  /// A handle that removes nothing.
  RemovableHandle() = default;
  /// A handle that runs `remove` once.
  explicit RemovableHandle(std::function<void()> remove) : remove_(std::move(remove)) {}
  /// Unregisters the hook.
  void remove() {
    auto f = std::move(remove_);
    remove_ = nullptr;
    if (f) f();
  }

 private:
  std::function<void()> remove_;
};

class Module;
/// Modules are shared: a parent holds its children through this handle.
using ModulePtr = std::shared_ptr<Module>;
/// Runs before forward; a returned tensor replaces the input.
using ForwardPreHook = std::function<std::optional<Tensor>(Module&, const Tensor& input)>;
/// Runs after forward; a returned tensor replaces the output.
using ForwardHook = std::function<std::optional<Tensor>(Module&, const Tensor& input, const Tensor& output)>;

/// The base class of layers and models (torch.nn.Module).
///
/// A subclass registers its state in its constructor and overrides forward():
/// @code
/// struct Net : nn::Module {
///   Net() : Module("Net") {
///     fc = register_module("fc", std::make_shared<nn::Linear>(4, 2));
///   }
///   Tensor forward(const Tensor& x) override { return (*fc)(x); }
///   std::shared_ptr<nn::Linear> fc;
/// };
/// @endcode
class Module {
 public:
  /// A module whose printed name is `type_name`; with none, the class's own name (PyTorch
  /// prints the class name: a `struct Net : nn::Module` prints as `Net(`).
  explicit Module(std::string type_name = "");
  virtual ~Module() = default;
  Module(const Module&) = delete;
  Module& operator=(const Module&) = delete;
  /// Moving keeps the registries and the members pointing at the same tensors.
  Module(Module&&) = default;
  /// Moving keeps the registries and the members pointing at the same tensors.
  Module& operator=(Module&&) = default;

  /// The name printed for this module ("Linear", "Sequential", ...): the one given to the
  /// constructor, else the class name without its namespaces.
  std::string type_name() const;

  /// This module as a `T` (a module class, or a holder type whose `ContainedType` is one), or
  /// null when it is not one (LibTorch's `module.as<torch::nn::Linear>()`).
  template <class T>
  auto* as() {
    if constexpr (requires { typename T::ContainedType; })
      return dynamic_cast<typename T::ContainedType*>(this);
    else
      return dynamic_cast<T*>(this);
  }
  /// The same, read-only.
  template <class T>
  const auto* as() const {
    if constexpr (requires { typename T::ContainedType; })
      return dynamic_cast<const typename T::ContainedType*>(this);
    else
      return dynamic_cast<const T*>(this);
  }

  // ---- registration ---------------------------------------------------------------------------
  /// Registers `t` as parameter `name` (an undefined `t` registers "None", which
  /// named_parameters and state_dict skip) and makes it a leaf that requires grad
  /// (unless `requires_grad` is false). Returns the handle to keep as a member.
  /// Throws kindling::IndexError (KeyError) for an empty name, a name with ".", or
  /// a name already in use.
  Tensor register_parameter(const std::string& name, Tensor t, bool requires_grad = true);
  /// Registers `t` as buffer `name`; a non-persistent buffer is left out of state_dict.
  Tensor register_buffer(const std::string& name, Tensor t, bool persistent = true);
  /// Registers `module` as child `name` and returns it.
  template <class M>
  std::shared_ptr<M> register_module(const std::string& name, std::shared_ptr<M> module) {
    register_child(name, module);
    return module;
  }
  /// Puts `module` in the place of child `name` and returns it (LibTorch's replace_module,
  /// PyTorch's `model.fc = nn.Linear(...)`): it keeps the child's position, and the old child's
  /// parameters leave parameters() and state_dict(). A member that held the old child still
  /// does: assign it the result (`fc = replace_module("fc", ...)`). Throws kindling::IndexError
  /// (KeyError) when there is no child `name`.
  template <class M>
  std::shared_ptr<M> replace_module(const std::string& name, std::shared_ptr<M> module) {
    replace_child(name, module);
    return module;
  }
  /// register_module with a module holder (anything whose ptr() is a shared_ptr to a module,
  /// as LibTorch's `torch::nn::Linear` is): `fc = register_module("fc", torch::nn::Linear(4, 2))`.
  template <class H>
  requires requires(const H& h) { std::shared_ptr<Module>(h.ptr()); }
  auto register_module(const std::string& name, const H& holder) { return register_module(name, holder.ptr()); }
  /// replace_module with a module holder.
  template <class H>
  requires requires(const H& h) { std::shared_ptr<Module>(h.ptr()); }
  auto replace_module(const std::string& name, const H& holder) { return replace_module(name, holder.ptr()); }

  // ---- the registries, recursively -----------------------------------------------------------------
  /// This module (name "") and every descendant, depth first, parents before
  /// children, each module once, with dotted names: "", "0", "0.fc", ...
  std::vector<std::pair<std::string, Module*>> named_modules(const std::string& prefix = "");
  /// Every parameter with its dotted name ("0.weight"), each tensor once, in
  /// named_modules() order; own parameters only when `recurse` is false.
  std::vector<std::pair<std::string, Tensor>> named_parameters(bool recurse = true);
  /// The tensors of named_parameters().
  TensorList parameters(bool recurse = true);
  /// Every buffer with its dotted name, as named_parameters does for parameters.
  std::vector<std::pair<std::string, Tensor>> named_buffers(bool recurse = true);
  /// The tensors of named_buffers().
  TensorList buffers(bool recurse = true);
  /// The direct children, in registration order.
  std::vector<std::pair<std::string, ModulePtr>> named_children() const { return children_; }
  /// The modules of named_children().
  std::vector<ModulePtr> children() const;

  // ---- modes and bulk operations ----------------------------------------------------------------------
  /// Sets training mode on this module and every descendant; returns *this.
  Module& train(bool on = true);
  /// train(false): Dropout stops dropping, BatchNorm uses its running statistics.
  Module& eval() { return train(false); }
  /// True in training mode (the default).
  bool is_training() const { return training_; }
  /// Calls `fn` on every descendant and then on this module (children first); returns *this.
  Module& apply(const std::function<void(Module&)>& fn);
  /// Resets the gradient of every parameter (autograd::zero_grad; PyTorch 1.13's
  /// default keeps the tensors and zeroes them).
  void zero_grad(bool set_to_none = false);
  /// Converts floating parameters and buffers (and their gradients) to `dtype`
  /// in place: the tensors stay the same objects. Returns *this.
  Module& to(ScalarType dtype);
  /// Moves every parameter and buffer (and their gradients) to `device` in place, as
  /// PyTorch's module.to(device) does: the tensors stay the same objects (an optimizer made
  /// before the move still holds them). Returns *this.
  Module& to(Device device);

  // ---- state dict -----------------------------------------------------------------------------------
  /// Every parameter and persistent buffer under its dotted name, detached
  /// (sharing storage with the module), in named_modules() order with each
  /// module's parameters before its buffers.
  StateDict state_dict();
  /// Copies `sd` into the parameters and buffers (under no_grad, in place).
  /// Errors are collected and thrown together as one kindling::Error:
  /// "Error(s) in loading state_dict for Linear:\n\t..." listing, in this order,
  /// `Missing key(s) in state_dict: "a", "b". ` and `Unexpected key(s) in
  /// state_dict: "c". ` (only when `strict`), then one `size mismatch for KEY:
  /// copying a param with shape torch.Size([..]) from checkpoint, the shape in
  /// current model is torch.Size([..]).` per mismatch (always).
  IncompatibleKeys load_state_dict(const StateDict& sd, bool strict = true);

  // ---- forward and hooks ----------------------------------------------------------------------------------
  /// The computation. The base version throws (ModuleList and ModuleDict have none):
  /// `Module [ModuleList] is missing the required "forward" function`.
  virtual Tensor forward(const Tensor& input);
  /// Runs the forward pre-hooks, forward(), then the forward hooks.
  Tensor operator()(const Tensor& input);
  /// Registers a hook that runs before forward (it may replace the input).
  RemovableHandle register_forward_pre_hook(ForwardPreHook hook);
  /// Registers a hook that runs after forward (it may replace the output).
  RemovableHandle register_forward_hook(ForwardHook hook);

  // ---- printing ----------------------------------------------------------------------------------------
  /// What goes between the parentheses in repr(), e.g. "in_features=4, out_features=2, bias=True".
  virtual std::string extra_repr() const { return ""; }
  /// PyTorch's repr: `Linear(in_features=4, out_features=2, bias=True)`, or one
  /// line per child, `  (name): child`, indented by two spaces per level.
  std::string repr() const;

 protected:
  /// Registers a child module (see register_module).
  void register_child(const std::string& name, ModulePtr module);
  /// Replaces a child module (see replace_module).
  void replace_child(const std::string& name, ModulePtr module);
  /// Own parameters, in registration order (undefined: registered as None).
  std::vector<std::pair<std::string, Tensor>> parameters_;
  /// Own buffers, in registration order.
  std::vector<std::pair<std::string, Tensor>> buffers_;
  /// Names of buffers left out of state_dict.
  std::vector<std::string> non_persistent_;
  /// Children, in registration order.
  std::vector<std::pair<std::string, ModulePtr>> children_;
  /// Training mode.
  bool training_ = true;

 private:
  struct Hooks;
  std::string type_name_;
  std::shared_ptr<Hooks> hooks_;
  void check_new_name(const std::string& name, const char* what) const;
};

/// Prints module.repr().
std::ostream& operator<<(std::ostream& os, const Module& module);

namespace detail {
/// A float as Python's repr writes it (0.5, 1e-05, 0.0001, 2.0), for extra_repr()
/// and messages that quote a float argument.
std::string py_float_repr(double v);
}  // namespace detail

/// A shared handle to a module: `m` itself if it is a shared_ptr, else a new
/// shared module moved from `m`. Lets containers take `nn::Linear(4, 2)` or a handle.
template <class M>
ModulePtr to_module_ptr(M&& m) {
  using D = std::decay_t<M>;
  if constexpr (std::is_convertible_v<D, ModulePtr>)
    return ModulePtr(std::forward<M>(m));
  else
    return std::make_shared<D>(std::forward<M>(m));
}

// ---- the registry walk (student task week03.named_parameters) ----------------------------------------------

}  // namespace kindling::nn

// What state_dict() and load_state_dict() (src/tasks/state_dict.cpp, a student task) share.
#include <kindling/state_dict.hpp>  // NOLINT(misc-header-include-cycle)
