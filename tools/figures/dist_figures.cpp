// Week 7's figures and measurements, each recorded once on real ranks (started through the week's
// launcher) and committed as CSV, like week 4's loader timelines:
// - `--record-ring DATA`: timelines of the reference ring_all_reduce, each rank's sends drawn from
//   the times its group recorded;
// - `--record-allreduce DATA`: bus bandwidth of the reference ring against Gloo's own all-reduce,
//   4 KiB to 64 MiB on 2 and 4 ranks, in one run;
// - `--record-ddp DATA`: a training step of one process, of naive data parallelism (one all-reduce
//   per parameter after backward) and of DistributedDataParallel's buckets overlapping backward,
//   on 2 ranks, and the timeline of one DDP backward per rank.

#include "dist_figures.hpp"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <algorithm>
#include <chrono>

#include <kindling/ddp.hpp>
#include <kindling/distributed.hpp>
#include <kindling/draw.hpp>
#include <kindling/kindling.hpp>
#include <kindling/launch.hpp>
#include <kindling/nn.hpp>
#include <kindling/ring.hpp>
#include <kindling/training.hpp>

namespace kindling::figures {
namespace {
namespace dist = kindling::distributed;
constexpr std::int64_t kFloats = 4 * 1024 * 1024;  // 16 MiB a rank

std::filesystem::path rank_file(const std::filesystem::path& csv, int rank) {
  return csv.string() + ".rank" + std::to_string(rank);
}

// Launches `n` ranks of this program with `args`; exits with the launcher's summary if one fails.
void launch_ranks(const std::string& self, int n, const std::vector<std::string>& args, const std::string& what,
                  std::chrono::seconds timeout, const std::map<std::string, std::string>& environment = {}) {
  dist::LaunchOptions o;
  o.nproc = n;
  o.command = {self};
  o.command.insert(o.command.end(), args.begin(), args.end());
  o.timeout = timeout;
  o.environment = environment;
  const auto result = dist::launch(o);
  if (!result.ok()) {
    std::cerr << "kindling-figures " << what << ": " << result.summary() << "\n";
    for (const auto& r : result.ranks) std::cerr << r.output;
    std::exit(1);
  }
}

// Appends the `n` ranks' files of `csv` to `out`, and removes them.
void append_ranks(std::ostream& out, const std::filesystem::path& csv, int n) {
  for (int r = 0; r < n; ++r) {
    std::ifstream in(rank_file(csv, r));
    out << in.rdbuf();
    std::filesystem::remove(rank_file(csv, r));
  }
}
}  // namespace

int ring_rank_main(const std::filesystem::path& csv) {
  dist::ProcessGroup group = dist::ProcessGroup::from_environment();
  const Tensor x = full({kFloats}, static_cast<double>(group.rank()));
  dist::ring_all_reduce(group, x);  // once to warm the connections up
  group.barrier();
  group.record_messages(true);
  dist::ring_all_reduce(group, x);
  const auto events = group.recorded_messages();
  group.record_messages(false);
  std::ofstream out(rank_file(csv, group.rank()));
  for (const auto& e : events)
    if (e.send) out << group.rank() << "," << e.posted_ms << "," << e.done_ms << "," << e.tag << "," << e.bytes << "\n";
  return 0;
}

void record_ring(const std::filesystem::path& data, const std::string& self) {
  for (const int n : {2, 4}) {
    const auto csv = data / ("week07-ring-" + std::to_string(n) + ".csv");
    launch_ranks(self, n, {"--ring-rank", csv.string()}, "--record-ring", std::chrono::seconds(120));
    std::ofstream out(csv);
    out << "# kindling-figures --record-ring: the reference ring_all_reduce of " << kFloats * 4 / (1024 * 1024)
        << " MiB of float32 on " << n << " ranks over Gloo on the loopback interface (2-vCPU VM), each rank's "
        << "sends: from the send() call to the return of its wait() (after the step's recv), in ms from its group's "
           "creation\nrank,start_ms,end_ms,tag,bytes\n";
    append_ranks(out, csv, n);
    std::cout << csv.string() << "\n";
  }
}

namespace {
double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0.0 : v[v.size() / 2];
}

double since_ms(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count();
}

// The model of the DDP measurements: an MLP on Fashion-MNIST-sized inputs, 2.9 M parameters.
nn::Sequential ddp_model() {
  manual_seed(0);
  return nn::Sequential(nn::Linear(784, 1024), nn::ReLU(), nn::Linear(1024, 1024), nn::ReLU(), nn::Linear(1024, 1024),
                        nn::ReLU(), nn::Linear(1024, 10));
}
// The measured runs' limits: the launcher's, and every collective's (a slow VM must not cut them short).
constexpr std::chrono::seconds kRecordTimeout(600);
const std::map<std::string, std::string> kRecordEnv = {{"KINDLING_DIST_TIMEOUT_MS", "120000"}};
constexpr std::int64_t kDdpBatch = 64;  // per rank
constexpr int kDdpWarm = 2, kDdpSteps = 9;

Tensor ddp_batch(std::int64_t n, int step) {
  return arange(n * 784, TensorOptions().dtype(kFloat32)).reshape({n, 784}).mul(0.001 * (step + 1)).sin();
}
Tensor ddp_labels(std::int64_t n) {
  const Tensor y = empty({n}, TensorOptions().dtype(kInt64));
  auto* p = static_cast<std::int64_t*>(y.data_ptr());
  for (std::int64_t i = 0; i < n; ++i) p[i] = i % 10;
  return y;
}
}  // namespace

int allreduce_rank_main(const std::filesystem::path& csv) {
  set_num_threads(1);
  // Gloo's all-reduce alone, without the group's cross-rank check before each collective (which
  // the ring's sends and receives do not pay either).
  dist::Options options = dist::Options::from_environment();
  options.check_collectives = false;
  dist::ProcessGroup group(options);
  std::ofstream out(rank_file(csv, group.rank()));
  for (std::int64_t bytes = 4096; bytes <= 64 * 1024 * 1024; bytes *= 4) {
    const Tensor x = ones({bytes / 4});
    const int reps = static_cast<int>(std::clamp<std::int64_t>(256 * 1024 * 1024 / (bytes * 8), 5, 50));
    dist::ring_all_reduce(group, x);  // warm the connections and the buffers up
    group.all_reduce(x);
    std::vector<double> ring, gloo;
    for (int k = 0; k < reps; ++k) {
      group.barrier();
      auto t = std::chrono::steady_clock::now();
      dist::ring_all_reduce(group, x);
      ring.push_back(since_ms(t));
      group.barrier();
      t = std::chrono::steady_clock::now();
      group.all_reduce(x);
      gloo.push_back(since_ms(t));
    }
    out << group.size() << "," << group.rank() << "," << bytes << "," << reps << "," << median(ring) << ","
        << median(gloo) << "\n";
  }
  return 0;
}

void record_allreduce(const std::filesystem::path& data, const std::string& self) {
  const auto csv = data / "week07-allreduce.csv";
  std::ostringstream rows;  // both runs' ranks, in order
  for (const int n : {2, 4}) {
    launch_ranks(self, n, {"--allreduce-rank", csv.string()}, "--record-allreduce", kRecordTimeout, kRecordEnv);
    append_ranks(rows, csv, n);
  }
  std::ofstream out(csv);
  out << "# kindling-figures --record-allreduce: the reference ring_all_reduce (send/recv) and Gloo's allreduce "
         "of the same float32 buffer (the group's cross-rank check off), each rank one thread, over the loopback "
         "interface (2-vCPU VM); the median "
         "of reps runs, each after a barrier, per rank\nnproc,rank,bytes,reps,ring_ms,gloo_ms\n"
      << rows.str();
  std::cout << csv.string() << "\n";
}

int ddp_rank_main(const std::filesystem::path& csv) {
  set_num_threads(1);
  dist::ProcessGroup group = dist::ProcessGroup::from_environment();
  const int world = group.size(), me = group.rank();
  const Tensor x = ddp_batch(kDdpBatch * world, 0).narrow(0, me * kDdpBatch, kDdpBatch).contiguous();
  const Tensor y = ddp_labels(kDdpBatch * world).narrow(0, me * kDdpBatch, kDdpBatch).contiguous();
  std::ofstream out(rank_file(csv, me));
  // Naive: backward first, then one blocking all-reduce per parameter.
  {
    nn::Sequential m = ddp_model();
    optim::SGD sgd(m.parameters(), {.lr = 0.01});
    std::vector<double> times;
    for (int s = 0; s < kDdpWarm + kDdpSteps; ++s) {
      group.barrier();
      const auto t = std::chrono::steady_clock::now();
      sgd.zero_grad();
      nn::functional::cross_entropy(m(x), y).backward();
      for (const Tensor& p : m.parameters()) {
        group.all_reduce(p.grad());
        p.grad().div_(world);
      }
      sgd.step();
      if (s >= kDdpWarm) times.push_back(since_ms(t));
    }
    out << "step," << me << ",naive," << median(times) << ",0,0\n";
  }
  // DistributedDataParallel, with PyTorch's 25 MiB buckets and with 4 MiB buckets.
  for (const double cap : {25.0, 4.0}) {
    nn::Sequential m = ddp_model();
    dist::DdpOptions options;
    options.bucket_cap_mb = cap;
    dist::DistributedDataParallel ddp(group, m, options);
    optim::SGD sgd(m.parameters(), {.lr = 0.01});
    std::vector<double> times, hidden;
    for (int s = 0; s < kDdpWarm + kDdpSteps; ++s) {
      group.barrier();
      const auto t = std::chrono::steady_clock::now();
      sgd.zero_grad();
      nn::functional::cross_entropy(ddp(x), y).backward();
      sgd.step();
      if (s >= kDdpWarm) {
        times.push_back(since_ms(t));
        hidden.push_back(ddp.last_timeline().hidden_fraction());
      }
    }
    const std::string name = "ddp_" + std::to_string(static_cast<int>(cap)) + "mb";
    out << "step," << me << "," << name << "," << median(times) << "," << median(hidden) << "," << ddp.buckets().size()
        << "\n";
    if (cap == 4.0) {
      const auto& tl = ddp.last_timeline();
      out << "backward," << me << ",backward,0," << tl.backward_done_ms << "," << tl.reduced_ms << "\n";
      for (std::size_t k = 0; k < tl.ready_ms.size(); ++k)
        out << "bucket," << me << ",b" << k << "," << tl.comm_begin_ms[k] << "," << tl.comm_end_ms[k] << ","
            << tl.ready_ms[k] << "\n";
    }
  }
  return 0;
}

void record_ddp(const std::filesystem::path& data, const std::string& self) {
  const auto csv = data / "week07-ddp.csv";
  // One process on the whole batch, with the two cores the two ranks share.
  set_num_threads(2);
  nn::Sequential m = ddp_model();
  optim::SGD sgd(m.parameters(), {.lr = 0.01});
  const Tensor x = ddp_batch(2 * kDdpBatch, 0), y = ddp_labels(2 * kDdpBatch);
  std::vector<double> times;
  for (int s = 0; s < kDdpWarm + kDdpSteps; ++s) {
    const auto t = std::chrono::steady_clock::now();
    sgd.zero_grad();
    nn::functional::cross_entropy(m(x), y).backward();
    sgd.step();
    if (s >= kDdpWarm) times.push_back(since_ms(t));
  }
  launch_ranks(self, 2, {"--ddp-rank", csv.string()}, "--record-ddp", kRecordTimeout, kRecordEnv);
  std::ostringstream header;
  header << "# kindling-figures --record-ddp: an MLP 784-1024-1024-1024-10 (2.9 M parameters), SGD, a batch of "
         << 2 * kDdpBatch << "; one process with 2 threads, or 2 ranks of " << kDdpBatch
         << " with 1 thread each over Gloo on the loopback interface (2-vCPU VM). Rows: step (median ms of "
         << kDdpSteps << " steps, median share of communication hidden behind backward, buckets), and the "
         << "timeline of the last 4 MiB-bucket backward per rank (backward: 0, when its last gradient arrived, when "
            "finalize had waited for every all-reduce; bucket: its all-reduce's "
            "begin and end, and when its last gradient arrived), in ms from the end of forward\n"
         << "kind,rank,name,a,b,c\nstep,-1,one_process," << median(times) << ",0,0\n";
  std::ofstream out(csv);
  out << header.str();
  append_ranks(out, csv, 2);
  std::cout << csv.string() << "\n";
}

std::string ddp_svg(const std::filesystem::path& csv, const std::string& title, const std::string& rank_word,
                    const std::string& backward_word, const std::string& wait_word) {
  std::ifstream in(csv);
  std::string line;
  std::vector<draw::Bar> bars;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> f;
    std::stringstream s(line);
    std::string cell;
    while (std::getline(s, cell, ',')) f.push_back(cell);
    if (f.size() != 6 || (f[0] != "backward" && f[0] != "bucket")) continue;
    const std::string lane = rank_word + " " + f[1];
    if (f[0] == "backward") {
      bars.push_back({lane + " " + backward_word, std::stod(f[3]), std::stod(f[4]), backward_word, 0});
      bars.push_back({lane + " " + backward_word, std::stod(f[4]), std::stod(f[5]), wait_word, -1});
    } else {
      bars.push_back({lane + " all-reduce", std::stod(f[3]), std::stod(f[4]), f[2], 1 + std::stoi(f[2].substr(1))});
    }
  }
  return draw::timeline_svg(title, bars, "ms");
}

std::string ring_svg(const std::filesystem::path& csv, int nproc, const std::string& title,
                     const std::string& rank_word, const std::string& rs, const std::string& ag) {
  std::ifstream in(csv);
  std::string line;
  std::vector<draw::Bar> bars;
  std::vector<std::vector<std::string>> rows;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#' || line.rfind("rank,", 0) == 0) continue;
    std::vector<std::string> f;
    std::stringstream s(line);
    std::string cell;
    while (std::getline(s, cell, ',')) f.push_back(cell);
    if (f.size() != 5) continue;
    rows.push_back(f);
  }
  // Each rank's clock starts at its own group's creation: align the ranks on their first send.
  std::vector<double> first(static_cast<std::size_t>(nproc), -1);
  for (const auto& f : rows) {
    const auto r = static_cast<std::size_t>(std::stoi(f[0]));
    const double t = std::stod(f[1]);
    if (first[r] < 0 || t < first[r]) first[r] = t;
  }
  for (const auto& f : rows) {
    const int r = std::stoi(f[0]), tag = std::stoi(f[3]);
    const double base = first[static_cast<std::size_t>(r)];
    const bool gather = tag >= nproc;
    const int step = gather ? tag - nproc : tag;
    bars.push_back({rank_word + " " + std::to_string(r), std::stod(f[1]) - base, std::stod(f[2]) - base,
                    (gather ? ag : rs) + std::to_string(step + 1), gather ? 1 : 0});
  }
  return draw::timeline_svg(title, bars, "ms");
}

}  // namespace kindling::figures
