// Fuzz target: checkpoint decode (task week05.checkpoint's reference), on raw bytes, with
// and without the CRC required. Without it the fuzzer reaches the structure checks; a file
// that carries a CRC is still checked against it.

#include <cstdlib>
#include <string>

#include <kindling/checkpoint.hpp>

#include "fuzz_input.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  for (const bool require_crc : {false, true}) {
    try {
      const auto contents = kindling::serialize::detail::decode(bytes, "fuzz", require_crc);
      std::size_t total = 0;
      for (const auto& [name, t] : contents.tensors) {
        total += static_cast<std::size_t>(t.numel()) * t.element_size();
        (void)t.sum().item<double>();  // reads every element, bools as bools
      }
      if (total > size) std::abort();  // every byte came from the input
    } catch (const kindling::serialize::CheckpointError&) {
    }
  }
  return 0;
}
