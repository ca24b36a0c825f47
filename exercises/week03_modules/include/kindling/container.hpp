#pragma once
/// @file container.hpp
/// Containers of modules: Sequential (a pipeline), ModuleList (an indexable
/// list you loop over yourself) and ModuleDict (modules by name).
///
/// All three register their entries as children, which is the point: a
/// std::vector<Linear> member would hide the layers from named_parameters(),
/// state_dict(), train() and to().

#include <string>
#include <utility>
#include <vector>

#include <kindling/module.hpp>

namespace kindling::nn {

/// Runs its children in order, each on the previous one's output.
/// `Sequential seq(Linear(4, 8), ReLU(), Linear(8, 2));` names them "0", "1", "2".
class Sequential : public Module {
 public:
  /// An empty pipeline (forward returns its input).
  Sequential() : Module("Sequential") {}
  /// Modules (values or shared handles) in order, named "0", "1", ...
  template <class... Ms>
  requires(sizeof...(Ms) > 1 ||
           (!std::is_same_v<std::decay_t<Ms>, Sequential> && ...)) explicit Sequential(Ms&&... modules)
      : Module("Sequential") {
    (push_back(to_module_ptr(std::forward<Ms>(modules))), ...);
  }
  /// Named modules, as with an OrderedDict.
  explicit Sequential(const std::vector<std::pair<std::string, ModulePtr>>& named);
  /// Appends a module named by its position.
  void push_back(ModulePtr module);
  /// Number of modules.
  std::size_t size() const { return children_.size(); }
  /// Module `i`; negative counts from the end. Throws IndexError "index 5 is out of range".
  Module& operator[](std::int64_t i) const;
  /// Module `i` as its concrete type; throws kindling::Error if it is another type.
  template <class M>
  M& at(std::int64_t i) const {
    auto* m = dynamic_cast<M*>(&(*this)[i]);
    KINDLING_CHECK(m, "module ", i, " of Sequential is a ", (*this)[i].type_name());
    return *m;
  }
  /// Applies each module in order: x -> m0(x) -> m1(m0(x)) -> ...
  Tensor forward(const Tensor& x) override;
};

/// An indexable list of modules, registered as children "0", "1", ... It has no
/// forward: loop over it in your own.
class ModuleList : public Module {
 public:
  /// An empty list.
  ModuleList() : Module("ModuleList") {}
  /// Modules (values or shared handles) in order.
  template <class... Ms>
  requires(sizeof...(Ms) > 1 ||
           (!std::is_same_v<std::decay_t<Ms>, ModuleList> && ...)) explicit ModuleList(Ms&&... modules)
      : Module("ModuleList") {
    (push_back(to_module_ptr(std::forward<Ms>(modules))), ...);
  }
  /// Appends a module.
  void push_back(ModulePtr module);
  /// Number of modules.
  std::size_t size() const { return children_.size(); }
  /// Module `i`; negative counts from the end. Throws IndexError "index 5 is out of range".
  Module& operator[](std::int64_t i) const;
  /// The modules, for range-for.
  std::vector<ModulePtr> modules() const { return children(); }
};

/// Modules by name, in insertion order, registered as children under those names.
/// (Task week03.module_list, like ModuleList's push_back and operator[]: insert and
/// operator[] are in src/tasks/module_list.cpp.)
class ModuleDict : public Module {
 public:
  /// An empty dict.
  ModuleDict() : Module("ModuleDict") {}
  /// Named modules, in order.
  explicit ModuleDict(const std::vector<std::pair<std::string, ModulePtr>>& named);
  /// Adds `module` under `key`, or replaces the module already there.
  void insert(const std::string& key, ModulePtr module);
  /// The module under `key`; throws IndexError (KeyError) "'key'" if absent.
  Module& operator[](const std::string& key) const;
  /// True when `key` is present.
  bool contains(const std::string& key) const;
  /// The keys in order.
  std::vector<std::string> keys() const;
  /// Number of modules.
  std::size_t size() const { return children_.size(); }
};

}  // namespace kindling::nn
