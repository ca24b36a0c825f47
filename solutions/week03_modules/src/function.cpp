// Week 3's own graph nodes: layers whose kernels are not week-1 operations
// (convolution, pooling, GELU) plug into the week-2 engine through one node type.

#include <charconv>
#include <cmath>

#include "autograd_internal.hpp"
#include "nn_internal.hpp"

namespace kindling::nn::detail {
namespace {

class FunctionNode final : public autograd::Node {
 public:
  FunctionNode(const char* name, const Tensor& out, const TensorList& inputs, const TensorList& saved,
               BackwardFn backward)
      : name_(name), backward_(std::move(backward)) {
    for (const Tensor& t : inputs)
      next_edges_.push_back(t.defined() ? autograd::detail::gradient_edge(t) : autograd::Edge{});
    for (const Tensor& t : saved) saved_.emplace_back(t, false);
    set_output(out);
  }
  std::string name() const override { return name_; }
  TensorList apply(const Tensor& grad) override {
    TensorList saved;
    saved.reserve(saved_.size());
    for (const auto& s : saved_) saved.push_back(s.unpack(*this));
    std::vector<bool> needs(num_inputs());
    for (std::size_t i = 0; i < needs.size(); ++i) needs[i] = needs_input_grad(i);
    TensorList grads = backward_(grad, saved, needs);
    for (std::size_t i = 0; i < grads.size(); ++i)
      if (!needs_input_grad(i)) grads[i] = Tensor();
    return grads;
  }

 private:
  const char* name_;
  BackwardFn backward_;
};

}  // namespace

bool wants_grad(const TensorList& inputs) {
  if (!GradMode::is_enabled()) return false;
  for (const Tensor& t : inputs)
    if (t.defined() && t.requires_grad()) return true;
  return false;
}

void record_function(const char* name, const Tensor& out, const TensorList& inputs, const TensorList& saved,
                     BackwardFn backward) {
  if (!wants_grad(inputs)) return;
  auto node = std::make_shared<FunctionNode>(name, out, inputs, saved, std::move(backward));
  autograd::detail::set_history(out, node);
}

void set_data(const Tensor& t, const Tensor& value) {
  TensorImpl& dst = t.impl();
  const TensorImpl& src = value.impl();
  dst.storage = src.storage;
  dst.sizes = src.sizes;
  dst.strides = src.strides;
  dst.storage_offset = src.storage_offset;
  dst.dtype = src.dtype;
}

std::string py_float(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  // Shortest round-trip digits, then Python's layout: scientific when the
  // exponent is below -4 or at least 16, positional otherwise, always with a
  // fractional part or an exponent.
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific);
  std::string sci(buf, end);  // d.ddde±XX
  const auto e = sci.find('e');
  std::string mantissa = sci.substr(0, e);
  const int exponent = std::stoi(sci.substr(e + 1));
  const bool negative = mantissa[0] == '-';
  if (negative) mantissa.erase(0, 1);
  std::string digits;
  for (char c : mantissa)
    if (c != '.') digits += c;
  std::string out;
  if (exponent < -4 || exponent >= 16) {
    out = digits.substr(0, 1) + (digits.size() > 1 ? "." + digits.substr(1) : "") + "e" + (exponent < 0 ? "-" : "+") +
          (std::abs(exponent) < 10 ? "0" : "") + std::to_string(std::abs(exponent));
  } else if (exponent < 0) {
    out = "0." + std::string(static_cast<std::size_t>(-exponent - 1), '0') + digits;
  } else {
    const auto int_digits = static_cast<std::size_t>(exponent + 1);
    if (digits.size() <= int_digits)
      out = digits + std::string(int_digits - digits.size(), '0') + ".0";
    else
      out = digits.substr(0, int_digits) + "." + digits.substr(int_digits);
  }
  return (negative ? "-" : "") + out;
}

}  // namespace kindling::nn::detail
