// Reads data/oracle.json (written by tools/oracle/week01.py from PyTorch 1.13).

#include <cmath>
#include <fstream>

#include <nlohmann/json.hpp>

#include "oracle_json.hpp"
#include "testing.hpp"

namespace kindling::testing {
namespace {
const nlohmann::json& cases() {
  static const nlohmann::json data = [] {
    std::ifstream in(std::string(KINDLING_TEST_DATA) + "/oracle.json");
    if (!in) throw std::runtime_error("cannot open " + std::string(KINDLING_TEST_DATA) + "/oracle.json");
    return nlohmann::json::parse(in);
  }();
  return data.at("cases");
}

const nlohmann::json& at(const std::string& name, const std::string& field) {
  const auto& c = cases().at(name);
  return field.empty() ? c : c.at(field);
}
}  // namespace

Geometry oracle_geometry(const std::string& name) {
  const auto& c = cases().at(name);
  return {c.at("sizes").get<Shape>(), c.at("strides").get<Shape>(), c.at("offset").get<std::int64_t>()};
}

namespace {
// {"sizes", "dtype", "values"}; non-finite values are the strings "nan", "inf", "-inf".
Values values_of(const nlohmann::json& c) {
  std::vector<double> numbers;
  for (const auto& v : c.at("values")) {
    if (!v.is_string())
      numbers.push_back(v.get<double>());
    else if (v == "nan")
      numbers.push_back(NAN);
    else
      numbers.push_back(v == "inf" ? INFINITY : -INFINITY);
  }
  return {c.at("sizes").get<Shape>(), c.at("dtype").get<std::string>(), numbers};
}
}  // namespace

Values oracle_values(const std::string& name, const std::string& field) { return values_of(at(name, field)); }

RaisedError oracle_error(const std::string& name) {
  const auto& c = cases().at(name);
  return {c.at("type").get<std::string>(), c.at("message").get<std::string>()};
}

bool oracle_bool(const std::string& name, const std::string& field) { return at(name, field).get<bool>(); }
std::string oracle_string(const std::string& name, const std::string& field) {
  return at(name, field).get<std::string>();
}

std::vector<StrideCase> oracle_stride_cases(const std::string& name, const std::string& flag_field) {
  std::vector<StrideCase> out;
  for (const auto& c : cases().at(name))
    out.push_back({c.at("sizes").get<Shape>(), c.at("strides").get<Shape>(),
                   flag_field.empty() ? false : c.at(flag_field).get<bool>()});
  return out;
}

std::vector<std::vector<std::string>> oracle_dtype_table(const std::string& name) {
  const auto& c = cases().at(name);
  if (c.at(0).is_string()) return {c.get<std::vector<std::string>>()};
  return c.get<std::vector<std::vector<std::string>>>();
}

std::vector<Shape> oracle_shapes(const std::string& name) { return cases().at(name).get<std::vector<Shape>>(); }

void expect_error_impl(const std::function<void()>& fn, const std::function<bool(const std::exception&)>& is_kind,
                       const char* kind, const std::string& message) {
  try {
    fn();
  } catch (const NotImplemented&) {
    throw;
  } catch (const std::exception& e) {
    EXPECT_TRUE(is_kind(e)) << "threw the wrong kind of exception (wanted " << kind << "): " << e.what();
    EXPECT_EQ(std::string(e.what()), message);
    return;
  }
  ADD_FAILURE() << "did not throw; expected: " << message;
}

void expect_oracle_error(const std::function<void()>& fn, const std::string& name) {
  const RaisedError e = oracle_error(name);
  if (e.type == "IndexError")
    expect_error<IndexError>(fn, e.message);
  else if (e.type == "ValueError")
    expect_error<ValueError>(fn, e.message);
  else
    expect_error<Error>(fn, e.message);
}

void expect_geometry(const Tensor& t, const Geometry& g) {
  EXPECT_EQ(t.sizes().vec(), g.sizes);
  EXPECT_EQ(t.strides().vec(), g.strides);
  EXPECT_EQ(t.storage_offset(), g.offset);
}

void expect_values(const Tensor& t, const Values& v, double rtol, double atol) {
  ASSERT_EQ(t.sizes().vec(), v.sizes);
  EXPECT_EQ(std::string(dtype_name(t.dtype())), v.dtype);
  const auto got = t.to_vector<double>();
  ASSERT_EQ(got.size(), v.values.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    if (std::isnan(v.values[i])) {
      EXPECT_TRUE(std::isnan(got[i])) << "element " << i;
    } else if (std::isinf(v.values[i])) {
      EXPECT_EQ(got[i], v.values[i]) << "element " << i;
    } else {
      EXPECT_NEAR(got[i], v.values[i], atol + rtol * std::abs(v.values[i])) << "element " << i;
    }
  }
}

Tensor oracle_x() { return arange(24, kFloat32).reshape({2, 3, 4}) / 7 - 1.5; }

Tensor oracle_ramp(const Shape& shape, double scale, double shift) {
  Tensor t = arange(numel_of(shape), kFloat32).reshape(shape) / scale - shift;
  t.requires_grad_();
  return t;
}

Tensor oracle_gout(const Shape& shape) { return cos(arange(numel_of(shape), kFloat32) * 0.7).reshape(shape); }

ScalarType oracle_dtype(const std::string& name) {
  for (ScalarType t : {kBool, kUInt8, kInt32, kInt64, kFloat32, kFloat64})
    if (dtype_name(t) == name) return t;
  throw std::runtime_error("unknown dtype " + name);
}

Values oracle_grad(const std::string& name, std::size_t i) { return values_of(at(name, "grads").at(i)); }

double oracle_number(const std::string& name, const std::string& field) { return at(name, field).get<double>(); }

const nlohmann::json& oracle_json(std::string_view name) { return cases().at(std::string(name)); }

Values values_from_json(const nlohmann::json& record) { return values_of(record); }

Tensor tensor_from_json(const nlohmann::json& record) {
  const Values v = values_of(record);
  if (v.dtype == "int64") {
    std::vector<std::int64_t> data(v.values.begin(), v.values.end());
    return tensor(data).reshape(v.sizes);
  }
  return to_tensor(v);
}

Tensor exact_tensor_from_json(const nlohmann::json& record) {
  const ScalarType dtype = oracle_dtype(record.at("dtype").get<std::string>());
  Tensor t = empty(record.at("sizes").get<Shape>(), dtype);
  // Integers straight from the JSON (a double would round int64s past 2^53); floats through
  // values_of, which reads "nan" and "inf".
  const std::vector<double> floats = is_floating_point(dtype) ? values_of(record).values : std::vector<double>{};
  const std::vector<std::int64_t> ints =
      is_floating_point(dtype) ? std::vector<std::int64_t>{} : record.at("values").get<std::vector<std::int64_t>>();
  visit_dtype(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* out = static_cast<T*>(t.data_ptr());
    for (std::size_t i = 0; i < floats.size(); ++i) out[i] = static_cast<T>(floats[i]);
    for (std::size_t i = 0; i < ints.size(); ++i) out[i] = static_cast<T>(ints[i]);
  });
  return t;
}

void expect_error_json(const std::function<void()>& fn, const nlohmann::json& record) {
  const std::string type = record.at("type").get<std::string>(), message = record.at("message").get<std::string>();
  if (type == "IndexError")
    expect_error<IndexError>(fn, message);
  else if (type == "ValueError")
    expect_error<ValueError>(fn, message);
  else
    expect_error<Error>(fn, message);
}

Tensor to_tensor(const Values& v) {
  std::vector<float> data(v.values.begin(), v.values.end());
  return tensor(data).reshape(v.sizes);
}

std::vector<std::string> oracle_strings(const std::string& name, const std::string& field) {
  return at(name, field).get<std::vector<std::string>>();
}

std::vector<std::vector<std::int64_t>> oracle_int_rows(const std::string& name, const std::string& field) {
  return at(name, field).get<std::vector<std::vector<std::int64_t>>>();
}

}  // namespace kindling::testing
