// MUTANT: raises the missing key bare (fc) instead of as str(KeyError) writes it ('fc')
// Task week03.module_list. The doc comment above each function is its contract; your code
// goes between BEGIN and END. Hints, one at a time: `./grade hint week03.module_list`.

#include <string>

#include <kindling/container.hpp>
#include <kindling/error.hpp>  // KINDLING_TODO, which the worksheet's stubs call

// Useful: children_ (module.hpp: the (name, module) pairs of this module, in registration
// order, which named_parameters, state_dict, repr and every other walk read),
// register_child(name, module) (appends to children_; throws if the name is taken),
// KINDLING_CHECK_AS(IndexError, cond, parts...) (error.hpp), std::to_string.

namespace kindling::nn {

/// `ModuleList.append(module)`: registers `module` as a child named by its position,
/// "0" for the first, "1" for the next, and so on, so that the parameters of
/// everything in the list belong to the module that owns the list (names like
/// `blocks.2.weight`, in list order). A plain std::vector of modules registers
/// nothing; this is the whole reason ModuleList exists.
void ModuleList::push_back(ModulePtr module) {
  // BEGIN SOLUTION week03.module_list
  register_child(std::to_string(children_.size()), std::move(module));
  // END SOLUTION
}

/// `module_list[i]`: the module at position i; a negative i counts from the end
/// (-1 is the last). Out of range (i >= size() or i < -size()) throws
/// kindling::IndexError, word for word as PyTorch: "index 4 is out of range"
/// (the i given, negative ones as given: "index -5 is out of range").
Module& ModuleList::operator[](std::int64_t i) const {
  // BEGIN SOLUTION week03.module_list
  const auto n = static_cast<std::int64_t>(children_.size());
  KINDLING_CHECK_AS(IndexError, i >= -n && i < n, "index ", i, " is out of range");
  return *children_[static_cast<std::size_t>(i < 0 ? i + n : i)].second;
  // END SOLUTION
}

/// `module_dict[key] = module`: a new key is registered as a child of that name,
/// after the others; an existing key gets the new module in the old one's place,
/// so that the order of keys (and of parameters, state_dict entries and repr
/// lines) does not change. The old module is no longer a child.
void ModuleDict::insert(const std::string& key, ModulePtr module) {
  // BEGIN SOLUTION week03.module_list
  for (auto& [name, m] : children_)
    if (name == key) {
      m = std::move(module);
      return;
    }
  register_child(key, std::move(module));
  // END SOLUTION
}

/// `module_dict[key]`: the module under `key`. A missing key throws
/// kindling::IndexError (standing for Python's KeyError) whose message is the key
/// in quotes, as str(KeyError) gives it: "'fc'".
Module& ModuleDict::operator[](const std::string& key) const {
  // BEGIN SOLUTION week03.module_list
  for (const auto& [name, m] : children_)
    if (name == key) return *m;
  throw IndexError(key);
  // END SOLUTION
}

}  // namespace kindling::nn
