#pragma once
/// @file tensor.hpp
/// Tensor: sizes, strides and an offset into a shared Storage.

#include <atomic>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <iosfwd>
#include <memory>
#include <optional>
#include <source_location>
#include <string>
#include <tuple>
#include <vector>

#include <kindling/dtype.hpp>
#include <kindling/error.hpp>
#include <kindling/scalar.hpp>
#include <kindling/shape.hpp>
#include <kindling/storage.hpp>

namespace kindling {

/// Autograd state of a tensor. Week 1 only declares it: this is the extension
/// point through which week 2's autograd attaches to tensors.
struct AutogradMeta;
struct TensorImpl;

namespace autograd {
class Node;
class HookHandle;
}  // namespace autograd

/// The version counter that in-place operations bump, so that autograd (week 2)
/// can tell when a tensor it saved for backward was modified.
struct VersionCounter {
  std::atomic<std::uint32_t> version{0};  ///< bumped by every in-place write
  /// Week 2: the tensor (the root of its views) whose gradient history the last recorded
  /// in-place write replaced, and the name of the node it got. A saved tensor whose handles
  /// are all gone reads them to name its producer in a version error (SavedVariable).
  const TensorImpl* rewritten = nullptr;
  std::string rewritten_by;  ///< that node's name (empty: no recorded in-place write yet)
};

/// The state behind a Tensor handle.
///
/// Note: the invariants, written once. `storage` may be shared with other
/// TensorImpls (views). `sizes` and `strides` have one entry per dimension;
/// strides are in elements, may be 0 (expand) and are never negative. Every
/// element's offset `storage_offset + sum(i[d] * strides[d])` lies inside
/// `storage`. A base, all its views and its detached aliases bump one version
/// counter, which they share through `version_counter` (as in PyTorch, the
/// counter is an object of its own, not a field of the base: autograd's saved
/// variables keep it alive after every tensor handle is gone, so a write made
/// before that still counts; see SavedVariable). `view_base` is the root of a
/// chain of views (set by as_strided, not by detach): a view keeps its base alive,
/// and autograd routes an in-place write on a view to the gradient history of that
/// base.
struct TensorImpl {
  Storage storage;                                  ///< the shared buffer
  Shape sizes;                                      ///< one size per dimension
  Shape strides;                                    ///< one stride per dimension, in elements
  std::int64_t storage_offset = 0;                  ///< first element, in elements
  ScalarType dtype = kFloat32;                      ///< element type
  bool is_wrapped_number = false;                   ///< a Scalar turned into a 0-d tensor
  std::shared_ptr<VersionCounter> version_counter;  ///< bumped by in-place writes; shared with views and aliases
  std::shared_ptr<TensorImpl> view_base;            ///< the base this tensor is a view of (null: not a view)
  std::shared_ptr<AutogradMeta> autograd;           ///< week 2: grad, grad_fn, requires_grad
  /// The counter in-place writes bump (shared with the base for a view or alias).
  VersionCounter& version() { return *version_counter; }
};

class Tensor;
struct TensorOptions;
namespace indexing {
class TensorIndex;
}  // namespace indexing

/// How a copy lays out its elements (LibTorch's MemoryFormat): Contiguous is row-major;
/// ChannelsLast keeps an (N, C, H, W) tensor's shape with C varying fastest in memory (strides
/// (H·W·C, 1, W·C, C)); Preserve keeps the source's dense layout.
enum class MemoryFormat : std::int8_t { Contiguous, Preserve, ChannelsLast };

/// A list of tensors, as taken by cat and stack.
using TensorList = std::vector<Tensor>;

/// An n-dimensional array: a handle to a TensorImpl.
///
/// Copying a Tensor copies the handle, not the data (like LibTorch and like
/// Python names): `Tensor b = a;` makes `b` the same tensor. Methods ending in `_`
/// write in place and are `const` because they change the data, not the handle.
class Tensor {
 public:
  /// An undefined tensor (no storage); most methods throw on it.
  Tensor() = default;
  Tensor(const Tensor&) = default;                   ///< the same tensor (a handle copy)
  Tensor(Tensor&&) noexcept = default;               ///< the same tensor (a handle move)
  ~Tensor() = default;                               ///< drops the handle
  Tensor& operator=(const Tensor&) & = default;      ///< rebinds this name to the other tensor
  Tensor& operator=(Tensor&&) & noexcept = default;  ///< rebinds this name to the other tensor
  /// Assignment to a temporary writes values, as LibTorch's `t[i] = v` and
  /// `t.index({...}) = v` do (Python's `t[i] = v`): copy_(src), broadcast.
  const Tensor& operator=(const Tensor& src) &&;
  /// `t[i] = 5`: fill_(value).
  const Tensor& operator=(const Scalar& value) &&;
  /// Wraps an existing impl.
  explicit Tensor(std::shared_ptr<TensorImpl> impl) : impl_(std::move(impl)) {}
  /// Builds a tensor over `storage` with the given geometry (not checked: as_strided checks).
  /// It shares `version_counter` when one is given (a view, an alias), else gets a new one.
  static Tensor make(Storage storage, Shape sizes, Shape strides, std::int64_t storage_offset, ScalarType dtype,
                     std::shared_ptr<VersionCounter> version_counter = nullptr);

  /// True unless default-constructed.
  bool defined() const { return impl_ != nullptr; }
  /// The shared state (for engine code); throws when the tensor is undefined.
  TensorImpl& impl() const {
    if (impl_ == nullptr) [[unlikely]]
      throw_undefined();
    return *impl_;
  }
  /// The shared state's handle (for engine code).
  const std::shared_ptr<TensorImpl>& impl_ptr() const { return impl_; }

  // ---- metadata ------------------------------------------------------------
  /// Size of each dimension.
  IntArrayRef sizes() const { return impl().sizes; }
  /// Stride of each dimension, in elements.
  IntArrayRef strides() const { return impl().strides; }
  /// Size of dimension `dim` (negative counts from the end).
  std::int64_t size(std::int64_t dim) const;
  /// Stride of dimension `dim` (negative counts from the end).
  std::int64_t stride(std::int64_t dim) const;
  /// Number of dimensions.
  std::int64_t dim() const { return static_cast<std::int64_t>(impl().sizes.size()); }
  /// Number of elements.
  std::int64_t numel() const { return numel_of(impl().sizes); }
  /// Offset of the first element in the storage, in elements.
  std::int64_t storage_offset() const { return impl().storage_offset; }
  /// Element type.
  ScalarType dtype() const { return impl().dtype; }
  /// Element type (LibTorch's name).
  ScalarType scalar_type() const { return impl().dtype; }
  /// Bytes per element.
  std::size_t element_size() const { return kindling::element_size(dtype()); }
  /// True for float32 and float64 tensors.
  bool is_floating_point() const { return kindling::is_floating_point(dtype()); }
  /// Where the data lives.
  Device device() const { return impl().storage.device(); }
  /// The shared buffer.
  const Storage& storage() const { return impl().storage; }
  /// Address of the first element (storage data + offset).
  void* data_ptr() const;
  /// Typed address of the first element, for host code: throws if T is not the dtype, or if the
  /// tensor is not on the CPU (its memory is then a device's, which the host cannot read; the
  /// device's kernels take data_ptr(), untyped, through cuda::device_ptr).
  template <class T>
  T* data_ptr() const {
    KINDLING_CHECK(dtype_of<T>() == dtype(), "expected scalar type ", dtype_short_name(dtype_of<T>()), " but found ",
                   dtype_short_name(dtype()));
    if (!device().is_cpu()) [[unlikely]]
      throw_host_access();
    return static_cast<T*>(data_ptr());
  }
  /// Whether elements are laid out row-major without gaps (see kindling::is_contiguous).
  bool is_contiguous() const { return kindling::is_contiguous(sizes(), strides()); }
  /// True when both handles name the same tensor.
  bool is_same(const Tensor& other) const { return impl_ == other.impl_; }
  /// True when both tensors share a storage buffer.
  bool is_alias_of(const Tensor& other) const { return storage().is_alias_of(other.storage()); }
  /// True when the storage is page-locked (week 4).
  bool is_pinned() const { return storage().is_pinned(); }
  /// A contiguous copy in page-locked memory, or this tensor if it is already
  /// pinned (defined by week 4, pinned.hpp). Falls back to an ordinary copy, with
  /// a warning printed once, when the system refuses to lock more memory.
  Tensor pin_memory() const;
  /// The in-place version counter (shared with views).
  std::uint32_t version() const;
  /// Records an in-place write (called by every in-place op).
  void bump_version() const;
  /// True for a tensor made by as_strided (every view function) from another.
  bool is_view() const { return impl().view_base != nullptr; }
  /// The tensor this one is a view of (undefined if it is not a view).
  Tensor base() const { return Tensor(impl().view_base); }

  // ---- views: no data is copied (src/tasks/*.cpp) ----------------------------
  /// A view with a new shape (one entry may be -1); throws when the strides
  /// cannot express it (see compute_view_strides).
  Tensor view(IntArrayRef sizes) const;
  /// PyTorch's `_unsafe_view`: this contiguous tensor's elements with the shape
  /// `sizes` (no -1), as a tensor that is *not* a view: no base, a version counter
  /// of its own. Only for a tensor nobody else can see, such as a fresh copy:
  /// reshape() uses it when it has to copy. Autograd records UnsafeViewBackward0.
  Tensor _unsafe_view(IntArrayRef sizes) const;
  /// view(other.sizes()).
  Tensor view_as(const Tensor& other) const { return view(other.sizes()); }
  /// A view when possible, otherwise a contiguous copy with the new shape.
  Tensor reshape(IntArrayRef sizes) const;
  /// reshape(other.sizes()).
  Tensor reshape_as(const Tensor& other) const { return reshape(other.sizes()); }
  /// This tensor if contiguous, otherwise a contiguous copy.
  Tensor contiguous() const;
  /// Swaps two dimensions.
  Tensor transpose(std::int64_t dim0, std::int64_t dim1) const;
  /// Reorders all dimensions: result dim i is input dim dims[i].
  Tensor permute(IntArrayRef dims) const;
  /// Transpose of a matrix (0-d and 1-d tensors are returned as they are).
  Tensor t() const;
  /// Moves dimension `source` to position `destination`, keeping the others' order.
  Tensor movedim(std::int64_t source, std::int64_t destination) const;
  /// Removes every dimension of size 1.
  Tensor squeeze() const;
  /// Removes dimension `dim` if its size is 1.
  Tensor squeeze(std::int64_t dim) const;
  /// Inserts a dimension of size 1 at `dim`.
  Tensor unsqueeze(std::int64_t dim) const;
  /// Broadcasts to `sizes` with stride 0 on the new or size-1 dimensions; -1 keeps a size.
  Tensor expand(IntArrayRef sizes) const;
  /// expand(other.sizes()).
  Tensor expand_as(const Tensor& other) const { return expand(other.sizes()); }
  /// `length` elements of `dim` starting at `start`.
  Tensor narrow(std::int64_t dim, std::int64_t start, std::int64_t length) const;
  /// Index `index` of `dim`, removing that dimension.
  Tensor select(std::int64_t dim, std::int64_t index) const;
  /// Python's `t[start:end:step]` along `dim` (clamped like Python; step > 0).
  Tensor slice(std::int64_t dim, std::optional<std::int64_t> start = std::nullopt,
               std::optional<std::int64_t> end = std::nullopt, std::int64_t step = 1) const;
  /// select(0, index), like `t[i]`.
  Tensor operator[](std::int64_t index) const { return select(0, index); }
  /// Merges dims start..end into one (a view when possible).
  Tensor flatten(std::int64_t start_dim = 0, std::int64_t end_dim = -1) const;
  /// A view with explicit geometry over the same storage (checked to fit).
  /// `caller` names the view function for autograd's node name (TransposeBackward0
  /// for a view made inside transpose()); leave it to its default.
  Tensor as_strided(IntArrayRef sizes, IntArrayRef strides, std::optional<std::int64_t> storage_offset = std::nullopt,
                    std::source_location caller = std::source_location::current()) const;

  // ---- elements ----------------------------------------------------------------
  /// The element at a full multi-index (bounds-checked), converted to T.
  template <class T>
  T at(IntArrayRef index) const;
  /// The value of a one-element tensor, converted to T.
  template <class T>
  T item() const;
  /// The value of a one-element tensor.
  Scalar item() const;
  /// The elements in row-major order, converted to T.
  template <class T>
  std::vector<T> to_vector() const;

  // ---- writes and copies -------------------------------------------------------
  /// Sets every element to `value`.
  const Tensor& fill_(const Scalar& value) const;
  /// Sets every element to zero.
  const Tensor& zero_() const { return fill_(0); }
  /// Copies `src` (broadcast to this shape, converted to this dtype) into this tensor.
  const Tensor& copy_(const Tensor& src) const;
  /// A contiguous copy with its own storage.
  Tensor clone() const;
  /// A copy converted to `dtype` (this tensor itself if the dtype already matches).
  Tensor to(ScalarType dtype) const;
  /// This tensor on `device` ("cuda" means cuda:0): itself when it is there already (and
  /// `copy` is false), else a contiguous copy. `non_blocking`: from pinned memory to a GPU,
  /// the copy is asynchronous for the host (from pageable memory it cannot be, as in CUDA).
  Tensor to(Device device, bool non_blocking = false, bool copy = false) const;
  /// to(device), then to(dtype).
  Tensor to(Device device, ScalarType dtype, bool non_blocking = false) const;
  /// to(Device("cuda"), non_blocking).
  Tensor cuda(bool non_blocking = false) const;
  /// to(kCPU): this tensor when it is on the CPU.
  Tensor cpu() const;
  /// True when the data is in a CUDA device's memory.
  bool is_cuda() const { return device().is_cuda(); }

  // ---- math (ops.hpp, linalg.hpp hold the full set as free functions) ----------
  /// Sum of all elements.
  Tensor sum() const;
  /// Sum over `dims`.
  Tensor sum(IntArrayRef dims, bool keepdim = false) const;
  /// Mean of all elements (floating tensors).
  Tensor mean() const;
  /// Mean over `dims`.
  Tensor mean(IntArrayRef dims, bool keepdim = false) const;
  /// Largest element.
  Tensor max() const;
  /// Smallest element.
  Tensor min() const;
  /// Elementwise absolute value.
  Tensor abs() const;
  /// Elementwise e^x.
  Tensor exp() const;
  /// Elementwise natural log.
  Tensor log() const;
  /// Elementwise max(x, 0).
  Tensor relu() const;
  /// @name LibTorch's method forms
  /// The same operations as the free functions of ops.hpp, spelled as LibTorch's Tensor
  /// methods (`x.pow(2)`, `out.argmax(1).eq(t).sum()`), so that LibTorch code reads the same.
  /// @{
  Tensor pow(const Scalar& exponent) const;                                                 ///< pow(*this, exponent)
  Tensor pow(const Tensor& exponent) const;                                                 ///< pow(*this, exponent)
  Tensor sqrt() const;                                                                      ///< kindling::sqrt
  Tensor rsqrt() const;                                                                     ///< kindling::rsqrt
  Tensor tanh() const;                                                                      ///< kindling::tanh
  Tensor sigmoid() const;                                                                   ///< kindling::sigmoid
  Tensor sin() const;                                                                       ///< kindling::sin
  Tensor cos() const;                                                                       ///< kindling::cos
  Tensor log1p() const;                                                                     ///< kindling::log1p
  Tensor neg() const;                                                                       ///< -*this
  Tensor square() const;                                                                    ///< kindling::square
  Tensor reciprocal() const;                                                                ///< kindling::reciprocal
  Tensor sign() const;                                                                      ///< kindling::sign
  Tensor clamp(std::optional<Scalar> min, std::optional<Scalar> max = std::nullopt) const;  ///< kindling::clamp
  Tensor clamp_min(const Scalar& min) const;                                                ///< clamp(min, none)
  Tensor clamp_max(const Scalar& max) const;                                                ///< clamp(none, max)
  /// The p-norm of all elements (p = 2: the square root of the sum of squares).
  Tensor norm(const Scalar& p = 2) const;
  /// The p-norm along `dims`.
  Tensor norm(const Scalar& p, IntArrayRef dims, bool keepdim = false) const;
  Tensor all() const;                    ///< true when no element is 0 (a bool 0-d tensor)
  Tensor any() const;                    ///< true when some element is not 0
  Tensor eq(const Tensor& other) const;  ///< kindling::eq
  Tensor eq(const Scalar& other) const;  ///< kindling::eq
  Tensor ne(const Tensor& other) const;  ///< kindling::ne
  Tensor ne(const Scalar& other) const;  ///< kindling::ne
  Tensor gt(const Tensor& other) const;  ///< kindling::gt
  Tensor gt(const Scalar& other) const;  ///< kindling::gt
  Tensor lt(const Tensor& other) const;  ///< kindling::lt
  Tensor lt(const Scalar& other) const;  ///< kindling::lt
  Tensor ge(const Tensor& other) const;  ///< kindling::ge
  Tensor ge(const Scalar& other) const;  ///< kindling::ge
  Tensor le(const Tensor& other) const;  ///< kindling::le
  Tensor le(const Scalar& other) const;  ///< kindling::le
  /// *this == other, written into this tensor (1 or 0 in its dtype).
  const Tensor& eq_(const Tensor& other) const;
  /// *this == other, written into this tensor (1 or 0 in its dtype).
  const Tensor& eq_(const Scalar& other) const;
  Tensor argmax(std::optional<std::int64_t> dim = std::nullopt, bool keepdim = false) const;  ///< kindling::argmax
  Tensor argmin(std::optional<std::int64_t> dim = std::nullopt, bool keepdim = false) const;  ///< kindling::argmin
  std::tuple<Tensor, Tensor> max(std::int64_t dim, bool keepdim = false) const;  ///< values and indices along dim
  std::tuple<Tensor, Tensor> min(std::int64_t dim, bool keepdim = false) const;  ///< values and indices along dim
  Tensor softmax(std::int64_t dim) const;                                        ///< kindling::softmax
  Tensor log_softmax(std::int64_t dim) const;                                    ///< kindling::log_softmax
  Tensor logsumexp(IntArrayRef dims, bool keepdim = false) const;                ///< kindling::logsumexp
  Tensor prod() const;                                                           ///< kindling::prod
  Tensor prod(std::int64_t dim, bool keepdim = false) const;                     ///< kindling::prod
  Tensor masked_fill(const Tensor& mask, const Scalar& value) const;             ///< kindling::masked_fill
  Tensor index_select(std::int64_t dim, const Tensor& index) const;              ///< kindling::index_select
  Tensor add(const Tensor& other, const Scalar& alpha = 1) const;                ///< *this + alpha * other
  Tensor add(const Scalar& other) const;                                         ///< *this + other
  Tensor sub(const Tensor& other, const Scalar& alpha = 1) const;                ///< *this - alpha * other
  Tensor sub(const Scalar& other) const;                                         ///< *this - other
  Tensor mul(const Tensor& other) const;                                         ///< *this * other
  Tensor mul(const Scalar& other) const;                                         ///< *this * other
  Tensor div(const Tensor& other) const;                                         ///< *this / other
  Tensor div(const Scalar& other) const;                                         ///< *this / other
  Tensor bmm(const Tensor& other) const;                                         ///< kindling::bmm
  Tensor dot(const Tensor& other) const;                                         ///< kindling::dot
  Tensor mv(const Tensor& other) const;                                          ///< kindling::mv
  /// Fills with uniform samples in [from, to), from the default generator.
  const Tensor& uniform_(double from = 0, double to = 1) const;
  /// Fills with normal samples, from the default generator.
  const Tensor& normal_(double mean = 0, double std = 1) const;
  /// clamp, in place.
  const Tensor& clamp_(std::optional<Scalar> min, std::optional<Scalar> max = std::nullopt) const;
  /// @}
  /// Matrix product (torch.matmul).
  Tensor matmul(const Tensor& other) const;
  /// Matrix product of two 2-d tensors.
  Tensor mm(const Tensor& other) const;
  /// In-place `this += alpha * other`.
  const Tensor& add_(const Tensor& other, const Scalar& alpha = 1) const;
  /// In-place `this += value`.
  const Tensor& add_(const Scalar& value) const;
  /// In-place `this -= other`.
  const Tensor& sub_(const Tensor& other) const;
  /// In-place `this *= other`.
  const Tensor& mul_(const Tensor& other) const;
  /// In-place `this *= value`.
  const Tensor& mul_(const Scalar& value) const;
  /// In-place `this /= other`.
  const Tensor& div_(const Tensor& other) const;
  /// In-place `this /= value`.
  const Tensor& div_(const Scalar& value) const;

  // ---- LibTorch's indexing, in-place and convenience forms (indexing.hpp, methods.cpp) ----
  /// Python's `x[...]`: `x.index({Slice(0, 3), None, Ellipsis, 1})` (indexing.hpp). Integers,
  /// slices, None and Ellipsis give a view; a tensor index (int64 positions or a bool mask)
  /// gives a copy.
  Tensor index(std::initializer_list<indexing::TensorIndex> indices) const;
  /// The same, from a vector of indices.
  Tensor index(const std::vector<indexing::TensorIndex>& indices) const;
  /// Python's `x[...] = value`: writes `value` (broadcast) where index() reads.
  const Tensor& index_put_(std::initializer_list<indexing::TensorIndex> indices, const Tensor& value) const;
  /// The same, from a vector of indices.
  const Tensor& index_put_(const std::vector<indexing::TensorIndex>& indices, const Tensor& value) const;
  /// Python's `x[...] = 5`.
  const Tensor& index_put_(std::initializer_list<indexing::TensorIndex> indices, const Scalar& value) const;
  /// The same, from a vector of indices.
  const Tensor& index_put_(const std::vector<indexing::TensorIndex>& indices, const Scalar& value) const;
  /// kindling::chunk.
  std::vector<Tensor> chunk(std::int64_t chunks, std::int64_t dim = 0) const;
  /// kindling::split.
  std::vector<Tensor> split(std::int64_t split_size, std::int64_t dim = 0) const;
  /// In-place `this -= value`.
  const Tensor& sub_(const Scalar& value) const;
  /// exp, in place.
  const Tensor& exp_() const;
  /// unsqueeze, in place: this tensor's own geometry changes (tensors that do not require grad).
  const Tensor& unsqueeze_(std::int64_t dim) const;
  /// squeeze, in place (tensors that do not require grad).
  const Tensor& squeeze_() const;
  /// squeeze(dim), in place (tensors that do not require grad).
  const Tensor& squeeze_(std::int64_t dim) const;
  /// Running sums along `dim` (torch.cumsum); integer and bool inputs give int64. Defined by
  /// week 3, whose graph node records its gradient.
  Tensor cumsum(std::int64_t dim) const;
  /// `num_samples` category indices per row, drawn with the probabilities in each row (the
  /// weights need not sum to 1); without replacement each index comes at most once.
  Tensor multinomial(std::int64_t num_samples, bool replacement = false) const;
  /// The dtype and device of this tensor, as options for a factory.
  TensorOptions options() const;
  /// zeros(sizes) with this tensor's dtype and device unless `options` says otherwise.
  Tensor new_zeros(IntArrayRef sizes) const;
  /// The same, with options (their dtype and device win where given).
  Tensor new_zeros(IntArrayRef sizes, const TensorOptions& options) const;
  /// ones(sizes), like new_zeros.
  Tensor new_ones(IntArrayRef sizes) const;
  /// full(sizes, value), like new_zeros.
  Tensor new_full(IntArrayRef sizes, const Scalar& value) const;
  /// empty(sizes), like new_zeros.
  Tensor new_empty(IntArrayRef sizes) const;
  /// The number of dimensions (dim()).
  std::int64_t ndimension() const { return dim(); }
  /// The same data, cut from the graph (LibTorch's `x.data()`, Python's `x.data`): detach().
  Tensor data() const;
  /// True where every element along `dim` is not 0.
  Tensor all(std::int64_t dim, bool keepdim = false) const;
  /// True where some element along `dim` is not 0.
  Tensor any(std::int64_t dim, bool keepdim = false) const;
  /// A copy in `format` (ChannelsLast: a 4-d tensor whose channels vary fastest), or this
  /// tensor when it is laid out so already.
  Tensor contiguous(MemoryFormat format) const;
  /// to(device, dtype), then laid out in `format`; `copy` forces a new tensor.
  Tensor to(Device device, ScalarType dtype, bool non_blocking, bool copy,
            MemoryFormat format = MemoryFormat::Preserve) const;
  /// True when laid out in `format`.
  bool is_contiguous(MemoryFormat format) const;
  /// The elements in reverse order along each of `dims` (a copy, as in PyTorch).
  Tensor flip(IntArrayRef dims) const;

  // ---- autograd: declared here, defined by week 2 (autograd.hpp) -----------------
  /// True when gradients flow to this tensor: a leaf marked with requires_grad_(),
  /// or the result of a recorded operation.
  bool requires_grad() const;
  /// Marks a leaf as needing gradients (floating tensors only).
  const Tensor& requires_grad_(bool requires_grad = true) const;
  /// True unless this tensor is the result of a recorded operation.
  bool is_leaf() const;
  /// The gradient accumulated by backward() (undefined before the first one).
  Tensor grad() const;
  /// The gradient slot itself, for optimizers and zero_grad.
  Tensor& mutable_grad() const;
  /// The node that produced this tensor (null for leaves).
  std::shared_ptr<autograd::Node> grad_fn() const;
  /// Asks backward() to fill grad() for this non-leaf tensor too.
  const Tensor& retain_grad() const;
  /// True for a non-leaf after retain_grad() (leaves keep their gradient anyway).
  bool retains_grad() const;
  /// The same data, cut from the graph: shares storage and version counter, never requires grad.
  Tensor detach() const;
  /// Cuts this tensor from the graph in place.
  const Tensor& detach_() const;
  /// Computes gradients of this tensor with respect to the leaves. A non-scalar needs
  /// `gradient` (the vector v of the vector-Jacobian product vᵀJ). `retain_graph` keeps the
  /// saved tensors for another backward (by default: `create_graph`); `create_graph` records
  /// the backward pass itself, so that the gradients it leaves can be differentiated again.
  void backward(const Tensor& gradient = {}, std::optional<bool> retain_graph = std::nullopt,
                bool create_graph = false) const;
  /// Calls `hook(grad)` when this tensor's gradient is computed; a defined return
  /// value replaces the gradient. The handle's remove() unregisters it.
  autograd::HookHandle register_hook(std::function<Tensor(const Tensor&)> hook) const;
  /// Calls `hook(*this)` each time backward has accumulated into this leaf's `.grad` (PyTorch
  /// 2.1's register_post_accumulate_grad_hook; 1.13's DDP puts the same hook on the leaf's
  /// AccumulateGrad node). Leaves that require grad only. The handle's remove() unregisters it.
  autograd::HookHandle register_post_accumulate_grad_hook(std::function<void(const Tensor&)> hook) const;

 private:
  [[noreturn]] static void throw_undefined();
  [[noreturn]] void throw_host_access() const;
  std::shared_ptr<TensorImpl> impl_;
};

/// Prints like PyTorch: `tensor([[1., 2.],\n        [3., 4.]])`.
std::ostream& operator<<(std::ostream& out, const Tensor& t);
/// The same text as operator<<.
std::string to_string(const Tensor& t);

// ---- element access (templates, defined here) -------------------------------
template <class T>
T Tensor::at(IntArrayRef index) const {
  if (!device().is_cpu()) return detach().cpu().at<T>(index);  // reads a copy, as PyTorch's item() does
  KINDLING_CHECK_AS(IndexError, static_cast<std::int64_t>(index.size()) == dim(), "expected an index of ", dim(),
                    " dimensions, got ", index.size());
  for (std::size_t d = 0; d < index.size(); ++d)
    KINDLING_CHECK_AS(IndexError, index[d] >= 0 && index[d] < sizes()[d], "index ", index[d],
                      " is out of bounds for dimension ", d, " with size ", sizes()[d]);
  const std::int64_t offset = index_to_offset(index, strides(), storage_offset());
  return visit_dtype(dtype(), [&](auto tag) {
    using S = typename decltype(tag)::type;
    return static_cast<T>(static_cast<const S*>(storage().data())[offset]);
  });
}

template <class T>
T Tensor::item() const {
  KINDLING_CHECK(numel() == 1, "a Tensor with ", numel(), " elements cannot be converted to Scalar");
  return at<T>(Shape(static_cast<std::size_t>(dim()), 0));
}

template <class T>
std::vector<T> Tensor::to_vector() const {
  const Tensor c = device().is_cpu() ? contiguous() : detach().cpu();
  std::vector<T> out(static_cast<std::size_t>(c.numel()));
  visit_dtype(c.dtype(), [&](auto tag) {
    using S = typename decltype(tag)::type;
    const S* p = static_cast<const S*>(c.data_ptr());
    for (std::size_t i = 0; i < out.size(); ++i) out[i] = static_cast<T>(p[i]);
  });
  return out;
}

}  // namespace kindling
