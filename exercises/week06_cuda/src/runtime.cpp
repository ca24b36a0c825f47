// Which runtime `cuda` means (the device when one exists, else the simulated device), and the
// CUDA backend: thin checked wrappers over the CUDA runtime, compiled where the toolkit is.

#include <cstdlib>
#include <mutex>
#include <string>

#include <kindling/cuda/runtime.hpp>

#if KINDLING_HAS_CUDA
#include <cuda_runtime_api.h>
#endif

namespace kindling::cuda {

#if KINDLING_HAS_CUDA
namespace {
void check(cudaError_t err, const char* call) {
  if (err == cudaSuccess) return;
  cudaGetLastError();  // clear a non-sticky error
  const std::string text = std::string(call) + ": " + cudaGetErrorString(err);
  if (err == cudaErrorMemoryAllocation) throw OutOfMemoryError("CUDA out of memory. " + text);
  throw CudaError(text);
}
#define KINDLING_CUDA_CHECK(call) check((call), #call)

cudaMemcpyKind kind_of(CopyKind k) {
  switch (k) {
    case CopyKind::HostToHost:
      return cudaMemcpyHostToHost;
    case CopyKind::HostToDevice:
      return cudaMemcpyHostToDevice;
    case CopyKind::DeviceToHost:
      return cudaMemcpyDeviceToHost;
    case CopyKind::DeviceToDevice:
      return cudaMemcpyDeviceToDevice;
  }
  return cudaMemcpyDefault;
}

class CudaDevice final : public Runtime {
 public:
  Backend backend() const override { return Backend::Device; }
  std::string name() const override {
    cudaDeviceProp p{};
    if (cudaGetDeviceProperties(&p, 0) != cudaSuccess) return "CUDA device";
    return p.name;
  }
  int device_count() override {
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
      cudaGetLastError();
      return 0;
    }
    return n;
  }
  DeviceProperties properties(int index) override {
    cudaDeviceProp p{};
    KINDLING_CUDA_CHECK(cudaGetDeviceProperties(&p, index));
    return DeviceProperties{p.name, p.totalGlobalMem, p.major, p.minor, p.multiProcessorCount};
  }
  void* malloc(std::size_t bytes) override {
    void* p = nullptr;
    KINDLING_CUDA_CHECK(cudaMalloc(&p, bytes));
    return p;
  }
  void free(void* ptr) override { KINDLING_CUDA_CHECK(cudaFree(ptr)); }
  void* host_alloc(std::size_t bytes) override {
    void* p = nullptr;
    KINDLING_CUDA_CHECK(cudaHostAlloc(&p, bytes, cudaHostAllocDefault));
    return p;
  }
  void host_free(void* ptr) override { KINDLING_CUDA_CHECK(cudaFreeHost(ptr)); }
  void host_register(void* ptr, std::size_t bytes) override {
    KINDLING_CUDA_CHECK(cudaHostRegister(ptr, bytes, cudaHostRegisterDefault));
  }
  void host_unregister(void* ptr) override { KINDLING_CUDA_CHECK(cudaHostUnregister(ptr)); }
  bool is_pinned(const void* ptr) override {
    cudaPointerAttributes a{};
    if (cudaPointerGetAttributes(&a, ptr) != cudaSuccess) {
      cudaGetLastError();
      return false;
    }
    return a.type == cudaMemoryTypeHost;
  }
  void memcpy(void* dst, const void* src, std::size_t bytes, CopyKind kind) override {
    KINDLING_CUDA_CHECK(cudaMemcpy(dst, src, bytes, kind_of(kind)));
  }
  void memcpy_async(void* dst, const void* src, std::size_t bytes, CopyKind kind, Stream s) override {
    KINDLING_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, kind_of(kind), static_cast<cudaStream_t>(s)));
  }
  void memset_async(void* dst, int value, std::size_t bytes, Stream s) override {
    KINDLING_CUDA_CHECK(cudaMemsetAsync(dst, value, bytes, static_cast<cudaStream_t>(s)));
  }
  Stream create_stream() override {
    cudaStream_t s = nullptr;
    KINDLING_CUDA_CHECK(cudaStreamCreate(&s));
    return s;
  }
  void destroy_stream(Stream s) override { KINDLING_CUDA_CHECK(cudaStreamDestroy(static_cast<cudaStream_t>(s))); }
  void synchronize_stream(Stream s) override {
    KINDLING_CUDA_CHECK(cudaStreamSynchronize(static_cast<cudaStream_t>(s)));
  }
  bool query_stream(Stream s) override {
    const cudaError_t e = cudaStreamQuery(static_cast<cudaStream_t>(s));
    if (e == cudaErrorNotReady) return false;
    KINDLING_CUDA_CHECK(e);
    return true;
  }
  void stream_wait_event(Stream s, Event e) override {
    KINDLING_CUDA_CHECK(cudaStreamWaitEvent(static_cast<cudaStream_t>(s), static_cast<cudaEvent_t>(e), 0));
  }
  Event create_event() override {
    cudaEvent_t e = nullptr;
    KINDLING_CUDA_CHECK(cudaEventCreate(&e));
    return e;
  }
  void destroy_event(Event e) override { KINDLING_CUDA_CHECK(cudaEventDestroy(static_cast<cudaEvent_t>(e))); }
  void record_event(Event e, Stream s) override {
    KINDLING_CUDA_CHECK(cudaEventRecord(static_cast<cudaEvent_t>(e), static_cast<cudaStream_t>(s)));
  }
  bool query_event(Event e) override {
    const cudaError_t r = cudaEventQuery(static_cast<cudaEvent_t>(e));
    if (r == cudaErrorNotReady) return false;
    KINDLING_CUDA_CHECK(r);
    return true;
  }
  void synchronize_event(Event e) override { KINDLING_CUDA_CHECK(cudaEventSynchronize(static_cast<cudaEvent_t>(e))); }
  float elapsed_ms(Event a, Event b) override {
    float ms = 0;
    KINDLING_CUDA_CHECK(cudaEventElapsedTime(&ms, static_cast<cudaEvent_t>(a), static_cast<cudaEvent_t>(b)));
    return ms;
  }
  void synchronize() override { KINDLING_CUDA_CHECK(cudaDeviceSynchronize()); }
  std::pair<std::size_t, std::size_t> mem_info() override {
    std::size_t free = 0, total = 0;
    KINDLING_CUDA_CHECK(cudaMemGetInfo(&free, &total));
    return {free, total};
  }
  std::string get_last_error() override {
    const cudaError_t e = cudaGetLastError();
    return e == cudaSuccess ? "" : cudaGetErrorString(e);
  }
  void enqueue_kernel(Stream, const std::string& name, std::function<std::uint64_t()>) override {
    throw CudaError("kernel " + name + ": the device backend launches through <<<>>>, not the simulator's queue");
  }
};
}  // namespace
#endif

bool device_present() {
#if KINDLING_HAS_CUDA
  static const bool present = [] {
    int n = 0;
    const cudaError_t e = cudaGetDeviceCount(&n);  // error 35 (driver insufficient) without a driver
    if (e != cudaSuccess) {
      cudaGetLastError();
      return false;
    }
    return n > 0;
  }();
  return present;
#else
  return false;
#endif
}

Runtime& device_runtime() {
#if KINDLING_HAS_CUDA
  KINDLING_CHECK_AS(CudaError, device_present(),
                    "KINDLING_CUDA_BACKEND=device, but the CUDA runtime reports no device");
  static CudaDevice* d = new CudaDevice;
  return *d;
#else
  throw CudaError("KINDLING_CUDA_BACKEND=device, but Kindling was built without CUDA");
#endif
}

Runtime& runtime() {
  static Runtime* chosen = [] {
    const char* env = std::getenv("KINDLING_CUDA_BACKEND");
    const std::string want = env ? env : "auto";
    KINDLING_CHECK_AS(CudaError, want == "auto" || want == "device" || want == "sim",
                      "KINDLING_CUDA_BACKEND must be auto, device or sim, not '", want, "'");
    // A kernel built by nvcc cannot run on the simulated device's memory, nor a simulator-built
    // one on a GPU's: the kernels this program links decide.
    if (kernels_built_for_device()) {
      KINDLING_CHECK_AS(CudaError, want != "sim",
                        "KINDLING_CUDA_BACKEND=sim, but this program links the device build of the kernels (nvcc's); "
                        "the simulator runs the programs that link `kindling` alone");
      KINDLING_CHECK_AS(CudaError, device_present(),
                        "this program links the device build of the kernels (nvcc's), and the CUDA runtime reports "
                        "no device; the simulator runs the programs that link `kindling` alone");
      return &device_runtime();
    }
    KINDLING_CHECK_AS(CudaError, want != "device",
                      "KINDLING_CUDA_BACKEND=device, but this program links the simulator's build of the kernels; "
                      "the programs that run on a GPU link kindling_device (kindling_week06_device_bench, "
                      "kindling_gpu_tests)");
    return &sim_runtime();
  }();
  return *chosen;
}

std::string backend_description() {
  Runtime& r = runtime();
  if (r.backend() == Backend::Simulator) return "simulator (the kit's CUDA simulator; no GPU used)";
  return "device (" + r.name() + ")";
}

bool is_available() { return runtime().device_count() > 0; }
int device_count() { return runtime().device_count(); }

DeviceProperties get_device_properties(int device) {
  KINDLING_CHECK(device >= 0 && device < runtime().device_count(), "Invalid device id");
  return runtime().properties(device);
}
void synchronize() { runtime().synchronize(); }

}  // namespace kindling::cuda
