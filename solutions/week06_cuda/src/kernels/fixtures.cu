// The simulator's fixtures: each bug class in its wrong and its fixed form. Compiled twice:
// by the host compiler for the simulator (the tests run it), and by nvcc, so that every one
// of them is valid CUDA.

#include <kindling/cuda/fixtures.hpp>

namespace kindling::cuda::fixtures {

__global__ void block_sum_kernel(DevPtr<const float> x, DevPtr<float> out, int n, bool barrier) {
  KINDLING_SHARED(float[256], partial);
  const unsigned t = threadIdx.x;
  partial[t] = static_cast<int>(t) < n ? x[t] : 0.0f;
  if (barrier) __syncthreads();
  if (t == 0) {
    float s = 0.0f;
    for (unsigned i = 0; i < blockDim.x; ++i) s += partial[i];
    out[0] = s;
  }
}
void block_sum(DevPtr<const float> x, DevPtr<float> out, int n, bool barrier) {
  launch<block_sum_kernel>(LaunchConfig{1, 256}, x, out, n, barrier);
}

__global__ void pair_sum_kernel(DevPtr<float> x, int n, bool inside_if) {
  KINDLING_SHARED(float[64], tile);
  const unsigned t = threadIdx.x;
  const int i = static_cast<int>(blockIdx.x * blockDim.x + t);
  if (inside_if) {
    if (i < n) {
      tile[t] = x[i];
      __syncthreads();
      x[i] = tile[t] + tile[t ^ 1u];
    }
    return;
  }
  if (i < n) tile[t] = x[i];
  __syncthreads();
  if (i < n) x[i] = tile[t] + tile[t ^ 1u];
}
void pair_sum(DevPtr<float> x, int n, bool inside_if) {
  launch<pair_sum_kernel>(LaunchConfig{static_cast<unsigned>((n + 63) / 64), 64}, x, n, inside_if);
}

__global__ void twice_kernel(DevPtr<const float> x, DevPtr<float> y, int n, bool off_by_one) {
  const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (off_by_one ? i <= n : i < n) y[i] = 2.0f * x[i];
}
void twice(DevPtr<const float> x, DevPtr<float> y, int n, bool off_by_one) {
  launch<twice_kernel>(LaunchConfig{static_cast<unsigned>((n + 127) / 128), 128}, x, y, n, off_by_one);
}
void twice_with_block(DevPtr<const float> x, DevPtr<float> y, int n, unsigned threads) {
  launch<twice_kernel>(LaunchConfig{static_cast<unsigned>((n + threads - 1) / threads), threads}, x, y, n, false);
}

__global__ void warp_sum_kernel(DevPtr<const float> x, DevPtr<float> out, int n, bool early_exit) {
  const int t = static_cast<int>(threadIdx.x);
  if (early_exit && t >= n) return;
  float v = t < n ? static_cast<float>(x[t]) : 0.0f;
  for (int d = 16; d > 0; d /= 2) v += __shfl_down_sync(0xffffffffu, v, static_cast<unsigned>(d));
  if (t == 0) out[0] = v;
}
void warp_sum(DevPtr<const float> x, DevPtr<float> out, int n, bool early_exit) {
  launch<warp_sum_kernel>(LaunchConfig{1, 32}, x, out, n, early_exit);
}

constexpr int kTile = 16;
__global__ void matmul_naive_kernel(DevPtr<const float> a, DevPtr<const float> b, DevPtr<float> c, int m, int k,
                                    int n) {
  const int row = static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y);
  const int col = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (row >= m || col >= n) return;
  float s = 0.0f;
  for (int p = 0; p < k; ++p) s += a[row * k + p] * b[p * n + col];
  c[row * n + col] = s;
}
void matmul_naive(DevPtr<const float> a, DevPtr<const float> b, DevPtr<float> c, int m, int k, int n) {
  const LaunchConfig cfg{
      {static_cast<unsigned>((n + kTile - 1) / kTile), static_cast<unsigned>((m + kTile - 1) / kTile)}, {kTile, kTile}};
  launch<matmul_naive_kernel>(cfg, a, b, c, m, k, n);
}

// The same loop with threadIdx.x along the rows of C: the lanes of a warp then read 16 rows of A
// (16 sectors where the naive kernel reads 2) and write 16 rows of C.
__global__ void matmul_uncoalesced_kernel(DevPtr<const float> a, DevPtr<const float> b, DevPtr<float> c, int m, int k,
                                          int n) {
  const int row = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  const int col = static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y);
  if (row >= m || col >= n) return;
  float s = 0.0f;
  for (int p = 0; p < k; ++p) s += a[row * k + p] * b[p * n + col];
  c[row * n + col] = s;
}
void matmul_uncoalesced(DevPtr<const float> a, DevPtr<const float> b, DevPtr<float> c, int m, int k, int n) {
  const LaunchConfig cfg{
      {static_cast<unsigned>((m + kTile - 1) / kTile), static_cast<unsigned>((n + kTile - 1) / kTile)}, {kTile, kTile}};
  launch<matmul_uncoalesced_kernel>(cfg, a, b, c, m, k, n);
}

__global__ void count_positive_kernel(DevPtr<const float> x, DevPtr<int> counts, DevPtr<float> sum, int n) {
  const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i >= n) return;
  const float v = x[i];
  if (v > 0.0f) atomicAdd(&counts[0], 1);
  atomicAdd(&sum[0], v);
}
void count_positive(DevPtr<const float> x, DevPtr<int> counts, DevPtr<float> sum, int n) {
  launch<count_positive_kernel>(LaunchConfig{static_cast<unsigned>((n + 63) / 64), 64}, x, counts, sum, n);
}

__global__ void reverse_blocks_kernel(DevPtr<const float> x, DevPtr<float> y, int n) {
  KINDLING_DYNAMIC_SHARED(float, buf);
  const unsigned t = threadIdx.x;
  const int base = static_cast<int>(blockIdx.x * blockDim.x);
  const int i = base + static_cast<int>(t);
  if (i < n) buf[t] = x[i];
  __syncthreads();
  const int last = (base + static_cast<int>(blockDim.x) < n ? base + static_cast<int>(blockDim.x) : n) - 1;
  const int j = last - (i - base);
  if (i < n) y[i] = buf[static_cast<unsigned>(j - base)];
}
void reverse_blocks(DevPtr<const float> x, DevPtr<float> y, int n, int shared_floats) {
  launch<reverse_blocks_kernel>(LaunchConfig{static_cast<unsigned>((n + 127) / 128), 128,
                                             static_cast<std::size_t>(shared_floats) * sizeof(float)},
                                x, y, n);
}

__global__ void ballots_kernel(DevPtr<const float> x, DevPtr<unsigned> out, int n) {
  const int i = static_cast<int>(threadIdx.x);
  const int positive = i < n && x[i] > 0.0f;
  const unsigned ballot = __ballot_sync(0xffffffffu, positive);
  const int count = __syncthreads_count(positive);
  if (i % 32 == 0) out[i / 32] = ballot;
  if (i == 0) out[blockDim.x / 32] = static_cast<unsigned>(count);
}
void ballots(DevPtr<const float> x, DevPtr<unsigned> out, int n) {
  launch<ballots_kernel>(LaunchConfig{1, 64}, x, out, n);
}
}  // namespace kindling::cuda::fixtures

namespace kindling::cuda::fixtures {
__global__ void barriers_kernel(int rounds) {
  for (int i = 0; i < rounds; ++i) __syncthreads();
}
void barriers(unsigned blocks, unsigned threads, int rounds) {
  launch<barriers_kernel>(LaunchConfig{blocks, threads}, rounds);
}
}  // namespace kindling::cuda::fixtures

namespace kindling::cuda::fixtures {
__global__ void owners_kernel(DevPtr<int> out, int n) {
  const int stride = static_cast<int>(blockDim.x * gridDim.x);
  for (int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x); i < n; i += stride)
    out[i] = static_cast<int>(blockIdx.x * 100 + threadIdx.x);
}
void owners(DevPtr<int> out, int n, unsigned blocks, unsigned threads) {
  launch<owners_kernel>(LaunchConfig{blocks, threads}, out, n);
}
}  // namespace kindling::cuda::fixtures

namespace kindling::cuda::fixtures {
__global__ void count_above_kernel(DevPtr<const float> x, DevPtr<int> count, int n, float threshold, bool atomic) {
  const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i >= n || !(x[i] > threshold)) return;
  if (atomic)
    atomicAdd(&count[0], 1);
  else
    count[0] = count[0] + 1;  // a read, then a write: another thread's update in between is lost
}
void count_above(DevPtr<const float> x, DevPtr<int> count, int n, float threshold, bool atomic) {
  launch<count_above_kernel>(LaunchConfig{static_cast<unsigned>((n + 127) / 128), 128}, x, count, n, threshold, atomic);
}

__global__ void shifted_copy_kernel(DevPtr<const float> x, DevPtr<float> y, int n, bool off_by_one) {
  KINDLING_SHARED(float[64], tile);
  const unsigned t = threadIdx.x;
  const int i = static_cast<int>(blockIdx.x * blockDim.x + t);
  const unsigned slot = off_by_one ? t + 1 : t;  // thread 63 writes tile[64], one past the end
  tile[slot] = i < n ? static_cast<float>(x[i]) : 0.0f;
  __syncthreads();
  if (i < n) y[i] = tile[slot];
}
void shifted_copy(DevPtr<const float> x, DevPtr<float> y, int n, bool off_by_one) {
  launch<shifted_copy_kernel>(LaunchConfig{static_cast<unsigned>((n + 63) / 64), 64}, x, y, n, off_by_one);
}

__global__ void ring_sum_kernel(DevPtr<const float> x, DevPtr<float> y, int n, bool fill_all) {
  KINDLING_SHARED(float[64], tile);
  const unsigned t = threadIdx.x;
  const int i = static_cast<int>(blockIdx.x * blockDim.x + t);
  if (fill_all)
    tile[t] = i < n ? static_cast<float>(x[i]) : 0.0f;
  else if (i < n)
    tile[t] = x[i];  // past the end, no thread writes its element of the tile
  __syncthreads();
  if (i < n) y[i] = tile[t] + tile[(t + 1) % 64];
}
void ring_sum(DevPtr<const float> x, DevPtr<float> y, int n, bool fill_all) {
  launch<ring_sum_kernel>(LaunchConfig{static_cast<unsigned>((n + 63) / 64), 64}, x, y, n, fill_all);
}

__global__ void rotate_twice_kernel(DevPtr<const float> x, DevPtr<float> y, bool barrier) {
  KINDLING_SHARED(float[64], tile);
  const unsigned t = threadIdx.x;
  tile[t] = x[t];
  __syncthreads();
  const float v = tile[(t + 1) % 64];
  if (barrier) __syncthreads();  // without it, thread t overwrites tile[t] while thread t - 1 may still read it
  tile[t] = v;
  __syncthreads();
  y[t] = tile[(t + 1) % 64];
}
void rotate_twice(DevPtr<const float> x, DevPtr<float> y, bool barrier) {
  launch<rotate_twice_kernel>(LaunchConfig{1, 64}, x, y, barrier);
}
}  // namespace kindling::cuda::fixtures

namespace kindling::cuda::fixtures {
__global__ void divide_kernel(DevPtr<const int> x, DevPtr<int> y, int n, int numerator) {
  const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i < n) y[i] = numerator / static_cast<int>(x[i]);  // a zero in x: SIGFPE on the host, garbage on a GPU
}
void divide(DevPtr<const int> x, DevPtr<int> y, int n, int numerator) {
  launch<divide_kernel>(LaunchConfig{static_cast<unsigned>((n + 31) / 32), 32}, x, y, n, numerator);
}
}  // namespace kindling::cuda::fixtures

namespace kindling::cuda::fixtures {
__global__ void gather_kernel(DevPtr<const float> x, DevPtr<float> y, int stride) {
  const int t = static_cast<int>(threadIdx.x);
  y[t] = x[t * stride];
}
void gather(DevPtr<const float> x, DevPtr<float> y, int stride) {
  launch<gather_kernel>(LaunchConfig{1, 32}, x, y, stride);
}

__global__ void shared_column_kernel(DevPtr<const float> x, DevPtr<float> y, int pitch) {
  KINDLING_SHARED(float[32 * 33], tile);
  const int t = static_cast<int>(threadIdx.x);
  tile[t * pitch] = x[t];
  __syncthreads();
  y[t] = tile[t * pitch];
}
void shared_column(DevPtr<const float> x, DevPtr<float> y, int pitch) {
  launch<shared_column_kernel>(LaunchConfig{1, 32}, x, y, pitch);
}

__global__ void transpose_naive_kernel(DevPtr<const float> in, DevPtr<float> out, int rows, int cols) {
  const int c = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  const int r = static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y);
  if (r < rows && c < cols) out[std::int64_t{c} * rows + r] = in[std::int64_t{r} * cols + c];
}
void transpose_naive(DevPtr<const float> in, DevPtr<float> out, int rows, int cols) {
  if (rows == 0 || cols == 0) return;
  const Dim3 grid(static_cast<unsigned>((cols + 31) / 32), static_cast<unsigned>((rows + 7) / 8));
  launch<transpose_naive_kernel>(LaunchConfig{grid, Dim3(32, 8)}, in, out, rows, cols);
}

__global__ void copy_float4_kernel(DevPtr<const float> x, DevPtr<float> y, int offset, int stride) {
  const int t = static_cast<int>(threadIdx.x);
  as_float4(y + 4 * t)[0] = as_float4(x + (offset + 4 * t * stride))[0];
}
void copy_float4(DevPtr<const float> x, DevPtr<float> y, int offset, int stride) {
  launch<copy_float4_kernel>(LaunchConfig{1, 32}, x, y, offset, stride);
}

__global__ void shared_float4_kernel(DevPtr<const float> x, DevPtr<float> y, int pitch) {
  KINDLING_SHARED(float[32 * 8 * 4], tile);
  const int t = static_cast<int>(threadIdx.x);
  as_float4(&tile[4 * t * pitch])[0] = as_float4(x + 4 * t)[0];
  __syncthreads();
  as_float4(y + 4 * t)[0] = as_float4(&tile[4 * t * pitch])[0];
}
void shared_float4(DevPtr<const float> x, DevPtr<float> y, int pitch) {
  launch<shared_float4_kernel>(LaunchConfig{1, 32}, x, y, pitch);
}

__global__ void float4_pair_race_kernel(DevPtr<float> y, bool same) {
  const int t = static_cast<int>(threadIdx.x);
  const float v = same ? 1.0f : static_cast<float>(t);
  as_float4(y + 4 * (t / 2))[0] = make_float4(v, v, v, v);
}
void float4_pair_race(DevPtr<float> y, bool same) { launch<float4_pair_race_kernel>(LaunchConfig{1, 32}, y, same); }
}  // namespace kindling::cuda::fixtures
