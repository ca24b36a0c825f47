// Week 6's figures, drawn from what the CUDA simulator records while the kit's kernels run
// (sim::record_trace: every load, store and warp operation of a launch's first thread order, with
// its block, thread and barrier interval) and from its modelled stream timeline. Nothing here is
// drawn by hand: a change to a kernel shows in its figure, and kit.figures notices.

#include "gpu_figures.hpp"
#include "svg.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <kindling/cuda/fixtures.hpp>
#include <kindling/cuda/kernels.hpp>
#include <kindling/cuda/runtime.hpp>
#include <kindling/cuda/sim.hpp>
#include <kindling/draw.hpp>
#include <kindling/kindling.hpp>

namespace kindling::figures {
namespace {
namespace cu = kindling::cuda;
using Event = cu::sim::TracedEvent;

std::string hue(int i, int n, int lightness = 70) {
  return "hsl(" + std::to_string((i * 360 / std::max(n, 1)) % 360) + ", 65%, " + std::to_string(lightness) + "%)";
}

// ---- device arrays for the runs -----------------------------------------------------------------
struct Array {
  explicit Array(std::size_t bytes) : p(cu::runtime().malloc(bytes)) {}
  ~Array() {
    if (p) cu::runtime().free(p);
  }
  Array(const Array&) = delete;
  Array& operator=(const Array&) = delete;
  Array(Array&& o) noexcept : p(o.p) { o.p = nullptr; }
  Array& operator=(Array&&) = delete;
  std::uint64_t id() const {
    std::size_t offset = 0;
    return cu::sim::find(p, &offset)->id;
  }
  template <class T>
  cu::DevPtr<T> ptr() const {
    return cu::device_ptr<T>(p);
  }
  void* p;
};

Array floats(const std::vector<float>& v) {
  Array a(std::max<std::size_t>(1, v.size()) * sizeof(float));
  cu::runtime().memcpy(a.p, v.data(), v.size() * sizeof(float), cu::CopyKind::HostToDevice);
  return a;
}
std::vector<float> counting(std::size_t n) {
  std::vector<float> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<float>(i % 17);
  return v;
}

// Runs `launch` with the trace on and returns its events.
template <class F>
std::vector<Event> traced(F&& launch) {
  cu::sim::record_trace(true);
  launch();
  cu::synchronize();
  std::vector<Event> events = cu::sim::trace();
  cu::sim::record_trace(false);
  return events;
}

// ---- 1. which thread owns which element: a grid-stride loop ------------------------------------
std::string threads_svg(const Words& w) {
  const int n = 40, blocks = 2, threads = 8;
  Array out(n * sizeof(int));
  const auto events = traced([&] { cu::fixtures::owners(out.ptr<int>(), n, blocks, threads); });
  std::vector<std::pair<int, int>> owner(n, {-1, -1});  // (block, thread) of each element's store
  for (const Event& e : events)
    if (e.kind == Event::Kind::Store && !e.shared)
      owner[static_cast<std::size_t>(e.element)] = {static_cast<int>(e.block.x), static_cast<int>(e.thread.x)};
  const int cell = 30, left = 20, top = 44, per_row = blocks * threads;
  Svg s(std::max(left * 2 + per_row * cell, 760), top + 3 * (cell + 26) + 20);
  s.text(left, 20, w.at("threads.title"), 13);
  for (int i = 0; i < n; ++i) {
    const int row = i / per_row, col = i % per_row;
    const double x = left + col * cell, y = top + row * (cell + 26);
    const auto [b, t] = owner[static_cast<std::size_t>(i)];
    s.rect(x, y, cell - 2, cell - 2, b == 0 ? "hsl(210, 65%, 80%)" : "hsl(30, 75%, 78%)", "#666");
    s.text(x + cell / 2.0 - 1, y + 12, std::to_string(b) + "." + std::to_string(t), 10, "middle");
    s.text(x + cell / 2.0 - 1, y + 24, std::to_string(i), 9, "middle", "#777");
    if (col == 0) s.text(x, y - 4, w.at("threads.pass") + " " + std::to_string(row + 1), 10, "start", "#555");
  }
  return s.str();
}

// ---- 2. one warp's addresses and the sectors they touch -----------------------------------------
struct WarpRow {
  std::string caption;
  std::vector<std::int64_t> floats;  // the float index each lane touched (lane order)
};

std::string sectors_svg(const Words& w) {
  std::vector<WarpRow> rows;
  Array x = floats(counting(32 * 32)), y(32 * sizeof(float));
  for (const int stride : {1, 2, 32}) {
    const auto events = traced([&] { cu::fixtures::gather(x.ptr<const float>(), y.ptr<float>(), stride); });
    WarpRow r{w.at("sectors.stride" + std::to_string(stride)), {}};
    for (const Event& e : events)
      if (e.kind == Event::Kind::Load && e.allocation == x.id()) r.floats.push_back(e.element);
    rows.push_back(r);
  }
  {  // the naive transpose's first warp: its store, down a column of out (32 rows)
    Array in = floats(counting(32 * 32)), out(32 * 32 * sizeof(float));
    const auto events = traced([&] { cu::fixtures::transpose_naive(in.ptr<const float>(), out.ptr<float>(), 32, 32); });
    WarpRow r{w.at("sectors.transpose"), {}};
    for (const Event& e : events)
      if (e.kind == Event::Kind::Store && e.allocation == out.id() && e.block.x == 0 && e.block.y == 0 &&
          e.thread.y == 0)
        r.floats.push_back(e.element);
    rows.push_back(r);
  }
  const int slot = 3, box = 8 * slot, gap = 5, left = 20, top = 40, row_h = 58;
  Svg s(left * 2 + 32 * (box + gap), top + static_cast<int>(rows.size()) * row_h + 10);
  s.text(left, 20, w.at("sectors.title"), 13);
  for (std::size_t r = 0; r < rows.size(); ++r) {
    const double y0 = top + static_cast<double>(r) * row_h;
    std::map<std::int64_t, std::vector<std::pair<int, int>>> touched;  // sector -> (slot, lane)
    for (std::size_t lane = 0; lane < rows[r].floats.size(); ++lane) {
      const std::int64_t f = rows[r].floats[lane];
      touched[f / 8].push_back({static_cast<int>(f % 8), static_cast<int>(lane)});
    }
    const std::size_t fewest = (rows[r].floats.size() * 4 + 31) / 32;
    s.text(left, y0 + 12,
           rows[r].caption + ": " + std::to_string(touched.size()) + " " + w.at("sectors.sectors") + " (" +
               w.at("sectors.fewest") + " " + std::to_string(fewest) + ")",
           11);
    int i = 0;
    for (const auto& [sector, slots] : touched) {
      const double x0 = left + i * (box + gap);
      s.rect(x0, y0 + 20, box, 22, "#f4f4f4", "#555");
      for (const auto& [k, lane] : slots) s.rect(x0 + k * slot, y0 + 21, slot, 20, hue(lane, 32, 55));
      ++i;
    }
  }
  return s.str();
}

// ---- 3. the shared tile's sweep along k ---------------------------------------------------------
std::string tile_sweep_svg(const Words& w) {
  const int m = 32, k = 48, n = 32;
  Array a = floats(counting(m * k)), b = floats(counting(k * n)), c(m * n * sizeof(float));
  const auto events =
      traced([&] { cu::matmul_tiled(a.ptr<const float>(), b.ptr<const float>(), c.ptr<float>(), m, k, n); });
  std::map<std::int64_t, int> step_a, step_b;  // element -> the step along k that loaded it (block (0, 0))
  for (const Event& e : events) {
    if (e.kind != Event::Kind::Load || e.shared || e.block.x != 0 || e.block.y != 0) continue;
    const int step = static_cast<int>(e.interval / 2);
    if (e.allocation == a.id()) step_a[e.element] = step;
    if (e.allocation == b.id()) step_b[e.element] = step;
  }
  const int cell = 5, left = 20, top = 50, gap = 24;
  const int a_w = k * cell, a_h = m * cell, b_w = n * cell, b_h = k * cell;
  Svg s(left + a_w + gap + b_w + 170, top + b_h + gap + a_h + 30);
  s.text(left, 20, w.at("tile.title"), 13);
  const auto grid = [&](double x0, double y0, int rows, int cols, const std::map<std::int64_t, int>& steps,
                        const std::string& name) {
    for (int r = 0; r < rows; ++r)
      for (int col = 0; col < cols; ++col) {
        const auto it = steps.find(std::int64_t{r} * cols + col);
        s.rect(x0 + col * cell, y0 + r * cell, cell, cell, it == steps.end() ? "#eeeeee" : hue(it->second, 3, 65));
      }
    s.rect(x0, y0, cols * cell, rows * cell, "none", "#444");
    s.text(x0, y0 - 5, name, 11);
  };
  const double bx = left + a_w + gap, by = top, ax = left, ay = top + b_h + gap;
  grid(bx, by, k, n, step_b, "B (k x n)");
  grid(ax, ay, m, k, step_a, "A (m x k)");
  // C, with block (0, 0)'s tile.
  s.rect(bx, ay, b_w, a_h, "#eeeeee", "#444");
  s.rect(bx, ay, cu::kTile * cell, cu::kTile * cell, "#777");
  s.text(bx, ay - 5, w.at("tile.c"), 11);
  for (int step = 0; step < k / cu::kTile; ++step) {
    s.rect(bx + b_w + 20, top + 20 + step * 20, 12, 12, hue(step, 3, 65));
    s.text(bx + b_w + 38, top + 30 + step * 20, w.at("tile.step") + " " + std::to_string(step + 1), 11);
  }
  return s.str();
}

// ---- 4. the reduction tree and the shuffles -----------------------------------------------------
std::string reduction_svg(const Words& w) {
  const int cols = static_cast<int>(cu::kRowThreads);
  Array x = floats(counting(static_cast<std::size_t>(cols))), out(sizeof(float)), out2(sizeof(float));
  const auto tree = traced([&] { cu::row_sums_shared(x.ptr<const float>(), out.ptr<float>(), 1, cols); });
  const auto warp = traced([&] { cu::row_sums_warp(x.ptr<const float>(), out2.ptr<float>(), 1, cols); });
  // Tree: in each barrier interval after the first, thread t reads two partial sums and stores one.
  std::map<std::uint32_t, std::map<unsigned, std::vector<std::int64_t>>> reads;  // interval -> thread -> slots
  std::map<std::uint32_t, std::set<std::int64_t>> stores;
  for (const Event& e : tree) {
    if (!e.shared || e.interval == 0) continue;
    if (e.kind == Event::Kind::Load) reads[e.interval][e.linear].push_back(e.element);
    if (e.kind == Event::Kind::Store) stores[e.interval].insert(e.element);
  }
  std::erase_if(reads, [&](const auto& r) { return !stores.contains(r.first); });  // thread 0's last read: the total
  const double dx = 3.2, left = 24, top = 44, level_h = 28;
  const int levels = static_cast<int>(stores.size());
  const int shuffle_top = static_cast<int>(top + levels * level_h + 70);
  Svg s(static_cast<int>(left * 2 + cols * dx), shuffle_top + 6 * 26 + 30);
  s.text(left, 20, w.at("reduce.title"), 13);
  const auto px = [&](std::int64_t slot) { return left + static_cast<double>(slot) * dx + dx / 2; };
  for (int slot = 0; slot < cols; ++slot) s.rect(px(slot) - 1.2, top - 2, 2.4, 4, "#555");
  int level = 0;
  for (const auto& [interval, by_thread] : reads) {
    const double y0 = top + level * level_h, y1 = y0 + level_h;
    for (const auto& [t, slots] : by_thread)
      for (const std::int64_t slot : slots) s.line(px(slot), y0 + 2, px(t), y1 - 2, hue(level, levels + 1, 45), 0.7);
    for (const std::int64_t slot : stores[interval]) s.rect(px(slot) - 1.2, y1 - 2, 2.4, 4, "#555");
    s.line(left - 10, y1 + 6, left + cols * dx + 6, y1 + 6, "#bbb", 0.5);
    ++level;
  }
  s.text(left, top + level * level_h + 22,
         std::to_string(level) + " " + w.at("reduce.levels") + " " + std::to_string(cols) + " " + w.at("reduce.sums"),
         11, "start", "#555");
  // Shuffles: warp 0's __shfl_down_sync steps, lane l + delta into lane l.
  s.text(left, shuffle_top - 12, w.at("reduce.shuffles"), 12);
  int step = 0;
  const double lane_dx = (cols * dx) / 32;
  for (const Event& e : warp) {
    if (e.kind != Event::Kind::Warp || e.block.x != 0 || e.linear != 0 || e.interval != 0) continue;
    const double y0 = shuffle_top + step * 26, y1 = y0 + 22;
    for (int lane = 0; lane < 32; ++lane) {
      if (lane + e.arg < 32)
        s.line(left + (lane + e.arg + 0.5) * lane_dx, y0, left + (lane + 0.5) * lane_dx, y1, hue(step, 5, 45), 0.8);
    }
    s.text(left + 32 * lane_dx + 4, y1 - 6, "delta " + std::to_string(e.arg), 10, "end", "#555");
    ++step;
  }
  return s.str();
}

// ---- 5. a register-blocked thread's outputs -----------------------------------------------------
std::string register_block_svg(const Words& w) {
  const int m = cu::kBlockM, k = cu::kBlockK, n = cu::kBlockN;
  Array a = floats(counting(m * k)), b = floats(counting(k * n)), c(m * n * sizeof(float));
  const auto events =
      traced([&] { cu::matmul_register_blocked(a.ptr<const float>(), b.ptr<const float>(), c.ptr<float>(), m, k, n); });
  const std::vector<unsigned> shown = {0, 1, cu::kBlockN / cu::kThreadN};  // thread 0, its neighbour, the next row
  std::map<std::int64_t, int> owner;
  for (const Event& e : events)
    if (e.kind == Event::Kind::Store && e.allocation == c.id())
      for (std::size_t i = 0; i < shown.size(); ++i)
        if (e.linear == shown[i]) owner[e.element] = static_cast<int>(i);
  const int cell = 3, left = 20, top = 44;
  Svg s(left * 2 + n * cell + 220, top + m * cell + 20);
  s.text(left, 20, w.at("register.title"), 13);
  s.rect(left, top, n * cell, m * cell, "#eeeeee", "#444");
  for (const auto& [element, i] : owner)
    s.rect(left + static_cast<double>(element % n) * cell, top + static_cast<double>(element / n) * cell, cell, cell,
           hue(static_cast<int>(i), 3, 45));
  for (std::size_t i = 0; i < shown.size(); ++i) {
    s.rect(left + n * cell + 20, top + 10 + static_cast<double>(i) * 22, 12, 12, hue(static_cast<int>(i), 3, 45));
    s.text(left + n * cell + 38, top + 20 + static_cast<double>(i) * 22,
           w.at("register.thread") + " " + std::to_string(shown[i]), 11);
  }
  s.text(left + n * cell + 20, top + 20 + 3 * 22,
         std::to_string(cu::kThreadM) + " x " + std::to_string(cu::kThreadN) + " " + w.at("register.outputs"), 11,
         "start", "#555");
  return s.str();
}

// ---- 6. the pinned pipeline on the modelled stream timeline -------------------------------------
std::string streams_svg(const Words& w) {
  const int batches = 4;
  const std::int64_t numel = 1 << 16;
  std::vector<Tensor> in, out;
  for (int i = 0; i < batches; ++i) {
    in.push_back(full({numel}, static_cast<double>(i)).pin_memory());
    out.push_back(empty({numel}).pin_memory());
  }
  cu::synchronize();
  cu::sim::clear_timeline();
  cu::pipelined_scale(in, out, 2.0f);
  cu::synchronize();
  std::vector<draw::Bar> bars;
  std::map<std::uint64_t, std::string> lanes;
  int copy = 0, kernel = 0;
  double origin = -1;
  for (const cu::TimelineEntry& e : cu::sim::timeline()) {
    const bool back = e.what.find("DtoH") != std::string::npos;
    const bool is_copy = back || e.what.find("HtoD") != std::string::npos, is_kernel = e.what.rfind("kernel", 0) == 0;
    if (!is_copy && !is_kernel) continue;
    if (origin < 0) origin = e.start_us;
    const std::string lane = w.at("streams.stream") + " " + std::to_string(e.stream);
    const int batch = is_kernel ? kernel++ : back ? -1 : copy++;
    bars.push_back({lane, e.start_us - origin, e.end_us - origin,
                    is_kernel ? "k" + std::to_string(batch)
                    : back    ? "out"
                              : "in" + std::to_string(batch),
                    is_kernel || !back ? batch : -1});
  }
  return draw::timeline_svg(w.at("streams.title"), bars, "us");
}
}  // namespace

std::vector<std::pair<std::string, std::string>> week06_figures(const Words& words) {
  cu::sim::set_mode(cu::SimMode::Lazy);
  return {{"threads", threads_svg(words)},
          {"sectors", sectors_svg(words)},
          {"tile-sweep", tile_sweep_svg(words)},
          {"reduction", reduction_svg(words)},
          {"register-block", register_block_svg(words)},
          {"streams", streams_svg(words)}};
}

}  // namespace kindling::figures
