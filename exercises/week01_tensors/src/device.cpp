// Devices: parsing and printing torch.device, the device rule of elementwise ops, and moving a
// tensor between devices. The kernels of a device come through device_hooks.hpp (week 6).

#include <charconv>
#include <ostream>
#include <string>

#include <kindling/device_hooks.hpp>
#include <kindling/factory.hpp>
#include <kindling/grad_mode.hpp>

#include "autograd_hooks.hpp"
#include "internal.hpp"

namespace kindling {

Device::Device(std::string_view spec) {
  // PyTorch 1.13's rules (c10/core/Device.cpp): a lowercase type, then optionally ':' and a
  // non-negative index without leading zeros.
  KINDLING_CHECK(!spec.empty(), "Device string must not be empty");
  const std::size_t colon = spec.find(':');
  const std::string_view name = spec.substr(0, colon);
  if (name == "cpu") {
    type = DeviceType::CPU;
  } else if (name == "cuda") {
    type = DeviceType::CUDA;
  } else {
    throw Error(
        "Expected one of cpu, cuda, ipu, xpu, mkldnn, opengl, opencl, ideep, hip, ve, fpga, ort, xla, lazy, vulkan, "
        "mps, meta, hpu, privateuseone device type at start of device string: " +
        std::string(spec));
  }
  if (colon == std::string_view::npos) return;
  const std::string_view digits = spec.substr(colon + 1);
  const bool valid = !digits.empty() && digits.size() <= 9 && (digits.size() == 1 || digits[0] != '0') &&
                     digits.find_first_not_of("0123456789") == std::string_view::npos;
  KINDLING_CHECK(valid, "Invalid device string: '", spec, "'");
  std::from_chars(digits.data(), digits.data() + digits.size(), index);
}

std::string to_string(const Device& d) {
  std::string s = d.is_cpu() ? "cpu" : "cuda";
  if (d.has_index()) s += ":" + std::to_string(d.index);
  return s;
}

std::ostream& operator<<(std::ostream& out, const Device& d) { return out << to_string(d); }

namespace detail {
namespace {
// PyTorch's TensorIterator: a 0-d CPU tensor may join an op on any device; any other pair of
// different devices is an error naming the op's device first. `at(i)` is the i-th tensor.
template <class At>
Device common_device_of(std::size_t n, At at) {
  const Tensor* device_operand = nullptr;
  for (std::size_t i = 0; i < n && device_operand == nullptr; ++i)
    if (at(i).defined() && !at(i).device().is_cpu()) device_operand = &at(i);
  if (device_operand == nullptr) return kCPU;
  const Device d = device_operand->device();
  for (std::size_t i = 0; i < n; ++i) {
    const Tensor& t = at(i);
    if (!t.defined() || t.device() == d) continue;
    if (t.device().is_cpu() && t.dim() == 0) continue;
    throw Error(concat("Expected all tensors to be on the same device, but found at least two devices, ", d, " and ",
                       t.device(), "!"));
  }
  return d;
}
}  // namespace

Device common_device(std::initializer_list<const Tensor*> tensors) {
  return common_device_of(tensors.size(), [&](std::size_t i) -> const Tensor& { return *tensors.begin()[i]; });
}
Device common_device(const TensorList& tensors) {
  return common_device_of(tensors.size(), [&](std::size_t i) -> const Tensor& { return tensors[i]; });
}

void check_cpu(const Tensor& t, const char* what) {
  KINDLING_CHECK(
      t.device().is_cpu(), "'", what, "' is not implemented for ", to_string(t.device()),
      " tensors yet (Kindling's GPU kernels cover the elementwise ops, reductions, softmax, matrix products, "
      "where, index_select, convolutions and pooling); move the tensor with .cpu() first");
}

Tensor empty_contiguous(IntArrayRef sizes, ScalarType dtype, Device device) {
  if (device.is_cpu()) return empty_contiguous(sizes, dtype);
  const auto bytes = static_cast<std::size_t>(numel_of(sizes)) * element_size(dtype);
  return Tensor::make(Storage::allocate(bytes, device), sizes.vec(), contiguous_strides(sizes), 0, dtype);
}

void throw_not_on_cpu(const Tensor& t) {
  check_cpu(t, "this operation");
  throw Error("throw_not_on_cpu: called for a CPU tensor");
}
}  // namespace detail

Storage detail::allocate_on_device(std::size_t nbytes, Device device) {
  DeviceBackend& backend = device_backend(device.type);
  void* p = backend.allocate(nbytes, device);
  return Storage::from_blob(
      p, nbytes, [device](void* q) { device_backend(device.type).deallocate(q, device); }, device);
}

Tensor Tensor::to(Device device, ScalarType dtype, bool non_blocking) const {
  // One recorded node for both changes, as PyTorch's _to_copy: its backward moves the gradient
  // back, and the engine converts the gradient's dtype to the input's.
  Tensor out;
  {
    AutoGradMode off(false);
    out = to(device, non_blocking).to(dtype);
  }
  if (out.is_same(*this)) return *this;
  if (GradMode::is_enabled()) detail::record_move(out, *this);
  return out;
}

// to(Device) is the task week06.device_moves (week 6: src/tasks/device_moves.cpp); cuda() and
// cpu() are the engine's own moves, which the other tasks' tests (and a move's backward) rely on.
void detail::record_move(const Tensor& out, const Tensor& self) {
  if (!autograd::may_require_grad(self) || !self.requires_grad()) return;
  autograd::OpArgs args;
  args.device = self.device();
  autograd::record(autograd::Op::ToCopy, out, {self}, std::move(args));
}

Tensor detail::move_to(const Tensor& t, Device device, bool non_blocking) {
  Tensor out = empty_contiguous(t.sizes(), t.dtype(), device);
  if (device.is_cpu() && t.device().is_cpu())
    copy(out, t);
  else
    device_backend(device.is_cpu() ? t.device().type : device.type).copy(out, t, non_blocking);
  if (GradMode::is_enabled()) record_move(out, t);
  return out;
}

Tensor detail::index_select_on_device(const Tensor& x, std::int64_t dim, const Tensor& index) {
  KINDLING_CHECK(index.device() == x.device(), "Input, output and indices must be on the current device");
  KINDLING_CHECK_AS(IndexError, index.dim() <= 1, "index_select(): Index is supposed to be a vector");
  KINDLING_CHECK(index.dtype() == kInt64 || index.dtype() == kInt32,
                 "index_select(): Expected dtype int32 or int64 for index");
  const Tensor idx = index.to(kInt64).contiguous();
  const std::int64_t size = x.dim() > 0 ? x.sizes()[static_cast<std::size_t>(dim)] : 1;
  for (const std::int64_t i : idx.cpu().to_vector<std::int64_t>()) {  // the host checks the entries first
    if (i >= 0 && i < size) continue;
    KINDLING_CHECK(!(x.dim() >= 2 && dim == 1), "INDICES element is out of DATA bounds, id=", i, " axis_dim=", size);
    throw IndexError("index out of range in self");
  }
  if (x.dim() == 0) return x.clone();
  Shape shape = x.sizes().vec();
  shape[static_cast<std::size_t>(dim)] = idx.numel();
  Tensor out = empty_contiguous(shape, x.dtype(), x.device());
  device_backend(x.device().type).index_select(out, x.contiguous(), dim, idx);
  return out;
}

Tensor Tensor::cuda(bool non_blocking) const {
  const Device d = device_backend(DeviceType::CUDA).resolve(Device(DeviceType::CUDA));
  return device() == d ? *this : detail::move_to(*this, d, non_blocking);
}
Tensor Tensor::cpu() const { return device().is_cpu() ? *this : detail::move_to(*this, kCPU); }

}  // namespace kindling
