// Task week06.async_overlap. The doc comment above each function is its contract; your code
// goes between BEGIN and END. Hints, one at a time: `./grade hint week06.async_overlap`.

#include <kindling/cuda/kernels.hpp>
#include <kindling/error.hpp>  // KINDLING_TODO, which the worksheet's stubs call

// runtime() is the device runtime (runtime.hpp), CUDA's calls: memcpy_async(dst, src, bytes,
// kind, stream), create_stream/destroy_stream, create_event/record_event/destroy_event,
// stream_wait_event(stream, event), synchronize_stream. caching_allocator() hands out device
// memory as PyTorch's does (allocate(bytes, stream), free(ptr)): a free neither waits for the
// device nor for the streams that still use the memory. device_ptr<float>(p) turns a device
// address into what a kernel takes; scale(x, y, s, n, stream) is the kernel to run.

namespace kindling::cuda {

/// out[k] = s * batches[k] for every k, on the GPU, so that the copy of batch k + 1 to the
/// device overlaps the work on batch k. `batches` and `out`: pinned, contiguous float32 CPU
/// tensors, as many outs as batches, all of one numel n (an Error otherwise, before any work is
/// queued). The shape of the work:
/// - two streams of its own: a copy stream takes every host-to-device copy, a compute stream
///   takes every kernel and every device-to-host copy;
/// - two device input buffers and two device output buffers of n floats (batch k uses buffer
///   k % 2), from caching_allocator() on the compute stream, given back to it before returning;
/// - batch k's kernel must wait (stream_wait_event) for an event recorded after batch k's copy,
///   and batch k's copy must not overwrite buffer k % 2 before batch k - 2's kernel has read it
///   (wait for an event recorded after that kernel);
/// - every copy is memcpy_async (pinned memory makes them asynchronous); nothing waits on the
///   host until every batch is queued;
/// - before returning, the host waits for the compute stream, so that every out[k] holds its
///   values (the allocator's free does not wait); the streams and events it made are destroyed.
void pipelined_scale(const std::vector<Tensor>& batches, const std::vector<Tensor>& out, float s) {
  // BEGIN TASK week06.async_overlap (replace the stub below with your code)
  KINDLING_TODO("week06.async_overlap");
  // END TASK
}

}  // namespace kindling::cuda
