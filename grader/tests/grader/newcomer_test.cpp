// A newcomer's week: tasks whose tests need other tasks (tasks.json's "needs", the order of the
// manifest and of each week's README table, and a "needs X first" message that says what to do),
// messages kept whole (the table wraps them; --verbose shows every failure), and a build that a
// save overlapped, run again before grading.

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <regex>
#include <set>
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "grader.hpp"

using namespace kindling::grader;
namespace fs = std::filesystem;

namespace {
// A fresh folder under the system's temp dir, removed at the end of the test.
struct TempDir {
  fs::path path;
  TempDir() {
    std::random_device rd;
    path = fs::temp_directory_path() / ("kindling-newcomer-test-" + std::to_string(rd()));
    fs::create_directories(path);
  }
  ~TempDir() { fs::remove_all(path); }
};

Task task(const std::string& id, std::vector<std::string> needs = {}) {
  Task t;
  t.id = id;
  t.title = "title of " + id;
  t.week = id.substr(0, id.find('.'));
  t.points = 10;
  t.hints = {"a hint"};
  t.needs = std::move(needs);
  return t;
}

// GoogleTest's JSON report of one suite: each test with its failure texts (none: it passed).
std::string gtest_json(const std::vector<std::pair<std::string, std::vector<std::string>>>& tests) {
  nlohmann::json list = nlohmann::json::array();
  for (const auto& [name, failures] : tests) {
    nlohmann::json test = {{"name", name}, {"status", "RUN"}, {"result", "COMPLETED"}};
    for (const auto& f : failures) test["failures"].push_back({{"failure", f}, {"type", ""}});
    list.push_back(test);
  }
  return nlohmann::json{{"testsuites", {{{"name", "suite"}, {"testsuite", list}}}}}.dump();
}

// What a test that ran into `stub`'s KINDLING_TODO reports.
std::string stub(const std::string& id) {
  return "unknown file\nC++ exception with description \"[not implemented] " + id +
         ": fill in the stub at x.cpp:3\" thrown in the test body.";
}

ProcessResult exited(int code) {
  ProcessResult r;
  r.exit_code = code;
  return r;
}

std::string read_text(const fs::path& p) {
  std::ifstream in(p);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// The task ids of a week's README task table, in its order: the first run of rows whose first
// cell is a task id in backticks.
std::vector<std::string> table_rows(const fs::path& readme) {
  static const std::regex row(R"(^\|\s*`(week\d+\.\w+)`)");
  std::vector<std::string> ids;
  std::ifstream in(readme);
  for (std::string line; std::getline(in, line);) {
    std::smatch m;
    if (std::regex_search(line, m, row))
      ids.push_back(m[1]);
    else if (!ids.empty())
      break;
  }
  return ids;
}

const fs::path kSource = KINDLING_SOURCE_DIR;
}  // namespace

// ---- which tasks need which ---------------------------------------------------------------------------
TEST(GraderNeeds, EveryNeedIsAnotherTaskOfTheSameWeekThatTheManifestListsFirst) {
  const Manifest m = read_manifest(kSource / "grader" / "tasks.json");
  std::map<std::string, std::size_t> position;
  for (std::size_t i = 0; i < m.tasks.size(); ++i) position[m.tasks[i].id] = i;
  for (const auto& t : m.tasks) {
    for (const auto& n : t.needs) {
      const Task* need = m.find(n);
      ASSERT_NE(need, nullptr) << t.id << " needs " << n << ", which is no task";
      EXPECT_EQ(need->week, t.week) << t.id << " needs " << n << ": earlier weeks are needed as a rule, not listed";
      const bool mutual = std::find(t.mutual.begin(), t.mutual.end(), n) != t.mutual.end();
      if (!mutual) {
        EXPECT_LT(position[n], position[t.id]) << "tasks.json lists " << t.id << " before " << n << ", which it needs";
      }
    }
  }
  // Tasks that need each other (a cycle: linked by Task::mutual) sit next to each other.
  std::map<std::string, std::string> cycle;  // task -> the first task of its cycle, in the manifest's order
  for (const auto& t : m.tasks) cycle[t.id] = t.id;
  for (bool changed = true; changed;) {
    changed = false;
    for (const auto& t : m.tasks)
      for (const auto& n : t.mutual) {
        const std::string a = cycle[t.id];
        const std::string b = cycle[n];
        if (a == b) continue;
        const std::string first = position[a] < position[b] ? a : b;
        for (auto& [id, c] : cycle)
          if (c == a || c == b) c = first;
        changed = true;
        break;
      }
  }
  for (std::size_t i = 1; i < m.tasks.size(); ++i) {
    const std::string& c = cycle[m.tasks[i].id];
    if (c != m.tasks[i].id) {
      EXPECT_EQ(cycle[m.tasks[i - 1].id], c)
          << m.tasks[i - 1].id << " comes between " << m.tasks[i].id << " and " << c << ", which need each other";
    }
  }
  // The case that started it: week 6's device tensors live in the caching allocator.
  for (const char* id : {"week06.device_moves", "week06.strided_contiguous"}) {
    const auto& needs = m.find(id)->needs;
    EXPECT_NE(std::find(needs.begin(), needs.end(), "week06.free_list"), needs.end()) << id;
  }
  // Watch mode and --list take the manifest's order as it is.
  std::vector<std::string> ids, ordered;
  for (const auto& t : m.tasks) ids.push_back(t.id);
  for (const auto& t : order_by_needs(m.tasks)) ordered.push_back(t.id);
  EXPECT_EQ(ordered, ids);
}

TEST(GraderNeeds, EachWeeksReadmeTablesListItsTasksInTheManifestsOrder) {
  const Manifest m = read_manifest(kSource / "grader" / "tasks.json");
  for (const auto& w : m.weeks) {
    std::vector<std::string> expected;
    for (const auto& t : m.tasks)
      if (t.week == w.id) expected.push_back(t.id);
    for (const char* name : {"README.md", "README.ko.md"}) {
      const fs::path readme = kSource / "solutions" / w.folder / name;
      ASSERT_TRUE(fs::exists(readme)) << readme;
      // Every task once, each after the tasks it needs (the manifest's order, which the test above checks).
      EXPECT_EQ(table_rows(readme), expected) << readme << ": its task table is not grader/tasks.json's order";
    }
  }
}

TEST(GraderNeeds, AManifestWhoseNeedIsNoTaskOfTheWeekIsRefused) {
  TempDir dir;
  const auto manifest = [&](const std::string& needs) {
    std::ofstream(dir.path / "tasks.json") << R"({"weeks": [{"id": "week01", "folder": "week01_x"},
        {"id": "week02", "folder": "week02_x"}], "tasks": [{"id": "week01.a", "points": 5},
        {"id": "week02.b", "points": 5}, {"id": "week02.c", "points": 5, "needs": )"
                                           << needs << "}]}";
    return dir.path / "tasks.json";
  };
  EXPECT_EQ(read_manifest(manifest(R"(["week02.b"])")).find("week02.c")->needs, std::vector<std::string>{"week02.b"});
  for (const char* bad : {R"(["week01.a"])", R"(["week02.gone"])", R"(["week02.c"])"})
    EXPECT_THROW(read_manifest(manifest(bad)), std::runtime_error) << bad;
}

TEST(GraderNeeds, TasksThatNeedEachOtherThroughACycleAreMutual) {
  TempDir dir;
  std::ofstream(dir.path / "tasks.json") << R"({"weeks": [{"id": "week01", "folder": "week01_x"}], "tasks": [
      {"id": "week01.a", "points": 5}, {"id": "week01.b", "points": 5, "needs": ["week01.a", "week01.d"]},
      {"id": "week01.c", "points": 5, "needs": ["week01.b"]}, {"id": "week01.d", "points": 5, "needs": ["week01.c"]}]})";
  const Manifest m = read_manifest(dir.path / "tasks.json");
  EXPECT_TRUE(m.find("week01.a")->mutual.empty());
  EXPECT_EQ(m.find("week01.b")->mutual, std::vector<std::string>{"week01.d"});  // a comes first; d needs b via c
  EXPECT_EQ(m.find("week01.c")->mutual, std::vector<std::string>{"week01.b"});
  EXPECT_EQ(m.find("week01.d")->mutual, std::vector<std::string>{"week01.c"});
  std::vector<std::string> ids;
  for (const auto& t : order_by_needs(m.tasks)) ids.push_back(t.id);
  EXPECT_EQ(ids, (std::vector<std::string>{"week01.a", "week01.b", "week01.c", "week01.d"}));
}

TEST(GraderNeeds, OrderByNeedsMovesATaskAfterWhatItNeedsAndKeepsTheRest) {
  const std::vector<Task> tasks = {task("week06.a", {"week06.c"}), task("week06.b"), task("week06.c"),
                                   task("week06.d", {"week06.zz"})};  // a need not selected: no constraint
  std::vector<std::string> ids;
  for (const auto& t : order_by_needs(tasks)) ids.push_back(t.id);
  EXPECT_EQ(ids, (std::vector<std::string>{"week06.b", "week06.c", "week06.a", "week06.d"}));
}

// ---- the "needs X first" message says what to do ------------------------------------------------------
TEST(GraderNeeds, ASameWeekNeedIsFinishedFirstAndComesEarlierInTheTable) {
  const Task moves = task("week06.device_moves", {"week06.free_list"});
  EXPECT_EQ(classify(moves, exited(1), gtest_json({{"A", {stub("week06.free_list")}}}), 10).message,
            "[not implemented] this task's tests need week06.free_list first. Finish week06.free_list: it comes "
            "earlier in week 6's table.");
  // Its own stub first, then what else its tests reach.
  EXPECT_EQ(classify(moves, exited(1),
                     gtest_json({{"A", {stub("week06.device_moves")}}, {"B", {stub("week06.free_list")}}}), 10)
                .message,
            "[not implemented] week06.device_moves (the stub still throws); its tests also reach week06.free_list. "
            "Finish week06.free_list: it comes earlier in week 6's table.");
}

TEST(GraderNeeds, AnEarlierWeeksStubIsFinishedThereOrGradedWithTheReference) {
  const Task moves = task("week06.device_moves", {"week06.free_list"});
  EXPECT_EQ(classify(moves, exited(1), gtest_json({{"A", {stub("week01.contiguous_strides")}}}), 10).message,
            "[not implemented] this task's tests need week01.contiguous_strides first. week01.contiguous_strides is "
            "from an earlier week: finish it, or grade on the reference's earlier weeks: ./grade --reference "
            "week01,week02,week03,week04,week05 week06");
  EXPECT_EQ(
      classify(
          moves, exited(1),
          gtest_json(
              {{"A", {stub("week06.free_list")}}, {"B", {stub("week01.view")}}, {"C", {stub("week04.pin_memory")}}}),
          10)
          .message,
      "[not implemented] this task's tests need week06.free_list, week01.view, week04.pin_memory first. Finish "
      "week06.free_list: it comes earlier in week 6's table. week01.view, week04.pin_memory are from earlier weeks: "
      "finish them, or grade on the reference's earlier weeks: ./grade --reference week01,week02,week03,week04,week05 "
      "week06");
  // Tasks that need each other pass together.
  Task view = task("week01.view", {"week01.infer_size", "week01.slice", "week01.transpose"});
  view.mutual = {"week01.slice", "week01.transpose"};
  EXPECT_EQ(classify(view, exited(1),
                     gtest_json({{"A", {stub("week01.infer_size")}},
                                 {"B", {stub("week01.transpose")}},
                                 {"C", {stub("week01.slice")}}}),
                     10)
                .message,
            "[not implemented] this task's tests need week01.infer_size, week01.transpose, week01.slice first. Finish "
            "week01.infer_size: it comes earlier in week 1's table. This task and week01.transpose, week01.slice use "
            "each other's code: finish them all, and all pass.");
  // Week 1 has no earlier week; a stub of the same week that the manifest does not list says no more than it knows.
  EXPECT_EQ(classify(task("week01.view"), exited(1), gtest_json({{"A", {stub("week01.slice")}}}), 10).message,
            "[not implemented] this task's tests need week01.slice first");
}

TEST(GraderNeeds, TheAdviceIsInKoreanToo) {
  Manifest m;
  set_language("ko", kSource, m);
  const std::string message =
      classify(task("week06.device_moves", {"week06.free_list"}), exited(1),
               gtest_json({{"A", {stub("week06.free_list")}}, {"B", {stub("week01.view")}}}), 10)
          .message;
  set_language("en", kSource, m);
  EXPECT_NE(message.find("6주차 표에서"), std::string::npos) << message;
  EXPECT_NE(message.find("참고 답안"), std::string::npos) << message;
  EXPECT_NE(message.find("./grade --reference week01,week02,week03,week04,week05 week06"), std::string::npos)
      << message;
}

// ---- messages whole -------------------------------------------------------------------------------------
namespace {
// A message of about `n` characters whose fix is named at its very end.
std::string long_message(std::size_t n) {
  std::string text = "expected the strides of a view to follow its chunks:";
  for (int i = 0; text.size() < n; ++i) text += " word" + std::to_string(i);
  return text + " so call contiguous() first";
}

// The message of the table's first task row, its wrapped lines joined again.
std::string unwrapped_message(const std::string& table_text, std::size_t width) {
  std::istringstream in(table_text);
  std::string line, message;
  int row = -1;
  while (std::getline(in, line)) {
    EXPECT_LE(line.size(), width) << line;  // ASCII here: bytes are columns
    if (row < 0 && line.rfind("week", 0) == 0) {
      row = 0;
      message = line.substr(56);
    } else if (row == 0 && line.rfind(std::string(56, ' '), 0) == 0 && line[56] != ' ') {
      message += " " + line.substr(56);
    } else if (row == 0) {
      row = 1;
    }
  }
  return message;
}
}  // namespace

TEST(GraderMessages, ASixHundredCharacterMessageSurvivesWholeInTheTableTheJsonAndTheHtml) {
  const std::string text = long_message(600);
  ASSERT_GE(text.size(), 600u);
  const TaskResult r = classify(task("week01.view"), exited(1), gtest_json({{"T", {"view_test.cpp:12\n" + text}}}), 10);
  ASSERT_EQ(r.message, "T: " + text);
  Report report;
  report.tree = "exercises";
  report.results = {r};
  for (std::size_t width : {100u, 150u}) EXPECT_EQ(unwrapped_message(table(report, false, width), width), r.message);
  EXPECT_EQ(nlohmann::json::parse(to_json(report))["tasks"][0]["message"], r.message);
  Manifest m;
  m.weeks = {{"week01", "week01_tensors", "Tensors"}};
  m.tasks = {r.task};
  State s;
  s.merge(report);
  EXPECT_NE(to_html(m, s, {}, true).find(text), std::string::npos);
  EXPECT_NE(to_gradescope(report).find(text), std::string::npos);
}

TEST(GraderMessages, OnlyARunawayMessageIsCutAtFourThousandCharacters) {
  const TaskResult r =
      classify(task("week01.view"), exited(1), gtest_json({{"T", {"x.cpp:1\n" + long_message(9000)}}}), 10);
  EXPECT_EQ(r.message.size(), 4003u);  // "T: " and 4000 characters, the last three "..."
  EXPECT_EQ(r.message.substr(r.message.size() - 3), "...");
}

TEST(GraderMessages, VerboseShowsEveryFailingTestsMessageUnderItsTask) {
  const TaskResult r = classify(task("week01.view"), exited(1),
                                gtest_json({{"A", {"x.cpp:1\nthe first problem"}},
                                            {"B", {}},
                                            {"C", {"x.cpp:2\nthe second problem", "x.cpp:3\nthe third problem"}}}),
                                10);
  EXPECT_EQ(r.message, "A: the first problem");
  EXPECT_EQ(r.failures,
            (std::vector<std::string>{"A: the first problem", "C: the second problem", "C: the third problem"}));
  Report report;
  report.results = {r};
  const std::string brief = table(report, false), verbose = table(report, false, 100, true);
  EXPECT_EQ(brief.find("the second problem"), std::string::npos) << brief;
  EXPECT_NE(verbose.find("failures (3):"), std::string::npos) << verbose;
  EXPECT_NE(verbose.find("- C: the second problem"), std::string::npos) << verbose;
  EXPECT_NE(verbose.find("- C: the third problem"), std::string::npos) << verbose;
  EXPECT_EQ(nlohmann::json::parse(to_json(report))["tasks"][0]["failures"].size(), 3u);
  // The build folder remembers them (watch mode shows them after a restart).
  TempDir dir;
  State s;
  s.merge(report);
  save_state(dir.path / "state.json", s);
  Manifest m;
  m.tasks = {r.task};
  EXPECT_EQ(load_state(dir.path / "state.json", m).latest.at("week01.view").failures, r.failures);
}

TEST(GraderMessages, WrapBreaksAtSpacesKeepsSpacingAndCountsHangulAsTwoColumns) {
  EXPECT_EQ(wrap("aaaa bbbb cccc dddd eeee ffff gggg", 20, 24, 4), "aaaa bbbb cccc dddd\n    eeee ffff gggg");
  EXPECT_EQ(wrap("Expected:   a   Which is: 3", 40, 60, 2), "Expected:   a   Which is: 3");
  EXPECT_EQ(wrap("x", 20, 30, 3), "x");
  EXPECT_EQ(wrap("", 20, 30, 3), "");
  // A word longer than a line is broken where it must.
  EXPECT_EQ(wrap(std::string(45, 'z'), 20, 22, 2), std::string(20, 'z') + "\n  " + std::string(20, 'z') + "\n  zzzzz");
  // Hangul: two columns a character, never split inside one.
  const std::string ko = "가나다라마바사아자차 가나다라마바사아자차";  // 20 + 1 + 20 columns
  EXPECT_EQ(wrap(ko, 20, 22, 2), "가나다라마바사아자차\n  가나다라마바사아자차");
}

// ---- a save while the build runs ---------------------------------------------------------------------
// A fake build folder that Ninja builds: its "compiler" reads the task file, and then the student
// saves the solved file before the object file is written, so the object is newer than the save
// and Ninja 1.11 calls it up to date. Its test program passes when the object holds the solution.
TEST(GraderBuild, AFileSavedWhileTheBuildRanIsBuiltAgainBeforeItIsGraded) {
  TempDir dir;
  const fs::path source = dir.path / "src", build = dir.path / "build";
  const fs::path file = source / "exercises" / "week99_fake" / "src" / "tasks" / "task.cpp";
  fs::create_directories(file.parent_path());
  fs::create_directories(build / "grader");
  std::ofstream(file) << "STUB\n";
  std::ofstream(build / "CMakeCache.txt") << "CMAKE_PROJECT_NAME:STATIC=fake\nCMAKE_GENERATOR:INTERNAL=Ninja\n"
                                             "CMAKE_MAKE_PROGRAM:FILEPATH=ninja\nKINDLING_STUBBED_TASKS:STRING=\n";
  std::ofstream(build / "build.ninja")
      << "rule compile\n"
         "  command = cp $in $out.tmp && (grep -q STUB $in && printf 'solved\\n' > $in || true)"
         " && sleep 0.1 && cat $out.tmp > $out && rm $out.tmp\n"
         "build task.o: compile "
      << file.string() << "\nbuild kindling_week99_tests: phony task.o\n";
  const fs::path program = build / "grader" / "kindling_week99_tests";
  std::ofstream(program)
      << "#!/bin/sh\n"
         "for a in \"$@\"; do case \"$a\" in --gtest_output=json:*) out=\"${a#--gtest_output=json:}\" ;; esac; done\n"
         "failure=''\n"
         "grep -q STUB '"
      << (build / "task.o").string()
      << "' && failure=',\"failures\":[{\"failure\":\"unknown file\\nC++ exception with description "
         "\\\"[not implemented] week99.task: fill in the stub\\\" thrown in the test body.\",\"type\":\"\"}]'\n"
         "printf '{\"testsuites\":[{\"name\":\"week99_task\",\"testsuite\":[{\"name\":\"T\",\"status\":\"RUN\","
         "\"result\":\"COMPLETED\"%s}]}]}\\n' \"$failure\" > \"$out\"\n";
  fs::permissions(program, fs::perms::owner_all);

  Manifest m;
  m.weeks = {{"week99", "week99_fake", "Fake"}};
  m.tasks = {task("week99.task")};
  GradeOptions o;
  o.source_dir = source;
  o.build_dir = build;
  o.tree = "exercises";
  o.perf = false;
  o.timeout = 60;
  std::ostringstream progress;
  const Report r = Session(m, o, progress).grade(m.tasks);
  ASSERT_EQ(r.results.size(), 1u);
  EXPECT_EQ(read_text(file), "solved\n");
  EXPECT_EQ(read_text(build / "task.o"), "solved\n") << progress.str();
  EXPECT_EQ(r.results[0].status, Status::Passed) << r.results[0].message << "\n" << progress.str();
  EXPECT_NE(progress.str().find("exercises/week99_fake/src/tasks/task.cpp changed during the build: building again"),
            std::string::npos)
      << progress.str();
}
