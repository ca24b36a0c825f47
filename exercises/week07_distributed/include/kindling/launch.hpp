#pragma once
/// @file launch.hpp
/// Starting the ranks of a group (what `kindling-run --nproc N PROGRAM ARGS` does, and what the
/// week's tests do for each multi-rank test): N copies of a program, each with torchrun's
/// environment (RANK, LOCAL_RANK, WORLD_SIZE, LOCAL_WORLD_SIZE, MASTER_ADDR, MASTER_PORT) and the
/// rendezvous folder (KINDLING_RDZV_DIR), their output collected line by line. When one rank
/// fails (a non-zero exit, a signal), the others are ended (SIGTERM, then SIGKILL after a grace
/// period) and the result names the first rank that failed. A rank whose process group left word
/// that it failed only because a peer did (lost_peer_marker: a closed connection, a timeout) is
/// not taken for the cause while another rank may still fail by itself within the grace period,
/// as torchrun names the root cause from its error files. No rank outlives the launcher: each is
/// killed by the kernel if the launcher dies (PR_SET_PDEATHSIG); a process a rank starts itself
/// is that rank's to end.

#include <atomic>
#include <chrono>
#include <map>
#include <string>
#include <vector>

namespace kindling::distributed {

/// What to start.
struct LaunchOptions {
  int nproc = 1;                                   ///< ranks (WORLD_SIZE)
  std::vector<std::string> command;                ///< the program and its arguments
  std::map<std::string, std::string> environment;  ///< more variables for every rank
  std::chrono::milliseconds timeout{0};            ///< the whole run's limit (0: none)
  std::chrono::milliseconds grace{3000};           ///< SIGTERM to SIGKILL, after a failure
  bool echo = false;                               ///< also write each line to stdout as it comes, prefixed "[rank r] "
  /// When it becomes true (a signal handler sets it), the ranks are ended as after a failure.
  const std::atomic<bool>* stop = nullptr;
};

/// How one rank ended.
struct RankOutcome {
  int rank = 0;                    ///< which rank
  int exit_code = -1;              ///< its exit status, when it exited
  int signal = 0;                  ///< the signal that ended it, or 0
  bool ended_by_launcher = false;  ///< killed because another rank failed, or the run timed out
  std::string output;              ///< its stdout and stderr (the last 64 KiB)
  /// Exited with status 0.
  bool ok() const { return signal == 0 && exit_code == 0; }
  /// "exited with code 3", "was killed by signal 9 (Killed)", ...
  std::string describe() const;
};

/// How the run ended.
struct LaunchResult {
  std::vector<RankOutcome> ranks;  ///< by rank
  int first_failure = -1;          ///< the rank that failed first, or -1
  bool timed_out = false;          ///< the run's timeout ended it
  bool stopped = false;            ///< LaunchOptions::stop ended it
  /// Every rank exited with status 0, by itself.
  bool ok() const {
    if (first_failure >= 0 || timed_out || stopped) return false;
    for (const RankOutcome& r : ranks)
      if (!r.ok()) return false;
    return true;
  }
  /// "rank 2 exited with code 1 first; the launcher ended ranks 0, 1 and 3" or "all 4 ranks ...".
  std::string summary() const;
};

/// Starts the ranks and waits for them. Throws kindling::Error for bad options (nproc < 1, an
/// empty command) or when a process cannot be started.
LaunchResult launch(const LaunchOptions& options);

}  // namespace kindling::distributed
