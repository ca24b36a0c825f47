#pragma once
// The grader's pieces, as a library so that its logic is unit-tested.

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace kindling::grader {

// ---- the manifest (grader/tasks.json) -------------------------------------------------------
struct Week {
  std::string id;      // "week01"
  std::string folder;  // "week01_tensors"
  std::string title;
};

/// How a task's performance points are earned: a counter of one benchmark
/// program (kindling_<bench>_bench), as the median over repetitions, scored
/// linearly between `zero` (no points) and `full` (all points). Higher is better
/// when full > zero (a speedup), lower is better otherwise (a time ratio).
struct PerfSpec {
  std::string bench;    // "week03" -> kindling_week03_bench
  std::string filter;   // --benchmark_filter regex
  std::string counter;  // user counter, e.g. "speedup"
  double full = 1, zero = 0;
};

struct Task {
  std::string id;  // "week01.view"
  std::string title;
  std::string week;  // "week01"
  double points = 0;
  double perf_points = 0;
  std::string hint;
  std::string lecture;           // "lectures/week01-tensors.md#views"
  std::optional<PerfSpec> perf;  // set when perf_points > 0
  /// The GoogleTest suite: the id with the dot turned into an underscore.
  std::string suite() const;
};

struct Manifest {
  std::vector<Week> weeks;
  std::vector<Task> tasks;
};

Manifest read_manifest(const std::filesystem::path& file);
/// Tasks matching the selection: "week01" (a week), "week01.view" (a task); all when empty.
/// Throws std::invalid_argument naming a selector that matches nothing.
std::vector<Task> select_tasks(const Manifest& m, const std::vector<std::string>& selection);

// ---- running a process -------------------------------------------------------------------------
struct ProcessResult {
  int exit_code = -1;      // when it exited
  int signal = 0;          // when a signal killed it
  bool timed_out = false;  // killed by us at the time limit
  double seconds = 0;
  std::string output;  // stdout and stderr together
};

/// Runs argv[0] with arguments in its own process group, killing the whole group
/// after `timeout_s`. Output goes to `log` and is read back.
ProcessResult run_process(const std::vector<std::string>& argv, double timeout_s, const std::filesystem::path& log);

// ---- grading ---------------------------------------------------------------------------------------
enum class Status { Passed, Failed, NotImplemented, Crashed, TimedOut, BuildError };
std::string to_string(Status s);

struct TaskResult {
  Task task;
  Status status = Status::Failed;
  double points = 0;
  std::string message;  // the first failure, or why it did not run
  int tests_passed = 0;
  int tests_skipped = 0;  // GTEST_SKIP (e.g. no CUDA device): neither passed nor failed
  int tests_total = 0;
  double seconds = 0;
  bool perf_measured = false;  // the benchmark ran and reported the counter
  double perf_points = 0;      // earned performance points
  std::string perf_message;    // "speedup 5.1 (full marks at >= 3, none at <= 1.5)" or why none
};

// ---- performance points ----------------------------------------------------------------------------
/// The share of the performance points (0..1) that counter value `v` earns.
double perf_fraction(const PerfSpec& spec, double v);
/// The least favourable median of spec.counter over the benchmarks in Google
/// Benchmark's JSON output; nullopt (and `error` set) when there is none.
std::optional<double> perf_value(const PerfSpec& spec, const std::string& bench_json, std::string& error);
/// Runs the task's benchmark and fills the perf fields of `r`.
void run_perf(TaskResult& r, const std::filesystem::path& bench_binary, double timeout_s,
              const std::filesystem::path& work_dir);

/// Classifies one task's test run from how its process ended and GoogleTest's
/// JSON report (empty if none was written).
TaskResult classify(const Task& task, const ProcessResult& run, const std::string& gtest_json, double timeout_s);

/// Runs one task's tests (`binary --gtest_filter=<suite>.*`) in its own process.
TaskResult run_task(const Task& task, const std::filesystem::path& binary, double timeout_s,
                    const std::filesystem::path& work_dir);

/// The first compiler error of a build log ("file:line:col: error: ..."), or its last lines.
std::string first_build_error(const std::string& log);

// ---- reports ---------------------------------------------------------------------------------------
struct Report {
  std::string tree;
  bool perf = true;  // performance points graded (else left out of the maximum)
  std::vector<TaskResult> results;
  double score() const;
  double max_score() const;
};

std::string table(const Report& r, bool color);
std::string to_json(const Report& r);
std::string to_gradescope(const Report& r);
std::string to_junit(const Report& r);

}  // namespace kindling::grader
