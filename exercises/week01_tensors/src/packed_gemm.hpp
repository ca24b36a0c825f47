// Matrix products whose operands are packed once and used many times: the CPU convolution's
// weight is the same matrix for every image of a batch, and an image's output gradient is the
// same matrix for each kernel row's product. gemm_raw packs both operands of every product
// afresh (Eigen's kernel reads them only in its packed order); here the caller packs an operand
// when it is made and keeps it for the products that use it.
//
// Only for products whose inner dimension is one of Eigen's panels and whose packings stay small
// (packed_fits): there the arithmetic, and so the bits, are those of gemm_raw on one thread. Included by linalg.cpp,
// which defines it, and by the kernels that use it; not by the engine's public headers.
#pragma once

#include <cstdint>
#include <memory>

#include "internal.hpp"  // MatrixRef

namespace kindling::detail {

/// Whether a product out (n x m) = a (n x k) @ b (k x m) can run from whole packed operands with
/// the arithmetic of Eigen's one-thread product: the whole of k in one of its panels, a's rows in
/// one, and the packings bounded (see linalg.cpp).
template <class T>
bool packed_fits(std::int64_t n, std::int64_t m, std::int64_t k);

/// Which operand of out = a @ b a packing is.
enum class PackedSide { left, right };

/// One operand of products out = a @ b, packed: the left one, a (n x k), or the right one, b (k x m).
/// Its buffer is its own (`slot` < 0), or, for a packing made and dropped in a loop, one of four
/// that the calling thread keeps and grows (`slot` 0 to 3): a kept packing is valid until the next
/// packing into the same slot on that thread, so two live packings need two slots.
template <class T>
class PackedOperand {
 public:
  /// Packs the (outer x k) left operand a, or the (k x outer) right operand b.
  PackedOperand(PackedSide side, MatrixRef<T> m, std::int64_t outer, std::int64_t k, int slot = -1);
  PackedOperand(PackedOperand&&) noexcept;
  PackedOperand& operator=(PackedOperand&&) noexcept;
  ~PackedOperand();

  PackedSide side() const { return side_; }
  std::int64_t outer() const { return outer_; }  // a's rows or b's columns
  std::int64_t depth() const { return k_; }
  const T* data() const { return data_; }

 private:
  struct Owned;
  PackedSide side_;
  std::int64_t outer_, k_;
  T* data_ = nullptr;
  std::unique_ptr<Owned> own_;
};

/// out (a.outer() x b.outer(), row-major, leading dimension ldo) = a @ b (+ out when
/// `accumulate`), on the calling thread, from two packed operands of equal depth.
template <class T>
void gemm_packed(T* out, std::int64_t ldo, const PackedOperand<T>& a, const PackedOperand<T>& b, bool accumulate);

}  // namespace kindling::detail
