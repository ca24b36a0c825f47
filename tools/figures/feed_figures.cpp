// Week 4's feed measurement: one epoch of a dataset of compressed images on disk, for num_workers
// 0 to 8 and two loop step times, each batch read, decoded and collated by the loader's workers,
// then pinned by the loop (where the loader's pin_memory pins too) and handed to a stand-in for
// the GPU.
//
// The stand-in: for each batch the loop waits step_ms. From the host's side the copy to a GPU and
// the step on it are exactly that when the batch is pinned and copied with non_blocking: a wait
// while the DMA engine and the device work and the CPU is free. The kit's simulated device cannot
// stand in here: it computes on the same cores as the workers, and its copies check and mark
// every byte (about 1.5 ms of CPU time per MiB, measured by a first version of this program that
// copied each batch to the simulated device in the loop), where a GPU's DMA engine takes no CPU.
// Every configuration runs five times, in rounds over all of them, after a warm-up; the page
// cache of every file is dropped (posix_fadvise DONTNEED) before each run, so the workers read
// the disk. feed_timeline() predicts each epoch from the loads of the runs without workers, batch
// by batch, and the loop's measured time per batch.

#include "feed_figures.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <thread>
#include <tuple>
#include <vector>

#include <kindling/data.hpp>
#include <kindling/feed.hpp>
#include <kindling/kindling.hpp>

#include "../../grader/bench/image_files.hpp"
#include "svg.hpp"

namespace kindling::figures {
namespace {
using Clock = std::chrono::steady_clock;
using bench::ImageFiles;
constexpr std::int64_t kItems = bench::kImageItems, kBatch = bench::kImageBatch, kBatches = kItems / kBatch;
const std::vector<std::int64_t> kWorkers = {0, 1, 2, 3, 4, 6, 8};

double ms_since(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

struct Run {
  double epoch_ms = 0, loop_ms = 0;  // the epoch, and the loop's own time per batch (pin and wait)
  std::vector<double> loads, cpu;    // each batch's read and decode time, and its CPU time
  double collate_ms = 0;             // the mean collate, on the same thread as the batch's loading
};

Run run_epoch(const std::shared_ptr<ImageFiles>& ds, const std::filesystem::path& dir, std::int64_t workers,
              double step_ms) {
  bench::drop_image_files_from_cache(dir);
  Run r;
  const auto t0 = Clock::now();
  // The loader's own pin_memory pins on the loop's thread, inside next(), where its time cannot be
  // told from the wait for a worker; this loop does the same with the same pool, timed.
  data::DataLoader loader(
      ds, {.batch_size = kBatch, .num_workers = workers, .collate_fn = [&ds](std::vector<data::Example> e) {
             return ds->collate(std::move(e));
           }});
  static const auto pool = data::PinnedMemoryPool::create();
  double loop = 0;
  for (const data::Batch& b : loader) {
    const auto s0 = Clock::now();
    const Tensor x = pool->pinned_copy(b[0]), y = pool->pinned_copy(b[1]);
    // The copy to the GPU and the step: a wait, as the host sees them (see the top of this file).
    std::this_thread::sleep_for(std::chrono::duration<double, std::milli>(step_ms));
    loop += ms_since(s0);
  }
  r.epoch_ms = ms_since(t0);
  r.loop_ms = loop / kBatches;
  std::tie(r.loads, r.cpu) = ds->take_loads();
  r.collate_ms = ds->take_collate_ms();
  return r;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}
}  // namespace

void record_feed(const std::filesystem::path& data) {
  const auto dir = std::filesystem::temp_directory_path() / ("kindling-feed-" + std::to_string(::getpid()));
  const std::uint64_t mean_bytes = bench::write_image_files(dir);
  auto ds = std::make_shared<ImageFiles>(dir);
  run_epoch(ds, dir, 2, 0);  // warm-up: the page-cache drop, threads, the pinned pool
  // The mean time to read and decode a batch without workers says which waits make the chart
  // interesting: about a quarter and a half of it.
  double load = 0;
  for (int round = 0; round < 3; ++round)
    for (const double l : run_epoch(ds, dir, 0, 0).loads) load += l / (3 * kBatches);
  const std::vector<double> steps = {std::round(load / 4 * 10) / 10, std::round(load / 2 * 10) / 10};
  // Five rounds, each over every configuration, so that the VM's slow and fast spells fall on all.
  constexpr int kRounds = 5;
  std::map<std::pair<double, std::int64_t>, std::vector<Run>> runs;
  for (int round = 0; round < kRounds; ++round)
    for (const double step_ms : steps)
      for (const std::int64_t n : kWorkers) runs[{step_ms, n}].push_back(run_epoch(ds, dir, n, step_ms));
  // The model's loads: batch by batch, the mean over every run without workers of reading, decoding
  // and collating.
  std::vector<double> solo(kBatches, 0.0);
  for (const double step_ms : steps)
    for (const Run& r : runs[{step_ms, 0}])
      for (std::int64_t k = 0; k < kBatches; ++k)
        solo[static_cast<std::size_t>(k)] +=
            (r.loads[static_cast<std::size_t>(k)] + r.collate_ms) / static_cast<double>(kRounds * steps.size());
  std::ostringstream rows;
  for (const double step_ms : steps)
    for (const std::int64_t n : kWorkers) {
      std::vector<double> epochs, loops, loads, cpus;
      for (const Run& r : runs[{step_ms, n}]) {
        epochs.push_back(r.epoch_ms / kBatches);
        loops.push_back(r.loop_ms);
        double l = 0, c = 0;
        for (std::int64_t k = 0; k < kBatches; ++k) {
          l += r.loads[static_cast<std::size_t>(k)] / kBatches;
          c += r.cpu[static_cast<std::size_t>(k)] / kBatches;
        }
        loads.push_back(l + r.collate_ms);
        cpus.push_back(c);
      }
      const double loop_ms = median(loops);
      const double model = data::feed_timeline(solo, loop_ms, n).back().done / kBatches;
      rows << step_ms << "," << n << "," << median(epochs) << "," << model << "," << median(loads) << ","
           << median(cpus) << "," << loop_ms << "\n";
      std::cerr << "step " << step_ms << " ms, " << n << " workers: " << median(epochs) << " ms a batch (model "
                << model << "), load " << median(loads) << " ms (CPU " << median(cpus) << "), loop " << loop_ms << "\n";
    }
  std::filesystem::remove_all(dir);
  std::ofstream out(data / "week04-feed.csv");
  out << "# kindling-figures --record-feed: " << kItems << " images of 3x" << bench::kImageSide << "x"
      << bench::kImageSide << " bytes, zlib, " << mean_bytes
      << " bytes a file on average, read from disk (page cache dropped before each run), decoded "
      << "to float32 and collated in batches of " << kBatch << " by the loader's workers; the loop pins each "
      << "batch and waits step_ms, a stand-in for the copy to a GPU and the step. Medians of " << kRounds
      << " runs per row (rounds over all rows), " << std::thread::hardware_concurrency()
      << " cores. Per batch: measured_ms the epoch, model_ms what feed_timeline() predicts from the loads "
      << "of the runs without workers and the row's loop_ms, load_ms a batch's loading (reading, decoding and "
      << "collating, wall clock), cpu_ms the CPU time of its reading and decoding, loop_ms the loop's pinning "
      << "and step.\n"
      << "step_ms,workers,measured_ms,model_ms,load_ms,cpu_ms,loop_ms\n"
      << rows.str();
}

namespace {
// A row of week04-feed.csv.
struct FeedRow {
  double step, workers, measured, model, load, cpu, loop;
};
std::vector<FeedRow> read_feed(const std::filesystem::path& csv) {
  std::vector<FeedRow> rows;
  std::ifstream in(csv);
  if (!in) throw std::runtime_error("cannot read " + csv.string());
  std::string line;
  bool header = false;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    if (!header) {
      header = true;
      continue;
    }
    std::stringstream s(line);
    double f[7];
    for (double& x : f) {
      std::string field;
      std::getline(s, field, ',');
      x = std::stod(field);
    }
    rows.push_back({f[0], f[1], f[2], f[3], f[4], f[5], f[6]});
  }
  if (rows.empty()) throw std::runtime_error(csv.string() + " has no rows");
  return rows;
}
std::string one_decimal(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", x);
  return buf;
}
}  // namespace

std::string feed_table(const std::filesystem::path& csv, const std::map<std::string, std::string>& words) {
  const std::vector<FeedRow> rows = read_feed(csv);
  std::vector<double> steps;
  for (const FeedRow& r : rows)
    if (std::find(steps.begin(), steps.end(), r.step) == steps.end()) steps.push_back(r.step);
  const auto number = [](double x) {
    std::ostringstream o;
    o << x;
    return o.str();
  };
  std::ostringstream out;
  out << "| num_workers |";
  for (const FeedRow& r : rows)
    if (r.step == steps[0]) out << " " << number(r.workers) << " |";
  out << "\n|---|";
  for (const FeedRow& r : rows)
    if (r.step == steps[0]) out << "---|";
  out << "\n";
  const auto row = [&](const std::string& label, double step, double FeedRow::*field) {
    out << "| " << label << " |";
    for (const FeedRow& r : rows)
      if (r.step == step) out << " " << one_decimal(r.*field) << " |";
    out << "\n";
  };
  const auto fill = [&](std::string text, double step) {
    const auto at = text.find("{}");
    if (at != std::string::npos) text.replace(at, 2, number(step));
    return text;
  };
  for (const double step : steps) {
    row(fill(words.at("measured"), step), step, &FeedRow::measured);
    row(fill(words.at("model"), step), step, &FeedRow::model);
    row(fill(words.at("loop"), step), step, &FeedRow::loop);
  }
  row(fill(words.at("load"), steps[0]), steps[0], &FeedRow::load);
  row(fill(words.at("cpu"), steps[0]), steps[0], &FeedRow::cpu);
  return out.str();
}

std::string feed_svg(const std::filesystem::path& csv, const std::map<std::string, std::string>& words) {
  using Row = FeedRow;
  const std::vector<Row> rows = read_feed(csv);
  double y_max = 0, x_max = 0;
  for (const Row& r : rows) y_max = std::max({y_max, r.measured, r.model}), x_max = std::max(x_max, r.workers);
  y_max = std::ceil(y_max / 5) * 5;
  const double left = 60, top = 52, w = 460, h = 260;
  Svg s(static_cast<int>(left + w + 210), static_cast<int>(top + h + 60));
  const auto X = [&](double x) { return left + x / x_max * w; };
  const auto Y = [&](double y) { return top + h - y / y_max * h; };
  s.text(left, 22, words.at("title"), 13);
  s.line(left, top + h, left + w, top + h, "#444");
  s.line(left, top, left, top + h, "#444");
  for (double y = 0; y <= y_max; y += 5) {
    s.line(left - 4, Y(y), left + w, Y(y), "#e6e6e6");
    std::ostringstream v;
    v << y;
    s.text(left - 8, Y(y) + 4, v.str(), 11, "end");
  }
  for (const std::int64_t n : kWorkers)
    s.text(X(static_cast<double>(n)), top + h + 16, std::to_string(n), 11, "middle");
  s.text(left + w / 2, top + h + 38, words.at("x"), 12, "middle");
  s.text(left - 40, top - 8, words.at("y"), 12);
  std::vector<double> steps;
  for (const Row& r : rows)
    if (std::find(steps.begin(), steps.end(), r.step) == steps.end()) steps.push_back(r.step);
  const std::string colours[] = {"#1f6fb4", "#d9711c", "#2a9d4a"};
  for (std::size_t i = 0; i < steps.size(); ++i) {
    const std::string& c = colours[i % 3];
    std::vector<std::pair<double, double>> measured, model;
    for (const Row& r : rows)
      if (r.step == steps[i]) {
        measured.emplace_back(X(r.workers), Y(r.measured));
        model.emplace_back(X(r.workers), Y(r.model));
      }
    s.polyline(model, c, 1.5, "5 4");
    s.polyline(measured, c, 2);
    for (const auto& [x, y] : measured) s.circle(x, y, 3, c);
    std::ostringstream label;
    label << words.at("step") << " " << steps[i] << " ms";
    const double ly = top + 20 + static_cast<double>(i) * 46;
    s.text(left + w + 20, ly, label.str(), 12, "start", c);
    s.line(left + w + 20, ly + 12, left + w + 44, ly + 12, c, 2);
    s.text(left + w + 50, ly + 16, words.at("measured"), 11);
    s.polyline({{left + w + 20, ly + 28}, {left + w + 44, ly + 28}}, c, 1.5, "5 4");
    s.text(left + w + 50, ly + 32, words.at("model"), 11);
  }
  return s.str();
}

}  // namespace kindling::figures
