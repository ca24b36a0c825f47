// Turning a task's test run into a status and a message.

#include <algorithm>
#include <csignal>
#include <cstring>
#include <fstream>
#include <regex>
#include <sstream>

#include <nlohmann/json.hpp>

#include "grader.hpp"

namespace kindling::grader {
namespace {

const char* kNotImplementedTag = "[not implemented]";

// The test that was running when the process died: the last "[ RUN      ]" without an end line.
std::string last_running_test(const std::string& output) {
  std::string last;
  std::istringstream in(output);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("[ RUN      ] ", 0) == 0)
      last = line.substr(13);
    else if (line.rfind("[       OK ] ", 0) == 0 || line.rfind("[  FAILED  ] ", 0) == 0 ||
             line.rfind("[  SKIPPED ] ", 0) == 0)
      last.clear();
  }
  return last;
}

// The longest message kept (JSON, HTML, the table): the fix is usually named at the end of a
// message, so only a runaway one (a whole tensor printed) is cut.
constexpr std::size_t kMaxMessage = 4000;
// The most failures one task keeps for --verbose.
constexpr std::size_t kMaxFailures = 100;
// The property a week-6 test records its launch's memory counters under
// (grader/tests/week06/sim_arrays.hpp, record_counters), and how many of them a result keeps.
constexpr const char* kCountersProperty = "kindling_counters";
constexpr std::size_t kMaxCounters = 8;

// A failure text without GoogleTest's "file:line" first line, at most kMaxMessage long.
std::string tidy(std::string text) {
  const auto nl = text.find('\n');
  if (nl != std::string::npos && (text.rfind("unknown file", 0) == 0 || text.find(':') < nl))
    text = text.substr(nl + 1);
  // Uncaught exceptions: keep just the description.
  static const std::regex thrown(R"re(C\+\+ exception with description "([\s\S]*)" thrown in the test body\.?)re");
  std::smatch m;
  if (std::regex_search(text, m, thrown)) text = m[1];
  for (auto& c : text)
    if (c == '\n') c = ' ';
  if (text.size() > kMaxMessage) {
    std::size_t cut = kMaxMessage - 3;
    while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;  // not inside a UTF-8 character
    text = text.substr(0, cut) + "...";
  }
  return text;
}

// The task id in "[not implemented] week01.view: fill in ...".
std::string stub_task(const std::string& text) {
  std::string s = text.substr(text.find(kNotImplementedTag) + std::string(kNotImplementedTag).size());
  s.erase(0, s.find_first_not_of(' '));
  return s.substr(0, s.find_first_of(": \"\n"));
}

std::string joined(const std::vector<std::string>& items) {
  std::string list;
  for (const auto& i : items) list += (list.empty() ? "" : ", ") + i;
  return list;
}

// The number of week "week06" (6), or 0.
int week_number(const std::string& week) {
  if (week.size() <= 4 || week.rfind("week", 0) != 0) return 0;
  int n = 0;
  for (std::size_t i = 4; i < week.size(); ++i) {
    if (week[i] < '0' || week[i] > '9' || n > 1000) return 0;
    n = n * 10 + (week[i] - '0');
  }
  return n;
}

// The weeks before `week`, as --reference takes them: "week01,week02,...,week05".
std::string earlier_weeks(const std::string& week) {
  std::string list;
  for (int w = 1; w < week_number(week); ++w)
    list += std::string(list.empty() ? "" : ",") + (w < 10 ? "week0" : "week") + std::to_string(w);
  return list;
}

// Names the task's own stub first, then any other stub its tests reached, and says what to do
// about those: a task of the same week that the manifest lists as needed comes earlier in the
// week's table; an earlier week's is finished there, or graded with the reference's weeks.
std::string not_implemented_message(const Task& task, const std::vector<std::string>& stubs) {
  std::vector<std::string> same_week, earlier, others;
  bool own = false;
  for (const auto& s : stubs) {
    if (s == task.id) {
      own = true;
      continue;
    }
    others.push_back(s);
    const std::string week = s.substr(0, s.find('.'));
    if (week == task.week)
      same_week.push_back(s);
    else if (week_number(week) < week_number(task.week))
      earlier.push_back(s);
  }
  const std::string list = joined(others);
  std::string message = own ? tr("[not implemented] {0} (the stub still throws)", {task.id}) +
                                  (list.empty() ? "" : tr("; its tests also reach {0}", {list}))
                            : tr("[not implemented] this task's tests need {0} first", {list});
  const std::string week = std::to_string(week_number(task.week));
  // A same-week task the manifest lists comes earlier in the table, or passes together with this
  // one (a cycle); of one it does not list, it knows nothing more.
  const auto has = [](const std::vector<std::string>& ids, const std::string& id) {
    return std::find(ids.begin(), ids.end(), id) != ids.end();
  };
  std::vector<std::string> before, together;
  for (const auto& s : same_week)
    if (has(task.mutual, s))
      together.push_back(s);
    else if (has(task.needs, s))
      before.push_back(s);
  std::string advice;
  if (before.size() == 1)
    advice = tr("Finish {0}: it comes earlier in week {1}'s table.", {before[0], week});
  else if (!before.empty())
    advice = tr("Finish {0}: they come earlier in week {1}'s table.", {joined(before), week});
  if (!together.empty())
    advice += (advice.empty() ? "" : " ") +
              (together.size() == 1
                   ? tr("This task and {0} use each other's code: finish both, and both pass.", {together[0]})
                   : tr("This task and {0} use each other's code: finish them all, and all pass.", {joined(together)}));
  const std::string weeks = earlier_weeks(task.week);
  if (!earlier.empty() && !weeks.empty()) {
    const std::string how =
        earlier.size() == 1
            ? tr("{0} is from an earlier week: finish it, or grade on the reference's earlier weeks:", {earlier[0]})
            : tr("{0} are from earlier weeks: finish them, or grade on the reference's earlier weeks:",
                 {joined(earlier)});
    advice += (advice.empty() ? "" : " ") + how + " ./grade --reference " + weeks + " " + task.week;
  }
  if (!advice.empty()) message += ". " + advice;
  return message;
}

}  // namespace

std::string to_string(Status s) {
  switch (s) {
    case Status::Passed:
      return "passed";
    case Status::Failed:
      return "failed";
    case Status::NotImplemented:
      return "not_implemented";
    case Status::Crashed:
      return "crashed";
    case Status::TimedOut:
      return "timed_out";
    case Status::BuildError:
      return "build_error";
    case Status::MemoryExceeded:
      return "memory_exceeded";
  }
  return "?";
}

TaskResult classify(const Task& task, const ProcessResult& run, const std::string& gtest_json, double timeout_s) {
  TaskResult r;
  r.task = task;
  r.seconds = run.seconds;
  const std::string running = last_running_test(run.output);
  const std::string in_test = running.empty() ? "" : " in " + running;
  if (run.timed_out) {
    r.status = Status::TimedOut;
    std::ostringstream msg;
    msg << "did not finish within " << timeout_s << " s" << in_test << " (an infinite loop or a deadlock?)";
    r.message = msg.str();
    return r;
  }
  // An allocation beyond the task's memory limit throws std::bad_alloc: GoogleTest
  // reports it as a failure of the test body, or the process aborts with it. A
  // SIGKILL that was not ours is the kernel's out-of-memory killer.
  if (run.output.find("std::bad_alloc") != std::string::npos || run.signal == SIGKILL) {
    r.status = Status::MemoryExceeded;
    r.message = std::string(run.signal == SIGKILL ? "killed by the kernel (out of memory?)"
                                                  : "ran out of memory (an allocation failed: std::bad_alloc)") +
                in_test + "; is something allocated in a loop, or far too large?";
    return r;
  }
  if (run.signal != 0) {
    r.status = Status::Crashed;
    r.message =
        std::string("crashed with signal ") + std::to_string(run.signal) + " (" + strsignal(run.signal) + ")" + in_test;
    // The CUDA simulator names the kernel, block and thread a signal came from (week 6).
    static const std::string kSimulatorLine = "kindling: ";
    if (const auto at = run.output.rfind(kSimulatorLine + "signal "); at != std::string::npos) {
      const auto from = at + kSimulatorLine.size(), end = run.output.find('\n', from);
      r.message += ": " + run.output.substr(from, end == std::string::npos ? std::string::npos : end - from);
    }
    return r;
  }
  nlohmann::json j = nlohmann::json::parse(gtest_json, nullptr, false);
  if (gtest_json.empty() || j.is_discarded() || !j.contains("testsuites")) {
    r.status = run.exit_code == 0 ? Status::Failed : Status::Crashed;
    r.message = run.exit_code == 0
                    ? "the test program wrote no results"
                    : "exited with code " + std::to_string(run.exit_code) + in_test + " before writing its results";
    return r;
  }
  std::string first_failure;
  std::vector<std::string> stubs;  // distinct stub tasks reached, in order
  // Week 6's test program records where it ran its kernels (the simulator or a GPU).
  if (const auto it = j.find("cuda_backend"); it != j.end() && it->is_string()) r.cuda_backend = it->get<std::string>();
  try {
    for (const auto& suite : j["testsuites"]) {
      for (const auto& test : suite.value("testsuite", nlohmann::json::array())) {
        ++r.tests_total;
        const auto& failures = test.value("failures", nlohmann::json::array());
        if (const auto c = test.find(kCountersProperty);
            c != test.end() && c->is_string() && failures.empty() && r.counters.size() < kMaxCounters)
          r.counters.push_back(test.value("name", "") + ": " + c->get<std::string>());
        if (failures.empty()) {
          // A skipped test checked nothing: it is not a pass (a stub must not look done).
          ++(test.value("result", "") == "SKIPPED" ? r.tests_skipped : r.tests_passed);
          continue;
        }
        const std::string text = failures[0].value("failure", "");
        const std::string name = test.value("name", "");
        for (const auto& f : failures)
          if (r.failures.size() < kMaxFailures) r.failures.push_back(name + ": " + tidy(f.value("failure", "")));
        if (text.find(kNotImplementedTag) != std::string::npos) {
          const std::string stub = stub_task(text);
          if (std::find(stubs.begin(), stubs.end(), stub) == stubs.end()) stubs.push_back(stub);
        } else if (first_failure.empty()) {
          first_failure = name + ": " + tidy(text);
        }
      }
    }
  } catch (const nlohmann::json::exception& e) {
    // Results of an unexpected shape (a student's code can write anywhere, the file too):
    // this task fails, and the run goes on with the others.
    r = TaskResult{};
    r.task = task;
    r.seconds = run.seconds;
    r.status = Status::Failed;
    r.message = std::string("the test program's results file is malformed (") + e.what() + ")";
    return r;
  }
  if (r.tests_total == 0) {
    r.status = Status::Failed;
    r.message = "no tests found for this task (GoogleTest suite " + task.suite() + ")";
  } else if (!first_failure.empty()) {
    r.status = Status::Failed;
    r.message = first_failure;
  } else if (!stubs.empty()) {
    r.status = Status::NotImplemented;
    r.message = not_implemented_message(task, stubs);
  } else if (r.tests_passed == 0) {
    r.status = Status::Failed;
    r.message = "all " + std::to_string(r.tests_total) + " tests were skipped, so nothing was checked";
  } else if (run.exit_code != 0) {
    r.status = Status::Crashed;
    r.message = "all tests passed but the program exited with code " + std::to_string(run.exit_code);
  } else {
    r.status = Status::Passed;
    r.points = task.points;
  }
  return r;
}

TaskResult run_task(const Task& task, const std::filesystem::path& binary, double timeout_s,
                    const std::filesystem::path& work_dir, double memory_mb) {
  std::filesystem::create_directories(work_dir);
  const auto json = work_dir / (task.id + ".json");
  const auto log = work_dir / (task.id + ".log");
  std::filesystem::remove(json);
  const ProcessResult run = run_process({binary.string(), "--gtest_filter=" + task.suite() + ".*",
                                         "--gtest_output=json:" + json.string(), "--gtest_color=no"},
                                        timeout_s, log, {}, memory_mb);
  std::string text;
  if (std::ifstream in(json); in) {
    std::ostringstream s;
    s << in.rdbuf();
    text = s.str();
  }
  return classify(task, run, text, timeout_s);
}

std::string first_build_error(const std::string& log) {
  std::istringstream in(log);
  std::string line;
  std::vector<std::string> tail;
  while (std::getline(in, line)) {
    if (line.find("error:") != std::string::npos || line.find("Error:") != std::string::npos) return line;
    tail.push_back(line);
    if (tail.size() > 5) tail.erase(tail.begin());
  }
  std::string s;
  for (const auto& l : tail) s += l + " ";
  return s.empty() ? "the build failed" : s;
}

}  // namespace kindling::grader
