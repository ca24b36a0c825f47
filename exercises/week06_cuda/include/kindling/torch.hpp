#pragma once
/// @file torch.hpp
/// LibTorch's spellings over Kindling's engine: `#include <kindling/torch.hpp>` in place of
/// `#include <torch/torch.h>`, and a program written for LibTorch's C++ frontend compiles
/// against Kindling, within the subset listed in docs/libtorch.md.
///
/// Everything here translates; nothing computes. `torch::` sees all of `kindling::` (its
/// tensors, factories, operations, autograd), and adds what LibTorch spells differently:
/// options with `requires_grad`, the dtype and device constants, module holders
/// (`torch::nn::Linear fc{nullptr}`, `fc->weight`, `fc(x)`, `TORCH_MODULE`), options builders
/// (`Conv2dOptions(1, 10, 5).stride(2)`, `SGDOptions(0.01).momentum(0.5)`), the ATen functions
/// at `torch::` (`nll_loss` with `Reduction::Sum`, `max_pool2d`, `dropout`), and the data
/// pipeline of `torch::data` (`MNIST`, `.map(Normalize<>(...))`, `.map(Stack<>())`,
/// `make_data_loader`, batches with `.data` and `.target`).
///
/// Kindling's own names stay the teaching API (modules are values you hold in a
/// std::shared_ptr; optimizers take a Config struct; the DataLoader takes a dataset pointer
/// and options): this header is the bridge for code that was written for LibTorch.
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
#include <kindling/data.hpp>
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

// ---- in-place operators (LibTorch's Tensor has them; Kindling teaches add_ and x = x + y) -----
// In namespace kindling, beside Tensor, so that argument-dependent lookup finds them from any
// namespace; they exist only where torch.hpp is included.
namespace kindling {
/// a.add_(b).
inline Tensor& operator+=(Tensor& a, const Tensor& b) {
  a.add_(b);
  return a;
}
/// a.add_(b).
inline Tensor& operator+=(Tensor& a, const Scalar& b) {
  a.add_(b);
  return a;
}
/// a.sub_(b).
inline Tensor& operator-=(Tensor& a, const Tensor& b) {
  a.sub_(b);
  return a;
}
/// a.mul_(b).
inline Tensor& operator*=(Tensor& a, const Tensor& b) {
  a.mul_(b);
  return a;
}
/// a.mul_(b).
inline Tensor& operator*=(Tensor& a, const Scalar& b) {
  a.mul_(b);
  return a;
}
/// a.div_(b).
inline Tensor& operator/=(Tensor& a, const Scalar& b) {
  a.div_(b);
  return a;
}
/// Comparisons as operators (LibTorch's spelling of gt, lt, ge, le, eq, ne).
inline Tensor operator>(const Tensor& a, const Tensor& b) { return gt(a, b); }
inline Tensor operator>(const Tensor& a, const Scalar& b) { return gt(a, b); }   ///< gt
inline Tensor operator<(const Tensor& a, const Tensor& b) { return lt(a, b); }   ///< lt
inline Tensor operator<(const Tensor& a, const Scalar& b) { return lt(a, b); }   ///< lt
inline Tensor operator>=(const Tensor& a, const Tensor& b) { return ge(a, b); }  ///< ge
inline Tensor operator>=(const Tensor& a, const Scalar& b) { return ge(a, b); }  ///< ge
inline Tensor operator<=(const Tensor& a, const Tensor& b) { return le(a, b); }  ///< le
inline Tensor operator<=(const Tensor& a, const Scalar& b) { return le(a, b); }  ///< le
inline Tensor operator==(const Tensor& a, const Tensor& b) { return eq(a, b); }  ///< eq
inline Tensor operator==(const Tensor& a, const Scalar& b) { return eq(a, b); }  ///< eq
inline Tensor operator!=(const Tensor& a, const Tensor& b) { return ne(a, b); }  ///< ne
inline Tensor operator!=(const Tensor& a, const Scalar& b) { return ne(a, b); }  ///< ne
}  // namespace kindling

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

// ---- nn: module holders and options builders ----------------------------------------------------------------
namespace nn {
using namespace ::kindling::nn;  // NOLINT(google-build-using-namespace): functional, init, the Impl classes

/// A shared pointer to a module, used with `->` and called like a function (LibTorch's
/// ModuleHolder). `Holder h{nullptr}` holds nothing yet.
template <class Impl>
class ModuleHolder {
 public:
  /// A default-constructed module.
  ModuleHolder() : impl_(std::make_shared<Impl>()) {}
  /// Holds nothing (assign a module later).
  ModuleHolder(std::nullptr_t) {}  // NOLINT(google-explicit-constructor)
  /// Holds `impl`.
  ModuleHolder(std::shared_ptr<Impl> impl) : impl_(std::move(impl)) {}  // NOLINT(google-explicit-constructor)
  /// A module made from `args`.
  template <class First, class... Rest>
  requires(!std::is_same_v<std::remove_cvref_t<First>, ModuleHolder> &&
           !std::is_same_v<std::remove_cvref_t<First>, std::nullptr_t> &&
           !std::is_same_v<std::remove_cvref_t<First>, std::shared_ptr<Impl>>) explicit ModuleHolder(First&& first,
                                                                                                     Rest&&... rest)
      : impl_(std::make_shared<Impl>(std::forward<First>(first), std::forward<Rest>(rest)...)) {}
  /// The module.
  Impl* operator->() const { return impl_.get(); }
  /// The module.
  Impl& operator*() const { return *impl_; }
  /// The pointer.
  const std::shared_ptr<Impl>& ptr() const { return impl_; }
  /// The module.
  Impl* get() const { return impl_.get(); }
  /// True when it holds nothing.
  bool is_empty() const { return impl_ == nullptr; }
  /// The module as Kindling's containers take it (nn::Sequential of holders).
  operator std::shared_ptr<::kindling::nn::Module>() const { return impl_; }  // NOLINT(google-explicit-constructor)
  /// The module's forward.
  template <class... Args>
  auto operator()(Args&&... args) const {
    return impl_->forward(std::forward<Args>(args)...);
  }

 private:
  std::shared_ptr<Impl> impl_;
};

/// LibTorch's torch::nn::Module: Kindling's, with register_module and replace_module taking a holder.
class Module : public ::kindling::nn::Module {
 public:
  /// A module printed as `name`.
  explicit Module(std::string name = "Module") : ::kindling::nn::Module(std::move(name)) {}
  using ::kindling::nn::Module::register_module;
  using ::kindling::nn::Module::replace_module;
  /// Registers the held module and returns it, as LibTorch does (so that `fc = register_module("fc",
  /// Linear(8, 2))` assigns a member holder).
  template <class Impl>
  std::shared_ptr<Impl> register_module(const std::string& name, ModuleHolder<Impl> holder) {
    return ::kindling::nn::Module::register_module(name, holder.ptr());
  }
  /// Puts the held module in the place of child `name` and returns it.
  template <class Impl>
  std::shared_ptr<Impl> replace_module(const std::string& name, ModuleHolder<Impl> holder) {
    return ::kindling::nn::Module::replace_module(name, holder.ptr());
  }
};

/// LinearOptions(in, out).bias(false).
class LinearOptions {
 public:
  /// in_features, out_features.
  LinearOptions(std::int64_t in, std::int64_t out) : in_(in), out_(out) {}
  /// With or without a bias.
  LinearOptions& bias(bool on) {
    bias_ = on;
    return *this;
  }
  std::int64_t in_features() const { return in_; }    ///< in_features
  std::int64_t out_features() const { return out_; }  ///< out_features
  bool bias() const { return bias_; }                 ///< the bias flag

 private:
  std::int64_t in_, out_;
  bool bias_ = true;
};
/// The module a torch::nn::Linear holds.
class LinearImpl : public ::kindling::nn::Linear {
 public:
  /// in_features, out_features.
  LinearImpl(std::int64_t in, std::int64_t out) : ::kindling::nn::Linear(in, out) {}
  /// From options.
  explicit LinearImpl(const LinearOptions& o) : ::kindling::nn::Linear(o.in_features(), o.out_features(), o.bias()) {}
};

/// Conv2dOptions(in, out, kernel).stride(s).padding(p).dilation(d).groups(g).bias(b).
class Conv2dOptions {
 public:
  /// in_channels, out_channels, kernel_size.
  Conv2dOptions(std::int64_t in, std::int64_t out, Pair2 kernel) : in_(in), out_(out), kernel_(kernel) {}
  Conv2dOptions& stride(Pair2 v) {  ///< the stride
    o_.stride = v;
    return *this;
  }
  Conv2dOptions& padding(Pair2 v) {  ///< the padding
    o_.padding = v;
    return *this;
  }
  Conv2dOptions& dilation(Pair2 v) {  ///< the dilation
    o_.dilation = v;
    return *this;
  }
  Conv2dOptions& groups(std::int64_t v) {  ///< the groups
    o_.groups = v;
    return *this;
  }
  Conv2dOptions& bias(bool v) {  ///< the bias flag
    o_.bias = v;
    return *this;
  }
  std::int64_t in_channels() const { return in_; }                  ///< in_channels
  std::int64_t out_channels() const { return out_; }                ///< out_channels
  Pair2 kernel_size() const { return kernel_; }                     ///< kernel_size
  const ::kindling::nn::Conv2dOptions& rest() const { return o_; }  ///< Kindling's options

 private:
  std::int64_t in_, out_;
  Pair2 kernel_;
  ::kindling::nn::Conv2dOptions o_;
};
/// The module a torch::nn::Conv2d holds.
class Conv2dImpl : public ::kindling::nn::Conv2d {
 public:
  /// in, out, kernel.
  Conv2dImpl(std::int64_t in, std::int64_t out, Pair2 kernel) : ::kindling::nn::Conv2d(in, out, kernel) {}
  /// From options.
  explicit Conv2dImpl(const Conv2dOptions& o)
      : ::kindling::nn::Conv2d(o.in_channels(), o.out_channels(), o.kernel_size(), o.rest()) {}
};

/// ConvTranspose2dOptions(in, out, kernel).stride(s).padding(p).output_padding(o).dilation(d).bias(b).
class ConvTranspose2dOptions {
 public:
  /// in_channels, out_channels, kernel_size.
  ConvTranspose2dOptions(std::int64_t in, std::int64_t out, Pair2 kernel) : in_(in), out_(out), kernel_(kernel) {}
  ConvTranspose2dOptions& stride(Pair2 v) {  ///< the stride
    o_.stride = v;
    return *this;
  }
  ConvTranspose2dOptions& padding(Pair2 v) {  ///< the padding
    o_.padding = v;
    return *this;
  }
  ConvTranspose2dOptions& output_padding(Pair2 v) {  ///< the output padding
    o_.output_padding = v;
    return *this;
  }
  ConvTranspose2dOptions& dilation(Pair2 v) {  ///< the dilation
    o_.dilation = v;
    return *this;
  }
  ConvTranspose2dOptions& bias(bool v) {  ///< the bias flag
    o_.bias = v;
    return *this;
  }
  std::int64_t in_channels() const { return in_; }                           ///< in_channels
  std::int64_t out_channels() const { return out_; }                         ///< out_channels
  Pair2 kernel_size() const { return kernel_; }                              ///< kernel_size
  const ::kindling::nn::ConvTranspose2dOptions& rest() const { return o_; }  ///< Kindling's options

 private:
  std::int64_t in_, out_;
  Pair2 kernel_;
  ::kindling::nn::ConvTranspose2dOptions o_;
};
/// The module a torch::nn::ConvTranspose2d holds.
class ConvTranspose2dImpl : public ::kindling::nn::ConvTranspose2d {
 public:
  /// in, out, kernel.
  ConvTranspose2dImpl(std::int64_t in, std::int64_t out, Pair2 kernel)
      : ::kindling::nn::ConvTranspose2d(in, out, kernel) {}
  /// From options.
  explicit ConvTranspose2dImpl(const ConvTranspose2dOptions& o)
      : ::kindling::nn::ConvTranspose2d(o.in_channels(), o.out_channels(), o.kernel_size(), o.rest()) {}
};

/// The module a torch::nn::BatchNorm2d holds.
class BatchNorm2dImpl : public ::kindling::nn::BatchNorm2d {
 public:
  /// num_features.
  explicit BatchNorm2dImpl(std::int64_t features) : ::kindling::nn::BatchNorm2d(features) {}
};

/// The module a torch::nn::Dropout holds.
class DropoutImpl : public ::kindling::nn::Dropout {
 public:
  /// With probability p.
  explicit DropoutImpl(double prob = 0.5) : ::kindling::nn::Dropout(prob) {}
};
/// Dropout of whole channels (torch::nn::Dropout2d; LibTorch's FeatureDropout is its old name).
class Dropout2dImpl : public ::kindling::nn::Module {
 public:
  /// With probability p.
  explicit Dropout2dImpl(double prob = 0.5) : ::kindling::nn::Module("Dropout2d"), p(prob) {}
  /// torch::feature_dropout(x, p, is_training()).
  Tensor forward(const Tensor& x) override { return torch::feature_dropout(x, p, is_training()); }
  double p;  ///< the probability of dropping a channel
};
using FeatureDropoutImpl = Dropout2dImpl;  ///< LibTorch's old name

/// LeakyReLUOptions().negative_slope(s).
class LeakyReLUOptions {
 public:
  LeakyReLUOptions& negative_slope(double v) {  ///< the slope below 0
    slope_ = v;
    return *this;
  }
  double negative_slope() const { return slope_; }  ///< the slope below 0

 private:
  double slope_ = 0.01;
};
/// The module a torch::nn::LeakyReLU holds.
class LeakyReLUImpl : public ::kindling::nn::LeakyReLU {
 public:
  /// From options.
  explicit LeakyReLUImpl(const LeakyReLUOptions& o = {}) : ::kindling::nn::LeakyReLU(o.negative_slope()) {}
};
/// The module a torch::nn::Sigmoid holds.
class SigmoidImpl : public ::kindling::nn::Sigmoid {
 public:
  SigmoidImpl() = default;  ///< Sigmoid
};
/// The module a torch::nn::Tanh holds.
class TanhImpl : public ::kindling::nn::Tanh {
 public:
  TanhImpl() = default;  ///< Tanh
};
/// The module a torch::nn::Functional holds: a function as a module (for a Sequential), e.g.
/// `nn::Functional(torch::relu)` or a lambda.
class FunctionalImpl : public ::kindling::nn::Module {
 public:
  /// Wraps `fn`.
  explicit FunctionalImpl(std::function<Tensor(const Tensor&)> fn)
      : ::kindling::nn::Module("Functional"), fn_(std::move(fn)) {}
  /// Wraps a function of a tensor (an overload set such as torch::relu picks this one).
  explicit FunctionalImpl(Tensor (*fn)(const Tensor&)) : FunctionalImpl(std::function<Tensor(const Tensor&)>(fn)) {}
  /// fn(x).
  Tensor forward(const Tensor& x) override { return fn_(x); }

 private:
  std::function<Tensor(const Tensor&)> fn_;
};

/// The module a torch::nn::Sequential holds: Kindling's, built from holders or modules.
class SequentialImpl : public ::kindling::nn::Sequential {
 public:
  using ::kindling::nn::Sequential::Sequential;
};

/// The module a torch::nn::ReLU holds.
class ReLUImpl : public ::kindling::nn::ReLU {
 public:
  ReLUImpl() = default;  ///< ReLU
};

/// The module a torch::nn::MSELoss holds.
class MSELossImpl : public ::kindling::nn::MSELoss {
 public:
  MSELossImpl() = default;  ///< mean reduction
};
/// The module a torch::nn::CrossEntropyLoss holds.
class CrossEntropyLossImpl : public ::kindling::nn::CrossEntropyLoss {
 public:
  CrossEntropyLossImpl() = default;  ///< mean reduction
};

}  // namespace nn
}  // namespace torch

/// LibTorch's macro: `TORCH_MODULE(Net)` makes `Net` the holder of `NetImpl`.
#define TORCH_MODULE(Name)                                     \
  class Name : public ::torch::nn::ModuleHolder<Name##Impl> {  \
   public:                                                     \
    using ::torch::nn::ModuleHolder<Name##Impl>::ModuleHolder; \
  }

namespace torch::nn {
/// torch::nn::Linear: the holder of LinearImpl.
TORCH_MODULE(Linear);
/// torch::nn::Conv2d: the holder of Conv2dImpl.
TORCH_MODULE(Conv2d);
/// torch::nn::ConvTranspose2d: the holder of ConvTranspose2dImpl.
TORCH_MODULE(ConvTranspose2d);
/// torch::nn::BatchNorm2d: the holder of BatchNorm2dImpl.
TORCH_MODULE(BatchNorm2d);
/// torch::nn::Dropout: the holder of DropoutImpl.
TORCH_MODULE(Dropout);
/// torch::nn::Dropout2d: the holder of Dropout2dImpl.
TORCH_MODULE(Dropout2d);
/// torch::nn::FeatureDropout: the holder of FeatureDropoutImpl.
TORCH_MODULE(FeatureDropout);
/// torch::nn::LeakyReLU: the holder of LeakyReLUImpl.
TORCH_MODULE(LeakyReLU);
/// torch::nn::Sigmoid: the holder of SigmoidImpl.
TORCH_MODULE(Sigmoid);
/// torch::nn::Tanh: the holder of TanhImpl.
TORCH_MODULE(Tanh);
/// torch::nn::Functional: the holder of FunctionalImpl.
TORCH_MODULE(Functional);
/// torch::nn::Sequential: the holder of SequentialImpl.
TORCH_MODULE(Sequential);
/// torch::nn::ReLU: the holder of ReLUImpl.
TORCH_MODULE(ReLU);
/// torch::nn::MSELoss: the holder of MSELossImpl.
TORCH_MODULE(MSELoss);
/// torch::nn::CrossEntropyLoss: the holder of CrossEntropyLossImpl.
TORCH_MODULE(CrossEntropyLoss);
}  // namespace torch::nn

// ---- optim ---------------------------------------------------------------------------------------------------
namespace torch::optim {
using namespace ::kindling::optim;  // NOLINT(google-build-using-namespace): Optimizer, the schedulers

/// SGDOptions(lr).momentum(m).dampening(d).weight_decay(w).nesterov(b).
class SGDOptions {
 public:
  /// The learning rate.
  explicit SGDOptions(double lr) { c_.lr = lr; }
  SGDOptions& momentum(double v) {  ///< momentum
    c_.momentum = v;
    return *this;
  }
  SGDOptions& dampening(double v) {  ///< dampening
    c_.dampening = v;
    return *this;
  }
  SGDOptions& weight_decay(double v) {  ///< weight decay
    c_.weight_decay = v;
    return *this;
  }
  SGDOptions& nesterov(bool v) {  ///< Nesterov momentum
    c_.nesterov = v;
    return *this;
  }
  const ::kindling::optim::SGD::Config& config() const { return c_; }  ///< Kindling's config

 private:
  ::kindling::optim::SGD::Config c_;
};
/// torch::optim::SGD.
class SGD : public ::kindling::optim::SGD {
 public:
  /// With options.
  SGD(std::vector<Tensor> params, const SGDOptions& o) : ::kindling::optim::SGD(std::move(params), o.config()) {}
  /// With a learning rate.
  SGD(std::vector<Tensor> params, double lr) : SGD(std::move(params), SGDOptions(lr)) {}
};

/// AdamOptions(lr).betas({b1, b2}).eps(e).weight_decay(w).amsgrad(b).
class AdamOptions {
 public:
  /// The learning rate.
  explicit AdamOptions(double lr = 1e-3) { c_.lr = lr; }
  AdamOptions& betas(std::tuple<double, double> v) {  ///< betas (LibTorch's type: `{0.5, 0.999}` or make_tuple)
    c_.betas = {std::get<0>(v), std::get<1>(v)};
    return *this;
  }
  AdamOptions& eps(double v) {  ///< eps
    c_.eps = v;
    return *this;
  }
  AdamOptions& weight_decay(double v) {  ///< weight decay
    c_.weight_decay = v;
    return *this;
  }
  AdamOptions& amsgrad(bool v) {  ///< amsgrad
    c_.amsgrad = v;
    return *this;
  }
  const ::kindling::optim::Adam::Config& config() const { return c_; }  ///< Kindling's config

 private:
  ::kindling::optim::Adam::Config c_;
};
/// torch::optim::Adam.
class Adam : public ::kindling::optim::Adam {
 public:
  /// With options.
  Adam(std::vector<Tensor> params, const AdamOptions& o = AdamOptions())
      : ::kindling::optim::Adam(std::move(params), o.config()) {}
};

/// AdamWOptions(lr): AdamOptions with AdamW's default weight_decay, 1e-2.
class AdamWOptions : public AdamOptions {
 public:
  /// The learning rate.
  explicit AdamWOptions(double lr = 1e-3) : AdamOptions(lr) { weight_decay(1e-2); }
};
/// torch::optim::AdamW: Adam with decoupled weight decay.
class AdamW : public ::kindling::optim::AdamW {
 public:
  /// With options (AdamWOptions, or AdamOptions after a builder call returned that type).
  AdamW(std::vector<Tensor> params, const AdamOptions& o = AdamWOptions())
      : ::kindling::optim::AdamW(std::move(params), o.config()) {}
};

// LibTorch's schedulers live in torch::optim itself.
using ::kindling::optim::lr_scheduler::LRScheduler;
using ::kindling::optim::lr_scheduler::StepLR;
}  // namespace torch::optim

// ---- data -------------------------------------------------------------------------------------------------------
namespace torch::data {

/// One example, or a batch stacked into one: LibTorch's Example<Data, Target>.
template <class Data = Tensor, class Target = Tensor>
struct Example {
  Data data;      ///< the input
  Target target;  ///< the label
};

namespace transforms {
/// Normalize<>(mean, stddev): (data - mean) / stddev on each example.
template <class Target = Tensor>
struct Normalize {
  /// One mean and one standard deviation for every channel.
  Normalize(double mean_, double stddev_) : mean(mean_), stddev(stddev_) {}
  /// The example, normalized.
  Example<Tensor, Target> operator()(Example<Tensor, Target> e) const {
    e.data = (e.data - mean) / stddev;
    return e;
  }
  double mean;    ///< subtracted
  double stddev;  ///< divided by
};
/// Stack<>(): a batch of examples becomes one example of stacked tensors.
template <class E = Example<>>
struct Stack {};
}  // namespace transforms

namespace samplers {
struct SequentialSampler {};  ///< the examples in order
struct RandomSampler {};      ///< a random permutation each epoch
}  // namespace samplers

namespace datasets {
/// A dataset whose examples go through `transform` (what `.map(...)` returns).
template <class Source, class Transform>
class MapDataset;

/// The base of LibTorch-style datasets: `.map(transform)`.
template <class Self>
class Dataset {
 public:
  /// The dataset with `transform` applied to each example (or, for Stack, to each batch).
  template <class Transform>
  MapDataset<Self, Transform> map(Transform transform) && {
    return MapDataset<Self, Transform>(std::move(static_cast<Self&>(*this)), std::move(transform));
  }
};

/// MNIST in LibTorch's form: images (1, 28, 28) float in [0, 1], labels int64, read by
/// Kindling's IDX reader from root/{train,t10k}-{images-idx3,labels-idx1}-ubyte[.gz].
class MNIST : public Dataset<MNIST> {
 public:
  /// Which half.
  enum class Mode { kTrain, kTest };
  /// The training or the test half of the files in `root`.
  explicit MNIST(const std::string& root, Mode mode = Mode::kTrain)
      : data_(std::make_shared<::kindling::data::FashionMNIST>(root, mode == Mode::kTrain)) {}
  /// Example `index`.
  Example<> get(std::size_t index) const {
    const auto i = static_cast<std::int64_t>(index);
    return {data_->images()[i].to(kFloat32).div(255).unsqueeze(0), data_->labels()[i]};
  }
  /// The number of examples.
  std::optional<std::size_t> size() const { return static_cast<std::size_t>(data_->size()); }

 private:
  std::shared_ptr<::kindling::data::FashionMNIST> data_;
};

template <class Source, class Transform>
class MapDataset : public Dataset<MapDataset<Source, Transform>> {
 public:
  /// `source` with `transform`.
  MapDataset(Source source, Transform transform) : source_(std::move(source)), transform_(std::move(transform)) {}
  /// Example `index`, transformed.
  auto get(std::size_t index) const { return transform_(source_.get(index)); }
  /// The number of examples.
  std::optional<std::size_t> size() const { return source_.size(); }
  /// The examples at `indices`, as a batch.
  auto get_batch(const std::vector<std::size_t>& indices) const {
    std::vector<decltype(get(0))> out;
    for (std::size_t i : indices) out.push_back(get(i));
    return out;
  }

 private:
  Source source_;
  Transform transform_;
};

/// Stack: a batch is one example of stacked tensors.
template <class Source, class E>
class MapDataset<Source, transforms::Stack<E>> : public Dataset<MapDataset<Source, transforms::Stack<E>>> {
 public:
  /// `source`, stacked.
  MapDataset(Source source, transforms::Stack<E>) : source_(std::move(source)) {}
  /// The number of examples.
  std::optional<std::size_t> size() const { return source_.size(); }
  /// The examples at `indices`, stacked along a new first dim.
  Example<> get_batch(const std::vector<std::size_t>& indices) const {
    TensorList data, target;
    for (std::size_t i : indices) {
      auto e = source_.get(i);
      data.push_back(e.data);
      target.push_back(e.target);
    }
    return {stack(data, 0), stack(target, 0)};
  }

 private:
  Source source_;
};
}  // namespace datasets

/// DataLoaderOptions().batch_size(64).workers(2).drop_last(true).
class DataLoaderOptions {
 public:
  /// Batches of `batch_size`.
  explicit DataLoaderOptions(std::size_t batch_size = 1) : batch_size_(batch_size) {}
  DataLoaderOptions& batch_size(std::size_t v) {  ///< examples per batch
    batch_size_ = v;
    return *this;
  }
  /// Accepted and ignored: this loader reads in the calling thread (Kindling's own
  /// data::DataLoader has the workers of week 4).
  DataLoaderOptions& workers(std::size_t) { return *this; }
  DataLoaderOptions& drop_last(bool v) {  ///< leave out a last, smaller batch
    drop_last_ = v;
    return *this;
  }
  std::size_t batch_size() const { return batch_size_; }  ///< examples per batch
  bool drop_last() const { return drop_last_; }           ///< the drop_last flag

 private:
  std::size_t batch_size_;
  bool drop_last_ = false;
};

/// The loader make_data_loader returns: iterate it for batches.
template <class Dataset, class Sampler>
class StatelessDataLoader {
 public:
  /// Over `dataset`.
  StatelessDataLoader(Dataset dataset, DataLoaderOptions options) : dataset_(std::move(dataset)), options_(options) {}
  /// A batch type: what the dataset's get_batch returns.
  using Batch = decltype(std::declval<const Dataset&>().get_batch(std::vector<std::size_t>{}));
  /// Walks one epoch (a new order for a RandomSampler each time).
  class Iterator {
   public:
    /// At batch `at` of `order` (an end iterator, with no order, loads nothing).
    Iterator(const StatelessDataLoader* loader, std::vector<std::size_t> order, std::size_t at)
        : loader_(loader), order_(std::move(order)), at_(at) {
      if (!order_.empty()) load();
    }
    Batch& operator*() { return batch_; }    ///< the batch
    Batch* operator->() { return &batch_; }  ///< the batch
    Iterator& operator++() {                 ///< the next batch
      at_ += loader_->options_.batch_size();
      load();
      return *this;
    }
    bool operator!=(const Iterator& other) const { return at_ != other.at_; }  ///< not the end yet
    bool operator==(const Iterator& other) const { return at_ == other.at_; }  ///< the end

   private:
    void load() {
      const std::size_t n = order_.size(), b = loader_->options_.batch_size();
      if (at_ >= n || (loader_->options_.drop_last() && at_ + b > n)) {
        at_ = n;
        return;
      }
      const std::vector<std::size_t> indices(order_.begin() + static_cast<std::ptrdiff_t>(at_),
                                             order_.begin() + static_cast<std::ptrdiff_t>(std::min(n, at_ + b)));
      batch_ = loader_->dataset_.get_batch(indices);
    }
    const StatelessDataLoader* loader_;
    std::vector<std::size_t> order_;
    std::size_t at_;
    Batch batch_{};
  };
  /// The first batch of an epoch.
  Iterator begin() const { return Iterator(this, order(), 0); }
  /// Past the last batch.
  Iterator end() const { return Iterator(this, {}, dataset_.size().value()); }

 private:
  std::vector<std::size_t> order() const {
    const std::size_t n = dataset_.size().value();
    std::vector<std::size_t> o(n);
    if constexpr (std::is_same_v<Sampler, samplers::RandomSampler>) {
      const auto perm = randperm(static_cast<std::int64_t>(n)).template to_vector<std::int64_t>();
      for (std::size_t i = 0; i < n; ++i) o[i] = static_cast<std::size_t>(perm[i]);
    } else {
      for (std::size_t i = 0; i < n; ++i) o[i] = i;
    }
    return o;
  }
  Dataset dataset_;
  DataLoaderOptions options_;
};

/// make_data_loader<Sampler>(dataset, batch_size or options): a loader, held by a unique_ptr
/// as in LibTorch. The default sampler is RandomSampler, as in LibTorch.
template <class Sampler = samplers::RandomSampler, class Dataset>
std::unique_ptr<StatelessDataLoader<Dataset, Sampler>> make_data_loader(Dataset dataset, DataLoaderOptions options) {
  return std::make_unique<StatelessDataLoader<Dataset, Sampler>>(std::move(dataset), options);
}
/// See above.
template <class Sampler = samplers::RandomSampler, class Dataset>
std::unique_ptr<StatelessDataLoader<Dataset, Sampler>> make_data_loader(Dataset dataset, std::size_t batch_size) {
  return make_data_loader<Sampler>(std::move(dataset), DataLoaderOptions(batch_size));
}

}  // namespace torch::data

// ---- save and load -----------------------------------------------------------------------------------------
namespace torch {
/// torch::save(module, path): its parameters and buffers in Kindling's checkpoint format
/// (safetensors; week 5), which torch::load and kindling::load_checkpoint read.
template <class Impl>
void save(const nn::ModuleHolder<Impl>& module, const std::string& path) {
  ::kindling::serialize::save_checkpoint(path, *module, nullptr, 0);
}
/// torch::load(module, path): what torch::save wrote, into the module (every key must fit).
template <class Impl>
void load(const nn::ModuleHolder<Impl>& module, const std::string& path) {
  ::kindling::serialize::load_checkpoint(path, *module, nullptr);
}
/// torch::save(optimizer, path): its state dict in PyTorch's layout (week 5's checkpoint, without
/// a model).
inline void save(::kindling::optim::Optimizer& optimizer, const std::string& path) {
  ::kindling::serialize::TrainingState state;
  state.optimizer = &optimizer;
  ::kindling::serialize::save_checkpoint(path, state);
}
/// torch::load(optimizer, path): what torch::save(optimizer, path) wrote.
inline void load(::kindling::optim::Optimizer& optimizer, const std::string& path) {
  ::kindling::serialize::TrainingState state;
  state.optimizer = &optimizer;
  ::kindling::serialize::load_checkpoint(path, state);
}
/// torch::save(tensor, path): one tensor, named "tensor", in a safetensors file.
inline void save(const Tensor& t, const std::string& path) {
  ::kindling::serialize::FileContents contents;
  contents.tensors["tensor"] = t.detach().cpu().contiguous();
  ::kindling::serialize::save_file(path, contents);
}
/// torch::load(tensor, path): what torch::save(tensor, path) wrote.
inline void load(Tensor& t, const std::string& path) {
  t = ::kindling::serialize::load_file(path).tensors.at("tensor");
}
}  // namespace torch
