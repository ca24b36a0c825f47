// The IDX reader (through zlib, which reads gzip and plain files alike). The CSV
// reader is task week04.csv_dataset (src/tasks/csv_dataset.cpp).

#include <zlib.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <kindling/checked.hpp>
#include <kindling/factory.hpp>
#include <kindling/mnist.hpp>

namespace kindling::data {

namespace {
std::string hex32(std::uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%08x", v);
  return buf;
}

std::uint32_t big_endian(const unsigned char* p) {
  return (std::uint32_t{p[0]} << 24) | (std::uint32_t{p[1]} << 16) | (std::uint32_t{p[2]} << 8) | std::uint32_t{p[3]};
}

// Reads exactly n bytes (fewer at the end of the file); throws on a gzip error.
std::size_t read_some(gzFile f, void* dst, std::size_t n, const std::string& path) {
  std::size_t got = 0;
  while (got < n) {
    const unsigned chunk = static_cast<unsigned>(std::min<std::size_t>(n - got, 1u << 30));
    const int r = gzread(f, static_cast<char*>(dst) + got, chunk);
    if (r < 0) {
      int code = 0;
      const char* msg = gzerror(f, &code);
      throw Error(path + ": not a valid IDX file (" + (msg ? msg : "read error") + ")");
    }
    if (r == 0) break;
    got += static_cast<std::size_t>(r);
  }
  return got;
}

std::string find_file(const std::string& root, const std::string& name) {
  for (const std::string& candidate : {root + "/" + name + ".gz", root + "/" + name})
    if (std::filesystem::exists(candidate)) return candidate;
  throw Error("Fashion-MNIST: " + root + "/" + name + ".gz not found (install dataset-fashion-mnist, or pass the " +
              "folder that holds the IDX files)");
}
}  // namespace

IdxFile read_idx(const std::string& path, int expected_dims) {
  gzFile f = gzopen(path.c_str(), "rb");
  if (!f) throw Error(path + ": cannot open");
  std::unique_ptr<gzFile_s, int (*)(gzFile)> closer(f, gzclose);
  unsigned char header[4];
  if (read_some(f, header, 4, path) < 4) throw Error(path + ": truncated: no IDX header");
  const std::uint32_t magic = big_endian(header);
  const std::uint32_t expected = 0x800u + static_cast<std::uint32_t>(expected_dims);
  if (magic != expected)
    throw Error(path + ": wrong magic number " + hex32(magic) + " (expected " + hex32(expected) +
                ": unsigned bytes in " + std::to_string(expected_dims) + " dims)");
  IdxFile idx;
  std::int64_t total = 1;
  for (int d = 0; d < expected_dims; ++d) {
    unsigned char b[4];
    if (read_some(f, b, 4, path) < 4)
      throw Error(path + ": truncated: the header ends before dim " + std::to_string(d));
    idx.dims.push_back(big_endian(b));
    const auto next = checked_mul(total, idx.dims.back());
    if (!next)
      throw Error(path + ": the header's dims " + to_string(idx.dims) +
                  " describe more bytes than any file holds (2^63 or more): a damaged header");
    total = *next;
  }
  // Memory follows the bytes actually read, never the header's word alone: a 16-byte file
  // whose header claims 65536 x 65536 images must be found truncated, not cost 4 GiB first.
  // The buffer grows by what is already there (at least 1 MiB), so a real file costs the
  // usual amortised doubling and a lying one at most twice what it holds.
  constexpr std::size_t kFirstChunk = std::size_t{1} << 20;
  const auto want_total = static_cast<std::uint64_t>(total);
  while (idx.data.size() < want_total) {
    const std::size_t at = idx.data.size();
    const auto want = static_cast<std::size_t>(std::min<std::uint64_t>(want_total - at, std::max(kFirstChunk, at)));
    idx.data.resize(at + want);
    const std::size_t got = read_some(f, idx.data.data() + at, want, path);
    idx.data.resize(at + got);
    if (got < want)
      throw Error(path + ": truncated: expected " + std::to_string(total) + " bytes of data, got " +
                  std::to_string(idx.data.size()));
  }
  return idx;
}

std::string default_fashion_mnist_root() {
  const std::string system = "/usr/share/datasets/fashion-mnist";
  if (std::filesystem::exists(system + "/train-images-idx3-ubyte.gz")) return system;
  return std::string(KINDLING_DATASETS_DIR) + "/fashion-mnist-subset";
}

FashionMNIST::FashionMNIST(const std::string& root, bool train) {
  const std::string prefix = train ? "train" : "t10k";
  const std::string image_path = find_file(root, prefix + "-images-idx3-ubyte");
  const std::string label_path = find_file(root, prefix + "-labels-idx1-ubyte");
  IdxFile images = read_idx(image_path, 3);
  IdxFile labels = read_idx(label_path, 1);
  if (images.dims[0] != labels.dims[0])
    throw Error("Fashion-MNIST: " + image_path + " has " + std::to_string(images.dims[0]) + " images but " +
                label_path + " has " + std::to_string(labels.dims[0]) + " labels");
  images_ = empty({images.dims[0], images.dims[1], images.dims[2]}, kUInt8);
  std::copy(images.data.begin(), images.data.end(), images_.data_ptr<std::uint8_t>());
  labels_ = empty({labels.dims[0]}, kInt64);
  auto* l = labels_.data_ptr<std::int64_t>();
  for (std::size_t i = 0; i < labels.data.size(); ++i) {
    if (labels.data[i] > 9)
      throw Error(label_path + ": label " + std::to_string(labels.data[i]) + " at index " + std::to_string(i) +
                  " is not a Fashion-MNIST class (0-9)");
    l[i] = labels.data[i];
  }
}

Example FashionMNIST::get(std::int64_t index) {
  check_index(index, size());
  return {images_.select(0, index), labels_.select(0, index)};
}

const std::array<const char*, 10>& FashionMNIST::classes() {
  static const std::array<const char*, 10> names = {"T-shirt/top", "Trouser", "Pullover", "Dress", "Coat",
                                                    "Sandal",      "Shirt",   "Sneaker",  "Bag",   "Ankle boot"};
  return names;
}

}  // namespace kindling::data
