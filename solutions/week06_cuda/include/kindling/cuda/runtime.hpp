#pragma once
/// @file runtime.hpp
/// The device runtime: one interface, two backends (docs/building.md, week 6).
///
/// - **the CUDA backend**: thin checked wrappers over the CUDA runtime, used when the
///   build has CUDA and the machine has a device;
/// - **the simulated device**: a capped heap of poisoned allocations (out of memory is
///   testable), a registry of pinned host ranges, streams as in-order queues of operations,
///   events, and NVIDIA's documented blocking rules for copies.
///
/// `runtime()` is the real device when one exists and the simulated device otherwise;
/// the environment variable `KINDLING_CUDA_BACKEND=auto|device|sim` overrides the choice
/// (`device` without a device is an error).
///
/// Note: the simulated device runs its streams in one of three modes. **Lazy** (the
/// default): nothing runs until the host synchronises (a stream, an event, the device, or
/// a copy that must wait), so a missing synchronisation fails the same way on every run;
/// while an asynchronous copy to pinned host memory waits, its destination holds the
/// poison pattern 0xff (NaN for floats). **Eager**: each operation runs when it is issued.
/// **Threaded**: a worker thread per stream, for real asynchrony.
///
/// The simulated device keeps a **modelled timeline**: each operation starts when its
/// stream, the events it waits for and the host allow, and lasts a modelled time (copies at
/// modelled link speeds, kernels by the bytes they move). Events read that clock. It
/// shows which operations overlap; it says nothing about a GPU's speed.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <kindling/error.hpp>

namespace kindling::cuda {

/// An error reported by the device runtime (CUDA's cudaError_t as an exception).
class CudaError : public Error {
 public:
  using Error::Error;
};

/// CUDA ran out of device memory (PyTorch's torch.cuda.OutOfMemoryError).
class OutOfMemoryError : public CudaError {
 public:
  using CudaError::CudaError;
};

/// Which backend a runtime is.
enum class Backend : std::uint8_t {
  Simulator,  ///< the kit's simulated device
  Device      ///< an NVIDIA GPU through the CUDA runtime
};

/// The direction of a copy, as cudaMemcpyKind.
enum class CopyKind : std::uint8_t {
  HostToHost,     ///< cudaMemcpyHostToHost
  HostToDevice,   ///< cudaMemcpyHostToDevice
  DeviceToHost,   ///< cudaMemcpyDeviceToHost
  DeviceToDevice  ///< cudaMemcpyDeviceToDevice
};

/// A stream: an in-order queue of device work. The null stream is the default (legacy)
/// stream, which waits for and blocks every other stream.
using Stream = void*;
/// An event: a marker recorded in a stream.
using Event = void*;

/// How the simulated device runs its streams (see the file's note).
enum class SimMode : std::uint8_t {
  Lazy,     ///< nothing runs until the host synchronises (the tests' default)
  Eager,    ///< each operation runs when issued
  Threaded  ///< a worker thread per stream
};

/// One operation on the simulated device's modelled timeline.
struct TimelineEntry {
  std::string what;      ///< "memcpy HtoD 4096 B (pinned)", "kernel add_kernel", "event"
  std::uint64_t stream;  ///< 0 for the default stream, 1, 2, ... in creation order
  double start_us;       ///< modelled start, in microseconds from the device's creation
  double end_us;         ///< modelled end
};

/// What torch.cuda.get_device_properties(i) tells a program about a device before it uses it.
struct DeviceProperties {
  std::string name;               ///< "simulated device", or the GPU's ("NVIDIA H200")
  std::size_t total_memory = 0;   ///< bytes of device memory (the simulated device's capacity: 1 GiB unless set)
  int major = 0;                  ///< compute capability, major (0 on the simulated device: it models none)
  int minor = 0;                  ///< compute capability, minor
  int multi_processor_count = 0;  ///< streaming multiprocessors (1 on the simulated device: a block at a time)
};

/// The device runtime's interface, which both backends implement.
class Runtime {
 public:
  virtual ~Runtime() = default;
  /// Which backend this is.
  virtual Backend backend() const = 0;
  /// "simulated device" or the GPU's name.
  virtual std::string name() const = 0;
  /// Devices this backend offers (the simulator offers one).
  virtual int device_count() = 0;
  /// cudaGetDeviceProperties of device `index` (0 <= index < device_count()).
  virtual DeviceProperties properties(int index) = 0;

  /// cudaMalloc: `bytes` of device memory (throws OutOfMemoryError when none is left).
  virtual void* malloc(std::size_t bytes) = 0;
  /// cudaFree (waits for the device, as cudaFree does).
  virtual void free(void* ptr) = 0;
  /// cudaHostAlloc: page-locked host memory.
  virtual void* host_alloc(std::size_t bytes) = 0;
  /// cudaFreeHost.
  virtual void host_free(void* ptr) = 0;
  /// cudaHostRegister: page-locks an existing host range (week 4's pool registers its pages).
  virtual void host_register(void* ptr, std::size_t bytes) = 0;
  /// cudaHostUnregister.
  virtual void host_unregister(void* ptr) = 0;
  /// True when `ptr` lies in page-locked host memory known to this runtime.
  virtual bool is_pinned(const void* ptr) = 0;

  /// cudaMemcpy: returns when the copy is done (it waits for prior work on the default stream).
  virtual void memcpy(void* dst, const void* src, std::size_t bytes, CopyKind kind) = 0;
  /// cudaMemcpyAsync on `stream`. Asynchronous for the host only between the device and
  /// pinned host memory: from pageable memory it is staged and returns when the source may be
  /// reused; to pageable memory it returns when done (NVIDIA's documented rules).
  virtual void memcpy_async(void* dst, const void* src, std::size_t bytes, CopyKind kind, Stream stream) = 0;
  /// cudaMemsetAsync on `stream`.
  virtual void memset_async(void* dst, int value, std::size_t bytes, Stream stream) = 0;

  /// cudaStreamCreate.
  virtual Stream create_stream() = 0;
  /// cudaStreamDestroy (its queued work still runs).
  virtual void destroy_stream(Stream stream) = 0;
  /// cudaStreamSynchronize.
  virtual void synchronize_stream(Stream stream) = 0;
  /// cudaStreamQuery: true when everything queued has finished.
  virtual bool query_stream(Stream stream) = 0;
  /// cudaStreamWaitEvent: work queued on `stream` from now waits for `event`.
  virtual void stream_wait_event(Stream stream, Event event) = 0;

  /// cudaEventCreate.
  virtual Event create_event() = 0;
  /// cudaEventDestroy.
  virtual void destroy_event(Event event) = 0;
  /// cudaEventRecord.
  virtual void record_event(Event event, Stream stream) = 0;
  /// cudaEventQuery: true when the work before the record has finished.
  virtual bool query_event(Event event) = 0;
  /// cudaEventSynchronize.
  virtual void synchronize_event(Event event) = 0;
  /// cudaEventElapsedTime, in milliseconds (on the simulator: of the modelled timeline).
  virtual float elapsed_ms(Event start, Event end) = 0;

  /// cudaDeviceSynchronize: waits for every stream.
  virtual void synchronize() = 0;
  /// cudaMemGetInfo: free and total bytes.
  virtual std::pair<std::size_t, std::size_t> mem_info() = 0;
  /// cudaGetLastError: the last error of a launch or a call, cleared by reading it ("" for
  /// none). A sticky error (a kernel that faulted) is returned every time.
  virtual std::string get_last_error() = 0;

  /// Queues host work that stands for a kernel launch on `stream` (the simulator's launch()
  /// goes through it; `bytes_moved` feeds the modelled timeline).
  virtual void enqueue_kernel(Stream stream, const std::string& name, std::function<std::uint64_t()> run) = 0;
};

/// The runtime that `cuda` tensors use, chosen once. It must match the kernels the program links
/// (kernels_built_for_device()): a program with the simulator's kernels uses the simulated
/// device, even on a machine with a GPU; a program with the device's kernels uses the GPU, and
/// throws CudaError when there is none. KINDLING_CUDA_BACKEND=auto|device|sim names the choice,
/// and is refused when it names the other one.
Runtime& runtime();
/// The simulated device (always available).
Runtime& sim_runtime();
/// The CUDA backend; throws CudaError when the build has no CUDA or the machine no device.
Runtime& device_runtime();
/// True when the build has CUDA and the CUDA runtime reports a device (any error from the
/// query, such as "driver insufficient" on a machine without a driver, means no device).
bool device_present();
/// Which build of the kernels this program links: true for nvcc's (the device build, in the
/// programs that link `kindling_device`: the GPU benchmark and the GPU agreement tests),
/// false for the simulator's (every other program). Defined by the kernels themselves
/// (src/kernels/flavor.cu), so that it cannot disagree with them.
bool kernels_built_for_device();
/// "simulator" or "device (NVIDIA H100 ...)": what runtime() is, for the grader's banner.
std::string backend_description();

/// torch.cuda.is_available(): true, since `cuda` is the simulated device where no GPU is.
bool is_available();
/// torch.cuda.device_count().
int device_count();
/// torch.cuda.get_device_properties(device): name, total_memory, compute capability and
/// multiprocessors. Error "Invalid device id" (PyTorch's words) for a device past device_count().
DeviceProperties get_device_properties(int device = 0);
/// The devices a process sees, by the CUDA runtime's rule for CUDA_VISIBLE_DEVICES (read once, when
/// the runtime starts), on a machine with `physical` devices: `value` null (the variable unset), all
/// of them in order; otherwise the comma-separated indices in the order given, each read as a
/// number at its start (as strtoul reads it: "1gpu" is 1), up to the first entry that is no valid
/// index (empty, negative, not a number, not below `physical`), which hides itself and every entry
/// after it (CUDA's guide: "0,2,-1,1" shows devices 0 and 2). A repeated index, which the guide
/// leaves unsaid, ends the list too. An empty value hides every device. On a GPU the CUDA runtime applies the
/// variable itself; the simulated device does not (on a machine with GPUs the variable is set for
/// them), and this function is the rule on its own.
std::vector<int> visible_devices(const char* value, int physical);
/// torch.cuda.synchronize().
void synchronize();

/// The algorithms of the engine's matrix product on `cuda` where the kit's own kernels run (on the
/// simulator; a GPU build hands products to cuBLAS, which chooses for itself).
enum class GemmAlgorithm {
  Tiled,  ///< one 16 x 16 tile of C per block, walking all of k: each output's k products in order
  SplitK  ///< four blocks per tile, each over a quarter of k, then the quarters added in order
};
/// torch.backends.cudnn.benchmark, for the engine's matrix product: while on, the first product of
/// each shape (m, k, n, batch) runs every algorithm on it, times each, and keeps the fastest for
/// that shape from then on. Off by default. Which one wins depends on the machine and the moment,
/// and the algorithms add the same products in different orders: two runs of one program may then
/// differ in their results' last bits, which is why a reproducible run turns it off.
void set_benchmark(bool on);
/// Whether benchmark mode is on.
bool benchmark_enabled();
/// The algorithm products run without a timed choice (Tiled unless set; cuDNN's heuristic choice).
void set_default_gemm_algorithm(GemmAlgorithm algorithm);
/// The algorithm a product of this shape runs now: benchmark mode's choice once it has timed the
/// shape, the default otherwise.
GemmAlgorithm gemm_algorithm(std::int64_t m, std::int64_t k, std::int64_t n, std::int64_t batch = 1);
/// Forgets benchmark mode's choices (cuDNN keeps its own for the life of the process).
void clear_benchmark_cache();

namespace sim {
/// Sets how the simulated device runs its streams; waits for queued work first.
void set_mode(SimMode mode);
/// The mode set by set_mode (Lazy unless changed; KINDLING_SIM_MODE=lazy|eager|threaded sets it
/// at start).
SimMode mode();
/// The modelled timeline since the last clear_timeline().
std::vector<TimelineEntry> timeline();
/// Forgets the timeline.
void clear_timeline();
/// Clears a sticky error and drops queued work (tests only: a real context cannot recover).
void reset_device();
/// The simulator's models of link speed, in GB/s: pinned and pageable host-device copies,
/// device memory, and a kernel launch's fixed cost in microseconds.
struct Model {
  double pinned_gbps = 25.0;    ///< a PCIe 4.0 x16 link's usable rate
  double pageable_gbps = 10.0;  ///< the staging copy's host memcpy and the DMA after it
  double device_gbps = 2000.0;  ///< device memory (an H100's HBM3 is about 3000)
  double launch_us = 5.0;       ///< a launch's fixed cost
};
/// The model in use.
Model& model();
/// The stream's index on the timeline (0 for the default stream).
std::uint64_t stream_index(Stream stream);
}  // namespace sim

}  // namespace kindling::cuda
