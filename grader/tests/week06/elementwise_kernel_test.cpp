// Task week06.elementwise_kernel: axpy, a grid-stride loop with its bounds guard, on the
// simulator (which reports an access out of bounds instead of corrupting memory silently).

#include <cmath>
#include <string>
#include <vector>

#include <kindling/cuda/kernels.hpp>
#include <kindling/cuda/sim.hpp>
#include <kindling/kindling.hpp>

#include "testing.hpp"

namespace kindling::testing {
namespace {
namespace cu = kindling::cuda;

// Exact allocations (no caching allocator in between), so that the simulator's bounds are the
// arrays' own: x = 0.5 i, y = 1000 - i.
struct Arrays {
  explicit Arrays(std::int64_t count) : n(count) {
    std::vector<float> hx(static_cast<std::size_t>(n)), hy(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i) {
      hx[static_cast<std::size_t>(i)] = 0.5f * static_cast<float>(i);
      hy[static_cast<std::size_t>(i)] = 1000.0f - static_cast<float>(i);
    }
    const std::size_t bytes = std::max<std::size_t>(1, static_cast<std::size_t>(n) * sizeof(float));
    x = cu::sim_runtime().malloc(bytes);
    y = cu::sim_runtime().malloc(bytes);
    if (n > 0) {
      cu::sim_runtime().memcpy(x, hx.data(), bytes, cu::CopyKind::HostToDevice);
      cu::sim_runtime().memcpy(y, hy.data(), bytes, cu::CopyKind::HostToDevice);
    }
  }
  ~Arrays() {
    cu::sim::reset_device();
    cu::sim_runtime().free(x);
    cu::sim_runtime().free(y);
  }
  Arrays(const Arrays&) = delete;
  Arrays& operator=(const Arrays&) = delete;
  std::vector<float> result() const {
    std::vector<float> out(static_cast<std::size_t>(n));
    if (n > 0) cu::sim_runtime().memcpy(out.data(), y, out.size() * sizeof(float), cu::CopyKind::DeviceToHost);
    return out;
  }
  std::int64_t n;
  void* x;
  void* y;
};

void run_and_check(std::int64_t n, float a) {
  Arrays arr(n);
  cu::axpy(a, cu::device_ptr<const float>(arr.x), cu::device_ptr<float>(arr.y), n);
  cu::synchronize();
  const auto y = arr.result();
  for (std::int64_t i = 0; i < n; ++i)
    ASSERT_EQ(y[static_cast<std::size_t>(i)], a * 0.5f * static_cast<float>(i) + (1000.0f - static_cast<float>(i)))
        << "element " << i << " of " << n;
}
}  // namespace

TEST(week06_elementwise_kernel, ComputesEveryElementForSizesThatAreNotMultiplesOfTheBlock) {
  for (std::int64_t n : {1, 5, 255, 256, 257, 1000}) run_and_check(n, 2.0f);
}

TEST(week06_elementwise_kernel, TheBoundsGuardKeepsTheLastBlockInsideTheArrays) {
  // 1000 elements need 4 blocks of 256: the last block's threads 232..255 have no element.
  // Without the guard (or with i <= n) the simulator reports the access out of bounds.
  Arrays arr(1000);
  try {
    cu::axpy(3.0f, cu::device_ptr<const float>(arr.x), cu::device_ptr<float>(arr.y), 1000);
    cu::synchronize();
  } catch (const NotImplemented&) {
    throw;
  } catch (const std::exception& e) {
    FAIL() << "the kernel failed on the simulator: " << e.what();
  }
}

TEST(week06_elementwise_kernel, AGridStrideLoopCoversMoreElementsThanTheGridHasThreads) {
  // 64 blocks of 256 threads are 16384 threads; these sizes need each thread several times.
  for (std::int64_t n : {16384, 16385, 3 * 16384 + 77}) run_and_check(n, -1.5f);
}

TEST(week06_elementwise_kernel, TheLaunchIsAtMost64BlocksOf256Threads) {
  Arrays arr(100000);
  cu::axpy(1.0f, cu::device_ptr<const float>(arr.x), cu::device_ptr<float>(arr.y), 100000);
  cu::synchronize();
  const auto c = cu::sim::last_counters();
  EXPECT_EQ(c.threads, 64u * 256u) << "threads run by the launch";
  EXPECT_EQ(c.global_stores, 100000u) << "each element written exactly once";
  EXPECT_EQ(c.global_loads, 200000u) << "x[i] and y[i] read once each";
  Arrays small(300);
  cu::axpy(1.0f, cu::device_ptr<const float>(small.x), cu::device_ptr<float>(small.y), 300);
  cu::synchronize();
  EXPECT_EQ(cu::sim::last_counters().threads, 2u * 256u) << "300 elements need 2 blocks";
}

TEST(week06_elementwise_kernel, NothingIsLaunchedForNoElementsAndTheStreamIsUsed) {
  Arrays none(0);
  cu::axpy(1.0f, cu::device_ptr<const float>(none.x), cu::device_ptr<float>(none.y), 0);
  EXPECT_TRUE(cu::sim_runtime().query_stream(nullptr)) << "a launch was queued for n = 0";
  Arrays arr(512);
  cu::Stream s = cu::sim_runtime().create_stream();
  cu::axpy(1.0f, cu::device_ptr<const float>(arr.x), cu::device_ptr<float>(arr.y), 512, s);
  EXPECT_FALSE(cu::sim_runtime().query_stream(s)) << "the launch did not go to the given stream";
  cu::sim_runtime().synchronize_stream(s);
  cu::sim_runtime().destroy_stream(s);
  EXPECT_EQ(arr.result()[511], 0.5f * 511 + (1000.0f - 511));
}

}  // namespace kindling::testing
