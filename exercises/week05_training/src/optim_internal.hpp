#pragma once
// Helpers shared by the optimizers (week 5's src/ only).

#include <cstdint>
#include <functional>
#include <string>

#include <kindling/optim.hpp>
#include <kindling/tensor.hpp>

namespace kindling::optim::detail {

/// The data of a contiguous float32 tensor, for updates that autograd must not
/// record. Throws kindling::Error for another dtype or a non-contiguous tensor.
float* floats(const Tensor& t);

/// Calls body(begin, end) over [0, n) in contiguous ranges, on up to
/// get_num_threads() threads once n reaches 64K elements (one call on the calling
/// thread below that). An elementwise update gives the same bits whatever the
/// thread count. body must not throw.
void for_ranges(std::int64_t n, const std::function<void(std::int64_t, std::int64_t)>& body);

/// The data of p's state buffer `name` (created filled with `init` on first use).
float* state_buffer(ParamState& state, const Tensor& p, const std::string& name, double init = 0.0);

}  // namespace kindling::optim::detail
