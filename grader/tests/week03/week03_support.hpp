#pragma once
// Shared pieces of the week-3 tests: writing weights, and
// running a case of the oracle (forward, backward with PyTorch's gout, compare).

#include <functional>
#include <string>
#include <vector>

#include <kindling/nn.hpp>

#include "testing.hpp"

namespace kindling::testing {

/// Writes `value` into a parameter without recording (as a test fixture).
inline void assign(const Tensor& param, const Tensor& value) {
  NoGradGuard g;
  param.copy_(value);
}

/// Runs `forward`, checks its output against cases[name]["out"], back-propagates
/// cases[name]["gout"] and checks each leaf's gradient against cases[name]["grads"].
inline void expect_case(const std::string& name, const std::function<Tensor()>& forward, const TensorList& leaves,
                        double rtol = 1e-4, double atol = 1e-5) {
  const Tensor y = forward();
  expect_values(y.detach(), oracle_values(name, "out"), rtol, atol);
  y.backward(to_tensor(oracle_values(name, "gout")));
  for (std::size_t i = 0; i < leaves.size(); ++i) {
    SCOPED_TRACE(name + ": gradient of leaf " + std::to_string(i));
    ASSERT_TRUE(leaves[i].grad().defined());
    expect_values(leaves[i].grad(), oracle_grad(name, i), rtol, atol);
  }
}

/// Parameter k of named_parameters() gets ramp(shape, numel + 3 k, 0.5), as the oracle fills them.
inline TensorList fill_params(nn::Module& m) {
  TensorList params;
  std::size_t k = 0;
  for (auto& [name, p] : m.named_parameters()) {
    assign(p, oracle_ramp(p.sizes().vec(), static_cast<double>(p.numel() + 3 * static_cast<std::int64_t>(k)), 0.5));
    params.push_back(p);
    ++k;
  }
  return params;
}

inline std::vector<std::string> param_names(nn::Module& m) {
  std::vector<std::string> out;
  for (auto& [name, p] : m.named_parameters()) out.push_back(name);
  return out;
}

inline Tensor joined(const TensorList& ts) {
  TensorList flat;
  for (const Tensor& t : ts) flat.push_back(t.reshape({-1}));
  return cat(flat, 0);
}

}  // namespace kindling::testing
