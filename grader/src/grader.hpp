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

struct Task {
  std::string id;  // "week01.view"
  std::string title;
  std::string week;  // "week01"
  double points = 0;
  double perf_points = 0;
  std::string hint;
  std::string lecture;  // "lectures/week01-tensors.md#views"
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
  int tests_total = 0;
  double seconds = 0;
};

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
  std::vector<TaskResult> results;
  double score() const;
  double max_score() const;
};

std::string table(const Report& r, bool color);
std::string to_json(const Report& r);
std::string to_gradescope(const Report& r);
std::string to_junit(const Report& r);

}  // namespace kindling::grader
