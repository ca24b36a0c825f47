// Task week07.bucket_assignment. The doc comment above the function is its contract; your code goes
// between BEGIN and END. Hints, one at a time: `./grade hint week07.bucket_assignment`.

#include <algorithm>
#include <cstdint>
#include <vector>

#include <kindling/ddp.hpp>
#include <kindling/error.hpp>  // KINDLING_TODO, which the worksheet's stubs call

namespace kindling::distributed {

/// Groups `tensors` into buckets by size and dtype, PyTorch's rule (ddp.hpp has the whole contract:
/// the order, the limits in turn, "at least the limit" closes a bucket, the sort without indices).
BucketAssignment compute_bucket_assignment_by_size(const std::vector<Tensor>& tensors,
                                                   const std::vector<std::int64_t>& bucket_size_limits,
                                                   const std::vector<std::size_t>& tensor_indices) {
  // BEGIN TASK week07.bucket_assignment (replace the stub below with your code)
  KINDLING_TODO("week07.bucket_assignment");
  // END TASK
}

}  // namespace kindling::distributed
