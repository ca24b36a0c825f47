// MUTANT: broadcasts into clones: the module's own tensors never receive the root's values
// Task week07.broadcast_parameters. The doc comment above the function is its contract; your code
// goes between BEGIN and END. Hints, one at a time: `./grade hint week07.broadcast_parameters`.

#include <vector>

#include <kindling/ddp.hpp>
#include <kindling/error.hpp>  // KINDLING_TODO, which the worksheet's stubs call

namespace kindling::distributed {

/// Makes every rank's `module` rank `root`'s, parameters then buffers, in place (ddp.hpp has the
/// whole contract).
void broadcast_parameters(ProcessGroup& group, nn::Module& module, int root) {
  // BEGIN SOLUTION week07.broadcast_parameters
  KINDLING_CHECK_AS(DistributedError, root >= 0 && root < group.size(), "broadcast_parameters: invalid root rank ",
                    root, " (the group has ranks 0 to ", group.size() - 1, ")");
  // Issued all at once and waited for together: the group runs them in this order on every rank.
  std::vector<Work> pending;
  std::vector<Tensor> copies;
  for (const Tensor& p : module.parameters()) copies.push_back(p.detach().clone());
  for (const Tensor& c : copies) pending.push_back(group.broadcast_async(c, root));
  for (const Tensor& b : module.buffers()) pending.push_back(group.broadcast_async(b, root));
  for (Work& w : pending) w.wait();
  // END SOLUTION
}

}  // namespace kindling::distributed
