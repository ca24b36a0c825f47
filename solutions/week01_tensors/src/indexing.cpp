// Python's x[...] as LibTorch spells it (indexing.hpp): basic indexing is a chain of views
// (select, slice, unsqueeze); a tensor index turns the indexed dimensions into one and reads
// them with index_select, a copy.

#include <algorithm>
#include <string_view>

#include <kindling/factory.hpp>
#include <kindling/indexing.hpp>
#include <kindling/join.hpp>
#include <kindling/ops.hpp>

namespace kindling {

namespace indexing {
TensorIndex::TensorIndex(const char* text) : v_(EllipsisIndexType{}) {
  KINDLING_CHECK_AS(ValueError, text != nullptr && std::string_view(text) == "...",
                    "Expected \"...\" to represent an ellipsis index, but got \"", text ? text : "", "\"");
}
}  // namespace indexing

namespace {

using indexing::TensorIndex;

// A tensor index at dimension `dim` of the basic view.
struct Advanced {
  std::int64_t dim;
  Tensor index;
};

// A bool (or, deprecated in PyTorch, uint8) tensor index is a mask.
bool is_mask(const Tensor& t) { return t.dtype() == kBool || t.dtype() == kUInt8; }
// A 0-d mask counts as Python's True or False.
bool is_scalar_mask(const Tensor& t) { return is_mask(t) && t.dim() == 0; }

// The view that the integers, slices, None, bools and Ellipsis select; the tensor indices are
// left in `advanced`, with the dimension of the view each one indexes.
Tensor apply_basic(const Tensor& self, const std::vector<TensorIndex>& indices, std::vector<Advanced>& advanced) {
  std::int64_t consumed = 0;
  for (const TensorIndex& i : indices) {
    if (i.is_integer() || i.is_slice()) ++consumed;
    if (i.is_tensor() && !is_scalar_mask(i.tensor())) consumed += is_mask(i.tensor()) ? i.tensor().dim() : 1;
  }
  KINDLING_CHECK_AS(IndexError, consumed <= self.dim(), "too many indices for tensor of dimension ", self.dim());
  Tensor result = self;
  std::int64_t dim = 0;
  for (const TensorIndex& i : indices) {
    if (i.is_integer()) {
      const std::int64_t size = result.size(dim);
      const std::int64_t k = i.integer();
      KINDLING_CHECK_AS(IndexError, k >= -size && k < size, "index ", k, " is out of bounds for dimension ", dim,
                        " with size ", size);
      result = result.select(dim, k);
    } else if (i.is_slice()) {
      const indexing::Slice& s = i.slice();
      KINDLING_CHECK_AS(ValueError, s.step() != 0, "slice step cannot be zero");  // Python's own check
      KINDLING_CHECK_AS(ValueError, s.step() > 0, "step must be greater than zero");
      result = result.slice(dim, s.start(), s.stop(), s.step());
      ++dim;
    } else if (i.is_none()) {
      result = result.unsqueeze(dim);
      ++dim;
    } else if (i.is_boolean()) {  // a new dimension indexed by a tensor, as PyTorch does: a copy
      result = result.unsqueeze(dim);
      advanced.push_back({dim, i.boolean() ? zeros({1}, TensorOptions(kInt64)) : empty({0}, TensorOptions(kInt64))});
      ++dim;
    } else if (i.is_ellipsis()) {
      dim += self.dim() - consumed;
    } else {
      const Tensor& t = i.tensor();
      KINDLING_CHECK_AS(IndexError, t.dtype() == kInt64 || is_mask(t),
                        "tensors used as indices must be long, byte or bool tensors");
      if (is_scalar_mask(t)) {  // a 0-d mask is Python's True or False: a new dimension
        result = result.unsqueeze(dim);
        const bool on = t.cpu().item<bool>();
        advanced.push_back({dim, on ? zeros({1}, TensorOptions(kInt64)) : empty({0}, TensorOptions(kInt64))});
        ++dim;
        continue;
      }
      advanced.push_back({dim, t});
      dim += is_mask(t) ? t.dim() : 1;
    }
  }
  return result;
}

// The tensor indices as int64 positions, one per indexed dimension (a bool mask of k dimensions
// becomes k position tensors, its nonzero() columns), with their dimensions consecutive.
std::vector<Advanced> positions(const Tensor& view, const std::vector<Advanced>& advanced) {
  std::vector<Advanced> out;
  for (const Advanced& a : advanced) {
    if (!is_mask(a.index)) {
      out.push_back({a.dim, a.index.to(view.device(), kInt64)});
      continue;
    }
    const Tensor mask = a.index.to(kBool);
    const std::int64_t k = mask.dim();
    for (std::int64_t j = 0; j < k; ++j)
      KINDLING_CHECK_AS(IndexError, mask.size(j) == view.size(a.dim + j), "The shape of the mask ",
                        to_string(mask.sizes()), " at index ", j, " does not match the shape of the indexed tensor ",
                        to_string(view.sizes()), " at index ", a.dim + j);
    const std::vector<bool> bits = mask.cpu().to_vector<bool>();
    std::vector<std::vector<std::int64_t>> cols(static_cast<std::size_t>(k));
    const Shape sizes = mask.sizes().vec();
    for (std::size_t flat = 0; flat < bits.size(); ++flat) {
      if (!bits[flat]) continue;
      std::size_t rest = flat;
      for (std::int64_t j = k - 1; j >= 0; --j) {
        const auto s = static_cast<std::size_t>(sizes[static_cast<std::size_t>(j)]);
        cols[static_cast<std::size_t>(j)].push_back(static_cast<std::int64_t>(rest % s));
        rest /= s;
      }
    }
    for (std::int64_t j = 0; j < k; ++j)
      out.push_back(
          {a.dim + j, tensor(cols[static_cast<std::size_t>(j)], TensorOptions(kInt64).device(view.device()))});
  }
  for (std::size_t j = 1; j < out.size(); ++j)
    KINDLING_CHECK(out[j].dim == out[0].dim + static_cast<std::int64_t>(j),
                   "index(): tensor indices separated by a slice, None or Ellipsis are not supported (PyTorch "
                   "moves their dimensions to the front); index one group of adjacent dimensions at a time");
  return out;
}

// The positions broadcast to one shape, wrapped (negative counts from the end) and checked.
Shape broadcast_positions(const Tensor& view, std::vector<Advanced>& pos) {
  Shape shape = pos[0].index.sizes().vec();
  for (const Advanced& a : pos) shape = broadcast_shapes(shape, a.index.sizes());
  for (Advanced& a : pos) {
    const std::int64_t size = view.size(a.dim);
    Tensor idx = a.index.expand(shape).contiguous();
    if (idx.numel() > 0) {
      const auto lo = idx.min().item<std::int64_t>();
      const auto hi = idx.max().item<std::int64_t>();
      const std::int64_t bad = lo < -size ? lo : hi;
      KINDLING_CHECK_AS(IndexError, lo >= -size && hi < size, "index ", bad, " is out of bounds for dimension ", a.dim,
                        " with size ", size);
      if (lo < 0) idx = where(lt(idx, 0), idx + size, idx);
    }
    a.index = idx;
  }
  return shape;
}

// The shape of `view` indexed by a tensor group of `m` dimensions from `first` whose positions
// broadcast to `shape`: the group's dimensions replaced by `shape`.
Shape indexed_shape(const Tensor& view, const Shape& shape, std::int64_t first, std::int64_t m) {
  Shape out(view.sizes().begin(), view.sizes().begin() + first);
  out.insert(out.end(), shape.begin(), shape.end());
  out.insert(out.end(), view.sizes().begin() + first + m, view.sizes().end());
  return out;
}

std::vector<TensorIndex> as_vector(std::initializer_list<TensorIndex> list) {
  return std::vector<TensorIndex>(list.begin(), list.end());
}

}  // namespace

Tensor Tensor::index(std::initializer_list<indexing::TensorIndex> indices) const { return index(as_vector(indices)); }

Tensor Tensor::index(const std::vector<indexing::TensorIndex>& indices) const {
  std::vector<Advanced> advanced;
  const Tensor view = apply_basic(*this, indices, advanced);
  if (advanced.empty()) return view;
  std::vector<Advanced> pos = positions(view, advanced);
  const Shape shape = broadcast_positions(view, pos);
  // One flat position into the indexed dimensions, read with index_select on them merged.
  const std::int64_t first = pos.front().dim;
  const auto m = static_cast<std::int64_t>(pos.size());
  Tensor flat = zeros(shape, TensorOptions(kInt64).device(device()));
  for (const Advanced& a : pos) flat = flat * view.size(a.dim) + a.index;
  const Tensor merged = view.flatten(first, first + m - 1);
  return kindling::index_select(merged, first, flat.reshape({-1})).reshape(indexed_shape(view, shape, first, m));
}

namespace {
// Writes `write(target, k)` at each place the tensor indices name: target is the view of that
// place, k its position in the broadcast index shape.
template <class Write>
void put(const Tensor& self, const std::vector<TensorIndex>& indices, Write write) {
  std::vector<Advanced> advanced;
  const Tensor view = apply_basic(self, indices, advanced);
  if (advanced.empty()) {
    write(view, Shape{}, 0, Shape{});
    return;
  }
  std::vector<Advanced> pos = positions(view, advanced);
  const Shape shape = broadcast_positions(view, pos);
  const std::int64_t first = pos.front().dim;
  const auto m = static_cast<std::int64_t>(pos.size());
  const Shape result = indexed_shape(view, shape, first, m);  // what index() would return
  std::vector<std::vector<std::int64_t>> cols;
  cols.reserve(pos.size());
  for (const Advanced& a : pos) cols.push_back(a.index.cpu().to_vector<std::int64_t>());
  const std::int64_t count = numel_of(shape);
  for (std::int64_t k = 0; k < count; ++k) {
    Tensor target = view;
    // Selecting removes the dimension, so each next index is at the same place.
    for (std::size_t j = 0; j < pos.size(); ++j) target = target.select(first, cols[j][static_cast<std::size_t>(k)]);
    Shape at(shape.size());
    std::int64_t rest = k;
    for (std::size_t d = shape.size(); d-- > 0;) {
      at[d] = rest % shape[d];
      rest /= shape[d];
    }
    write(target, result, first, at);
  }
}
}  // namespace

const Tensor& Tensor::index_put_(std::initializer_list<indexing::TensorIndex> indices, const Tensor& value) const {
  return index_put_(as_vector(indices), value);
}

const Tensor& Tensor::index_put_(const std::vector<indexing::TensorIndex>& indices, const Tensor& value) const {
  put(*this, indices, [&](const Tensor& target, const Shape& result, std::int64_t first, const Shape& at) {
    if (result.empty()) {
      target.copy_(value);
      return;
    }
    // `value` broadcasts to the shape of what index() would return; the part for this place is
    // the value at `at` along the index dimensions, which sit at `first`.
    bool fits = true;
    try {
      fits = broadcast_shapes(result, value.sizes()) == result;
    } catch (const Error&) {
      fits = false;
    }
    KINDLING_CHECK(fits, "shape mismatch: value tensor of shape ", to_string(value.sizes()),
                   " cannot be broadcast to indexing result of shape ", to_string(result));
    Tensor part = value.expand(result);
    for (const std::int64_t i : at) part = part.select(first, i);
    target.copy_(part);
  });
  return *this;
}

const Tensor& Tensor::index_put_(std::initializer_list<indexing::TensorIndex> indices, const Scalar& value) const {
  return index_put_(as_vector(indices), value);
}

const Tensor& Tensor::index_put_(const std::vector<indexing::TensorIndex>& indices, const Scalar& value) const {
  put(*this, indices, [&](const Tensor& target, const Shape&, std::int64_t, const Shape&) { target.fill_(value); });
  return *this;
}

const Tensor& Tensor::operator=(const Tensor& src) && { return copy_(src); }
const Tensor& Tensor::operator=(const Scalar& value) && { return fill_(value); }

}  // namespace kindling
