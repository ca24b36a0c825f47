// MUTANT: freezes before replacing: a wrong name leaves the model frozen
// Task week05.fine_tune. The doc comment above the function is its contract; your code goes between
// BEGIN and END. Hints, one at a time: `./grade hint week05.fine_tune`.

#include <string>
#include <vector>

#include <kindling/error.hpp>  // KINDLING_TODO, which the worksheet's stubs call
#include <kindling/fine_tune.hpp>

namespace kindling::train {

/// Freezes `model`, puts `new_head` in the place of child `head_name` (trainable), and returns the
/// new head's parameters for the optimizer; a missing child is an IndexError that changes nothing
/// (fine_tune.hpp has the whole contract).
std::vector<Tensor> freeze_and_replace_head(nn::Module& model, const std::string& head_name, nn::ModulePtr new_head) {
  // BEGIN SOLUTION week05.fine_tune
  // Replace first: it checks the name, and nothing is frozen when it throws.
  for (const Tensor& p : model.parameters()) p.requires_grad_(false);
  model.replace_module(head_name, new_head);
  std::vector<Tensor> trainable = new_head->parameters();
  for (const Tensor& p : trainable) p.requires_grad_(true);
  return trainable;
  // END SOLUTION
}

}  // namespace kindling::train
