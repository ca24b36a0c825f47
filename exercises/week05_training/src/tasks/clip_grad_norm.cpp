// Task week05.clip_grad_norm. The doc comment above each function is its contract; your code
// goes between BEGIN and END. Hints, one at a time: `./grade hint week05.clip_grad_norm`.

#include <cmath>
#include <limits>

#include <kindling/error.hpp>  // KINDLING_TODO, which the worksheet's stubs call
#include <kindling/factory.hpp>
#include <kindling/module.hpp>
#include <kindling/optim.hpp>

#include "optim_internal.hpp"

namespace kindling::nn::utils {

/// clip_grad_norm_, as PyTorch 1.13 computes it. Only parameters whose gradient is
/// defined take part; with none, return a 0-d float32 zero and change nothing.
/// 1. Each gradient's own norm: (sum |g|^q)^(1/q) for q = norm_type; max |g| for
///    q = infinity, min |g| for -infinity, the count of non-zeros for q = 0;
///    accumulate in double, then round the result to float.
/// 2. The total norm: the same norm of the list of per-gradient norms (again in
///    double, rounded to float).
/// 3. With error_if_nonfinite and a NaN or infinite total, throw kindling::Error
///    "The total norm of order 2.0 for gradients from `parameters` is non-finite, so
///    it cannot be clipped. To disable this error and scale the gradients by the
///    non-finite norm anyway, set `error_if_nonfinite=False`" (the order written as
///    Python writes a float: 2.0, 1.0, inf).
/// 4. coef = min(max_norm / (total + 1e-6), 1), in float; multiply every gradient by
///    it in place (also when it is 1).
/// Return the total norm as a 0-d float32 tensor.
Tensor clip_grad_norm_(const std::vector<Tensor>& params, double max_norm, double norm_type, bool error_if_nonfinite) {
  // BEGIN TASK week05.clip_grad_norm (replace the stub below with your code)
  KINDLING_TODO("week05.clip_grad_norm");
  // END TASK
}

}  // namespace kindling::nn::utils
