// The IDX and CSV readers: the shipped Fashion-MNIST subset, and files that are
// truncated, corrupt or mismatched (written by the tests into a scratch folder).

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <new>

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <kindling/data.hpp>

#include "testing.hpp"

namespace kindling::testing {
namespace {

namespace fs = std::filesystem;

// A fresh scratch folder per test.
fs::path scratch(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("kindling-week04-" + name + "-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

void write_bytes(const fs::path& p, const std::vector<unsigned char>& bytes) {
  std::ofstream out(p, std::ios::binary);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

std::vector<unsigned char> be32(std::uint32_t v) {
  return {static_cast<unsigned char>(v >> 24), static_cast<unsigned char>(v >> 16), static_cast<unsigned char>(v >> 8),
          static_cast<unsigned char>(v)};
}

// An uncompressed IDX file: magic, dims, then `data_bytes` bytes of value 7.
void write_idx(const fs::path& p, std::uint32_t magic, const std::vector<std::uint32_t>& dims, std::size_t data_bytes) {
  std::vector<unsigned char> bytes = be32(magic);
  for (auto d : dims) {
    const auto b = be32(d);
    bytes.insert(bytes.end(), b.begin(), b.end());
  }
  bytes.insert(bytes.end(), data_bytes, 7);
  write_bytes(p, bytes);
}

TEST(EngineFashionMNIST, ShippedSubsetLoads) {
  data::FashionMNIST train(std::string(KINDLING_TEST_DATA) + "/../../../../datasets/fashion-mnist-subset", true);
  ASSERT_EQ(train.size(), 1000);
  EXPECT_EQ(train.images().sizes().vec(), (Shape{1000, 28, 28}));
  const std::vector<std::int64_t> first{9, 0, 0, 3, 0, 2, 7, 2, 5, 5};  // from the IDX file (cut_fashion_mnist.py)
  for (std::size_t i = 0; i < first.size(); ++i)
    EXPECT_EQ(train.get(static_cast<std::int64_t>(i))[1].item<std::int64_t>(), first[i]);
  EXPECT_EQ(sum(train.images().select(0, 0), kInt64).item<std::int64_t>(), 76247);
  data::FashionMNIST test(std::string(KINDLING_TEST_DATA) + "/../../../../datasets/fashion-mnist-subset", false);
  EXPECT_EQ(test.size(), 500);
  EXPECT_STREQ(data::FashionMNIST::classes()[9], "Ankle boot");
}

TEST(EngineFashionMNIST, ToTensorGivesOneChannelFloats) {
  data::FashionMNIST train(std::string(KINDLING_TEST_DATA) + "/../../../../datasets/fashion-mnist-subset");
  data::MapDataset ds(std::make_shared<data::FashionMNIST>(train), data::transforms::ToTensor());
  const Tensor x = ds.get(0)[0];
  EXPECT_EQ(x.sizes().vec(), (Shape{1, 28, 28}));
  EXPECT_EQ(x.dtype(), kFloat32);
  EXPECT_NEAR(sum(x).item<double>(), 76247.0 / 255.0, 1e-3);
}

TEST(EngineIdxReader, WrongMagicNamesTheFile) {
  const fs::path dir = scratch("magic");
  write_idx(dir / "train-images-idx3-ubyte", 0x801, {2, 2, 2}, 8);
  expect_error<Error>([&] { data::read_idx((dir / "train-images-idx3-ubyte").string(), 3); },
                      (dir / "train-images-idx3-ubyte").string() +
                          ": wrong magic number 0x00000801 (expected 0x00000803: unsigned bytes in 3 dims)");
}

TEST(EngineIdxReader, TruncatedDataSaysHowMuchIsMissing) {
  const fs::path dir = scratch("truncated");
  write_idx(dir / "images", 0x803, {10, 28, 28}, 1000);
  expect_error<Error>([&] { data::read_idx((dir / "images").string(), 3); },
                      (dir / "images").string() + ": truncated: expected 7840 bytes of data, got 1000");
  write_idx(dir / "header", 0x803, {10}, 0);  // the header itself stops early
  expect_error<Error>([&] { data::read_idx((dir / "header").string(), 3); },
                      (dir / "header").string() + ": truncated: the header ends before dim 1");
}

// Found by fuzzing: a reader believes no size before the file proves it. These headers claim 4 GiB,
// 8 GiB and 4 GiB of data that is not there; the old reader allocated (and zeroed) all of it
// before finding the file truncated. Read in a child whose data segment may grow by 256 MiB
// at most, so that believing a header shows as std::bad_alloc.
TEST(EngineIdxReader, AHeaderThatClaimsGigabytesCostsOnlyWhatTheFileHolds) {
  const fs::path dir = scratch("claims");
  write_idx(dir / "big", 0x803, {1, 65536, 65536}, 0);  // the 16-byte file fuzzing found
  write_idx(dir / "bigger", 0x803, {2, 65536, 65536}, 100);
  write_idx(dir / "max", 0x801, {0xffffffffu}, 3);
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    long data_kb = 0;
    std::ifstream status("/proc/self/status");
    for (std::string line; std::getline(status, line);)
      if (line.rfind("VmData:", 0) == 0) data_kb = std::stol(line.substr(7));
    const rlim_t limit = static_cast<rlim_t>(data_kb + 256 * 1024) * 1024;
    const rlimit rl{limit, limit};
    if (data_kb == 0 || ::setrlimit(RLIMIT_DATA, &rl) != 0) ::_exit(4);
    const std::pair<const char*, const char*> cases[] = {
        {"big", ": truncated: expected 4294967296 bytes of data, got 0"},
        {"bigger", ": truncated: expected 8589934592 bytes of data, got 100"},
        {"max", ": truncated: expected 4294967295 bytes of data, got 3"}};
    for (const auto& [name, message] : cases) {
      const std::string path = (dir / name).string();
      try {
        data::read_idx(path, name == std::string("max") ? 1 : 3);
        ::_exit(1);
      } catch (const std::bad_alloc&) {
        ::_exit(2);
      } catch (const Error& e) {
        if (e.what() != path + message) ::_exit(3);
      } catch (...) {
        ::_exit(5);
      }
    }
    ::_exit(0);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status)) << "the reader crashed";
  const char* what[] = {"every header was found out with its exact message",
                        "a truncated file was accepted",
                        "the reader allocated what the header claims before reading it (std::bad_alloc)",
                        "a truncated file gave another message than expected",
                        "the memory limit could not be set",
                        "an exception that is not kindling::Error"};
  EXPECT_EQ(WEXITSTATUS(status), 0) << what[std::min(WEXITSTATUS(status), 5)];
}

// Found by fuzzing: {4, 2^31, 2^31} multiplies to 2^64, which wraps to 0 in 64 bits: the old reader
// returned no data for those dims, and FashionMNIST then built images outside their storage.
TEST(EngineIdxReader, DimsWhoseProductOverflowsAreRefused) {
  const fs::path dir = scratch("wrap");
  write_idx(dir / "train-images-idx3-ubyte", 0x803, {4, 0x80000000u, 0x80000000u}, 0);
  write_idx(dir / "train-labels-idx1-ubyte", 0x801, {4}, 4);
  const std::string images = (dir / "train-images-idx3-ubyte").string();
  const std::string message = images +
                              ": the header's dims [4, 2147483648, 2147483648] describe more bytes than any file "
                              "holds (2^63 or more): a damaged header";
  expect_error<Error>([&] { data::read_idx(images, 3); }, message);
  expect_error<Error>([&] { data::FashionMNIST(dir.string()); }, message);
  write_idx(dir / "huge", 0x803, {0xffffffffu, 0xffffffffu, 0xffffffffu}, 0);
  EXPECT_THROW(data::read_idx((dir / "huge").string(), 3), Error);
}

TEST(EngineIdxReader, CorruptGzipIsReported) {
  const fs::path dir = scratch("gzip");
  write_bytes(dir / "labels.gz", {0x1f, 0x8b, 0x08, 0x00, 0, 0, 0, 0, 0, 0x03, 0xde, 0xad, 0xbe, 0xef, 0x00, 0x11});
  try {
    data::read_idx((dir / "labels.gz").string(), 1);
    FAIL() << "a corrupt gzip file was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()).rfind((dir / "labels.gz").string() + ": ", 0), 0u) << e.what();
  }
}

TEST(EngineIdxReader, ImageAndLabelCountsMustAgree) {
  const fs::path dir = scratch("counts");
  write_idx(dir / "train-images-idx3-ubyte", 0x803, {3, 2, 2}, 12);
  write_idx(dir / "train-labels-idx1-ubyte", 0x801, {2}, 2);
  expect_error<Error>([&] { data::FashionMNIST(dir.string()); },
                      "Fashion-MNIST: " + (dir / "train-images-idx3-ubyte").string() + " has 3 images but " +
                          (dir / "train-labels-idx1-ubyte").string() + " has 2 labels");
}

TEST(EngineIdxReader, MissingFilesSayWhereTheyWereLookedFor) {
  const fs::path dir = scratch("missing");
  expect_error<Error>([&] { data::FashionMNIST(dir.string()); },
                      "Fashion-MNIST: " + dir.string() +
                          "/train-images-idx3-ubyte.gz not found (install dataset-fashion-mnist, or pass the folder "
                          "that holds the IDX files)");
}

TEST(EngineCsvDataset, ReadsFeaturesAndLabels) {
  const fs::path dir = scratch("csv");
  std::ofstream(dir / "iris.csv") << "a,b,label\n1.5,2,0\n3,4.25,2\n";
  data::CsvDataset ds((dir / "iris.csv").string());
  ASSERT_EQ(ds.size(), 2);
  EXPECT_TRUE(equal(ds.get(1)[0], tensor({3.0f, 4.25f})));
  EXPECT_EQ(ds.get(1)[1].item<std::int64_t>(), 2);
}

TEST(EngineCsvDataset, BadRowsNameTheLine) {
  const fs::path dir = scratch("csvbad");
  std::ofstream(dir / "bad.csv") << "a,b,label\n1,2,0\n3,x,1\n";
  expect_error<Error>([&] { data::CsvDataset((dir / "bad.csv").string()); },
                      (dir / "bad.csv").string() + ":3: field 2 ('x') is not a number");
  std::ofstream(dir / "short.csv") << "a,b,label\n1,2,0\n3,1\n";
  expect_error<Error>([&] { data::CsvDataset((dir / "short.csv").string()); },
                      (dir / "short.csv").string() + ":3: expected 3 fields, got 2");
}

}  // namespace
}  // namespace kindling::testing
