#pragma once
/// @file checked.hpp
/// Size arithmetic that says when it overflows. Every size that comes from outside the
/// program (a file's header, a checkpoint's shape, a caller's list of sizes) goes through
/// these before anything is allocated or indexed with it: a wrapped product passes for a
/// small one, and a tensor whose strides wrapped reads outside its storage.
///
/// Note: the quantity that must fit is the *extent* of a shape, the product of
/// max(size, 1) over its dimensions, not its element count. A zero size makes the count 0,
/// yet row-major strides still multiply the other sizes (PyTorch's rule for empty
/// dimensions), so the shape [0, 2^62, 2^62] has no elements and a stride of 2^124.

#include <cstddef>
#include <cstdint>
#include <optional>

#include <kindling/shape.hpp>

namespace kindling {

/// a * b for a, b >= 0, or std::nullopt when the product does not fit in an int64_t.
inline std::optional<std::int64_t> checked_mul(std::int64_t a, std::int64_t b) {
  std::int64_t out = 0;
  if (__builtin_mul_overflow(a, b, &out)) return std::nullopt;
  return out;
}

/// a + b for a, b >= 0, or std::nullopt when the sum does not fit in an int64_t.
inline std::optional<std::int64_t> checked_add(std::int64_t a, std::int64_t b) {
  std::int64_t out = 0;
  if (__builtin_add_overflow(a, b, &out)) return std::nullopt;
  return out;
}

/// The bytes a row-major tensor of `sizes` spans when every zero size counts as 1 (its
/// extent times `element_size`), or std::nullopt when that, or any stride on the way,
/// does not fit in an int64_t. When this has a value, numel_of(sizes),
/// contiguous_strides(sizes) and the storage's byte count are all safe to compute.
/// Every size must be >= 0 (check_sizes_nonnegative).
inline std::optional<std::int64_t> checked_extent_bytes(IntArrayRef sizes, std::size_t element_size) {
  std::int64_t bytes = static_cast<std::int64_t>(element_size);
  for (const std::int64_t s : sizes) {
    const auto next = checked_mul(bytes, s > 1 ? s : 1);
    if (!next) return std::nullopt;
    bytes = *next;
  }
  return bytes;
}

/// Throws kindling::Error "Storage size calculation overflowed with sizes=[...]" (PyTorch's
/// text) unless checked_extent_bytes(sizes, element_size) has a value.
void check_sizes_fit(IntArrayRef sizes, std::size_t element_size);

}  // namespace kindling
