#pragma once
// Helpers shared by the optimizers (week 5's src/ only).

#include <string>

#include <kindling/optim.hpp>
#include <kindling/tensor.hpp>

namespace kindling::optim::detail {

/// The data of a contiguous float32 tensor, for updates that autograd must not
/// record. Throws kindling::Error for another dtype or a non-contiguous tensor.
float* floats(const Tensor& t);

/// The data of p's state buffer `name` (created filled with `init` on first use).
float* state_buffer(ParamState& state, const Tensor& p, const std::string& name, double init = 0.0);

}  // namespace kindling::optim::detail
