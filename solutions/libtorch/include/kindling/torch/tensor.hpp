#pragma once
/// @file torch/tensor.hpp
/// LibTorch's tensor side over Kindling: torch:: as kindling::'s tensors, factories and operations,
/// the dtype and device constants, TensorOptions with requires_grad, the ATen functions programs call
/// at torch::, torch::autograd and torch::cuda. Part of
/// <kindling/torch.hpp>, which a LibTorch program includes.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <kindling/autograd.hpp>
#include <kindling/cuda.hpp>
#include <kindling/kindling.hpp>
#include <kindling/nn.hpp>
#include <kindling/training.hpp>

/// LibTorch's loss reductions (at::Reduction, which LibTorch programs name unqualified too).
namespace at::Reduction {
/// How a loss reduces over the batch.
enum Reduction { None, Mean, Sum };
}  // namespace at::Reduction
namespace Reduction =
    ::at::Reduction;  // NOLINT(misc-unused-alias-decls): `Reduction::Sum`, as LibTorch programs write it

/// LibTorch's assertion: throws kindling::Error when `cond` is false.
#define AT_ASSERT(cond) KINDLING_CHECK((cond), "Expected " #cond " to be true, but got false.")

namespace torch {
// torch:: is kindling::'s tensors, factories, operations and types, one using-declaration each
// (not `using namespace kindling`: a program that says `using namespace torch;`, as LibTorch's
// examples do, would then see kindling::nn beside torch::nn, and `nn::` would be ambiguous),
// plus the names below.
using ::kindling::abs;
using ::kindling::add;
using ::kindling::add_;
using ::kindling::add_noise;
using ::kindling::add_out;
using ::kindling::addmm;
using ::kindling::allclose;
using ::kindling::argmax;
using ::kindling::argmin;
using ::kindling::AutoGradMode;
using ::kindling::bmm;
using ::kindling::broadcast_shapes;
using ::kindling::can_cast;
using ::kindling::cat;
using ::kindling::ceil;
using ::kindling::chunk;
using ::kindling::clamp;
using ::kindling::clamp_;
using ::kindling::contiguous_strides;
using ::kindling::correlation;
using ::kindling::cos;
using ::kindling::count_lossy;
using ::kindling::default_generator;
using ::kindling::Device;
using ::kindling::DeviceType;
using ::kindling::div;
using ::kindling::div_;
using ::kindling::dot;
using ::kindling::Dtype;
using ::kindling::dtype_name;
using ::kindling::dtype_short_name;
using ::kindling::eigh;
using ::kindling::EighResult;
using ::kindling::einsum;
using ::kindling::element_size;
using ::kindling::empty_like;
using ::kindling::EnableGradGuard;
using ::kindling::eq;
using ::kindling::equal;
using ::kindling::Error;
using ::kindling::exp;
using ::kindling::floor;
using ::kindling::from_blob;
using ::kindling::full_like;
using ::kindling::ge;
using ::kindling::Generator;
using ::kindling::GeneratorGuard;
using ::kindling::get_num_threads;
using ::kindling::GradMode;
using ::kindling::gt;
using ::kindling::index_select;
using ::kindling::IndexError;
using ::kindling::infer_size;
using ::kindling::IntArrayRef;
using ::kindling::is_contiguous;
using ::kindling::is_floating_point;
using ::kindling::is_integral;
using ::kindling::isfinite;
using ::kindling::isnan;
using ::kindling::kBool;
using ::kindling::kByte;
using ::kindling::kDefaultDtype;
using ::kindling::kDouble;
using ::kindling::kFloat;
using ::kindling::kFloat32;
using ::kindling::kFloat64;
using ::kindling::kInt;
using ::kindling::kInt32;
using ::kindling::kInt64;
using ::kindling::kLong;
using ::kindling::kUInt8;
using ::kindling::le;
using ::kindling::legacy_type_name;
using ::kindling::linspace;
using ::kindling::log;
using ::kindling::log1p;
using ::kindling::log_softmax;
using ::kindling::logical_not;
using ::kindling::logsumexp;
using ::kindling::lt;
using ::kindling::manual_seed;
using ::kindling::masked_fill;
using ::kindling::masked_fill_;
using ::kindling::masked_select;
using ::kindling::matmul;
using ::kindling::matrix_function;
using ::kindling::max;
using ::kindling::maximum;
using ::kindling::mean;
using ::kindling::min;
using ::kindling::minimum;
using ::kindling::mm;
using ::kindling::mul;
using ::kindling::mul_;
using ::kindling::mv;
using ::kindling::ne;
using ::kindling::neg;
using ::kindling::NestedList;
using ::kindling::NoGradGuard;
using ::kindling::NoiseKind;
using ::kindling::NotImplemented;
using ::kindling::numel_of;
using ::kindling::pow;
using ::kindling::prod;
using ::kindling::promote_types;
using ::kindling::rand_like;
using ::kindling::randint;
using ::kindling::randperm;
using ::kindling::reciprocal;
using ::kindling::relu;
using ::kindling::relu_;
using ::kindling::repeat;
using ::kindling::result_type;
using ::kindling::round;
using ::kindling::rsqrt;
using ::kindling::Scalar;
using ::kindling::scalar_tensor;
using ::kindling::ScalarType;
using ::kindling::set_num_threads;
using ::kindling::Shape;
using ::kindling::sigmoid;
using ::kindling::sign;
using ::kindling::sin;
using ::kindling::softmax;
using ::kindling::split;
using ::kindling::sqrt;
using ::kindling::square;
using ::kindling::stack;
using ::kindling::Storage;
using ::kindling::sub;
using ::kindling::sub_;
using ::kindling::sum;
using ::kindling::tanh;
using ::kindling::Tensor;
using ::kindling::TensorList;
using ::kindling::to_string;
using ::kindling::type_as;
using ::kindling::TypeError;
using ::kindling::ValueError;
using ::kindling::where;
using ::kindling::wrap_dim;
namespace Reduction = ::at::Reduction;  // torch::Reduction::Sum

// ---- dtypes and devices ------------------------------------------------------------------------
inline constexpr ScalarType kF32 = kFloat32;           ///< torch::kF32
inline constexpr ScalarType kF64 = kFloat64;           ///< torch::kF64
inline constexpr DeviceType kCPU = DeviceType::CPU;    ///< torch::kCPU (a DeviceType, as in LibTorch)
inline constexpr DeviceType kCUDA = DeviceType::CUDA;  ///< torch::kCUDA

/// Tensor options with LibTorch's `requires_grad`, which the factories below honour.
struct TensorOptions : ::kindling::TensorOptions {
  bool requires_grad_ = false;  ///< the result is a leaf that requires grad
  /// Default options.
  TensorOptions() = default;
  /// Kindling's options.
  TensorOptions(::kindling::TensorOptions o) : ::kindling::TensorOptions(o) {}  // NOLINT(google-explicit-constructor)
  /// Options with a dtype.
  TensorOptions(ScalarType t) : ::kindling::TensorOptions(t) {}  // NOLINT(google-explicit-constructor)
  /// Options with a device.
  TensorOptions(Device d) : ::kindling::TensorOptions(d) {}  // NOLINT(google-explicit-constructor)
  /// Options with a device type.
  TensorOptions(DeviceType t) : ::kindling::TensorOptions(t) {}  // NOLINT(google-explicit-constructor)
  /// A copy with the dtype set.
  TensorOptions dtype(ScalarType t) const {
    TensorOptions o = *this;
    o.dtype_ = t;
    return o;
  }
  /// A copy with the device set.
  TensorOptions device(Device d) const {
    TensorOptions o = *this;
    static_cast<::kindling::TensorOptions&>(o) = ::kindling::TensorOptions::device(d);
    o.requires_grad_ = requires_grad_;
    return o;
  }
  /// A copy with requires_grad set.
  TensorOptions requires_grad(bool on = true) const {
    TensorOptions o = *this;
    o.requires_grad_ = on;
    return o;
  }
};
/// torch::requires_grad(): options whose tensors require grad.
inline TensorOptions requires_grad(bool on = true) { return TensorOptions().requires_grad(on); }
/// torch::dtype(t).
inline TensorOptions dtype(ScalarType t) { return TensorOptions(t); }
/// torch::device(d).
inline TensorOptions device(Device d) { return TensorOptions(d); }

namespace detail {
inline Tensor finish(Tensor t, const TensorOptions& o) {
  if (o.requires_grad_) t.requires_grad_();
  return t;
}
}  // namespace detail

// The factories, with requires_grad (each hides kindling's of the same name in torch::, so
// every overload LibTorch programs use is here).
/// torch::ones.
inline Tensor ones(IntArrayRef sizes, TensorOptions o = {}) { return detail::finish(::kindling::ones(sizes, o), o); }
/// torch::zeros.
inline Tensor zeros(IntArrayRef sizes, TensorOptions o = {}) { return detail::finish(::kindling::zeros(sizes, o), o); }
/// torch::empty.
inline Tensor empty(IntArrayRef sizes, TensorOptions o = {}) { return detail::finish(::kindling::empty(sizes, o), o); }
/// torch::rand.
inline Tensor rand(IntArrayRef sizes, TensorOptions o = {}) { return detail::finish(::kindling::rand(sizes, o), o); }
/// torch::randn.
inline Tensor randn(IntArrayRef sizes, TensorOptions o = {}) { return detail::finish(::kindling::randn(sizes, o), o); }
/// torch::full.
inline Tensor full(IntArrayRef sizes, const Scalar& value, TensorOptions o = {}) {
  return detail::finish(::kindling::full(sizes, value, o), o);
}
/// torch::tensor of a (nested) list.
inline Tensor tensor(const NestedList& values, TensorOptions o = {}) {
  return detail::finish(::kindling::tensor(values, o), o);
}
/// torch::tensor of a vector.
template <class T>
Tensor tensor(const std::vector<T>& values, TensorOptions o = {}) {
  return detail::finish(::kindling::tensor(values, o), o);
}
/// torch::ones_like.
inline Tensor ones_like(const Tensor& t, TensorOptions o = {}) {
  return detail::finish(::kindling::ones_like(t, o), o);
}
/// torch::zeros_like.
inline Tensor zeros_like(const Tensor& t, TensorOptions o = {}) {
  return detail::finish(::kindling::zeros_like(t, o), o);
}
/// torch::randn_like.
inline Tensor randn_like(const Tensor& t, TensorOptions o = {}) {
  return detail::finish(::kindling::randn_like(t, o), o);
}
/// torch::arange(end).
inline Tensor arange(const Scalar& end, TensorOptions o = {}) { return detail::finish(::kindling::arange(end, o), o); }

/// torch::str: its arguments written one after another.
template <class... Args>
std::string str(const Args&... args) {
  std::ostringstream out;
  (out << ... << args);
  return out.str();
}

// ---- the ATen functions LibTorch programs call at torch:: ------------------------------------------
namespace detail {
inline std::string reduction_name(::at::Reduction::Reduction r) {
  return r == ::at::Reduction::None ? "none" : r == ::at::Reduction::Sum ? "sum" : "mean";
}
}  // namespace detail
/// torch::nll_loss(input, target, weight, reduction, ignore_index).
inline Tensor nll_loss(const Tensor& input, const Tensor& target, const Tensor& weight = {},
                       ::at::Reduction::Reduction reduction = ::at::Reduction::Mean, std::int64_t ignore_index = -100) {
  return ::kindling::nn::functional::nll_loss(input, target, weight, ignore_index, detail::reduction_name(reduction));
}
/// torch::mse_loss.
inline Tensor mse_loss(const Tensor& input, const Tensor& target,
                       ::at::Reduction::Reduction reduction = ::at::Reduction::Mean) {
  return ::kindling::nn::functional::mse_loss(input, target, detail::reduction_name(reduction));
}
/// torch::smooth_l1_loss.
inline Tensor smooth_l1_loss(const Tensor& input, const Tensor& target,
                             ::at::Reduction::Reduction reduction = ::at::Reduction::Mean, double beta = 1.0) {
  return ::kindling::nn::functional::smooth_l1_loss(input, target, detail::reduction_name(reduction), beta);
}
/// torch::binary_cross_entropy.
inline Tensor binary_cross_entropy(const Tensor& input, const Tensor& target, const Tensor& weight = {},
                                   ::at::Reduction::Reduction reduction = ::at::Reduction::Mean) {
  return ::kindling::nn::functional::binary_cross_entropy(input, target, weight, detail::reduction_name(reduction));
}
/// torch::max_pool2d(x, kernel_size[, stride]).
inline Tensor max_pool2d(const Tensor& x, ::kindling::nn::Pair2 kernel_size,
                         std::optional<::kindling::nn::Pair2> stride = std::nullopt) {
  return ::kindling::nn::functional::max_pool2d(x, kernel_size, stride);
}
/// torch::avg_pool2d(x, kernel_size[, stride]).
inline Tensor avg_pool2d(const Tensor& x, ::kindling::nn::Pair2 kernel_size,
                         std::optional<::kindling::nn::Pair2> stride = std::nullopt) {
  return ::kindling::nn::functional::avg_pool2d(x, kernel_size, stride);
}
/// torch::leaky_relu(x, negative_slope).
inline Tensor leaky_relu(const Tensor& x, double negative_slope = 0.01) {
  return ::kindling::nn::functional::leaky_relu(x, negative_slope);
}
/// torch::dropout(x, p, training).
inline Tensor dropout(const Tensor& x, double p, bool training) {
  return ::kindling::nn::functional::dropout(x, p, training);
}
/// torch::feature_dropout(x, p, training): whole channels of an (N, C, ...) tensor at once.
inline Tensor feature_dropout(const Tensor& x, double p, bool training) {
  if (!training || p == 0) return x;
  Shape mask_shape(static_cast<std::size_t>(x.dim()), 1);
  mask_shape[0] = x.size(0);
  mask_shape[1] = x.size(1);
  const Tensor keep =
      ::kindling::rand(mask_shape, ::kindling::TensorOptions(x.dtype()).device(x.device())).ge(p).to(x.dtype());
  return x * keep / (1 - p);
}

}  // namespace torch

namespace torch {

// ---- autograd -----------------------------------------------------------------------------------------
namespace autograd {
using namespace ::kindling::autograd;  // NOLINT(google-build-using-namespace): grad, Function, AutogradContext
using variable_list = TensorList;      ///< LibTorch's name for a list of tensors
using tensor_list = TensorList;        ///< LibTorch's other name for it
using Variable = Tensor;               ///< LibTorch's old name for a tensor
}  // namespace autograd

// ---- cuda -------------------------------------------------------------------------------------------------
namespace cuda {
/// torch::cuda::is_available(): a GPU is there. Kindling's simulated device is always there
/// (kindling::cuda::is_available()); LibTorch's programs ask this to choose where to train,
/// so here it is true only in a program built with the GPU's kernels on a machine with one.
inline bool is_available() {
  return ::kindling::cuda::kernels_built_for_device() && ::kindling::cuda::device_count() > 0;
}
/// torch::cuda::device_count().
inline int device_count() { return is_available() ? ::kindling::cuda::device_count() : 0; }
}  // namespace cuda
}  // namespace torch
