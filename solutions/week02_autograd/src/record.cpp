// Recording: how week-1 operations become nodes (the extension point week 1
// declares in autograd_hooks.hpp), view nodes, and in-place writes.

#include <algorithm>
#include <array>
#include <cctype>
#include <span>
#include <string>
#include <unordered_map>

#include "autograd_internal.hpp"
#include "internal.hpp"

namespace kindling {
namespace autograd::detail {

namespace {
// PyTorch's node name for a view made inside `function_name` (std::source_location's
// spelling, e.g. "kindling::Tensor kindling::Tensor::transpose(int64_t, int64_t) const").
std::string view_node_name(const char* function_name) {
  const std::string f = function_name;
  const auto paren = f.find('(');
  if (paren == std::string::npos) return "AsStridedBackward0";
  const auto start = f.rfind(':', paren);
  const std::string name = f.substr(start == std::string::npos ? 0 : start + 1, paren - start - 1);
  const bool no_args = f.compare(paren, 2, "()") == 0;
  if (name == "view") return "ViewBackward0";
  if (name == "reshape") return "ReshapeAliasBackward0";  // PyTorch 1.13's _reshape_alias
  if (name == "transpose") return "TransposeBackward0";
  if (name == "permute") return "PermuteBackward0";
  if (name == "t") return "TBackward0";
  if (name == "squeeze") return no_args ? "SqueezeBackward0" : "SqueezeBackward1";
  if (name == "unsqueeze") return "UnsqueezeBackward0";
  if (name == "expand") return "ExpandBackward0";
  if (name == "slice" || name == "narrow") return "SliceBackward0";
  if (name == "select") return "SelectBackward0";
  return "AsStridedBackward0";
}

bool any_requires_grad(std::span<const Tensor* const> inputs) {
  for (const Tensor* t : inputs)
    if (t->defined() && t->requires_grad()) return true;
  return false;
}

// A result of a non-view op is never a view, even when week 1 built it as a view
// of a temporary (sum's `acc.view(shape)`): its history is its own.
void make_standalone(const Tensor& out) {
  TensorImpl& impl = out.impl();
  if (impl.view_base) {  // a view of a temporary shares its counter: a counter of its own
    impl.view_base.reset();
    impl.version_counter = std::make_shared<VersionCounter>();
  }
}

void record_inputs(Op op, const Tensor& out, std::span<const Tensor* const> inputs, OpArgs args) {
  if (!any_requires_grad(inputs) || !out.is_floating_point()) return;
  make_standalone(out);
  auto node = std::make_shared<OpNode>(op, out, inputs, std::move(args), false);
  set_history(out, node);
  if (node->needs_output()) node->save_output(out);
}
}  // namespace

// ---- views ------------------------------------------------------------------------------------
ViewNode::ViewNode(std::string name, Edge input, Geometry in, const Tensor& view)
    : name_(std::move(name)), in_(std::move(in)), out_(Geometry::of(view)) {
  next_edges_.push_back(std::move(input));
  set_output(view);  // a view's dtype is its input's
}

TensorList ViewNode::apply(const Tensor& grad) { return {view_backward(grad, in_, out_, output_dtype(), name_)}; }

namespace {
bool contiguous_geometry(const Geometry& g) { return is_contiguous(g.sizes, g.strides); }

// If `view` shows exactly the input's elements in another dimension order,
// the permutation p with view dim i = input dim p[i]; else nothing.
std::optional<Shape> as_permutation(const Geometry& in, const Geometry& view) {
  if (in.offset != view.offset || in.sizes.size() != view.sizes.size()) return std::nullopt;
  Shape perm(in.sizes.size(), -1);
  std::vector<bool> used(in.sizes.size(), false);
  for (std::size_t i = 0; i < view.sizes.size(); ++i) {
    for (std::size_t j = 0; j < in.sizes.size(); ++j) {
      if (!used[j] && in.sizes[j] == view.sizes[i] && in.strides[j] == view.strides[i]) {
        perm[i] = static_cast<std::int64_t>(j);
        used[j] = true;
        break;
      }
    }
    if (perm[i] < 0) return std::nullopt;
  }
  return perm;
}

// True unless the geometry provably maps distinct indices to distinct offsets:
// sorted by stride, each dim must step over everything the smaller ones span.
bool may_overlap(IntArrayRef sizes, IntArrayRef strides) {
  std::vector<std::pair<std::int64_t, std::int64_t>> dims;  // (stride, size)
  for (std::size_t d = 0; d < sizes.size(); ++d)
    if (sizes[d] > 1) dims.emplace_back(strides[d], sizes[d]);
  std::sort(dims.begin(), dims.end());
  std::int64_t span = 1;  // offsets covered by the smaller dims: [0, span)
  for (const auto& [stride, size] : dims) {
    if (stride < span) return true;
    span = stride * (size - 1) + span;
  }
  return false;
}

// Calls f(i, offset) for each element of the strided geometry, in row-major order: i counts
// the elements, offset is where element i lives in storage.
template <class F>
void for_each_offset(const Geometry& g, F&& f) {
  const std::int64_t n = numel_of(g.sizes);
  Shape index(g.sizes.size(), 0);
  for (std::int64_t i = 0; i < n; ++i) {
    f(i, index_to_offset(index, g.strides, g.offset));
    for (auto d = static_cast<std::int64_t>(index.size()) - 1; d >= 0; --d) {
      if (++index[d] < g.sizes[d]) break;
      index[d] = 0;
    }
  }
}

// Adds `grad` into `buffer` through the strided geometry (sizes, strides, offset);
// positions may repeat (an expanded or overlapping view), so this loops.
template <class T>
void scatter_add(T* buffer, const Tensor& grad, const Geometry& g) {
  const Tensor c = grad.contiguous();
  const T* src = c.data_ptr<T>();
  for_each_offset(g, [&](std::int64_t i, std::int64_t offset) { buffer[offset] += src[i]; });
}

// The second derivative of a strided scatter (create_graph): the scatter's adjoint reads, for
// each element of the view, the input element at the same storage offset. As an index list
// into the input's elements in row-major order, so that index_select (recorded) does it.
Tensor gather_index(const Geometry& in, const Geometry& view) {
  std::unordered_map<std::int64_t, std::int64_t> position;  // storage offset -> flat index in `in`
  for_each_offset(in, [&](std::int64_t i, std::int64_t offset) { position.emplace(offset, i); });
  std::vector<std::int64_t> flat(static_cast<std::size_t>(numel_of(view.sizes)));
  for_each_offset(
      view, [&](std::int64_t i, std::int64_t offset) { flat[static_cast<std::size_t>(i)] = position.at(offset); });
  return tensor(flat, TensorOptions(kInt64));
}

// For an input that repeats elements: entry (k, j) is 1 / c when input element j (row-major)
// sits at the storage offset of view element k and c input elements share that offset.
Tensor sharing_matrix(const Geometry& in, const Geometry& view, ScalarType dtype) {
  std::unordered_map<std::int64_t, std::vector<std::int64_t>> at;  // offset -> input elements there
  for_each_offset(in, [&](std::int64_t j, std::int64_t offset) { at[offset].push_back(j); });
  const std::int64_t n_in = numel_of(in.sizes), n_view = numel_of(view.sizes);
  std::vector<double> m(static_cast<std::size_t>(n_view * n_in), 0.0);
  for_each_offset(view, [&](std::int64_t k, std::int64_t offset) {
    const auto& js = at.at(offset);
    for (std::int64_t j : js) m[static_cast<std::size_t>(k * n_in + j)] = 1.0 / static_cast<double>(js.size());
  });
  return tensor(m, TensorOptions(kFloat64)).view({n_view, n_in}).to(dtype);
}
}  // namespace

Tensor view_backward(const Tensor& grad, const Geometry& in, const Geometry& view, ScalarType dtype,
                     const std::string& name) {
  if (GradMode::is_enabled() && grad.requires_grad() &&
      !(contiguous_geometry(in) && contiguous_geometry(view) && in.offset == view.offset &&
        numel_of(in.sizes) == numel_of(view.sizes)) &&
      !as_permutation(in, view)) {
    // create_graph, through a scatter that is not recorded: compute it as usual, and give the
    // result the scatter's own derivative (PyTorch's SliceBackwardBackward0 and the like).
    Tensor out;
    {
      AutoGradMode off(false);
      out = view_backward(grad, in, view, dtype, name);
    }
    std::string base = name;
    while (!base.empty() && std::isdigit(static_cast<unsigned char>(base.back()))) base.pop_back();
    const Shape view_sizes = view.sizes;
    if (may_overlap(in.sizes, in.strides)) {
      // The input repeats elements (it was expanded), and the scatter shared each stored
      // gradient among the elements that show it: its adjoint averages them back. As a
      // matrix (view elements x input elements), so that mm (recorded) does it.
      const Tensor shared = sharing_matrix(in, view, dtype);
      return autograd::detail::attach_backward(out, base + "Backward0", {grad},
                                               [shared, view_sizes](const Tensor& g) -> TensorList {
                                                 return {shared.mm(g.reshape({-1, 1})).view(view_sizes)};
                                               });
    }
    const Tensor index = gather_index(in, view);
    return autograd::detail::attach_backward(
        out, base + "Backward0", {grad}, [index, view_sizes](const Tensor& g) -> TensorList {
          return {kindling::index_select(g.reshape({-1}), 0, index).view(view_sizes)};
        });
  }
  // Fast paths: a reshape of contiguous memory, or a permutation of dims.
  if (contiguous_geometry(in) && contiguous_geometry(view) && in.offset == view.offset &&
      numel_of(in.sizes) == numel_of(view.sizes))
    return grad.reshape(in.sizes);
  if (auto perm = as_permutation(in, view)) {
    Shape inverse(perm->size());
    for (std::size_t i = 0; i < perm->size(); ++i) inverse[(*perm)[i]] = static_cast<std::int64_t>(i);
    return grad.permute(inverse);
  }
  // General case: lay the gradient out in the input's storage extent, then read
  // it back through the input's geometry.
  const TensorOptions options = TensorOptions(dtype).device(grad.device());
  if (numel_of(in.sizes) == 0) return zeros(in.sizes, options);
  std::int64_t extent = 1;
  for (std::size_t d = 0; d < in.sizes.size(); ++d) extent += (in.sizes[d] - 1) * in.strides[d];
  Tensor buffer = zeros({extent}, options);
  Geometry local = view;
  local.offset -= in.offset;
  // Expanded dims (stride 0) receive the sum of the gradient along them.
  Shape summed;
  for (std::size_t d = 0; d < local.sizes.size(); ++d)
    if (local.strides[d] == 0 && local.sizes[d] > 1) summed.push_back(static_cast<std::int64_t>(d));
  Tensor g = summed.empty() ? grad : grad.sum(summed, true);
  Geometry reduced = local;
  for (auto d : summed) reduced.sizes[d] = 1;
  const Tensor dst = buffer.as_strided(reduced.sizes, reduced.strides, reduced.offset);
  visit_dtype(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_floating_point_v<T>) {
      if (may_overlap(dst.sizes(), dst.strides()))
        scatter_add(buffer.data_ptr<T>(), g, reduced);
      else
        kindling::detail::copy(dst, g);
    }
  });
  Tensor out = buffer.as_strided(in.sizes, in.strides, 0);
  if (may_overlap(out.sizes(), out.strides())) {
    // The input itself repeats elements (it was expanded): share each stored
    // gradient among the elements that show it, so that the sum stays right.
    Tensor count = zeros({extent}, options);
    visit_dtype(dtype, [&](auto tag) {
      using T = typename decltype(tag)::type;
      if constexpr (std::is_floating_point_v<T>)
        scatter_add(count.data_ptr<T>(), ones(in.sizes, dtype), Geometry{in.sizes, in.strides, 0});
    });
    return div(out, count.as_strided(in.sizes, in.strides, 0));
  }
  return out;
}

void record_view(const Tensor& base, const Tensor& view, const std::source_location& caller) {
  if (!GradMode::is_enabled() || !base.requires_grad()) return;
  auto node =
      std::make_shared<ViewNode>(view_node_name(caller.function_name()), gradient_edge(base), Geometry::of(base), view);
  set_history(view, node);
}

void record_unsafe_view(const Tensor& base, const Tensor& out) {
  if (!GradMode::is_enabled() || !base.requires_grad()) return;
  set_history(out, std::make_shared<ViewNode>("UnsafeViewBackward0", gradient_edge(base), Geometry::of(base), out));
}

// ---- CopySlices --------------------------------------------------------------------------------
CopySlices::CopySlices(const Tensor& base, Edge base_edge, const Tensor& view, std::shared_ptr<Node> fn)
    : base_(Geometry::of(base)), view_(Geometry::of(view)), fn_(std::move(fn)) {
  KINDLING_CHECK(base.is_contiguous(),
                 "in-place operations on views of a non-contiguous base are not supported by Kindling's autograd");
  next_edges_.push_back(std::move(base_edge));
  for (std::size_t i = 1; i < fn_->num_inputs(); ++i) next_edges_.push_back(fn_->next_edges()[i]);
  set_output(base);
}

TensorList CopySlices::apply(const Tensor& grad) {
  Tensor result = grad.clone();  // contiguous, the base's shape
  const Tensor slice = result.as_strided(view_.sizes, view_.strides, view_.offset - base_.offset);
  TensorList res = fn_->apply(slice.clone());
  TensorList out(num_inputs());
  if (GradMode::is_enabled()) {  // create_graph: the same writes, recorded
    if (!res.empty() && res[0].defined())
      slice.copy_(sum_to_size(res[0], view_.sizes));
    else
      slice.zero_();
  } else if (!res.empty() && res[0].defined()) {
    kindling::detail::copy(slice, sum_to_size(res[0], view_.sizes));
  } else {
    kindling::detail::fill(slice, 0);
  }
  out[0] = result;
  for (std::size_t i = 1; i < out.size() && i < res.size(); ++i) out[i] = res[i];
  return out;
}

void CopySlices::release_variables() { fn_->release_variables(); }

}  // namespace autograd::detail

// ---- the extension point week 1 declares ---------------------------------------------------------
namespace detail::autograd {

using kindling::autograd::detail::CopySlices;
using kindling::autograd::detail::Geometry;
using kindling::autograd::detail::OpNode;
using kindling::autograd::detail::ViewNode;

namespace {
template <class Range>
std::vector<const Tensor*> pointers(const Range& inputs) {
  std::vector<const Tensor*> list;
  list.reserve(inputs.size());
  for (const Tensor& t : inputs) list.push_back(&t);
  return list;
}
}  // namespace

void record(Op op, const Tensor& out, TensorRefs inputs, OpArgs args) {
  if (inputs.size() <= 4) {  // every op but a list's: no vector to allocate
    std::array<const Tensor*, 4> list{};
    std::size_t n = 0;
    for (const Tensor& t : inputs) list[n++] = &t;
    kindling::autograd::detail::record_inputs(op, out, std::span<const Tensor* const>(list.data(), n), std::move(args));
    return;
  }
  kindling::autograd::detail::record_inputs(op, out, pointers(inputs), std::move(args));
}

void record_list(Op op, const Tensor& out, const TensorList& inputs, OpArgs args) {
  kindling::autograd::detail::record_inputs(op, out, pointers(inputs), std::move(args));
}

void record_view(const Tensor& base, const Tensor& view, const std::source_location& caller) {
  kindling::autograd::detail::record_view(base, view, caller);
}

void record_unsafe_view(const Tensor& base, const Tensor& out) {
  kindling::autograd::detail::record_unsafe_view(base, out);
}

std::string grad_fn_name(const Tensor& t) {
  const auto fn = t.grad_fn();
  return fn ? fn->name() : std::string();
}

struct InplaceRecord::State {
  Tensor self;
  std::shared_ptr<OpNode> node;
};

InplaceRecord::InplaceRecord(Op op, const Tensor& self, TensorRefs others, OpArgs args) {
  kindling::autograd::check_inplace(self);
  std::vector<const Tensor*> list{&self};
  bool wanted = self.requires_grad();
  for (const Tensor& t : others) {
    list.push_back(&t);
    wanted = wanted || (t.defined() && t.requires_grad());
  }
  if (!wanted) return;
  state_ = new State{self, std::make_shared<OpNode>(op, self, list, std::move(args), true)};
}

InplaceRecord::~InplaceRecord() { delete state_; }

void InplaceRecord::commit() {
  if (state_ == nullptr) return;
  const Tensor& self = state_->self;
  using kindling::autograd::detail::gradient_edge;
  using kindling::autograd::detail::set_history;
  VersionCounter& counter = *self.impl().version_counter;
  if (self.is_view()) {
    const Tensor base = self.base();
    auto copy_slices = std::make_shared<CopySlices>(base, gradient_edge(base), self, state_->node);
    set_history(base, copy_slices);
    set_history(self, std::make_shared<ViewNode>("AsStridedBackward0", kindling::autograd::Edge{copy_slices},
                                                 Geometry::of(base), self));
    counter.rewritten = &base.impl();
    counter.rewritten_by = copy_slices->name();
  } else {
    set_history(self, state_->node);
    counter.rewritten = &self.impl();
    counter.rewritten_by = state_->node->name();
  }
  // An op whose formula reads its output (relu_: ReluBackward0) saves self as written, at its
  // new version: a later write into self is then caught by the version check.
  if (state_->node->needs_output()) state_->node->save_output(self);
}

}  // namespace detail::autograd
}  // namespace kindling
