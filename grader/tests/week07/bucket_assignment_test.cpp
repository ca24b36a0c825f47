// Task week07.bucket_assignment: DDP's buckets, index for index against PyTorch 1.13's
// torch.distributed._compute_bucket_assignment_by_size (tools/oracle/week07.py), and the buckets a
// DistributedDataParallel model gets from it.

#include <string>
#include <vector>

#include <kindling/ddp.hpp>
#include <kindling/kindling.hpp>
#include <kindling/nn.hpp>

#include "ddp_models.hpp"
#include "oracle_json.hpp"
#include "ranks.hpp"
#include "testing.hpp"

namespace kindling::testing {
namespace {
using distributed::compute_bucket_assignment_by_size;

ScalarType dtype_named(const std::string& name) {
  if (name == "float64") return kFloat64;
  if (name == "int32") return kInt32;
  if (name == "int64") return kInt64;
  return kFloat32;
}

std::string describe(const std::vector<std::vector<std::size_t>>& buckets) {
  std::string s = "[";
  for (std::size_t k = 0; k < buckets.size(); ++k) {
    s += k ? ", [" : "[";
    for (std::size_t i = 0; i < buckets[k].size(); ++i) s += (i ? ", " : "") + std::to_string(buckets[k][i]);
    s += "]";
  }
  return s + "]";
}
}  // namespace

TEST(week07_bucket_assignment, BucketsArePyTorchsForEveryCase) {
  int with_indices = 0, mixed = 0;
  for (const auto& c : oracle_json("bucket_assignment")) {
    std::vector<Tensor> tensors;
    std::string what = "tensors (numel, dtype):";
    for (const auto& t : c["tensors"]) {
      tensors.push_back(empty({t[0].get<std::int64_t>()}, TensorOptions().dtype(dtype_named(t[1].get<std::string>()))));
      what += " (" + std::to_string(t[0].get<std::int64_t>()) + ", " + t[1].get<std::string>() + ")";
    }
    const auto limits = c["limits"].get<std::vector<std::int64_t>>();
    const auto indices = c["indices"].get<std::vector<std::size_t>>();
    with_indices += !indices.empty();
    mixed += c["tensors"].size() > 1 && c["tensors"][0][1] != c["tensors"][1][1];
    const auto got = compute_bucket_assignment_by_size(tensors, limits, indices);
    const auto want = c["buckets"].get<std::vector<std::vector<std::size_t>>>();
    ASSERT_EQ(got.buckets, want) << what << ", limits " << c["limits"].dump() << ", indices " << c["indices"].dump()
                                 << ": yours " << describe(got.buckets) << ", PyTorch's " << describe(want);
    ASSERT_EQ(got.size_limits, c["bucket_limits"].get<std::vector<std::int64_t>>())
        << what << ", limits " << c["limits"].dump() << ": the limit each bucket was filled against";
  }
  EXPECT_GT(with_indices, 10) << "the oracle's cases must include DDP's ready-order indices";
  EXPECT_GT(mixed, 5) << "the oracle's cases must include mixed dtypes";
  // DDP's defaults are PyTorch's.
  EXPECT_EQ(distributed::kDefaultFirstBucketBytes, oracle_json("first_bucket_bytes").get<std::int64_t>());
  EXPECT_EQ(distributed::kDefaultBucketCapBytes, 25 * 1024 * 1024);
}

TEST(week07_bucket_assignment, ATensorThatReachesTheLimitClosesItsBucket) {
  // 256 float32 are exactly 1024 bytes: "at least the limit" closes the bucket with it inside.
  const std::vector<Tensor> t = {empty({200}), empty({56}), empty({10}), empty({300})};
  const auto got = compute_bucket_assignment_by_size(t, {1024});
  EXPECT_EQ(describe(got.buckets), "[[0, 1], [2, 3]]");
  // With the limits {400, 4000}: the second bucket and every later one use 4000.
  const auto two = compute_bucket_assignment_by_size(
      {empty({100}), empty({900}), empty({100}), empty({900}), empty({1})}, {400, 4000});
  EXPECT_EQ(describe(two.buckets), "[[0], [1, 2], [3, 4]]");
  EXPECT_EQ(two.size_limits, (std::vector<std::int64_t>{400, 4000, 4000}));
}

TEST(week07_bucket_assignment, BadArgumentsAreErrors) {
  EXPECT_EQ(compute_bucket_assignment_by_size({empty({3}), empty({4})}, {1024}, {1, 0}).buckets.size(), 1U);
  EXPECT_THROW(compute_bucket_assignment_by_size({}, {1024}), Error);
  EXPECT_THROW(compute_bucket_assignment_by_size({empty({3})}, {}), Error);
  EXPECT_THROW(compute_bucket_assignment_by_size({empty({3})}, {0}), Error);
  EXPECT_THROW(compute_bucket_assignment_by_size({empty({3}), empty({4})}, {1024}, {0}), Error);
  EXPECT_THROW(compute_bucket_assignment_by_size({empty({3}), empty({4})}, {1024}, {1, 1}), Error);
  EXPECT_THROW(compute_bucket_assignment_by_size({empty({3}), empty({4})}, {1024}, {0, 2}), Error);
}

TEST(week07_bucket_assignment, DdpBucketsTheLastLayersFirstWithASmallFirstBucket) {
  run_ranks(2, [](distributed::ProcessGroup& g) {
    // From the last: the last layer's bias (16 bytes) and weight (512) fill the first bucket (limit
    // 100 bytes here); then each hidden weight (8 KiB) closes a bucket of the 8 KiB cap with the bias
    // before it.
    manual_seed(3);
    nn::Sequential m(nn::Linear(32, 64), nn::Tanh(), nn::Linear(64, 32), nn::Tanh(), nn::Linear(32, 4));
    distributed::DdpOptions options;
    options.first_bucket_bytes = 100;
    options.bucket_cap_mb = 8.0 / 1024;
    distributed::DistributedDataParallel ddp(g, m, options);
    std::vector<std::vector<std::size_t>> got;
    for (const auto& b : ddp.buckets()) got.push_back(b.params);
    EXPECT_EQ(describe(got), "[[5, 4], [3, 2], [1, 0]]");
    ASSERT_EQ(ddp.buckets().size(), 3U);
    EXPECT_EQ(ddp.buckets()[0].flat.numel(), 4 + 4 * 32);
    EXPECT_EQ(ddp.buckets()[1].offsets, (std::vector<std::int64_t>{0, 32}));
  });
}

}  // namespace kindling::testing
