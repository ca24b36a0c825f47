// Week 6's task kernels with plain device pointers (task_kernels.hpp): nvcc compiles this file, so
// DevPtr<T> is T* here and each call names the device build of the task.

#include "task_kernels.hpp"

#include <kindling/cuda/fixtures.hpp>
#include <kindling/cuda/kernels.hpp>

namespace kindling::gpu {

void axpy(float a, const float* x, float* y, std::int64_t n) { cuda::axpy(a, x, y, n); }
void row_sums_shared(const float* x, float* out, int rows, int cols) { cuda::row_sums_shared(x, out, rows, cols); }
void row_sums_warp(const float* x, float* out, int rows, int cols) { cuda::row_sums_warp(x, out, rows, cols); }
void softmax_rows(const float* x, float* y, int rows, int cols) { cuda::softmax_rows(x, y, rows, cols); }
void matmul_tiled(const float* a, const float* b, float* c, int m, int k, int n) {
  cuda::matmul_tiled(a, b, c, m, k, n);
}
void matmul_register_blocked(const float* a, const float* b, float* c, int m, int k, int n) {
  cuda::matmul_register_blocked(a, b, c, m, k, n);
}
void matmul_warp_tiled(const float* a, const float* b, float* c, int m, int k, int n) {
  cuda::matmul_warp_tiled(a, b, c, m, k, n);
}
void transpose(const float* in, float* out, int rows, int cols, int ld) { cuda::transpose(in, out, rows, cols, ld); }
void matmul_naive(const float* a, const float* b, float* c, int m, int k, int n) {
  cuda::fixtures::matmul_naive(a, b, c, m, k, n);
}

}  // namespace kindling::gpu
