// Fuzz target: the CSV dataset (task week04.csv_dataset's reference). Byte 0 picks the
// label column (-2 to 2) and whether line 1 is a header; the rest is the file.

#include <cstdlib>

#include <kindling/data.hpp>

#include "fuzz_input.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  const std::int64_t column = static_cast<std::int64_t>(data[0] % 5) - 2;
  const bool header = (data[0] & 0x80) != 0;
  kindling::fuzz::MemoryFile f(data + 1, size - 1);
  try {
    kindling::data::CsvDataset ds(f.path(), column, header);
    for (std::int64_t i = 0; i < std::min<std::int64_t>(ds.size(), 3); ++i) {
      const auto item = ds.get(i);
      if (item[1].dim() != 0 || item[0].dim() != 1) std::abort();
      (void)item[0].sum().item<double>();
    }
  } catch (const kindling::Error&) {
  }
  return 0;
}
