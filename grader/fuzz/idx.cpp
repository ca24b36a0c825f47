// Fuzz target: the IDX reader (read_idx) and FashionMNIST over two IDX files, plain or
// gzipped. Byte 0 picks the case: the dims argument of read_idx (1 to 3), or FashionMNIST,
// whose two files are the rest of the input split at a point given by bytes 1-2.
// The contract checked beyond "no crash": whatever is returned is consistent.

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <kindling/data.hpp>

#include "fuzz_input.hpp"

namespace {
void write(const std::filesystem::path& p, const std::uint8_t* data, std::size_t size) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
}

const std::filesystem::path& scratch() {
  static const std::filesystem::path dir = [] {
    const std::filesystem::path shm = "/dev/shm";
    auto d = (std::filesystem::is_directory(shm) ? shm : std::filesystem::temp_directory_path()) /
             ("kindling-fuzz-idx-" + std::to_string(::getpid()));
    std::filesystem::create_directories(d);
    std::atexit([] { std::filesystem::remove_all(scratch()); });
    return d;
  }();
  return dir;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 3) return 0;
  const int mode = data[0] % 4;
  if (mode < 3) {
    const int dims = mode + 1;
    kindling::fuzz::MemoryFile f(data + 1, size - 1);
    try {
      const auto idx = kindling::data::read_idx(f.path(), dims);
      std::uint64_t n = 1;
      for (const auto d : idx.dims) n *= static_cast<std::uint64_t>(d);  // fits: the reader checked
      if (idx.dims.size() != static_cast<std::size_t>(dims) || n != idx.data.size()) std::abort();
    } catch (const kindling::Error&) {
    }
    return 0;
  }
  const std::size_t split = std::min<std::size_t>(size - 3, (std::size_t{data[1]} << 8) | data[2]);
  write(scratch() / "train-images-idx3-ubyte", data + 3, split);
  write(scratch() / "train-labels-idx1-ubyte", data + 3 + split, size - 3 - split);
  try {
    kindling::data::FashionMNIST ds(scratch().string());
    for (std::int64_t i = 0; i < std::min<std::int64_t>(ds.size(), 3); ++i) {
      const auto item = ds.get(i);
      if (item[0].dim() != 2 || item[1].item<std::int64_t>() > 9) std::abort();
      (void)item[0].sum().item<std::int64_t>();  // reads every pixel of the image
    }
  } catch (const kindling::Error&) {
  }
  return 0;
}
