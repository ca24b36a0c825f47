// One grading session: build what the selected tasks need (showing the build's
// progress), put a task's stub in place of its code when that code does not
// compile, run every task in its own process, and score the benchmarks.

#include <algorithm>
#include <fstream>
#include <iostream>
#include <regex>
#include <set>
#include <sstream>
#include <string_view>

#include "gen.hpp"
#include "grader.hpp"

namespace fs = std::filesystem;

namespace kindling::grader {
namespace {

// How the GPU build's benchmark says that it found no device (grader/bench/gpu/week06_device_bench.cpp,
// skip_without_gpu): the points it measures then stay needs_gpu.
constexpr std::string_view kNoGpuSkip = "no GPU here: this program runs its kernels on a device only";

std::string read_text(const fs::path& p) {
  std::ifstream in(p);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// The tasks whose stubs the build folder is configured with (CMakeCache.txt).
std::string configured_stubs(const fs::path& build_dir) {
  std::ifstream in(build_dir / "CMakeCache.txt");
  const std::string key = "KINDLING_STUBBED_TASKS:STRING=";
  for (std::string line; std::getline(in, line);)
    if (line.rfind(key, 0) == 0) return line.substr(key.size());
  return "";
}

bool uses_ninja(const fs::path& build_dir) { return fs::exists(build_dir / "build.ninja"); }

// The code files under `root` (the student's tree), each with a hash of its contents.
using Snapshot = std::map<std::string, std::size_t>;
Snapshot snapshot(const fs::path& root) {
  Snapshot out;
  std::error_code ec;
  if (root.empty() || !fs::is_directory(root, ec)) return out;
  for (auto it = fs::recursive_directory_iterator(root, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    const auto ext = it->path().extension();
    if (it->is_regular_file(ec) && (ext == ".cpp" || ext == ".hpp" || ext == ".h" || ext == ".cu" || ext == ".cuh"))
      out[it->path().string()] = std::hash<std::string>{}(read_text(it->path()));
  }
  return out;
}

// The files whose contents differ between two snapshots (changed, added or removed).
std::vector<std::string> changed_files(const Snapshot& before, const Snapshot& after) {
  std::vector<std::string> out;
  for (const auto& [file, hash] : after)
    if (const auto it = before.find(file); it == before.end() || it->second != hash) out.push_back(file);
  for (const auto& [file, hash] : before)
    if (!after.count(file)) out.push_back(file);
  return out;
}

// How many times a build that a save overlapped is run again before its result is taken as it is.
constexpr int kMaxOverlappedBuilds = 5;

// Turns Ninja's "[12/40] Building ..." lines into one live line on a terminal, or a
// line per tenth of the build otherwise, so that a long first build is visibly alive.
class Progress {
 public:
  Progress(std::ostream& out, bool tty, std::string what) : out_(out), tty_(tty), what_(std::move(what)) {}
  ~Progress() {
    if (tty_ && shown_) out_ << "\r\033[K" << std::flush;
  }
  void operator()(const std::string& line) {
    static const std::regex step(R"(^\[(\d+)/(\d+)\] )");
    std::smatch m;
    if (!std::regex_search(line, m, step)) return;
    const long done = std::stol(m[1]), total = std::stol(m[2]);
    if (total <= 0) return;
    if (tty_) {
      const int width = 30;
      const auto filled = static_cast<int>(width * done / total);
      out_ << "\r\033[K  " << what_ << " [" << std::string(static_cast<std::size_t>(filled), '#')
           << std::string(static_cast<std::size_t>(width - filled), '.') << "] " << done << "/" << total << std::flush;
      shown_ = true;
    } else if (const long tenth = 10 * done / total; tenth > last_tenth_) {
      last_tenth_ = tenth;
      out_ << "  " << what_ << ": " << done << "/" << total << " steps\n" << std::flush;
    }
  }

 private:
  std::ostream& out_;
  bool tty_;
  std::string what_;
  bool shown_ = false;
  long last_tenth_ = 0;
};

}  // namespace

std::vector<FailedTaskFile> failed_task_files(const std::string& log, const std::string& source_dir) {
  static const std::regex object(
      R"re((exercises|solutions)/(week\d+)(_[A-Za-z0-9_]*)/src/tasks/(\w+)\.(cpp|cu|sim\.cpp)\.o)re");
  std::vector<FailedTaskFile> out;
  std::istringstream in(log);
  std::string line;
  FailedTaskFile* current = nullptr;
  std::string prefix = source_dir.empty() ? "" : source_dir + "/";
  while (std::getline(in, line)) {
    std::smatch m;
    if (line.rfind("FAILED: ", 0) == 0) {
      current = nullptr;
      if (std::regex_search(line, m, object)) {
        const std::string task = std::string(m[2]) + "." + std::string(m[4]);
        const std::string ext = m[5] == "cpp" ? ".cpp" : ".cu";
        // A kernel fails twice (nvcc and the simulator build): one entry, the first error.
        const auto seen = std::find_if(out.begin(), out.end(), [&](const FailedTaskFile& f) { return f.task == task; });
        if (seen != out.end()) {
          current = seen->message.empty() ? &*seen : nullptr;
          continue;
        }
        out.push_back({task, m[1], std::string(m[2]) + std::string(m[3]), "", ext});
        current = &out.back();
      }
      continue;
    }
    if (line.rfind("[", 0) == 0 || line.rfind("ninja: ", 0) == 0) {
      current = nullptr;
      continue;
    }
    if (current && current->message.empty() && line.find("error:") != std::string::npos) {
      if (!prefix.empty() && line.rfind(prefix, 0) == 0) line.erase(0, prefix.size());
      // ccache's CCACHE_BASEDIR makes the compiler see paths relative to the build folder.
      static const std::regex up(R"((\.\./)+((exercises|solutions)/))");
      current->message = std::regex_replace(line, up, "$2");
    }
  }
  for (auto& f : out)
    if (f.message.empty()) f.message = "the file did not compile (see the build log)";
  return out;
}

std::string stub_of_task_file(const std::string& text, const std::string& task_id) {
  // The worksheet's own regions: everything between BEGIN TASK and END TASK goes.
  std::istringstream in(text);
  std::ostringstream out;
  bool inside = false;
  for (std::string line; std::getline(in, line);) {
    const auto code = line.find_first_not_of(" \t");
    const std::string body = code == std::string::npos ? "" : line.substr(code);
    if (!inside && body.rfind("// BEGIN TASK", 0) == 0) {
      inside = true;
      out << line << "\n" << line.substr(0, code) << "KINDLING_TODO(\"" << task_id << "\");\n";
    } else if (inside && body.rfind("// END TASK", 0) == 0) {
      inside = false;
      out << line << "\n";
    } else if (!inside) {
      out << line << "\n";
    }
  }
  return out.str();
}

Session::Session(const Manifest& manifest, GradeOptions options, std::ostream& out)
    : manifest_(manifest), o_(std::move(options)), out_(out) {}

bool Session::configure_stubs(const std::set<std::string>& tasks) {
  std::string list;
  for (const auto& t : tasks) list += (list.empty() ? "" : ";") + t;
  if (list == configured_stubs(o_.build_dir)) return true;
  const ProcessResult r = run_process({"/usr/bin/env", "cmake", "-S", o_.source_dir.string(), "-B",
                                       o_.build_dir.string(), "-DKINDLING_STUBBED_TASKS=" + list},
                                      600, o_.build_dir / "grade-results" / "stubs.configure.log");
  return r.exit_code == 0;
}

std::string Session::write_stub(const FailedTaskFile& f) {
  const std::string name = f.task.substr(f.task.find('.') + 1);
  const fs::path reference = o_.source_dir / "solutions" / f.week_folder / "src" / "tasks" / (name + f.ext);
  const fs::path student = o_.source_dir / f.tree / f.week_folder / "src" / "tasks" / (name + f.ext);
  std::string stub;
  try {
    // The pristine worksheet file: the reference with its regions stubbed, as the generator makes it.
    if (fs::exists(reference)) stub = gen::stub_regions(read_text(reference), reference.string(), nullptr).text;
  } catch (const gen::GenError&) {
    stub.clear();
  }
  if (stub.empty()) stub = stub_of_task_file(read_text(student), f.task);
  const fs::path target = o_.build_dir / "task-stubs" / f.week_folder / (name + f.ext);
  fs::create_directories(target.parent_path());
  std::ofstream(target) << stub;
  return target.string();
}

std::string Session::build(const std::string& target, const std::string& what) {
  const fs::path work = o_.build_dir / "grade-results";
  fs::create_directories(work);
  if (!session_reset_) {
    // A stub left from an earlier grading session must not hide code that compiles now.
    session_reset_ = true;
    if (!configure_stubs({}))
      return "CMake could not reconfigure the build folder (see grade-results/stubs.configure.log)";
  }
  const fs::path tree = o_.tree.empty() ? fs::path() : o_.source_dir / o_.tree;
  int overlapped = 0;
  for (int round = 0; round < 16; ++round) {
    std::vector<std::string> argv = {"/usr/bin/env", "cmake", "--build", o_.build_dir.string(), "--target", target};
    if (uses_ninja(o_.build_dir)) argv.insert(argv.end(), {"--", "-k", "0"});  // every broken file in one go
    const Snapshot before = snapshot(tree);
    ProcessResult b;
    {
      Progress progress(out_, o_.tty, what);
      b = run_process(argv, 3600, work / (target + ".build.log"), std::ref(progress));
    }
    // A file saved while the build ran may have been compiled as it was before the save, into
    // an object file newer than the save: Ninja would call it up to date from now on. Such a
    // file is touched (now newer than its object) and the build runs again.
    if (const auto changed = changed_files(before, snapshot(tree));
        !changed.empty() && overlapped < kMaxOverlappedBuilds) {
      ++overlapped;
      std::string names;
      for (const auto& f : changed) {
        std::error_code ec;
        if (fs::exists(f, ec)) fs::last_write_time(f, fs::file_time_type::clock::now(), ec);
        names += (names.empty() ? "" : ", ") + fs::path(f).lexically_relative(o_.source_dir).string();
      }
      out_ << "  " << tr("{0} changed during the build: building again", {names}) << "\n" << std::flush;
      --round;  // not a round of stubs
      continue;
    }
    if (b.exit_code == 0) return "";
    // A task file that does not compile costs that task only: build its stub instead.
    bool more = false;
    for (const auto& f : failed_task_files(b.output, o_.source_dir.string())) {
      if (stubbed_.count(f.task) || !manifest_.find(f.task)) continue;
      write_stub(f);
      stubbed_[f.task] = f.message;
      more = true;
      out_ << "  " << f.task << " does not compile; grading the rest with its stub in its place\n";
    }
    if (!more) return first_build_error(b.output);
    std::set<std::string> ids;
    for (const auto& [id, _] : stubbed_) ids.insert(id);
    if (!configure_stubs(ids)) return "CMake could not reconfigure the build folder with stubs";
  }
  return "the build kept failing with new task files";
}

void Session::perf_on_gpu(TaskResult& r, const std::string& week, const fs::path& work) {
  // The tests ran on the simulator, but this machine has a GPU: the GPU build's benchmark (the
  // student's kernel compiled by nvcc) measures the points. Where it cannot be built (no nvcc),
  // they stay needs_gpu: left out, not lost.
  const std::string target = "kindling_" + r.task.perf->gpu_bench + "_bench";
  const fs::path binary = o_.build_dir / "grader" / target;
  std::string error;
  if (o_.build) {
    out_ << "building " << target << " (a GPU is present) ..." << std::endl;
    error = build(target, "building " + week + "'s GPU benchmark");
  }
  if (!error.empty() || !fs::exists(binary)) {
    r.perf_message = needs_gpu_message(r.task) + "; a GPU is present, but " + target +
                     (error.empty() ? " is not built" : " did not build: " + error);
    return;
  }
  r.perf_needs_gpu = false;
  run_perf(r, binary, o_.timeout, work);
  if (r.perf_measured) return;
  // The benchmark found no device after all (its own skip message): left out, not lost. Any other
  // failure there (a timeout, a crash) is the kernel's: 0 points.
  if (r.perf_message.find(kNoGpuSkip) != std::string::npos) {
    r.perf_needs_gpu = true;
    r.perf_message = needs_gpu_message(r.task) + "; " + target + " found no GPU: " + r.perf_message;
  } else {
    r.perf_message = "on this machine's GPU (" + target + "): " + r.perf_message;
  }
}

Report Session::grade(const std::vector<Task>& tasks) {
  std::map<std::string, std::vector<Task>> by_week;
  for (const auto& t : tasks) by_week[t.week].push_back(t);
  Report report;
  report.tree = o_.tree_label;
  report.perf = o_.perf;
  const fs::path work = o_.build_dir / "grade-results";
  fs::create_directories(work);
  for (const auto& [week, week_tasks] : by_week) {
    const std::string target = "kindling_" + week + "_tests";
    const fs::path binary = o_.build_dir / "grader" / target;
    std::string build_error;
    if (o_.build) {
      out_ << "building " << target << " ..." << std::endl;
      build_error = build(target, "building " + week);
    }
    if (build_error.empty() && !fs::exists(binary))
      build_error = "the test program " + binary.string() + " is not built";
    // The benchmark behind this week's performance points (built only when needed).
    const bool week_has_perf =
        o_.perf && std::any_of(week_tasks.begin(), week_tasks.end(), [](const Task& t) { return t.perf_points > 0; });
    const std::string bench_target = "kindling_" + week + "_bench";
    const fs::path bench = o_.build_dir / "grader" / "bench" / bench_target;
    // Built when the first task that earns performance points here needs it (not at all where
    // every such task's points need a GPU that is not there).
    std::string bench_error;
    bool bench_built = !o_.build;
    const auto build_bench = [&] {
      if (bench_built) return;
      bench_built = true;
      out_ << "building " << bench_target << " ..." << std::endl;
      const std::string e = build(bench_target, "building " + week + "'s benchmark");
      if (!e.empty()) bench_error = "the benchmark did not build: " + e;
    };
    for (const auto& t : week_tasks) {
      TaskResult r;
      r.task = t;
      if (const auto s = stubbed_.find(t.id); s != stubbed_.end()) {
        r.status = Status::BuildError;
        r.message = s->second;
      } else if (!build_error.empty()) {
        r.status = Status::BuildError;
        r.message = build_error;
      }
      if (r.status == Status::BuildError && o_.perf && t.perf_points > 0 && perf_needs_gpu(t, "")) {
        r.perf_needs_gpu = true;  // no test run said where kernels run: the points are left out, not lost
        r.perf_message = needs_gpu_message(t);
      }
      if (r.status != Status::BuildError) {
        if (o_.tty) out_ << "\r\033[K  running " << t.id << std::flush;
        r = run_task(t, binary, o_.timeout, work, o_.memory_mb);
        if (o_.tty) out_ << "\r\033[K" << std::flush;
        r.perf_needs_gpu = week_has_perf && t.perf_points > 0 && perf_needs_gpu(t, r.cuda_backend);
        if (r.perf_needs_gpu && r.status == Status::Passed && !t.perf->gpu_bench.empty() && gpu_present()) {
          perf_on_gpu(r, week, work);
        } else if (r.perf_needs_gpu) {
          r.perf_message = needs_gpu_message(t);
        } else if (week_has_perf && t.perf_points > 0 && r.status == Status::Passed) {
          build_bench();
          if (!bench_error.empty())
            r.perf_message = bench_error;
          else if (!fs::exists(bench))
            r.perf_message = "the benchmark " + bench.string() + " is not built";
          else
            run_perf(r, bench, o_.timeout, work);
        }
      }
      report.results.push_back(r);
    }
  }
  return report;
}

}  // namespace kindling::grader
