#pragma once
/// @file torch/utils.hpp
/// The small names of LibTorch's c10 and ATen that programs use beside tensors: TORCH_CHECK,
/// torch::optional, torch::indexing (Slice, None, Ellipsis), MemoryFormat, InferenceMode, the
/// enum tokens (torch::kSum, torch::kFanOut, torch::kReLU), elementwise torch::min and
/// torch::max, and the printing of an IntArrayRef. Part of <kindling/torch.hpp>.
#include <cstdint>
#include <optional>
#include <ostream>
#include <string_view>

#include <kindling/functional.hpp>
#include <kindling/indexing.hpp>
#include <kindling/kindling.hpp>
#include <kindling/no_grad.hpp>

/// LibTorch's check: throws kindling::Error (c10::Error) with the message's parts joined when
/// `cond` is false.
#define TORCH_CHECK(cond, ...) KINDLING_CHECK((cond), "" __VA_OPT__(, ) __VA_ARGS__)

namespace torch {
using ::kindling::cumsum;
using ::kindling::MemoryFormat;
using std::nullopt;
using std::optional;

/// torch::indexing: Python's `x[...]` spelt `x.index({Slice(0, 3), None, Ellipsis})`.
namespace indexing {
using ::kindling::indexing::Ellipsis;
using ::kindling::indexing::EllipsisIndexType;
using ::kindling::indexing::None;
using ::kindling::indexing::Slice;
using ::kindling::indexing::TensorIndex;
}  // namespace indexing

/// Inference mode: no graph is recorded while it lives (Kindling's NoGradGuard; LibTorch's
/// also skips the version counters, an optimisation the engine does not have).
class InferenceMode {
 public:
  /// Recording off (or on, with false) until the end of the scope.
  explicit InferenceMode(bool enabled = true) : prev_(::kindling::GradMode::is_enabled()) {
    ::kindling::GradMode::set_enabled(!enabled && prev_);
  }
  ~InferenceMode() { ::kindling::GradMode::set_enabled(prev_); }
  InferenceMode(const InferenceMode&) = delete;
  InferenceMode& operator=(const InferenceMode&) = delete;

 private:
  bool prev_;
};

/// LibTorch's enum tokens: each converts to the string Kindling's functions take
/// (`kaiming_normal_(w, 0, torch::kFanOut, torch::kReLU)`) or to a loss reduction.
struct EnumToken {
  std::string_view name;  ///< the value as PyTorch's Python API spells it
  /// The name, where a string is wanted.
  constexpr operator std::string_view() const { return name; }  // NOLINT(google-explicit-constructor)
};
inline constexpr EnumToken kFanIn{"fan_in"};          ///< init's mode "fan_in"
inline constexpr EnumToken kFanOut{"fan_out"};        ///< init's mode "fan_out"
inline constexpr EnumToken kReLU{"relu"};             ///< init's nonlinearity "relu"
inline constexpr EnumToken kLeakyReLU{"leaky_relu"};  ///< init's nonlinearity "leaky_relu"
inline constexpr EnumToken kTanh{"tanh"};             ///< init's nonlinearity "tanh"
inline constexpr EnumToken kSigmoid{"sigmoid"};       ///< init's nonlinearity "sigmoid"
inline constexpr EnumToken kLinear{"linear"};         ///< init's nonlinearity "linear"
inline constexpr EnumToken kMean{"mean"};             ///< a loss reduction
inline constexpr EnumToken kSum{"sum"};               ///< a loss reduction
inline constexpr EnumToken kNone{"none"};             ///< a loss reduction

/// `input` padded with `value` (or cut, where a pad is negative): `pad` holds (before, after)
/// pairs from the last dimension backwards, as torch.nn.functional.pad's constant mode.
inline Tensor constant_pad_nd(const Tensor& input, IntArrayRef pad, const Scalar& value = 0) {
  KINDLING_CHECK(pad.size() % 2 == 0, "Length of pad must be even but instead it equals ", pad.size());
  KINDLING_CHECK(static_cast<std::int64_t>(pad.size() / 2) <= input.dim(),
                 "Length of pad should be no more than twice the number of dimensions of the input. Pad length is ",
                 pad.size(), " while the input has ", input.dim(), " dimensions.");
  Tensor out = input;
  for (std::size_t k = 0; k < pad.size() / 2; ++k) {
    const std::int64_t dim = input.dim() - 1 - static_cast<std::int64_t>(k);
    const std::int64_t before = pad[2 * k], after = pad[2 * k + 1];
    if (before < 0) out = out.narrow(dim, -before, out.size(dim) + before);
    if (after < 0) out = out.narrow(dim, 0, out.size(dim) + after);
    TensorList parts;
    auto block = [&](std::int64_t n) {
      Shape s = out.sizes().vec();
      s[static_cast<std::size_t>(dim)] = n;
      return ::kindling::full(s, value, out.options());
    };
    if (before > 0) parts.push_back(block(before));
    parts.push_back(out);
    if (after > 0) parts.push_back(block(after));
    if (parts.size() > 1) out = ::kindling::cat(parts, dim);
  }
  return out;
}

/// The elementwise smaller of two tensors (torch::min(a, b), torch.minimum).
inline Tensor min(const Tensor& a, const Tensor& b) { return ::kindling::minimum(a, b); }
/// The elementwise larger of two tensors (torch::max(a, b), torch.maximum).
inline Tensor max(const Tensor& a, const Tensor& b) { return ::kindling::maximum(a, b); }
}  // namespace torch

/// ATen's own spelling of the same names (`at::indexing::Slice()`, `at::Tensor`).
namespace at {
using ::kindling::Tensor;
namespace indexing = ::torch::indexing;  // NOLINT(misc-unused-alias-decls)
}  // namespace at

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
inline Tensor& operator/=(Tensor& a, const Tensor& b) {
  a.div_(b);
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

namespace kindling {
/// An IntArrayRef as LibTorch prints it: `[2, 3]`.
inline std::ostream& operator<<(std::ostream& out, IntArrayRef sizes) { return out << to_string(sizes); }
}  // namespace kindling
