// Week 5's checkpoints: a round trip of every dtype, the safetensors layout, a file
// written by Python, damaged files (truncated, flipped, random), processes killed
// mid-save, and an exact resume of model and optimizer.

#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <thread>

#include <gtest/gtest.h>
#include <kindling/kindling.hpp>
#include <kindling/nn.hpp>
#include <kindling/training.hpp>

#include "oracle_json.hpp"
#include "testing.hpp"

using namespace kindling;
using namespace kindling::testing;
using namespace kindling::serialize;
namespace fs = std::filesystem;

namespace {

struct TempDir {
  fs::path path;
  TempDir() {
    path = fs::temp_directory_path() /
           ("kindling-ckpt-" + std::to_string(getpid()) + "-" + std::to_string(std::random_device{}()));
    fs::create_directories(path);
  }
  ~TempDir() { fs::remove_all(path); }
};

std::string read_bytes(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

FileContents sample() {
  FileContents c;
  c.tensors["w"] = tensor({{1.5f, -2.0f, 3.25f}, {0.0f, 4.0f, -1.0f}});
  c.tensors["idx"] = tensor(std::vector<std::int64_t>{7, -3, 0});
  c.tensors["scale"] = full({}, Scalar(0.125), TensorOptions().dtype(kFloat64));
  c.tensors["empty"] = zeros({0, 3});
  c.tensors["t"] = arange(Scalar(12)).reshape({3, 4}).t();  // non-contiguous: saved contiguous
  c.metadata["epoch"] = "3";
  return c;
}

void expect_same(const FileContents& a, const FileContents& b) {
  ASSERT_EQ(a.tensors.size(), b.tensors.size());
  for (const auto& [name, t] : a.tensors) {
    SCOPED_TRACE(name);
    ASSERT_TRUE(b.tensors.count(name));
    const Tensor& u = b.tensors.at(name);
    EXPECT_EQ(u.sizes().vec(), t.sizes().vec());
    EXPECT_EQ(u.dtype(), t.dtype());
    EXPECT_TRUE(equal(u, t.contiguous()));
  }
  for (const auto& [k, v] : a.metadata) EXPECT_EQ(b.metadata.at(k), v) << k;
}

// CRC-32 (zlib's polynomial), bit by bit: what a forger needs to re-seal a header.
std::uint32_t crc32_of(const std::string& bytes) {
  std::uint32_t crc = 0xffffffffu;
  for (const char ch : bytes) {
    crc ^= static_cast<unsigned char>(ch);
    for (int k = 0; k < 8; ++k) crc = (crc >> 1) ^ (0xedb88320u & (0u - (crc & 1u)));
  }
  return ~crc;
}

}  // namespace

// ---- week05.checkpoint ----------------------------------------------------------------------------------------------
TEST(week05_checkpoint, RoundTripsEveryDtypeAndShape) {
  TempDir dir;
  const FileContents c = sample();
  save_file(dir.path / "a.safetensors", c);
  expect_same(c, load_file(dir.path / "a.safetensors"));
}

TEST(week05_checkpoint, TheFileIsSafetensors) {
  TempDir dir;
  save_file(dir.path / "a.safetensors", sample());
  const std::string bytes = read_bytes(dir.path / "a.safetensors");
  ASSERT_GE(bytes.size(), 8u);
  std::uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | static_cast<unsigned char>(bytes[static_cast<std::size_t>(i)]);
  EXPECT_EQ(n % 8, 0u) << "the header is padded to 8 bytes";
  const std::string header = bytes.substr(8, n);
  EXPECT_EQ(header.front(), '{');
  EXPECT_NE(header.find("\"w\":{\"data_offsets\":"), std::string::npos) << header;
  EXPECT_NE(header.find("\"dtype\":\"F32\""), std::string::npos);
  EXPECT_NE(header.find("\"kindling.crc32\":\""), std::string::npos);
  // The data section holds exactly the tensors' bytes: 6*4 + 3*8 + 8 + 0 + 12*8.
  EXPECT_EQ(bytes.size() - 8 - n, 24u + 24u + 8u + 0u + 96u);
}

TEST(week05_checkpoint, ReadsAFileWrittenByPython) {
  const fs::path file = fs::path(KINDLING_TEST_DATA) / "python_written.safetensors";
  // It has no Kindling CRC: refused by default, read when asked to.
  EXPECT_THROW(load_file(file), CheckpointError);
  const FileContents c = load_file(file, /*require_crc=*/false);
  const auto& want = oracle_json("python_safetensors");
  const auto& dtypes = oracle_json("python_safetensors_dtypes");
  ASSERT_EQ(c.tensors.size(), want.size());
  for (const auto& [name, record] : want.items()) {
    SCOPED_TRACE(name);
    const Tensor& t = c.tensors.at(name);
    const std::string dt = dtypes.at(name).get<std::string>();
    EXPECT_EQ(dt == "BOOL"  ? kBool
              : dt == "U8"  ? kUInt8
              : dt == "I64" ? kInt64
              : dt == "F64" ? kFloat64
                            : kFloat32,
              t.dtype());
    const Values v = values_from_json(record);
    EXPECT_EQ(t.sizes().vec(), v.sizes);
    EXPECT_EQ(t.to_vector<double>(), v.values);
  }
  EXPECT_EQ(c.metadata.at("format"), "pt");
}

TEST(EngineCheckpoint, AMissingFileNamesItself) {
  expect_error<CheckpointError>([] { load_file("/nonexistent/ckpt.safetensors"); },
                                "/nonexistent/ckpt.safetensors: cannot open the file (No such file or directory)");
}

TEST(week05_checkpoint, TruncatedFilesAreRefusedAtEveryLength) {
  const std::string bytes = encode(sample());
  for (std::size_t len = 0; len < bytes.size(); ++len) {
    try {
      serialize::detail::decode(bytes.substr(0, len), "f");
      ADD_FAILURE() << "a file cut to " << len << " of " << bytes.size() << " bytes was accepted";
    } catch (const CheckpointError& e) {
      EXPECT_EQ(std::string(e.what()).rfind("f: ", 0), 0u) << e.what();
    }
  }
  expect_error<CheckpointError>([&] { serialize::detail::decode(bytes.substr(0, 5), "f"); },
                                "f: truncated: 5 bytes, less than the 8-byte header length");
}

TEST(week05_checkpoint, EveryFlippedByteIsDetected) {
  // A fuzzer with a fixed seed: flip 1-3 random bytes, 3000 times. The CRC covers
  // header and data, so every change must be refused, with CheckpointError only.
  const std::string bytes = encode(sample());
  std::mt19937 rng(20261123);
  for (int round = 0; round < 3000; ++round) {
    std::string damaged = bytes;
    const int flips = 1 + static_cast<int>(rng() % 3);
    for (int f = 0; f < flips; ++f) {
      const std::size_t at = rng() % damaged.size();
      damaged[at] = static_cast<char>(damaged[at] ^ static_cast<char>(1 + rng() % 255));
    }
    if (damaged == bytes) continue;
    try {
      serialize::detail::decode(damaged, "f");
      std::string where;
      for (std::size_t i = 0; i < bytes.size(); ++i)
        if (bytes[i] != damaged[i])
          where += " byte " + std::to_string(i) + " '" + std::string(1, bytes[i]) + "' -> '" + damaged[i] + "'";
      ADD_FAILURE() << "round " << round << ": a damaged file was accepted:" << where;
      return;
    } catch (const CheckpointError&) {
    }
  }
}

TEST(week05_checkpoint, RandomBytesAndHostileHeadersAreRefused) {
  std::mt19937 rng(7);
  for (int round = 0; round < 500; ++round) {
    std::string junk(rng() % 200, '\0');
    for (auto& ch : junk) ch = static_cast<char>(rng());
    EXPECT_THROW(serialize::detail::decode(junk, "f"), CheckpointError);
  }
  auto file = [](const std::string& header, const std::string& data) {
    std::string out(8, '\0');
    for (int i = 0; i < 8; ++i) out[static_cast<std::size_t>(i)] = static_cast<char>((header.size() >> (8 * i)) & 0xff);
    return out + header + data;
  };
  expect_error<CheckpointError>([&] { serialize::detail::decode(file("[1, 2]", ""), "f"); },
                                "f: the header is not valid JSON");
  expect_error<CheckpointError>(
      [&] { serialize::detail::decode(file(R"({"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1]}})", "x"), "f"); },
      "f: no kindling.crc32 in the metadata: not a Kindling checkpoint, or its header is damaged (to read a "
      "safetensors file written elsewhere, pass require_crc = false)");
  expect_error<CheckpointError>(
      [&] { serialize::detail::decode(file(R"({"a":{"dtype":"F16","shape":[1],"data_offsets":[0,2]}})", "xx"), "f"); },
      "f: tensor 'a': unknown dtype \"F16\"");
  expect_error<CheckpointError>(
      [&] {
        serialize::detail::decode(file(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,4]}})", "xxxx"), "f",
                                  false);
      },
      "f: tensor 'a': shape [2] needs 8 bytes, its offsets give 4");
  expect_error<CheckpointError>(
      [&] {
        serialize::detail::decode(file(R"({"a":{"dtype":"U8","shape":[2],"data_offsets":[0,2]},)"
                                       R"("b":{"dtype":"U8","shape":[2],"data_offsets":[1,3]}})",
                                       "xxx"),
                                  "f", false);
      },
      "f: tensor 'b': its data offsets overlap another's or leave a gap");
  // A size whose product with the element size wraps to 0 mod 2^64, beside a real tensor:
  // it must not pass for an empty one.
  expect_error<CheckpointError>(
      [&] {
        serialize::detail::decode(file(R"({"a":{"dtype":"U8","shape":[3],"data_offsets":[0,3]},)"
                                       R"("b":{"dtype":"F32","shape":[4611686018427387904],"data_offsets":[3,3]}})",
                                       "xxx"),
                                  "f", false);
      },
      "f: tensor 'b': shape [4611686018427387904] is too large for any tensor");
  // A size that does not fit in int64 must not become negative.
  EXPECT_THROW(serialize::detail::decode(
                   file(R"({"a":{"dtype":"U8","shape":[18446744073709551615],"data_offsets":[0,0]}})", ""), "f", false),
               CheckpointError);
  // A size so large that numel * 4 would overflow 64 bits.
  EXPECT_THROW(
      serialize::detail::decode(
          file(R"({"a":{"dtype":"F32","shape":[4611686018427387904,8],"data_offsets":[0,4]}})", "xxxx"), "f", false),
      CheckpointError);
}

TEST(week05_checkpoint, AHeaderLengthNearTwoToThe64IsTruncatedNotWrapped) {
  // N = 2^64 - 1: 8 + N wraps around to 7, which is less than the file's 10 bytes. Compare N
  // with what follows the length (size - 8), which cannot wrap.
  const std::string bytes = std::string(8, '\xff') + "{}";
  expect_error<CheckpointError>([&] { serialize::detail::decode(bytes, "f"); },
                                "f: truncated: the header says 18446744073709551615 bytes but only 2 follow");
}

// Found by fuzzing: a zero size makes the byte count 0, so [0, 2^62, 2^62] passes a check of bytes
// alone; its strides (2^62 * 2^62) overflow. A CRC is no defence: anyone can compute one.
TEST(week05_checkpoint, AnEmptyShapeWhoseStridesOverflowIsRefused) {
  FileContents c;
  c.tensors["a"] = zeros({0, 3});
  std::string bytes = encode(c);
  const std::string from = "\"shape\":[0,3]", to = "\"shape\":[0,4611686018427387904,4611686018427387904]";
  std::uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | static_cast<unsigned char>(bytes[static_cast<std::size_t>(i)]);
  std::string header = bytes.substr(8, n);
  ASSERT_NE(header.find(from), std::string::npos) << header;
  header.replace(header.find(from), from.size(), to);
  header.append((8 - header.size() % 8) % 8, ' ');
  // Re-seal it with a valid CRC, as an attacker would.
  const auto at = header.find("\"kindling.crc32\":\"") + 18;
  header.replace(at, 8, "00000000");
  char hex[9];
  std::snprintf(hex, sizeof hex, "%08x", crc32_of(header + bytes.substr(8 + n)));
  header.replace(at, 8, hex);
  std::string forged(8, '\0');
  for (int i = 0; i < 8; ++i)
    forged[static_cast<std::size_t>(i)] = static_cast<char>((header.size() >> (8 * i)) & 0xff);
  forged += header + bytes.substr(8 + n);
  expect_error<CheckpointError>(
      [&] { serialize::detail::decode(forged, "f"); },
      "f: tensor 'a': shape [0, 4611686018427387904, 4611686018427387904] is too large for any tensor");
  // The engine's own factories refuse such a shape too, with PyTorch's text for a shape that
  // overflows (PyTorch 1.13 itself lets this one through with a wrapped stride of 0).
  expect_error<Error>(
      [] {
        empty({0, std::int64_t{1} << 62, std::int64_t{1} << 62});
      },
      "Storage size calculation overflowed with sizes=[0, 4611686018427387904, 4611686018427387904]");
}

// Found by fuzzing: a bool is one byte holding 0 or 1; any other byte read as a bool is undefined.
TEST(week05_checkpoint, BoolBytesOtherThanZeroAndOneAreRefused) {
  FileContents c;
  c.tensors["mask"] = tensor(std::vector<std::uint8_t>{1, 0, 1}).to(kBool);
  std::string bytes = encode(c);
  ASSERT_EQ(serialize::detail::decode(bytes, "f").tensors.at("mask").sum().item<std::int64_t>(), 2);
  bytes[bytes.size() - 2] = 2;  // the middle element, the CRC not re-sealed: the CRC catches it
  EXPECT_THROW(serialize::detail::decode(bytes, "f"), CheckpointError);
  // Without a CRC (a safetensors file written elsewhere) the byte itself is checked.
  const std::string header = R"({"mask":{"dtype":"BOOL","shape":[3],"data_offsets":[0,3]}})";
  std::string plain(8, '\0');
  for (int i = 0; i < 8; ++i) plain[static_cast<std::size_t>(i)] = static_cast<char>((header.size() >> (8 * i)) & 0xff);
  plain += header + std::string("\x01\x02\x01", 3);
  expect_error<CheckpointError>([&] { serialize::detail::decode(plain, "f", false); },
                                "f: tensor 'mask': element 1 is the byte 2, not a BOOL (0 or 1)");
  plain.back() = 1;
  plain[plain.size() - 2] = 0;
  EXPECT_EQ(serialize::detail::decode(plain, "f", false).tensors.at("mask").sum().item<std::int64_t>(), 2);
}

TEST(week05_checkpoint, AProcessKilledMidSaveLeavesTheLastCompleteFile) {
  // Children write versions 1, 2, 3, ... of a 4 MiB checkpoint as fast as they can;
  // once a child has completed a save, the parent kills it at a random moment. The
  // file must then load, and hold one complete version (every element equal).
  TempDir dir;
  const fs::path path = dir.path / "ckpt.safetensors";
  save_file(path, FileContents{{{"x", full({1 << 20}, Scalar(0.0f))}}, {{"version", "0"}}});
  std::mt19937 rng(99);
  int last_seen = 0;
  for (int round = 0; round < 12; ++round) {
    const pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      try {
        for (int v = 1;; ++v) {
          const int version = (round + 1) * 100000 + v;
          save_file(path, FileContents{{{"x", full({1 << 20}, Scalar(static_cast<float>(version)))}},
                                       {{"version", std::to_string(version)}}});
        }
      } catch (...) {
        _exit(3);  // never return into the test runner from a forked child
      }
    }
    // Wait (up to 20 s) until this child has completed one save, then let it run a
    // random while longer: kills land in the middle of later saves.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (std::chrono::steady_clock::now() < deadline) {
      try {
        if (std::stoi(load_file(path).metadata.at("version")) > (round + 1) * 100000) break;
      } catch (const CheckpointError&) {
        ADD_FAILURE() << "round " << round << ": a reader saw a damaged file while a save was running";
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    std::this_thread::sleep_for(std::chrono::microseconds(rng() % 20000));
    kill(pid, SIGKILL);
    int status = 0;
    waitpid(pid, &status, 0);
    FileContents c;
    ASSERT_NO_THROW(c = load_file(path)) << "round " << round;
    const int version = std::stoi(c.metadata.at("version"));
    const auto x = c.tensors.at("x").to_vector<float>();
    for (float e : x) ASSERT_EQ(e, static_cast<float>(version)) << "round " << round << ": a mixed file";
    EXPECT_GT(version, (round + 1) * 100000) << "round " << round << ": this child's saves never completed";
    ASSERT_FALSE(WIFEXITED(status) && WEXITSTATUS(status) == 3) << "round " << round << ": the child's save threw";
    last_seen = version;
  }
  EXPECT_GT(last_seen, 0);
}

TEST(week05_checkpoint, AnUnwritableFolderIsAClearError) {
  try {
    save_file("/nonexistent-folder/ckpt.safetensors", sample());
    ADD_FAILURE() << "no error";
  } catch (const CheckpointError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("/nonexistent-folder/ckpt.safetensors: cannot write: ", 0), 0u) << e.what();
  }
}

TEST(week05_checkpoint, AFailedWriteRemovesItsTemporaryFile) {
  // The target is a folder: the temporary file is written, then rename() fails (EISDIR).
  TempDir dir;
  fs::create_directory(dir.path / "ckpt.safetensors");
  EXPECT_THROW(write_atomically(dir.path / "ckpt.safetensors", "some bytes"), CheckpointError);
  std::vector<std::string> left;
  for (const auto& entry : fs::directory_iterator(dir.path)) left.push_back(entry.path().filename().string());
  EXPECT_EQ(left, std::vector<std::string>{"ckpt.safetensors"})
      << "when the write fails, remove the temporary file: nothing else may be left in the folder";
}

TEST(week05_checkpoint, AShortWriteIsContinuedOrReportedNeverRenamedIntoPlace) {
  // A file size limit of 4 KiB (RLIMIT_FSIZE) makes write() write only the first 4096 bytes
  // of a longer buffer and return that count; the next write() fails with EFBIG (SIGXFSZ
  // ignored). A save that takes the short count as success renames a cut file into place.
  TempDir dir;
  const fs::path path = dir.path / "ckpt.safetensors";
  write_atomically(path, "the old file");
  const std::string bytes(64 * 1024, 'x');
  rlimit saved{};
  ASSERT_EQ(getrlimit(RLIMIT_FSIZE, &saved), 0);
  ASSERT_TRUE(saved.rlim_cur == RLIM_INFINITY || saved.rlim_cur > bytes.size()) << "a file size limit is set already";
  rlimit small = saved;
  small.rlim_cur = 4096;
  ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &small), 0);
  const auto previous = signal(SIGXFSZ, SIG_IGN);
  bool threw = false;
  try {
    write_atomically(path, bytes);
  } catch (const CheckpointError&) {
    threw = true;
  }
  setrlimit(RLIMIT_FSIZE, &saved);
  signal(SIGXFSZ, previous);
  EXPECT_TRUE(threw) << "write() wrote 4096 of 65536 bytes and then failed: loop until every byte is written, and "
                        "throw CheckpointError when a write fails";
  EXPECT_EQ(read_bytes(path), "the old file") << "a write that did not complete must leave the old file in place";
}

// ---- training checkpoints (given)
// ------------------------------------------------------------------------------------
TEST(EngineCheckpoint, ResumingIsBitForBitTheSameAsNotStopping) {
  TempDir dir;
  auto data = [](int step) {
    manual_seed(static_cast<std::uint64_t>(1000 + step));
    return std::pair{randn({8, 4}), randn({8, 2})};
  };
  auto train = [&](nn::Linear& m, optim::Optimizer& opt, int from, int to) {
    for (int s = from; s < to; ++s) {
      const auto [x, y] = data(s);
      opt.zero_grad();
      nn::functional::mse_loss(m(x), y).backward();
      opt.step();
    }
  };
  manual_seed(1);
  nn::Linear straight(4, 2);
  optim::Adam opt_a(straight.parameters(), optim::Adam::Config{.lr = 0.05, .amsgrad = true});
  train(straight, opt_a, 0, 6);

  manual_seed(1);
  nn::Linear first(4, 2);
  optim::Adam opt_b(first.parameters(), optim::Adam::Config{.lr = 0.05, .amsgrad = true});
  train(first, opt_b, 0, 3);
  save_checkpoint(dir.path / "c.safetensors", first, &opt_b, 3);

  manual_seed(42);  // a different model, as a fresh process would build
  nn::Linear resumed(4, 2);
  optim::Adam opt_c(resumed.parameters(), optim::Adam::Config{.lr = 0.05, .amsgrad = true});
  const auto meta = load_checkpoint(dir.path / "c.safetensors", resumed, &opt_c);
  EXPECT_EQ(meta.at("epoch"), "3");
  train(resumed, opt_c, 3, 6);
  EXPECT_TRUE(equal(resumed.weight, straight.weight));
  EXPECT_TRUE(equal(resumed.bias, straight.bias));
}

TEST(EngineCheckpoint, AModelOfAnotherShapeIsRefused) {
  TempDir dir;
  nn::Linear a(4, 2), b(3, 2);
  save_checkpoint(dir.path / "c.safetensors", a, nullptr, 0);
  EXPECT_THROW(load_checkpoint(dir.path / "c.safetensors", b, nullptr), Error);
}

// ---- optimizer state dicts and PyTorch's checkpoints (given)
// ---------------------------------------------------------------------
namespace {
std::pair<Tensor, Tensor> python_batch(int t) {
  std::vector<float> x, y;
  for (int i = 0; i < 6; ++i) {
    for (int j = 0; j < 4; ++j) x.push_back(static_cast<float>(std::sin(0.37 * t + 0.11 * i + 0.7 * j)));
    for (int j = 0; j < 3; ++j) y.push_back(static_cast<float>(std::cos(0.23 * t + 0.5 * i + 0.3 * j)));
  }
  return {tensor(x).reshape({6, 4}), tensor(y).reshape({6, 3})};
}

std::vector<optim::ParamGroup> two_groups(nn::Linear& m) {
  std::vector<optim::ParamGroup> groups(2);
  groups[0].params = {m.weight};
  groups[1].params = {m.bias};
  return groups;
}
}  // namespace

TEST(EngineCheckpoint, ContinuesAnAdamRunThatPyTorchSaved) {
  // PyTorch trained 5 steps and saved its state_dict()s; 5 more steps here must land
  // where PyTorch's own 5 more steps landed.
  manual_seed(5);
  nn::Linear m(4, 3);
  optim::Adam opt(two_groups(m), optim::Adam::Config{.lr = 0.5});  // options all come from the file
  const auto meta = load_checkpoint(fs::path(KINDLING_TEST_DATA) / "python_checkpoint.safetensors", m, &opt);
  EXPECT_EQ(meta.at("epoch"), "5");
  EXPECT_EQ(opt.param_groups()[0].options["lr"], 0.05);
  EXPECT_EQ(opt.param_groups()[0].options["amsgrad"], 1);
  EXPECT_EQ(opt.param_groups()[1].options["beta1"], 0.8);
  EXPECT_EQ(opt.state(m.weight).step, 5);
  for (int t = 5; t < 10; ++t) {
    const auto [x, y] = python_batch(t);
    opt.zero_grad();
    nn::functional::mse_loss(m(x), y).backward();
    opt.step();
  }
  const auto& want = oracle_json("python_checkpoint");
  expect_values(m.weight, values_from_json(want.at("weight")), 1e-5, 1e-6);
  expect_values(m.bias, values_from_json(want.at("bias")), 1e-5, 1e-6);
}

TEST(EngineCheckpoint, TheOptimizerIsSavedInPyTorchsLayout) {
  manual_seed(5);
  nn::Linear m(4, 3);
  optim::Adam opt(two_groups(m), optim::Adam::Config{.lr = 0.05, .betas = {0.8, 0.99}, .amsgrad = true});
  const auto [x, y] = python_batch(0);
  nn::functional::mse_loss(m(x), y).backward();
  opt.step();
  TempDir dir;
  save_checkpoint(dir.path / "c.safetensors", m, &opt, 1);
  const FileContents c = load_file(dir.path / "c.safetensors");
  const auto groups = nlohmann::json::parse(c.metadata.at("optimizer.param_groups"));
  ASSERT_EQ(groups.size(), 2u);
  EXPECT_EQ(groups[0].at("params"), nlohmann::json::array({0}));
  EXPECT_EQ(groups[1].at("params"), nlohmann::json::array({1}));
  EXPECT_EQ(groups[0].at("betas"), nlohmann::json::array({0.8, 0.99}));
  EXPECT_EQ(groups[0].at("amsgrad"), true);
  EXPECT_EQ(groups[0].at("lr"), 0.05);
  for (const char* name : {"exp_avg", "exp_avg_sq", "max_exp_avg_sq", "step"}) {
    EXPECT_TRUE(c.tensors.count(std::string("optimizer.state.0.") + name)) << name;
    EXPECT_TRUE(c.tensors.count(std::string("optimizer.state.1.") + name)) << name;
  }
  EXPECT_EQ(c.tensors.at("optimizer.state.0.step").item<double>(), 1.0);
  EXPECT_EQ(c.tensors.at("optimizer.state.0.exp_avg").sizes().vec(), (std::vector<std::int64_t>{3, 4}));
}

TEST(EngineOptimizers, StateDictKeysStateByIndexAndOnlyForParametersWithState) {
  const Tensor a = zeros({2}).requires_grad_(), b = zeros({3}).requires_grad_();
  optim::SGD opt({a, b}, optim::SGD::Config{.lr = 0.1, .momentum = 0.9});
  a.mutable_grad() = ones({2});
  opt.step();  // b has no gradient: no state, as in PyTorch
  const optim::OptimizerState sd = opt.state_dict();
  ASSERT_EQ(sd.param_groups.size(), 1u);
  EXPECT_EQ(sd.param_groups[0].params, (std::vector<std::int64_t>{0, 1}));
  EXPECT_EQ(sd.param_groups[0].options["momentum"], 0.9);
  ASSERT_EQ(sd.state.size(), 1u);
  ASSERT_TRUE(sd.state.count(0));
  // A copy: stepping on does not change the saved buffer.
  const auto saved = sd.state.at(0).buffers.at("momentum_buffer").to_vector<float>();
  opt.step();
  EXPECT_EQ(sd.state.at(0).buffers.at("momentum_buffer").to_vector<float>(), saved);
}

TEST(EngineOptimizers, LoadStateDictRefusesWhatDoesNotFitWithPyTorchsTexts) {
  nn::Linear m(4, 3);
  optim::Adam two(two_groups(m), optim::Adam::Config{});
  const optim::OptimizerState sd = two.state_dict();
  const auto& errors = oracle_json("optimizer_state_errors");
  nn::Linear n(4, 3);
  optim::Adam one(n.parameters(), optim::Adam::Config{});
  expect_error_json([&] { one.load_state_dict(sd); }, errors.at("group_count"));
  std::vector<optim::ParamGroup> groups(2);
  groups[0].params = {zeros({1}).requires_grad_()};
  groups[1].params = {zeros({2}).requires_grad_(), zeros({3}).requires_grad_()};
  optim::Adam other(groups, optim::Adam::Config{});
  expect_error_json([&] { other.load_state_dict(sd); }, errors.at("group_size"));
  // Where PyTorch would load and fail at the next step, Kindling refuses at once.
  const Tensor a = zeros({2}).requires_grad_();
  optim::SGD sgd({a}, optim::SGD::Config{.lr = 0.1, .momentum = 0.9});
  optim::OptimizerState wrong = sgd.state_dict();
  wrong.state[0].buffers["momentum_buffer"] = zeros({5});
  try {
    sgd.load_state_dict(wrong);
    ADD_FAILURE() << "no error";
  } catch (const ValueError& e) {
    EXPECT_NE(std::string(e.what()).find("'momentum_buffer' of parameter 0 has shape [5]"), std::string::npos)
        << e.what();
  }
  EXPECT_EQ(sgd.state_dict().state.size(), 0u) << "nothing may change when it throws";
  wrong.state.clear();
  wrong.state[7].step = 1;
  EXPECT_THROW(sgd.load_state_dict(wrong), ValueError);
}

TEST(EngineCheckpoint, APartThatDoesNotFitChangesNothing) {
  TempDir dir;
  nn::Linear a(4, 3);
  optim::SGD opt_a(a.parameters(), optim::SGD::Config{.lr = 0.1, .momentum = 0.9});
  a.weight.mutable_grad() = ones({3, 4});
  a.bias.mutable_grad() = ones({3});
  opt_a.step();
  save_checkpoint(dir.path / "c.safetensors", a, &opt_a, 1);
  // Same model, an optimizer with one group of one parameter: refused, and the
  // model keeps its own weights.
  nn::Linear b(4, 3);
  const auto before = b.weight.to_vector<float>();
  optim::SGD opt_b({b.weight}, optim::SGD::Config{.lr = 0.1});
  try {
    load_checkpoint(dir.path / "c.safetensors", b, &opt_b);
    ADD_FAILURE() << "no error";
  } catch (const CheckpointError& e) {
    EXPECT_NE(std::string(e.what()).find("c.safetensors: "), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("doesn't match the size of optimizer's group"), std::string::npos) << e.what();
  }
  EXPECT_EQ(b.weight.to_vector<float>(), before);
  EXPECT_EQ(opt_b.param_groups()[0].options["lr"], 0.1);
  // A model of another shape names the key, and the optimizer is left alone.
  nn::Linear c(5, 3);
  optim::SGD opt_c(c.parameters(), optim::SGD::Config{.lr = 0.3, .momentum = 0.9});
  try {
    load_checkpoint(dir.path / "c.safetensors", c, &opt_c);
    ADD_FAILURE() << "no error";
  } catch (const CheckpointError& e) {
    EXPECT_NE(std::string(e.what()).find("'weight' has shape [3, 4], the model's [3, 5]"), std::string::npos)
        << e.what();
  }
  EXPECT_EQ(opt_c.param_groups()[0].options["lr"], 0.3);
}

TEST(EngineCheckpoint, SchedulesOfEveryKindTravelInTheCheckpoint) {
  namespace lrs = optim::lr_scheduler;
  TempDir dir;
  auto run = [](auto& opt, auto& schedule, int epochs) {
    std::vector<double> lrs;
    for (int e = 0; e < epochs; ++e) {
      opt.step();
      if constexpr (std::is_same_v<std::decay_t<decltype(schedule)>, lrs::ReduceLROnPlateau>)
        schedule.step(1.0);  // a flat metric: cuts after the patience runs out
      else
        schedule.step();
      lrs.push_back(opt.param_groups()[0].options["lr"]);
    }
    return lrs;
  };
  auto warmup_cosine = [](optim::Optimizer& o) {
    return std::make_unique<lrs::SequentialLR>(
        o,
        std::vector<std::shared_ptr<lrs::LRScheduler>>{std::make_shared<lrs::LinearLR>(o, 0.1, 1.0, 3),
                                                       std::make_shared<lrs::CosineAnnealingLR>(o, 10, 0.0)},
        std::vector<std::int64_t>{3});
  };
  nn::Linear m(2, 2);
  {  // SequentialLR: 5 epochs, save, 5 more == 10 straight
    optim::SGD straight_opt(m.parameters(), optim::SGD::Config{.lr = 0.1});
    auto straight = warmup_cosine(straight_opt);
    const auto want = run(straight_opt, *straight, 10);
    optim::SGD a_opt(m.parameters(), optim::SGD::Config{.lr = 0.1});
    auto a = warmup_cosine(a_opt);
    run(a_opt, *a, 5);
    save_checkpoint(dir.path / "seq.safetensors", TrainingState{.optimizer = &a_opt, .scheduler = a.get()});
    optim::SGD b_opt(m.parameters(), optim::SGD::Config{.lr = 0.1});
    auto b = warmup_cosine(b_opt);
    TrainingState state{.optimizer = &b_opt, .scheduler = b.get()};
    load_checkpoint(dir.path / "seq.safetensors", state);
    const auto got = run(b_opt, *b, 5);
    EXPECT_EQ(got, std::vector<double>(want.begin() + 5, want.end()));
  }
  {  // ReduceLROnPlateau: its bad-epoch count travels too
    const lrs::ReduceLROnPlateau::Config cfg{.factor = 0.5, .patience = 2};
    optim::SGD straight_opt(m.parameters(), optim::SGD::Config{.lr = 0.1});
    lrs::ReduceLROnPlateau straight(straight_opt, cfg);
    const auto want = run(straight_opt, straight, 10);
    optim::SGD a_opt(m.parameters(), optim::SGD::Config{.lr = 0.1});
    lrs::ReduceLROnPlateau a(a_opt, cfg);
    run(a_opt, a, 5);
    save_checkpoint(dir.path / "plateau.safetensors", TrainingState{.optimizer = &a_opt, .scheduler = &a});
    optim::SGD b_opt(m.parameters(), optim::SGD::Config{.lr = 0.1});
    lrs::ReduceLROnPlateau b(b_opt, cfg);
    TrainingState state{.optimizer = &b_opt, .scheduler = &b};
    load_checkpoint(dir.path / "plateau.safetensors", state);
    EXPECT_EQ(run(b_opt, b, 5), std::vector<double>(want.begin() + 5, want.end()));
    // A file without a schedule cannot restore one.
    save_checkpoint(dir.path / "none.safetensors", TrainingState{.optimizer = &a_opt});
    TrainingState wants_one{.optimizer = &b_opt, .scheduler = &b};
    EXPECT_THROW(load_checkpoint(dir.path / "none.safetensors", wants_one), CheckpointError);
  }
}
