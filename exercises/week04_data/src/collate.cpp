// The fast path of default_collate.

#include <cstring>

#include <kindling/collate.hpp>
#include <kindling/factory.hpp>

namespace kindling::data {

Tensor detail::stack_rows(const TensorList& rows) {
  const Tensor& first = rows.front();
  bool uniform = first.is_contiguous();
  for (const Tensor& r : rows)
    uniform = uniform && r.dtype() == first.dtype() && r.sizes().equals(first.sizes()) && r.is_contiguous() &&
              !r.requires_grad();
  if (!uniform) return stack(rows, 0);
  Shape shape{static_cast<std::int64_t>(rows.size())};
  for (auto s : first.sizes()) shape.push_back(s);
  Tensor out = empty(shape, first.dtype());
  const std::size_t bytes = static_cast<std::size_t>(first.numel()) * element_size(first.dtype());
  auto* dst = static_cast<char*>(out.data_ptr());
  for (const Tensor& r : rows) {
    if (bytes) std::memcpy(dst, r.data_ptr(), bytes);
    dst += bytes;
  }
  return out;
}

}  // namespace kindling::data
