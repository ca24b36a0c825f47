// Running a test binary in its own process group, with a time limit that kills
// the whole group, so that a crash or a hang in student code costs one task.

#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <fstream>
#include <functional>
#include <sstream>
#include <thread>

#include "grader.hpp"

namespace kindling::grader {

volatile std::sig_atomic_t running_child_group = 0;

ProcessResult run_process(const std::vector<std::string>& argv, double timeout_s, const std::filesystem::path& log,
                          const std::function<void(const std::string&)>& on_line, double memory_mb) {
  ProcessResult r;
  const auto start = std::chrono::steady_clock::now();
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  // The log is created before the fork, so that the reader below never sees an older file.
  const int out_fd = open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (out_fd < 0) throw std::runtime_error("cannot write " + log.string() + ": " + std::strerror(errno));
  const pid_t pid = fork();
  if (pid < 0) {
    close(out_fd);
    throw std::runtime_error(std::string("fork failed: ") + std::strerror(errno));
  }
  if (pid == 0) {
    setpgid(0, 0);
    if (memory_mb > 0) {
      // RLIMIT_DATA (Linux >= 4.7) counts the private writable memory a process maps:
      // the heap and every buffer it allocates. Unlike RLIMIT_AS it ignores address
      // space only reserved (PROT_NONE), which the CUDA runtime reserves by the
      // gigabyte and a task's threads' stacks do not need to share.
      const auto bytes = static_cast<rlim_t>(memory_mb * 1024 * 1024);
      const rlimit limit{bytes, bytes};
      setrlimit(RLIMIT_DATA, &limit);
    }
    dup2(out_fd, STDOUT_FILENO);  // dup2 clears close-on-exec on the copies
    dup2(out_fd, STDERR_FILENO);
    execv(args[0], args.data());
    std::fprintf(stderr, "cannot run %s: %s\n", args[0], std::strerror(errno));
    _exit(127);
  }
  setpgid(pid, pid);
  running_child_group = pid;
  close(out_fd);
  // Streams the log's complete lines to on_line while the process runs.
  std::ifstream follow;
  std::string partial;
  if (on_line) follow.open(log);
  auto pump = [&] {
    if (!on_line || !follow) return;
    char buf[4096];
    while (true) {
      follow.read(buf, sizeof buf);
      const auto n = follow.gcount();
      if (n <= 0) break;
      partial.append(buf, static_cast<std::size_t>(n));
    }
    follow.clear();  // at the end of what is written so far; more may come
    std::size_t from = 0, nl;
    while ((nl = partial.find('\n', from)) != std::string::npos) {
      on_line(partial.substr(from, nl - from));
      from = nl + 1;
    }
    partial.erase(0, from);
  };
  int status = 0;
  const auto deadline = start + std::chrono::duration<double>(timeout_s);
  while (true) {
    const pid_t w = waitpid(pid, &status, WNOHANG);
    pump();
    if (w == pid) break;
    if (std::chrono::steady_clock::now() >= deadline) {
      r.timed_out = true;
      kill(-pid, SIGKILL);
      waitpid(pid, &status, 0);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  if (!r.timed_out) kill(-pid, SIGKILL);  // leftovers of the group (threads are gone with the process)
  running_child_group = 0;
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!r.timed_out) {
    if (WIFEXITED(status))
      r.exit_code = WEXITSTATUS(status);
    else if (WIFSIGNALED(status))
      r.signal = WTERMSIG(status);
  }
  pump();
  std::ifstream in(log);
  std::ostringstream s;
  s << in.rdbuf();
  r.output = s.str();
  return r;
}

}  // namespace kindling::grader
