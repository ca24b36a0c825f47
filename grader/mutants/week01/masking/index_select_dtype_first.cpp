// MUTANT: checks the index dtype before its dim count, so a 2-d float index gets the dtype error, not IndexError
// Task week01.masking. The doc comment above each function is its contract; your code
// goes between BEGIN and END. Hints, one at a time: `./grade hint week01.masking`.

#include <kindling/error.hpp>  // KINDLING_TODO, which the worksheet's stubs call
#include <kindling/factory.hpp>
#include <kindling/join.hpp>

#include "autograd_hooks.hpp"
#include "internal.hpp"

// Selecting with a list of indices or a boolean mask gathers elements from all over
// the input, so unlike a slice it cannot be a view: these functions copy. Useful:
// empty({n}, dtype) for the result, to_vector<T>() to read any tensor in row-major
// order, expand() to broadcast a mask, select(dim, i) to pick whole slices,
// detail::copy(dst, src) (internal.hpp: copy_ without the version bump, for a result
// you are still building, which starts at version 0 as in PyTorch), and the
// strided-access arithmetic of week01.strided_access to write through any layout.

namespace kindling {

/// `torch.index_select(x, dim, index)`: the entries `index[0], index[1], ...` of
/// dimension `dim` of x, in that order (repeats allowed), copied into a new
/// contiguous tensor of x's dtype. The result has x's shape with size
/// index.numel() at `dim`; a 0-d x counts as having one entry (its dim is 0 or -1)
/// and gives a 0-d result. `dim` may be negative (wrap_dim).
/// Errors, word for word (PyTorch 1.13), checked in this order:
/// - index with more than one dimension: IndexError "index_select(): Index is
///   supposed to be a vector";
/// - index neither int64 nor int32: kindling::Error "index_select(): Expected dtype
///   int32 or int64 for index";
/// - an entry outside [0, size of dim) (negative entries are errors too; the first
///   bad entry is reported): when `dim` is 1 of a tensor with 2 or more dims,
///   kindling::Error "INDICES element is out of DATA bounds, id=7 axis_dim=4";
///   otherwise IndexError "index out of range in self".
Tensor index_select(const Tensor& x, std::int64_t dim, const Tensor& index) {
  // The recorded op (week 2) needs the wrapped dim; the work happens in the lambda.
  const std::int64_t d = wrap_dim(dim, std::max<std::int64_t>(x.dim(), 1));
  return detail::autograd::differentiable(
      detail::autograd::Op::IndexSelect, {x},
      [&]() -> Tensor {
        if (!x.device().is_cpu()) return detail::index_select_on_device(x, d, index);  // week 6's kernel
        // BEGIN SOLUTION week01.masking
        KINDLING_CHECK(index.dtype() == kInt64 || index.dtype() == kInt32,
                       "index_select(): Expected dtype int32 or int64 for index");
        KINDLING_CHECK_AS(IndexError, index.dim() <= 1, "index_select(): Index is supposed to be a vector");
        const auto idx = index.to_vector<std::int64_t>();
        const std::int64_t size = x.dim() > 0 ? x.sizes()[d] : 1;
        for (const std::int64_t i : idx) {
          if (i >= 0 && i < size) continue;
          KINDLING_CHECK(!(x.dim() >= 2 && d == 1), "INDICES element is out of DATA bounds, id=", i,
                         " axis_dim=", size);
          throw IndexError("index out of range in self");
        }
        if (x.dim() == 0) return x.clone();
        Shape shape = x.sizes().vec();
        shape[d] = static_cast<std::int64_t>(idx.size());
        Tensor out = empty(shape, x.dtype());
        for (std::size_t i = 0; i < idx.size(); ++i)
          detail::copy(out.select(d, static_cast<std::int64_t>(i)), x.select(d, idx[i]));
        return out;
        // END SOLUTION
      },
      [&] { return detail::autograd::OpArgs{.dim = d, .aux = index}; });
}

namespace {
// Week 6: masked_select of tensors on a device computes on the host and moves the result back.
Tensor masked_select_through_host(const Tensor& x, const Tensor& mask) {
  const Device device = detail::common_device({&x, &mask});
  return detail::move_to(masked_select(x.cpu(), mask.cpu()), device);
}
}  // namespace

/// `torch.masked_select(x, mask)`: the elements of x where `mask` is true, as a new
/// 1-d tensor of x's dtype, in row-major order. x and mask broadcast against each
/// other first (broadcast_shapes(mask, x): the mask may also make x bigger). mask
/// is bool, or uint8 where any nonzero byte counts as true (PyTorch 1.13 still
/// accepts that, with a deprecation warning).
/// Errors (kindling::Error), word for word:
/// - another mask dtype: "masked_select: expected BoolTensor or ByteTensor for mask";
/// - shapes that do not broadcast: broadcast_shapes' message, mask as tensor a.
Tensor masked_select(const Tensor& x, const Tensor& mask) {
  if (!x.device().is_cpu() || !mask.device().is_cpu()) return masked_select_through_host(x, mask);
  // BEGIN SOLUTION week01.masking
  KINDLING_CHECK(mask.dtype() == kBool || mask.dtype() == kUInt8,
                 "masked_select: expected BoolTensor or ByteTensor for mask");
  const Shape shape = broadcast_shapes(mask.sizes(), x.sizes());
  const auto keep = mask.expand(shape).to_vector<bool>();
  std::int64_t n = 0;
  for (const bool k : keep) n += k ? 1 : 0;
  Tensor out = empty({n}, x.dtype());
  visit_dtype(x.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const auto in = x.expand(shape).to_vector<T>();
    T* o = out.data_ptr<T>();
    for (std::size_t i = 0; i < keep.size(); ++i)
      if (keep[i]) *o++ = in[i];
  });
  return out;
  // END SOLUTION
}

/// `x.masked_fill_(mask, value)`, also written `x[mask] = value`: sets the elements
/// of x where `mask` is true to `value` (converted to x's dtype as a C++ cast
/// does: 2.5 into an int64 tensor writes 2), in place, through x's own strides:
/// x may be any view, and the write must reach its storage. The mask broadcasts to
/// x's shape, never the other way: an in-place op cannot change x's shape. Then
/// record the write with x.bump_version(), as every in-place op does. mask is bool,
/// or uint8 (nonzero = true).
/// Errors (kindling::Error), word for word:
/// - another mask dtype: "masked_fill_ only supports boolean masks, but got mask
///   with dtype float" (the dtype as dtype_name writes it);
/// - shapes that do not broadcast: broadcast_shapes(x, mask)'s message;
/// - a mask that would make x bigger: "output with shape [3, 4] doesn't match the
///   broadcast shape [2, 3, 4]".
/// The function returns x itself (the same handle), as every `_` op does.
const Tensor& masked_fill_(const Tensor& x, const Tensor& mask, const Scalar& value) {
  detail::autograd::inplace(
      detail::autograd::Op::MaskedFill, x, {},
      [&] {
        // BEGIN SOLUTION week01.masking
        KINDLING_CHECK(mask.dtype() == kBool || mask.dtype() == kUInt8,
                       "masked_fill_ only supports boolean masks, but got mask with dtype ", dtype_name(mask.dtype()));
        const Shape shape = broadcast_shapes(x.sizes(), mask.sizes());
        KINDLING_CHECK(IntArrayRef(shape).equals(x.sizes()), "output with shape ", to_string(x.sizes()),
                       " doesn't match the broadcast shape ", to_string(shape));
        const auto keep = mask.expand(shape).to_vector<bool>();  // row-major, like the walk below
        visit_dtype(x.dtype(), [&](auto tag) {
          using T = typename decltype(tag)::type;
          const T v = value.to<T>();
          T* data = static_cast<T*>(x.storage().data());
          // Walk x in row-major order like an odometer, keeping the storage offset in step.
          Shape index(static_cast<std::size_t>(x.dim()), 0);
          std::int64_t offset = x.storage_offset();
          for (std::size_t i = 0; i < keep.size(); ++i) {
            if (keep[i]) data[offset] = v;
            for (std::int64_t k = x.dim() - 1; k >= 0; --k) {
              if (++index[k] < x.sizes()[k]) {
                offset += x.strides()[k];
                break;
              }
              offset -= (x.sizes()[k] - 1) * x.strides()[k];
              index[k] = 0;
            }
          }
        });
        x.bump_version();
        // END SOLUTION
      },
      [&] { return detail::autograd::OpArgs{.alpha = value, .aux = mask}; });
  return x;
}

}  // namespace kindling
