// The simulator's fixtures: each bug class in its wrong and its fixed form. Compiled twice:
// by the host compiler for the simulator (the tests run it), and by nvcc, so that every one
// of them is valid CUDA.

#include <kindling/cuda/fixtures.hpp>

namespace kindling::cuda::fixtures {

__global__ void block_sum_kernel(DevPtr<const float> x, DevPtr<float> out, int n, bool barrier) {
  __shared__ float partial[256];
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
  __shared__ float tile[64];
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
