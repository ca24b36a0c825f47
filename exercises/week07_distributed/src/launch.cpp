// Starting and watching the ranks of a group (launch.hpp): fork and exec with torchrun's
// environment, one pipe per rank for its output, poll(2) over the pipes, and waitpid(2) for the
// exits. The first failure ends the others; PR_SET_PDEATHSIG ends every rank if the launcher dies.

#include <kindling/launch.hpp>

#include <fcntl.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <iostream>
#include <map>
#include <string>

#include <kindling/error.hpp>

namespace kindling::distributed {

std::string RankOutcome::describe() const {
  if (signal != 0)
    return std::string("was killed by signal ") + std::to_string(signal) + " (" + strsignal(signal) + ")" +
           (ended_by_launcher ? " by the launcher" : "");
  if (exit_code == 127) return "could not start its program (exit code 127)";
  return "exited with code " + std::to_string(exit_code) + (ended_by_launcher ? " when the launcher ended it" : "");
}

std::string LaunchResult::summary() const {
  if (ok()) return "all " + std::to_string(ranks.size()) + " ranks exited with code 0";
  std::string s;
  if (stopped)
    s = "the launcher was stopped (Ctrl-C or SIGTERM)";
  else if (timed_out)
    s = "the run did not finish within its timeout";
  else
    s = "rank " + std::to_string(first_failure) + " " + ranks[static_cast<std::size_t>(first_failure)].describe() +
        " first";
  std::string ended;
  for (const RankOutcome& r : ranks)
    if (r.ended_by_launcher) ended += (ended.empty() ? "" : ", ") + std::to_string(r.rank);
  if (!ended.empty())
    s += "; the launcher ended rank" + std::string(ended.find(',') != std::string::npos ? "s " : " ") + ended;
  return s;
}

namespace {
constexpr std::size_t kKeptOutput = 64 * 1024;

struct Child {
  pid_t pid = -1;
  int pidfd = -1;  // readable when it exits (pidfd_open), or -1 where the kernel has none
  int fd = -1;     // the read end of its output pipe, or -1 once closed
  bool reaped = false;
  std::string partial;  // an unfinished line
};

void keep_tail(std::string& out, const std::string& more) {
  out += more;
  if (out.size() > kKeptOutput) out.erase(0, out.size() - kKeptOutput);
}
}  // namespace

LaunchResult launch(const LaunchOptions& options) {
  KINDLING_CHECK(options.nproc >= 1, "launch: --nproc must be at least 1, got ", options.nproc);
  KINDLING_CHECK(!options.command.empty(), "launch: no program to run");
  char dir_template[] = "/tmp/kindling-rdzv-XXXXXX";
  KINDLING_CHECK(::mkdtemp(dir_template) != nullptr,
                 "launch: cannot create the rendezvous folder: ", std::strerror(errno));
  const std::string rdzv = dir_template;
  const pid_t launcher = ::getpid();

  LaunchResult result;
  result.ranks.resize(static_cast<std::size_t>(options.nproc));
  std::vector<Child> children(static_cast<std::size_t>(options.nproc));
  // Everything a rank needs is built here, before fork: between fork and exec a child of a
  // multi-threaded parent may call only async-signal-safe functions (no allocation, no setenv).
  std::vector<char*> argv;
  for (const std::string& a : options.command) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  std::string program = options.command.front();
  if (program.find('/') == std::string::npos)  // execvp's PATH search, done here
    if (const char* path = std::getenv("PATH")) {
      std::string dirs = path;
      for (std::size_t from = 0; from <= dirs.size();) {
        const auto colon = std::min(dirs.find(':', from), dirs.size());
        const std::string candidate = (colon > from ? dirs.substr(from, colon - from) : ".") + "/" + program;
        if (::access(candidate.c_str(), X_OK) == 0) {
          program = candidate;
          break;
        }
        from = colon + 1;
      }
    }
  std::vector<std::vector<std::string>> envs(static_cast<std::size_t>(options.nproc));
  std::vector<std::vector<char*>> envps(static_cast<std::size_t>(options.nproc));
  const std::string cannot_start = "kindling-run: cannot start " + options.command.front() + "\n";
  for (int r = 0; r < options.nproc; ++r) {
    std::map<std::string, std::string> vars;
    for (char** e = environ; *e; ++e) {
      const std::string kv = *e;
      const auto eq = kv.find('=');
      if (eq != std::string::npos) vars[kv.substr(0, eq)] = kv.substr(eq + 1);
    }
    vars["RANK"] = vars["LOCAL_RANK"] = std::to_string(r);
    vars["WORLD_SIZE"] = vars["LOCAL_WORLD_SIZE"] = std::to_string(options.nproc);
    vars["GROUP_RANK"] = "0";
    vars["MASTER_ADDR"] = "127.0.0.1";
    vars["MASTER_PORT"] = "29500";
    vars["KINDLING_RDZV_DIR"] = rdzv;
    for (const auto& [k, v] : options.environment) vars[k] = v;
    auto& env = envs[static_cast<std::size_t>(r)];
    for (const auto& [k, v] : vars) env.push_back(k + "=" + v);
    for (auto& kv : env) envps[static_cast<std::size_t>(r)].push_back(kv.data());
    envps[static_cast<std::size_t>(r)].push_back(nullptr);
  }
  std::cout.flush();
  std::cerr.flush();

  // A rank that cannot be started ends the ones already running, and leaves nothing behind.
  const auto abandon = [&](const std::string& why) {
    for (Child& c : children) {
      if (c.pid > 0) {
        ::kill(c.pid, SIGKILL);
        ::waitpid(c.pid, nullptr, 0);
      }
      if (c.pidfd >= 0) ::close(c.pidfd);
      if (c.fd >= 0) ::close(c.fd);
    }
    std::error_code ignored;
    std::filesystem::remove_all(rdzv, ignored);
    throw Error("launch: " + why);
  };
  for (int r = 0; r < options.nproc; ++r) {
    result.ranks[static_cast<std::size_t>(r)].rank = r;
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) abandon(std::string("pipe: ") + std::strerror(errno));
    const pid_t pid = ::fork();
    if (pid < 0) {
      const std::string why = std::string("fork: ") + std::strerror(errno);
      ::close(fds[0]);
      ::close(fds[1]);
      abandon(why);
    }
    if (pid == 0) {
      // The rank: dies with the launcher, writes into its pipe, runs the program with its
      // environment. Async-signal-safe calls only.
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (::getppid() != launcher) ::_exit(1);
      ::dup2(fds[1], 1);
      ::dup2(fds[1], 2);
      ::execve(program.c_str(), argv.data(), envps[static_cast<std::size_t>(r)].data());
      [[maybe_unused]] const auto written = ::write(2, cannot_start.data(), cannot_start.size());
      ::_exit(127);
    }
    ::close(fds[1]);
    ::fcntl(fds[0], F_SETFL, ::fcntl(fds[0], F_GETFL) | O_NONBLOCK);
    // Its exit wakes the poll below at once, so that the first rank to fail is the first seen.
    const int pidfd = static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
    children[static_cast<std::size_t>(r)] = Child{pid, pidfd, fds[0], false, {}};
  }

  using clock = std::chrono::steady_clock;
  const auto start = clock::now();
  bool ending = false;  // the launcher is ending the ranks
  clock::time_point kill_at{};
  std::function<void(std::size_t)> reap_one;
  const auto end_all = [&](bool because_of_timeout) {
    if (ending) return;
    ending = true;
    for (std::size_t r = 0; r < children.size(); ++r) reap_one(r);  // those that already exited by themselves
    result.timed_out = because_of_timeout;
    for (std::size_t r = 0; r < children.size(); ++r)
      if (!children[r].reaped) {
        ::kill(children[r].pid, SIGTERM);
        result.ranks[r].ended_by_launcher = true;
      }
    kill_at = clock::now() + options.grace;
  };
  const auto take_output = [&](std::size_t r, const char* data, std::size_t n) {
    Child& c = children[r];
    c.partial.append(data, n);
    std::size_t nl;
    while ((nl = c.partial.find('\n')) != std::string::npos) {
      const std::string line = c.partial.substr(0, nl + 1);
      c.partial.erase(0, nl + 1);
      keep_tail(result.ranks[r].output, line);
      if (options.echo) std::cout << "[rank " << r << "] " << line << std::flush;
    }
  };

  std::vector<int> lost_peer;  // ranks that failed because a peer did, in the order they exited
  clock::time_point cause_by{};
  const auto reap = [&](std::size_t r) {
    Child& c = children[r];
    if (c.reaped) return;
    int status = 0;
    const pid_t got = ::waitpid(c.pid, &status, WNOHANG);
    if (got == 0 || (got < 0 && errno != ECHILD)) return;
    c.reaped = true;
    if (got < 0) {  // reaped elsewhere (SIGCHLD ignored, or another waiter): its status is lost
      if (c.pidfd >= 0) ::close(c.pidfd);
      return;
    }
    if (c.pidfd >= 0) ::close(c.pidfd);
    RankOutcome& o = result.ranks[r];
    if (WIFSIGNALED(status)) o.signal = WTERMSIG(status);
    if (WIFEXITED(status)) o.exit_code = WEXITSTATUS(status);
    if (o.ok() || o.ended_by_launcher || result.first_failure >= 0) return;
    // A rank that failed only because a peer did (the group's marker) is not the cause: wait a
    // moment for the rank that failed by itself, which may still be writing its error.
    std::error_code no_such;
    if (std::filesystem::exists(std::filesystem::path(rdzv) / ("lost-peer." + std::to_string(r)), no_such)) {
      lost_peer.push_back(static_cast<int>(r));
      if (lost_peer.size() == 1) cause_by = clock::now() + options.grace;
      return;
    }
    result.first_failure = static_cast<int>(r);
    end_all(false);
  };
  reap_one = reap;

  int patience = 0;  // polls since every rank exited with a pipe still open
  for (;;) {
    // Exits (pidfds) and output (pipes), whichever comes first; exits are handled first.
    std::vector<pollfd> polls;
    std::vector<std::size_t> owners;
    std::vector<bool> is_exit;
    for (std::size_t r = 0; r < children.size(); ++r) {
      if (!children[r].reaped && children[r].pidfd >= 0) {
        polls.push_back({children[r].pidfd, POLLIN, 0});
        owners.push_back(r);
        is_exit.push_back(true);
      }
      if (children[r].fd >= 0) {
        polls.push_back({children[r].fd, POLLIN, 0});
        owners.push_back(r);
        is_exit.push_back(false);
      }
    }
    if (!polls.empty()) ::poll(polls.data(), polls.size(), 20);
    for (std::size_t i = 0; i < polls.size(); ++i)
      if (is_exit[i] && (polls[i].revents & POLLIN)) reap(owners[i]);
    for (std::size_t i = 0; i < polls.size(); ++i) {
      if (is_exit[i] || !(polls[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      Child& c = children[owners[i]];
      char buf[4096];
      for (;;) {
        const ssize_t n = ::read(c.fd, buf, sizeof buf);
        if (n > 0) {
          take_output(owners[i], buf, static_cast<std::size_t>(n));
          continue;
        }
        if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
          ::close(c.fd);
          c.fd = -1;
        }
        break;
      }
    }
    // Exits not seen through a pidfd (a kernel without them).
    bool all_reaped = true;
    for (std::size_t r = 0; r < children.size(); ++r) {
      if (children[r].pidfd < 0) reap(r);
      all_reaped = all_reaped && children[r].reaped;
    }
    const bool pipes_open = std::any_of(children.begin(), children.end(), [](const Child& c) { return c.fd >= 0; });
    if (all_reaped && !pipes_open) break;
    if (all_reaped && pipes_open) {
      // A process the rank started still holds its pipe: stop reading after a moment.
      if (++patience > 10) {
        patience = 0;
        for (Child& c : children)
          if (c.fd >= 0) {
            ::close(c.fd);
            c.fd = -1;
          }
      }
    }
    // No rank failed by itself within the grace period (or every rank has exited): the first
    // that failed is named.
    if (result.first_failure < 0 && !lost_peer.empty() && (all_reaped || clock::now() > cause_by)) {
      result.first_failure = lost_peer.front();
      end_all(false);
    }
    if (!ending && options.stop && options.stop->load()) {
      result.stopped = true;
      end_all(false);
    }
    if (!ending && options.timeout.count() > 0 && clock::now() - start > options.timeout) end_all(true);
    if (ending && clock::now() > kill_at)
      for (Child& c : children)
        if (!c.reaped) ::kill(c.pid, SIGKILL);
  }
  for (std::size_t r = 0; r < children.size(); ++r)
    if (!children[r].partial.empty()) keep_tail(result.ranks[r].output, children[r].partial + "\n");
  std::error_code ignored;
  std::filesystem::remove_all(rdzv, ignored);
  return result;
}

}  // namespace kindling::distributed
