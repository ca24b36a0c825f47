// MUTANT: the row step of in is cols, not ld: a matrix inside a wider one is read from the wrong places
// Task week06.transpose. The doc comment above each function is its contract; your code goes
// between BEGIN and END (two regions: the kernel and its launch). Hints, one at a time:
// `./grade hint week06.transpose`.
//
// The grade reads the simulator's memory counters (exact, the same on every run): the 32-byte
// sectors your warps touch in global memory against the fewest their bytes need, and the bank
// conflicts of your shared-memory accesses.

#include <kindling/cuda/kernels.hpp>
#include <kindling/error.hpp>  // KINDLING_TODO, which the worksheet's stubs call

namespace kindling::cuda {

/// The kernel: block (blockIdx.x, blockIdx.y), of kTransposeTile x kTransposeRows threads, moves
/// the kTransposeTile x kTransposeTile tile of `in` at rows blockIdx.y * kTransposeTile..,
/// columns blockIdx.x * kTransposeTile.. to its place in `out` through one array of shared memory
/// (`KINDLING_SHARED(float[R][C], tile);`, which is `__shared__ float tile[R][C];` under nvcc and
/// a checked array on the simulator). Row r of `in` starts at in + r * ld. Each warp's reads from
/// `in` and its writes to `out` are each 32 consecutive floats, and no two lanes of a warp touch
/// one bank of shared memory with different words.
__global__ void transpose_kernel(DevPtr<const float> in, DevPtr<float> out, int rows, int cols, int ld) {
  // BEGIN SOLUTION week06.transpose
  // STUB: (void)in, (void)out, (void)rows, (void)cols, (void)ld;  // your kernel's body
  // One column of padding: row r of the tile starts at word 33 r, so a column's 32 words fall in
  // 32 different banks (without it, all in one: a 32-way conflict on every read of a column).
  KINDLING_SHARED(float[kTransposeTile][kTransposeTile + 1], tile);
  (void)ld;
  const int tx = static_cast<int>(threadIdx.x), ty = static_cast<int>(threadIdx.y);
  const int row0 = static_cast<int>(blockIdx.y) * kTransposeTile, col0 = static_cast<int>(blockIdx.x) * kTransposeTile;
  // Read: a warp (one value of ty) reads 32 consecutive floats of a row of `in`.
  for (int j = ty; j < kTransposeTile; j += kTransposeRows)
    if (row0 + j < rows && col0 + tx < cols) tile[j][tx] = in[std::int64_t{row0 + j} * cols + col0 + tx];
  __syncthreads();
  // Write: row c of `out` is column c of `in`; a warp writes 32 consecutive floats of it, read
  // down a column of the tile.
  for (int j = ty; j < kTransposeTile; j += kTransposeRows)
    if (col0 + j < cols && row0 + tx < rows) out[std::int64_t{col0 + j} * rows + row0 + tx] = tile[tx][j];
  // END SOLUTION
}

/// The launch (kernels.hpp has the whole contract): checks its arguments (an Error for negative
/// sizes or ld < cols) before anything else, then launches blocks of
/// kTransposeTile x kTransposeRows threads, a grid of ceil(cols / kTransposeTile) x
/// ceil(rows / kTransposeTile), on `stream`; rows or cols = 0 launches nothing.
void transpose(DevPtr<const float> in, DevPtr<float> out, int rows, int cols, int ld, Stream stream) {
  // BEGIN SOLUTION week06.transpose
  KINDLING_CHECK(rows >= 0 && cols >= 0, "transpose: rows and cols must not be negative, got ", rows, " and ", cols);
  KINDLING_CHECK(ld >= cols, "transpose: ld (", ld, ") is less than cols (", cols, "): the rows of in would overlap");
  if (rows == 0 || cols == 0) return;
  const Dim3 grid(static_cast<unsigned>((cols + kTransposeTile - 1) / kTransposeTile),
                  static_cast<unsigned>((rows + kTransposeTile - 1) / kTransposeTile));
  launch<transpose_kernel>(LaunchConfig{grid, Dim3(kTransposeTile, kTransposeRows), 0, stream}, in, out, rows, cols,
                           ld);
  // END SOLUTION
}

}  // namespace kindling::cuda
