#pragma once
// Raw access to the oracle's cases, for tests whose expected values are lists of
// records (index sequences per configuration) rather than tensors.

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace kindling::testing {

/// cases[name] of this week's data/oracle.json.
const nlohmann::json& oracle_json(std::string_view name);

}  // namespace kindling::testing
