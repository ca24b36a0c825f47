// MUTANT: the rest of a split is filed under the default stream, not its block's stream
// Task week06.free_list. The doc comment above each function is its contract; your code goes
// between BEGIN and END. Hints, one at a time: `./grade hint week06.free_list`.

#include <kindling/cuda/caching_allocator.hpp>
#include <kindling/error.hpp>  // KINDLING_TODO, which the worksheet's stubs call

// A pool's free blocks sit in a std::set ordered by (stream, size, address): BlockOrder.
// The blocks of one segment form a list in address order through prev and next; a block
// whose prev and next are both null is a whole segment.

namespace kindling::cuda {

/// The smallest free block of `pool` on `stream` with at least `size` bytes (the first
/// in BlockOrder among those on `stream` that are large enough: smallest size, then lowest
/// address), removed from `pool.blocks`; null when the pool has none on that stream. A block
/// of another stream is never taken, however well it fits: its memory may still be in use by
/// that stream's queued work.
Block* take_best_fit(BlockPool& pool, Stream stream, std::size_t size) {
  // BEGIN SOLUTION week06.free_list
  Block key;
  key.stream = stream;
  key.size = size;
  key.ptr = nullptr;
  auto it = pool.blocks.lower_bound(&key);
  if (it == pool.blocks.end() || (*it)->stream != stream) return nullptr;
  Block* block = *it;
  pool.blocks.erase(it);
  return block;
  // END SOLUTION
}

/// Splits `block` (taken from `pool`, not in it; size <= block->size) so that it keeps exactly
/// `size` bytes, when the rest is worth keeping: at least AllocatorSizes::kMinBlockSize bytes
/// in a small pool (pool.small), more than AllocatorSizes::kSmallSize in a large one. The rest
/// becomes a new free Block (allocated with `new`) right after `block` in its segment: same
/// stream and pool kind, its bytes start at block->ptr + size, and it is linked between
/// `block` and the block that followed it. The new block goes into `pool.blocks`. Returns it,
/// or null (block unchanged) when the rest is not worth keeping.
Block* split_block(BlockPool& pool, Block* block, std::size_t size) {
  // BEGIN SOLUTION week06.free_list
  const std::size_t rest = block->size - size;
  const bool worth = pool.small ? rest >= AllocatorSizes::kMinBlockSize : rest > AllocatorSizes::kSmallSize;
  if (!worth) return nullptr;
  auto* remaining = new Block;
  remaining->small = block->small;
  remaining->ptr = block->ptr + size;
  remaining->size = rest;
  remaining->prev = block;
  remaining->next = block->next;
  if (remaining->next) remaining->next->prev = remaining;
  block->next = remaining;
  block->size = size;
  pool.blocks.insert(remaining);
  return remaining;
  // END SOLUTION
}

/// Returns `block` (allocated, not in `pool`) to `pool`: marks it free (allocated = false),
/// then merges it with its neighbours in the segment that are free (not allocated, with no
/// pending events): each such neighbour leaves `pool.blocks`, its bytes join the block's (the
/// block starts at the lower address), the list skips it, and it is deleted. The merged block
/// goes into `pool.blocks` (its size is its set key: change it only while it is out of the
/// set). Returns the merged block.
Block* free_block(BlockPool& pool, Block* block) {
  // BEGIN SOLUTION week06.free_list
  block->allocated = false;
  auto mergeable = [](const Block* b) { return b != nullptr && !b->allocated && b->pending_events == 0; };
  if (Block* p = block->prev; mergeable(p)) {
    pool.blocks.erase(p);
    p->size += block->size;
    p->next = block->next;
    if (p->next) p->next->prev = p;
    delete block;
    block = p;
  }
  if (Block* n = block->next; mergeable(n)) {
    pool.blocks.erase(n);
    block->size += n->size;
    block->next = n->next;
    if (block->next) block->next->prev = block;
    delete n;
  }
  pool.blocks.insert(block);
  return block;
  // END SOLUTION
}

}  // namespace kindling::cuda
