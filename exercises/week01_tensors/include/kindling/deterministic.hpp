#pragma once
/// @file deterministic.hpp
/// torch.use_deterministic_algorithms: whether the engine may use an algorithm whose result
/// changes from run to run with the same input on the same machine.
///
/// On the GPU the fast way to add many values into one place is an atomic add from every thread:
/// the threads reach the place in an order that changes from run to run, and float addition is
/// not associative, so the last bits of the sum change too. The engine has one such path, and it
/// is replaced under the flag:
/// - `index_add` on a `cuda` tensor of float32 or float64 (the gradient of `index_select`, of an
///   embedding lookup): atomics from one thread per added element by default; under the flag, one
///   thread per output column adding the rows in order (the CPU's order, the same bits every run,
///   and less parallel when there are few columns). PyTorch 1.13 does the same for index_add on
///   CUDA.
/// Every other kernel of the engine is deterministic whatever the flag says (each output element
/// is computed by one thread, and reductions combine in a fixed tree), so none is refused.

namespace kindling {

/// Sets the flag (torch.use_deterministic_algorithms(mode, warn_only=...)). `warn_only` is kept
/// for PyTorch's signature: it matters for operations that are refused under the flag, and the kit
/// has none (every non-deterministic path has a deterministic replacement).
void use_deterministic_algorithms(bool mode, bool warn_only = false);
/// torch.are_deterministic_algorithms_enabled(): the flag (false unless set).
bool are_deterministic_algorithms_enabled();
/// torch.is_deterministic_algorithms_warn_only_enabled().
bool is_deterministic_algorithms_warn_only_enabled();

}  // namespace kindling
