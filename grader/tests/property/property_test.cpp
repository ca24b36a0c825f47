// Property tests (RapidCheck, with its GoogleTest integration), in the MiniTorch style:
// for random shapes, random permutations, random slices and random non-contiguous
// inputs, an invariant must hold. RapidCheck generates the cases and, when one fails,
// shrinks it to a smallest failing case and prints it with the seed to replay it:
//   RC_PARAMS="seed=<seed>" build/solutions/grader/kindling_property_tests
// (RC_PARAMS="max_success=1000" runs more cases.)
//
// These check the reference engine (ctest kit.property), not a student's work.

#include <numeric>

#include <gtest/gtest.h>  // before rapidcheck/gtest.h, which uses it

#include <rapidcheck/gtest.h>
#include <kindling/autograd.hpp>

using namespace kindling;

namespace {
// A random permutation of 0..n-1 (Fisher-Yates with RapidCheck's choices, so it shrinks).
Shape gen_permutation(std::size_t n) {
  Shape p(n);
  std::iota(p.begin(), p.end(), 0);
  for (std::size_t i = n; i > 1; --i) std::swap(p[i - 1], p[*rc::gen::inRange<std::size_t>(0, i)]);
  return p;
}

// Whether two tensors start at the same address (RapidCheck cannot print a void*).
bool same_data(const Tensor& a, const Tensor& b) { return a.data_ptr() == b.data_ptr(); }

// 1 to 4 dims of 1 to 4 elements.
Shape gen_shape() {
  const auto dims = *rc::gen::inRange<std::size_t>(1, 5);
  return *rc::gen::container<Shape>(dims, rc::gen::inRange<std::int64_t>(1, 5));
}

std::int64_t numel_of(const Shape& s) {
  return std::accumulate(s.begin(), s.end(), std::int64_t{1}, std::multiplies<>());
}

// Sizes whose product is n: the factors of n spread over 1 to 3 dims.
Shape gen_split(std::int64_t n) {
  Shape out;
  std::int64_t rest = n;
  const auto parts = *rc::gen::inRange(1, 4);
  for (int i = 0; i + 1 < parts; ++i) {
    std::vector<std::int64_t> divisors;
    for (std::int64_t d = 1; d <= rest; ++d)
      if (rest % d == 0) divisors.push_back(d);
    const std::int64_t d = *rc::gen::elementOf(divisors);
    out.push_back(d);
    rest /= d;
  }
  out.push_back(rest);
  return out;
}

// Row-major flat offset of `idx` in a contiguous tensor of `sizes`.
std::int64_t flat_of(const Shape& idx, const Shape& sizes) {
  std::int64_t flat = 0;
  for (std::size_t d = 0; d < sizes.size(); ++d) flat = flat * sizes[d] + idx[d];
  return flat;
}

// Every index of `sizes`, row-major.
std::vector<Shape> all_indices(const Shape& sizes) {
  std::vector<Shape> out;
  Shape idx(sizes.size(), 0);
  for (std::int64_t k = 0; k < numel_of(sizes); ++k) {
    out.push_back(idx);
    for (std::size_t d = sizes.size(); d-- > 0;) {
      if (++idx[d] < sizes[d]) break;
      idx[d] = 0;
    }
  }
  return out;
}

// A random non-contiguous (or contiguous) float64 tensor of `shape`: a permutation of a
// permuted copy, or a strided slice of a larger one.
Tensor gen_strided(const Shape& shape) {
  const auto n = shape.size();
  if (*rc::gen::arbitrary<bool>()) {
    const Shape p = gen_permutation(n);
    Shape stored(n);  // stored[p[d]] = shape[d], so that permute(p) has `shape`
    for (std::size_t d = 0; d < n; ++d) stored[static_cast<std::size_t>(p[d])] = shape[d];
    return randn(stored, kFloat64).permute(p);
  }
  Shape big = shape;
  const auto d = *rc::gen::inRange<std::size_t>(0, n);
  big[d] = 2 * shape[d];
  return randn(big, kFloat64).slice(static_cast<std::int64_t>(d), 0, std::nullopt, 2);
}
}  // namespace

// permute() moves no data: element idx of the permutation is element p^-1(idx) of the base.
RC_GTEST_PROP(PropertyStrides, PermuteIndexesTheSameStorage, ()) {
  const Shape shape = gen_shape();
  const Shape p = gen_permutation(shape.size());
  const Tensor base = arange(numel_of(shape), kInt64).view(shape);
  const Tensor t = base.permute(p);
  RC_ASSERT(same_data(t, base));
  for (const Shape& idx : all_indices(t.sizes().vec())) {
    Shape src(shape.size());
    for (std::size_t d = 0; d < p.size(); ++d) src[static_cast<std::size_t>(p[d])] = idx[d];
    RC_ASSERT(t.at<std::int64_t>(idx) == flat_of(src, shape));
  }
  const Tensor c = t.contiguous();
  RC_ASSERT(c.is_contiguous());
  RC_ASSERT(equal(c, t));
}

// A slice with a step selects start + i * step along its dim, and nothing is copied.
RC_GTEST_PROP(PropertyStrides, SliceWithAStepMatchesIndexArithmetic, ()) {
  const Shape shape = gen_shape();
  const auto d = *rc::gen::inRange<std::size_t>(0, shape.size());
  const std::int64_t start = *rc::gen::inRange<std::int64_t>(0, shape[d]);
  const std::int64_t step = *rc::gen::inRange<std::int64_t>(1, 4);
  const Tensor base = arange(numel_of(shape), kInt64).view(shape);
  const Tensor t = base.slice(static_cast<std::int64_t>(d), start, std::nullopt, step);
  RC_ASSERT(t.size(static_cast<std::int64_t>(d)) == (shape[d] - start + step - 1) / step);
  RC_ASSERT(t.is_alias_of(base));  // nothing was copied
  for (const Shape& idx : all_indices(t.sizes().vec())) {
    Shape src = idx;
    src[d] = start + idx[d] * step;
    RC_ASSERT(t.at<std::int64_t>(idx) == flat_of(src, shape));
  }
}

// reshape() gives the row-major elements in the new shape; it is a view (same storage,
// no copy) exactly when compute_view_strides finds strides, and view() then agrees.
RC_GTEST_PROP(PropertyStrides, ReshapeIsAViewExactlyWhenStridesAllowIt, ()) {
  const Shape shape = gen_shape();
  const Tensor x = gen_strided(shape);
  RC_ASSERT(x.sizes().vec() == shape);
  const Shape target = gen_split(x.numel());
  const Tensor r = x.reshape(target);
  RC_ASSERT(r.sizes().vec() == target);
  RC_ASSERT(equal(r, x.contiguous().view(target)));
  const bool viewable = compute_view_strides(x.sizes(), x.strides(), target).has_value();
  RC_ASSERT(viewable == (r.is_alias_of(x) && r.is_view()));
  if (viewable) RC_ASSERT(equal(x.view(target), r));
  RC_ASSERT(equal(r.reshape(shape), x));  // and back
}

// view() of a contiguous tensor never copies, and a round trip gives the tensor back.
RC_GTEST_PROP(PropertyStrides, ViewRoundTripOfAContiguousTensor, ()) {
  const Shape shape = gen_shape();
  const Tensor x = randn(shape);
  const Shape target = gen_split(x.numel());
  const Tensor v = x.view(target);
  RC_ASSERT(same_data(v, x));
  RC_ASSERT(v.is_contiguous());
  RC_ASSERT(equal(v.view(shape), x));
}

// Gradients agree with central differences, for random shapes, random non-contiguous
// inputs, a broadcast partner and a reduction over a random dim.
RC_GTEST_PROP(PropertyGradients, GradcheckOnRandomNonContiguousInputs, ()) {
  const Shape shape = gen_shape();
  Tensor x = gen_strided(shape);
  x.requires_grad_();
  Shape partner_shape = shape;  // broadcasts against x
  for (auto& s : partner_shape)
    if (*rc::gen::arbitrary<bool>()) s = 1;
  Tensor y = randn(partner_shape, kFloat64);
  y.requires_grad_();
  const auto op = *rc::gen::inRange(0, 6);
  const auto dim = *rc::gen::inRange<std::int64_t>(0, static_cast<std::int64_t>(shape.size()));
  const bool keepdim = *rc::gen::arbitrary<bool>();
  const auto f = [&](const TensorList& in) {
    const Tensor& a = in[0];
    const Tensor& b = in[1];
    Tensor u = op == 0   ? tanh(a) * b
               : op == 1 ? sigmoid(a) + b * a
               : op == 2 ? exp(a * 0.5) / (b * b + 1.0)
               : op == 3 ? softmax(a + b, dim)
               : op == 4 ? log_softmax(a * b, dim)
                         : maximum(a, b) * a;
    return (op % 2 == 0 ? logsumexp(u, {dim}, keepdim) : u.sum({dim}, keepdim)).sum();
  };
  RC_ASSERT(autograd::gradcheck(f, {x, y}));
}

// Shape keeps up to Shape::kInline entries inside itself and moves to the heap beyond:
// after any sequence of the vector operations the kit uses, crossing that boundary in
// both directions, it must hold what a std::vector given the same operations holds.
RC_GTEST_PROP(ShapeProperty, BehavesLikeAVectorAcrossTheInlineBoundary, ()) {
  Shape s;
  std::vector<std::int64_t> v;
  const auto steps = *rc::gen::inRange(1, 40);
  for (int i = 0; i < steps; ++i) {
    const auto value = *rc::gen::inRange<std::int64_t>(-9, 10);
    switch (*rc::gen::inRange(0, 9)) {
      case 0:
        s.push_back(value);
        v.push_back(value);
        break;
      case 1:
        if (!v.empty()) {
          s.pop_back();
          v.pop_back();
        }
        break;
      case 2: {
        const auto at = *rc::gen::inRange<std::size_t>(0, v.size() + 1);
        s.insert(s.begin() + static_cast<std::ptrdiff_t>(at), value);
        v.insert(v.begin() + static_cast<std::ptrdiff_t>(at), value);
        break;
      }
      case 3:
        if (!v.empty()) {
          const auto at = *rc::gen::inRange<std::size_t>(0, v.size());
          s.erase(s.begin() + static_cast<std::ptrdiff_t>(at));
          v.erase(v.begin() + static_cast<std::ptrdiff_t>(at));
        }
        break;
      case 4: {
        const auto n = *rc::gen::inRange<std::size_t>(0, 12);
        s.resize(n, value);
        v.resize(n, value);
        break;
      }
      case 5: {  // copy, then the copy's own changes leave the original alone
        Shape copy = s;
        copy.push_back(value);
        RC_ASSERT(copy.size() == s.size() + 1);
        s = copy;
        s.pop_back();
        break;
      }
      case 6: {  // move out and back: the moved-from list is empty and reusable
        Shape moved = std::move(s);
        RC_ASSERT(s.empty());  // NOLINT(bugprone-use-after-move): documented state
        s.push_back(1);
        s = std::move(moved);
        break;
      }
      case 7: {  // insert a range of itself (the source may move while it is copied)
        const auto at = *rc::gen::inRange<std::size_t>(0, v.size() + 1);
        s.insert(s.begin() + static_cast<std::ptrdiff_t>(at), s.begin(), s.end());
        const std::vector<std::int64_t> w = v;
        v.insert(v.begin() + static_cast<std::ptrdiff_t>(at), w.begin(), w.end());
        break;
      }
      default: {
        Shape other(static_cast<std::size_t>(value + 10), value);
        s.swap(other);
        other.swap(s);
        break;
      }
    }
    RC_ASSERT(std::vector<std::int64_t>(s) == v);
    RC_ASSERT(s.size() <= s.capacity());
    RC_ASSERT(IntArrayRef(s).equals(IntArrayRef(v)));
  }
  RC_ASSERT((s == Shape(v.begin(), v.end())));
  RC_ASSERT(((s <=> Shape(v.begin(), v.end())) == 0));
}
