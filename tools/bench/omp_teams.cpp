// What a parallel region costs with libgomp when regions ask for teams of different sizes, and
// what it costs when every region starts the whole team (the engine's way since 2026-11-27:
// solutions/week01_tensors/src/loop.hpp, KINDLING_OMP_FOR). Not part of the build:
//
//   g++ -O2 -fopenmp tools/bench/omp_teams.cpp -o /tmp/omp_teams
//   for t in 2 4 16; do OMP_NUM_THREADS=$t /tmp/omp_teams; done
//
// Each round runs three regions that use all threads, 2 and 6 (at most all) in turn, as a
// training step's ops do. "sized" starts each with num_threads(n); "whole team" starts all
// threads and lets those past n do nothing. It prints the time per region and how many distinct
// operating-system threads ran the regions: more than OMP_NUM_THREADS means libgomp ended
// threads and created new ones.

#include <omp.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <mutex>
#include <set>

namespace {

template <bool kWholeTeam>
void run(int rounds) {
  const int all = omp_get_max_threads();
  const int sizes[3] = {all, std::min(all, 2), std::min(all, 6)};
  std::set<long> ids;
  std::mutex mutex;
  const auto start = std::chrono::steady_clock::now();
  for (int round = 0; round < rounds; ++round)
    for (const int n : sizes) {
      if constexpr (kWholeTeam) {
#pragma omp parallel
        if (omp_get_thread_num() < n) {
          const long id = syscall(SYS_gettid);
          const std::lock_guard lock(mutex);
          ids.insert(id);
        }
      } else {
#pragma omp parallel num_threads(n)
        {
          const long id = syscall(SYS_gettid);
          const std::lock_guard lock(mutex);
          ids.insert(id);
        }
      }
    }
  const double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count();
  std::printf("OMP_NUM_THREADS=%d %-10s %8.1f us per region, %zu distinct threads\n", all,
              kWholeTeam ? "whole team" : "sized", us / (3.0 * rounds), ids.size());
}

}  // namespace

int main() {
  run<false>(1000);
  run<true>(1000);
}
