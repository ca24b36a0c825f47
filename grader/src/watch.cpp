// The student's loop: recording each run (state, history, reports), progressive
// hints, and `./grade watch`, which re-grades the current task whenever a file of
// the tree is saved.
//
// File watching uses the kernel's inotify(7) directly, with one watch per folder,
// and falls back to polling the files' times when inotify is unavailable (a full
// watch table, a file system without it). Debian's libinotifytools was tried
// first: its inotifytools_next_event() blocks even with a zero timeout (3.22), and
// the loop must wait on keys and files at once, which poll(2) on the inotify
// descriptor and stdin does.

#include <poll.h>
#include <sys/inotify.h>
#include <termios.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <fstream>
#include <iostream>

#include "grader.hpp"

namespace fs = std::filesystem;

namespace kindling::grader {

Workspace::Workspace(const fs::path& build_dir)
    : state(build_dir / "grade-state.json"),
      history(build_dir / "history.jsonl"),
      hints(build_dir / "hints.json"),
      report_json(build_dir / "report.json"),
      report_html(build_dir / "report.html") {}

void record_run(const Workspace& w, const Manifest& m, const Report& r, State& s) {
  s.merge(r);
  s.tree = r.tree;
  save_state(w.state, s);
  append_history(w.history, standing(m.tasks, s, r.perf));
  Report all;  // the whole worksheet, each task as last graded
  all.tree = r.tree;
  all.perf = r.perf;
  for (const auto& t : m.tasks)
    if (const auto it = s.latest.find(t.id); it != s.latest.end()) all.results.push_back(it->second);
  std::ofstream(w.report_json) << to_json(all);
  std::ofstream(w.report_html) << to_html(m, s, load_history(w.history), r.perf);
}

std::string next_hint(const Workspace& w, const Task& t) {
  if (t.hints.empty()) return tr("{0} has no hints.", {t.id}) + "\n";
  const int total = static_cast<int>(t.hints.size());
  const int n = std::min(hints_seen(w.hints, t.id) + 1, total);
  set_hints_seen(w.hints, t.id, n);
  std::string out = t.id + ": " + t.title + "\n" + tr("Hint {0} of {1}: ", {std::to_string(n), std::to_string(total)}) +
                    t.hints[static_cast<std::size_t>(n - 1)] + "\n";
  if (n < total)
    out += tr("(Ask again for hint {0} of {1}.)", {std::to_string(n + 1), std::to_string(total)}) + "\n";
  else
    out += tr("(That is the last hint: the lecture section it names explains the idea in full.)") + "\n";
  return out;
}

namespace {

// ---- the terminal: keys without Enter, restored however the program ends ---------------------------
termios saved_termios;
volatile std::sig_atomic_t raw_mode = 0;

void restore_terminal() {
  if (raw_mode) tcsetattr(STDIN_FILENO, TCSANOW, &saved_termios);
  raw_mode = 0;
}

// Ctrl-C, Ctrl-\, a closed terminal: stop the build or test that is running (it is in a
// process group of its own, so the terminal's signal does not reach it), put the
// terminal back, then die of the same signal. Only async-signal-safe calls here.
extern "C" void on_signal(int sig) {
  if (const pid_t child = running_child_group; child > 0) kill(-child, SIGTERM);
  restore_terminal();
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

void enter_raw_mode() {
  if (!isatty(STDIN_FILENO) || tcgetattr(STDIN_FILENO, &saved_termios) != 0) return;
  termios raw = saved_termios;
  raw.c_lflag &= static_cast<tcflag_t>(~(ICANON | ECHO));
  raw.c_cc[VMIN] = 0;
  raw.c_cc[VTIME] = 0;
  if (tcsetattr(STDIN_FILENO, TCSANOW, &raw) == 0) raw_mode = 1;
  std::atexit(restore_terminal);
  for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT}) std::signal(sig, on_signal);
}

// ---- what changed on disk ------------------------------------------------------------------------
bool is_code(const fs::path& p) {
  const auto e = p.extension();
  return e == ".cpp" || e == ".hpp" || e == ".h" || e == ".cu" || e == ".cuh";
}

class Watcher {
 public:
  explicit Watcher(fs::path root) : root_(std::move(root)) {
    fd_ = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    if (fd_ >= 0 && !watch_tree(root_)) {
      close(fd_);
      fd_ = -1;
    }
    if (fd_ < 0) times_ = scan();
  }
  ~Watcher() {
    if (fd_ >= 0) close(fd_);
  }
  Watcher(const Watcher&) = delete;
  Watcher& operator=(const Watcher&) = delete;
  std::string how() const { return fd_ >= 0 ? "inotify" : "polling every 0.5 s"; }
  /// The descriptor to poll(2) for changes, or -1 when polling the files' times.
  int fd() const { return fd_; }
  /// True when a source file was written, created, moved in or removed since the last call.
  bool changed() {
    if (fd_ < 0) {
      const auto now = std::chrono::steady_clock::now();
      if (now - last_poll_ < std::chrono::milliseconds(500)) return false;
      last_poll_ = now;
      auto times = scan();
      const bool any = times != times_;
      times_ = std::move(times);
      return any;
    }
    bool any = false;
    alignas(inotify_event) char buf[16384];
    while (true) {
      const ssize_t n = read(fd_, buf, sizeof buf);
      if (n <= 0) break;
      for (ssize_t at = 0; at < n;) {
        const auto* e = reinterpret_cast<const inotify_event*>(buf + at);
        at += static_cast<ssize_t>(sizeof(inotify_event) + e->len);
        if (e->len == 0) continue;
        const fs::path name = e->name;
        if (e->mask & IN_ISDIR) {
          // A new folder (a new week, or an editor's) is watched too.
          if ((e->mask & (IN_CREATE | IN_MOVED_TO)) && dirs_.count(e->wd)) watch_tree(dirs_[e->wd] / name);
        } else if (is_code(name)) {
          any = true;
        }
      }
    }
    return any;
  }

 private:
  bool watch_tree(const fs::path& dir) {
    std::error_code ec;
    if (!add(dir)) return false;
    for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::recursive_directory_iterator();
         it.increment(ec))
      if (it->is_directory(ec) && !add(it->path())) return false;
    return true;
  }
  bool add(const fs::path& dir) {
    const int wd = inotify_add_watch(fd_, dir.c_str(), IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE | IN_DELETE);
    if (wd < 0) return false;
    dirs_[wd] = dir;
    return true;
  }
  std::map<std::string, fs::file_time_type> scan() const {
    std::map<std::string, fs::file_time_type> out;
    std::error_code ec;
    for (auto it = fs::recursive_directory_iterator(root_, ec); !ec && it != fs::recursive_directory_iterator();
         it.increment(ec))
      if (it->is_regular_file(ec) && is_code(it->path())) out[it->path().string()] = it->last_write_time(ec);
    return out;
  }
  fs::path root_;
  int fd_ = -1;
  std::map<int, fs::path> dirs_;  // watch descriptor -> folder
  std::map<std::string, fs::file_time_type> times_;
  std::chrono::steady_clock::time_point last_poll_{};
};

std::string colour(Status s, bool tty) {
  if (!tty) return "";
  return s == Status::Passed ? "\033[32m" : s == Status::NotImplemented ? "\033[33m" : "\033[31m";
}

}  // namespace

int watch(const Manifest& m, const std::vector<Task>& tasks, const GradeOptions& options, const std::string& tree) {
  const bool tty = isatty(STDOUT_FILENO);
  const Workspace w(options.build_dir);
  State s = load_state(w.state, m);
  const fs::path root = options.source_dir / tree;
  Watcher watcher(root);
  enter_raw_mode();

  auto grade = [&](const std::vector<Task>& which) {
    GradeOptions o = options;
    o.tty = tty;
    Session session(m, o, std::cout);
    record_run(w, m, session.grade(which), s);
  };
  std::string extra;  // a hint, shown under the status until the next re-grade
  auto draw = [&] {
    if (tty) std::cout << "\033[2J\033[H";
    const HistoryEntry now = standing(tasks, s, options.perf);  // the tasks being worked through
    std::cout << "Kindling watch: " << tree << "/ (" << watcher.how() << ")\n"
              << "progress: " << now.passed << "/" << now.total << " tasks, " << now.score << "/" << now.max_score
              << " points\n\n";
    const Task* current = first_unpassed(tasks, s);
    if (!current) {
      std::cout << "Every task here passes. Well done! (q quits)\n" << std::flush;
      return;
    }
    const TaskResult& r = s.latest.at(current->id);
    const char* reset = tty ? "\033[0m" : "";
    std::cout << "task:    " << current->id << ": " << current->title << "\n"
              << "status:  " << colour(r.status, tty) << to_string(r.status) << reset << "\n"
              << "message: " << r.message << "\n"
              << "file:    " << current->source(options.source_dir, tree, m.week(current->week).folder) << "\n\n";
    if (options.verbose && !r.failures.empty()) {
      std::cout << tr("failures ({0}):", {std::to_string(r.failures.size())}) << "\n";
      for (const auto& f : r.failures) std::cout << "- " << f << "\n";
      std::cout << "\n";
    }
    if (!extra.empty()) std::cout << extra << "\n";
    std::cout << "Save the file to re-grade.  h: next hint  r: re-grade now  q: quit\n" << std::flush;
  };

  // Every task needs a first result before the loop can say which one is next.
  std::vector<Task> ungraded;
  for (const auto& t : tasks)
    if (!s.latest.count(t.id)) ungraded.push_back(t);
  if (!ungraded.empty()) grade(ungraded);
  draw();

  bool dirty = false, keys = true;
  auto quiet_since = std::chrono::steady_clock::now();
  while (true) {
    // Wait for a key or a file event (at most 0.1 s, for the debounce and the polling fallback).
    pollfd fds[2] = {{keys ? STDIN_FILENO : -1, POLLIN, 0}, {watcher.fd(), POLLIN, 0}};
    poll(fds, 2, 100);
    if (fds[0].revents & (POLLIN | POLLHUP)) {
      char c = 0;
      if (read(STDIN_FILENO, &c, 1) <= 0) {  // stdin at its end (not a terminal): keep watching, without keys
        keys = false;
      } else if (c == 'q' || c == 'Q') {
        break;
      } else if (c == 'h' || c == 'H') {
        if (const Task* current = first_unpassed(tasks, s)) extra = next_hint(w, *current);
        draw();
      } else if (c == 'r' || c == 'R') {
        dirty = true;
        quiet_since = std::chrono::steady_clock::now() - std::chrono::seconds(1);
      }
    }
    if (watcher.changed()) {
      dirty = true;
      quiet_since = std::chrono::steady_clock::now();
    }
    // Editors write a file in several steps: wait until the tree has been quiet for 0.3 s.
    if (dirty && std::chrono::steady_clock::now() - quiet_since > std::chrono::milliseconds(300)) {
      dirty = false;
      extra.clear();
      if (const Task* current = first_unpassed(tasks, s)) {
        const Task task = *current;
        if (tty) std::cout << "\033[2J\033[H";
        std::cout << "re-grading " << task.id << " ...\n" << std::flush;
        grade({task});
        // Passed: show where the next task stands straight away.
        if (s.latest.at(task.id).status == Status::Passed)
          if (const Task* next = first_unpassed(tasks, s)) grade({*next});
      }
      draw();
    }
  }
  restore_terminal();
  std::cout << "\nBye. Your report: " << w.report_html.string() << "\n";
  return 0;
}

}  // namespace kindling::grader
