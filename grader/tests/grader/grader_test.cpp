// The grader's own logic: classification, a planted crash and hang that each
// cost one task only, and the three report formats.

#include <cctype>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "grader.hpp"
#include "sanitizers.hpp"

using namespace kindling::grader;
namespace fs = std::filesystem;

namespace {
Task task(const std::string& id, double points = 5) {
  Task t;
  t.id = id;
  t.title = "title of " + id;
  t.week = id.substr(0, id.find('.'));
  t.points = points;
  t.hints = {"a hint"};
  return t;
}

std::string gtest_json(const std::string& failure_text) {
  nlohmann::json test = {{"name", "T"}, {"status", "RUN"}, {"result", "COMPLETED"}};
  if (!failure_text.empty()) test["failures"] = {{{"failure", failure_text}, {"type", ""}}};
  return nlohmann::json{{"testsuites", {{{"name", "week01_view"}, {"testsuite", {test}}}}}}.dump();
}

ProcessResult exited(int code) {
  ProcessResult r;
  r.exit_code = code;
  return r;
}
}  // namespace

TEST(GraderClassify, AllPassedEarnsThePoints) {
  const TaskResult r = classify(task("week01.view"), exited(0), gtest_json(""), 10);
  EXPECT_EQ(r.status, Status::Passed);
  EXPECT_EQ(r.points, 5);
  EXPECT_EQ(r.tests_passed, 1);
}

// Week 6's tests record the simulator's counters of the student's launch; the report shows them.
TEST(GraderClassify, TheCountersAPassingTestRecordedAreShownUnderTheTask) {
  nlohmann::json passed = {{"name", "NoBankConflicts"},
                           {"result", "COMPLETED"},
                           {"kindling_counters", "8192 global loads in 8192 sectors, 0 bank conflicts"}};
  nlohmann::json failed = {{"name", "Sectors"},
                           {"result", "COMPLETED"},
                           {"kindling_counters", "36864 sectors"},
                           {"failures", {{{"failure", "x.cpp:1\nExpected"}}}}};
  const auto json =
      nlohmann::json{{"testsuites", {{{"name", "week06_transpose"}, {"testsuite", {passed, failed}}}}}}.dump();
  const TaskResult r = classify(task("week06.transpose"), exited(1), json, 10);
  ASSERT_EQ(r.counters.size(), 1u) << "only a passing test's counters are the grade's";
  EXPECT_EQ(r.counters[0], "NoBankConflicts: 8192 global loads in 8192 sectors, 0 bank conflicts");
  Report report;
  report.tree = "solutions";
  report.results = {r};
  EXPECT_NE(table(report, false).find("counted: NoBankConflicts: 8192 global loads"), std::string::npos)
      << table(report, false);
  EXPECT_EQ(nlohmann::json::parse(to_json(report))["tasks"][0]["counters"][0], r.counters[0]);
}

TEST(GraderClassify, StubExceptionIsNotImplemented) {
  const auto json = gtest_json(
      "unknown file\nC++ exception with description \"[not implemented] week01.view: fill in the stub at x.hpp:3\" "
      "thrown in the test body.");
  const TaskResult r = classify(task("week01.view"), exited(1), json, 10);
  EXPECT_EQ(r.status, Status::NotImplemented);
  EXPECT_EQ(r.points, 0);
  EXPECT_EQ(r.message, "[not implemented] week01.view (the stub still throws)");
}

TEST(GraderClassify, NotImplementedNamesTheStubsTheTestsReached) {
  const auto other = gtest_json(
      "unknown file\nC++ exception with description \"[not implemented] week01.slice: fill in the stub at x.hpp:9\" "
      "thrown in the test body.");
  EXPECT_EQ(classify(task("week01.view"), exited(1), other, 10).message,
            "[not implemented] this task's tests need week01.slice first");
}

TEST(GraderClassify, AssertionFailureIsFailedWithItsMessage) {
  const TaskResult r = classify(task("week01.view"), exited(1), gtest_json("view_test.cpp:12\nExpected equality"), 10);
  EXPECT_EQ(r.status, Status::Failed);
  EXPECT_NE(r.message.find("Expected equality"), std::string::npos) << r.message;
}

TEST(GraderClassify, SignalIsCrashedAndNamesTheTest) {
  ProcessResult run;
  run.signal = SIGSEGV;
  run.output = "[ RUN      ] week01_view.A\n[       OK ] week01_view.A\n[ RUN      ] week01_view.B\n";
  const TaskResult r = classify(task("week01.view"), run, "", 10);
  EXPECT_EQ(r.status, Status::Crashed);
  EXPECT_NE(r.message.find("week01_view.B"), std::string::npos) << r.message;
  EXPECT_NE(r.message.find("Segmentation fault"), std::string::npos) << r.message;
}

// A signal inside a kernel on the CUDA simulator: the simulator's line names the kernel, the block
// and the thread, and the message carries it.
TEST(GraderClassify, ASignalInsideAKernelNamesTheKernelBlockAndThread) {
  ProcessResult run;
  run.signal = SIGFPE;
  run.output =
      "[ RUN      ] week06_block_reduce.A\n\nkindling: signal SIGFPE (an integer divided by zero?) inside kernel "
      "row_sums_shared_kernel, block (2, 0, 0), thread (37, 0, 0)\n";
  const TaskResult r = classify(task("week06.block_reduce"), run, "", 10);
  EXPECT_EQ(r.status, Status::Crashed);
  EXPECT_NE(r.message.find("week06_block_reduce.A"), std::string::npos) << r.message;
  EXPECT_NE(r.message.find("signal SIGFPE (an integer divided by zero?) inside kernel row_sums_shared_kernel, block "
                           "(2, 0, 0), thread (37, 0, 0)"),
            std::string::npos)
      << r.message;
}

TEST(GraderClassify, SkippedTestsAreNeitherPassedNorFailed) {
  nlohmann::json ran = {{"name", "A"}, {"status", "RUN"}, {"result", "COMPLETED"}};
  nlohmann::json skipped = {{"name", "B"}, {"status", "RUN"}, {"result", "SKIPPED"}};
  auto json = [](const nlohmann::json& tests) {
    return nlohmann::json{{"testsuites", {{{"name", "week04_pin_memory"}, {"testsuite", tests}}}}}.dump();
  };
  const TaskResult r = classify(task("week04.pin_memory"), exited(0), json(nlohmann::json::array({ran, skipped})), 10);
  EXPECT_EQ(r.status, Status::Passed);
  EXPECT_EQ(r.tests_passed, 1);
  EXPECT_EQ(r.tests_skipped, 1);
  EXPECT_EQ(r.tests_total, 2);
  const TaskResult all = classify(task("week04.pin_memory"), exited(0), json(nlohmann::json::array({skipped})), 10);
  EXPECT_EQ(all.status, Status::Failed);
  EXPECT_EQ(all.points, 0);
  EXPECT_EQ(all.message, "all 1 tests were skipped, so nothing was checked");
}

TEST(GraderClassify, NoTestsIsAFailureNotAPass) {
  const std::string json = R"({"testsuites": []})";
  const TaskResult r = classify(task("week01.view"), exited(0), json, 10);
  EXPECT_EQ(r.status, Status::Failed);
  EXPECT_EQ(r.points, 0);
}

// Found by fuzzing: a results file of an unexpected shape fails that task, instead of a type error
// that ended the whole grading run.
TEST(GraderClassify, ResultsOfAnUnexpectedShapeFailThatTaskOnly) {
  for (const char* text : {R"({"testsuites": [1]})", R"({"testsuites": [{"testsuite": [7]}]})",
                           R"({"testsuites": [{"testsuite": [{"failures": [{"failure": 3}]}]}]})",
                           R"({"testsuites": [{"testsuite": [{"failures": "x"}]}]})", R"({"testsuites": 5})"}) {
    const TaskResult r = classify(task("week01.view"), exited(0), text, 10);
    EXPECT_EQ(r.status, Status::Failed) << text;
    EXPECT_EQ(r.points, 0) << text;
    EXPECT_NE(r.message.find("malformed"), std::string::npos) << text << ": " << r.message;
  }
}

TEST(GraderBuildLog, FirstCompilerErrorIsReported) {
  const std::string log =
      "[1/3] Building CXX object a.o\nFAILED: a.o\n/x/view.hpp:42:5: error: 'foo' was not declared in this scope\n"
      "/x/view.hpp:50:1: error: second\n";
  EXPECT_EQ(first_build_error(log), "/x/view.hpp:42:5: error: 'foo' was not declared in this scope");
}

// Runs the planted suites as tasks of a made-up week: the crash and the hang each
// cost their own task, and the task graded after them still passes.
// A sanitized program reserves terabytes of shadow memory at start-up, which RLIMIT_DATA
// (the grader's memory limit) refuses: under a sanitizer the planted tests run without it.
#if defined(KINDLING_SANITIZED)
constexpr double kPlantedMemoryMb = 0;
#else
constexpr double kPlantedMemoryMb = 1024;
#endif

TEST(GraderPlanted, CrashAndHangCostOneTaskEach) {
  const fs::path work = fs::temp_directory_path() / "kindling-grader-test";
  std::map<std::string, Status> expected{{"week99.pass", Status::Passed},           {"week99.fail", Status::Failed},
                                         {"week99.crash", Status::Crashed},         {"week99.hang", Status::TimedOut},
                                         {"week99.stub", Status::NotImplemented},   {"week99.mixed", Status::Failed},
                                         {"week99.memory", Status::MemoryExceeded}, {"week99.after", Status::Passed}};
  const auto start = std::chrono::steady_clock::now();
  if (kPlantedMemoryMb == 0) expected["week99.memory"] = Status::Passed;  // no limit: its 2 GiB are never touched
  for (const auto& id : {"week99.pass", "week99.fail", "week99.crash", "week99.hang", "week99.stub", "week99.mixed",
                         "week99.memory", "week99.after"}) {
    const TaskResult r = run_task(task(id), KINDLING_PLANTED_TESTS, 2.0, work, kPlantedMemoryMb);
    EXPECT_EQ(to_string(r.status), to_string(expected.at(id))) << id << ": " << r.message;
    EXPECT_EQ(r.points, r.status == Status::Passed ? 5 : 0) << id;
  }
  // The hang was cut at its 2 s limit rather than waiting forever.
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(20));
}

TEST(GraderPlanted, TheMemoryLimitIsWhatStopsTheHog) {
#if defined(KINDLING_SANITIZED)
  GTEST_SKIP() << "a sanitized program cannot start under RLIMIT_DATA (its shadow memory is reserved as data)";
#endif
  // Without a limit the same test passes (its 2 GiB are never touched): the limit,
  // not the machine, decides.
  const fs::path work = fs::temp_directory_path() / "kindling-grader-test";
  EXPECT_EQ(to_string(run_task(task("week99.memory"), KINDLING_PLANTED_TESTS, 10.0, work, 0).status), "passed");
  const TaskResult r = run_task(task("week99.memory"), KINDLING_PLANTED_TESTS, 10.0, work, 1024);
  EXPECT_EQ(to_string(r.status), "memory_exceeded");
  EXPECT_NE(r.message.find("std::bad_alloc"), std::string::npos) << r.message;
}

TEST(GraderPlanted, FailureMessageIsTheAssertion) {
  const TaskResult r =
      run_task(task("week99.fail"), KINDLING_PLANTED_TESTS, 10.0, fs::temp_directory_path() / "kindling-grader-test");
  EXPECT_NE(r.message.find("arithmetic is broken"), std::string::npos) << r.message;
}

namespace {
Report sample_report() {
  Report rep;
  rep.tree = "exercises";
  TaskResult a;
  a.task = task("week01.view", 10);
  a.status = Status::Passed;
  a.points = 10;
  TaskResult b;
  b.task = task("week01.reshape", 5);
  b.status = Status::NotImplemented;
  b.message = "[not implemented] week01.reshape <with> \"quotes\" & ampersand";
  TaskResult c;
  c.task = task("week02.leaf", 5);
  c.status = Status::Crashed;
  c.message = "crashed";
  rep.results = {a, b, c};
  return rep;
}
}  // namespace

TEST(GraderReport, JsonHasTheDocumentedFields) {
  const auto j = nlohmann::json::parse(to_json(sample_report()));
  EXPECT_EQ(j["score"], 10);
  EXPECT_EQ(j["max_score"], 20);
  ASSERT_EQ(j["tasks"].size(), 3u);
  for (const char* key : {"id", "title", "status", "points", "max_points", "message"})
    EXPECT_TRUE(j["tasks"][0].contains(key)) << key;
  EXPECT_EQ(j["tasks"][1]["status"], "not_implemented");
}

TEST(GraderReport, GradescopeFollowsTheResultsJsonSpec) {
  const auto j = nlohmann::json::parse(to_gradescope(sample_report()));
  EXPECT_EQ(j["score"], 10);
  ASSERT_EQ(j["tests"].size(), 3u);
  for (const auto& t : j["tests"]) {
    EXPECT_TRUE(t["score"].is_number());
    EXPECT_TRUE(t["max_score"].is_number());
    EXPECT_TRUE(t["name"].is_string());
    EXPECT_TRUE(t["output"].is_string());
    EXPECT_TRUE(t["status"] == "passed" || t["status"] == "failed");
  }
  EXPECT_EQ(j["tests"][1]["status"], "failed");
}

TEST(GraderReport, GradescopeHasTheNoteAndALeaderboardOfPerformanceCounters) {
  Report rep = sample_report();
  rep.note = "took week01/src/tasks/view.cpp";
  TaskResult timed;
  timed.task = task("week03.layout_gemm", 5);
  timed.task.perf_points = 10;
  timed.task.perf = PerfSpec{"week03", "BM_LayoutSpeedup", "speedup", 3.0, 1.5};
  timed.status = Status::Passed;
  timed.perf_measured = true;
  timed.perf_value = 4.25;
  TaskResult ratio = timed;
  ratio.task.id = "week05.epoch";
  ratio.task.perf = PerfSpec{"week05", "BM_EpochVsReference", "ratio", 1.2, 2.0};
  ratio.perf_value = 1.1;
  TaskResult unmeasured = timed;
  unmeasured.task.id = "week03.linear_layout";
  unmeasured.perf_measured = false;
  rep.results.push_back(timed);
  rep.results.push_back(ratio);
  rep.results.push_back(unmeasured);
  const auto j = nlohmann::json::parse(to_gradescope(rep));
  EXPECT_EQ(j["output"].get<std::string>().rfind("took week01/src/tasks/view.cpp\n", 0), 0u) << j["output"];
  ASSERT_EQ(j["leaderboard"].size(), 2u);
  EXPECT_EQ(j["leaderboard"][0]["name"], "week03.layout_gemm speedup");
  EXPECT_EQ(j["leaderboard"][0]["value"], 4.25);
  EXPECT_EQ(j["leaderboard"][0]["order"], "desc");  // a higher speedup is better
  EXPECT_EQ(j["leaderboard"][1]["order"], "asc");   // a lower time ratio is better
  EXPECT_FALSE(nlohmann::json::parse(to_gradescope(sample_report())).contains("leaderboard"));
}

TEST(GraderReport, GradescopeVisibilityComesFromTheTask) {
  Report rep = sample_report();
  rep.results[1].task.visibility = "after_due_date";
  const auto j = nlohmann::json::parse(to_gradescope(rep));
  EXPECT_EQ(j["tests"][0]["visibility"], "visible");
  EXPECT_EQ(j["tests"][1]["visibility"], "after_due_date");
}

TEST(GraderReport, JunitCountsFailuresAndErrorsAndEscapes) {
  const std::string xml = to_junit(sample_report());
  EXPECT_NE(xml.find("<testsuites name=\"kindling\" tests=\"3\" failures=\"1\" errors=\"1\""), std::string::npos)
      << xml;
  EXPECT_NE(xml.find("&lt;with&gt; &quot;quotes&quot; &amp; ampersand"), std::string::npos) << xml;
  EXPECT_EQ(xml.find("<with>"), std::string::npos);
  EXPECT_NE(xml.find("<error message=\"crashed\" type=\"crashed\">"), std::string::npos) << xml;
}

TEST(GraderManifest, SelectionByWeekAndTaskAndUnknownNames) {
  Manifest m;
  m.tasks = {task("week01.view"), task("week01.reshape"), task("week02.leaf")};
  EXPECT_EQ(select_tasks(m, {}).size(), 3u);
  EXPECT_EQ(select_tasks(m, {"week01"}).size(), 2u);
  EXPECT_EQ(select_tasks(m, {"week02.leaf", "week01.view"}).size(), 2u);
  EXPECT_THROW(select_tasks(m, {"week07"}), std::invalid_argument);
}

TEST(GraderManifest, TheKitManifestParses) {
  const Manifest m = read_manifest(fs::path(KINDLING_SOURCE_DIR) / "grader" / "tasks.json");
  EXPECT_FALSE(m.tasks.empty());
  for (const auto& t : m.tasks) {
    EXPECT_GT(t.points, 0) << t.id;
    EXPECT_FALSE(t.title.empty()) << t.id;
    // Three hints, gentlest first; the last sends the student to the lecture section, never to code.
    ASSERT_EQ(t.hints.size(), 3u) << t.id;
    EXPECT_NE(t.hints.back().find(t.lecture), std::string::npos) << t.id << ": " << t.hints.back();
    for (const auto& h : t.hints) EXPECT_EQ(h.find("solutions/"), std::string::npos) << t.id << ": " << h;
  }
}

TEST(GraderManifest, EveryTasksFileIsNamedWithItsOwnExtension) {
  // watch shows this path as the file to edit: a kernel task (week 6) is a .cu file, the rest .cpp.
  const fs::path root(KINDLING_SOURCE_DIR);
  const Manifest m = read_manifest(root / "grader" / "tasks.json");
  int kernels = 0;
  for (const auto& t : m.tasks)
    for (const std::string tree : {"exercises", "solutions"}) {
      const std::string file = t.source(root, tree, m.week(t.week).folder);
      EXPECT_TRUE(fs::is_regular_file(root / file)) << t.id << ": " << file;
      kernels += file.ends_with(".cu");
    }
  EXPECT_GT(kernels, 0);
}

namespace {
// GitHub's anchor for a Markdown heading: lower case, spaces to hyphens, other punctuation dropped.
std::string slug(const std::string& heading) {
  std::string s;
  for (std::size_t i = 0; i < heading.size(); ++i) {
    const auto c = static_cast<unsigned char>(heading[i]);
    // U+2000-U+206F (dashes, quotes) is punctuation too: UTF-8 E2 80 xx and E2 81 xx.
    if (c == 0xE2 && i + 2 < heading.size() && (heading[i + 1] == '\x80' || heading[i + 1] == '\x81')) {
      i += 2;
      continue;
    }
    if (std::isalnum(c) || c == '-' || c == '_' || c >= 0x80)
      s += static_cast<char>(std::tolower(c));
    else if (c == ' ')
      s += '-';
  }
  return s;
}
}  // namespace

TEST(GraderManifest, EveryTaskNamesALectureSectionThatExists) {
  const Manifest m = read_manifest(fs::path(KINDLING_SOURCE_DIR) / "grader" / "tasks.json");
  for (const auto& t : m.tasks) {
    const auto hash = t.lecture.find('#');
    ASSERT_NE(hash, std::string::npos) << t.id << ": " << t.lecture;
    std::ifstream in(fs::path(KINDLING_SOURCE_DIR) / t.lecture.substr(0, hash));
    ASSERT_TRUE(in) << t.id << ": no file " << t.lecture.substr(0, hash);
    std::set<std::string> anchors;
    bool in_code = false;
    for (std::string line; std::getline(in, line);) {
      if (line.rfind("```", 0) == 0) in_code = !in_code;
      const auto text = line.find_first_not_of('#');
      if (!in_code && text != std::string::npos && text > 0 && line[text] == ' ')
        anchors.insert(slug(line.substr(text + 1)));
    }
    EXPECT_TRUE(anchors.count(t.lecture.substr(hash + 1))) << t.id << ": no heading for " << t.lecture;
  }
}

// ---- performance points -------------------------------------------------------------------------------------------
namespace {
std::string bench_json(const std::vector<std::pair<std::string, double>>& medians, const std::string& counter) {
  nlohmann::json list = nlohmann::json::array();
  for (const auto& [name, v] : medians) {
    list.push_back({{"name", name + "_mean"}, {"aggregate_name", "mean"}, {counter, v * 100}});
    list.push_back({{"name", name + "_median"}, {"aggregate_name", "median"}, {counter, v}});
  }
  return nlohmann::json{{"context", nlohmann::json::object()}, {"benchmarks", list}}.dump();
}
}  // namespace

TEST(GraderPerf, FractionIsLinearBetweenTheBandEnds) {
  const PerfSpec speedup{"week03", "BM_X", "speedup", 3.0, 1.5};  // higher is better
  EXPECT_DOUBLE_EQ(perf_fraction(speedup, 5.0), 1.0);
  EXPECT_DOUBLE_EQ(perf_fraction(speedup, 2.25), 0.5);
  EXPECT_DOUBLE_EQ(perf_fraction(speedup, 1.0), 0.0);
  const PerfSpec ratio{"week03", "BM_Y", "ratio", 1.2, 2.0};  // lower is better
  EXPECT_DOUBLE_EQ(perf_fraction(ratio, 0.9), 1.0);
  EXPECT_DOUBLE_EQ(perf_fraction(ratio, 1.6), 0.5);
  EXPECT_DOUBLE_EQ(perf_fraction(ratio, 2.5), 0.0);
}

TEST(GraderPerf, ValueIsTheLeastFavourableMedian) {
  std::string error;
  const std::string json = bench_json({{"BM_X/512", 5.0}, {"BM_X/1024", 9.0}}, "speedup");
  EXPECT_EQ(perf_value({"w", "BM_X", "speedup", 3.0, 1.5}, json, error), 5.0);  // higher is better: the minimum
  EXPECT_EQ(perf_value({"w", "BM_X", "speedup", 1.5, 3.0}, json, error), 9.0);  // lower is better: the maximum
}

TEST(GraderPerf, MissingCounterOrGarbageIsAnErrorNotAScore) {
  std::string error;
  EXPECT_FALSE(perf_value({"w", "BM_X", "ratio", 1.2, 2.0}, bench_json({{"BM_X", 1.0}}, "speedup"), error));
  EXPECT_NE(error.find("reported 'ratio'"), std::string::npos);
  EXPECT_FALSE(perf_value({"w", "BM_X", "ratio", 1.2, 2.0}, "not json", error));
  EXPECT_EQ(error, "the benchmark wrote no results");
  // A benchmark that skipped itself (SkipWithError) says why; the grader keys needs_gpu on it.
  const std::string skipped =
      R"({"benchmarks": [{"name": "BM_X", "error_occurred": true, "error_message": "no GPU here: nothing to time"}]})";
  EXPECT_FALSE(perf_value({"w", "BM_X", "ratio", 1.2, 2.0}, skipped, error));
  EXPECT_EQ(error, "no benchmark matching 'BM_X' reported 'ratio' (it said: no GPU here: nothing to time)");
}

// Found by fuzzing: valid JSON of an unexpected shape threw a type error that nothing caught, and the
// whole grading run exited. Now the benchmark's task loses its performance points, with why.
TEST(GraderPerf, ResultsOfAnUnexpectedShapeAreAnErrorNotAnException) {
  for (const char* text : {R"({"benchmarks": [1]})", R"({"benchmarks": 7})", R"({"benchmarks": {"a": 1}})",
                           R"({"benchmarks": [{"name": "BM_X", "speedup": "fast"}]})"}) {
    std::string error;
    EXPECT_FALSE(perf_value({"w", "BM_X", "speedup", 3.0, 1.5}, text, error)) << text;
    EXPECT_NE(error.find("malformed"), std::string::npos) << text << ": " << error;
  }
}

// Points that need a GPU (week06.register_gemm's speed against cuBLAS), graded where the tests ran
// on the simulator: needs_gpu in every format, neither lost nor counted in the maximum.
TEST(GraderPerf, NeedsGpuPointsAreListedEverywhereAndLeftOutOfTheMaximum) {
  Task t = task("week06.register_gemm", 10);
  t.week = "week06";
  t.perf_points = 10;
  t.perf = PerfSpec{"week06", "BM_RegisterGemmVsCublas", "fraction_of_cublas", 0.5, 0.1, true};
  EXPECT_TRUE(perf_needs_gpu(t, "simulator (the kit's CUDA simulator; no GPU used)"));
  EXPECT_TRUE(perf_needs_gpu(t, ""));  // a build error: nothing said where the kernels ran
  EXPECT_FALSE(perf_needs_gpu(t, "device (NVIDIA H100 80GB HBM3)"));
  Task cpu_timed = t;
  cpu_timed.perf->needs_gpu = false;
  EXPECT_FALSE(perf_needs_gpu(cpu_timed, "simulator"));

  Report r;
  r.tree = "solutions";
  TaskResult res;
  res.task = t;
  res.status = Status::Passed;
  res.points = 10;
  res.cuda_backend = "simulator (the kit's CUDA simulator; no GPU used)";
  res.perf_needs_gpu = true;
  res.perf_message = needs_gpu_message(t);
  r.results.push_back(res);
  EXPECT_DOUBLE_EQ(r.score(), 10);
  EXPECT_DOUBLE_EQ(r.max_score(), 10);  // not 20: the GPU's points are not counted here
  const std::string tab = table(r, false);
  EXPECT_NE(tab.find("performance: 10 points needs_gpu"), std::string::npos) << tab;
  EXPECT_NE(tab.find("1 needs_gpu"), std::string::npos) << tab;
  EXPECT_NE(tab.find("10 / 10"), std::string::npos) << tab;
  const auto js = nlohmann::json::parse(to_json(r));
  EXPECT_EQ(js["tasks"][0]["perf_status"], "needs_gpu");
  EXPECT_DOUBLE_EQ(js["tasks"][0]["max_perf_points"].get<double>(), 0);
  EXPECT_DOUBLE_EQ(js["max_score"].get<double>(), 10);
  const auto gs = nlohmann::json::parse(to_gradescope(r));
  EXPECT_DOUBLE_EQ(gs["tests"][0]["max_score"].get<double>(), 10);
  EXPECT_EQ(gs["tests"][0]["status"], "passed");
  EXPECT_EQ(gs["tests"][0]["extra_data"]["perf_status"], "needs_gpu");
  EXPECT_NE(gs["tests"][0]["output"].get<std::string>().find("needs_gpu"), std::string::npos);
  const std::string xml = to_junit(r);
  EXPECT_NE(xml.find("tests=\"2\" failures=\"0\" errors=\"0\" skipped=\"1\""), std::string::npos) << xml;
  EXPECT_NE(xml.find("name=\"week06.register_gemm.performance\""), std::string::npos) << xml;
  EXPECT_NE(xml.find("<skipped message=\"needs_gpu"), std::string::npos) << xml;

  // The student's state and the HTML page keep it across runs.
  Manifest m;
  m.weeks.push_back(Week{"week06", "week06_cuda", "The GPU"});
  m.tasks.push_back(t);
  State st;
  st.merge(r);
  const auto dir = std::filesystem::temp_directory_path() / "kindling-needs-gpu-test";
  std::filesystem::create_directories(dir);
  save_state(dir / "state.json", st);
  const State back = load_state(dir / "state.json", m);
  ASSERT_EQ(back.latest.count("week06.register_gemm"), 1u);
  EXPECT_TRUE(back.latest.at("week06.register_gemm").perf_needs_gpu);
  const HistoryEntry h = standing(m.tasks, back, true);
  EXPECT_DOUBLE_EQ(h.max_score, 10);
  const std::string html = to_html(m, back, {}, true);
  EXPECT_NE(html.find("needs_gpu (measured on a GPU only; not counted)"), std::string::npos);
  EXPECT_NE(html.find("10/10"), std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST(GraderPerf, ReportAddsPerfPointsOnlyWhenGraded) {
  Report r;
  TaskResult t;
  t.task = task("week03.layout_gemm", 5);
  t.task.perf_points = 10;
  t.status = Status::Passed;
  t.points = 5;
  t.perf_points = 7.5;
  t.perf_measured = true;
  t.perf_message = "speedup 2.6";
  r.results.push_back(t);
  EXPECT_DOUBLE_EQ(r.score(), 12.5);
  EXPECT_DOUBLE_EQ(r.max_score(), 15);
  EXPECT_NE(table(r, false).find("performance: 7.5/10 points, speedup 2.6"), std::string::npos);
  const auto gs = nlohmann::json::parse(to_gradescope(r));
  EXPECT_DOUBLE_EQ(gs["tests"][0]["score"].get<double>(), 12.5);
  EXPECT_DOUBLE_EQ(gs["tests"][0]["max_score"].get<double>(), 15);
  r.perf = false;
  r.results[0].perf_points = 0;
  EXPECT_DOUBLE_EQ(r.max_score(), 5);
}

// `./grade mutants`' table: a mutant's name never runs into its verdict, however long it is,
// and the verdicts stand in one column.
TEST(GraderMutantsTable, ALongNameStaysApartFromItsVerdict) {
  MutantResult a;
  a.mutant.task_id = "week04.weighted_sampler";
  a.mutant.name = "rebuilds_cumulative_per_draw_every_single_time";
  a.verdict = MutantVerdict::Killed;
  a.status = Status::Failed;
  a.message = "SomeTest: wrong";
  MutantResult b;
  b.mutant.task_id = "week01.view";
  b.mutant.name = "x";
  b.verdict = MutantVerdict::Equivalent;
  b.message = "no test can tell";
  std::istringstream table(mutants_table({a, b}));
  std::string first, second;
  std::getline(table, first);
  std::getline(table, second);
  EXPECT_NE(first.find("rebuilds_cumulative_per_draw_every_single_time killed"), std::string::npos) << first;
  EXPECT_EQ(first.find("killed"), second.find("equivalent")) << first << "\n" << second;
  EXPECT_EQ(first.find("rebuilds"), second.find("x ")) << first << "\n" << second;
}
