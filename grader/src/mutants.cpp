// `./grade mutants`: the kit's mutation suite. Each mutant is a copy of a task's reference file
// with one plausible mistake (grader/mutants/<week>/<task>/<name>.<ext>, its first line
// `// MUTANT: <the misunderstanding>`); the runner copies it over the task file, builds the
// week's tests, grades the task with the grader's own core, and restores the file. A mutant
// that still earns full marks survived: the task's tests cannot tell that mistake from a
// correct solution.

#include <algorithm>
#include <fstream>
#include <iomanip>
#include <random>
#include <sstream>

#include <nlohmann/json.hpp>

#include "grader.hpp"

namespace kindling::grader {

namespace fs = std::filesystem;

namespace {
std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + p.string());
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void write_text(const fs::path& p, const std::string& text) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  if (!out || !(out << text) || !out.flush()) throw std::runtime_error("cannot write " + p.string());
}

// The backup of a task file while a mutant sits in its place: written before the mutant goes
// in, removed after the original is back, so that an interrupted run is repaired by the next.
fs::path backup_dir(const fs::path& build_dir) { return build_dir / "mutants" / "backup"; }

void restore_backups(const fs::path& build_dir, const fs::path& source_dir, std::ostream& out) {
  const fs::path dir = backup_dir(build_dir);
  if (!fs::exists(dir)) return;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().extension() != ".path") continue;
    const fs::path target = source_dir / read_text(e.path());
    const fs::path saved = fs::path(e.path()).replace_extension(".orig");
    if (fs::exists(saved)) {
      write_text(target, read_text(saved));
      out << "mutants: restored " << target.lexically_relative(source_dir).string() << " from an interrupted run\n";
      fs::remove(saved);
    }
    fs::remove(e.path());
  }
}

// Puts a mutant in place for its lifetime and the original back after, whatever happens.
class Swap {
 public:
  Swap(const fs::path& build_dir, const fs::path& source_dir, const fs::path& target, const std::string& replacement)
      : target_(target), original_(read_text(target)) {
    fs::create_directories(backup_dir(build_dir));
    saved_ = backup_dir(build_dir) / "task.orig";
    marker_ = backup_dir(build_dir) / "task.path";
    write_text(saved_, original_);
    write_text(marker_, target.lexically_relative(source_dir).string());
    write_text(target_, replacement);
  }
  ~Swap() {
    try {
      write_text(target_, original_);
      fs::remove(saved_);
      fs::remove(marker_);
    } catch (...) {  // the backup stays, and the next run restores it
    }
  }
  Swap(const Swap&) = delete;
  Swap& operator=(const Swap&) = delete;

 private:
  fs::path target_, saved_, marker_;
  std::string original_;
};

std::string git_output(const fs::path& source_dir, const std::vector<std::string>& args, const fs::path& log) {
  std::vector<std::string> argv{"/usr/bin/env", "git", "-C", source_dir.string()};
  argv.insert(argv.end(), args.begin(), args.end());
  const ProcessResult r = run_process(argv, 60, log);
  if (r.exit_code != 0) throw std::runtime_error("git " + args.front() + " failed: " + r.output);
  return r.output;
}
}  // namespace

Mutant parse_mutant(const std::string& task_id, const fs::path& file, const std::string& text) {
  Mutant m;
  m.task_id = task_id;
  m.file = file;
  m.name = file.stem().string();
  std::istringstream in(text);
  std::string line;
  std::size_t consumed = 0;
  bool first = true;
  while (std::getline(in, line)) {
    const std::string_view l(line);
    if (first && l.rfind("// MUTANT:", 0) == 0) {
      m.description = std::string(l.substr(10));
    } else if (!first && l.rfind("// EQUIVALENT:", 0) == 0) {
      m.equivalent = true;
      m.equivalent_reason = std::string(l.substr(14));
    } else if (!first && l.rfind("// PERFORMANCE:", 0) == 0) {
      m.performance = true;
      m.performance_reason = std::string(l.substr(15));
    } else {
      break;
    }
    first = false;
    consumed += line.size() + 1;
  }
  auto trim = [](std::string& s) {
    s.erase(0, s.find_first_not_of(' '));
    s.erase(s.find_last_not_of(" \r") + 1);
  };
  trim(m.description);
  trim(m.equivalent_reason);
  trim(m.performance_reason);
  if (m.description.empty())
    throw std::runtime_error(file.string() + ": a mutant's first line must be `// MUTANT: <the misunderstanding>`");
  m.body = text.substr(std::min(consumed, text.size()));
  return m;
}

std::vector<Mutant> find_mutants(const fs::path& source_dir, const std::vector<Task>& tasks) {
  std::vector<Mutant> out;
  for (const Task& t : tasks) {
    const std::string name = t.id.substr(t.id.find('.') + 1);
    const fs::path dir = source_dir / "grader" / "mutants" / t.week / name;
    if (!fs::is_directory(dir)) continue;
    std::vector<fs::path> files;
    for (const auto& e : fs::directory_iterator(dir))
      if (e.is_regular_file()) files.push_back(e.path());
    std::sort(files.begin(), files.end());
    for (const auto& f : files) out.push_back(parse_mutant(t.id, f, read_text(f)));
  }
  return out;
}

std::vector<std::string> changed_tasks(const Manifest& m, const fs::path& source_dir, const std::string& since,
                                       const fs::path& log) {
  // Files changed between `since` and the working tree, committed or not.
  const std::string names = git_output(source_dir, {"diff", "--name-only", since, "--"}, log);
  std::vector<std::string> out;
  for (const Task& t : m.tasks) {
    const std::string name = t.id.substr(t.id.find('.') + 1);
    const std::string folder = m.week(t.week).folder;
    const std::string task_file = "solutions/" + folder + "/src/tasks/" + name + ".";
    const std::string mutants = "grader/mutants/" + t.week + "/" + name + "/";
    const std::string tests = "grader/tests/" + t.week + "/";
    std::istringstream in(names);
    std::string f;
    bool hit = false;
    while (std::getline(in, f) && !hit) {
      // Its task file, its mutants, or its week's tests (which file holds which suite is not
      // worth parsing here: a test change reruns the week's mutants).
      hit = f.rfind(task_file, 0) == 0 || f.rfind(mutants, 0) == 0 || f.rfind(tests, 0) == 0;
    }
    if (hit) out.push_back(t.id);
  }
  return out;
}

std::vector<Mutant> rotation(const std::vector<Mutant>& all, std::size_t count, const std::string& seed) {
  std::vector<Mutant> pool = all;
  std::seed_seq seq(seed.begin(), seed.end());
  std::mt19937_64 rng(seq);
  std::shuffle(pool.begin(), pool.end(), rng);
  if (pool.size() > count) pool.resize(count);
  std::sort(pool.begin(), pool.end(), [](const Mutant& a, const Mutant& b) { return a.file < b.file; });
  return pool;
}

std::vector<MutantResult> run_mutants(const Manifest& m, const std::vector<Mutant>& mutants, const GradeOptions& o,
                                      std::ostream& out) {
  restore_backups(o.build_dir, o.source_dir, out);
  std::vector<MutantResult> results;
  const fs::path work = o.build_dir / "mutants" / "runs";
  fs::create_directories(work);
  std::size_t n = 0;
  for (const Mutant& mu : mutants) {
    ++n;
    MutantResult r;
    r.mutant = mu;
    const Task* task = m.find(mu.task_id);
    if (!task) throw std::runtime_error(mu.file.string() + ": no task " + mu.task_id + " in the manifest");
    out << "mutants: [" << n << "/" << mutants.size() << "] " << mu.task_id << " " << mu.name << " ..." << std::flush;
    if (mu.equivalent) {
      r.verdict = MutantVerdict::Equivalent;
      r.message = mu.equivalent_reason;
      out << " equivalent (not run)\n";
      results.push_back(r);
      continue;
    }
    if (mu.performance && !task->perf) {
      r.verdict = MutantVerdict::Skipped;
      r.message = "only slower (" + mu.performance_reason + "), and the task has no performance points to tell";
      out << " skipped (performance only, no performance points)\n";
      results.push_back(r);
      continue;
    }
    if (mu.performance && !o.perf) {
      r.verdict = MutantVerdict::Skipped;
      r.message = "only slower (" + mu.performance_reason + "): run with performance points to grade it";
      out << " skipped (performance only)\n";
      results.push_back(r);
      continue;
    }
    // The task's file, a .cu for a kernel task; the mutant must be written in the same language.
    const fs::path real_target = o.source_dir / task->source(o.source_dir, "solutions", m.week(task->week).folder);
    if (!fs::exists(real_target) || real_target.extension() != mu.file.extension())
      throw std::runtime_error(mu.file.string() + ": no task file " +
                               fs::path(real_target).replace_extension(mu.file.extension()).string());
    const std::string test_target = "kindling_" + task->week + "_tests";
    {
      Swap swap(o.build_dir, o.source_dir, real_target, mu.body);
      const fs::path log = work / (mu.task_id + "." + mu.name + ".build.log");
      const ProcessResult b =
          run_process({"/usr/bin/env", "cmake", "--build", o.build_dir.string(), "--target", test_target}, 1800, log);
      if (b.exit_code != 0 || b.timed_out) {
        r.verdict = MutantVerdict::Invalid;
        r.message = "does not compile: " + first_build_error(b.output);
      } else {
        const TaskResult t = run_task(*task, o.build_dir / "grader" / test_target, o.timeout, work, o.memory_mb);
        r.status = t.status;
        r.message = t.message;
        r.seconds = t.seconds;
        r.verdict = t.status == Status::Passed ? MutantVerdict::Survived : MutantVerdict::Killed;
        if (r.verdict == MutantVerdict::Survived && o.perf && task->perf) {
          // Full marks on correctness: its performance points may still tell it apart.
          const std::string bench_target = "kindling_" + task->perf->bench + "_bench";
          const ProcessResult bb = run_process(
              {"/usr/bin/env", "cmake", "--build", o.build_dir.string(), "--target", bench_target}, 1800, log);
          if (bb.exit_code == 0) {
            TaskResult p = t;
            run_perf(p, o.build_dir / "grader" / "bench" / bench_target, 600, work);
            if (p.perf_points < task->perf_points) {
              r.verdict = MutantVerdict::Killed;
              r.message = "performance: " + p.perf_message;
            }
          }
        }
      }
    }
    out << " " << to_string(r.verdict) << (r.verdict == MutantVerdict::Killed ? " (" + to_string(r.status) + ")" : "")
        << "\n";
    results.push_back(r);
  }
  // The originals are back: rebuild them, so that the build folder is as it was.
  std::set<std::string> weeks;
  for (const Mutant& mu : mutants) weeks.insert(mu.task_id.substr(0, 6));
  for (const std::string& w : weeks)
    run_process({"/usr/bin/env", "cmake", "--build", o.build_dir.string(), "--target", "kindling_" + w + "_tests"},
                1800, work / "rebuild.log");
  return results;
}

std::string to_string(MutantVerdict v) {
  switch (v) {
    case MutantVerdict::Killed:
      return "killed";
    case MutantVerdict::Survived:
      return "SURVIVED";
    case MutantVerdict::Invalid:
      return "invalid";
    case MutantVerdict::Equivalent:
      return "equivalent";
    case MutantVerdict::Skipped:
      return "skipped";
  }
  return "?";
}

std::string mutants_table(const std::vector<MutantResult>& results) {
  std::ostringstream out;
  std::size_t killed = 0, survived = 0, invalid = 0, equivalent = 0, skipped = 0;
  // Columns as wide as their longest entry, and a space more: a name is never run into the verdict.
  std::size_t task_width = 0, name_width = 0;
  for (const auto& r : results) {
    task_width = std::max(task_width, r.mutant.task_id.size() + 1);
    name_width = std::max(name_width, r.mutant.name.size() + 1);
  }
  for (const auto& r : results) {
    out << std::left << std::setw(static_cast<int>(task_width)) << r.mutant.task_id
        << std::setw(static_cast<int>(name_width)) << r.mutant.name << std::setw(11) << to_string(r.verdict);
    if (r.verdict == MutantVerdict::Killed)
      out << to_string(r.status) << ": " << r.message.substr(0, 160);
    else if (r.verdict == MutantVerdict::Survived)
      out << "full marks, though it " << r.mutant.description;
    else
      out << r.message.substr(0, 160);
    out << "\n";
    switch (r.verdict) {
      case MutantVerdict::Killed:
        ++killed;
        break;
      case MutantVerdict::Survived:
        ++survived;
        break;
      case MutantVerdict::Invalid:
        ++invalid;
        break;
      case MutantVerdict::Equivalent:
        ++equivalent;
        break;
      case MutantVerdict::Skipped:
        ++skipped;
        break;
    }
  }
  const std::size_t counted = killed + survived;
  out << "mutants: " << results.size() << " run; " << killed << " killed, " << survived << " survived, " << invalid
      << " invalid (do not compile), " << equivalent << " equivalent and " << skipped
      << " performance-only skipped (not counted)";
  if (counted > 0)
    out << "; kill rate " << killed << "/" << counted << " = " << std::fixed << std::setprecision(1)
        << 100.0 * static_cast<double>(killed) / static_cast<double>(counted) << "%";
  out << "\n";
  return out.str();
}

std::string mutants_json(const std::vector<MutantResult>& results) {
  nlohmann::json all = nlohmann::json::array();
  for (const auto& r : results)
    all.push_back({{"task", r.mutant.task_id},
                   {"mutant", r.mutant.name},
                   {"file", r.mutant.file.string()},
                   {"description", r.mutant.description},
                   {"verdict", to_string(r.verdict)},
                   {"status", to_string(r.status)},
                   {"message", r.message},
                   {"seconds", r.seconds}});
  return all.dump(1) + "\n";
}

}  // namespace kindling::grader
