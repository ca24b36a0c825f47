// kindling-grade: builds each week's tests, runs every task in its own process
// with a time limit, and reports. ./grade is the friendly front door to it.

#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <iostream>
#include <map>

#include <CLI/CLI.hpp>

#include "grader.hpp"

namespace fs = std::filesystem;
using namespace kindling::grader;

namespace {
void write_file(const std::string& path, const std::string& text) {
  if (path.empty()) return;
  if (fs::path(path).has_parent_path()) fs::create_directories(fs::path(path).parent_path());
  std::ofstream out(path);
  if (!out) throw std::runtime_error("cannot write " + path);
  out << text;
  std::cout << "wrote " << path << "\n";
}
}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"kindling-grade: grade a Kindling tree task by task"};
  std::vector<std::string> selection;
  std::string tree = "exercises", reference, build_dir, source_dir = KINDLING_SOURCE_DIR;
  std::string json_out, gradescope_out, junit_out, require;
  double timeout = 60;
  bool no_build = false, no_color = false, list = false, no_perf = false;
  app.add_option("selection", selection, "weeks (week01) or tasks (week01.view); all when none");
  app.add_option("--tree", tree, "the tree this build was configured with (for the report)");
  app.add_option("--reference", reference, "weeks taken from solutions/ (for the report)");
  app.add_option("--build-dir", build_dir, "the configured build folder")->required();
  app.add_option("--source-dir", source_dir, "the kit's top folder");
  app.add_option("--timeout", timeout, "seconds each task's tests may run")->check(CLI::PositiveNumber);
  app.add_option("--json", json_out, "write the results as JSON");
  app.add_option("--gradescope", gradescope_out, "write Gradescope's results.json");
  app.add_option("--junit", junit_out, "write JUnit XML");
  app.add_flag("--no-build", no_build, "use the test programs already built");
  app.add_flag("--no-perf", no_perf, "skip the benchmarks behind performance points");
  app.add_flag("--list", list, "list the selected tasks with their points and hints, then stop");
  app.add_flag("--no-color", no_color, "plain table");
  app.add_option("--require", require, "exit 1 unless every task is as required (the kit's own tests)")
      ->check(CLI::IsMember({"full", "not_implemented"}));
  CLI11_PARSE(app, argc, argv);

  try {
    const Manifest manifest = read_manifest(fs::path(source_dir) / "grader" / "tasks.json");
    const std::vector<Task> tasks = select_tasks(manifest, selection);
    if (list) {
      for (const auto& t : tasks)
        std::cout << t.id << "  (" << t.points << " points)  " << t.title << "\n    hint: " << t.hint << "\n";
      return 0;
    }
    std::map<std::string, std::vector<Task>> by_week;
    for (const auto& t : tasks) by_week[t.week].push_back(t);

    Report report;
    report.tree = tree + (reference.empty() ? "" : " + reference " + reference);
    report.perf = !no_perf;
    const fs::path work = fs::path(build_dir) / "grade-results";
    for (const auto& [week, week_tasks] : by_week) {
      const std::string target = "kindling_" + week + "_tests";
      const fs::path binary = fs::path(build_dir) / "grader" / target;
      std::string build_error;
      if (!no_build) {
        std::cout << "building " << target << " ..." << std::endl;
        fs::create_directories(work);
        const ProcessResult b = run_process({"/usr/bin/env", "cmake", "--build", build_dir, "--target", target}, 3600,
                                            work / (week + "-build.log"));
        if (b.exit_code != 0) build_error = first_build_error(b.output);
      }
      if (build_error.empty() && !fs::exists(binary))
        build_error = "the test program " + binary.string() + " is not built";
      // The benchmark behind this week's performance points (built only when needed).
      const bool week_has_perf = !no_perf && std::any_of(week_tasks.begin(), week_tasks.end(),
                                                         [](const Task& t) { return t.perf_points > 0; });
      const std::string bench_target = "kindling_" + week + "_bench";
      const fs::path bench = fs::path(build_dir) / "grader" / "bench" / bench_target;
      std::string bench_error;
      if (week_has_perf && build_error.empty() && !no_build) {
        std::cout << "building " << bench_target << " ..." << std::endl;
        const ProcessResult b = run_process({"/usr/bin/env", "cmake", "--build", build_dir, "--target", bench_target},
                                            3600, work / (week + "-bench-build.log"));
        if (b.exit_code != 0) bench_error = "the benchmark did not build: " + first_build_error(b.output);
      }
      for (const auto& t : week_tasks) {
        if (!build_error.empty()) {
          TaskResult r;
          r.task = t;
          r.status = Status::BuildError;
          r.message = build_error;
          report.results.push_back(r);
          continue;
        }
        TaskResult r = run_task(t, binary, timeout, work);
        if (week_has_perf && t.perf_points > 0 && r.status == Status::Passed) {
          if (!bench_error.empty())
            r.perf_message = bench_error;
          else if (!fs::exists(bench))
            r.perf_message = "the benchmark " + bench.string() + " is not built";
          else
            run_perf(r, bench, timeout, work);
        }
        report.results.push_back(r);
      }
    }
    std::cout << table(report, !no_color && isatty(STDOUT_FILENO));
    write_file(json_out, to_json(report));
    write_file(gradescope_out, to_gradescope(report));
    write_file(junit_out, to_junit(report));

    if (require == "full") {
      for (const auto& r : report.results) {
        if (r.status != Status::Passed) {
          std::cerr << "required full marks, but " << r.task.id << " is " << to_string(r.status) << "\n";
          return 1;
        }
        // Performance points depend on the machine, so only their measurement is required.
        if (report.perf && r.task.perf_points > 0 && !r.perf_measured) {
          std::cerr << "required full marks, but " << r.task.id << "'s benchmark gave no result: " << r.perf_message
                    << "\n";
          return 1;
        }
      }
    } else if (require == "not_implemented") {
      for (const auto& r : report.results)
        if (r.status != Status::NotImplemented || r.tests_passed != 0) {
          std::cerr << "required every task not_implemented with no test passing, but " << r.task.id << " is "
                    << to_string(r.status) << " with " << r.tests_passed << " test(s) passing\n";
          return 1;
        }
    }
  } catch (const std::exception& e) {
    std::cerr << "kindling-grade: " << e.what() << "\n";
    return 2;
  }
  return 0;
}
