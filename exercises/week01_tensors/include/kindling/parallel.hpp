#pragma once
/// @file parallel.hpp
/// The engine's intra-op thread count (torch.get_num_threads / set_num_threads), the rule
/// that decides how many threads a loop runs on, and a counter that shows it.
///
/// Every parallel loop of the engine (elementwise ops, where, fill, copies, reductions, row-wise
/// kernels such as softmax, the convolution's im2col, pooling, the optimizers' updates, matrix
/// products) follows one rule, PyTorch's `at::parallel_for` with its grain of 32768: a loop of
/// `work` elements runs on min(get_num_threads(), work / kParallelGrain) threads, at least one.
/// Below two grains it stays on the calling thread; above, no thread gets less than a grain
/// (starting a thread costs microseconds, about what a grain of additions takes). A matrix
/// product counts multiply-adds, with OpenBLAS's grain of 262144. (PyTorch rounds work / grain up;
/// the kit rounds down, so that no thread gets a fraction of a grain.)
///
/// Every loop that runs on more than one thread starts OpenMP's whole team (get_num_threads()
/// threads) and leaves the threads it does not need idle, as PyTorch's at::parallel_for does:
/// libgomp ends the threads that a smaller team leaves out and creates new ones for the next
/// larger team.
///
/// Results do not depend on the thread count: each output element is computed by one thread
/// in the same order, and a full reduction is cut into pieces fixed by the size alone (whether
/// a reduction along some dims shares out its outputs or is cut into such pieces depends on its
/// sizes alone too). A matrix product whose two operands packed for Eigen's kernel fit in 2 MB
/// (Linear 784 -> 256 at batch 64, 512 x 512 x 512) is packed once and shared out in whole tiles
/// of that kernel, so it too gives the same bits. The one exception is the last bits of a larger
/// product (or of a very flat one, whose one-thread blocks Eigen does not make whole tiles): each
/// thread computes a block of the output as its own Eigen product, whose blocking (and so its
/// order of additions) follows the block's shape, as a BLAS library's does for PyTorch.

#include <cstdint>
#include <string>
#include <vector>

namespace kindling {

/// Threads a parallel kernel may use: OMP_NUM_THREADS when set, else one per core
/// (1 in a build without OpenMP). In a child made by fork() it is 1: OpenMP cannot start a
/// team of threads in a forked child once the parent has run one (libgomp would wait forever
/// for threads the child does not have), so such a child runs every loop on its own thread.
int get_num_threads();
/// Sets the threads parallel kernels may use from now on (n >= 1; otherwise kindling::Error
/// "set_num_threads expects a positive integer", torch.set_num_threads(0)'s RuntimeError).
void set_num_threads(int n);

/// Elements per thread below which a loop is not split (PyTorch's at::internal::GRAIN_SIZE).
inline constexpr std::int64_t kParallelGrain = 32768;

/// One decision of the rule, as the counter records it.
struct ParallelUse {
  std::string op;         ///< the loop: "elementwise", "copy", "reduce", "rowwise", "matmul", ...
  std::int64_t work = 0;  ///< its size in the rule's unit (elements; multiply-adds for "matmul")
  int threads = 1;        ///< the threads it ran on
};
/// While on, every parallel loop of the engine, on any thread, appends its decision to a list
/// (turning it on empties the list). Off by default; when off, a loop pays one atomic read.
void record_parallel_use(bool on);
/// The decisions recorded since record_parallel_use(true), in the order they were taken.
std::vector<ParallelUse> parallel_uses();

}  // namespace kindling
