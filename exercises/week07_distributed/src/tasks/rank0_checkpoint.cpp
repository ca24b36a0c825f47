// Task week07.rank0_checkpoint. The doc comment above each function is its contract; your code goes
// between BEGIN and END. Hints, one at a time: `./grade hint week07.rank0_checkpoint`.

#include <cstdint>
#include <string>

#include <kindling/dist_checkpoint.hpp>
#include <kindling/error.hpp>  // KINDLING_TODO, which the worksheet's stubs call
#include <kindling/factory.hpp>

namespace kindling::distributed {

/// Rank `root` writes the checkpoint with week 5's save_checkpoint, the others wait for it; every rank
/// returns once the file is complete, or every rank throws when the root could not write it
/// (dist_checkpoint.hpp has the whole contract).
void save_on_rank(ProcessGroup& group, const std::filesystem::path& path, nn::Module& model,
                  optim::Optimizer* optimizer, std::int64_t epoch, int root) {
  // BEGIN TASK week07.rank0_checkpoint (replace the stub below with your code)
  KINDLING_TODO("week07.rank0_checkpoint");
  // END TASK
}

/// Every rank loads the checkpoint with week 5's load_checkpoint; when any rank cannot, every rank
/// throws, naming those that could not (dist_checkpoint.hpp has the whole contract).
std::map<std::string, std::string> load_everywhere(ProcessGroup& group, const std::filesystem::path& path,
                                                   nn::Module& model, optim::Optimizer* optimizer) {
  // BEGIN TASK week07.rank0_checkpoint (replace the stub below with your code)
  KINDLING_TODO("week07.rank0_checkpoint");
  // END TASK
}

}  // namespace kindling::distributed
