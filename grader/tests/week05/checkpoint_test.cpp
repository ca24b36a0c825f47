// Week 5's checkpoints: a round trip of every dtype, the safetensors layout, a file
// written by Python, damaged files (truncated, flipped, random), processes killed
// mid-save, and an exact resume of model and optimizer.

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
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
      "f: tensor 'b': shape [4611686018427387904] needs more bytes than the file holds");
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
