// Performance points: a benchmark counter scored against the task's band.

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "grader.hpp"

namespace kindling::grader {

bool perf_needs_gpu(const Task& task, const std::string& cuda_backend) {
  // The week-6 runtime describes a real device as "device (<name>)"; anything else (the
  // simulator, or no test run that said) has no GPU to measure on.
  return task.perf && task.perf->needs_gpu && cuda_backend.rfind("device", 0) != 0;
}

std::string needs_gpu_message(const Task& task) {
  return "needs_gpu: its " + (task.perf ? task.perf->counter : std::string("performance")) +
         " is measured on a GPU only (not counted here; the tests ran on the simulator)";
}

bool gpu_present() {
  if (const char* v = std::getenv("KINDLING_GPU"); v != nullptr && *v != '\0') return std::string(v) != "0";
  std::error_code ec;
  const std::filesystem::directory_iterator gpus("/proc/driver/nvidia/gpus", ec);
  return !ec && gpus != std::filesystem::directory_iterator();
}

double perf_fraction(const PerfSpec& spec, double v) {
  if (spec.full == spec.zero) return v >= spec.full ? 1.0 : 0.0;
  // 0 at `zero`, 1 at `full`, linear between: the same formula serves both directions.
  return std::clamp((v - spec.zero) / (spec.full - spec.zero), 0.0, 1.0);
}

std::optional<double> perf_value(const PerfSpec& spec, const std::string& bench_json, std::string& error) {
  const nlohmann::json j = nlohmann::json::parse(bench_json, nullptr, false);
  if (j.is_discarded() || !j.contains("benchmarks")) {
    error = "the benchmark wrote no results";
    return std::nullopt;
  }
  const bool higher_is_better = spec.full >= spec.zero;
  std::optional<double> worst;
  std::string said;  // a benchmark's own error (SkipWithError), for the message when nothing was measured
  try {
    for (const auto& b : j.at("benchmarks")) {
      // With repetitions only the aggregates are kept; use their medians.
      if (!b.is_object()) throw std::invalid_argument("a benchmark entry is not an object");
      if (said.empty() && b.value("error_occurred", false)) said = b.value("error_message", std::string());
      if (b.contains("aggregate_name") && b["aggregate_name"] != "median") continue;
      if (!b.contains(spec.counter)) continue;
      const double v = b[spec.counter].get<double>();
      if (!worst || (higher_is_better ? v < *worst : v > *worst)) worst = v;
    }
  } catch (const std::exception& e) {  // nlohmann's type errors, and the one above
    error = std::string("the benchmark's results file is malformed (") + e.what() + ")";
    return std::nullopt;
  }
  if (!worst)
    error = "no benchmark matching '" + spec.filter + "' reported '" + spec.counter + "'" +
            (said.empty() ? std::string() : " (it said: " + said + ")");
  return worst;
}

void run_perf(TaskResult& r, const std::filesystem::path& bench_binary, double timeout_s,
              const std::filesystem::path& work_dir) {
  const PerfSpec& spec = *r.task.perf;
  const auto json = work_dir / (r.task.id + ".bench.json");
  std::filesystem::remove(json);
  const ProcessResult run =
      run_process({bench_binary.string(), "--benchmark_filter=" + spec.filter, "--benchmark_repetitions=3",
                   "--benchmark_report_aggregates_only=true", "--benchmark_min_time=0.1", "--benchmark_out_format=json",
                   "--benchmark_out=" + json.string()},
                  timeout_s, work_dir / (r.task.id + ".bench.log"));
  if (run.timed_out || run.signal != 0 || run.exit_code != 0) {
    r.perf_message = run.timed_out ? "the benchmark did not finish in time" : "the benchmark crashed";
    return;
  }
  std::string text, error;
  if (std::ifstream in(json); in) {
    std::ostringstream s;
    s << in.rdbuf();
    text = s.str();
  }
  const auto value = perf_value(spec, text, error);
  if (!value) {
    r.perf_message = error;
    return;
  }
  r.perf_measured = true;
  r.perf_value = *value;
  r.perf_points = r.task.perf_points * perf_fraction(spec, *value);
  const bool higher = spec.full >= spec.zero;
  std::ostringstream m;
  m.precision(3);
  m << spec.counter << " " << *value << " (full marks at " << (higher ? ">= " : "<= ") << spec.full << ", none at "
    << (higher ? "<= " : ">= ") << spec.zero << ")";
  r.perf_message = m.str();
}

}  // namespace kindling::grader
