#pragma once
/// @file fixtures.hpp
/// The simulator's fixtures: for each class of bug a student writes in a kernel, the wrong form
/// and the fixed one (src/kernels/fixtures.cu), launched by these host functions. The simulator's
/// tests, the week's lecture and its benchmark run them.

#include <kindling/cuda/kernel.hpp>

namespace kindling::cuda::fixtures {

/// Sums x[0, n) with one block of 256 threads into out[0]; `barrier` false leaves out the
/// __syncthreads between writing the shared partial sums and thread 0 reading them.
void block_sum(DevPtr<const float> x, DevPtr<float> out, int n, bool barrier);
/// x[i] = x[i] + x[i ^ 1] through shared memory, blocks of 64; `inside_if` puts the
/// __syncthreads inside `if (i < n)`.
void pair_sum(DevPtr<float> x, int n, bool inside_if);
/// y[i] = 2 x[i] for i in [0, n); `off_by_one` guards with i <= n.
void twice(DevPtr<const float> x, DevPtr<float> y, int n, bool off_by_one);
/// The sum of x[0, n) (n <= 32) by a warp of 32 lanes with __shfl_down_sync; `early_exit`
/// returns lanes n.. before the shuffles, which still name all 32 lanes.
void warp_sum(DevPtr<const float> x, DevPtr<float> out, int n, bool early_exit);
/// C (m x n) = A (m x k) B (k x n), row-major, one thread per output reading its row of A and its
/// column of B from global memory (2 m n k loads): the baseline the tiled kernels are measured
/// against (week06.tiled_gemm's tiles are the student's to write, and the engine's own GEMM,
/// src/kernels/gemm.cu, is tiled).
void matmul_naive(DevPtr<const float> a, DevPtr<const float> b, DevPtr<float> c, int m, int k, int n);
/// counts[0] += the number of x[i] > 0, with atomicAdd from every thread; sum[0] += x[i].
void count_positive(DevPtr<const float> x, DevPtr<int> counts, DevPtr<float> sum, int n);
/// y[i] = x[n - 1 - i] within each block of 128 through dynamic shared memory of
/// `shared_floats` floats (128 is enough).
void reverse_blocks(DevPtr<const float> x, DevPtr<float> y, int n, int shared_floats);
/// out[w] = the ballot of (x[i] > 0) of warp w, and __syncthreads_count's count into out[warps].
void ballots(DevPtr<const float> x, DevPtr<unsigned> out, int n);
/// `rounds` __syncthreads in every thread of `blocks` blocks of `threads` (the cost of a switch).
void barriers(unsigned blocks, unsigned threads, int rounds);
/// Launches `twice` with `threads` threads per block (to test the launch checks).
void twice_with_block(DevPtr<const float> x, DevPtr<float> y, int n, unsigned threads);
/// out[i] = 100 * blockIdx.x + threadIdx.x of the thread that handles element i, for a grid-stride
/// loop over n elements with `blocks` blocks of `threads` threads (the lecture draws it).
void owners(DevPtr<int> out, int n, unsigned blocks, unsigned threads);
}  // namespace kindling::cuda::fixtures
