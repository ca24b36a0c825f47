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
/// matmul_naive's product with threadIdx.x along the rows of C instead of its columns: the same
/// loads, and several times the sectors (the uncoalesced first step of the GEMM progression).
void matmul_uncoalesced(DevPtr<const float> a, DevPtr<const float> b, DevPtr<float> c, int m, int k, int n);
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
/// count[0] += the number of x[i] > threshold, blocks of 128; `atomic` false writes
/// `count[0] = count[0] + 1`, a lost update on a GPU (a data race here).
void count_above(DevPtr<const float> x, DevPtr<int> count, int n, float threshold, bool atomic);
/// y[i] = x[i] through a static shared array of 64 floats, blocks of 64; `off_by_one` stores
/// thread t's value at tile[t + 1], so thread 63 writes one past the end.
void shifted_copy(DevPtr<const float> x, DevPtr<float> y, int n, bool off_by_one);
/// y[i] = x[i] + x[next in the block, wrapping], through a static shared array, blocks of 64;
/// `fill_all` false leaves the tile's elements past the end of x unwritten, which the last
/// element of x then reads.
void ring_sum(DevPtr<const float> x, DevPtr<float> y, int n, bool fill_all);
/// One block of 64: y[t] = x[(t + 2) % 64], by rotating a shared tile by one twice; `barrier`
/// false leaves out the __syncthreads between reading the tile and overwriting it.
void rotate_twice(DevPtr<const float> x, DevPtr<float> y, bool barrier);
/// y[i] = numerator / x[i] in integers, blocks of 32: a zero in x is a division by zero, which
/// kills the process with SIGFPE on the simulator (the simulator first names the kernel, block and
/// thread) and gives an undefined value on a GPU.
void divide(DevPtr<const int> x, DevPtr<int> y, int n, int numerator);
/// One warp: y[t] = x[t * stride] (stride 1 is coalesced: the warp's 32 floats lie in 4 sectors;
/// stride 32 puts each in a sector of its own).
void gather(DevPtr<const float> x, DevPtr<float> y, int stride);
/// One warp: y[t] = x[t] through a shared array at tile[t * pitch] (pitch 32 puts every lane in
/// bank 0, a 32-way conflict; pitch 33, a padded column, in 32 banks).
void shared_column(DevPtr<const float> x, DevPtr<float> y, int pitch);
/// out (cols x rows) = the transpose of in (rows x cols, both row-major), one thread per element
/// straight from global memory: a warp reads 32 consecutive floats of a row of `in` (4 sectors)
/// and writes them down a column of `out` (32 sectors). The baseline of week06.transpose.
void transpose_naive(DevPtr<const float> in, DevPtr<float> out, int rows, int cols);
/// One warp of float4s: lane t copies the float4 at x + offset + 4 t * stride to y + 4 t (offset in
/// floats: 1 makes every float4 start 4 bytes past a 16-byte boundary, a misaligned address).
void copy_float4(DevPtr<const float> x, DevPtr<float> y, int offset, int stride);
/// One warp: lane t stores x's float4 t at float4 t * pitch of a shared array, waits, reads it
/// back into y (a float4 access is served 8 lanes at a time: pitch 1 has no bank conflict, pitch 2
/// two ways in each of the four phases, pitch 8 eight ways).
void shared_float4(DevPtr<const float> x, DevPtr<float> y, int pitch);
/// One warp: lanes 2 p and 2 p + 1 both write the float4 at y + 4 p, with no barrier between:
/// different values (a write-after-write race on each of its floats), or, when `same` is true,
/// the same values (no race: every order gives the same result).
void float4_pair_race(DevPtr<float> y, bool same);
}  // namespace kindling::cuda::fixtures
