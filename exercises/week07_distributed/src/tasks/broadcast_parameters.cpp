// Task week07.broadcast_parameters. The doc comment above the function is its contract; your code
// goes between BEGIN and END. Hints, one at a time: `./grade hint week07.broadcast_parameters`.

#include <vector>

#include <kindling/ddp.hpp>
#include <kindling/error.hpp>  // KINDLING_TODO, which the worksheet's stubs call

namespace kindling::distributed {

/// Makes every rank's `module` rank `root`'s, parameters then buffers, in place (ddp.hpp has the
/// whole contract).
void broadcast_parameters(ProcessGroup& group, nn::Module& module, int root) {
  // BEGIN TASK week07.broadcast_parameters (replace the stub below with your code)
  KINDLING_TODO("week07.broadcast_parameters");
  // END TASK
}

}  // namespace kindling::distributed
