#pragma once
// Week 6's task kernels as nvcc built them, for host-compiled GPU tests and benchmarks. The tasks'
// own functions (kindling/cuda/kernels.hpp) take DevPtr<T>: a checked pointer class for the host
// compiler (the simulator's build) and a plain T* only under nvcc, so a host-compiled caller would
// name the simulator's build. These wrappers are compiled by nvcc (task_kernels.cu) and take plain
// device pointers; each launches on the default stream and returns without waiting.

#include <cstdint>

namespace kindling::gpu {

/// week06.elementwise_kernel: y = a x + y.
void axpy(float a, const float* x, float* y, std::int64_t n);
/// week06.block_reduce: out[r] = the sum of row r.
void row_sums_shared(const float* x, float* out, int rows, int cols);
/// week06.warp_reduce: the same with warp shuffles.
void row_sums_warp(const float* x, float* out, int rows, int cols);
/// week06.row_softmax.
void softmax_rows(const float* x, float* y, int rows, int cols);
/// week06.tiled_gemm: C = A B, row-major.
void matmul_tiled(const float* a, const float* b, float* c, int m, int k, int n);
/// week06.register_gemm: C = A B with 2-D register blocking.
void matmul_register_blocked(const float* a, const float* b, float* c, int m, int k, int n);
/// week06.warp_tiled_gemm: float4 access, double-buffered tiles, warp tiles (k, n multiples of 4).
void matmul_warp_tiled(const float* a, const float* b, float* c, int m, int k, int n);
/// week06.transpose: out (cols x rows) = in^T, in's rows ld floats apart.
void transpose(const float* in, float* out, int rows, int cols, int ld);
/// The simulator's naive fixture (one thread per element of C), the first step of the GEMM ladder.
void matmul_naive(const float* a, const float* b, float* c, int m, int k, int n);

}  // namespace kindling::gpu
