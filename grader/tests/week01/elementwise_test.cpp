// The given engine of week 1 (not a student task): every elementwise op and full reduction over
// every dtype and special value (NaN, +-inf, -0.0, halves, integer extremes), against PyTorch 1.13
// (tools/oracle/elementwise.py, data/elementwise.json), replayed with no Python.
//
// A case is one op over one dtype's values (unary, reduction), over every pair of two dtypes'
// values (binary), over one dtype's values with one Scalar (scalar) or two (clamp). Kindling must give
// PyTorch's dtype and values, or its error, word for word. Floating values agree within a few
// units in the last place (1e-5 relative in float32, 1e-12 in float64: the libm of another
// distribution may round a transcendental function differently), NaN with NaN, and -0.0 only
// with -0.0, except in maximum and minimum: between 0.0 and -0.0 PyTorch returns one or the
// other depending on whether its vectorised or its scalar loop ran, so there a zero of either
// sign is accepted.

#include <cmath>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>
#include <string>

#include <kindling/kindling.hpp>
#include <nlohmann/json.hpp>

#include "testing.hpp"

using namespace kindling;
using nlohmann::json;

namespace {
const json& data() {
  static const json d = [] {
    const std::string path = std::string(KINDLING_TEST_DATA) + "/elementwise.json";
    std::ifstream in(path);
    if (!in) throw std::runtime_error("cannot open " + path + " (written by tools/oracle/elementwise.py)");
    return json::parse(in);
  }();
  return d;
}

ScalarType dtype_of(const std::string& name) {
  static const std::map<std::string, ScalarType> dtypes{{"bool", kBool},       {"uint8", kUInt8},
                                                        {"int32", kInt32},     {"int64", kInt64},
                                                        {"float32", kFloat32}, {"float64", kFloat64}};
  return dtypes.at(name);
}

double number(const json& v) {
  if (!v.is_string()) return v.get<double>();
  const std::string s = v.get<std::string>();
  if (s == "nan") return NAN;
  if (s == "-0") return -0.0;
  return s == "inf" ? INFINITY : -INFINITY;
}

// The values as a 1-d tensor of `dtype`; `repeat_each` copies every value that many times in a
// row, `tile` repeats the whole list (the two operands of a binary case: every pair once).
Tensor make(const json& values, ScalarType dtype, std::size_t repeat_each = 1, std::size_t tile = 1) {
  std::vector<double> floats;
  std::vector<std::int64_t> ints;
  for (std::size_t t = 0; t < tile; ++t)
    for (const json& v : values)
      for (std::size_t r = 0; r < repeat_each; ++r) {
        if (is_floating_point(dtype))
          floats.push_back(number(v));
        else
          ints.push_back(v.get<std::int64_t>());
      }
  if (is_floating_point(dtype)) return tensor(floats).to(dtype);
  if (dtype == kInt64) return tensor(ints);
  // int32, uint8 and bool values all fit; each goes through its own C++ type, never a wrap.
  if (dtype == kInt32) return tensor(std::vector<std::int32_t>(ints.begin(), ints.end()));
  if (dtype == kUInt8) return tensor(std::vector<std::uint8_t>(ints.begin(), ints.end()));
  return ne(tensor(ints), 0);
}

Scalar scalar_of(const json& s) {
  if (s.is_boolean()) return Scalar(s.get<bool>());
  if (s.is_number_integer()) return Scalar(s.get<std::int64_t>());
  return Scalar(s.get<double>());
}

Tensor unary(const std::string& op, const Tensor& x) {
  static const std::map<std::string, Tensor (*)(const Tensor&)> ops{{"abs", abs},     {"ceil", ceil},
                                                                    {"cos", cos},     {"exp", exp},
                                                                    {"floor", floor}, {"isfinite", isfinite},
                                                                    {"isnan", isnan}, {"log", log},
                                                                    {"log1p", log1p}, {"logical_not", logical_not},
                                                                    {"neg", neg},     {"reciprocal", reciprocal},
                                                                    {"relu", relu},   {"round", round},
                                                                    {"rsqrt", rsqrt}, {"sigmoid", sigmoid},
                                                                    {"sign", sign},   {"sin", sin},
                                                                    {"sqrt", sqrt},   {"square", square},
                                                                    {"tanh", tanh}};
  return ops.at(op)(x);
}

Tensor binary(const std::string& op, const Tensor& a, const Tensor& b) {
  if (op == "add") return add(a, b);
  if (op == "sub") return sub(a, b);
  if (op == "mul") return mul(a, b);
  if (op == "div") return div(a, b);
  if (op == "pow") return pow(a, b);
  if (op == "maximum") return maximum(a, b);
  if (op == "minimum") return minimum(a, b);
  if (op == "eq") return eq(a, b);
  if (op == "ne") return ne(a, b);
  if (op == "lt") return lt(a, b);
  if (op == "le") return le(a, b);
  if (op == "gt") return gt(a, b);
  if (op == "ge") return ge(a, b);
  throw std::logic_error("unknown binary op " + op);
}

Tensor with_scalar(const std::string& op, const Tensor& a, const Scalar& s) {
  if (op == "add") return a + s;
  if (op == "sub") return a - s;
  if (op == "mul") return a * s;
  if (op == "div") return a / s;
  if (op == "pow") return pow(a, s);
  if (op == "eq") return eq(a, s);
  if (op == "lt") return lt(a, s);
  if (op == "ge") return ge(a, s);
  throw std::logic_error("unknown scalar op " + op);
}

Tensor reduce(const std::string& op, const Tensor& x) {
  if (op == "sum") return sum(x);
  if (op == "mean") return mean(x);
  if (op == "prod") return prod(x);
  if (op == "max") return max(x);
  if (op == "min") return min(x);
  if (op == "argmax") return argmax(x);
  if (op == "argmin") return argmin(x);
  throw std::logic_error("unknown reduction " + op);
}

std::string show(double v) {
  if (v == 0 && std::signbit(v)) return "-0";
  std::ostringstream out;
  out.precision(17);
  out << v;
  return out.str();
}

// "" when `got` is PyTorch's result (`want`), else what differs (the first few elements).
std::string compare(const Tensor& got, const json& want, bool either_zero) {
  const std::string dtype = want.at("dtype").get<std::string>();
  if (std::string(dtype_name(got.dtype())) != dtype)
    return "dtype: Kindling " + std::string(dtype_name(got.dtype())) + ", PyTorch " + dtype;
  if (got.sizes().vec() != want.at("sizes").get<Shape>())
    return "shape: Kindling " + to_string(got.sizes()) + ", PyTorch " + want.at("sizes").dump();
  const json& values = want.at("values");
  std::string diff;
  int shown = 0;
  if (!got.is_floating_point()) {
    const auto v = got.to(kInt64).to_vector<std::int64_t>();
    for (std::size_t i = 0; i < v.size(); ++i)
      if (v[i] != values.at(i).get<std::int64_t>() && shown++ < 4)
        diff += " [" + std::to_string(i) + "] Kindling " + std::to_string(v[i]) + ", PyTorch " + values.at(i).dump();
    return diff;
  }
  const double rtol = got.dtype() == kFloat32 ? 1e-5 : 1e-12;
  const auto v = got.to(kFloat64).to_vector<double>();
  for (std::size_t i = 0; i < v.size(); ++i) {
    const double w = number(values.at(i));
    bool same;
    if (std::isnan(w))
      same = std::isnan(v[i]);
    else if (w == 0)
      same = v[i] == 0 && (either_zero || std::signbit(v[i]) == std::signbit(w));
    else
      same = v[i] == w || std::fabs(v[i] - w) <= rtol * std::fabs(w);
    if (!same && shown++ < 4) diff += " [" + std::to_string(i) + "] Kindling " + show(v[i]) + ", PyTorch " + show(w);
  }
  return diff;
}

// Runs every case of `kind`; each failure names the case, PyTorch's result and Kindling's.
void replay(const std::string& kind) {
  const json& values = data().at("values");
  int count = 0;
  for (const json& c : data().at("cases")) {
    if (c.at("kind") != kind) continue;
    ++count;
    const std::string op = c.at("op").get<std::string>();
    std::string label = kind + " " + op;
    std::function<Tensor()> run;
    if (kind == "binary") {
      const std::string da = c.at("a").get<std::string>(), db = c.at("b").get<std::string>();
      label += " " + da + " x " + db;
      const json &va = values.at(da), &vb = values.at(db);
      run = [&, op, da, db] {
        return binary(op, make(va, dtype_of(da), vb.size()), make(vb, dtype_of(db), 1, va.size()));
      };
    } else {
      const std::string d = c.at("dtype").get<std::string>();
      label += " " + d;
      const json& v = c.contains("values") ? c.at("values") : values.at(d);
      if (kind == "unary") run = [&, op, d] { return unary(op, make(v, dtype_of(d))); };
      if (kind == "reduce") run = [&, op, d] { return reduce(op, make(v, dtype_of(d))); };
      if (kind == "clamp") {
        auto bound = [&](const char* key) {
          return c.at(key).is_null() ? std::optional<Scalar>() : std::optional<Scalar>(scalar_of(c.at(key)));
        };
        label += " min " + c.at("min").dump() + " max " + c.at("max").dump();
        run = [&, d, lo = bound("min"), hi = bound("max")] { return clamp(make(v, dtype_of(d)), lo, hi); };
      }
      if (kind == "scalar") {
        label += " with " + c.at("scalar").dump();
        const Scalar s = scalar_of(c.at("scalar"));
        run = [&, op, d, s] { return with_scalar(op, make(v, dtype_of(d)), s); };
      }
    }
    SCOPED_TRACE(label);
    const json& out = c.at("out");
    if (out.contains("error")) {
      const std::string type = out.at("error").at("type").get<std::string>();
      const std::string message = out.at("error").at("message").get<std::string>();
      try {
        const Tensor r = run();
        ADD_FAILURE() << label << ": PyTorch raises \"" << message << "\", Kindling gives " << dtype_name(r.dtype());
      } catch (const Error& e) {
        EXPECT_EQ(std::string(e.what()), message) << label;
        // Python's kind: IndexError and ValueError are Kindling's classes of those names, the rest Error.
        const bool index = dynamic_cast<const IndexError*>(&e) != nullptr;
        const bool value = dynamic_cast<const ValueError*>(&e) != nullptr;
        EXPECT_EQ(type == "IndexError", index) << label << ": PyTorch raises " << type;
        EXPECT_EQ(type == "ValueError", value) << label << ": PyTorch raises " << type;
      }
      continue;
    }
    try {
      const std::string diff = compare(run(), out, op == "maximum" || op == "minimum");
      EXPECT_EQ(diff, "") << label << ":" << diff;
    } catch (const Error& e) {
      ADD_FAILURE() << label << ": Kindling raises \"" << e.what() << "\", PyTorch computes";
    }
  }
  EXPECT_GT(count, 0) << "no " << kind << " case in elementwise.json";
}
}  // namespace

TEST(EngineElementwise, UnaryOpsOnEveryDtypeAndSpecialValueMatchPyTorch) { replay("unary"); }
TEST(EngineElementwise, BinaryOpsOnEveryPairOfDtypesMatchPyTorch) { replay("binary"); }
TEST(EngineElementwise, OpsWithAScalarMatchPyTorch) { replay("scalar"); }
TEST(EngineElementwise, FullReductionsMatchPyTorch) { replay("reduce"); }
TEST(EngineElementwise, ClampWithScalarBoundsMatchesPyTorch) { replay("clamp"); }
