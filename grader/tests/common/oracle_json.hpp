#pragma once
// Raw access to the oracle's cases, for tests whose expected values are lists of
// records (index sequences per configuration) rather than tensors.

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "testing.hpp"

namespace kindling::testing {

/// cases[name] of this week's data/oracle.json.
const nlohmann::json& oracle_json(std::string_view name);

/// A {"sizes", "dtype", "values"} record anywhere in the oracle's cases.
Values values_from_json(const nlohmann::json& record);
/// That record as a tensor of its own dtype (int64 stays int64; floating becomes float32).
Tensor tensor_from_json(const nlohmann::json& record);
/// That record as a row-major tensor of exactly its dtype and sizes, built without any
/// task's code: float64 keeps every bit, and int64 values past 2^53 stay exact.
Tensor exact_tensor_from_json(const nlohmann::json& record);
/// expect_error with the kind and message of an {"type", "message"} record
/// (RuntimeError -> kindling::Error, IndexError, ValueError).
void expect_error_json(const std::function<void()>& fn, const nlohmann::json& record);

}  // namespace kindling::testing
