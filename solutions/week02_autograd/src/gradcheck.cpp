// gradcheck: analytic Jacobians (one backward per output element) against
// central differences.

#include <cmath>
#include <sstream>

#include <kindling/factory.hpp>
#include <kindling/join.hpp>

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
      // An output that does not require grad has analytic entries 0 (still compared: a backward
      // that loses its history must not pass for a correct one).
      if (out.requires_grad()) out.backward(seed);
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

namespace kindling::autograd {

bool gradgradcheck(const std::function<Tensor(const TensorList&)>& f, const TensorList& inputs,
                   GradcheckOptions options) {
  TensorList wrt;
  for (const Tensor& t : inputs)
    if (t.requires_grad()) wrt.push_back(t);
  if (wrt.empty()) return true;
  // A fixed v, the same on every call (a small LCG, so the global generator is left alone).
  const Tensor out0 = f(inputs);
  std::vector<double> values(static_cast<std::size_t>(out0.numel()));
  std::uint64_t state = 0x9E3779B97F4A7C15ull;
  for (double& v : values) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    v = static_cast<double>(state >> 11) / 9007199254740992.0 * 2 - 1;
  }
  const Tensor v = tensor(values, TensorOptions(kFloat64)).view(out0.sizes()).to(out0.dtype()).to(out0.device());
  // x -> the first derivatives, all inputs' flattened into one vector.
  const auto first = [&](const TensorList& xs) {
    AutoGradMode record(true);  // gradcheck's finite differences call this under no_grad
    const Tensor out = f(xs);
    TensorList used;
    for (const Tensor& t : xs)
      if (t.requires_grad()) used.push_back(t);
    const TensorList grads = grad({out}, used, {v}, true, true, true);
    TensorList flat;
    for (std::size_t i = 0; i < grads.size(); ++i)
      flat.push_back(grads[i].defined() ? grads[i].reshape({-1}) : zeros({used[i].numel()}, used[i].dtype()));
    return cat(flat, 0);
  };
  try {
    return gradcheck(first, inputs, options);
  } catch (const Error& e) {
    std::string what = e.what();
    const std::string jacobian = "Jacobian mismatch";
    if (const auto at = what.find(jacobian); at != std::string::npos)
      what.replace(at, jacobian.size(), "second derivative mismatch");
    throw Error(what);
  }
}

}  // namespace kindling::autograd
