#pragma once
/// @file state_dict.hpp
/// What Module::state_dict and Module::load_state_dict (declared in module.hpp, written in
/// src/tasks/state_dict.cpp, the task week03.state_dict) share: the key lists of their messages.
///
/// A state dict is a model's tensors by name, and a checkpoint is just this map. Loading copies
/// values into the tensors the model already has (so an optimizer holding them sees the new
/// values) and checks the names and shapes first, reporting every problem at once.

#include <kindling/module.hpp>  // NOLINT(misc-header-include-cycle)

namespace kindling::nn {

namespace detail {
/// The keys of `keys` as PyTorch lists them in messages: "a", "b".
inline std::string quoted_keys(const std::vector<std::string>& keys) {
  std::string s;
  for (std::size_t i = 0; i < keys.size(); ++i) s += (i ? ", \"" : "\"") + keys[i] + "\"";
  return s;
}
}  // namespace detail

}  // namespace kindling::nn
