// Every gradient formula of the week-1 operations, one case per op, like
// PyTorch's derivatives.yaml. The student-written ones (mul, mm, sum_to_size)
// are in src/tasks/ (declared in formulas.hpp). Each formula returns one gradient per input at the
// broadcast shape; the engine (call_node) reduces them to the inputs' shapes.

#include <kindling/factory.hpp>
#include <kindling/join.hpp>

#include "autograd_internal.hpp"
#include "internal.hpp"

namespace kindling::autograd::detail {

namespace {
// Bit masks over OpNode slots.
constexpr std::uint8_t kA = 1 << OpNode::kIn0, kB = 1 << OpNode::kIn1, kC = 1 << OpNode::kIn2,
                       kOutput = 1 << OpNode::kOut, kAuxiliary = 1 << OpNode::kAux;

// What the formula for input `i` of `op` reads.
std::uint8_t needs(Op op, std::size_t i) {
  switch (op) {
    case Op::Mul:
      return i == 0 ? kB : kA;
    case Op::Div:
      return i == 0 ? kB : kA | kB;
    case Op::Pow:
      return i == 0 ? kA | kB : kA | kB | kOutput;
    case Op::Maximum:
    case Op::Minimum:
      return kA | kB;
    case Op::Abs:
    case Op::Log:
    case Op::Log1p:
    case Op::Sin:
    case Op::Cos:
    case Op::Clamp:
      return kA;
    case Op::Exp:
    case Op::Sqrt:
    case Op::Rsqrt:
    case Op::Tanh:
    case Op::Sigmoid:
    case Op::Relu:
    case Op::Reciprocal:
    case Op::Softmax:
    case Op::LogSoftmax:
      return kOutput;
    case Op::Prod:
    case Op::MaxAll:
    case Op::MinAll:
    case Op::Logsumexp:
      return kA | kOutput;
    case Op::MaxDim:
    case Op::MinDim:
    case Op::IndexSelect:
    case Op::MaskedFill:
    case Op::Where:
      return kAuxiliary;
    case Op::Dot:
    case Op::Mv:
    case Op::Mm:
    case Op::Bmm:
      return i == 0 ? kB : kA;
    case Op::Addmm:
      return i == 0 ? 0 : i == 1 ? kC : kB;
    default:
      return 0;
  }
}

const char* base_name(Op op) {
  switch (op) {
    case Op::Add:
      return "AddBackward0";
    case Op::Sub:
      return "SubBackward0";
    case Op::Mul:
      return "MulBackward0";
    case Op::Div:
      return "DivBackward0";
    case Op::Pow:
      return "PowBackward";
    case Op::Maximum:
      return "MaximumBackward0";
    case Op::Minimum:
      return "MinimumBackward0";
    case Op::Neg:
      return "NegBackward0";
    case Op::Abs:
      return "AbsBackward0";
    case Op::Sign:
      return "SignBackward0";
    case Op::Exp:
      return "ExpBackward0";
    case Op::Log:
      return "LogBackward0";
    case Op::Log1p:
      return "Log1PBackward0";
    case Op::Sqrt:
      return "SqrtBackward0";
    case Op::Rsqrt:
      return "RsqrtBackward0";
    case Op::Sin:
      return "SinBackward0";
    case Op::Cos:
      return "CosBackward0";
    case Op::Tanh:
      return "TanhBackward0";
    case Op::Sigmoid:
      return "SigmoidBackward0";
    case Op::Relu:
      return "ReluBackward0";
    case Op::Floor:
      return "FloorBackward0";
    case Op::Ceil:
      return "CeilBackward0";
    case Op::Round:
      return "RoundBackward0";
    case Op::Reciprocal:
      return "ReciprocalBackward0";
    case Op::Clamp:
      return "ClampBackward1";
    case Op::Clone:
      return "CloneBackward0";
    case Op::ToCopy:
      return "ToCopyBackward0";
    case Op::Sum:
      return "SumBackward";
    case Op::Mean:
      return "MeanBackward";
    case Op::Prod:
      return "ProdBackward";
    case Op::MaxAll:
      return "MaxBackward1";
    case Op::MinAll:
      return "MinBackward1";
    case Op::MaxDim:
      return "MaxBackward0";
    case Op::MinDim:
      return "MinBackward0";
    case Op::Logsumexp:
      return "LogsumexpBackward0";
    case Op::Softmax:
      return "SoftmaxBackward0";
    case Op::LogSoftmax:
      return "LogSoftmaxBackward0";
    case Op::Dot:
      return "DotBackward0";
    case Op::Mv:
      return "MvBackward0";
    case Op::Mm:
      return "MmBackward0";
    case Op::Bmm:
      return "BmmBackward0";
    case Op::Addmm:
      return "AddmmBackward0";
    case Op::Cat:
      return "CatBackward0";
    case Op::Stack:
      return "StackBackward0";
    case Op::IndexSelect:
      return "IndexSelectBackward0";
    case Op::MaskedFill:
      return "MaskedFillBackward0";
    case Op::Where:
      return "WhereBackward0";
    case Op::Fill:
      return "FillBackward0";
    case Op::Copy:
      return "CopyBackwards";
  }
  return "UnknownBackward";
}

// Inserts the reduced dims of a keepdim=false reduction back as size 1.
Tensor unsqueeze_reduced(Tensor g, IntArrayRef input_sizes, const Shape& dims, bool keepdim) {
  if (keepdim || dims.empty()) return g;
  const auto ndim = static_cast<std::int64_t>(input_sizes.size());
  std::vector<bool> reduced(static_cast<std::size_t>(ndim), false);
  for (auto d : dims) reduced[static_cast<std::size_t>(wrap_dim(d, ndim))] = true;
  for (std::int64_t d = 0; d < ndim; ++d)
    if (reduced[static_cast<std::size_t>(d)]) g = g.unsqueeze(d);
  return g;
}

// The input shape a formula needs, from the node its gradient goes to.
IntArrayRef input_sizes(const Node& node, std::size_t i) { return node.next_edges()[i].fn->output_sizes(); }

// Gradient of max()/min() over all elements: shared evenly by the elements that
// equal the result (PyTorch's evenly_distribute_backward).
Tensor evenly_distribute(const Tensor& grad, const Tensor& x, const Tensor& result) {
  const Tensor mask = eq(x, result);
  const Tensor count = sum(mask.to(x.dtype()));
  return where(mask, div(grad, count), zeros_like(x));
}

// Gradient of prod: the product of all other elements, computed without dividing
// (so zeros are handled), along the last dim of a contiguous (rows, n) matrix.
template <class T>
void prod_others(const T* x, const T* g, T* out, std::int64_t rows, std::int64_t n) {
  for (std::int64_t r = 0; r < rows; ++r) {
    const T* row = x + r * n;
    T* dst = out + r * n;
    T prefix = 1;
    for (std::int64_t i = 0; i < n; ++i) {
      dst[i] = prefix;
      prefix *= row[i];
    }
    T suffix = 1;
    for (std::int64_t i = n - 1; i >= 0; --i) {
      dst[i] *= suffix * g[r];
      suffix *= row[i];
    }
  }
}

Tensor prod_backward(const Tensor& grad, const Tensor& x, const Tensor& result, const Shape& dims, bool keepdim) {
  // grad or result with the reduced dims back (size 1), to broadcast against x.
  const auto expanded = [&](const Tensor& t) {
    return dims.empty() ? t : unsqueeze_reduced(t, x.sizes(), dims, keepdim);
  };
  if (GradMode::is_enabled() && (grad.requires_grad() || x.requires_grad())) {
    // create_graph: the product of the others as result / x, in recorded operations. With a
    // zero among the elements that division is 0/0, and the loop below is not recorded.
    KINDLING_CHECK(sum(eq(x, 0).to(kFloat64)).item<double>() == 0,
                   "Kindling: the second derivative of prod() over elements that include a zero is not implemented");
    return expanded(grad) * expanded(result) / x;
  }
  if (!x.device().is_cpu()) {
    // On a device, in device ops: result / x where a slice has no zero (PyTorch's formula); where
    // it has one, that element's gradient is the product of the others and every other element's
    // is 0; with two or more, all are 0.
    const Tensor g = expanded(grad), r = expanded(result);
    const Tensor zero = eq(x, 0);
    if (sum(zero).item<std::int64_t>() == 0) return g * r / x;
    const Tensor none = zeros({}, x.dtype());
    const Tensor nonzero = where(zero, ones({}, x.dtype()), x);  // the zeros as 1: their product is the others'
    const Tensor count = dims.empty() ? sum(zero) : sum(zero, dims, true);
    const Tensor others = dims.empty() ? prod(nonzero) : prod(nonzero, dims[0], true);
    return where(zero, where(eq(count, 1), g * others, none), where(eq(count, 0), g * r / x, none));
  }
  // Move the reduced dim last, compute per row, move it back.
  const std::int64_t d = dims.empty() ? -1 : wrap_dim(dims[0], x.dim());
  const Tensor xm = (dims.empty() ? x.reshape({1, -1}) : x.movedim(d, -1)).contiguous();
  const std::int64_t n = xm.dim() == 0 ? 1 : xm.sizes().back();
  const std::int64_t rows = n == 0 ? 0 : xm.numel() / n;
  Tensor g = dims.empty() ? grad.reshape({1}) : unsqueeze_reduced(grad, x.sizes(), dims, keepdim).movedim(d, -1);
  g = g.contiguous();
  Tensor out = empty(xm.sizes(), x.dtype());
  visit_dtype(x.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_floating_point_v<T>)
      prod_others(xm.data_ptr<T>(), g.data_ptr<T>(), out.data_ptr<T>(), rows, n);
  });
  return dims.empty() ? out.view(x.sizes()) : out.movedim(-1, d);
}

// Gradient of max(dim)/min(dim)/index_select: the gradient scattered back to the
// positions `index` names along `dim`.
Tensor scatter_along(const Tensor& grad, std::int64_t dim, const Tensor& index, IntArrayRef sizes, bool index_is_list) {
  if (index_is_list) {  // index_select: entry i of the gradient goes to row index[i]
    Tensor out = zeros(sizes, TensorOptions(grad.dtype()).device(grad.device()));
    if (!grad.device().is_cpu()) {
      device_backend(grad.device().type).index_add(out, dim, index.to(kInt64).contiguous(), grad.contiguous());
    } else {
      const auto idx = index.to_vector<std::int64_t>();
      AutoGradMode off(false);
      for (std::size_t i = 0; i < idx.size(); ++i)
        out.select(dim, idx[i]).add_(grad.select(dim, static_cast<std::int64_t>(i)));
    }
    // Its own derivative (create_graph): the rows it scattered, selected again.
    return attach_backward(out, "IndexSelectBackwardBackward0", {grad}, [dim, index](const Tensor& g) -> TensorList {
      return {kindling::index_select(g, dim, index)};
    });
  }
  // max(dim): grad and index have the input's shape with dim of size 1. On a device, and
  // when the backward is recorded: where(position == index, grad, 0), broadcast along dim.
  if (!grad.device().is_cpu() || (GradMode::is_enabled() && grad.requires_grad())) {
    Shape along(sizes.size(), 1);
    along[static_cast<std::size_t>(dim)] = sizes[static_cast<std::size_t>(dim)];
    Tensor position = arange(sizes[static_cast<std::size_t>(dim)], kInt64).view(along);
    if (!grad.device().is_cpu()) position = position.cuda();
    return where(eq(position, index), grad, zeros({}, grad.dtype())).contiguous();
  }
  Tensor out = zeros(sizes, grad.dtype());
  const Tensor g = grad.movedim(dim, -1).contiguous();
  const Tensor id = index.movedim(dim, -1).contiguous();
  Tensor o = out.movedim(dim, -1).contiguous();
  const std::int64_t n = o.dim() == 0 ? 1 : o.sizes().back();
  const std::int64_t rows = g.numel();
  const auto* ip = id.data_ptr<std::int64_t>();
  visit_dtype(grad.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_floating_point_v<T>) {
      const T* gp = g.data_ptr<T>();
      T* op = o.data_ptr<T>();
      for (std::int64_t r = 0; r < rows; ++r) op[r * n + ip[r]] += gp[r];
    }
  });
  return o.movedim(-1, dim).contiguous();
}

// The gradients of alpha * mm(mat1, mat2) as PyTorch's mm_mat1_backward and mm_mat2_backward give
// them: for an operand stored column-major (OpArgs::column_major; nn.Linear's W.t() is one) the
// gradient is the transpose of a row-major product, (grad^T mat1)^T for mat2 and (mat2 grad^T)^T
// for mat1: the same numbers, in the operand's own layout. W.t()'s gradient then has strides
// (1, in), the transpose's node hands W a contiguous (out, in) gradient, and .grad adds it
// without a strided pass. The transposed products are the task's mm_backward too, called on the
// transposed problem out^T = mat2^T mat1^T (with grad^T, a transposed view), and alpha scales them
// before the transpose, so the layout survives it. An undefined operand is not saved: its
// partner's gradient is not wanted.
std::array<Tensor, 2> mm_grads(const Tensor& grad, const Tensor& mat1, const Tensor& mat2, std::uint8_t column_major,
                               double alpha) {
  const auto scaled = [alpha](const Tensor& t) { return !t.defined() || alpha == 1 ? t : t * alpha; };
  const bool col1 = (column_major & 1) != 0, col2 = (column_major & 2) != 0;
  // The task's mm_backward is called only with at least one operand (nn.Linear's x.mm(W.t()) with
  // an input that needs no gradient has W.t()'s gradient alone to compute, on the transposed side).
  const Tensor row1 = col2 ? Tensor() : mat1, row2 = col1 ? Tensor() : mat2;
  std::array<Tensor, 2> out;
  if (row1.defined() || row2.defined()) {
    const std::array<Tensor, 2> r = mm_backward(grad, row1, row2);
    out = {scaled(r[0]), scaled(r[1])};
  }
  const Tensor mat2_t = col1 && mat2.defined() ? mat2.t() : Tensor();
  const Tensor mat1_t = col2 && mat1.defined() ? mat1.t() : Tensor();
  if (mat2_t.defined() || mat1_t.defined()) {
    const std::array<Tensor, 2> t = mm_backward(grad.t(), mat2_t, mat1_t);  // {grad for mat2^T, grad for mat1^T}
    if (mat2_t.defined()) out[0] = scaled(t[1]).t();
    if (mat1_t.defined()) out[1] = scaled(t[0]).t();
  }
  return out;
}
}  // namespace

// ---- OpNode ---------------------------------------------------------------------------------
OpNode::OpNode(Op op, const Tensor& out, std::span<const Tensor* const> inputs, OpArgs args, bool inplace)
    : op_(op), args_(std::move(args)) {
  std::uint8_t want = 0;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const Tensor& t = *inputs[i];
    Edge e = t.defined() ? gradient_edge(t) : Edge{};
    if (e.valid()) want |= needs(op, i);
    next_edges_.push_back(std::move(e));
  }
  for (std::size_t i = 0; i < inputs.size() && i < 3; ++i) {
    if (!(want & (1 << i))) continue;
    if (!inputs[i]->defined()) {  // the Scalar operand of `x op 2.0` (OpArgs::scalar_operand)
      if (i == 1 && args_.scalar_operand) {
        wrapped_value_ = *args_.scalar_operand;
        wrapped_dtype_ = out.dtype();
        wrapped_slot_ = 1;
      }
      continue;
    }
    if (inputs[i]->impl().is_wrapped_number && wrapped_slot_ < 0) {
      wrapped_value_ = inputs[i]->item();
      wrapped_dtype_ = inputs[i]->dtype();
      wrapped_slot_ = static_cast<std::int8_t>(i);
    } else if (inplace && i == 0) {
      // The write is about to overwrite self: keep a copy of the value the
      // formula needs (a.mul_(b) gives b the gradient grad * a_before), as PyTorch does.
      AutoGradMode off(false);
      slot(i) = SavedVariable(inputs[i]->clone(), false);
    } else {
      slot(i) = SavedVariable(*inputs[i], false);
    }
  }
  if (args_.aux.defined()) {
    if (want & kAuxiliary) slot(kAux) = SavedVariable(args_.aux, false);
    args_.aux = Tensor();
  }
  if (op == Op::Cat || op == Op::Stack)
    for (const Tensor* t : inputs)
      cat_sizes_.push_back(op == Op::Stack ? 1
                           : t->dim() == 1 && t->numel() == 0
                               ? 0
                               : t->sizes()[static_cast<std::size_t>(wrap_dim(args_.dim, t->dim()))]);
  wrapped_exponent_ = op == Op::Pow && inputs.size() > 1 && inputs[1]->defined() && inputs[1]->impl().is_wrapped_number;
  // `2.0 - x` is Python's x.__rsub__(2.0), recorded by PyTorch as RsubBackward1 (the Scalar overload).
  reversed_sub_ = op == Op::Sub && !inputs.empty() && inputs[0]->impl().is_wrapped_number;
  all_dims_ = args_.dims.empty();
  set_output(out);
  output_needed_ = (want & kOutput) != 0;
}

bool OpNode::needs_output() const { return output_needed_; }

void OpNode::save_output(const Tensor& out) { slot(kOut) = SavedVariable(out, true); }

SavedVariable& OpNode::slot(std::size_t i) {
  if (saved_.size() <= i) saved_.resize(i + 1);
  return saved_[i];
}

void OpNode::release_variables() {
  Node::release_variables();
  if (wrapped_slot_ >= 0) wrapped_released_ = true;
}

std::string OpNode::name() const {
  if (reversed_sub_) return "RsubBackward1";
  std::string n = base_name(op_);
  if (op_ == Op::Pow) n += wrapped_exponent_ ? "0" : "1";
  if (op_ == Op::Mul && args_.scalar_overload) n = "MulBackward1";
  if (op_ == Op::Sum || op_ == Op::Mean || op_ == Op::Prod) n += all_dims_ ? "0" : "1";
  return n;
}

TensorList OpNode::apply(const Tensor& grad) {
  std::array<Tensor, kSlots> values;
  for (std::size_t i = 0; i < saved_.size(); ++i) values[i] = unpack_saved(saved_[i], *this);
  if (wrapped_slot_ >= 0) {
    KINDLING_CHECK(!wrapped_released_, kFreedGraphMessage);
    values[static_cast<std::size_t>(wrapped_slot_)] = kindling::detail::wrapped_scalar(wrapped_value_, wrapped_dtype_);
  }
  return op_formula(op_, grad, values, args_, *this, cat_sizes_);
}

// ---- the formulas ------------------------------------------------------------------------------
TensorList op_formula(Op op, const Tensor& grad, const std::array<Tensor, OpNode::kSlots>& s, const OpArgs& args,
                      const Node& node, IntArrayRef cat_sizes) {
  const Tensor& a = s[OpNode::kIn0];
  const Tensor& b = s[OpNode::kIn1];
  const Tensor& c = s[OpNode::kIn2];
  const Tensor& out = s[OpNode::kOut];
  const Tensor& aux = s[OpNode::kAux];
  auto need = [&](std::size_t i) { return node.needs_input_grad(i); };
  switch (op) {
    case Op::Add:
      return {grad, need(1) ? grad * args.alpha : Tensor()};
    case Op::Sub:
      return {grad, need(1) ? grad * -args.alpha.to<double>() : Tensor()};
    case Op::Mul: {
      auto r = mul_backward(grad, a, b);
      return {r[0], r[1]};
    }
    case Op::Div:
      return {need(0) ? grad / b : Tensor(), need(1) ? -grad * a / (b * b) : Tensor()};
    case Op::Pow: {
      Tensor ga, gb;
      // A Scalar exponent's `b - 1` is taken in double, as PyTorch does: two wrapped
      // numbers would compute it in the default dtype (float32), off by 1e-8 for float64.
      if (need(0) && b.impl().is_wrapped_number) {  // PyTorch's Scalar branch: grad * (e * a^(e-1))
        const double e = b.item().to<double>();
        ga = e == 0 ? zeros_like(grad) : grad * kindling::detail::mul_scalar_overload(pow(a, e - 1), e);
      } else if (need(0)) {
        ga = where(eq(b, 0), zeros_like(grad), grad * b * pow(a, b - 1));
      }
      if (need(1)) gb = where(logical_not(eq(a, 0)), grad * out * log(a), zeros_like(grad));
      return {ga, gb};
    }
    case Op::Maximum:
    case Op::Minimum: {
      const Tensor tie = eq(a, b);
      const Tensor half = where(tie, grad / 2, grad);
      const Tensor a_wins = op == Op::Maximum ? gt(a, b) : lt(a, b);
      const Tensor b_wins = op == Op::Maximum ? lt(a, b) : gt(a, b);
      return {masked_fill(half, b_wins, 0), masked_fill(half, a_wins, 0)};
    }
    case Op::Neg:
      return {-grad};
    case Op::Abs:
      return {grad * sign(a)};
    case Op::Sign:
    case Op::Floor:
    case Op::Ceil:
    case Op::Round:
      return {zeros_like(grad)};
    case Op::Exp:
      return {grad * out};
    case Op::Log:
      return {grad / a};
    case Op::Log1p:
      return {grad / (a + 1)};
    case Op::Sqrt:
      return {grad / kindling::detail::mul_scalar_overload(out, 2)};  // PyTorch: grad / (2 * result)
    case Op::Rsqrt:
      return {-0.5 * grad * out * out * out};
    case Op::Sin:
      return {grad * cos(a)};
    case Op::Cos:
      return {-grad * sin(a)};
    case Op::Tanh:
      return {grad * (1 - out * out)};
    case Op::Sigmoid:
      return {grad * out * (1 - out)};
    case Op::Relu:
      return {relu_backward(grad, out)};
    case Op::Reciprocal:
      return {-grad * out * out};
    case Op::Clamp: {
      Tensor g = grad;
      if (args.min) g = where(ge(a, *args.min), g, zeros_like(g));
      if (args.max) g = where(le(a, *args.max), g, zeros_like(g));
      return {g};
    }
    case Op::Clone:
      return {grad};
    case Op::ToCopy:  // the dtype comes back in call_node; a device, here (recorded, under create_graph)
      return {args.device && *args.device != grad.device() ? kindling::detail::move_to(grad, *args.device) : grad};
    case Op::Sum:
      return {unsqueeze_reduced(grad, input_sizes(node, 0), args.dims, args.keepdim).expand(input_sizes(node, 0))};
    case Op::Mean: {
      const IntArrayRef sizes = input_sizes(node, 0);
      const std::int64_t count = numel_of(sizes) / std::max<std::int64_t>(1, numel_of(node.output_sizes()));
      return {unsqueeze_reduced(grad / static_cast<double>(count), sizes, args.dims, args.keepdim).expand(sizes)};
    }
    case Op::Prod:
      return {prod_backward(grad, a, out, args.dims, args.keepdim)};
    case Op::MaxAll:
    case Op::MinAll:
      return {evenly_distribute(grad, a, out)};
    case Op::MaxDim:
    case Op::MinDim: {
      const IntArrayRef sizes = input_sizes(node, 0);
      const std::int64_t d = wrap_dim(args.dim, static_cast<std::int64_t>(sizes.size()));
      const Shape dims{d};
      return {scatter_along(unsqueeze_reduced(grad, sizes, dims, args.keepdim), d,
                            unsqueeze_reduced(aux, sizes, dims, args.keepdim), sizes, false)};
    }
    case Op::Logsumexp: {
      const Shape dims = args.dims;
      const Tensor g = unsqueeze_reduced(grad, a.sizes(), dims, args.keepdim);
      const Tensor r = unsqueeze_reduced(out, a.sizes(), dims, args.keepdim);
      return {g * exp(a - r)};
    }
    case Op::Softmax:
      return {out * (grad - sum(grad * out, {args.dim}, true))};
    case Op::LogSoftmax:
      return {grad - exp(out) * sum(grad, {args.dim}, true)};
    case Op::Dot:
      return {need(0) ? grad * b : Tensor(), need(1) ? grad * a : Tensor()};
    case Op::Mv:
      return {need(0) ? grad.unsqueeze(1) * b.unsqueeze(0) : Tensor(), need(1) ? mv(a.t(), grad) : Tensor()};
    case Op::Mm: {
      auto r = mm_grads(grad, a, b, args.column_major, 1);
      return {r[0], r[1]};
    }
    case Op::Bmm:
      return {need(0) ? bmm(grad, b.transpose(1, 2)) : Tensor(), need(1) ? bmm(a.transpose(1, 2), grad) : Tensor()};
    case Op::Addmm: {
      const double beta = args.beta.to<double>();
      auto r = mm_grads(grad, b, c, args.column_major, args.alpha.to<double>());
      return {need(0) ? (beta == 1 ? grad : grad * beta) : Tensor(), r[0], r[1]};
    }
    case Op::Cat:
    case Op::Stack: {
      TensorList out_grads;
      std::int64_t offset = 0;
      const std::int64_t d = wrap_dim(args.dim, grad.dim());
      for (std::size_t i = 0; i < cat_sizes.size(); ++i) {
        if (op == Op::Stack) {
          out_grads.push_back(grad.select(d, static_cast<std::int64_t>(i)));
          continue;
        }
        out_grads.push_back(need(i) ? grad.narrow(d, offset, cat_sizes[i]) : Tensor());
        if (need(i) && cat_sizes[i] == 0 && input_sizes(node, i).size() == 1)
          out_grads.back() = zeros({0}, grad.dtype());
        offset += cat_sizes[i];
      }
      return out_grads;
    }
    case Op::IndexSelect:
      return {scatter_along(grad, args.dim, aux, input_sizes(node, 0), true)};
    case Op::MaskedFill:
      return {masked_fill(grad, aux, 0)};
    case Op::Where:
      return {need(0) ? where(aux, grad, zeros_like(grad)) : Tensor(),
              need(1) ? where(aux, zeros_like(grad), grad) : Tensor()};
    case Op::Fill:
      return {zeros_like(grad)};
    case Op::Copy:
      return {zeros_like(grad), grad};
  }
  KINDLING_CHECK(false, "no backward formula for ", node.name());
  return {};
}

}  // namespace kindling::autograd::detail
