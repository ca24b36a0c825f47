// kindling-grade: builds each week's tests, runs every task in its own process
// with a time limit, and reports. ./grade is the friendly front door to it.

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <iostream>
#include <set>

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

// The terminal's width in columns, or 100 when the output is not a terminal.
std::size_t terminal_width() {
  winsize w{};
  if (isatty(STDOUT_FILENO) && ioctl(STDOUT_FILENO, TIOCGWINSZ, &w) == 0 && w.ws_col > 0) return w.ws_col;
  return 100;
}
}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"kindling-grade: grade a Kindling tree task by task"};
  app.fallthrough();  // the options may come after `hint` or `watch`
  std::vector<std::string> selection;
  std::string tree = "exercises", reference, build_dir, source_dir = KINDLING_SOURCE_DIR;
  std::string json_out, gradescope_out, junit_out, html_out, require, note_file;
  double timeout = 60, memory_mb = 8192;
  bool no_build = false, no_color = false, list = false, no_perf = false, verbose = false;
  app.add_option("selection", selection, "weeks (week01) or tasks (week01.view); all when none");
  app.add_option("--tree", tree, "the tree this build was configured with (for the report)");
  app.add_option("--reference", reference, "weeks taken from solutions/ (for the report)");
  app.add_option("--build-dir", build_dir, "the configured build folder")->required();
  app.add_option("--source-dir", source_dir, "the kit's top folder");
  app.add_option("--timeout", timeout, "seconds each task's tests may run")->check(CLI::PositiveNumber);
  app.add_option("--memory-mb", memory_mb, "MiB of memory each task's tests may use (0: no limit)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--json", json_out, "write the results as JSON");
  app.add_option("--gradescope", gradescope_out, "write Gradescope's results.json");
  app.add_option("--junit", junit_out, "write JUnit XML");
  app.add_option("--note", note_file, "a text file shown first in Gradescope's output (the autograder's file list)");
  app.add_option("--html", html_out, "write the HTML progress report here too (always: <build>/report.html)");
  app.add_flag("--no-build", no_build, "use the test programs already built");
  app.add_flag("--no-perf", no_perf, "skip the benchmarks behind performance points");
  app.add_flag("--list", list, "list the selected tasks with their points and first hints, then stop");
  app.add_flag("--no-color", no_color, "plain table");
  app.add_flag("--verbose", verbose, "show every failing test's message under its task, not just the first");
  std::string lang;
  app.add_option("--lang", lang,
                 "the grader's language: en or ko (default: KINDLING_LANG, else ko under a Korean locale, else en)");
  app.add_option("--require", require, "exit 1 unless every task is as required (the kit's own tests)")
      ->check(CLI::IsMember({"full", "not_implemented"}));
  std::vector<std::string> hint_for, watch_selection;
  CLI::App* hint = app.add_subcommand("hint", "show the next hint of a task (1, then 2, then 3)");
  hint->add_option("task", hint_for, "the task; the first one not yet passed when none");
  CLI::App* watch_cmd = app.add_subcommand("watch", "re-grade the current task whenever a file is saved");
  watch_cmd->add_option("selection", watch_selection, "weeks or tasks to work through; all when none");
  std::vector<std::string> mutant_selection;
  std::string changed_since, rotation_seed, mutants_json_out;
  std::size_t rotation_count = 0;
  bool mutants_list = false;
  CLI::App* mutants_cmd =
      app.add_subcommand("mutants", "the mutation suite: grade each planted wrong solution (grader/mutants)");
  mutants_cmd->add_option("selection", mutant_selection, "weeks or tasks whose mutants run; all when none");
  mutants_cmd->add_option("--changed-since", changed_since,
                          "also select the tasks whose task file, mutants or week's tests changed since this git "
                          "revision (with no selection: only those)");
  mutants_cmd->add_option("--rotation", rotation_count, "add this many other mutants, chosen by --seed");
  mutants_cmd->add_option("--seed", rotation_seed, "the rotation's seed (a commit hash makes a run reproducible)");
  mutants_cmd->add_option("--mutants-json", mutants_json_out, "write the mutants' results as JSON");
  mutants_cmd->add_flag("--list", mutants_list, "list the selected mutants and their descriptions, then stop");
  CLI11_PARSE(app, argc, argv);

  try {
    Manifest manifest = read_manifest(fs::path(source_dir) / "grader" / "tasks.json");
    set_language(choose_language(lang), source_dir, manifest);
    const Workspace workspace(build_dir);
    if (hint->parsed()) {
      const State state = load_state(workspace.state, manifest);
      const std::vector<Task> tasks = select_tasks(manifest, hint_for);
      // One task: its next hint. A week (or nothing): the first of its tasks not passed yet.
      const bool one_task = hint_for.size() == 1 && hint_for[0].find('.') != std::string::npos;
      const Task* t = one_task ? &tasks.front() : first_unpassed(tasks, state);
      if (hint_for.size() > 1) throw std::invalid_argument("hint takes one task");
      if (!t) {
        std::cout << tr("Every task has passed: no hint needed.") << "\n";
        return 0;
      }
      std::cout << next_hint(workspace, *t);
      return 0;
    }
    if (mutants_cmd->parsed()) {
      std::vector<Mutant> chosen;
      std::set<std::string> files;
      auto add = [&](const std::vector<Mutant>& ms) {
        for (const auto& mu : ms)
          if (files.insert(mu.file.string()).second) chosen.push_back(mu);
      };
      if (!mutant_selection.empty() || changed_since.empty())
        add(find_mutants(source_dir, select_tasks(manifest, mutant_selection)));
      if (!changed_since.empty()) {
        const auto ids = changed_tasks(manifest, source_dir, changed_since, fs::path(build_dir) / "mutants-git.log");
        if (!ids.empty()) add(find_mutants(source_dir, select_tasks(manifest, ids)));
        std::cout << "mutants: " << ids.size() << " task(s) changed since " << changed_since << "\n";
      }
      if (rotation_count > 0) {
        std::vector<Mutant> rest;
        for (const auto& mu : find_mutants(source_dir, manifest.tasks))
          if (!files.count(mu.file.string())) rest.push_back(mu);
        add(rotation(rest, rotation_count, rotation_seed));
      }
      if (mutants_list) {
        for (const auto& mu : chosen)
          std::cout << mu.task_id << "  " << mu.name << (mu.equivalent ? "  (equivalent)" : "") << "\n    "
                    << mu.description << "\n";
        return 0;
      }
      GradeOptions options;
      options.source_dir = source_dir;
      options.build_dir = build_dir;
      options.timeout = timeout;
      options.memory_mb = memory_mb;
      options.perf = !no_perf;
      const auto results = run_mutants(manifest, chosen, options, std::cout);
      std::cout << mutants_table(results);
      write_file(mutants_json_out, mutants_json(results));
      for (const auto& r : results)
        if (r.verdict == MutantVerdict::Survived || r.verdict == MutantVerdict::Invalid) return 1;
      return 0;
    }
    const std::vector<Task> tasks = select_tasks(manifest, watch_cmd->parsed() ? watch_selection : selection);
    if (list) {
      for (const auto& t : tasks) {
        std::cout << t.id << "  (" << t.points << " points)  " << t.title
                  << "\n    hint: " << (t.hints.empty() ? "" : t.hints.front()) << "\n";
        if (!t.needs.empty()) {
          std::string needs;
          for (const auto& n : t.needs) needs += (needs.empty() ? "" : ", ") + n;
          std::cout << "    " << tr("needs: {0} (and the earlier weeks)", {needs}) << "\n";
        }
      }
      return 0;
    }
    GradeOptions options;
    options.source_dir = source_dir;
    options.build_dir = build_dir;
    options.tree_label = tree + (reference.empty() ? "" : " + reference " + reference);
    options.timeout = timeout;
    options.memory_mb = memory_mb;
    options.build = !no_build;
    options.perf = !no_perf;
    options.tty = isatty(STDOUT_FILENO);
    options.verbose = verbose;
    options.tree = tree;
    // Watch works through the tasks in an order where each comes after the tasks it needs.
    if (watch_cmd->parsed()) return watch(manifest, order_by_needs(tasks), options, tree);

    Session session(manifest, options, std::cout);
    Report report = session.grade(tasks);
    if (!note_file.empty()) {
      std::ifstream in(note_file);
      if (!in) throw std::runtime_error("cannot read the note " + note_file);
      report.note.assign(std::istreambuf_iterator<char>(in), {});
      while (!report.note.empty() && report.note.back() == '\n') report.note.pop_back();
    }
    std::cout << table(report, !no_color && isatty(STDOUT_FILENO), terminal_width(), verbose);
    State state = load_state(workspace.state, manifest);
    record_run(workspace, manifest, report, state);
    std::cout << "report: " << workspace.report_html.string() << "\n";
    write_file(json_out, to_json(report));
    write_file(gradescope_out, to_gradescope(report));
    write_file(junit_out, to_junit(report));
    write_file(html_out, to_html(manifest, state, load_history(workspace.history), report.perf));

    if (require == "full") {
      for (const auto& r : report.results) {
        if (r.status != Status::Passed) {
          std::cerr << "required full marks, but " << r.task.id << " is " << to_string(r.status) << "\n";
          return 1;
        }
        // Performance points depend on the machine, so only their measurement is required (and not
        // that of points which need a GPU that is not there: needs_gpu).
        if (report.perf && r.task.perf_points > 0 && !r.perf_measured && !r.perf_needs_gpu) {
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
