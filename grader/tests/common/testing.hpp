#pragma once
// Helpers for the week tests: exact error checks that let a stub's
// NotImplemented through (so the grader reports "not implemented", not "failed"),
// and access to the expected values PyTorch produced (data/oracle.json).

#include <functional>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <kindling/kindling.hpp>

namespace kindling::testing {

/// Geometry PyTorch reported for a view.
struct Geometry {
  Shape sizes, strides;
  std::int64_t offset = 0;
};

/// Values PyTorch computed, flattened row-major.
struct Values {
  Shape sizes;
  std::string dtype;
  std::vector<double> values;
};

/// An exception PyTorch raised: its Python type and message.
struct RaisedError {
  std::string type, message;
};

Geometry oracle_geometry(const std::string& name);
Values oracle_values(const std::string& name, const std::string& field = "");
RaisedError oracle_error(const std::string& name);
bool oracle_bool(const std::string& name, const std::string& field);
/// A string-valued entry: cases[name][field].
std::string oracle_string(const std::string& name, const std::string& field);
/// A list of (sizes, strides[, flag]) entries, for the stride tables.
struct StrideCase {
  Shape sizes, strides;
  bool flag = false;
};
std::vector<StrideCase> oracle_stride_cases(const std::string& name, const std::string& flag_field = "");
/// A matrix of dtype names (promotion tables).
std::vector<std::vector<std::string>> oracle_dtype_table(const std::string& name);
/// A list of shapes.
std::vector<Shape> oracle_shapes(const std::string& name);

/// Runs `fn`; passes only if it throws exactly `E` (or a subclass) with exactly `message`.
/// NotImplemented is rethrown so that a stub is graded as not implemented.
void expect_error_impl(const std::function<void()>& fn, const std::function<bool(const std::exception&)>& is_kind,
                       const char* kind, const std::string& message);

template <class E>
void expect_error(const std::function<void()>& fn, const std::string& message) {
  expect_error_impl(
      fn, [](const std::exception& e) { return dynamic_cast<const E*>(&e) != nullptr; }, typeid(E).name(), message);
}

/// expect_error with the kind and message PyTorch raised for oracle case `name`
/// (RuntimeError -> kindling::Error, IndexError, ValueError).
void expect_oracle_error(const std::function<void()>& fn, const std::string& name);

/// Sizes, strides and offset equal PyTorch's.
void expect_geometry(const Tensor& t, const Geometry& g);
/// Shape, dtype and values equal PyTorch's (floating values within tolerance).
void expect_values(const Tensor& t, const Values& v, double rtol = 1e-5, double atol = 1e-6);

/// The shared float input of the oracle: arange(24).reshape(2, 3, 4) / 7 - 1.5.
Tensor oracle_x();
/// Week 2's inputs: arange(n).reshape(shape) / scale - shift, float32, requiring grad
/// (tools/oracle/week02.py's ramp()).
Tensor oracle_ramp(const Shape& shape, double scale = 7.0, double shift = 1.5);
/// The gradient the oracle feeds to backward(): cos(0.7 i) over the elements, float32
/// (tools/oracle/common.py's gout()).
Tensor oracle_gout(const Shape& shape);
/// The dtype PyTorch names `name` ("float32", "int64", ...); throws std::runtime_error otherwise.
ScalarType oracle_dtype(const std::string& name);
/// cases[name]["grads"][i]: the gradient of the i-th leaf PyTorch computed.
Values oracle_grad(const std::string& name, std::size_t i);
/// A number-valued entry: cases[name][field].
double oracle_number(const std::string& name, const std::string& field);
/// PyTorch's values as a float32 tensor of their shape.
Tensor to_tensor(const Values& v);
/// A list of strings: cases[name][field].
std::vector<std::string> oracle_strings(const std::string& name, const std::string& field);
/// A list of integer rows: cases[name][field] (or cases[name] when field is "").
std::vector<std::vector<std::int64_t>> oracle_int_rows(const std::string& name, const std::string& field);

}  // namespace kindling::testing
