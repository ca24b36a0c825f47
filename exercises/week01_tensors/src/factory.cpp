// Factories: tensors made from nothing, from ranges, from random numbers and from lists.

#include <cmath>
#include <cstring>
#include <random>
#include <sstream>

#include <kindling/checked.hpp>
#include <kindling/device_hooks.hpp>
#include <kindling/factory.hpp>

#include "internal.hpp"
#include "loop.hpp"

namespace kindling {

namespace {
thread_local Generator* thread_default = nullptr;  // set by GeneratorGuard
}  // namespace

Generator& default_generator() {
  static Generator generator;
  return thread_default ? *thread_default : generator;
}

GeneratorGuard::GeneratorGuard(Generator& generator) : previous_(thread_default) { thread_default = &generator; }

GeneratorGuard::~GeneratorGuard() { thread_default = previous_; }

std::string Generator::get_state() const {
  std::lock_guard lock(mutex_);
  std::ostringstream out;
  out << "kindling.mt19937_64 " << seed_ << ' ' << engine_;
  return out.str();
}

void Generator::set_state(const std::string& state) {
  std::istringstream in(state);
  std::string tag;
  std::uint64_t seed = 0;
  std::mt19937_64 engine;
  in >> tag >> seed >> engine;
  KINDLING_CHECK(in && tag == "kindling.mt19937_64" && (in >> std::ws).eof(),
                 "Generator::set_state: not a state from Generator::get_state()");
  std::lock_guard lock(mutex_);
  seed_ = seed;
  engine_ = engine;
}

void manual_seed(std::uint64_t seed) { default_generator().manual_seed(seed); }

namespace detail {
Tensor empty_contiguous(IntArrayRef sizes, ScalarType dtype) {
  const auto bytes = static_cast<std::size_t>(numel_of(sizes)) * element_size(dtype);
  return Tensor::make(Storage::allocate(bytes), sizes.vec(), contiguous_strides(sizes), 0, dtype);
}

Tensor wrapped_scalar(const Scalar& value) { return wrapped_scalar(value, value.type()); }

Tensor wrapped_scalar(const Scalar& value, ScalarType dtype) {
  Tensor t = empty_contiguous({}, dtype);
  fill(t, value);
  t.impl().is_wrapped_number = true;
  return t;
}
}  // namespace detail

namespace {
// A factory that computes its values on the CPU makes them there and moves them to a device.
bool on_device(const TensorOptions& options) { return !options.device_.is_cpu(); }
TensorOptions on_cpu(TensorOptions options) { return options.device(kCPU); }
ScalarType dtype_for_value(const Scalar& v) {
  if (v.is_bool()) return kBool;
  return v.is_floating_point() ? kDefaultDtype : kInt64;
}
}  // namespace

Tensor empty(IntArrayRef sizes, TensorOptions options) {
  check_sizes_nonnegative(sizes);
  check_sizes_fit(sizes, element_size(options.dtype_or(kDefaultDtype)));
  Device device = options.device_;
  if (!device.is_cpu()) device = device_backend(device.type).resolve(device);
  return detail::empty_contiguous(sizes, options.dtype_or(kDefaultDtype), device);
}

Tensor zeros(IntArrayRef sizes, TensorOptions options) {
  Tensor t = empty(sizes, options);
  if (on_device(options)) {
    detail::fill(t, 0);  // the device's kernel
    return t;
  }
  // A fresh row-major block: all its bytes zero, in pieces by the rule in parallel.hpp. No
  // layout question is asked (fill's would call week 1's is_contiguous task, and week 1's
  // first tasks build tensors with zeros() before that task is done).
  auto* bytes = static_cast<char*>(t.data_ptr());
  const auto es = static_cast<std::int64_t>(t.element_size());
  const std::int64_t n = t.numel();
  detail::parallel_ranges(n, detail::parallel_threads("fill", n), [bytes, es](std::int64_t lo, std::int64_t hi) {
    std::memset(bytes + lo * es, 0, static_cast<std::size_t>((hi - lo) * es));
  });
  return t;
}

Tensor ones(IntArrayRef sizes, TensorOptions options) {
  return full(sizes, 1, options.dtype(options.dtype_or(kDefaultDtype)));
}

Tensor full(IntArrayRef sizes, const Scalar& value, TensorOptions options) {
  Tensor t = empty(sizes, options.dtype(options.dtype_or(dtype_for_value(value))));
  detail::fill(t, value);
  return t;
}

Tensor scalar_tensor(const Scalar& value, TensorOptions options) { return full({}, value, options); }

Tensor arange(const Scalar& end, TensorOptions options) { return arange(0, end, 1, options); }

Tensor arange(const Scalar& start, const Scalar& end, const Scalar& step, TensorOptions options) {
  if (on_device(options)) return arange(start, end, step, on_cpu(options)).to(options.device_);
  const bool integral = !start.is_floating_point() && !end.is_floating_point() && !step.is_floating_point();
  const ScalarType dtype = options.dtype_or(integral ? kInt64 : kDefaultDtype);
  const double s = start.to<double>(), e = end.to<double>(), st = step.to<double>();
  KINDLING_CHECK(st != 0, "step must be nonzero");
  KINDLING_CHECK(std::isfinite(s) && std::isfinite(e), "unsupported range: ", s, " -> ", e);
  KINDLING_CHECK((st > 0 && e >= s) || (st < 0 && e <= s), "upper bound and larger bound inconsistent with step sign");
  const auto n = static_cast<std::int64_t>(std::ceil((e - s) / st));
  Tensor t = empty({n}, dtype);
  visit_dtype(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* out = static_cast<T*>(t.data_ptr());
    if (integral) {
      const auto is = start.to<std::int64_t>(), ist = step.to<std::int64_t>();
      for (std::int64_t i = 0; i < n; ++i) out[i] = static_cast<T>(is + i * ist);
    } else {
      for (std::int64_t i = 0; i < n; ++i) out[i] = static_cast<T>(s + static_cast<double>(i) * st);
    }
  });
  return t;
}

// linspace is the task week01.linspace (src/tasks/linspace.cpp).

namespace {
template <class Fill>
Tensor random_tensor(IntArrayRef sizes, ScalarType dtype, Generator* gen, Fill fill) {
  Tensor t = empty(sizes, dtype);
  Generator& g = gen ? *gen : default_generator();
  g.with_engine([&](std::mt19937_64& engine) {
    visit_dtype(dtype, [&](auto tag) {
      using T = typename decltype(tag)::type;
      T* out = static_cast<T*>(t.data_ptr());
      for (std::int64_t i = 0; i < t.numel(); ++i) out[i] = static_cast<T>(fill(engine));
    });
  });
  return t;
}
}  // namespace

Tensor rand(IntArrayRef sizes, TensorOptions options, Generator* gen) {
  if (on_device(options)) return rand(sizes, on_cpu(options), gen).to(options.device_);
  const ScalarType dtype = options.dtype_or(kDefaultDtype);
  KINDLING_CHECK(is_floating_point(dtype), "\"check_uniform_bounds\" not implemented for '", dtype_short_name(dtype),
                 "'");
  // 53 (or 24) random bits scaled into [0, 1): never 1.0, even after rounding to float.
  const bool is_double = dtype == kFloat64;
  return random_tensor(sizes, dtype, gen, [is_double](std::mt19937_64& e) {
    return is_double ? static_cast<double>(e() >> 11) * 0x1.0p-53 : static_cast<double>(e() >> 40) * 0x1.0p-24;
  });
}

Tensor randn(IntArrayRef sizes, TensorOptions options, Generator* gen) {
  if (on_device(options)) return randn(sizes, on_cpu(options), gen).to(options.device_);
  const ScalarType dtype = options.dtype_or(kDefaultDtype);
  KINDLING_CHECK(is_floating_point(dtype), "\"normal_kernel_cpu\" not implemented for '", dtype_short_name(dtype), "'");
  std::normal_distribution<double> normal(0.0, 1.0);
  return random_tensor(sizes, dtype, gen, [&normal](std::mt19937_64& e) { return normal(e); });
}

Tensor randint(std::int64_t low, std::int64_t high, IntArrayRef sizes, TensorOptions options, Generator* gen) {
  if (on_device(options)) return randint(low, high, sizes, on_cpu(options), gen).to(options.device_);
  KINDLING_CHECK(low < high, "random_ expects 'from' to be less than 'to', but got from=", low, " >= to=", high);
  std::uniform_int_distribution<std::int64_t> dist(low, high - 1);
  return random_tensor(sizes, options.dtype_or(kInt64), gen, [&dist](std::mt19937_64& e) { return dist(e); });
}

Tensor randint(std::int64_t high, IntArrayRef sizes, TensorOptions options, Generator* gen) {
  return randint(0, high, sizes, options, gen);
}

Tensor randperm(std::int64_t n, TensorOptions options, Generator* gen) {
  if (on_device(options)) return randperm(n, on_cpu(options), gen).to(options.device_);
  check_sizes_nonnegative({n});  // "Trying to create tensor with negative dimension -1: [-1]", as torch.randperm(-1)
  Tensor t = arange(n, options.dtype_or(kInt64));
  Generator& g = gen ? *gen : default_generator();
  g.with_engine([&](std::mt19937_64& engine) {
    visit_dtype(t.dtype(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      T* p = static_cast<T*>(t.data_ptr());
      for (std::int64_t i = n - 1; i > 0; --i) {  // Fisher-Yates
        std::uniform_int_distribution<std::int64_t> pick(0, i);
        std::swap(p[i], p[pick(engine)]);
      }
    });
  });
  return t;
}

Tensor from_blob(void* data, IntArrayRef sizes, TensorOptions options, std::function<void(void*)> deleter) {
  return from_blob(data, sizes, contiguous_strides(sizes), options, std::move(deleter));
}

// The strided from_blob is the task week01.from_blob (src/tasks/from_blob.cpp).

// empty_like is the task week01.empty_like (src/tasks/empty_like.cpp). The other *_like
// factories do not call it: week 2's autograd makes zeros_like and ones_like on every
// backward pass, and the week-2 tasks must not wait for a week-1 task. They return
// row-major tensors, where PyTorch's keep t's layout as empty_like does.
namespace {
TensorOptions like(const Tensor& t, const TensorOptions& o) {
  return o.dtype(o.dtype_or(t.dtype())).device(o.device_or(t.device()));
}
}  // namespace
Tensor zeros_like(const Tensor& t, TensorOptions o) { return zeros(t.sizes(), like(t, o)); }
Tensor ones_like(const Tensor& t, TensorOptions o) { return ones(t.sizes(), like(t, o)); }
Tensor full_like(const Tensor& t, const Scalar& v, TensorOptions o) { return full(t.sizes(), v, like(t, o)); }
Tensor rand_like(const Tensor& t, TensorOptions o, Generator* g) { return rand(t.sizes(), like(t, o), g); }
Tensor randn_like(const Tensor& t, TensorOptions o, Generator* g) { return randn(t.sizes(), like(t, o), g); }

namespace {
// Walks a nested list: records the shape from the first element at each depth and
// checks every sibling agrees (PyTorch's "expected sequence of length" error).
void nested_shape(const NestedList& node, std::size_t depth, Shape& shape, bool& any_float, bool& all_bool) {
  if (node.is_leaf()) {
    KINDLING_CHECK_AS(ValueError, depth == shape.size(), "expected sequence of length ",
                      shape.size() > depth ? shape[depth] : 0, " at dim ", depth, " (got a number)");
    any_float = any_float || node.value().is_floating_point();
    all_bool = all_bool && node.value().is_bool();
    return;
  }
  const auto n = static_cast<std::int64_t>(node.items().size());
  KINDLING_CHECK_AS(ValueError, depth < shape.size() && shape[depth] == n, "expected sequence of length ",
                    depth < shape.size() ? shape[depth] : 0, " at dim ", depth, " (got ", n, ")");
  for (const auto& child : node.items()) nested_shape(child, depth + 1, shape, any_float, all_bool);
}

template <class T>
void nested_fill(const NestedList& node, T*& out) {
  if (node.is_leaf()) {
    *out++ = node.value().to<T>();
    return;
  }
  for (const auto& child : node.items()) nested_fill(child, out);
}
}  // namespace

Tensor tensor(const NestedList& data, TensorOptions options) {
  if (on_device(options)) return tensor(data, on_cpu(options)).to(options.device_);
  Shape shape;
  bool any_float = false, all_bool = true;
  // The shape comes from the first path down; nested_shape then checks the rest.
  const NestedList* node = &data;
  while (!node->is_leaf() && !node->items().empty()) {
    shape.push_back(static_cast<std::int64_t>(node->items().size()));
    node = &node->items().front();
  }
  if (!node->is_leaf()) shape.push_back(0);
  nested_shape(data, 0, shape, any_float, all_bool);
  const bool empty_list = numel_of(shape) == 0;
  const ScalarType inferred = empty_list || any_float ? kDefaultDtype : (all_bool ? kBool : kInt64);
  Tensor t = empty(shape, options.dtype_or(inferred));
  visit_dtype(t.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* out = static_cast<T*>(t.data_ptr());
    nested_fill(data, out);
  });
  return t;
}

}  // namespace kindling
