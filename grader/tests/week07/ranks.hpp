#pragma once
// Multi-rank tests (as PyTorch's MultiProcessTestCase): a test calls run_ranks(n, body). In the
// test program the grader started, run_ranks starts n copies of the same program through the
// week's launcher (kindling/launch.hpp), each running only this test as one rank of a group, and
// fails with each failing rank's own messages; in a rank, it joins the group and runs body.

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <kindling/distributed.hpp>
#include <kindling/launch.hpp>

namespace kindling::testing {

/// Whether this process is one rank of a multi-rank test.
inline bool is_rank() { return std::getenv("KINDLING_TEST_RANK") != nullptr; }

/// The ordinal of this call of ranks() within the running test (0, 1, ...): a test may start
/// several groups one after another, and a rank runs only the body of the call it was started for.
inline int next_ranks_call() {
  static std::string test;
  static int calls = 0;
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  const std::string now = std::string(info->test_suite_name()) + "." + info->name();
  if (now != test) {
    test = now;
    calls = 0;
  }
  return calls++;
}

/// The failure lines GoogleTest printed in a rank's output (or its last lines).
inline std::string failures_of(const std::string& output) {
  std::string picked, line;
  std::size_t from = 0;
  while (from < output.size()) {
    const auto nl = output.find('\n', from);
    line = output.substr(from, nl == std::string::npos ? std::string::npos : nl - from);
    from = nl == std::string::npos ? output.size() : nl + 1;
    if (line.rfind("[  FAILED", 0) == 0 || line.rfind("[  PASSED", 0) == 0 || line.rfind("[==", 0) == 0 ||
        line.rfind("[--", 0) == 0 || line.rfind("[ RUN", 0) == 0 || line.rfind("[       OK", 0) == 0 ||
        line.rfind("Running main()", 0) == 0 || line.rfind("Note: Google Test filter", 0) == 0 || line.empty())
      continue;
    picked += line + "\n";
  }
  if (picked.size() > 4000) picked = "..." + picked.substr(picked.size() - 4000);
  return picked;
}

/// Runs body as every rank of an n-rank group; `timeout` is the group's (every collective's).
/// In a rank: joins the group, runs body and returns nothing. In the test program: starts the
/// ranks and returns how they ended.
/// With `closing_barrier`, a rank whose body returned waits at a barrier for the others before it
/// leaves: a rank that finished first must not close its connections while another is still
/// connecting (under load, that rank's rendezvous would fail with "Connection closed by peer").
inline std::optional<distributed::LaunchResult> ranks(int n,
                                                      const std::function<void(distributed::ProcessGroup&)>& body,
                                                      std::chrono::milliseconds timeout = std::chrono::seconds(5),
                                                      bool closing_barrier = false) {
  const int call = next_ranks_call();
  if (is_rank()) {
    if (std::to_string(call) != std::getenv("KINDLING_TEST_RANK")) return std::nullopt;  // another call's
    distributed::ProcessGroup group = distributed::ProcessGroup::from_environment();
    // Every rank has connected before any runs the body: a rank whose body fails at once (a stub
    // that is not implemented yet) must not close its connections while another is still in the
    // rendezvous, which would make that one fail with "Connection closed by peer" instead.
    group.barrier();
    body(group);
    if (closing_barrier) group.barrier();
    return std::nullopt;
  }
  const auto* test = ::testing::UnitTest::GetInstance()->current_test_info();
  distributed::LaunchOptions options;
  options.nproc = n;
  options.command = {"/proc/self/exe", std::string("--gtest_filter=") + test->test_suite_name() + "." + test->name(),
                     "--gtest_brief=1"};
  options.environment = {{"KINDLING_TEST_RANK", std::to_string(call)},
                         {"KINDLING_DIST_TIMEOUT_MS", std::to_string(timeout.count())}};
  options.timeout = timeout * 3;
  return distributed::launch(options);
}

/// ranks(), expecting every rank to pass (with the closing barrier): a failing rank's own messages
/// become this test's.
inline void run_ranks(int n, const std::function<void(distributed::ProcessGroup&)>& body,
                      std::chrono::milliseconds timeout = std::chrono::seconds(5)) {
  const auto result = ranks(n, body, timeout, /*closing_barrier=*/true);
  if (!result || result->ok()) return;
  // The rank that failed first, with its own messages; then the others that failed by themselves;
  // the ranks the launcher ended only by number.
  std::vector<int> order;
  if (result->first_failure >= 0) order.push_back(result->first_failure);
  for (const auto& r : result->ranks)
    if (r.rank != result->first_failure) order.push_back(r.rank);
  std::string ended;
  for (const int k : order) {
    const auto& r = result->ranks[static_cast<std::size_t>(k)];
    if (r.ok()) continue;
    const std::string own = failures_of(r.output);
    if (r.ended_by_launcher && own.empty()) {
      ended += (ended.empty() ? "" : ", ") + std::to_string(k);
      continue;
    }
    ADD_FAILURE() << "rank " << k << " of " << n << " " << r.describe() << ":\n" << own;
  }
  if (!ended.empty()) ADD_FAILURE() << "the launcher ended rank(s) " << ended << " (" << result->summary() << ")";
}

}  // namespace kindling::testing
