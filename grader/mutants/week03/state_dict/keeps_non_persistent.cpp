// MUTANT: saves every buffer, including the non-persistent ones that state_dict must leave out
// Task week03.state_dict. The doc comment above each function is its contract; your code
// goes between BEGIN and END. Hints, one at a time: `./grade hint week03.state_dict`.

#include <kindling/error.hpp>  // KINDLING_TODO, which the worksheet's stubs call
#include <kindling/state_dict.hpp>

namespace kindling::nn {

/// Every parameter and persistent buffer under its dotted name, detached
/// (sharing storage with the module), in named_modules() order with each
/// module's parameters before its buffers.
StateDict Module::state_dict() {
  // BEGIN SOLUTION week03.state_dict
  StateDict sd;
  // Each module adds its own entries, then its children's under "name.".
  std::function<void(Module&, const std::string&)> save = [&](Module& m, const std::string& prefix) {
    for (const auto& [name, p] : m.parameters_)
      if (p.defined()) sd.insert(prefix + name, p.detach());
    for (const auto& [name, b] : m.buffers_) {
      const bool persistent =
          std::find(m.non_persistent_.begin(), m.non_persistent_.end(), name) == m.non_persistent_.end();
      if (b.defined()) sd.insert(prefix + name, b.detach());
      (void)persistent;  // (mutant: unused)
    }
    for (const auto& [name, child] : m.children_)
      if (child) save(*child, prefix + name + ".");
  };
  save(*this, "");
  return sd;
  // END SOLUTION
}

}  // namespace kindling::nn

namespace kindling::nn {

/// Copies `sd` into the parameters and buffers (under no_grad, in place).
/// Errors are collected and thrown together as one kindling::Error:
/// "Error(s) in loading state_dict for Linear:\n\t..." listing, in this order,
/// `Missing key(s) in state_dict: "a", "b". ` and `Unexpected key(s) in
/// state_dict: "c". ` (only when `strict`), then one `size mismatch for KEY:
/// copying a param with shape torch.Size([..]) from checkpoint, the shape in
/// current model is torch.Size([..]).` per mismatch (always).
IncompatibleKeys Module::load_state_dict(const StateDict& sd, bool strict) {
  // BEGIN SOLUTION week03.state_dict
  IncompatibleKeys result;
  std::vector<std::string> errors;
  NoGradGuard no_grad;
  std::function<void(Module&, const std::string&)> load = [&](Module& m, const std::string& prefix) {
    // The module's own entries: parameters, then persistent buffers.
    std::vector<std::pair<std::string, Tensor>> local;
    for (const auto& entry : m.parameters_)
      if (entry.second.defined()) local.push_back(entry);
    for (const auto& entry : m.buffers_)
      if (entry.second.defined() &&
          std::find(m.non_persistent_.begin(), m.non_persistent_.end(), entry.first) == m.non_persistent_.end())
        local.push_back(entry);
    for (const auto& [name, t] : local) {
      const std::string key = prefix + name;
      const Tensor* input = sd.find(key);
      if (!input) {
        result.missing_keys.push_back(key);
        continue;
      }
      if (!input->sizes().equals(t.sizes())) {
        errors.push_back(
            "size mismatch for " + key + ": copying a param with shape " + autograd::torch_size_string(input->sizes()) +
            " from checkpoint, the shape in current model is " + autograd::torch_size_string(t.sizes()) + ".");
        continue;
      }
      t.copy_(*input);
    }
    // Keys under this prefix whose first name part is neither a local entry nor a child.
    for (const auto& [key, value] : sd) {
      if (key.rfind(prefix, 0) != 0) continue;
      const std::string first = key.substr(prefix.size()).substr(0, key.substr(prefix.size()).find('.'));
      const bool is_local = std::any_of(local.begin(), local.end(), [&](const auto& e) { return e.first == first; });
      const bool is_child =
          std::any_of(m.children_.begin(), m.children_.end(), [&](const auto& c) { return c.first == first; });
      if (!is_local && !is_child) result.unexpected_keys.push_back(key);
    }
    for (const auto& [name, child] : m.children_)
      if (child) load(*child, prefix + name + ".");
  };
  load(*this, "");
  if (strict) {
    if (!result.unexpected_keys.empty())
      errors.insert(errors.begin(),
                    "Unexpected key(s) in state_dict: " + detail::quoted_keys(result.unexpected_keys) + ". ");
    if (!result.missing_keys.empty())
      errors.insert(errors.begin(), "Missing key(s) in state_dict: " + detail::quoted_keys(result.missing_keys) + ". ");
  }
  if (!errors.empty()) {
    std::string msg = "Error(s) in loading state_dict for " + type_name() + ":\n\t";
    for (std::size_t i = 0; i < errors.size(); ++i) msg += (i ? "\n\t" : "") + errors[i];
    throw Error(msg);
  }
  return result;
  // END SOLUTION
}

}  // namespace kindling::nn
