// The engine's matrix product on the device: C[z] = alpha A[z] B[z] (+ C[z]), any strides, a batch
// along the grid's z. The device build calls cuBLAS wherever each matrix has a unit stride (as
// PyTorch does); the kit's own kernel (16 x 16 tiles through shared memory) runs everything else,
// and everything on the simulator. One source for nvcc and the simulator.

#include "common.hpp"

#if defined(__CUDACC__)
#include <cublas_v2.h>

#include <kindling/cuda/runtime.hpp>
#endif

namespace kindling::cuda::kernels {
namespace {

constexpr int kSide = 16;

template <class T>
__global__ void gemm_kernel(DevPtr<T> c, DevPtr<const T> a, DevPtr<const T> b, GemmLayout L, T alpha, bool accumulate) {
  const int ty = static_cast<int>(threadIdx.y), tx = static_cast<int>(threadIdx.x);
  const std::int64_t z = blockIdx.z;
  const std::int64_t row = std::int64_t{blockIdx.y} * kSide + ty;
  const std::int64_t col = std::int64_t{blockIdx.x} * kSide + tx;
  const std::int64_t a0 = L.a_offset + z * L.a_batch, b0 = L.b_offset + z * L.b_batch;
  T s = 0;
  // (The reference engine does this as task week06.tiled_gemm asks; the
  // worksheet's engine has a plainer form here, so that it gives no task's answer.)
  if (row < L.m && col < L.n)
    for (std::int64_t p = 0; p < L.k; ++p)
      s += static_cast<T>(a[a0 + row * L.a_row + p * L.a_col]) * static_cast<T>(b[b0 + p * L.b_row + col * L.b_col]);
  if (row < L.m && col < L.n) {
    const std::int64_t at = L.c_offset + z * L.c_batch + row * L.c_row + col * L.c_col;
    const T v = alpha * s;
    if (accumulate)
      c[at] = static_cast<T>(static_cast<T>(c[at]) + v);
    else
      c[at] = v;
  }
}

// Split-k: block (x, y, z * kSplitK + s) computes the tile's partial sums over k-slice s (whole tiles
// of kSide) into partial[z * kSplitK + s] (m x n, row-major); split_k_sum adds the slices in order.
template <class T>
__global__ void gemm_split_k_kernel(DevPtr<T> partial, DevPtr<const T> a, DevPtr<const T> b, GemmLayout L) {
  const int ty = static_cast<int>(threadIdx.y), tx = static_cast<int>(threadIdx.x);
  const std::int64_t z = blockIdx.z / kSplitK, slice = blockIdx.z % kSplitK;
  const std::int64_t row = std::int64_t{blockIdx.y} * kSide + ty;
  const std::int64_t col = std::int64_t{blockIdx.x} * kSide + tx;
  const std::int64_t a0 = L.a_offset + z * L.a_batch, b0 = L.b_offset + z * L.b_batch;
  const std::int64_t tiles = (L.k + kSide - 1) / kSide, per_slice = (tiles + kSplitK - 1) / kSplitK;
  const std::int64_t k_begin = slice * per_slice * kSide;
  const std::int64_t k_end = k_begin + per_slice * kSide < L.k ? k_begin + per_slice * kSide : L.k;
  T s = 0;
  // (The reference engine does this as task week06.tiled_gemm asks; the
  // worksheet's engine has a plainer form here, so that it gives no task's answer.)
  if (row < L.m && col < L.n)
    for (std::int64_t p = k_begin; p < k_end; ++p)
      s += static_cast<T>(a[a0 + row * L.a_row + p * L.a_col]) * static_cast<T>(b[b0 + p * L.b_row + col * L.b_col]);
  if (row < L.m && col < L.n) partial[(std::int64_t{blockIdx.z} * L.m + row) * L.n + col] = s;
}

template <class T>
__global__ void split_k_sum_kernel(DevPtr<T> c, DevPtr<const T> partial, GemmLayout L, T alpha, bool accumulate) {
  const std::int64_t total = L.batch * L.m * L.n, stride = std::int64_t{blockDim.x} * gridDim.x;
  for (std::int64_t e = std::int64_t{blockIdx.x} * blockDim.x + threadIdx.x; e < total; e += stride) {
    const std::int64_t col = e % L.n, row = e / L.n % L.m, z = e / (L.n * L.m);
    T s = 0;
    for (int slice = 0; slice < kSplitK; ++slice)
      s += static_cast<T>(partial[((z * kSplitK + slice) * L.m + row) * L.n + col]);
    const std::int64_t at = L.c_offset + z * L.c_batch + row * L.c_row + col * L.c_col;
    const T v = alpha * s;
    if (accumulate)
      c[at] = static_cast<T>(static_cast<T>(c[at]) + v);
    else
      c[at] = v;
  }
}

template <class T>
void launch_split_k(const void* c, const void* a, const void* b, void* workspace, const GemmLayout& layout, T alpha,
                    bool accumulate, void* stream) {
  const LaunchConfig tiles{
      Dim3(static_cast<unsigned>((layout.n + kSide - 1) / kSide), static_cast<unsigned>((layout.m + kSide - 1) / kSide),
           static_cast<unsigned>(layout.batch * kSplitK)),
      Dim3(kSide, kSide), 0, stream};
  launch<gemm_split_k_kernel<T>>(tiles, device_ptr<T>(workspace), device_ptr<const T>(a), device_ptr<const T>(b),
                                 layout);
  launch<split_k_sum_kernel<T>>(config_for(layout.batch * layout.m * layout.n, stream), device_ptr<T>(c),
                                device_ptr<const T>(workspace), layout, alpha, accumulate);
}

#if defined(__CUDACC__)
// One cuBLAS handle for the process (created at the first product, never destroyed: tensors may be
// freed after main).
cublasHandle_t cublas_handle() {
  static cublasHandle_t handle = [] {
    cublasHandle_t h = nullptr;
    const cublasStatus_t s = cublasCreate(&h);
    if (s != CUBLAS_STATUS_SUCCESS) throw CudaError(std::string("cublasCreate: ") + cublasGetStatusString(s));
    return h;
  }();
  return handle;
}

// A matrix of `rows` x `cols` with strides (row, col), as cuBLAS (column-major) takes it: op N with
// leading dimension `row` when the columns are contiguous (row-major), op T with leading dimension
// `col` when the rows are (a transposed view). False when neither stride is 1 (or the other one
// is too small for cuBLAS), for the kit's kernel.
bool as_cublas(std::int64_t rows, std::int64_t cols, std::int64_t row, std::int64_t col, cublasOperation_t* op,
               std::int64_t* ld) {
  if (col == 1 && (row >= cols || rows == 1)) {
    *op = CUBLAS_OP_N;
    *ld = rows == 1 ? (cols > 1 ? cols : 1) : row;
    return true;
  }
  if (row == 1 && (col >= rows || cols == 1)) {
    *op = CUBLAS_OP_T;
    *ld = cols == 1 ? (rows > 1 ? rows : 1) : col;
    return true;
  }
  return false;
}

// Row-major C = alpha A B + beta C through cuBLAS, as the column-major C^T = B^T A^T; false when a
// layout does not fit (then the kit's kernel runs).
template <class T>
bool cublas_gemm(T* c, const T* a, const T* b, const GemmLayout& L, T alpha, bool accumulate, void* stream) {
  if (L.k == 0 || L.m > INT32_MAX || L.n > INT32_MAX || L.k > INT32_MAX || L.batch > INT32_MAX) return false;
  cublasOperation_t op_a, op_b, op_c;
  std::int64_t lda, ldb, ldc;
  if (!as_cublas(L.m, L.k, L.a_row, L.a_col, &op_a, &lda) || !as_cublas(L.k, L.n, L.b_row, L.b_col, &op_b, &ldb) ||
      !as_cublas(L.m, L.n, L.c_row, L.c_col, &op_c, &ldc) || op_c != CUBLAS_OP_N)
    return false;
  if (lda > INT32_MAX || ldb > INT32_MAX || ldc > INT32_MAX) return false;
  // Column-major, A's row-major (m x k) storage with op N is A^T (k x m): cuBLAS's second operand.
  // op N on row-major storage means "as stored" (the transpose, column-major); op T a transposed view.
  const cublasOperation_t first = op_b, second = op_a;
  const T beta = accumulate ? T(1) : T(0);
  cublasHandle_t h = cublas_handle();
  cublasSetStream(h, static_cast<cudaStream_t>(stream));
  const int m = static_cast<int>(L.n), n = static_cast<int>(L.m), k = static_cast<int>(L.k);
  cublasStatus_t s;
  if constexpr (std::is_same_v<T, float>)
    s = cublasSgemmStridedBatched(h, first, second, m, n, k, &alpha, b + L.b_offset, static_cast<int>(ldb), L.b_batch,
                                  a + L.a_offset, static_cast<int>(lda), L.a_batch, &beta, c + L.c_offset,
                                  static_cast<int>(ldc), L.c_batch, static_cast<int>(L.batch));
  else
    s = cublasDgemmStridedBatched(h, first, second, m, n, k, &alpha, b + L.b_offset, static_cast<int>(ldb), L.b_batch,
                                  a + L.a_offset, static_cast<int>(lda), L.a_batch, &beta, c + L.c_offset,
                                  static_cast<int>(ldc), L.c_batch, static_cast<int>(L.batch));
  if (s != CUBLAS_STATUS_SUCCESS) throw CudaError(std::string("cuBLAS gemm: ") + cublasGetStatusString(s));
  return true;
}
#endif

}  // namespace

void gemm(ScalarType type, const void* c, const void* a, const void* b, const GemmLayout& layout, double alpha,
          bool accumulate, bool split_k, void* workspace, void* stream) {
  if (layout.m == 0 || layout.n == 0 || layout.batch == 0) return;
#if defined(__CUDACC__)
  if (type == ScalarType::Float32
          ? cublas_gemm(static_cast<float*>(const_cast<void*>(c)), static_cast<const float*>(a),
                        static_cast<const float*>(b), layout, static_cast<float>(alpha), accumulate, stream)
          : cublas_gemm(static_cast<double*>(const_cast<void*>(c)), static_cast<const double*>(a),
                        static_cast<const double*>(b), layout, alpha, accumulate, stream))
    return;
#endif
  const LaunchConfig config{
      Dim3(static_cast<unsigned>((layout.n + kSide - 1) / kSide), static_cast<unsigned>((layout.m + kSide - 1) / kSide),
           static_cast<unsigned>(layout.batch)),
      Dim3(kSide, kSide), 0, stream};
  if (split_k) {
    if (type == ScalarType::Float32)
      launch_split_k<float>(c, a, b, workspace, layout, static_cast<float>(alpha), accumulate, stream);
    else
      launch_split_k<double>(c, a, b, workspace, layout, alpha, accumulate, stream);
    return;
  }
  if (type == ScalarType::Float32)
    launch<gemm_kernel<float>>(config, device_ptr<float>(c), device_ptr<const float>(a), device_ptr<const float>(b),
                               layout, static_cast<float>(alpha), accumulate);
  else
    launch<gemm_kernel<double>>(config, device_ptr<double>(c), device_ptr<const double>(a), device_ptr<const double>(b),
                                layout, alpha, accumulate);
}

}  // namespace kindling::cuda::kernels
