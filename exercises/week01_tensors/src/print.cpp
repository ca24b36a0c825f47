// PyTorch-style printing, following torch/_tensor_str.py (1.13): one formatter
// chooses integer, fixed or scientific notation and a common width from the
// (summarised) values; rows wrap at 80 columns; more than 1000 elements are
// summarised with "..." and 3 edge items.

#include <cmath>
#include <cstdio>
#include <ostream>

#include <kindling/factory.hpp>
#include <kindling/join.hpp>
#include <kindling/ops.hpp>

#include "autograd_hooks.hpp"

namespace kindling {
namespace {

constexpr std::int64_t kThreshold = 1000;
constexpr std::int64_t kEdgeItems = 3;
constexpr std::size_t kLineWidth = 80;

// printf formats matching Python's '{:.4e}', '{:.4f}' and '{:.0f}' (precision 4).
constexpr const char* kSci = "%.4e";
constexpr const char* kFixed = "%.4f";
constexpr const char* kInteger = "%.0f";

std::string format_double(const char* fmt, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, fmt, v);
  return buf;
}

std::string py_float_repr_special(double v) {
  if (std::isnan(v)) return "nan";
  return v > 0 ? "inf" : "-inf";
}

class Formatter {
 public:
  explicit Formatter(const Tensor& t) : floating_(t.is_floating_point()), is_bool_(t.dtype() == kBool) {
    const auto values = t.to_vector<double>();
    if (!floating_) {
      for (double v : values) max_width_ = std::max(max_width_, raw(v).size());
      return;
    }
    std::vector<double> finite;
    for (double v : values)
      if (std::isfinite(v) && v != 0) finite.push_back(std::abs(v));
    if (finite.empty()) return;
    const double mn = *std::min_element(finite.begin(), finite.end());
    const double mx = *std::max_element(finite.begin(), finite.end());
    for (double v : finite)
      if (v != std::ceil(v)) int_mode_ = false;
    if (int_mode_) {
      sci_mode_ = mx / mn > 1000. || mx > 1.e8;
    } else {
      sci_mode_ = mx / mn > 1000. || mx > 1.e8 || mn < 1.e-4;
    }
    for (double v : values) {
      if (!std::isfinite(v) || v == 0) continue;
      if (sci_mode_)
        max_width_ = std::max(max_width_, format_double(kSci, v).size());
      else if (int_mode_)
        max_width_ = std::max(max_width_, format_double(kInteger, v).size() + 1);
      else
        max_width_ = std::max(max_width_, format_double(kFixed, v).size());
    }
  }

  std::size_t width() const { return max_width_; }

  std::string format(double v) const {
    std::string s = raw(v);
    if (s.size() < max_width_) s.insert(0, max_width_ - s.size(), ' ');
    return s;
  }

 private:
  std::string raw(double v) const {
    if (!floating_) {
      if (is_bool_) return v != 0 ? "True" : "False";
      return std::to_string(static_cast<std::int64_t>(v));
    }
    if (!std::isfinite(v)) return py_float_repr_special(v);
    if (sci_mode_) return format_double(kSci, v);
    if (int_mode_) return format_double(kInteger, v) + ".";
    return format_double(kFixed, v);
  }

  bool floating_;
  bool is_bool_;
  bool int_mode_ = true;
  bool sci_mode_ = false;
  std::size_t max_width_ = 1;
};

// The elements the printout will show (edges only when summarising).
Tensor summarized_data(const Tensor& t) {
  if (t.dim() == 0) return t;
  if (t.dim() == 1) {
    if (t.sizes()[0] > 2 * kEdgeItems) return cat({t.slice(0, 0, kEdgeItems), t.slice(0, -kEdgeItems)});
    return t;
  }
  TensorList rows;
  const std::int64_t n = t.sizes()[0];
  for (std::int64_t i = 0; i < n; ++i) {
    if (n > 2 * kEdgeItems && i == kEdgeItems) i = n - kEdgeItems;
    rows.push_back(summarized_data(t.select(0, i)));
  }
  return stack(rows);
}

std::string join(const std::vector<std::string>& parts, const std::string& sep) {
  std::string s;
  for (std::size_t i = 0; i < parts.size(); ++i) s += (i ? sep : "") + parts[i];
  return s;
}

std::string vector_str(const Tensor& t, std::size_t indent, bool summarize, const Formatter& f) {
  const std::size_t element_length = f.width() + 2;
  const std::size_t per_line =
      std::max<std::size_t>(1, kLineWidth > indent ? (kLineWidth - indent) / element_length : 0);
  const auto values = t.to_vector<double>();
  std::vector<std::string> data;
  const auto n = static_cast<std::int64_t>(values.size());
  for (std::int64_t i = 0; i < n; ++i) {
    if (summarize && n > 2 * kEdgeItems && i == kEdgeItems) {
      data.emplace_back(" ...");
      i = n - kEdgeItems;
    }
    data.push_back(f.format(values[static_cast<std::size_t>(i)]));
  }
  std::vector<std::string> lines;
  for (std::size_t i = 0; i < data.size(); i += per_line)
    lines.push_back(join({data.begin() + static_cast<std::ptrdiff_t>(i),
                          data.begin() + static_cast<std::ptrdiff_t>(std::min(data.size(), i + per_line))},
                         ", "));
  return "[" + join(lines, ",\n" + std::string(indent + 1, ' ')) + "]";
}

std::string tensor_str(const Tensor& t, std::size_t indent, bool summarize, const Formatter& f) {
  if (t.dim() == 0) return f.format(t.item<double>());
  if (t.dim() == 1) return vector_str(t, indent, summarize, f);
  std::vector<std::string> slices;
  const std::int64_t n = t.sizes()[0];
  for (std::int64_t i = 0; i < n; ++i) {
    if (summarize && n > 2 * kEdgeItems && i == kEdgeItems) {
      slices.emplace_back("...");
      i = n - kEdgeItems;
    }
    slices.push_back(tensor_str(t.select(0, i), indent + 1, summarize, f));
  }
  const std::string sep = "," + std::string(static_cast<std::size_t>(t.dim() - 1), '\n') + std::string(indent + 1, ' ');
  return "[" + join(slices, sep) + "]";
}

std::string shape_tuple(IntArrayRef sizes) {
  std::string s = "(";
  for (std::size_t i = 0; i < sizes.size(); ++i) s += (i ? ", " : "") + std::to_string(sizes[i]);
  if (sizes.size() == 1) s += ",";
  return s + ")";
}

}  // namespace

std::ostream& operator<<(std::ostream& out, const Tensor& t) {
  if (!t.defined()) return out << "[ Tensor (undefined) ]";
  const std::string prefix = "tensor(";
  const std::size_t indent = prefix.size();
  std::vector<std::string> suffixes;
  std::string body;
  // A device's tensor prints its values from a host copy, and says where it lives first.
  if (!t.device().is_cpu()) suffixes.push_back("device='" + to_string(t.device()) + "'");
  const Tensor host = t.device().is_cpu() ? t : t.detach().cpu();
  if (t.numel() == 0) {
    if (t.dim() != 1) suffixes.push_back("size=" + shape_tuple(t.sizes()));
    if (t.dtype() != kDefaultDtype) suffixes.push_back("dtype=torch." + std::string(dtype_name(t.dtype())));
    body = "[]";
  } else {
    const bool summarize = t.numel() > kThreshold;
    const Formatter f(summarize ? summarized_data(host) : host);
    body = tensor_str(host, indent, summarize, f);
    if (t.dtype() != kDefaultDtype && t.dtype() != kInt64 && t.dtype() != kBool)
      suffixes.push_back("dtype=torch." + std::string(dtype_name(t.dtype())));
  }
  if (t.impl().autograd) {  // week 2's state: the producing node, or a marked leaf
    if (const std::string fn = detail::autograd::grad_fn_name(t); !fn.empty())  // Python's type name:
      suffixes.push_back("grad_fn=<" + fn.substr(fn.rfind(':') + 1) + ">");     // CopySlices, not torch::...::
    else if (t.requires_grad())
      suffixes.push_back("requires_grad=True");
  }
  std::string s = prefix + body;
  // Python: len(s) - s.rfind('\n') + 1, where rfind gives -1 when there is no newline.
  const auto nl = s.rfind('\n');
  std::size_t last_line_len = s.size() + 1 - (nl == std::string::npos ? 0 : nl) + (nl == std::string::npos ? 1 : 0);
  for (const auto& suffix : suffixes) {
    if (last_line_len + suffix.size() + 2 > kLineWidth) {
      s += ",\n" + std::string(indent, ' ') + suffix;
      last_line_len = indent + suffix.size();
    } else {
      s += ", " + suffix;
      last_line_len += suffix.size() + 2;
    }
  }
  return out << s << ")";
}

}  // namespace kindling
