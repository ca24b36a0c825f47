#pragma once
// Exact device arrays on the simulator for the kernel tasks' tests: each array is its own
// allocation (no caching allocator in between), so that the simulator's bounds are the array's.

#include <cmath>
#include <cstddef>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <kindling/cuda/kernel.hpp>
#include <kindling/cuda/runtime.hpp>
#include <kindling/cuda/sim.hpp>

#include "oracle_json.hpp"

namespace kindling::testing::sim_arrays {

/// Records a launch of the student's kernel's counters as the test's property "kindling_counters",
/// which the grader's report shows under the task ("counted: ..."): what the grade measured.
inline void record_counters(const cuda::sim::Counters& c) {
  std::string s = std::to_string(c.global_loads) + " global loads and " + std::to_string(c.global_stores) +
                  " stores in " + std::to_string(c.global_sectors) + " sectors (the bytes need " +
                  std::to_string(c.global_sectors_min) + ")";
  if (c.shared_loads + c.shared_stores > 0)
    s += ", " + std::to_string(c.shared_loads + c.shared_stores) + " shared accesses in " +
         std::to_string(c.shared_requests) + " requests, " + std::to_string(c.shared_bank_conflicts) +
         " bank conflicts, busiest thread " + std::to_string(c.max_thread_shared_loads) + " shared loads";
  s += ", " + std::to_string(c.barriers) + " __syncthreads";
  ::testing::Test::RecordProperty("kindling_counters", s);
}

/// A device array of floats on the simulated device, freed (after a device reset) on destruction.
class DeviceFloats {
 public:
  /// `values` copied to the device.
  explicit DeviceFloats(const std::vector<float>& values) : n_(values.size()) {
    p_ = cuda::sim_runtime().malloc(std::max<std::size_t>(1, n_) * sizeof(float));
    if (n_ > 0) cuda::sim_runtime().memcpy(p_, values.data(), n_ * sizeof(float), cuda::CopyKind::HostToDevice);
  }
  /// `n` floats never written (the simulator reports a read of any of them).
  static DeviceFloats uninitialized(std::size_t n) { return DeviceFloats(n); }
  ~DeviceFloats() {
    cuda::sim::reset_device();
    cuda::sim_runtime().free(p_);
  }
  DeviceFloats(const DeviceFloats&) = delete;
  DeviceFloats& operator=(const DeviceFloats&) = delete;
  DeviceFloats(DeviceFloats&& o) noexcept : n_(o.n_), p_(o.p_) { o.p_ = nullptr; }
  DeviceFloats& operator=(DeviceFloats&&) = delete;
  /// As a kernel argument.
  cuda::DevPtr<float> ptr() const { return cuda::device_ptr<float>(p_); }
  /// As a read-only kernel argument.
  cuda::DevPtr<const float> cptr() const { return cuda::device_ptr<const float>(p_); }
  /// The values, after synchronising the device.
  std::vector<float> host() const {
    cuda::synchronize();
    std::vector<float> out(n_);
    if (n_ > 0) cuda::sim_runtime().memcpy(out.data(), p_, n_ * sizeof(float), cuda::CopyKind::DeviceToHost);
    return out;
  }

 private:
  explicit DeviceFloats(std::size_t n)
      : n_(n), p_(cuda::sim_runtime().malloc(std::max<std::size_t>(1, n) * sizeof(float))) {}
  std::size_t n_;
  void* p_;
};

/// Values that are small integers (so that every order of adding them gives the same float),
/// varied by `seed`.
inline std::vector<float> small_integers(std::size_t n, int seed) {
  std::vector<float> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<float>(static_cast<int>((i * 7 + seed * 13) % 23) - 11);
  return v;
}

/// Values with fractions (so that the order of additions shows in the last bits).
inline std::vector<float> fractions(std::size_t n, int seed) {
  std::vector<float> v(n);
  for (std::size_t i = 0; i < n; ++i)
    v[i] = std::sin(static_cast<float>(i) * 0.37f + static_cast<float>(seed)) * 3.0f + 0.001f * static_cast<float>(i);
  return v;
}

/// A JSON array of numbers, or of strings such as "nan" and "-inf", as floats.
inline std::vector<float> floats_of(const nlohmann::json& j) {
  std::vector<float> v;
  for (const auto& e : j) v.push_back(e.is_string() ? std::stof(e.get<std::string>()) : e.get<float>());
  return v;
}

/// C = A B on the host in float, adding the products in order of p (as the kernels do).
inline std::vector<float> host_matmul(const std::vector<float>& a, const std::vector<float>& b, int m, int k, int n) {
  std::vector<float> c(static_cast<std::size_t>(m) * static_cast<std::size_t>(n));
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      float s = 0.0f;
      for (int p = 0; p < k; ++p)
        s += a[static_cast<std::size_t>(i) * static_cast<std::size_t>(k) + static_cast<std::size_t>(p)] *
             b[static_cast<std::size_t>(p) * static_cast<std::size_t>(n) + static_cast<std::size_t>(j)];
      c[static_cast<std::size_t>(i) * static_cast<std::size_t>(n) + static_cast<std::size_t>(j)] = s;
    }
  return c;
}

}  // namespace kindling::testing::sim_arrays
