// kindling-figures DIR DATA: draws the lectures' concept figures with the engine's own drawing code
// (<kindling/draw.hpp>, <kindling/draw_graph.hpp>, week 5's train::curves_svg) into DIR; the week-4
// timelines and week-5 curves come from measured runs committed in DATA (lectures/figures/data).
// tools/draw-figures writes them into lectures/figures/ (and renders the .dot files with Graphviz
// where it is installed); the test kit.figures draws them again into a temporary folder and fails
// when one differs from the file committed, so a figure cannot drift from what the engine draws now.
// `kindling-figures --record-loader DATA` measures week 4's two loader runs again, `--record-feed DATA`
// week 4's whole pipeline from disk to the device for num_workers 0 to 8, and
// `kindling-figures --record-ring DATA` week 7's ring all-reduce on 2 and 4 ranks, `--record-allreduce DATA`
// the ring against Gloo's all-reduce, `--record-ddp DATA` DDP's step and its overlap with backward.

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <mutex>
#include <sstream>
#include <thread>
#include <vector>

#include <kindling/autograd.hpp>
#include <kindling/data.hpp>
#include <kindling/draw.hpp>
#include <kindling/draw_graph.hpp>
#include <kindling/kindling.hpp>
#include <kindling/nn.hpp>
#include <kindling/train_loop.hpp>

#include "dist_figures.hpp"
#include "feed_figures.hpp"
#include "gpu_figures.hpp"

using namespace kindling;

namespace {
void write(const std::filesystem::path& dir, const std::string& name, const std::string& text) {
  std::ofstream(dir / name, std::ios::binary) << text;
  std::cout << (dir / name).string() << "\n";
}
// The data rows of a CSV file, each split at its commas: lines starting with '#' are comments and
// the first other line is the header. Every row must have `fields` fields.
std::vector<std::vector<std::string>> csv_rows(const std::filesystem::path& csv, std::size_t fields) {
  std::ifstream in(csv);
  if (!in) throw std::runtime_error("cannot read " + csv.string());
  std::vector<std::vector<std::string>> rows;
  bool header = true;
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    if (header) {
      header = false;
      continue;
    }
    std::vector<std::string> row;
    std::istringstream split(line);
    for (std::string f; std::getline(split, f, ',');) row.push_back(f);
    if (row.size() != fields)
      throw std::runtime_error(csv.string() + ": expected " + std::to_string(fields) + " fields in '" + line + "'");
    rows.push_back(std::move(row));
  }
  return rows;
}

// A run's curves from the CSV that train::curves_csv wrote.
std::vector<train::CurvePoint> read_curves(const std::filesystem::path& csv) {
  std::vector<train::CurvePoint> points;
  for (const auto& r : csv_rows(csv, 6)) {
    train::CurvePoint p;
    p.epoch = std::stoll(r[0]);
    p.train.loss = std::stod(r[1]);
    p.train.accuracy = std::stod(r[2]);
    p.test.loss = std::stod(r[3]);
    p.test.accuracy = std::stod(r[4]);
    p.train.seconds = std::stod(r[5]);
    points.push_back(p);
  }
  return points;
}

// Week 4's timeline, measured: 8 batches of 2 items through a DataLoader with `workers` workers
// (prefetch_factor 2 with workers); each item takes 1-4 ms to load, the loop trains 3 ms on each
// batch. Writes lane,start_ms,end_ms,label,group per bar.
void record_loader(const std::filesystem::path& csv, std::int64_t workers) {
  using Clock = std::chrono::steady_clock;
  const auto t0 = Clock::now();
  const auto ms = [&] { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); };
  std::mutex m;
  std::vector<draw::Bar> bars;
  struct Timed : data::Dataset {
    std::function<void(std::int64_t, double, double)> done;
    std::function<double()> now;
    data::Example get(std::int64_t i) override {
      const double start = now();
      std::this_thread::sleep_for(std::chrono::microseconds(1000 + (i * 7919) % 3000));
      done(i, start, now());
      return {scalar_tensor(i, kInt64)};
    }
    std::int64_t size() const override { return 16; }
  };
  auto ds = std::make_shared<Timed>();
  ds->now = ms;
  ds->done = [&](std::int64_t i, double start, double end) {
    const data::WorkerInfo* w = data::get_worker_info();
    std::lock_guard lock(m);
    bars.push_back({w ? "worker " + std::to_string(w->id) : std::string("loop"), start, end, "i" + std::to_string(i),
                    static_cast<int>(i / 2)});
  };
  data::DataLoader loader(ds, {.batch_size = 2,
                               .num_workers = workers,
                               .prefetch_factor = workers > 0 ? std::optional<std::int64_t>(2) : std::nullopt});
  std::int64_t k = 0;
  double waited_from = ms();
  for (const data::Batch& b : loader) {
    const double got = ms();
    (void)b;
    {
      std::lock_guard lock(m);
      if (workers > 0 && got - waited_from > 0.05) bars.push_back({"loop", waited_from, got, "wait", -1});
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(3));
    const double end = ms();
    std::lock_guard lock(m);
    bars.push_back({"loop", got, end, "b" + std::to_string(k), static_cast<int>(k)});
    ++k;
    waited_from = end;
  }
  std::ofstream out(csv);
  out << "# kindling-figures --record-loader: 8 batches of 2 items, num_workers " << workers
      << " (prefetch_factor 2 with workers); items take "
         "1-4 ms, the loop trains 3 ms a batch (2-vCPU VM)\nlane,start_ms,end_ms,label,group\n";
  for (const draw::Bar& b : bars)
    out << b.lane << "," << b.start << "," << b.end << "," << b.label << "," << b.group << "\n";
}

// The Korean edition's copy of a figure drawn with English words: each whole text element
// `>en<` becomes `>ko<` (lectures/ko/ shows the "-ko" files).
std::string korean(std::string svg, const std::vector<std::pair<std::string, std::string>>& words) {
  for (const auto& [en, ko] : words) {
    const std::string from = ">" + en + "<", to = ">" + ko + "<";
    for (auto at = svg.find(from); at != std::string::npos; at = svg.find(from, at + to.size()))
      svg.replace(at, from.size(), to);
  }
  return svg;
}

// A timeline that record_loader wrote.
std::vector<draw::Bar> read_bars(const std::filesystem::path& csv) {
  std::vector<draw::Bar> bars;
  for (const auto& r : csv_rows(csv, 5))
    bars.push_back({r[0], std::stod(r[1]), std::stod(r[2]), r[3], std::stoi(r[4])});
  return bars;
}
}  // namespace

int main(int argc, char** argv) {
  if (argc == 3 && std::string(argv[1]) == "--record-loader") {  // both runs of week 4's figures
    const std::filesystem::path data = argv[2];
    record_loader(data / "week04-loader-0.csv", 0);
    record_loader(data / "week04-loader-2.csv", 2);
    return 0;
  }
  if (argc == 3 && std::string(argv[1]) == "--record-feed") {  // week 4's pipeline, disk to device
    figures::record_feed(argv[2]);
    return 0;
  }
  if (argc == 4 && std::string(argv[1]) == "--feed-table") {  // week 4's table, as the lecture shows it
    const std::string lang = argv[3];
    const std::map<std::string, std::string> en = {{"measured", "wait {} ms: measured"},
                                                   {"model", "wait {} ms: `feed_timeline`"},
                                                   {"loop", "wait {} ms: the loop's own time"},
                                                   {"load", "a batch's load, wall clock (wait {})"},
                                                   {"cpu", "its reading and decoding, CPU time"}};
    const std::map<std::string, std::string> ko = {{"measured", "대기 {} ms: 측정"},
                                                   {"model", "대기 {} ms: `feed_timeline`"},
                                                   {"loop", "대기 {} ms: 루프 자신의 시간"},
                                                   {"load", "배치 하나의 읽기, 벽시계 시간(대기 {})"},
                                                   {"cpu", "그 읽기와 디코딩의 CPU 시간"}};
    std::cout << figures::feed_table(std::filesystem::path(argv[2]) / "week04-feed.csv", lang == "ko" ? ko : en);
    return 0;
  }
  if (argc == 3 && std::string(argv[1]) == "--record-ring") {  // week 7's ring, on 2 and 4 ranks
    figures::record_ring(argv[2], "/proc/self/exe");
    return 0;
  }
  if (argc == 3 && std::string(argv[1]) == "--ring-rank") return figures::ring_rank_main(argv[2]);
  if (argc == 3 && std::string(argv[1]) == "--record-allreduce") {  // week 7: the ring against Gloo's
    figures::record_allreduce(argv[2], "/proc/self/exe");
    return 0;
  }
  if (argc == 3 && std::string(argv[1]) == "--allreduce-rank") return figures::allreduce_rank_main(argv[2]);
  if (argc == 3 && std::string(argv[1]) == "--record-ddp") {  // week 7: DDP's step and overlap
    figures::record_ddp(argv[2], "/proc/self/exe");
    return 0;
  }
  if (argc == 3 && std::string(argv[1]) == "--ddp-rank") return figures::ddp_rank_main(argv[2]);
  if (argc != 3) {
    std::cerr << "usage: kindling-figures DIR DATA\n";
    return 2;
  }
  const std::filesystem::path dir = argv[1], data = argv[2];
  std::filesystem::create_directories(dir);

  // Week 1: a tensor and its transpose over one storage; a step slice and an expand.
  const Tensor a = arange(6).reshape({2, 3});
  write(dir, "week01-transpose.svg", draw::layout_svg({{"a", a}, {"a.t()", a.t()}}));
  const Tensor x = arange(8);
  write(dir, "week01-slice-expand.svg",
        draw::layout_svg({{"x", x},
                          {"x[1::3]", x.slice(0, 1, std::nullopt, 3)},
                          {"x[:3].expand(2, 3)", x.slice(0, 0, 3).expand({2, 3})}}));

  // Week 3: a Linear(3, 2) weight in its (out, in) layout and the transpose the forward reads;
  // a Conv2d(2, 2, 2) weight (out, in, kh, kw) seen as the (out, in*kh*kw) matrix of im2col's GEMM.
  const Tensor w = arange(6, kFloat32).reshape({2, 3});
  write(dir, "week03-linear.svg",
        draw::layout_svg({{"weight (out 2, in 3)", w}, {"weight.t(), as y = x W^T reads it", w.t()}}));
  const Tensor k = arange(16, kFloat32).reshape({2, 2, 2, 2});
  write(dir, "week03-conv-weight.svg",
        draw::layout_svg({{"weight.view(2, 8): (out, in*kh*kw)", k.view({2, 8})},
                          {"weight[0]: filter 0, (in, kh, kw)", k.select(0, 0)}}));
  write(dir, "week03-linear-ko.svg",
        draw::layout_svg({{"weight (출력 2, 입력 3)", w}, {"weight.t(): y = x W^T가 읽는 모습", w.t()}}));
  write(dir, "week03-conv-weight-ko.svg",
        draw::layout_svg({{"weight.view(2, 8): (출력, 입력*kh*kw)", k.view({2, 8})},
                          {"weight[0]: 필터 0, (입력, kh, kw)", k.select(0, 0)}}));

  // Week 2: y = a * b + a, before backward (each node's dependency count) and after (the grads).
  const Tensor p = tensor({2.0f}).requires_grad_(), q = tensor({3.0f}).requires_grad_();
  const Tensor y = p * q + p;
  const draw::GraphOptions names{
      .names = {{"a", p}, {"b", q}, {"y", y}}, .saved = true, .grads = true, .dependencies = true};
  write(dir, "week02-graph.dot", draw::graph_dot(y, names));
  y.backward();
  write(dir, "week02-graph-after.dot", draw::graph_dot(y, {.names = names.names}));

  // Week 2: the gradient of (x^3).sum() recorded with create_graph: a graph of its own, back to x.
  const Tensor xs = tensor({1.0f, 2.0f}).requires_grad_();
  const Tensor g3 = autograd::grad({xs.pow(3).sum()}, {xs}, {}, std::nullopt, true).at(0);
  write(dir, "week02-double-backward.dot", draw::graph_dot(g3, {.names = {{"x", xs}, {"dy/dx", g3}}, .saved = true}));

  // Week 3: an RNN cell unrolled over two steps: one graph, the same weights at every step.
  {
    manual_seed(0);
    nn::RNNCell cell(2, 2);
    const Tensor x0 = ones({1, 2}), x1 = full({1, 2}, 2.0);
    const Tensor h1 = cell.forward_with_state(x0, {});
    const Tensor h2 = cell.forward_with_state(x1, h1);
    write(dir, "week03-rnn-unrolled.dot",
          draw::graph_dot(h2, {.names = {{"weight_ih", cell.weight_ih},
                                         {"weight_hh", cell.weight_hh},
                                         {"bias_ih", cell.bias_ih},
                                         {"bias_hh", cell.bias_hh},
                                         {"h2", h2}},
                               .saved = false,
                               .grads = false}));
  }

  // Week 4: the loader's pipeline without and with workers, measured once (kindling-figures --record-loader DATA).
  write(dir, "week04-loader-0.svg",
        draw::timeline_svg("num_workers 0: the loop loads each batch's items (i), then trains on it (b)",
                           read_bars(data / "week04-loader-0.csv"), "ms"));
  write(dir, "week04-loader-2.svg",
        draw::timeline_svg("num_workers 2, prefetch_factor 2: workers load ahead, the loop trains in order",
                           read_bars(data / "week04-loader-2.csv"), "ms"));
  const std::vector<std::pair<std::string, std::string>> lanes = {
      {"loop", "루프"}, {"wait", "대기"}, {"worker 0", "워커 0"}, {"worker 1", "워커 1"}};
  write(dir, "week04-loader-0-ko.svg",
        korean(draw::timeline_svg("num_workers 0: 루프가 배치마다 항목을 읽고(i) 그 배치로 학습한다(b)",
                                  read_bars(data / "week04-loader-0.csv"), "ms"),
               lanes));
  write(dir, "week04-loader-2-ko.svg",
        korean(draw::timeline_svg("num_workers 2, prefetch_factor 2: 워커가 미리 읽고, 루프는 순서대로 학습한다",
                                  read_bars(data / "week04-loader-2.csv"), "ms"),
               lanes));

  // Week 4: the whole pipeline, disk to a stand-in GPU, measured once (kindling-figures --record-feed DATA).
  write(dir, "week04-feed.svg",
        figures::feed_svg(
            data / "week04-feed.csv",
            {{"title", "One epoch from disk to a stand-in GPU, 2 cores: time per batch against num_workers"},
             {"x", "num_workers"},
             {"y", "ms per batch"},
             {"measured", "measured"},
             {"model", "feed_timeline()"},
             {"step", "wait"}}));
  write(dir, "week04-feed-ko.svg",
        figures::feed_svg(data / "week04-feed.csv",
                          {{"title", "디스크에서 GPU 대역까지 한 에폭, 코어 2개: num_workers에 따른 배치당 시간"},
                           {"x", "num_workers"},
                           {"y", "배치당 ms"},
                           {"measured", "측정"},
                           {"model", "feed_timeline()"},
                           {"step", "대기"}}));

  // Week 5: the example program's two runs on the kit's subset, measured and committed as CSV.
  write(dir, "week05-mlp-curves.svg",
        train::curves_svg(read_curves(data / "week05-mlp-subset.csv"), "MLP on the Fashion-MNIST subset"));
  write(dir, "week05-cnn-curves.svg",
        train::curves_svg(read_curves(data / "week05-cnn-subset.csv"), "small CNN on the Fashion-MNIST subset"));
  const std::vector<std::pair<std::string, std::string>> axes = {
      {"epoch", "에폭"}, {"loss", "손실"}, {"accuracy", "정확도"}, {"train", "학습"}, {"test", "테스트"}};
  write(dir, "week05-mlp-curves-ko.svg",
        korean(train::curves_svg(read_curves(data / "week05-mlp-subset.csv"), "Fashion-MNIST 부분집합의 MLP"), axes));
  write(dir, "week05-cnn-curves-ko.svg",
        korean(train::curves_svg(read_curves(data / "week05-cnn-subset.csv"), "Fashion-MNIST 부분집합의 작은 CNN"),
               axes));
  // Week 6: from the CUDA simulator's trace of the kit's kernels and its modelled timeline.
  const figures::Words en = {
      {"threads.title",
       "A grid-stride loop: 2 blocks of 8 threads over 40 elements (block.thread above, element below)"},
      {"threads.pass", "pass"},
      {"sectors.title", "One warp's 32 loads or stores, in 32-byte sectors (a lane's float coloured by its lane)"},
      {"sectors.stride1", "x[t], neighbours"},
      {"sectors.stride2", "x[2 t], every other float"},
      {"sectors.stride32", "x[32 t], a column of a 32-wide matrix"},
      {"sectors.transpose", "the naive transpose's store, down a column of out"},
      {"sectors.sectors", "sectors"},
      {"sectors.fewest", "the bytes need"},
      {"tile.title", "matmul_tiled, block (0, 0): the elements of A and B it loads, by step along k"},
      {"tile.c", "C: block (0, 0)'s tile"},
      {"tile.step", "step"},
      {"reduce.title", "row_sums_shared: 256 partial sums, a tree with a __syncthreads under each level"},
      {"reduce.levels", "levels for"},
      {"reduce.sums", "partial sums"},
      {"reduce.shuffles", "row_sums_warp, warp 0: __shfl_down_sync moves lane l + delta into lane l, no barrier"},
      {"register.title", "matmul_register_blocked: the outputs of three threads in a 128 x 128 block tile"},
      {"register.thread", "thread"},
      {"register.outputs", "outputs each, in registers"},
      {"streams.title", "pipelined_scale on the simulator's modelled timeline: copies (in, out) beside kernels (k)"},
      {"streams.stream", "stream"}};
  const figures::Words ko = {
      {"threads.title",
       "그리드 스트라이드 루프: 스레드 8개짜리 블록 2개가 원소 40개를 맡는다 (위: 블록.스레드, 아래: 원소)"},
      {"threads.pass", "회차"},
      {"sectors.title", "워프 하나의 로드·스토어 32개와 32바이트 섹터 (레인마다 색이 다르다)"},
      {"sectors.stride1", "x[t], 이웃한 원소"},
      {"sectors.stride2", "x[2 t], 한 칸씩 건너뛰기"},
      {"sectors.stride32", "x[32 t], 폭 32 행렬의 열 하나"},
      {"sectors.transpose", "단순 전치의 스토어, out의 열을 따라"},
      {"sectors.sectors", "섹터"},
      {"sectors.fewest", "바이트에 필요한 최소"},
      {"tile.title", "matmul_tiled의 블록 (0, 0): k를 따라 단계마다 읽는 A와 B의 원소"},
      {"tile.c", "C: 블록 (0, 0)의 타일"},
      {"tile.step", "단계"},
      {"reduce.title", "row_sums_shared: 부분합 256개, 단계마다 __syncthreads가 있는 트리"},
      {"reduce.levels", "단계로 합치는"},
      {"reduce.sums", "개의 부분합"},
      {"reduce.shuffles", "row_sums_warp의 워프 0: __shfl_down_sync가 레인 l + delta의 값을 레인 l로, 배리어 없이"},
      {"register.title", "matmul_register_blocked: 128 x 128 블록 타일에서 스레드 셋의 출력"},
      {"register.thread", "스레드"},
      {"register.outputs", "출력을 각자 레지스터에"},
      {"streams.title", "시뮬레이터의 모델 타임라인 위 pipelined_scale: 복사(in, out)와 커널(k)이 나란히"},
      {"streams.stream", "스트림"}};
  for (const auto& [name, svg] : figures::week06_figures(en)) write(dir, "week06-" + name + ".svg", svg);
  for (const auto& [name, svg] : figures::week06_figures(ko)) write(dir, "week06-" + name + "-ko.svg", svg);

  // Week 7: the ring all-reduce on 2 and 4 ranks, measured (kindling-figures --record-ring DATA).
  for (const int n : {2, 4}) {
    const auto csv = data / ("week07-ring-" + std::to_string(n) + ".csv");
    const std::string name = "week07-ring-" + std::to_string(n);
    write(dir, name + ".svg",
          figures::ring_svg(csv, n,
                            "ring_all_reduce of 16 MiB on " + std::to_string(n) +
                                " ranks: each rank's sends, reduce-scatter (rs) then all-gather (ag)",
                            "rank", "rs", "ag"));
    write(dir, name + "-ko.svg",
          figures::ring_svg(csv, n,
                            "랭크 " + std::to_string(n) +
                                "개에서 16 MiB의 ring_all_reduce: 랭크마다 보낸 메시지, "
                                "reduce-scatter(rs) 다음 all-gather(ag)",
                            "랭크", "rs", "ag"));
  }
  // Week 7: one DDP backward per rank, its buckets' all-reduces under it (kindling-figures --record-ddp DATA).
  write(dir, "week07-ddp-overlap.svg",
        figures::ddp_svg(data / "week07-ddp.csv",
                         "DistributedDataParallel on 2 ranks, 4 MiB buckets: each bucket's all-reduce (b0 first) "
                         "against backward",
                         "rank", "backward", "wait"));
  write(dir, "week07-ddp-overlap-ko.svg",
        figures::ddp_svg(data / "week07-ddp.csv",
                         "랭크 2개의 DistributedDataParallel, 4 MiB 버킷: 버킷마다의 all-reduce(b0가 먼저)와 backward",
                         "랭크", "backward", "대기"));
  return 0;
}
