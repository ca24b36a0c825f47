// Joining, splitting and indexing: cat, stack, chunk, split, masked_fill, where.
// index_select, masked_select and masked_fill_ are the task week01.masking
// (src/tasks/masking.cpp), repeat the task week01.repeat (src/tasks/repeat.cpp), chunk
// and split the task week01.split (src/tasks/split.cpp).

#include <kindling/device_hooks.hpp>
#include <kindling/factory.hpp>
#include <kindling/join.hpp>
#include <kindling/ops.hpp>

#include "autograd_hooks.hpp"
#include "internal.hpp"
#include "loop.hpp"

namespace kindling {

using detail::autograd::differentiable;
using detail::autograd::Op;
using detail::autograd::OpArgs;

namespace {
Tensor cat_impl(const TensorList& tensors, std::int64_t dim);
Tensor where_impl(const Tensor& condition, const Tensor& a, const Tensor& b);
}  // namespace

Tensor cat(const TensorList& tensors, std::int64_t dim) {
  return detail::autograd::differentiable_list(
      Op::Cat, tensors, [&] { return cat_impl(tensors, dim); }, [&] { return OpArgs{.dim = dim}; });
}

Tensor stack(const TensorList& tensors, std::int64_t dim) {
  KINDLING_CHECK(!tensors.empty(), "stack expects a non-empty TensorList");
  const std::int64_t d = wrap_dim(dim, tensors.front().dim() + 1);
  return detail::autograd::differentiable_list(
      Op::Stack, tensors,
      [&] {
        TensorList parts;
        for (std::size_t i = 0; i < tensors.size(); ++i) {
          KINDLING_CHECK(tensors[i].sizes().equals(tensors.front().sizes()),
                         "stack expects each tensor to be equal size, but got ", to_string(tensors.front().sizes()),
                         " at entry 0 and ", to_string(tensors[i].sizes()), " at entry ", i);
          parts.push_back(tensors[i].unsqueeze(d));
        }
        return cat_impl(parts, d);
      },
      [&] { return OpArgs{.dim = d}; });
}

namespace {
Tensor cat_impl(const TensorList& tensors, std::int64_t dim) {
  KINDLING_CHECK(!tensors.empty(), "torch.cat(): expected a non-empty list of Tensors");
  // Like PyTorch, 1-d empty tensors are skipped (a legacy rule that lets torch.cat start from torch.tensor([])).
  auto skipped = [](const Tensor& t) { return t.dim() == 1 && t.numel() == 0; };
  for (std::size_t i = 0; i < tensors.size(); ++i)  // every tensor, before any other check (PyTorch's order)
    KINDLING_CHECK(tensors[i].dim() > 0, "zero-dimensional tensor (at position ", i, ") cannot be concatenated");
  const Tensor* ref = &tensors.front();
  ScalarType dtype = tensors.front().dtype();
  for (const auto& t : tensors) {
    dtype = promote_types(dtype, t.dtype());
    if (skipped(*ref) && !skipped(t)) ref = &t;
  }
  const Device device = detail::common_device(tensors);  // one device, as PyTorch requires
  if (skipped(*ref)) return empty({0}, TensorOptions(dtype).device(device));
  const std::int64_t d = wrap_dim(dim, ref->dim());
  Shape shape = ref->sizes().vec();
  shape[d] = 0;
  for (std::size_t i = 0; i < tensors.size(); ++i) {
    const Tensor& t = tensors[i];
    if (skipped(t)) continue;
    KINDLING_CHECK(t.dim() == ref->dim(), "Tensors must have same number of dimensions: got ", ref->dim(), " and ",
                   t.dim());
    for (std::int64_t k = 0; k < t.dim(); ++k)
      KINDLING_CHECK(k == d || t.sizes()[k] == ref->sizes()[k], "Sizes of tensors must match except in dimension ", d,
                     ". Expected size ", ref->sizes()[k], " but got size ", t.sizes()[k], " for tensor number ", i,
                     " in the list.");
    shape[d] += t.sizes()[d];
  }
  Tensor out = detail::empty_contiguous(shape, dtype, device);  // on a device: one device copy per input
  std::int64_t offset = 0;
  for (const auto& t : tensors) {
    if (skipped(t)) continue;
    detail::copy(out.narrow(d, offset, t.sizes()[d]), t);
    offset += t.sizes()[d];
  }
  return out;
}
}  // namespace

Tensor masked_fill(const Tensor& x, const Tensor& mask, const Scalar& value) {
  return differentiable(
      Op::MaskedFill, {x},
      [&] {
        KINDLING_CHECK(mask.dtype() == kBool || mask.dtype() == kUInt8,
                       "masked_fill_ only supports boolean masks, but got mask with dtype ", dtype_name(mask.dtype()));
        // mask ? value : x, with value in x's dtype (masked_fill_, the task week01.masking, writes in place).
        const Tensor m = mask.dtype() == kBool ? mask : ne(mask, 0);
        return where_impl(m, scalar_tensor(value, x.dtype()), x);
      },
      [&] { return OpArgs{.alpha = value, .aux = mask}; });
}

Tensor where(const Tensor& condition, const Tensor& a, const Tensor& b) {
  KINDLING_CHECK(condition.dtype() == kBool || condition.dtype() == kUInt8,
                 "where expected condition to be a boolean tensor, but got a tensor with dtype ",
                 dtype_short_name(condition.dtype()));
  // A uint8 condition (nonzero is true) is accepted, as PyTorch 1.13 accepts it with a deprecation warning.
  const Tensor c = condition.dtype() == kBool ? condition : ne(condition, 0);
  return differentiable(
      Op::Where, {a, b}, [&] { return where_impl(c, a, b); }, [&] { return OpArgs{.aux = c}; });
}

namespace {
// o[i] = c[i] ? x[i] : y[i] over one run, where x (XOne) or y (YOne) may be one value for
// every i. A function of its own, both operands loaded on every i and the condition read
// as bytes, because that is the form GCC 12 vectorises (a blend under the condition's
// mask): written inline in the loop's lambda, or with detail::select, it stayed scalar,
// 0.7 ns per element against 0.35 (ReLU's backward mask, 802,816 floats). The output is
// a fresh tensor, so it overlaps no operand.
template <class T, bool XOne, bool YOne>
[[gnu::noinline]] void where_run(T* __restrict o, const bool* __restrict c, const T* __restrict x,
                                 const T* __restrict y, std::int64_t n) {
  const auto* mask = reinterpret_cast<const unsigned char*>(c);  // a bool is one byte, 0 or 1
  for (std::int64_t i = 0; i < n; ++i) {
    const T a = XOne ? *x : x[i], b = YOne ? *y : y[i];
    o[i] = mask[i] != 0 ? a : b;
  }
}

Tensor where_impl(const Tensor& condition, const Tensor& a, const Tensor& b) {
  const ScalarType t = result_type(a, b);
  const Shape shape = detail::broadcast_pair(condition.sizes(), detail::broadcast_pair(a.sizes(), b.sizes()));
  const Device device = detail::common_device({&condition, &a, &b});
  Tensor out = detail::empty_contiguous(shape, t, device);
  const Tensor ac = a.to(t), bc = b.to(t);
  if (!device.is_cpu()) {
    if (condition.device().is_cpu()) {  // a 0-d CPU condition picks one operand for every element
      detail::copy(out, (condition.item<bool>() ? ac : bc).expand(shape));
      return out;
    }
    const auto operand = [&](const Tensor& x) { return x.device().is_cpu() ? x : x.expand(shape); };
    device_backend(device.type).where(out, condition.expand(shape), operand(ac), operand(bc));
    return out;
  }
  visit_dtype(t, [&](auto tag) {
    using T = typename decltype(tag)::type;
    detail::parallel_for_each_run<4>("where", shape, {&out, &condition, &ac, &bc},
                                     [](std::array<char*, 4> p, std::array<std::int64_t, 4> s, std::int64_t n) {
                                       // ReLU's backward is a where on the sign of its output, with a 0-d zero for `a`
                                       // (stride 0): runs of contiguous operands, and of one operand that is a single
                                       // value, go to where_run.
                                       constexpr auto st = static_cast<std::int64_t>(sizeof(T));
                                       T* o = reinterpret_cast<T*>(p[0]);
                                       const bool* c = reinterpret_cast<const bool*>(p[1]);
                                       const T* x = reinterpret_cast<const T*>(p[2]);
                                       const T* y = reinterpret_cast<const T*>(p[3]);
                                       if (s[0] == st && s[1] == 1 && s[2] == st && s[3] == st) {
                                         where_run<T, false, false>(o, c, x, y, n);
                                       } else if (s[0] == st && s[1] == 1 && s[2] == st && s[3] == 0) {
                                         where_run<T, false, true>(o, c, x, y, n);
                                       } else if (s[0] == st && s[1] == 1 && s[2] == 0 && s[3] == st) {
                                         where_run<T, true, false>(o, c, x, y, n);
                                       } else {
                                         for (std::int64_t i = 0; i < n; ++i)
                                           *reinterpret_cast<T*>(p[0] + i * s[0]) =
                                               detail::select(*reinterpret_cast<const bool*>(p[1] + i * s[1]),
                                                              *reinterpret_cast<const T*>(p[2] + i * s[2]),
                                                              *reinterpret_cast<const T*>(p[3] + i * s[3]));
                                       }
                                     });
  });
  return out;
}
}  // namespace

// repeat is the task week01.repeat (src/tasks/repeat.cpp).

}  // namespace kindling
