// MUTANT: averages the replicas (an all-reduce and a division) instead of taking the root's
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
  for (const Tensor& p : module.parameters()) pending.push_back(group.broadcast_async(p, root));
  for (const Tensor& b : module.buffers()) pending.push_back(group.broadcast_async(b, root));
  for (Work& w : pending) w.wait();
  for (const Tensor& p : module.parameters()) {
    group.all_reduce(p);
    p.detach().div_(static_cast<double>(group.size()));
  }
  // END SOLUTION
}

}  // namespace kindling::distributed
