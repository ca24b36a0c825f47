#pragma once
/// @file kernels.hpp
/// Week 6's kernels and the host functions around them: axpy (the task
/// week06.elementwise_kernel), compact (week06.strided_contiguous), the pipeline of
/// asynchronous copies (week06.async_overlap), and scale, the kit's own kernel that the
/// pipeline runs.

#include <cstdint>
#include <vector>

#include <kindling/cuda/caching_allocator.hpp>
#include <kindling/cuda/kernel.hpp>
#include <kindling/cuda/runtime.hpp>
#include <kindling/tensor.hpp>

namespace kindling::cuda {

/// Threads per block of axpy's launch.
inline constexpr unsigned kAxpyThreads = 256;
/// The most blocks axpy launches: a larger n is covered by a grid-stride loop.
inline constexpr unsigned kAxpyMaxBlocks = 64;

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

}  // namespace kindling::cuda
