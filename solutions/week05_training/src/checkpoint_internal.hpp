#pragma once
// The checkpoint header's parts (week 5's src/ only).

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <kindling/checkpoint.hpp>

namespace kindling::serialize::detail {

/// One tensor of the header.
struct Entry {
  std::string name;
  ScalarType dtype = kFloat32;
  Shape shape;
  std::uint64_t begin = 0, end = 0;  ///< data_offsets, relative to the data section
};

/// The parsed header.
struct Header {
  std::vector<Entry> entries;                   ///< in the header's order
  std::map<std::string, std::string> metadata;  ///< __metadata__
  std::string crc;                              ///< metadata["kindling.crc32"], or "" when absent
  std::size_t crc_at = 0;                       ///< where its 8 digits are in the header text
};

/// Parses the header JSON and checks its types (dtype names, shapes, offsets, the
/// metadata's strings, the CRC's form); throws CheckpointError("<name>: ...").
Header parse_header(const std::string& header, const std::string& name);
/// 8 lowercase hex digits.
std::string hex8(std::uint32_t v);
/// safetensors' dtype name ("F32") of a Kindling dtype, and back (nullopt if unknown).
std::string safetensors_dtype(ScalarType t);

}  // namespace kindling::serialize::detail
