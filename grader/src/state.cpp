// What a student's build folder remembers between runs: the latest result of each
// task (grade-state.json), the score after each run (history.jsonl) and how many
// hints of each task were shown (hints.json). A file that cannot be read is treated
// as empty: these are conveniences, and a corrupt one must never stop grading.

#include <chrono>
#include <ctime>
#include <fstream>
#include <iomanip>
#include <limits>
#include <sstream>

#include <nlohmann/json.hpp>

#include "grader.hpp"

namespace fs = std::filesystem;
using nlohmann::json;

namespace kindling::grader {
namespace {

json read_json(const fs::path& file) {
  std::ifstream in(file);
  if (!in) return json::object();
  json j = json::parse(in, nullptr, false);
  return j.is_discarded() ? json::object() : j;
}

// Written to a temporary file first, then renamed: a run killed halfway leaves the old file.
void write_atomically(const fs::path& file, const std::string& text) {
  if (file.has_parent_path()) fs::create_directories(file.parent_path());
  const fs::path tmp = file.string() + ".tmp";
  {
    std::ofstream out(tmp);
    if (!out) throw std::runtime_error("cannot write " + tmp.string());
    out << text;
  }
  fs::rename(tmp, file);
}

std::optional<Status> status_from(const std::string& s) {
  for (Status x : {Status::Passed, Status::Failed, Status::NotImplemented, Status::Crashed, Status::TimedOut,
                   Status::BuildError, Status::MemoryExceeded})
    if (to_string(x) == s) return x;
  return std::nullopt;
}

// A whole number in [lo, hi] from a damaged file: nlohmann's get<int>() of a double is a
// plain cast, undefined for 1e300, so an out-of-range number throws BadField instead and
// the entry or line holding it is dropped.
struct BadField : std::runtime_error {
  using std::runtime_error::runtime_error;
};

long long whole(const json& j, const char* key, long long fallback, long long lo, long long hi) {
  const auto it = j.find(key);
  if (it == j.end()) return fallback;
  if (it->is_number_integer()) {
    if (it->is_number_unsigned() ? it->get<unsigned long long>() > static_cast<unsigned long long>(hi)
                                 : it->get<long long>() < lo || it->get<long long>() > hi)
      throw BadField(key);
    return it->get<long long>();
  }
  if (it->is_number_float()) {
    const double v = it->get<double>();
    if (!(v >= static_cast<double>(lo) && v <= static_cast<double>(hi)) ||
        v != static_cast<double>(static_cast<long long>(v)))
      throw BadField(key);
    return static_cast<long long>(v);
  }
  throw BadField(key);
}

int count(const json& j, const char* key) {
  return static_cast<int>(whole(j, key, 0, 0, std::numeric_limits<int>::max()));
}

std::string now_utc() {
  const std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&t, &tm);
  std::ostringstream s;
  s << std::put_time(&tm, "%Y-%m-%dT%H:%M:%SZ");
  return s.str();
}

}  // namespace

namespace {
// One task's entry of grade-state.json; a damaged or unknown one is skipped.
void load_entry(const json& e, const Manifest& m, State& s) {
  {
    const Task* task = m.find(e.value("id", ""));
    const auto status = status_from(e.value("status", ""));
    if (!task || !status) return;  // a task since renamed, or a damaged entry
    TaskResult r;
    r.task = *task;
    r.status = *status;
    r.points = e.value("points", 0.0);
    r.perf_points = e.value("perf_points", 0.0);
    r.perf_measured = e.value("perf_measured", false);
    r.perf_value = e.value("perf_value", 0.0);
    r.perf_message = e.value("perf_message", "");
    r.perf_needs_gpu = e.value("perf_status", "") == "needs_gpu";
    r.message = e.value("message", "");
    r.failures = e.value("failures", std::vector<std::string>{});
    r.tests_passed = count(e, "tests_passed");
    r.tests_skipped = count(e, "tests_skipped");
    r.tests_total = count(e, "tests_total");
    r.seconds = e.value("seconds", 0.0);
    s.latest[r.task.id] = r;
  }
}
}  // namespace

void State::merge(const Report& r) {
  for (const auto& t : r.results) latest[t.task.id] = t;
}

State load_state(const fs::path& file, const Manifest& m) {
  State s;
  const json j = read_json(file);
  if (!j.is_object()) return s;
  if (j.contains("tree") && j["tree"].is_string()) s.tree = j["tree"].get<std::string>();
  if (!j.contains("tasks") || !j["tasks"].is_array()) return s;
  for (const auto& e : j["tasks"]) {
    if (!e.is_object()) continue;
    try {
      load_entry(e, m, s);
    } catch (const json::exception&) {
      // a field of the wrong type: that entry is dropped, the rest is kept
    } catch (const BadField&) {
      // a count out of range: likewise
    }
  }
  return s;
}

void save_state(const fs::path& file, const State& s) {
  json j;
  j["tree"] = s.tree;
  j["tasks"] = json::array();
  for (const auto& [id, r] : s.latest) j["tasks"].push_back(result_to_json(r, true));
  write_atomically(file, j.dump(1) + "\n");
}

HistoryEntry standing(const std::vector<Task>& tasks, const State& s, bool perf) {
  HistoryEntry e;
  e.time = now_utc();
  for (const auto& t : tasks) {
    const auto it = s.latest.find(t.id);
    e.max_score += t.points + (it == s.latest.end() ? (perf ? t.perf_points : 0.0) : it->second.available_perf(perf));
    ++e.total;
    if (it == s.latest.end()) continue;
    e.score += it->second.points + (perf ? it->second.perf_points : 0.0);
    e.passed += it->second.status == Status::Passed;
  }
  return e;
}

std::vector<HistoryEntry> load_history(const fs::path& file) {
  std::vector<HistoryEntry> out;
  std::ifstream in(file);
  for (std::string line; std::getline(in, line);) {
    const json j = json::parse(line, nullptr, false);
    if (j.is_discarded() || !j.is_object()) continue;
    try {
      out.push_back({j.value("time", ""), j.value("score", 0.0), j.value("max_score", 0.0), count(j, "passed"),
                     count(j, "total")});
    } catch (const json::exception&) {
      // a field of the wrong type: the line is skipped
    } catch (const BadField&) {
      // a count out of range: likewise
    }
  }
  return out;
}

void append_history(const fs::path& file, const HistoryEntry& e) {
  if (file.has_parent_path()) fs::create_directories(file.parent_path());
  std::ofstream out(file, std::ios::app);
  out << json{{"time", e.time},
              {"score", e.score},
              {"max_score", e.max_score},
              {"passed", e.passed},
              {"total", e.total}}
             .dump()
      << "\n";
}

int hints_seen(const fs::path& file, const std::string& task_id) {
  const json j = read_json(file);
  const auto it = j.find(task_id);
  if (it == j.end() || !it->is_number_integer()) return 0;
  try {
    return count(j, task_id.c_str());
  } catch (const BadField&) {
    return 0;
  }
}

void set_hints_seen(const fs::path& file, const std::string& task_id, int n) {
  json j = read_json(file);
  if (!j.is_object()) j = json::object();
  j[task_id] = n;
  write_atomically(file, j.dump(1) + "\n");
}

const Task* first_unpassed(const std::vector<Task>& tasks, const State& s) {
  for (const auto& t : tasks) {
    const auto it = s.latest.find(t.id);
    if (it == s.latest.end() || it->second.status != Status::Passed) return &t;
  }
  return nullptr;
}

}  // namespace kindling::grader
