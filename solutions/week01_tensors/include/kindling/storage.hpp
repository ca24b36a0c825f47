#pragma once
/// @file storage.hpp
/// Storage: the flat, reference-counted buffer that tensors and their views share.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <memory>
#include <string>
#include <string_view>

namespace kindling {

/// Where a tensor's memory lives.
enum class DeviceType : std::int8_t { CPU, CUDA };

/// A device and its index, like torch.device("cuda:0").
struct Device {
  DeviceType type = DeviceType::CPU;  ///< CPU or CUDA
  int index = -1;                     ///< -1 for "the current one"
  /// The CPU.
  constexpr Device() = default;
  /// A device of `type`, with `index` (-1: none given; negative otherwise is an error, as
  /// in torch.device("cuda", -2)).
  constexpr Device(DeviceType type_, int index_ = -1) : type(type_), index(index_) {}  // NOLINT
  /// Parses "cpu", "cuda", "cuda:1" with PyTorch's errors ("Invalid device string: 'cuda:x'").
  Device(std::string_view spec);  // NOLINT(google-explicit-constructor)
  /// Parses a C string (so that `x.to("cuda")` picks the device and not a dtype).
  Device(const char* spec) : Device(std::string_view(spec)) {}  // NOLINT(google-explicit-constructor)
  /// True for CPU devices.
  constexpr bool is_cpu() const { return type == DeviceType::CPU; }
  /// True for CUDA devices.
  constexpr bool is_cuda() const { return type == DeviceType::CUDA; }
  /// True when an index was given.
  constexpr bool has_index() const { return index >= 0; }
  /// Devices are equal when type and index agree (cuda != cuda:0, as in PyTorch).
  friend bool operator==(const Device&, const Device&) = default;
};

/// "cpu", "cuda", "cuda:0": as PyTorch prints a device.
std::string to_string(const Device& d);
/// Prints to_string(d).
std::ostream& operator<<(std::ostream& out, const Device& d);

/// The CPU device.
inline constexpr Device kCPU{DeviceType::CPU, -1};
/// The CUDA device type, as LibTorch's torch::kCUDA (a Device converts from it).
inline constexpr DeviceType kCUDA = DeviceType::CUDA;

/// A flat buffer of bytes, shared by every tensor that views it.
///
/// Note: Storage is a handle. Copying a Storage shares the buffer (that is what
/// makes views free); the buffer is released when the last handle goes. The
/// buffer is 64-byte aligned so that kernels can use aligned vector loads.
class Storage {
 public:
  /// No buffer.
  Storage() = default;
  /// Allocates `nbytes` uninitialised bytes on `device` (CUDA memory comes from the device
  /// backend that week 6 plugs in: device_hooks.hpp).
  static Storage allocate(std::size_t nbytes, Device device = kCPU);
  /// Wraps memory owned elsewhere; `deleter` (may be empty) runs when the last handle goes.
  static Storage from_blob(void* data, std::size_t nbytes, std::function<void(void*)> deleter = {},
                           Device device = kCPU);
  /// from_blob for CPU memory that the caller has page-locked (week 4's pinned
  /// memory pool); is_pinned() reports it.
  static Storage from_pinned_blob(void* data, std::size_t nbytes, std::function<void(void*)> deleter);

  /// The first byte of the buffer.
  void* data() const { return buffer_ ? buffer_->data : nullptr; }
  /// Size of the buffer in bytes.
  std::size_t nbytes() const { return buffer_ ? buffer_->nbytes : 0; }
  /// The device the buffer is on.
  Device device() const { return buffer_ ? buffer_->device : kCPU; }
  /// True when a buffer is held.
  bool defined() const { return buffer_ != nullptr; }
  /// How many Storage handles share this buffer.
  long use_count() const { return buffer_.use_count(); }
  /// True when both handles share one buffer.
  bool is_alias_of(const Storage& other) const { return buffer_ == other.buffer_; }
  /// True when the buffer is page-locked (week 4's pin_memory sets it).
  bool is_pinned() const { return buffer_ && buffer_->pinned; }
  /// Bytes held right now by every buffer that allocate() made and that some handle
  /// still shares (like torch.cuda.memory_allocated(), for the CPU): what a leak
  /// makes grow. Exact, and the same on every run of the same program, whenever no
  /// other thread is allocating or freeing at the same moment (each thread keeps its
  /// own count, and they are summed here one after another).
  static std::size_t allocated_bytes();

 private:
  struct Buffer {
    void* data = nullptr;
    std::size_t nbytes = 0;
    Device device;
    bool pinned = false;
    /// Which of allocate()'s pools takes the memory back (0: none, `deleter` runs);
    /// a tag rather than a std::function, which cost a tiny graph 4% to build and call.
    std::uint8_t pool = 0;
    std::size_t rounded = 0;  ///< the pool's size class
    std::function<void(void*)> deleter;
    Buffer() = default;
    Buffer(const Buffer&) = delete;
    Buffer& operator=(const Buffer&) = delete;
    ~Buffer();
  };
  std::shared_ptr<Buffer> buffer_;
};

}  // namespace kindling
