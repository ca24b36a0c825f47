// MUTANT: pushes children onto the explicit stack in registration order, so they pop out last-registered first
// Task week03.named_parameters. The doc comment above each function is its contract; your code
// goes between BEGIN and END. Hints, one at a time: `./grade hint week03.named_parameters`.

#include <kindling/error.hpp>  // KINDLING_TODO, which the worksheet's stubs call
#include <kindling/module.hpp>

namespace kindling::nn {

/// This module (name "") and every descendant, depth first, parents before
/// children, each module once, with dotted names: "", "0", "0.fc", ...
std::vector<std::pair<std::string, Module*>> Module::named_modules(const std::string& prefix) {
  // BEGIN SOLUTION week03.named_parameters
  std::vector<std::pair<std::string, Module*>> out;
  // Depth first with an explicit stack; children are pushed in reverse so that
  // they come out in registration order. A module reachable twice appears once.
  std::vector<std::pair<std::string, Module*>> stack{{prefix, this}};
  std::vector<const Module*> seen;
  while (!stack.empty()) {
    auto [name, m] = stack.back();
    stack.pop_back();
    if (std::find(seen.begin(), seen.end(), m) != seen.end()) continue;
    seen.push_back(m);
    out.emplace_back(name, m);
    for (auto it = m->children_.begin(); it != m->children_.end(); ++it) {
      if (!it->second) continue;
      stack.emplace_back(name.empty() ? it->first : name + "." + it->first, it->second.get());
    }
  }
  return out;
  // END SOLUTION
}

}  // namespace kindling::nn

namespace kindling::nn {

/// Every parameter with its dotted name ("0.weight"), each tensor once, in
/// named_modules() order; own parameters only when `recurse` is false.
std::vector<std::pair<std::string, Tensor>> Module::named_parameters(bool recurse) {
  // BEGIN SOLUTION week03.named_parameters
  std::vector<std::pair<std::string, Tensor>> out;
  std::vector<const TensorImpl*> seen;
  auto modules = recurse ? named_modules() : std::vector<std::pair<std::string, Module*>>{{"", this}};
  for (const auto& [prefix, m] : modules) {
    for (const auto& [name, p] : m->parameters_) {
      if (!p.defined()) continue;
      if (std::find(seen.begin(), seen.end(), &p.impl()) != seen.end()) continue;
      seen.push_back(&p.impl());
      out.emplace_back(prefix.empty() ? name : prefix + "." + name, p);
    }
  }
  return out;
  // END SOLUTION
}

}  // namespace kindling::nn
