// The student's loop: stub fallback parsing, the remembered state, history and
// hints, the HTML report, and build progress streamed from a running process.

#include <chrono>
#include <filesystem>
#include <fstream>
#include <random>

#include <gtest/gtest.h>

#include "grader.hpp"

using namespace kindling::grader;
namespace fs = std::filesystem;

namespace {
// A fresh folder under the system's temp dir, removed at the end of the test.
struct TempDir {
  fs::path path;
  TempDir() {
    std::random_device rd;
    path = fs::temp_directory_path() / ("kindling-student-test-" + std::to_string(rd()));
    fs::create_directories(path);
  }
  ~TempDir() { fs::remove_all(path); }
};

Manifest two_tasks() {
  Manifest m;
  m.weeks = {{"week01", "week01_tensors", "Tensors"}};
  for (const char* id : {"week01.view", "week01.reshape"}) {
    Task t;
    t.id = id;
    t.title = std::string("title of ") + id;
    t.week = "week01";
    t.points = 10;
    t.hints = {"first", "second", "third: lectures/week01-tensors.md#view"};
    t.lecture = "lectures/week01-tensors.md#view";
    m.tasks.push_back(t);
  }
  return m;
}

TaskResult result(const Task& t, Status s, const std::string& message = "") {
  TaskResult r;
  r.task = t;
  r.status = s;
  r.points = s == Status::Passed ? t.points : 0;
  r.message = message;
  return r;
}
}  // namespace

// ---- one broken task file costs that task only
// -----------------------------------------------------------------------
TEST(GraderStubFallback, FindsEveryFailedTaskFileWithItsFirstError) {
  const std::string log =
      "[1/4] Building CXX object CMakeFiles/kindling.dir/exercises/week01_tensors/src/tasks/view.cpp.o\n"
      "FAILED: CMakeFiles/kindling.dir/exercises/week01_tensors/src/tasks/view.cpp.o \n"
      "env CCACHE_BASEDIR=/src ccache c++ -c /src/exercises/week01_tensors/src/tasks/view.cpp\n"
      "../../exercises/week01_tensors/src/tasks/view.cpp: In function 'f':\n"
      "../../exercises/week01_tensors/src/tasks/view.cpp:30:3: error: expected ';' before '}' token\n"
      "../../exercises/week01_tensors/src/tasks/view.cpp:31:3: error: a second error\n"
      "[2/4] Building CXX object CMakeFiles/kindling.dir/exercises/week01_tensors/src/shape.cpp.o\n"
      "FAILED: CMakeFiles/kindling.dir/exercises/week03_modules/src/tasks/state_dict.cpp.o \n"
      "/src/exercises/week03_modules/src/tasks/state_dict.cpp:9:1: error: 'x' was not declared\n"
      "FAILED: CMakeFiles/kindling.dir/exercises/week01_tensors/src/linalg.cpp.o \n"
      "/src/exercises/week01_tensors/src/linalg.cpp:1:1: error: not a task file\n"
      "ninja: build stopped: subcommand failed.\n";
  const auto failed = failed_task_files(log, "/src");
  ASSERT_EQ(failed.size(), 2u);
  EXPECT_EQ(failed[0].task, "week01.view");
  EXPECT_EQ(failed[0].tree, "exercises");
  EXPECT_EQ(failed[0].week_folder, "week01_tensors");
  EXPECT_EQ(failed[0].message,
            "exercises/week01_tensors/src/tasks/view.cpp:30:3: error: expected ';' before '}' token");
  EXPECT_EQ(failed[1].task, "week03.state_dict");
  EXPECT_EQ(failed[1].message, "exercises/week03_modules/src/tasks/state_dict.cpp:9:1: error: 'x' was not declared");
}

TEST(GraderStubFallback, AKernelTaskThatFailsInBothBuildsIsNamedOnceWithItsExtension) {
  const std::string log =
      "[3/9] Building CUDA object CMakeFiles/kindling_device.dir/exercises/week06_cuda/src/tasks/block_reduce.cu.o\n"
      "FAILED: CMakeFiles/kindling_device.dir/exercises/week06_cuda/src/tasks/block_reduce.cu.o\n"
      "/src/exercises/week06_cuda/src/tasks/block_reduce.cu(20): error: expected a \";\"\n"
      "[4/9] Building CXX object CMakeFiles/kindling.dir/sim-kernels/kindling/exercises/week06_cuda/src/tasks/"
      "block_reduce.sim.cpp.o\n"
      "FAILED: CMakeFiles/kindling.dir/sim-kernels/kindling/exercises/week06_cuda/src/tasks/block_reduce.sim.cpp.o\n"
      "/src/exercises/week06_cuda/src/tasks/block_reduce.cu:20:3: error: expected ';' before '}' token\n";
  const auto failed = failed_task_files(log, "/src");
  ASSERT_EQ(failed.size(), 1u);
  EXPECT_EQ(failed[0].task, "week06.block_reduce");
  EXPECT_EQ(failed[0].tree, "exercises");
  EXPECT_EQ(failed[0].week_folder, "week06_cuda");
  EXPECT_EQ(failed[0].ext, ".cu");
  EXPECT_EQ(failed[0].message, "exercises/week06_cuda/src/tasks/block_reduce.cu(20): error: expected a \";\"");
}

TEST(GraderStubFallback, ALogWithoutTaskFilesNamesNone) {
  EXPECT_TRUE(failed_task_files("FAILED: grader/CMakeFiles/t.dir/view_test.cpp.o\nerror: boom\n", "/src").empty());
  EXPECT_TRUE(failed_task_files("", "/src").empty());
}

TEST(GraderStubFallback, StubbingAWorksheetFileKeepsEverythingOutsideItsRegions) {
  const std::string student =
      "#include <kindling/error.hpp>\n"
      "int f() {\n"
      "  // BEGIN TASK week01.view (replace the stub below with your code)\n"
      "  return 1 +;\n"
      "  // END TASK\n"
      "}\n";
  EXPECT_EQ(stub_of_task_file(student, "week01.view"),
            "#include <kindling/error.hpp>\n"
            "int f() {\n"
            "  // BEGIN TASK week01.view (replace the stub below with your code)\n"
            "  KINDLING_TODO(\"week01.view\");\n"
            "  // END TASK\n"
            "}\n");
}

// ---- what the build folder remembers
// ---------------------------------------------------------------------------------
TEST(GraderState, RoundTripsAndMergesRuns) {
  TempDir dir;
  const Manifest m = two_tasks();
  State s;
  s.tree = "exercises";
  Report r;
  r.results = {result(m.tasks[0], Status::Passed), result(m.tasks[1], Status::Failed, "Expected equality")};
  s.merge(r);
  save_state(dir.path / "state.json", s);
  State back = load_state(dir.path / "state.json", m);
  ASSERT_EQ(back.latest.size(), 2u);
  EXPECT_EQ(back.tree, "exercises");
  EXPECT_EQ(back.latest.at("week01.view").status, Status::Passed);
  EXPECT_EQ(back.latest.at("week01.view").points, 10);
  EXPECT_EQ(back.latest.at("week01.reshape").message, "Expected equality");
  // A later run of one task replaces that task only.
  Report later;
  later.results = {result(m.tasks[1], Status::Passed)};
  back.merge(later);
  EXPECT_EQ(back.latest.at("week01.reshape").status, Status::Passed);
  EXPECT_EQ(back.latest.at("week01.view").status, Status::Passed);
  EXPECT_EQ(first_unpassed(m.tasks, back), nullptr);
  EXPECT_EQ(first_unpassed(m.tasks, s), &m.tasks[1]);
  EXPECT_EQ(first_unpassed(m.tasks, State{}), &m.tasks[0]);
}

TEST(GraderState, ACorruptOrMissingFileIsAnEmptyStateNotAnError) {
  TempDir dir;
  const Manifest m = two_tasks();
  EXPECT_TRUE(load_state(dir.path / "absent.json", m).latest.empty());
  std::ofstream(dir.path / "bad.json") << "{\"tasks\": [ {\"id\": \"week01.view\", \"status\": \"pas";
  EXPECT_TRUE(load_state(dir.path / "bad.json", m).latest.empty());
  // Entries for tasks the manifest no longer has, or with unknown statuses, are dropped.
  std::ofstream(dir.path / "odd.json")
      << R"({"tasks": [{"id": "week09.gone", "status": "passed"}, {"id": "week01.view", "status": "great"},
                      {"id": "week01.reshape", "status": "failed", "message": "m"}, 7]})";
  const State s = load_state(dir.path / "odd.json", m);
  ASSERT_EQ(s.latest.size(), 1u);
  EXPECT_EQ(s.latest.at("week01.reshape").message, "m");
  // Valid JSON of the wrong shape, and fields of the wrong type, are not fatal either.
  for (const char* text : {"null", "[]", "7", R"({"tree": 3, "tasks": {}})"}) {
    std::ofstream(dir.path / "shape.json") << text;
    EXPECT_TRUE(load_state(dir.path / "shape.json", m).latest.empty()) << text;
  }
  std::ofstream(dir.path / "types.json") << R"({"tasks": [{"id": "week01.view", "status": "passed", "points": "ten"},
                      {"id": "week01.reshape", "status": "failed", "message": "kept"}]})";
  const State t = load_state(dir.path / "types.json", m);
  ASSERT_EQ(t.latest.size(), 1u);
  EXPECT_EQ(t.latest.at("week01.reshape").message, "kept");
}

TEST(GraderState, HistoryKeepsOneLinePerRunAndSkipsDamagedLines) {
  TempDir dir;
  const Manifest m = two_tasks();
  State s;
  Report r;
  r.results = {result(m.tasks[0], Status::Passed)};
  s.merge(r);
  const HistoryEntry e = standing(m.tasks, s, true);
  EXPECT_EQ(e.score, 10);
  EXPECT_EQ(e.max_score, 20);
  EXPECT_EQ(e.passed, 1);
  EXPECT_EQ(e.total, 2);
  append_history(dir.path / "h.jsonl", e);
  { std::ofstream(dir.path / "h.jsonl", std::ios::app) << "not json\n[1]\n{\"score\": \"high\"}\n"; }
  append_history(dir.path / "h.jsonl", e);
  const auto h = load_history(dir.path / "h.jsonl");
  ASSERT_EQ(h.size(), 2u);
  EXPECT_EQ(h[1].passed, 1);
  EXPECT_EQ(h[1].time, e.time);
}

// Found by fuzzing: nlohmann's get<int>() of 1e300 is a plain cast, undefined behaviour. A count out
// of int's range, negative or fractional drops that entry or line like any other damage.
TEST(GraderState, CountsOutOfRangeDropTheirEntryInsteadOfOverflowing) {
  TempDir dir;
  const Manifest m = two_tasks();
  std::ofstream(dir.path / "big.json")
      << R"({"tasks": [{"id": "week01.view", "status": "passed", "tests_passed": 1e300},
                      {"id": "week01.view", "status": "passed", "tests_total": -1},
                      {"id": "week01.view", "status": "passed", "tests_skipped": 2.5},
                      {"id": "week01.view", "status": "passed", "tests_total": 18446744073709551615},
                      {"id": "week01.reshape", "status": "failed", "tests_passed": 3.0, "message": "kept"}]})";
  const State s = load_state(dir.path / "big.json", m);
  ASSERT_EQ(s.latest.size(), 1u);
  EXPECT_EQ(s.latest.at("week01.reshape").tests_passed, 3);
  std::ofstream(dir.path / "h.jsonl") << R"({"passed": 1e300, "total": 2})"
                                         "\n"
                                      << R"({"passed": 1, "total": -1e19})"
                                         "\n"
                                      << R"({"passed": 1, "total": 2, "score": 5})"
                                         "\n";
  const auto h = load_history(dir.path / "h.jsonl");
  ASSERT_EQ(h.size(), 1u);
  EXPECT_EQ(h[0].total, 2);
}

TEST(GraderHints, ComeOneAtATimeAndStopAtTheLast) {
  TempDir dir;
  const Manifest m = two_tasks();
  const Workspace w(dir.path);
  const Task& t = m.tasks[0];
  EXPECT_NE(next_hint(w, t).find("Hint 1 of 3: first"), std::string::npos);
  EXPECT_NE(next_hint(w, t).find("Hint 2 of 3: second"), std::string::npos);
  const std::string third = next_hint(w, t);
  EXPECT_NE(third.find("Hint 3 of 3: third"), std::string::npos);
  EXPECT_NE(third.find("last hint"), std::string::npos);
  EXPECT_NE(next_hint(w, t).find("Hint 3 of 3"), std::string::npos);
  // Each task counts its own.
  EXPECT_NE(next_hint(w, m.tasks[1]).find("Hint 1 of 3"), std::string::npos);
  EXPECT_EQ(hints_seen(w.hints, t.id), 3);
}

TEST(GraderReport, TheTableSendsAStuckStudentToTheHints) {
  const Manifest m = two_tasks();
  Report r;
  r.results = {result(m.tasks[0], Status::Failed, "Expected equality")};
  EXPECT_NE(table(r, false).find("stuck? ./grade hint week01.view"), std::string::npos) << table(r, false);
}

TEST(GraderLanguage, KoreanWordsTitlesAndHintsAndEnglishWhenAsked) {
  Manifest m = read_manifest(fs::path(KINDLING_SOURCE_DIR) / "grader" / "tasks.json");
  const std::string english_title = m.find("week01.view")->title;
  set_language("ko", KINDLING_SOURCE_DIR, m);
  EXPECT_EQ(language(), "ko");
  const Task& view = *m.find("week01.view");
  EXPECT_NE(view.title, english_title);
  Report r;
  r.results = {result(view, Status::Failed, "Expected equality")};
  const std::string t = table(r, false);
  EXPECT_NE(t.find("과제"), std::string::npos) << t;
  EXPECT_NE(t.find("실패"), std::string::npos) << t;
  EXPECT_NE(t.find("./grade hint week01.view"), std::string::npos) << t;
  TempDir dir;
  const Workspace w(dir.path);
  EXPECT_NE(next_hint(w, view).find("힌트 1/3: "), std::string::npos) << next_hint(w, view);
  EXPECT_EQ(tr("[not implemented] this task's tests need {0} first", {"week01.slice"}),
            "[미구현] 이 과제의 테스트를 돌리려면 week01.slice을(를) 먼저 구현해야 한다");
  EXPECT_THROW(set_language("fr", KINDLING_SOURCE_DIR, m), std::invalid_argument);
  set_language("en", KINDLING_SOURCE_DIR, m);
  EXPECT_EQ(tr("score: "), "score: ");
  EXPECT_EQ(status_word(Status::Failed), "failed");
}

TEST(GraderLanguage, TheFlagThenKindlingLangThenTheLocaleChoose) {
  ::setenv("KINDLING_LANG", "ko", 1);
  EXPECT_EQ(choose_language(""), "ko");
  EXPECT_EQ(choose_language("en"), "en");
  ::unsetenv("KINDLING_LANG");
  ::setenv("LC_ALL", "ko_KR.UTF-8", 1);
  EXPECT_EQ(choose_language(""), "ko");
  ::setenv("LC_ALL", "C.UTF-8", 1);
  EXPECT_EQ(choose_language(""), "en");
  ::unsetenv("LC_ALL");
}

// ---- the HTML report
// --------------------------------------------------------------------------------------------------
TEST(GraderHtml, RendersEveryTaskWithItsStatusAndEscapesMessages) {
  const Manifest m = two_tasks();
  State s;
  s.tree = "exercises";
  Report r;
  r.results = {result(m.tasks[0], Status::Failed, "expected <3> & got \"4\"")};
  s.merge(r);
  const std::vector<HistoryEntry> history = {{"2026-11-23T10:00:00Z", 0, 20, 0, 2},
                                             {"2026-11-23T10:05:00Z", 10, 20, 1, 2}};
  const std::string html = to_html(m, s, history, true);
  EXPECT_NE(html.find("data-task=\"week01.view\" data-status=\"failed\""), std::string::npos);
  EXPECT_NE(html.find("data-task=\"week01.reshape\" data-status=\"not_graded\""), std::string::npos);
  EXPECT_NE(html.find("expected &lt;3&gt; &amp; got &quot;4&quot;"), std::string::npos);
  EXPECT_EQ(html.find("<3>"), std::string::npos);
  EXPECT_NE(html.find("id=\"history-plot\""), std::string::npos);
  // Self-contained: nothing is fetched and nothing runs.
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find("http://"), std::string::npos);
  EXPECT_EQ(html.find("https://"), std::string::npos);
}

// ---- build progress
// ---------------------------------------------------------------------------------------------------
TEST(GraderProcess, StreamsEachLineWhileTheProcessRuns) {
  TempDir dir;
  std::vector<std::string> lines;
  std::vector<std::chrono::steady_clock::time_point> when;
  const ProcessResult r =
      run_process({"/bin/sh", "-c", "printf '[1/3] a\\n[2/3] b\\n'; sleep 0.5; printf '[3/3] c\\nno newline'"}, 10,
                  dir.path / "log", [&](const std::string& l) {
                    lines.push_back(l);
                    when.push_back(std::chrono::steady_clock::now());
                  });
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(lines, (std::vector<std::string>{"[1/3] a", "[2/3] b", "[3/3] c"}));
  // The first two lines came while the process was still sleeping, not at its end.
  ASSERT_EQ(when.size(), 3u);
  EXPECT_GT(when[2] - when[1], std::chrono::milliseconds(300));
  EXPECT_EQ(r.output, "[1/3] a\n[2/3] b\n[3/3] c\nno newline");
}
