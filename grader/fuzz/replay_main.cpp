// Replays fuzz inputs through a target without libFuzzer, with the normal compiler: each
// argument is a file or a folder of files (a committed corpus, or crash reproducers), and
// each file is one call of LLVMFuzzerTestOneInput. ./test runs every target over its
// corpus and its reproducers this way (ctest kit.fuzz_replay.*), so a reader that crashes,
// hangs or over-allocates on any committed input fails the suite on every machine.
// A target signals a wrong answer with abort(); anything it throws escapes and fails too.
// Memory: the data segment may grow by 1 GiB at most, so a reader that believes a file's
// header (4 GiB for 16 bytes) fails here with std::bad_alloc, as it would under libFuzzer's
// -malloc_limit_mb. Not under a sanitizer, whose shadow memory needs a free hand.

#include <sys/resource.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "fuzz_input.hpp"
#include "sanitizers.hpp"

namespace {
void limit_memory() {
#ifndef KINDLING_SANITIZED
  long data_kb = 0;
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);)
    if (line.rfind("VmData:", 0) == 0) data_kb = std::stol(line.substr(7));
  const rlim_t limit = static_cast<rlim_t>(data_kb + (1L << 20)) * 1024;
  const rlimit rl{limit, limit};
  if (data_kb > 0) ::setrlimit(RLIMIT_DATA, &rl);
#endif
}
}  // namespace

int main(int argc, char** argv) {
  namespace fs = std::filesystem;
  limit_memory();
  std::vector<fs::path> files;
  for (int i = 1; i < argc; ++i) {
    const fs::path p = argv[i];
    if (fs::is_directory(p)) {
      for (const auto& e : fs::recursive_directory_iterator(p))
        if (e.is_regular_file() && e.path().filename().string()[0] != '.') files.push_back(e.path());
    } else if (fs::exists(p)) {
      files.push_back(p);
    } else {
      std::fprintf(stderr, "replay: %s does not exist\n", argv[i]);
      return 2;
    }
  }
  std::sort(files.begin(), files.end());
  for (const auto& f : files) {
    std::ifstream in(f, std::ios::binary);
    const std::string bytes{std::istreambuf_iterator<char>(in), {}};
    std::fprintf(stderr, "replay: %s (%zu bytes)\n", f.c_str(), bytes.size());
    LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
  }
  std::printf("replay: %zu inputs, no crash\n", files.size());
  return files.empty() ? 1 : 0;
}
