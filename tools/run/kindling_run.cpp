// kindling-run --nproc N [--timeout SECONDS] PROGRAM [ARGS...]: week 7's launcher, torchrun's
// contract on one machine. Starts N copies of PROGRAM with RANK, LOCAL_RANK, WORLD_SIZE,
// LOCAL_WORLD_SIZE, MASTER_ADDR, MASTER_PORT and the rendezvous folder (KINDLING_RDZV_DIR), prints
// each rank's output line by line prefixed "[rank r] ", and ends them all when one fails or on
// Ctrl-C. Exits 0 when every rank did, else 1 (or 124 on the timeout), naming the rank that
// failed first.

#include <csignal>
#include <iostream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include <kindling/launch.hpp>

namespace {
std::atomic<bool> g_stop{false};
extern "C" void on_signal(int) { g_stop = true; }
}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"kindling-run: start the ranks of a group on this machine (torchrun's environment)"};
  int nproc = 1;
  double timeout_s = 0;
  std::vector<std::string> command;
  app.add_option("--nproc,--nproc-per-node", nproc, "ranks to start (WORLD_SIZE)")
      ->required()
      ->check(CLI::Range(1, 64));
  app.add_option("--timeout", timeout_s, "end every rank after this many seconds (0: never)")
      ->check(CLI::NonNegativeNumber);
  app.prefix_command();  // the program's name and everything after it are the program's
  CLI11_PARSE(app, argc, argv);
  command = app.remaining();
  if (command.empty()) {
    std::cerr << "kindling-run: no program to run (kindling-run --nproc N PROGRAM [ARGS...])\n";
    return 2;
  }
  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);
  kindling::distributed::LaunchOptions options;
  options.nproc = nproc;
  options.command = command;
  options.timeout = std::chrono::milliseconds(static_cast<long>(timeout_s * 1000));
  options.echo = true;
  options.stop = &g_stop;
  try {
    const auto result = kindling::distributed::launch(options);
    std::cerr << "kindling-run: " << result.summary() << "\n";
    if (result.timed_out) return 124;
    if (result.stopped) return 130;
    return result.ok() ? 0 : 1;
  } catch (const std::exception& e) {
    std::cerr << "kindling-run: " << e.what() << "\n";
    return 2;
  }
}
