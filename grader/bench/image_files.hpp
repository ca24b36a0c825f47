#pragma once
// A dataset of compressed images on disk, the input of the feed measurements: week 4's
// (tools/figures/feed_figures.cpp, kindling-figures --record-feed: the pipeline on the CPU with a
// stand-in for the GPU) and week 6's (gpu/week06_device_bench.cpp, BM_FeedPipeline: the same
// pipeline with a real copy and a real step on a GPU). Both read the same files the same way.

#include <fcntl.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <mutex>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <kindling/data.hpp>
#include <kindling/kindling.hpp>

namespace kindling::bench {

/// Images of 3 x kImageSide x kImageSide bytes; the measurements use kImageItems of them in
/// batches of kImageBatch.
constexpr std::int64_t kImageSide = 96, kImageBytes = 3 * kImageSide * kImageSide, kImageItems = 1536, kImageBatch = 32;

/// An image-like item: ramps with a little noise, compressed with zlib (about 2:1, as PNG does
/// with photographs).
inline std::vector<unsigned char> compressed_image(std::int64_t i) {
  std::mt19937 gen(static_cast<unsigned>(i));
  std::uniform_int_distribution<int> noise(0, 1);
  std::vector<unsigned char> raw(static_cast<std::size_t>(kImageBytes));
  for (std::int64_t c = 0; c < 3; ++c)
    for (std::int64_t y = 0; y < kImageSide; ++y)
      for (std::int64_t x = 0; x < kImageSide; ++x)
        raw[static_cast<std::size_t>((c * kImageSide + y) * kImageSide + x)] =
            static_cast<unsigned char>((x * (c + 1) + y * 2 + i * 7 + noise(gen)) & 255);
  uLongf size = compressBound(static_cast<uLong>(raw.size()));
  std::vector<unsigned char> out(size);
  if (compress2(out.data(), &size, raw.data(), static_cast<uLong>(raw.size()), 6) != Z_OK)
    throw std::runtime_error("zlib could not compress an image");
  out.resize(size);
  return out;
}

/// The file of image `i` in `dir`.
inline std::filesystem::path image_file(const std::filesystem::path& dir, std::int64_t i) {
  return dir / (std::to_string(i) + ".z");
}

/// Writes `items` images into `dir` (created if needed); returns their mean size in bytes.
inline std::uint64_t write_image_files(const std::filesystem::path& dir, std::int64_t items = kImageItems) {
  std::filesystem::create_directories(dir);
  std::uint64_t bytes = 0;
  for (std::int64_t i = 0; i < items; ++i) {
    const auto image = compressed_image(i);
    bytes += image.size();
    std::ofstream out(image_file(dir, i), std::ios::binary);
    out.write(reinterpret_cast<const char*>(image.data()), static_cast<std::streamsize>(image.size()));
    if (!out) throw std::runtime_error("cannot write " + image_file(dir, i).string());
  }
  return bytes / static_cast<std::uint64_t>(items);
}

/// Drops the files' pages from the page cache (after writing them back), so that the next read
/// goes to the disk.
inline void drop_image_files_from_cache(const std::filesystem::path& dir, std::int64_t items = kImageItems) {
  for (std::int64_t i = 0; i < items; ++i) {
    const int fd = ::open(image_file(dir, i).c_str(), O_RDONLY);
    if (fd < 0) throw std::runtime_error("cannot open " + image_file(dir, i).string());
    ::fdatasync(fd);
    ::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
    ::close(fd);
  }
}

/// The CPU time of the calling thread, in ms.
inline double thread_cpu_ms() {
  timespec t{};
  ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) * 1e3 + static_cast<double>(t.tv_nsec) / 1e6;
}

/// Reads image i from its file and decodes it: float32 [3, side, side], scaled to [0, 1] and
/// normalised with mean 0.5 and std 0.25, with label i mod 10. Records how long each batch's items
/// took to load (wall clock) and the CPU time they took, per batch of kImageBatch; collate() is
/// data::default_collate, timed.
class ImageFiles : public data::Dataset {
 public:
  explicit ImageFiles(std::filesystem::path dir, std::int64_t items = kImageItems)
      : dir_(std::move(dir)),
        items_(items),
        load_ms_(static_cast<std::size_t>((items + kImageBatch - 1) / kImageBatch), 0.0),
        cpu_ms_(load_ms_.size(), 0.0) {}
  data::Example get(std::int64_t i) override {
    const auto t0 = std::chrono::steady_clock::now();
    const double cpu0 = thread_cpu_ms();
    std::ifstream in(image_file(dir_, i), std::ios::binary);
    const std::vector<unsigned char> packed((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::vector<unsigned char> raw(static_cast<std::size_t>(kImageBytes));
    uLongf size = static_cast<uLongf>(raw.size());
    if (uncompress(raw.data(), &size, packed.data(), static_cast<uLong>(packed.size())) != Z_OK || size != raw.size())
      throw ValueError("image " + std::to_string(i) + " is corrupt");
    Tensor image = empty({3, kImageSide, kImageSide}, kFloat32);
    float* p = image.data_ptr<float>();
    for (std::size_t k = 0; k < raw.size(); ++k) p[k] = (static_cast<float>(raw[k]) / 255.0f - 0.5f) / 0.25f;
    const double took = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    const double cpu = thread_cpu_ms() - cpu0;
    std::lock_guard lock(mutex_);
    load_ms_[static_cast<std::size_t>(i / kImageBatch)] += took;
    cpu_ms_[static_cast<std::size_t>(i / kImageBatch)] += cpu;
    return {image, scalar_tensor(i % 10, kInt64)};
  }
  std::int64_t size() const override { return items_; }
  /// data::default_collate, with its wall-clock time recorded (for take_collate_ms).
  data::Batch collate(std::vector<data::Example> examples) {
    const auto t0 = std::chrono::steady_clock::now();
    data::Batch b = data::default_collate(std::move(examples));
    const double took = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    std::lock_guard lock(mutex_);
    collate_ms_ += took;
    ++collates_;
    return b;
  }
  /// The mean time of a collate since the last call (0 if none).
  double take_collate_ms() {
    std::lock_guard lock(mutex_);
    const double mean = collates_ ? collate_ms_ / static_cast<double>(collates_) : 0.0;
    collate_ms_ = 0;
    collates_ = 0;
    return mean;
  }
  /// Each batch's load time and the CPU time its items took (a short last batch included), since
  /// the last call.
  std::pair<std::vector<double>, std::vector<double>> take_loads() {
    std::lock_guard lock(mutex_);
    auto out = std::pair{load_ms_, cpu_ms_};
    std::fill(load_ms_.begin(), load_ms_.end(), 0.0);
    std::fill(cpu_ms_.begin(), cpu_ms_.end(), 0.0);
    return out;
  }

 private:
  std::filesystem::path dir_;
  std::int64_t items_;
  std::mutex mutex_;
  std::vector<double> load_ms_, cpu_ms_;
  double collate_ms_ = 0;
  std::int64_t collates_ = 0;
};

}  // namespace kindling::bench
