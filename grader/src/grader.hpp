#pragma once
// The grader's pieces, as a library so that its logic is unit-tested.

#include <csignal>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <ostream>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

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
  /// The points need a GPU (a speed ratio against cuBLAS): without one they are needs_gpu,
  /// neither lost nor counted in the maximum (tasks.json's "needs_gpu": true).
  bool needs_gpu = false;
  /// Where a GPU is present: the GPU build's benchmark that measures these points ("week06_device"
  /// -> kindling_week06_device_bench, the kernels compiled by nvcc); tasks.json's "gpu_bench".
  std::string gpu_bench;
};

struct Task {
  std::string id;  // "week01.view"
  std::string title;
  std::string week;  // "week01"
  double points = 0;
  double perf_points = 0;
  /// Progressive hints, gentlest first; the last points to the lecture section.
  std::vector<std::string> hints;
  std::string lecture;           // "lectures/week01-tensors.md#views"
  std::optional<PerfSpec> perf;  // set when perf_points > 0
  /// Gradescope's visibility of the task's result: "visible" (the default), "hidden",
  /// "after_due_date" or "after_published" (tasks.json's optional "visibility").
  std::string visibility = "visible";
  /// Tasks of the same week whose functions this task's tests call (tasks.json's optional
  /// "needs"): they come before it in the manifest and in the week's README table. Earlier
  /// weeks' tasks are needed as a rule and never listed.
  std::vector<std::string> needs;
  /// The tasks of `needs` that need this one too, directly or through others (a cycle: week 1's
  /// view and transpose test each other): they pass together and sit next to each other in the
  /// table. read_manifest works them out.
  std::vector<std::string> mutual;
  /// The GoogleTest suite: the id with the dot turned into an underscore.
  std::string suite() const;
  /// The task's file in a tree, relative to the kit's folder: "<tree>/week01_tensors/src/tasks/view.cpp",
  /// or the kernel's "<name>.cu" where the tree has one (week 6's kernel tasks).
  std::string source(const std::filesystem::path& source_dir, const std::string& tree,
                     const std::string& week_folder) const;
};

struct Manifest {
  std::vector<Week> weeks;
  std::vector<Task> tasks;
  const Week& week(const std::string& id) const;  // throws std::out_of_range
  const Task* find(const std::string& task_id) const;
};

Manifest read_manifest(const std::filesystem::path& file);
/// Tasks matching the selection: "week01" (a week), "week01.view" (a task); all when empty.
/// Throws std::invalid_argument naming a selector that matches nothing.
std::vector<Task> select_tasks(const Manifest& m, const std::vector<std::string>& selection);
/// `tasks` in the same order, except that a task moves after the tasks of `tasks` it needs
/// (Task::needs, but not Task::mutual), so that a loop that takes the first unpassed one never
/// meets a task whose tests reach a stub still ahead of it, other than its cycle's.
std::vector<Task> order_by_needs(const std::vector<Task>& tasks);

// ---- running a process -------------------------------------------------------------------------
struct ProcessResult {
  int exit_code = -1;      // when it exited
  int signal = 0;          // when a signal killed it
  bool timed_out = false;  // killed by us at the time limit
  double seconds = 0;
  std::string output;  // stdout and stderr together
};

/// The process group of the child run_process is waiting for (0: none), for a
/// signal handler that must stop it (watch mode on Ctrl-C).
extern volatile std::sig_atomic_t running_child_group;

/// Runs argv[0] with arguments in its own process group, killing the whole group
/// after `timeout_s`. Output goes to `log` and is read back; `on_line`, when set,
/// sees each complete line of it while the process runs (build progress).
/// `memory_mb` > 0 limits the child's private writable memory (RLIMIT_DATA) to that many MiB.
ProcessResult run_process(const std::vector<std::string>& argv, double timeout_s, const std::filesystem::path& log,
                          const std::function<void(const std::string&)>& on_line = {}, double memory_mb = 0);

// ---- grading ---------------------------------------------------------------------------------------
enum class Status { Passed, Failed, NotImplemented, Crashed, TimedOut, BuildError, MemoryExceeded };
std::string to_string(Status s);

struct TaskResult {
  Task task;
  Status status = Status::Failed;
  double points = 0;
  std::string message;  // the first failure, or why it did not run
  /// Every failure of every failing test, "test: message", in the order they ran (--verbose).
  std::vector<std::string> failures;
  int tests_passed = 0;
  int tests_skipped = 0;  // GTEST_SKIP (e.g. no CUDA device): neither passed nor failed
  int tests_total = 0;
  double seconds = 0;
  bool perf_measured = false;  // the benchmark ran and reported the counter
  double perf_value = 0;       // the counter's median, when measured
  double perf_points = 0;      // earned performance points
  std::string perf_message;    // "speedup 5.1 (full marks at >= 3, none at <= 1.5)" or why none
  std::string cuda_backend;    // week 6: where the test program ran its kernels ("simulator (...)")
  /// Week 6: the simulator's memory counters that passing tests recorded for a launch of the
  /// student's kernel ("test: 8192 global sectors (the bytes need 8192), 0 bank conflicts ...").
  std::vector<std::string> counters;
  bool perf_needs_gpu = false;  // the performance points need a GPU and none ran the tests: not counted
  /// The performance points this result can earn: none when they are not graded or need a GPU.
  double available_perf(bool perf) const { return perf && !perf_needs_gpu ? task.perf_points : 0.0; }
};

/// Whether the performance points of `task`, whose tests ran their kernels on `cuda_backend`
/// (TaskResult::cuda_backend), need a GPU that was not there.
bool perf_needs_gpu(const Task& task, const std::string& cuda_backend);
/// The message of needs_gpu performance points.
std::string needs_gpu_message(const Task& task);
/// Whether this machine has an NVIDIA GPU with its driver loaded (an entry under
/// /proc/driver/nvidia/gpus); KINDLING_GPU=0 or 1 says so instead (tests, or a machine that hides it).
bool gpu_present();

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

/// Runs one task's tests (`binary --gtest_filter=<suite>.*`) in its own process, its
/// memory limited to `memory_mb` MiB when that is > 0 (RLIMIT_DATA): an allocation beyond it
/// fails (std::bad_alloc), and the task is memory_exceeded instead of taking the
/// machine down.
TaskResult run_task(const Task& task, const std::filesystem::path& binary, double timeout_s,
                    const std::filesystem::path& work_dir, double memory_mb = 0);

/// The first compiler error of a build log ("file:line:col: error: ..."), or its last lines.
std::string first_build_error(const std::string& log);

/// The results of one run.
struct Report {
  std::string tree;
  bool perf = true;  // performance points graded (else left out of the maximum)
  std::string note;  // shown first in Gradescope's output (e.g. which submitted files were taken)
  std::vector<TaskResult> results;
  double score() const;
  double max_score() const;
};

// ---- a grading session ----------------------------------------------------------------------------
struct GradeOptions {
  std::filesystem::path source_dir, build_dir;
  std::string tree_label;   // "exercises", "exercises + reference week01"
  double timeout = 60;      // seconds per task's tests
  double memory_mb = 8192;  // memory per task's test process (MiB of RLIMIT_DATA; 0: no limit)
  bool build = true;        // build the test programs first (else use those already built)
  bool perf = true;         // grade the performance points
  bool tty = false;         // progress as one live line (else a line per tenth of a build)
  bool verbose = false;     // watch mode shows every failing test's message, not just the first
  /// The student's tree ("exercises"): its code files under source_dir are compared before and
  /// after each build, and a build that a save overlapped runs again. Empty: not checked.
  std::string tree;
};

/// A task file that did not compile, from a Ninja log: "FAILED: .../<tree>/<week>_x/src/tasks/<name>.cpp.o"
/// (a kernel: "<name>.cu.o" from nvcc, "<name>.sim.cpp.o" from its simulator build).
struct FailedTaskFile {
  std::string task;          // "week01.view"
  std::string tree;          // "exercises"
  std::string week_folder;   // "week01_tensors"
  std::string message;       // the first compiler error, paths relative to the source folder
  std::string ext = ".cpp";  // the task file's: ".cpp", or ".cu" for a kernel (week 6)
};
std::vector<FailedTaskFile> failed_task_files(const std::string& build_log, const std::string& source_dir);
/// A worksheet task file with the code between its BEGIN TASK / END TASK lines replaced by the stub.
std::string stub_of_task_file(const std::string& text, const std::string& task_id);

/// Builds what the selected tasks need and grades them. A task file that does not
/// compile is replaced by its stub for the rest of the grading session (the build folder is
/// reconfigured with KINDLING_STUBBED_TASKS), so that it alone reports build_error.
class Session {
 public:
  Session(const Manifest& manifest, GradeOptions options, std::ostream& progress);
  Report grade(const std::vector<Task>& tasks);

 private:
  std::string build(const std::string& target, const std::string& what);  // "" or the error
  bool configure_stubs(const std::set<std::string>& tasks);
  std::string write_stub(const FailedTaskFile& f);
  /// A passed task's needs_gpu performance points on a machine with a GPU: measured by the task's
  /// gpu_bench, or left needs_gpu with the reason when it cannot be built or finds no device.
  void perf_on_gpu(TaskResult& r, const std::string& week, const std::filesystem::path& work);
  const Manifest& manifest_;
  GradeOptions o_;
  std::ostream& out_;
  bool session_reset_ = false;
  std::map<std::string, std::string> stubbed_;  // task id -> its compiler error
};

// ---- the mutation suite (grader/mutants, `./grade mutants`) ----------------------------------------
/// A task's reference file with one plausible mistake: grader/mutants/<week>/<task>/<name>.<ext>,
/// whose first line is `// MUTANT: <the misunderstanding>` and whose optional second line
/// `// EQUIVALENT: <why>` marks a mistake no behaviour can tell apart (not run, not counted), or
/// `// PERFORMANCE: <what is slower>` one that only the task's performance points can tell
/// (skipped when performance is not graded).
struct Mutant {
  std::string task_id;         // "week01.view"
  std::filesystem::path file;  // the mutant's file
  std::string name;            // its stem: "ignores_offset"
  std::string description;     // what misunderstanding it stands for
  bool equivalent = false;
  std::string equivalent_reason;
  bool performance = false;  // `// PERFORMANCE: <what is slower>`: the same values, only slower
  std::string performance_reason;
  std::string body;  // the task file's text with the mistake (the header lines removed)
};
enum class MutantVerdict { Killed, Survived, Invalid, Equivalent, Skipped };
std::string to_string(MutantVerdict v);
struct MutantResult {
  Mutant mutant;
  MutantVerdict verdict = MutantVerdict::Invalid;
  Status status = Status::Failed;  // the task's status with the mutant in place
  std::string message;             // the first failure (killed), why it is invalid or equivalent
  double seconds = 0;
};
/// Reads a mutant file's header; throws when the first line is not `// MUTANT: ...`.
Mutant parse_mutant(const std::string& task_id, const std::filesystem::path& file, const std::string& text);
/// The mutants of `tasks`, in task order, then by file name.
std::vector<Mutant> find_mutants(const std::filesystem::path& source_dir, const std::vector<Task>& tasks);
/// The tasks whose task file, mutants or week's tests differ between git revision `since` and
/// the working tree.
std::vector<std::string> changed_tasks(const Manifest& m, const std::filesystem::path& source_dir,
                                       const std::string& since, const std::filesystem::path& log);
/// `count` mutants of `all`, chosen by a shuffle seeded with `seed` (a commit: reproducible).
std::vector<Mutant> rotation(const std::vector<Mutant>& all, std::size_t count, const std::string& seed);
/// Copies each mutant over its task file in the solutions tree of o.source_dir, builds the week's
/// tests in o.build_dir, grades the task (and its performance points, when its tests pass and it
/// has some), and restores the file; a file left by an interrupted run is restored first.
std::vector<MutantResult> run_mutants(const Manifest& m, const std::vector<Mutant>& mutants, const GradeOptions& o,
                                      std::ostream& progress);
/// One line per mutant and the kill rate.
std::string mutants_table(const std::vector<MutantResult>& results);
/// The results as a JSON array.
std::string mutants_json(const std::vector<MutantResult>& results);

// ---- what a student's build folder remembers --------------------------------------------------------
/// The latest result of every task graded in this build folder, so that a partial
/// run (one task, watch mode) still reports the whole worksheet.
struct State {
  std::map<std::string, TaskResult> latest;  // by task id
  std::string tree;
  void merge(const Report& r);
};
State load_state(const std::filesystem::path& file, const Manifest& m);
void save_state(const std::filesystem::path& file, const State& s);

/// One line of the history (history.jsonl): the worksheet's standing after a run.
struct HistoryEntry {
  std::string time;  // ISO 8601, UTC
  double score = 0, max_score = 0;
  int passed = 0, total = 0;
};
/// The standing of `tasks` (the whole manifest, or a watch selection) in `s`.
HistoryEntry standing(const std::vector<Task>& tasks, const State& s, bool perf);
std::vector<HistoryEntry> load_history(const std::filesystem::path& file);
void append_history(const std::filesystem::path& file, const HistoryEntry& e);

/// How many hints of each task the student has seen (hints.json).
int hints_seen(const std::filesystem::path& file, const std::string& task_id);
void set_hints_seen(const std::filesystem::path& file, const std::string& task_id, int n);

/// The first task of `tasks` (manifest order) that has not passed, or nullptr.
const Task* first_unpassed(const std::vector<Task>& tasks, const State& s);

/// Where a build folder keeps the student's state, history, hints and reports.
struct Workspace {
  explicit Workspace(const std::filesystem::path& build_dir);
  std::filesystem::path state, history, hints, report_json, report_html;
};
/// Merges a run into the state and writes the state, a history line and both reports.
void record_run(const Workspace& w, const Manifest& m, const Report& r, State& s);
/// The task's next hint (1, then 2, then 3, then 3 again), remembered in hints.json.
std::string next_hint(const Workspace& w, const Task& t);
/// `./grade watch`: re-grades the first task that has not passed whenever a source
/// file under `tree`/ is saved; q quits, h shows the next hint, r re-grades.
int watch(const Manifest& m, const std::vector<Task>& tasks, const GradeOptions& options, const std::string& tree);

// ---- reports ---------------------------------------------------------------------------------------

/// The terminal table. A message longer than its column is wrapped, never cut: its lines
/// are at most `width` columns. `verbose`: every failing test's message under its task.
std::string table(const Report& r, bool color, std::size_t width = 100, bool verbose = false);
/// `text` in lines of at most `width` display columns (Hangul counts two), broken at spaces (a
/// word longer than a line where it must): the first line holds `first` columns of text, each
/// later one `indent` spaces and then width - indent columns. The lines are joined by '\n'.
std::string wrap(const std::string& text, std::size_t first, std::size_t width, std::size_t indent);
std::string to_json(const Report& r);
std::string to_gradescope(const Report& r);
std::string to_junit(const Report& r);
/// `in` with &, <, >, " and ' as entities and control characters as spaces: safe in
/// XML and HTML text and attribute values alike.
std::string xml_escape(const std::string& in);
/// One self-contained HTML page (no script, no network): progress per week, every
/// task's status and message, performance ratios and the score over past runs.
std::string to_html(const Manifest& m, const State& s, const std::vector<HistoryEntry>& history, bool perf);
nlohmann::json result_to_json(const TaskResult& t, bool perf);

// ---- languages (i18n.cpp) --------------------------------------------------------------------
/// The language asked for: `flag` (--lang), else KINDLING_LANG, else a Korean locale gives "ko";
/// "en" otherwise.
std::string choose_language(const std::string& flag);
/// Loads grader/i18n/<language>.json (nothing for "en"): the tasks' titles and hints in
/// `manifest` are replaced by their translations, and tr() translates the grader's sentences.
void set_language(const std::string& language, const std::filesystem::path& source_dir, Manifest& manifest);
/// "en" or the language set.
const std::string& language();
/// `english` in the language set (itself when untranslated). With values: "{0}", "{1}", ...
/// in the translation are replaced by them.
std::string tr(const std::string& english);
std::string tr(const std::string& english, std::initializer_list<std::string> values);
/// A status as the table shows it (to_string(s) in English).
std::string status_word(Status s);

}  // namespace kindling::grader
