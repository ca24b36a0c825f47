#pragma once
// Helpers shared by the optimizers (week 5's src/ only).

#include <kindling/tensor.hpp>

namespace kindling::optim::detail {

/// The data of a contiguous float32 tensor, for updates that autograd must not
/// record. Throws kindling::Error for another dtype or a non-contiguous tensor.
float* floats(const Tensor& t);

}  // namespace kindling::optim::detail
