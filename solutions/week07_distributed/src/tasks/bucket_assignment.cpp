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
  // BEGIN SOLUTION week07.bucket_assignment
  KINDLING_CHECK(!tensors.empty(), "compute_bucket_assignment_by_size: expected at least one tensor");
  KINDLING_CHECK(!bucket_size_limits.empty(), "compute_bucket_assignment_by_size: expected at least one size limit");
  for (const std::int64_t limit : bucket_size_limits)
    KINDLING_CHECK(limit >= 1, "compute_bucket_assignment_by_size: a size limit must be at least 1 byte, not ", limit);
  if (!tensor_indices.empty()) {
    KINDLING_CHECK(tensor_indices.size() == tensors.size(),
                   "compute_bucket_assignment_by_size: ", tensor_indices.size(), " indices for ", tensors.size(),
                   " tensors");
    std::vector<bool> seen(tensors.size(), false);
    for (const std::size_t i : tensor_indices) {
      KINDLING_CHECK(i < tensors.size() && !seen[i],
                     "compute_bucket_assignment_by_size: the indices must be a permutation of 0 to ",
                     tensors.size() - 1);
      seen[i] = true;
    }
  }
  // One open bucket per dtype, in the order the dtypes first appear.
  struct Open {
    ScalarType dtype;
    std::vector<std::size_t> indices;
    std::int64_t bytes = 0;
    std::size_t limit = 0;  // which of bucket_size_limits this bucket is filled against
  };
  std::vector<Open> open;
  BucketAssignment out;
  for (std::size_t i = 0; i < tensors.size(); ++i) {
    const Tensor& t = tensors[i];
    auto it = std::find_if(open.begin(), open.end(), [&](const Open& o) { return o.dtype == t.dtype(); });
    if (it == open.end()) it = open.insert(open.end(), Open{t.dtype(), {}, 0, 0});
    it->indices.push_back(tensor_indices.empty() ? i : tensor_indices[i]);
    it->bytes += t.numel() * static_cast<std::int64_t>(t.element_size());
    const std::int64_t limit = bucket_size_limits[it->limit];
    if (it->bytes >= limit) {
      out.buckets.push_back(std::move(it->indices));
      out.size_limits.push_back(limit);
      it->indices.clear();
      it->bytes = 0;
      it->limit = std::min(it->limit + 1, bucket_size_limits.size() - 1);
    }
  }
  for (Open& o : open)
    if (!o.indices.empty()) {
      out.buckets.push_back(std::move(o.indices));
      out.size_limits.push_back(bucket_size_limits[o.limit]);
    }
  if (!tensor_indices.empty()) return out;
  // Without indices: by the smallest index each bucket holds (the buckets are disjoint: no ties).
  std::vector<std::size_t> order(out.buckets.size());
  for (std::size_t k = 0; k < order.size(); ++k) order[k] = k;
  const auto smallest = [&](std::size_t k) { return *std::min_element(out.buckets[k].begin(), out.buckets[k].end()); };
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return smallest(a) < smallest(b); });
  BucketAssignment sorted;
  for (const std::size_t k : order) {
    sorted.buckets.push_back(std::move(out.buckets[k]));
    sorted.size_limits.push_back(out.size_limits[k]);
  }
  return sorted;
  // END SOLUTION
}

}  // namespace kindling::distributed
