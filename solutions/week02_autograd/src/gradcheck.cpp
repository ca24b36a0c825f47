// gradcheck: analytic Jacobians (one backward per output element) against
// central differences.

#include <cmath>
#include <sstream>

#include "autograd_internal.hpp"

namespace kindling::autograd {

bool gradcheck(const std::function<Tensor(const TensorList&)>& f, const TensorList& inputs, GradcheckOptions options) {
  for (std::size_t i = 0; i < inputs.size(); ++i)
    KINDLING_CHECK(!inputs[i].requires_grad() || inputs[i].dtype() == kFloat64, "gradcheck: input ", i,
                   " requires grad but is not float64 (finite differences need double precision)");
  const Tensor out0 = f(inputs);
  const std::int64_t n_out = out0.numel();
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const Tensor& x = inputs[i];
    if (!x.requires_grad()) continue;
    const std::int64_t n_in = x.numel();
    // Numerical Jacobian, column by column: perturb one input element at a time.
    std::vector<double> numerical(static_cast<std::size_t>(n_in * n_out));
    const Tensor data = x.detach();  // shares storage: writes reach f's input
    for (std::int64_t k = 0; k < n_in; ++k) {
      Tensor elem = data;  // element k in row-major order, as a 0-d view (x may be non-contiguous)
      for (std::int64_t d = 0, rest = k; d < x.dim(); ++d) {
        const std::int64_t inner =
            numel_of(IntArrayRef(x.sizes().data() + d + 1, static_cast<std::size_t>(x.dim() - d - 1)));
        elem = elem.select(0, rest / inner);
        rest %= inner;
      }
      const double saved = elem.item<double>();
      Tensor plus, minus;
      {
        NoGradGuard no_grad;
        elem.fill_(saved + options.eps);
        plus = f(inputs).to(kFloat64).contiguous();
        elem.fill_(saved - options.eps);
        minus = f(inputs).to(kFloat64).contiguous();
        elem.fill_(saved);
      }
      const auto p = plus.to_vector<double>(), m = minus.to_vector<double>();
      for (std::int64_t j = 0; j < n_out; ++j)
        numerical[static_cast<std::size_t>(j * n_in + k)] = (p[j] - m[j]) / (2 * options.eps);
    }
    // Analytic Jacobian, row by row: one backward per output element.
    for (std::int64_t j = 0; j < n_out; ++j) {
      for (const Tensor& t : inputs)
        if (t.requires_grad()) t.mutable_grad() = Tensor();
      const Tensor out = f(inputs);
      Tensor seed = zeros(out.sizes(), TensorOptions(out.dtype()).device(out.device()));
      seed.view({-1})[j].fill_(1);
      if (!out.requires_grad()) continue;  // a constant output: all analytic entries are 0
      out.backward(seed);
      const Tensor g = x.grad();
      const std::vector<double> row = g.defined() ? g.to_vector<double>() : std::vector<double>(n_in, 0.0);
      for (std::int64_t k = 0; k < n_in; ++k) {
        const double num = numerical[static_cast<std::size_t>(j * n_in + k)], ana = row[k];
        if (std::abs(num - ana) <= options.atol + options.rtol * std::abs(num)) continue;
        Shape index(static_cast<std::size_t>(x.dim()));
        std::int64_t rest = k;
        for (auto d = x.dim() - 1; d >= 0; --d) {
          index[d] = rest % x.sizes()[d];
          rest /= x.sizes()[d];
        }
        std::ostringstream msg;
        msg << "Jacobian mismatch for output 0 with respect to input " << i << ", element " << k << " (input index "
            << to_string(index) << ") from output element " << j << ": numerical " << num << ", analytical " << ana;
        throw Error(msg.str());
      }
    }
  }
  for (const Tensor& t : inputs)
    if (t.requires_grad()) t.mutable_grad() = Tensor();
  return true;
}

}  // namespace kindling::autograd
