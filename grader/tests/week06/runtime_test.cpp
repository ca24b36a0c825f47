// The device runtime's simulated backend: streams as in-order queues in lazy, eager and
// threaded mode, events, CUDA's blocking rules for copies, the pinned registry, the sticky
// error, out of memory, and the modelled timeline.

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <kindling/cuda/kernels.hpp>
#include <kindling/cuda/runtime.hpp>
#include <kindling/cuda/sim.hpp>

#include <kindling/cuda/fixtures.hpp>

namespace {
namespace cu = kindling::cuda;
using cu::CopyKind;
using cu::SimMode;

cu::Runtime& rt() { return cu::sim_runtime(); }

std::vector<float> ramp(std::size_t n, float from = 1.0f) {
  std::vector<float> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = from + static_cast<float>(i);
  return v;
}

template <class F>
std::string error_of(F f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}
}  // namespace

TEST(EngineRuntime, TheSimulatorIsOneDeviceAndCudaMeansItWithoutAGpu) {
  EXPECT_EQ(rt().backend(), cu::Backend::Simulator);
  EXPECT_EQ(rt().device_count(), 1);
  EXPECT_TRUE(cu::is_available());
  // CI's machine has the toolkit and no driver: any error of the query means "no device".
  if (!cu::device_present()) {
    EXPECT_EQ(cu::runtime().backend(), cu::Backend::Simulator);
  }
  EXPECT_NE(cu::backend_description().find(cu::runtime().backend() == cu::Backend::Simulator ? "simulator" : "device"),
            std::string::npos);
}

// torch.cuda.get_device_properties: what a program checks before it picks a batch size. On the
// simulated device, the memory is its capacity (1 GiB unless set), and it models no compute
// capability; a device past device_count() is refused in PyTorch's words.
TEST(EngineRuntime, DevicePropertiesGiveTheNameAndTheTotalMemory) {
  const cu::DeviceProperties p = cu::get_device_properties(0);
  EXPECT_EQ(p.name, "simulated device");
  EXPECT_EQ(p.total_memory, std::size_t{1} << 30);
  EXPECT_EQ(p.total_memory, rt().mem_info().second) << "cudaMemGetInfo's total is the same memory";
  EXPECT_EQ(p.multi_processor_count, 1);
  cu::sim::set_capacity(std::size_t{256} << 20);
  EXPECT_EQ(cu::get_device_properties().total_memory, std::size_t{256} << 20);
  cu::sim::set_capacity(std::size_t{1} << 30);
  for (const int bad : {1, -1}) {
    try {
      (void)cu::get_device_properties(bad);
      ADD_FAILURE() << "device " << bad << " was not refused";
    } catch (const kindling::Error& e) {
      EXPECT_EQ(std::string(e.what()), "Invalid device id");
    }
  }
}

TEST(EngineRuntime, LazyStreamsRunNothingUntilTheHostSynchronises) {
  const auto x = ramp(1000);
  void* dx = rt().malloc(1000 * sizeof(float));
  void* dy = rt().malloc(1000 * sizeof(float));
  cu::Stream s = rt().create_stream();
  rt().memcpy(dx, x.data(), 1000 * sizeof(float), CopyKind::HostToDevice);  // synchronous
  rt().memset_async(dy, 0, 1000 * sizeof(float), s);
  cu::axpy(2.0f, cu::device_ptr<const float>(dx), cu::device_ptr<float>(dy), 1000, s);
  EXPECT_FALSE(rt().query_stream(s));  // queued, not run
  // Reading device memory from the host now is the missing synchronisation, reported.
  const std::string e = error_of([&] {
    std::vector<float> y(1000);
    cu::sim::copy_to_host(y.data(), cu::sim::find(dy, nullptr), 0, 1000 * sizeof(float));
  });
  EXPECT_NE(e.find("while work is still queued on a stream"), std::string::npos) << e;
  rt().synchronize_stream(s);
  EXPECT_TRUE(rt().query_stream(s));
  std::vector<float> y(1000);
  rt().memcpy(y.data(), dy, 1000 * sizeof(float), CopyKind::DeviceToHost);
  EXPECT_EQ(y[0], 2.0f);
  EXPECT_EQ(y[999], 2000.0f);
  rt().destroy_stream(s);
  rt().free(dx);
  rt().free(dy);
}

TEST(EngineRuntime, AnAsyncCopyToPinnedMemoryReadsAsPoisonUntilSynchronised) {
  const auto x = ramp(256);
  void* dx = rt().malloc(256 * sizeof(float));
  rt().memcpy(dx, x.data(), 256 * sizeof(float), CopyKind::HostToDevice);
  auto* pinned = static_cast<float*>(rt().host_alloc(256 * sizeof(float)));
  EXPECT_TRUE(rt().is_pinned(pinned + 10));
  cu::Stream s = rt().create_stream();
  rt().memcpy_async(pinned, dx, 256 * sizeof(float), CopyKind::DeviceToHost, s);
  EXPECT_TRUE(std::isnan(pinned[0]));  // the copy has not run: a read now sees NaN, every run
  rt().synchronize_stream(s);
  EXPECT_EQ(pinned[255], 256.0f);
  // To pageable memory the same call returns only when done (NVIDIA's rule).
  std::vector<float> pageable(256);
  rt().memcpy_async(pageable.data(), dx, 256 * sizeof(float), CopyKind::DeviceToHost, s);
  EXPECT_EQ(pageable[7], 8.0f);
  EXPECT_FALSE(rt().is_pinned(pageable.data()));
  rt().host_free(pinned);
  rt().destroy_stream(s);
  rt().free(dx);
}

TEST(EngineRuntime, APageableSourceIsStagedAPinnedOneIsReadWhenTheCopyRuns) {
  void* d = rt().malloc(4 * sizeof(float));
  cu::Stream s = rt().create_stream();
  std::vector<float> pageable{1, 2, 3, 4};
  rt().memcpy_async(d, pageable.data(), 16, CopyKind::HostToDevice, s);  // staged: synchronous for the host
  pageable.assign(4, 9.0f);
  std::vector<float> back(4);
  rt().memcpy(back.data(), d, 16, CopyKind::DeviceToHost);
  EXPECT_EQ(back[0], 1.0f);
  auto* pinned = static_cast<float*>(rt().host_alloc(16));
  for (int i = 0; i < 4; ++i) pinned[i] = 5.0f;
  rt().memcpy_async(d, pinned, 16, CopyKind::HostToDevice, s);  // asynchronous: reads pinned[] later
  pinned[0] = 7.0f;  // the classic bug: reusing the source before the copy ran
  rt().synchronize_stream(s);
  rt().memcpy(back.data(), d, 16, CopyKind::DeviceToHost);
  EXPECT_EQ(back[0], 7.0f);  // what a GPU may do too; lazy streams make it happen every time
  rt().host_free(pinned);
  rt().destroy_stream(s);
  rt().free(d);
}

TEST(EngineRuntime, EventsOrderStreamsAndTheTimelineShowsOverlap) {
  const std::size_t n = 1 << 14;
  auto* host = static_cast<float*>(rt().host_alloc(n * sizeof(float)));
  for (std::size_t i = 0; i < n; ++i) host[i] = 1.0f;
  void* a = rt().malloc(n * sizeof(float));
  void* b = rt().malloc(n * sizeof(float));
  cu::Stream copy = rt().create_stream(), compute = rt().create_stream();
  cu::Event copied = rt().create_event();
  cu::sim::clear_timeline();
  rt().memcpy_async(a, host, n * sizeof(float), CopyKind::HostToDevice, copy);
  rt().record_event(copied, copy);
  rt().stream_wait_event(compute, copied);
  cu::scale(cu::device_ptr<const float>(a), cu::device_ptr<float>(b), 3.0f, static_cast<std::int64_t>(n), compute);
  rt().memcpy_async(a, host, n * sizeof(float), CopyKind::HostToDevice, copy);  // the next batch, meanwhile
  EXPECT_FALSE(rt().query_event(copied));
  rt().synchronize();
  EXPECT_TRUE(rt().query_event(copied));
  const auto t = cu::sim::timeline();
  ASSERT_EQ(t.size(), 3u);
  // kernel after the first copy; the second copy during the kernel
  EXPECT_EQ(t[0].what.rfind("memcpyAsync HtoD", 0), 0u);
  const auto& kernel =
      t[0].stream == cu::sim::stream_index(compute) ? t[0] : (t[1].what.find("kernel") == 0 ? t[1] : t[2]);
  const auto& second = t[2].what.find("memcpy") == 0 ? t[2] : t[1];
  EXPECT_GE(kernel.start_us, t[0].end_us);
  EXPECT_LT(second.start_us, kernel.end_us);
  EXPECT_GT(second.end_us, kernel.start_us);
  std::vector<float> y(n);
  rt().memcpy(y.data(), b, n * sizeof(float), CopyKind::DeviceToHost);
  EXPECT_EQ(y[n - 1], 3.0f);
  rt().destroy_event(copied);
  rt().destroy_stream(copy);
  rt().destroy_stream(compute);
  rt().free(a);
  rt().free(b);
  rt().host_free(host);
}

TEST(EngineRuntime, WithoutTheEventTheKernelReadsMemoryTheCopyHasNotWritten) {
  const std::size_t n = 512;
  auto* host = static_cast<float*>(rt().host_alloc(n * sizeof(float)));
  for (std::size_t i = 0; i < n; ++i) host[i] = 1.0f;
  void* a = rt().malloc(n * sizeof(float));
  void* b = rt().malloc(n * sizeof(float));
  cu::Stream copy = rt().create_stream(), compute = rt().create_stream();
  rt().memcpy_async(a, host, n * sizeof(float), CopyKind::HostToDevice, copy);
  cu::scale(cu::device_ptr<const float>(a), cu::device_ptr<float>(b), 3.0f, static_cast<std::int64_t>(n), compute);
  // The host drains the compute stream first: its kernel reads `a` before the copy wrote it.
  const std::string e = error_of([&] { rt().synchronize_stream(compute); });
  EXPECT_NE(e.find("never written"), std::string::npos) << e;
  // A kernel that faulted leaves the device unusable, as a GPU's sticky error does.
  EXPECT_NE(rt().get_last_error().find("never written"), std::string::npos);
  EXPECT_NE(error_of([&] { rt().malloc(16); }).find("sticky"), std::string::npos);
  cu::sim::reset_device();
  EXPECT_EQ(rt().get_last_error(), "");
  rt().host_free(host);
}

TEST(EngineRuntime, EagerAndThreadedModesGiveTheSameResults) {
  for (SimMode mode : {SimMode::Eager, SimMode::Threaded, SimMode::Lazy}) {
    cu::sim::set_mode(mode);
    const auto x = ramp(3000);
    void* dx = rt().malloc(3000 * sizeof(float));
    void* dy = rt().malloc(3000 * sizeof(float));
    cu::Stream s1 = rt().create_stream(), s2 = rt().create_stream();
    cu::Event e = rt().create_event();
    rt().memcpy_async(dx, x.data(), 3000 * sizeof(float), CopyKind::HostToDevice, s1);
    rt().record_event(e, s1);
    rt().stream_wait_event(s2, e);
    cu::scale(cu::device_ptr<const float>(dx), cu::device_ptr<float>(dy), 0.5f, 3000, s2);
    rt().synchronize_stream(s2);
    std::vector<float> y(3000);
    rt().memcpy(y.data(), dy, 3000 * sizeof(float), CopyKind::DeviceToHost);
    EXPECT_EQ(y[2999], 1500.0f) << static_cast<int>(mode);
    rt().destroy_event(e);
    rt().destroy_stream(s1);
    rt().destroy_stream(s2);
    rt().free(dx);
    rt().free(dy);
  }
}

TEST(EngineRuntime, TheHeapIsCappedAndOutOfMemoryIsAnError) {
  const auto [free_before, total] = rt().mem_info();
  EXPECT_EQ(total, std::size_t{1} << 30);
  EXPECT_THROW(rt().malloc(total + 1), cu::OutOfMemoryError);
  void* p = rt().malloc(1 << 20);
  EXPECT_EQ(rt().mem_info().first, free_before - (1 << 20));
  rt().free(p);
  const std::string twice = error_of([&] { rt().free(p); });
  EXPECT_NE(twice.find("already freed"), std::string::npos) << twice;
  EXPECT_NE(error_of([&] { rt().free(static_cast<char*>(rt().malloc(64)) + 4); }).find("not the start"),
            std::string::npos);
}

TEST(EngineRuntime, ALaunchBeyondCudaLimitsSetsTheLastErrorAndThrows) {
  void* d = rt().malloc(4096 * sizeof(float));
  const std::string e = error_of([&] {
    kindling::cuda::fixtures::twice_with_block(cu::device_ptr<const float>(d), cu::device_ptr<float>(d), 4096, 2048);
  });
  EXPECT_NE(e.find("too many threads per block: 2048 (at most 1024)"), std::string::npos) << e;
  EXPECT_NE(rt().get_last_error().find("too many threads per block"), std::string::npos);
  EXPECT_EQ(rt().get_last_error(), "");  // not sticky: reading it clears it, as cudaGetLastError does
  rt().free(d);
}
