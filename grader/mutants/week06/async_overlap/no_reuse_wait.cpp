// MUTANT: the copy into a buffer does not wait for the kernel that last read it: batch k + 2 overwrites batch k's input
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
  // BEGIN SOLUTION week06.async_overlap
  KINDLING_CHECK(batches.size() == out.size(), "pipelined_scale: ", batches.size(), " batches but ", out.size(),
                 " outputs");
  if (batches.empty()) return;
  const std::int64_t n = batches[0].numel();
  for (std::size_t k = 0; k < batches.size(); ++k)
    for (const Tensor* t : {&batches[k], &out[k]})
      KINDLING_CHECK(t->device().is_cpu() && t->dtype() == kFloat32 && t->is_contiguous() && t->numel() == n,
                     "pipelined_scale: every batch and output must be a contiguous float32 CPU tensor of ", n,
                     " elements");
  Runtime& rt = runtime();
  CachingAllocator& cache = caching_allocator();
  const std::size_t bytes = static_cast<std::size_t>(n) * sizeof(float);
  Stream copy = rt.create_stream(), compute = rt.create_stream();
  void* in_buf[2] = {cache.allocate(bytes, compute), cache.allocate(bytes, compute)};
  void* out_buf[2] = {cache.allocate(bytes, compute), cache.allocate(bytes, compute)};
  Event copied[2] = {rt.create_event(), rt.create_event()};
  Event consumed[2] = {rt.create_event(), rt.create_event()};
  for (std::size_t k = 0; k < batches.size(); ++k) {
    const std::size_t b = k % 2;
    rt.memcpy_async(in_buf[b], batches[k].data_ptr(), bytes, CopyKind::HostToDevice, copy);
    rt.record_event(copied[b], copy);
    rt.stream_wait_event(compute, copied[b]);
    scale(device_ptr<const float>(in_buf[b]), device_ptr<float>(out_buf[b]), s, n, compute);
    rt.record_event(consumed[b], compute);
    rt.memcpy_async(out[k].data_ptr(), out_buf[b], bytes, CopyKind::DeviceToHost, compute);
  }
  rt.synchronize_stream(compute);
  for (Event e : {copied[0], copied[1], consumed[0], consumed[1]}) rt.destroy_event(e);
  for (void* p : {in_buf[0], in_buf[1], out_buf[0], out_buf[1]}) cache.free(p);
  rt.destroy_stream(copy);
  rt.destroy_stream(compute);
  // END SOLUTION
}

}  // namespace kindling::cuda
