// Week 7's figures: timelines of a real ring all-reduce (the reference ring_all_reduce over the
// week's ProcessGroup), each rank's sends drawn from the times its group recorded. Measured once
// with `kindling-figures --record-ring DATA` (which starts the ranks through the week's launcher)
// and committed as CSV, like week 4's loader timelines.

#include "dist_figures.hpp"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include <kindling/distributed.hpp>
#include <kindling/draw.hpp>
#include <kindling/kindling.hpp>
#include <kindling/launch.hpp>
#include <kindling/ring.hpp>

namespace kindling::figures {
namespace {
namespace dist = kindling::distributed;
constexpr std::int64_t kFloats = 4 * 1024 * 1024;  // 16 MiB a rank

std::filesystem::path rank_file(const std::filesystem::path& csv, int rank) {
  return csv.string() + ".rank" + std::to_string(rank);
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
    dist::LaunchOptions o;
    o.nproc = n;
    o.command = {self, "--ring-rank", csv.string()};
    o.timeout = std::chrono::seconds(120);
    const auto result = dist::launch(o);
    if (!result.ok()) {
      std::cerr << "kindling-figures --record-ring: " << result.summary() << "\n";
      for (const auto& r : result.ranks) std::cerr << r.output;
      std::exit(1);
    }
    std::ofstream out(csv);
    out << "# kindling-figures --record-ring: the reference ring_all_reduce of " << kFloats * 4 / (1024 * 1024)
        << " MiB of float32 on " << n << " ranks over Gloo on the loopback interface (2-vCPU VM), each rank's "
        << "sends: from the send() call to the return of its wait() (after the step's recv), in ms from its group's "
           "creation\nrank,start_ms,end_ms,tag,bytes\n";
    for (int r = 0; r < n; ++r) {
      std::ifstream in(rank_file(csv, r));
      out << in.rdbuf();
      std::filesystem::remove(rank_file(csv, r));
    }
    std::cout << csv.string() << "\n";
  }
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
