#pragma once
/// @file parallel.hpp
/// The engine's intra-op thread count (torch.get_num_threads / set_num_threads).
///
/// Large elementwise ops, copies, reductions and row-wise kernels (softmax, max
/// along a dim) split their work across threads once a tensor has at least 64K
/// elements; smaller tensors stay on the calling thread. Results do not depend on
/// the thread count: each output element is computed by one thread in the same
/// order, and a full reduction is cut into pieces fixed by the size alone.

namespace kindling {

/// Threads a parallel kernel may use: OMP_NUM_THREADS when set, else one per core
/// (1 in a build without OpenMP).
int get_num_threads();
/// Sets the threads parallel kernels may use from now on (n >= 1; ValueError
/// otherwise, as torch.set_num_threads raises for 0).
void set_num_threads(int n);

}  // namespace kindling
