#pragma once
/// @file kernels.hpp
/// Week 6's kernels and the host functions around them: axpy (the task
/// week06.elementwise_kernel), compact (week06.strided_contiguous), the pipeline of
/// asynchronous copies (week06.async_overlap), scale (the kit's own kernel that the pipeline
/// runs), the row reductions (week06.block_reduce, week06.warp_reduce), the row softmax
/// (week06.row_softmax), three matrix products (week06.tiled_gemm, week06.register_gemm,
/// week06.warp_tiled_gemm) and a transpose (week06.transpose).

#include <cstdint>
#include <vector>

#include <kindling/cuda/caching_allocator.hpp>
#include <kindling/cuda/kernel.hpp>
#include <kindling/cuda/runtime.hpp>
#include <kindling/tensor.hpp>

namespace kindling::cuda {

/// Threads per block of axpy's launch.
inline constexpr unsigned kAxpyThreads = 256;
#if defined(__CUDACC__)
/// The most blocks axpy launches: a larger n is covered by a grid-stride loop. On a GPU, enough
/// blocks to keep every multiprocessor busy many times over (an H200 has 132; 64 blocks of 256
/// threads reached a tenth of its copy bandwidth, 445 of 4,100 GB/s).
inline constexpr unsigned kAxpyMaxBlocks = 4096;
#else
/// The most blocks axpy launches: a larger n is covered by a grid-stride loop. The simulator runs
/// each thread as a fiber, so fewer, longer threads (a GPU build allows 4096 blocks).
inline constexpr unsigned kAxpyMaxBlocks = 64;
#endif

/// y[i] = a * x[i] + y[i] for every i in [0, n), on the GPU (the task week06.elementwise_kernel).
/// Launches on `stream` min(ceil(n / kAxpyThreads), kAxpyMaxBlocks) blocks (at least 1) of
/// kAxpyThreads threads; each thread handles the elements i = its global index, then that plus
/// the total number of threads of the grid, and so on (a grid-stride loop), and touches no
/// element at or past n. n = 0 launches nothing.
void axpy(float a, DevPtr<const float> x, DevPtr<float> y, std::int64_t n, Stream stream = nullptr);

/// The most dimensions compact() handles.
inline constexpr int kCompactMaxDims = 8;

/// A strided tensor's layout, passed to the compact kernel by value.
struct CompactLayout {
  int ndim = 0;                                ///< dimensions
  std::int64_t sizes[kCompactMaxDims] = {};    ///< size of each dimension
  std::int64_t strides[kCompactMaxDims] = {};  ///< stride of each dimension, in elements
  std::int64_t offset = 0;                     ///< storage offset of element (0, ..., 0), in elements
};

/// A row-major (contiguous) copy of the float32 GPU tensor `x`, whatever its strides and
/// storage offset (a transpose, a step slice, an expand), made by a kernel that reads
/// element i of the result (in row-major order) from where x keeps it (the task
/// week06.strided_contiguous; needle's Compact). Refuses, with an Error, a tensor that is not
/// float32, not on the GPU, or of more than kCompactMaxDims dimensions.
Tensor compact(const Tensor& x);

/// y[i] = s * x[i] for i in [0, n), on `stream` (the kit's kernel, for the pipeline).
void scale(DevPtr<const float> x, DevPtr<float> y, float s, std::int64_t n, Stream stream);

/// out[k] = s * batches[k] for every k, computed on the GPU (runtime()) with the next batch's
/// copy overlapping this batch's work (the task week06.async_overlap). `batches` and `out`
/// are pinned, contiguous float32 CPU tensors, all of the same numel.
void pipelined_scale(const std::vector<Tensor>& batches, const std::vector<Tensor>& out, float s);

/// Threads per block of the row reductions and of the row softmax (one block per row).
inline constexpr unsigned kRowThreads = 256;

/// out[r] = the sum of row r of x, for each r in [0, rows): x is row-major, rows x cols (the
/// task week06.block_reduce). One block per row, of kRowThreads threads, with kRowThreads
/// floats of dynamic shared memory (KINDLING_DYNAMIC_SHARED). Each thread adds up the elements
/// of the row it owns (columns t, t + kRowThreads, ...) and leaves its partial sum in shared
/// memory; the block then combines the partial sums in shared memory as a tree (pairs, then
/// pairs of pairs, ...; the last levels may be warp shuffles), so that no thread reads more than
/// about 2 log2(kRowThreads) partial sums (the simulator counts each thread's reads), and thread
/// 0 writes the total. A row of no columns sums to 0; rows = 0 launches nothing. The result must
/// not depend on the order in which the threads run, and no two threads may touch a value
/// without a barrier between them (the simulator reports either as a race).
void row_sums_shared(DevPtr<const float> x, DevPtr<float> out, int rows, int cols, Stream stream = nullptr);

/// row_sums_shared's result with warp shuffles in place of most of the shared memory (the task
/// week06.warp_reduce): one block per row, of kRowThreads threads, with kRowThreads / 32 floats
/// of dynamic shared memory. Each warp combines its 32 partial sums with __shfl_*_sync (in
/// registers, no barrier); one value per warp goes through shared memory, and the block waits
/// at a single __syncthreads before the first warp combines those. Per block: exactly one
/// __syncthreads and at most kRowThreads / 32 stores to shared memory (the simulator counts both).
void row_sums_warp(DevPtr<const float> x, DevPtr<float> out, int rows, int cols, Stream stream = nullptr);

/// y = softmax of each row of x (rows x cols, row-major): y[r][j] = exp(x[r][j] - m) / sum over
/// j' of exp(x[r][j'] - m), with m the maximum of row r, so that no exp overflows however large
/// the inputs (the task week06.row_softmax). One block per row, of kRowThreads threads, with
/// kRowThreads floats of dynamic shared memory for the block's two reductions (the maximum,
/// then the sum). The maximum is the whole row's (every column, not the first warp's). A row
/// containing NaN or +inf gives NaN throughout (inf - inf is NaN); a row of -inf only gives NaN,
/// as in PyTorch.
void softmax_rows(DevPtr<const float> x, DevPtr<float> y, int rows, int cols, Stream stream = nullptr);

/// The side of the tiles of matmul_tiled.
inline constexpr int kTile = 16;

/// C = A B for row-major A (m x k), B (k x n) and C (m x n), through shared memory (the task
/// week06.tiled_gemm). Blocks of kTile x kTile threads (threadIdx.x along the columns of C),
/// a grid of ceil(n / kTile) x ceil(m / kTile) blocks; block (bx, by) computes the tile of C at
/// rows by * kTile.., columns bx * kTile... It walks along k one tile at a time: the block copies
/// the kTile x kTile tile of A and the one of B it needs into shared memory (each thread one
/// element of each; 0 for an element outside the matrices), waits, multiplies the tiles, and
/// waits again before the next copy. Each element of A and B is then read from global memory
/// once per tile of C that needs it: kTile times less than one thread per element of C reading
/// its whole row and column. m, n or k = 0 is allowed (k = 0 gives zeros).
void matmul_tiled(DevPtr<const float> a, DevPtr<const float> b, DevPtr<float> c, int m, int k, int n,
                  Stream stream = nullptr);

/// The block tile of matmul_register_blocked: kBlockM x kBlockN outputs per block, kBlockK
/// columns of A (rows of B) per step.
inline constexpr int kBlockM = 128;
/// See kBlockM.
inline constexpr int kBlockN = 128;
/// See kBlockM.
inline constexpr int kBlockK = 8;
/// The outputs each thread accumulates in registers: kThreadM x kThreadN.
inline constexpr int kThreadM = 8;
/// See kThreadM.
inline constexpr int kThreadN = 8;
/// Threads per block of matmul_register_blocked: (kBlockM / kThreadM) x (kBlockN / kThreadN).
inline constexpr unsigned kRegisterThreads = (kBlockM / kThreadM) * (kBlockN / kThreadN);

/// C = A B (row-major, as matmul_tiled) with 2-D register blocking (the task
/// week06.register_gemm). Blocks of kRegisterThreads threads (one dimension), a grid of
/// ceil(n / kBlockN) x ceil(m / kBlockM); block (bx, by) computes the kBlockM x kBlockN tile of C
/// at rows by * kBlockM.., columns bx * kBlockN... Each step along k copies a kBlockM x kBlockK
/// tile of A and a kBlockK x kBlockN tile of B into shared memory (0 outside the matrices); each
/// thread then accumulates a kThreadM x kThreadN block of outputs in registers, reading kThreadM
/// values of A and kThreadN of B from shared memory for each of the kBlockK products. Global
/// loads: 8 times fewer than matmul_tiled's; its points for speed (against cuBLAS) need a GPU.
void matmul_register_blocked(DevPtr<const float> a, DevPtr<const float> b, DevPtr<float> c, int m, int k, int n,
                             Stream stream = nullptr);

/// out[o, index[j], i] += src[o, j, i] for every o < outer, j < count, i < inner, with the same bits
/// on every run (the task week06.ordered_index_add; the engine's index_add on float and double
/// `cuda` tensors under use_deterministic_algorithms(true)). `out` is [outer, size, inner] and `src`
/// [outer, count, inner], contiguous; `index` holds `count` entries in [0, size), which may repeat
/// (their values then add up). Every element of out receives its additions in the order j = 0, 1,
/// ..., the CPU's order, whatever order the GPU runs the threads in: the result is the CPU's bit
/// for bit. Launches on `stream` blocks of kIndexAddThreads threads; outer * inner = 0 or count = 0
/// launches nothing.
template <class T>
void index_add_ordered(DevPtr<T> out, DevPtr<const T> src, DevPtr<const std::int64_t> index, std::int64_t outer,
                       std::int64_t size, std::int64_t count, std::int64_t inner, Stream stream = nullptr);
/// Threads per block of index_add_ordered.
inline constexpr unsigned kIndexAddThreads = 256;

/// The block tile of matmul_warp_tiled: kWarpBlockM x kWarpBlockN outputs per block, kWarpBlockK
/// columns of A (rows of B) per step.
inline constexpr int kWarpBlockM = 128;
/// See kWarpBlockM.
inline constexpr int kWarpBlockN = 128;
/// See kWarpBlockM.
inline constexpr int kWarpBlockK = 8;
/// The part of the block tile that one warp computes: kWarpTileM x kWarpTileN outputs, 8 x 8 per
/// lane.
inline constexpr int kWarpTileM = 64;
/// See kWarpTileM.
inline constexpr int kWarpTileN = 32;
/// Threads per block of matmul_warp_tiled: one warp per warp tile of the block tile.
inline constexpr unsigned kWarpTiledThreads = 32 * (kWarpBlockM / kWarpTileM) * (kWarpBlockN / kWarpTileN);

/// C = A B (row-major, as matmul_tiled) the way fast fp32 kernels do it (the task
/// week06.warp_tiled_gemm, the stretch step after register_gemm). Blocks of kWarpTiledThreads
/// threads (one dimension), a grid of ceil(n / kWarpBlockN) x ceil(m / kWarpBlockM); block (bx, by)
/// computes the kWarpBlockM x kWarpBlockN tile of C at rows by * kWarpBlockM.., columns
/// bx * kWarpBlockN... Three things on top of register_gemm, each visible in the simulator's
/// counters (sim::Counters):
/// - **vector access**: every load from A and B, every store to C and every read of the shared
///   tiles moves a float4 (`as_float4`): a quarter of the instructions;
/// - **double buffering**: two copies of each shared tile; while the block multiplies one, its
///   threads copy the next step's tiles into the other, so that one __syncthreads per step along
///   k suffices (register_gemm needs two);
/// - **warp tiling**: warp w computes one kWarpTileM x kWarpTileN part of the block tile, 8 x 8
///   outputs per lane, and no two lanes of a warp read one shared-memory bank with different words
///   (zero bank conflicts, the stores into the tiles included).
/// The global sectors stay within 1.1 times the fewest (where k is a multiple of 8). Requires k
/// and n multiples of 4 (an Error otherwise, before any launch), so that a float4 never straddles
/// a row's end, and a, b and c on 16-byte boundaries (cudaMalloc's are on 256; a misaligned float4
/// access is a KernelError on the simulator and a fault on a GPU). Any m >= 0; m or n = 0
/// launches nothing; k = 0 gives zeros.
void matmul_warp_tiled(DevPtr<const float> a, DevPtr<const float> b, DevPtr<float> c, int m, int k, int n,
                       Stream stream = nullptr);

/// The side of transpose's square tiles.
inline constexpr int kTransposeTile = 32;
/// The rows of threads in a block of transpose: each thread moves kTransposeTile / kTransposeRows
/// elements of its tile.
inline constexpr int kTransposeRows = 8;

/// out = the transpose of in (the task week06.transpose): `in` is rows x cols with row r starting
/// at in + r * ld (ld >= cols: a matrix inside a wider one), `out` is cols x rows, row-major
/// (out[c * rows + r] = in[r * ld + c]). Blocks of kTransposeTile x kTransposeRows threads, a grid
/// of ceil(cols / kTransposeTile) x ceil(rows / kTransposeTile); block (bx, by) moves the tile of
/// `in` at rows by * kTransposeTile.., columns bx * kTransposeTile.. through shared memory, so that
/// both its reads of `in` and its writes to `out` are coalesced: where the rows of both matrices
/// start on 32-byte sectors (ld and rows multiples of 8), the global sectors the launch touches
/// stay within 1.1 times the fewest its bytes need (fixtures::transpose_naive, which reads rows
/// and writes columns straight from global memory, touches 4.5 times as many), with no
/// shared-memory bank conflicts (the simulator counts both: sim::Counters). Touches nothing outside the two
/// matrices (nor in's elements between cols and ld). rows or cols = 0 launches nothing; negative
/// sizes and ld < cols are an Error, before any launch.
void transpose(DevPtr<const float> in, DevPtr<float> out, int rows, int cols, int ld, Stream stream = nullptr);

}  // namespace kindling::cuda
