#!/usr/bin/python3
"""Expected values for week 1, produced by PyTorch 1.13 (Debian's python3-torch).

Run with Debian's interpreter:  /usr/bin/python3 tools/oracle/week01.py
It writes grader/tests/week01/data/oracle.json; the C++ tests read that file and
never need Python. Each case is named; the test builds the same inputs in C++
(the formulas are repeated in the test, next to each case) and compares.
"""
import json
import math
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import error, values  # noqa: E402

assert torch.__version__.startswith("1.13"), torch.__version__
OUT = os.path.join(os.path.dirname(__file__), "..", "..", "grader", "tests", "week01", "data", "oracle.json")
cases = {}


def geometry(t):
    return {"sizes": list(t.shape), "strides": list(t.stride()), "offset": t.storage_offset()}


def X():  # the shared float input: 2x3x4, not all integers
    return torch.arange(24, dtype=torch.float32).reshape(2, 3, 4) / 7 - 1.5


# ---- strides, contiguity, views -------------------------------------------------------------
cases["contiguous_strides"] = [{"sizes": s, "strides": list(torch.empty(s).stride())}
                               for s in ([2, 3, 4], [2, 0, 3], [5], [], [5, 1, 1], [1, 4], [3, 1, 0, 2])]
cases["is_contiguous"] = [
    {"sizes": sz, "strides": st, "contiguous": torch.empty(100).as_strided(sz, st).is_contiguous()}
    for sz, st in ([[2, 3], [3, 1]], [[3, 2], [1, 3]], [[2, 1, 3], [3, 99, 1]], [[0, 4], [7, 7]],
                   [[4], [2]], [[1, 1], [5, 9]], [[2, 3], [4, 1]], [[], []], [[3, 1], [1, 1]])]
cases["view_of_strided_slice"] = geometry(torch.zeros(4, 6)[:, ::2].view(12))
cases["view_split_dims"] = geometry(torch.zeros(4, 6)[:, ::2].view(2, 2, 3))
cases["view_infer"] = geometry(torch.zeros(2, 3, 4).view(-1, 4))
cases["view_zero_numel"] = geometry(torch.zeros(0, 3).view(3, 0))
cases["view_of_transpose_error"] = error(lambda: torch.zeros(2, 3).t().view(6))
cases["view_size_error"] = error(lambda: torch.zeros(6).view(4, 2))
cases["view_two_inferred_error"] = error(lambda: torch.zeros(6).view(-1, -1))
cases["view_negative_error"] = error(lambda: torch.zeros(6).view(-2, 3))
cases["view_ambiguous_zero_error"] = error(lambda: torch.zeros(0).view(0, -1))
a = torch.arange(6.0).view(2, 3)
b = a.view(3, 2)
shared = b.data_ptr() == a.data_ptr()
a.fill_(1)
cases["view_shares_storage"] = {"same_data_ptr": shared, "after_fill": values(b)}
a = torch.arange(6.0).view(2, 3)
b = a.t().reshape(6)
copied = b.data_ptr() != a.data_ptr()
is_view = b._is_view()  # the copy is not a view of anything (reshape's _unsafe_view)
a.fill_(1)
cases["reshape_of_transpose_copies"] = {"copied": copied, "is_view": is_view, "after_fill": values(b)}
a = torch.arange(6.0).view(2, 3)
cases["reshape_contiguous_is_view"] = {"same_data_ptr": a.reshape(3, 2).data_ptr() == a.data_ptr()}
cases["transpose"] = geometry(torch.zeros(2, 3, 4).transpose(0, 2))
cases["permute"] = geometry(torch.zeros(2, 3, 4).permute(2, 0, 1))
cases["t"] = geometry(torch.zeros(2, 3).t())
cases["movedim"] = geometry(torch.zeros(2, 3, 4).movedim(0, -1))
cases["transpose_dim_error"] = error(lambda: torch.zeros(2, 3).transpose(0, 2))
cases["permute_count_error"] = error(lambda: torch.zeros(2, 3).permute(0, 1, 2))
cases["permute_duplicate_error"] = error(lambda: torch.zeros(2, 3).permute(0, 0))
cases["t_3d_error"] = error(lambda: torch.zeros(2, 3, 4).t())
cases["squeeze_all"] = geometry(torch.zeros(2, 1, 3, 1).squeeze())
cases["squeeze_dim"] = geometry(torch.zeros(2, 1, 3, 1).squeeze(1))
cases["squeeze_non_one"] = geometry(torch.zeros(2, 1, 3, 1).squeeze(0))
cases["unsqueeze_front"] = geometry(torch.zeros(2, 3).unsqueeze(0))
cases["unsqueeze_back"] = geometry(torch.zeros(2, 3).unsqueeze(-1))
cases["unsqueeze_of_transpose"] = geometry(torch.zeros(2, 3).t().unsqueeze(1))
cases["unsqueeze_dim_error"] = error(lambda: torch.zeros(2, 3).unsqueeze(3))
cases["expand"] = geometry(torch.zeros(3, 1).expand(2, 3, 4))
cases["expand_keep"] = geometry(torch.zeros(3, 1).expand(-1, 5))
cases["expand_count_error"] = error(lambda: torch.zeros(2, 3).expand(3))
cases["expand_mismatch_error"] = error(lambda: torch.zeros(3).expand(2, 4))
cases["expand_leading_minus_one_error"] = error(lambda: torch.zeros(3).expand(-1, 3))
cases["broadcast_error"] = error(lambda: torch.zeros(2, 3) + torch.zeros(2, 2))
g = torch.arange(24).view(4, 6)
cases["slice_step"] = geometry(g[1:3, ::2])
cases["slice_negative"] = geometry(g[:, -2:])
cases["slice_past_end"] = geometry(g[5:10])
cases["narrow"] = geometry(g.narrow(1, 2, 3))
cases["narrow_negative_start"] = geometry(g.narrow(1, -2, 2))
cases["select"] = geometry(g.select(1, 4))
cases["select_negative"] = geometry(g[-1])
cases["narrow_length_error"] = error(lambda: g.narrow(1, 3, 5))
cases["narrow_start_error"] = error(lambda: g.narrow(1, 7, 0))
cases["select_error"] = error(lambda: g.select(0, 5))
cases["slice_step_error"] = error(lambda: g[::0])
cases["elements_of_permuted_slice"] = values(g.t()[1:5:2].permute(1, 0).contiguous())
cases["dim_out_of_range_error"] = error(lambda: g.size(2))

# ---- dtypes and promotion -----------------------------------------------------------------
dts = [torch.bool, torch.uint8, torch.int32, torch.int64, torch.float32, torch.float64]
cases["promote_tensor_tensor"] = [[str((torch.ones(2, dtype=x) + torch.ones(2, dtype=y)).dtype).replace("torch.", "")
                                   for y in dts] for x in dts]
cases["promote_tensor_int"] = [str((torch.ones(2, dtype=x) * 2).dtype).replace("torch.", "") for x in dts]
cases["promote_tensor_float"] = [str((torch.ones(2, dtype=x) * 2.5).dtype).replace("torch.", "") for x in dts]
cases["promote_tensor_zero_dim"] = [[str((torch.ones(2, dtype=x) + torch.ones((), dtype=y)).dtype).replace("torch.", "")
                                     for y in dts] for x in dts]
cases["int_true_division"] = values(torch.tensor([1, 2, 3]) / 2)
# A Scalar operand out of an integer tensor's range: true division and pow's check see its own value.
for _name, _fn in {"u8_div_neg2": lambda: torch.tensor([4, 9], dtype=torch.uint8) / -2,
                   "u8_div_256": lambda: torch.tensor([4, 9], dtype=torch.uint8) / 256,
                   "neg1_div_u8": lambda: -1 / torch.tensor([4, 9], dtype=torch.uint8),
                   "i32_div_big": lambda: torch.tensor([4, 9], dtype=torch.int32) / 2**33,
                   "u8_mul_300": lambda: torch.tensor([4, 9], dtype=torch.uint8) * 300}.items():
    cases["scalar_" + _name] = values(_fn())
# Comparisons with a Scalar, computed in result_type(tensor, scalar): out-of-range and
# fractional scalars beside small ints, a double beside float32, big int64 values.
_u8 = torch.tensor([4, 9, 255], dtype=torch.uint8)
_i64 = torch.tensor([2**53, 2**53 + 1], dtype=torch.int64)
for _name, _fn in {"u8_gt_neg1": lambda: _u8 > -1, "u8_lt_256": lambda: _u8 < 256, "u8_eq_255": lambda: _u8 == 255,
                   "i32_gt_2p5": lambda: torch.tensor([1, 2, 3], dtype=torch.int32) > 2.5,
                   "i32_le_2": lambda: torch.tensor([1, 2, 3], dtype=torch.int32) <= 2,
                   "f32_eq_0p1": lambda: torch.tensor([0.1, 0.2], dtype=torch.float32) == 0.1,
                   "f64_ne_0p1": lambda: torch.tensor([0.1, 0.2], dtype=torch.float64) != 0.1,
                   "bool_eq_1": lambda: torch.tensor([True, False]) == 1,
                   "bool_ge_0p5": lambda: torch.tensor([True, False]) >= 0.5,
                   "i64_eq_big": lambda: _i64 == 2**53 + 1, "i64_gt_float": lambda: _i64 > 2.0**53,
                   "nan_gt_0": lambda: torch.tensor([float("nan"), 1.0]) > 0}.items():
    cases["compare_" + _name] = values(_fn())
# Subtraction with a bool operand: two bools, or one, a Scalar True included.
for _name, _fn in {"bool_scalar": lambda: torch.tensor([1.0, 2.0]) - True,
                   "scalar_bool": lambda: True - torch.tensor([1.0, 2.0]),
                   "int_bool_scalar": lambda: torch.tensor([1, 2]) - True,
                   "float_bool_tensor": lambda: torch.tensor([1.0]) - torch.tensor([True]),
                   "bool_bool_scalar": lambda: torch.tensor([True]) - True}.items():
    cases["sub_" + _name + "_error"] = error(_fn)
cases["u8_negative_power_error"] = error(lambda: torch.tensor([4, 9], dtype=torch.uint8).pow(-1))
cases["i64_negative_power_error"] = error(lambda: torch.tensor([4, 9]).pow(-1))
cases["bool_negative_power_error"] = error(lambda: torch.tensor([True]).pow(-1))
# A tensor of negative exponents is computed (powi's truncated reciprocals), for int64 and int32; a
# 0-d tensor exponent is a tensor, not a Scalar; uint8's -1 wraps to 255.
_base = torch.tensor([2, 1, -1, -1, 0, -2, 3, 5, 1, -1])
_exps = torch.tensor([-1, -1, -1, -2, -1, -2, -3, 0, -7, -7])
cases["int_pow_negative"] = {"int64": values(torch.pow(_base, _exps)),
                             "int32": values(torch.pow(_base.int(), _exps.int())),
                             "zero_dim_exponent": values(torch.pow(_base, torch.tensor(-1))),
                             "uint8_zero_dim": values(torch.pow(torch.tensor([2, 0, 1], dtype=torch.uint8),
                                                                torch.tensor(-1))),
                             "scalar_base": values(torch.pow(2, _exps))}
# Ops whose CPU kernel has no bool version, after the checks of their arguments.
_flags = torch.tensor([True, False])
cases["bool_kernel_errors"] = {
    "abs": error(lambda: torch.abs(_flags)),
    "floor": error(lambda: torch.floor(_flags)),
    "ceil": error(lambda: torch.ceil(_flags)),
    "round": error(lambda: torch.round(_flags)),
    "pow": error(lambda: torch.pow(_flags, _flags)),
    "pow_scalar": error(lambda: torch.pow(_flags, True)),
    "argmax": error(lambda: torch.argmax(_flags)),
    "argmin_dim": error(lambda: torch.argmin(torch.zeros(2, 3, dtype=torch.bool), 1)),
    "argmax_dim_first": error(lambda: torch.argmax(_flags, 3)),
    "argmax_empty_dim_first": error(lambda: torch.argmax(torch.zeros(0, 3, dtype=torch.bool), 0)),
}
# Where PyTorch runs no argmax kernel (a given dim of size 1, an empty result), bool is not refused;
# without a dim, keepdim keeps every dim as size 1. Softmax of an empty integer tensor returns before
# the dispatch. A Scalar exponent is compared as a double: 0.50000001 is not sqrt's 0.5.
cases["arg_extreme_no_kernel"] = {
    "size_one_dim": values(torch.argmax(torch.tensor([True]), 0)),
    "size_one_dim_keep": values(torch.argmin(torch.tensor([[True], [False]]), 1, keepdim=True)),
    "empty_result": values(torch.argmax(torch.zeros(3, 0, dtype=torch.bool), 0)),
    "zero_dim_bool": error(lambda: torch.argmax(torch.tensor(True), 0)),
    "keepdim_no_dim": values(torch.argmax(torch.tensor([[1.0, 5.0, 2.0], [0.0, 7.0, 1.0]]), keepdim=True)),
    "softmax_empty_int": values(torch.softmax(torch.zeros(0, 3, dtype=torch.long), 0)),
    "log_softmax_empty_int": values(torch.log_softmax(torch.zeros(0, 3, dtype=torch.long), 1)),
}
_edges = torch.tensor([-0.0, float("-inf"), 4.0])
cases["pow_near_special_exponents"] = {
    "float32_above_half": values(_edges ** 0.50000001), "float32_half": values(_edges ** 0.5),
    "float64_half": values(_edges.double() ** 0.5), "float32_near_minus_half": values(_edges ** -0.49999999),
}
# NaN and -0.0 through relu and abs: relu keeps both (0 only where x < 0); abs(-0.0) is +0.0.
_specials = torch.tensor([float("nan"), -0.0, 0.0, -1.0, 2.0])
cases["relu_abs_specials"] = {
    "relu": values(torch.relu(_specials)), "abs": values(torch.abs(_specials)),
    "relu_signbit": [math.copysign(1.0, v) < 0 for v in torch.relu(_specials).tolist()],
    "abs_signbit": [math.copysign(1.0, v) < 0 for v in torch.abs(_specials).tolist()],
}
cases["inplace_cast_error"] = error(lambda: torch.ones(3, dtype=torch.int64).add_(torch.ones(3)))
cases["inplace_broadcast_error"] = error(lambda: torch.ones(3).add_(torch.ones(2, 3)))
cases["expanded_write_error"] = error(lambda: torch.zeros(3, 1).expand(3, 4).add_(1))
cases["bool_sub_error"] = error(lambda: torch.tensor([True]) - torch.tensor([False]))

# ---- math ------------------------------------------------------------------------------------
x = X()
for name in ["exp", "tanh", "sigmoid", "relu", "abs", "neg", "floor", "ceil", "round", "sin", "cos", "square", "sign"]:
    cases["unary_" + name] = values(getattr(torch, name)(x))
cases["unary_log"] = values(torch.log(x.abs() + 0.1))
cases["unary_sqrt"] = values(torch.sqrt(x.abs()))
cases["binary_broadcast"] = values(x * torch.tensor([1.0, -2.0, 3.0, 0.5]) + x[:, :1, :] / 3 - x.mean())
cases["pow"] = values(torch.pow(x.abs(), 1.5))
cases["maximum"] = values(torch.maximum(x, x.flip(2)))
cases["clamp"] = values(torch.clamp(x, -0.5, 0.75))
cases["compare"] = values(x > 0.1)
cases["sum_all"] = values(x.sum())
cases["sum_dim1"] = values(x.sum(1))
cases["sum_dims_keep"] = values(x.sum((0, 2), keepdim=True))
cases["sum_int"] = values(torch.arange(10, dtype=torch.int32).sum())
cases["sum_transposed"] = values(x.transpose(0, 2).sum(0))
cases["mean_dim"] = values(x.mean(-1))
cases["mean_int_error"] = error(lambda: torch.arange(3).mean())
# A reduction's result is a tensor of its own, never a view (so detach_() accepts it).
cases["reductions_are_not_views"] = [r._is_view() for r in [
    x.sum(), x.transpose(0, 2).sum(), x.sum(1), x.sum((0, 2), keepdim=True), x.mean(), x.mean(-1), x.prod(2),
    x.max(), x.logsumexp(1), torch.arange(10, dtype=torch.int32).sum()]]
cases["prod_dim"] = values(x.prod(2))
mx = x.max(1)
cases["max_dim"] = {"values": values(mx.values), "indices": values(mx.indices)}
mn = x.min(2, keepdim=True)
cases["min_dim_keep"] = {"values": values(mn.values), "indices": values(mn.indices)}
cases["argmax_all"] = values(x.argmax())
cases["argmin_dim"] = values(x.argmin(0))
cases["argmax_ties"] = values(torch.tensor([1.0, 3.0, 3.0, 2.0]).argmax())
cases["max_empty_error"] = error(lambda: torch.zeros(0).max())
big = torch.tensor([[1000.0, 1001.0, 1002.0], [-1000.0, -1001.0, -1002.0]])
cases["softmax_large"] = values(torch.softmax(big, 1))
cases["log_softmax_large"] = values(torch.log_softmax(big, 1))
cases["logsumexp_large"] = values(torch.logsumexp(big, 1))
cases["logsumexp_inf"] = values(torch.logsumexp(torch.tensor([[float("-inf"), float("-inf")], [float("inf"), 1.0]]), 1))
cases["softmax_dim0"] = values(torch.softmax(x, 0))
cases["log_softmax_dim1"] = values(torch.log_softmax(x, 1))
# An integer input: the dim is checked first, then the kernel PyTorch's CPU dispatch picks is named.
_long23 = torch.zeros(2, 3, dtype=torch.long)
cases["softmax_integer_errors"] = {
    "softmax_last": error(lambda: torch.softmax(_long23, -1)),
    "log_softmax_last": error(lambda: torch.log_softmax(_long23, 1)),
    "softmax_dim0": error(lambda: torch.softmax(_long23, 0)),
    "log_softmax_dim0": error(lambda: torch.log_softmax(_long23, 0)),
    "log_softmax_scalar": error(lambda: torch.log_softmax(torch.tensor(1), 0)),
    "softmax_bool": error(lambda: torch.softmax(torch.tensor([True]), 0)),
    "bad_dim_first": error(lambda: torch.softmax(_long23, 5)),
}

# ---- matrix products ----------------------------------------------------------------------
A = x[0]            # 3x4
B = x[1].t()        # 4x3, transposed (column-major)
cases["mm"] = values(torch.mm(A, B))
cases["mm_transposed_a"] = values(torch.mm(A.t(), A))
cases["mv"] = values(torch.mv(A, x[1, 0]))
cases["dot"] = values(torch.dot(x[0, 0], x[1, 2]))
cases["bmm"] = values(torch.bmm(x, x.transpose(1, 2)))
cases["matmul_broadcast"] = values(torch.matmul(x.unsqueeze(1), x[0].t()))
cases["matmul_batched_vector"] = values(torch.matmul(x, x[0, 0]))
cases["matmul_vector_matrix"] = values(torch.matmul(x[0, 0], x[1].t()))
cases["addmm"] = values(torch.addmm(torch.tensor([1.0, -1.0, 0.5]), A, B, beta=0.5, alpha=2.0))
cases["mm_int"] = values(torch.mm(torch.arange(6).view(2, 3), torch.arange(6).view(3, 2)))
cases["mm_shape_error"] = error(lambda: torch.mm(torch.zeros(2, 3), torch.zeros(2, 3)))
cases["mm_dtype_error"] = error(lambda: torch.mm(torch.zeros(2, 2), torch.zeros(2, 2, dtype=torch.float64)))
cases["dot_size_error"] = error(lambda: torch.dot(torch.zeros(3), torch.zeros(2)))
cases["mv_size_error"] = error(lambda: torch.mv(torch.zeros(2, 3), torch.zeros(2)))
cases["bmm_size_error"] = error(lambda: torch.bmm(torch.zeros(2, 3, 4), torch.zeros(2, 5, 6)))
cases["matmul_nd_error"] = error(lambda: torch.matmul(torch.zeros(2, 3, 4), torch.zeros(5, 6)))

# ---- joining, indexing, einsum --------------------------------------------------------------
cases["cat_dim1"] = values(torch.cat([x[0], x[1, :, :2]], 1))
cases["cat_promotes"] = values(torch.cat([torch.arange(2), torch.tensor([0.5])]))
cases["cat_size_error"] = error(lambda: torch.cat([torch.zeros(2, 3), torch.zeros(3, 3)], 1))
# Texts checked in PyTorch's order: every tensor's rank before the others' ranks, addmm's dtypes before its shapes.
cases["cat_zero_dim_error"] = error(lambda: torch.cat([torch.ones(2, 2), torch.ones(3), torch.tensor(2.0)]))
cases["flip_duplicate_error"] = error(lambda: torch.ones(2, 3).flip([1, -1]))
cases["relu_bool_error"] = error(lambda: torch.relu(torch.tensor([True])))
cases["slice_step_zero_error"] = error(lambda: torch.ones(3)[::0])
cases["addmm_mat1_rank_error"] = error(lambda: torch.addmm(torch.ones(2, 4), torch.ones(3), torch.ones(3, 4)))
cases["addmm_dtype_before_rank_error"] = error(lambda: torch.addmm(torch.ones(2, 4), torch.ones(3),
                                                                   torch.ones(3, 4, dtype=torch.float64)))
cases["einsum_repeated_error"] = error(lambda: torch.einsum("ij,kk->ik", torch.ones(2, 2), torch.ones(3, 2)))
_f32, _f64 = torch.ones(2, 3), torch.ones(3, 4, dtype=torch.float64)
cases["bmm_dtype_error"] = error(lambda: torch.bmm(torch.ones(2, 2, 3), torch.ones(2, 3, 4, dtype=torch.float64)))
cases["addmm_self_dtype_error"] = error(lambda: torch.addmm(torch.ones(2, 4), _f32, _f64))
cases["addmm_mat1_dtype_error"] = error(lambda: torch.addmm(torch.ones(4), _f32.double(), torch.ones(3, 4)))
cases["addmm_dtype_before_shape_error"] = error(lambda: torch.addmm(torch.ones(2, 4), _f32, torch.ones(4, 4).double()))
cases["linear_double_input_error"] = error(lambda: torch.nn.functional.linear(torch.ones(5, 3).double(),
                                                                              torch.ones(4, 3), torch.ones(4)))
cases["stack_dim1"] = values(torch.stack([x[0, 0], x[1, 1]], 1))
cases["stack_size_error"] = error(lambda: torch.stack([torch.zeros(2), torch.zeros(3)]))
cases["chunk_sizes"] = [list(c.shape) for c in torch.arange(10).chunk(4)]
cases["split_sizes"] = [list(c.shape) for c in torch.arange(10).split(3)]
cases["split_with_sizes_error"] = error(lambda: torch.arange(4).split([1, 2]))
cases["index_select"] = values(torch.index_select(x, 2, torch.tensor([3, 0, 3])))
cases["index_select_error"] = error(lambda: torch.index_select(x, 1, torch.tensor([3])))
cases["masked_select"] = values(torch.masked_select(x, x > 0.5))
cases["masked_fill"] = values(x.masked_fill(x[:, :, :1] > 0, -1.0))
cases["where"] = values(torch.where(x > 0, x, torch.tensor(0.25)))
# A uint8 condition is accepted (nonzero is true; PyTorch 1.13 warns that it is deprecated); int32 is refused.
cases["where_uint8"] = values(torch.where(torch.tensor([[2], [0]], dtype=torch.uint8), x[0, :2, :3], torch.tensor(0.25)))
cases["where_int_error"] = error(lambda: torch.where(torch.tensor([1, 0], dtype=torch.int32), torch.zeros(2), torch.ones(2)))
cases["repeat"] = values(torch.tensor([[1, 2], [3, 4]]).repeat(2, 1, 3))
cases["repeat_error"] = error(lambda: torch.zeros(2, 3).repeat(2))
cases["einsum_mm"] = values(torch.einsum("ij,jk->ik", A, B))
cases["einsum_bmm"] = values(torch.einsum("bij,bkj->bik", x, x))
cases["einsum_trace"] = values(torch.einsum("ii->", torch.mm(A, B)))
cases["einsum_diag"] = values(torch.einsum("ii->i", torch.mm(A, B)))
cases["einsum_transpose"] = values(torch.einsum("ij->ji", A))
cases["einsum_outer"] = values(torch.einsum("i,j->ij", x[0, 0], x[1, 1]))
cases["einsum_sum"] = values(torch.einsum("bij->j", x))
cases["einsum_implicit"] = values(torch.einsum("ij,jk", A, B))

# ---- factories and printing -----------------------------------------------------------------
cases["arange_float"] = values(torch.arange(0, 1, 0.25))
cases["linspace"] = values(torch.linspace(-1, 1, 5))
cases["full_int"] = values(torch.full((2,), 7))
cases["tensor_nested"] = values(torch.tensor([[1, 2], [3, 4]]))
cases["tensor_mixed"] = values(torch.tensor([1, 2.5]))
cases["tensor_ragged_error"] = error(lambda: torch.tensor([[1, 2], [3]]))
cases["negative_size_error"] = error(lambda: torch.zeros(2, -1))
printing = {
    "ints_2x3": torch.arange(6).view(2, 3),
    "floats_int_mode": torch.arange(6.0).view(2, 3),
    "floats_fixed": X()[0],
    "floats_sci": torch.tensor([1e-5, 1.0, 123456.0]),
    "float64": torch.tensor([0.5, 1.25], dtype=torch.float64),
    "int32": torch.tensor([1, -20], dtype=torch.int32),
    "bools": torch.tensor([True, False]),
    "scalar": torch.tensor(3.5),
    "empty": torch.zeros(0),
    "empty_2d_int": torch.zeros(0, 3, dtype=torch.int64),
    "three_d": torch.arange(8).view(2, 2, 2),
    "nan_inf": torch.tensor([float("nan"), float("inf"), -1.0, 2.0]),
    "long_row": torch.arange(30.0) / 3,
    "summarized": torch.arange(2000).view(40, 50),
    "uint8_suffix_wrap": torch.arange(20, dtype=torch.uint8) * 11,
}
cases["print"] = {k: str(v) for k, v in printing.items()}

# ---- graded tasks on the study notes' concepts -------------------------------------------------
# Random cases come from one seeded generator, so the file is the same on every run. Inputs are
# written out with their values ("x", "a", ...), so the C++ tests rebuild them exactly.
gen = torch.Generator().manual_seed(16)


def rint(lo, hi):  # an integer in [lo, hi], from the seeded generator
    return int(torch.randint(lo, hi + 1, (1,), generator=gen))


def rshape(lo_dims, hi_dims, hi_size=4, lo_size=1):
    return [rint(lo_size, hi_size) for _ in range(rint(lo_dims, hi_dims))]


def rnd(shape):  # float32 values with a few exact ties, so that argmax's "first index" rule matters
    return (torch.randint(-6, 7, shape, generator=gen).float() / 4 + torch.randn(shape, generator=gen) * (
        torch.rand(shape, generator=gen) < 0.5)).float()


def broadcastable_to(shape):  # a shape that broadcasts to `shape`: leading dims dropped, some sizes set to 1
    out = [s if rint(0, 2) else 1 for s in shape]
    return out[rint(0, len(out)):] if rint(0, 1) else out


# week01.masking: index_select, masked_select, masked_fill_.
cases["index_select_random"] = []
for _ in range(40):
    shape = rshape(1, 4)
    d = rint(0, len(shape) - 1)
    index = [rint(0, shape[d] - 1) for _ in range(rint(0, 5))]
    dtype = torch.int32 if rint(0, 3) == 0 else torch.int64
    x = rnd(shape)
    cases["index_select_random"].append({"x": values(x), "dim": d - len(shape) * rint(0, 1), "index": index,
                                         "int32": dtype == torch.int32,
                                         "out": values(torch.index_select(x, d, torch.tensor(index, dtype=dtype)))})
cases["index_select_errors"] = []
for shape, d, index in (([5], 0, [5]), ([3, 4], 0, [-1]), ([3, 4], 1, [1, 4]), ([2, 3, 4], 1, [-1]),
                        ([2, 3, 4], 2, [0, 9]), ([2, 3, 4, 5], 1, [3])):
    cases["index_select_errors"].append({"sizes": shape, "dim": d, "index": index, "error": error(
        lambda: torch.index_select(torch.zeros(shape), d, torch.tensor(index)))})
cases["index_select_matrix_index_error"] = error(lambda: torch.index_select(torch.zeros(3), 0, torch.tensor([[0]])))
cases["index_select_float_index_error"] = error(lambda: torch.index_select(torch.zeros(3), 0, torch.tensor([0.0])))
cases["index_select_scalar"] = values(torch.index_select(torch.tensor(2.5), 0, torch.tensor([0])))
cases["masked_select_random"] = []
for _ in range(30):
    shape = rshape(0, 4)
    mshape = broadcastable_to(shape)
    if rint(0, 4) == 0:  # the mask may broadcast x too
        shape, mshape = mshape, shape
    x = rnd(shape)
    mask = torch.rand(mshape, generator=gen) < 0.5
    cases["masked_select_random"].append({"x": values(x), "mask": values(mask.long()),
                                          "out": values(torch.masked_select(x, mask))})
cases["masked_select_shape_error"] = error(lambda: torch.masked_select(torch.zeros(3, 4), torch.ones(2, dtype=torch.bool)))
cases["masked_select_dtype_error"] = error(lambda: torch.masked_select(torch.zeros(3, 4), torch.zeros(3, 4)))
cases["masked_fill_random"] = []
for _ in range(30):
    shape = rshape(0, 4)
    mshape = broadcastable_to(shape)
    x = rnd(shape)
    mask = torch.rand(mshape, generator=gen) < 0.5
    value = float(rint(-8, 8)) / 2
    cases["masked_fill_random"].append({"x": values(x), "mask": values(mask.long()), "value": value,
                                        "out": values(x.clone().masked_fill_(mask, value))})
t = torch.arange(6)
t[t > 3] = 0  # the notes' masked write, t[t > 3] = 0
cases["masked_write_notes"] = values(t)
cases["masked_fill_int_truncates"] = values(torch.arange(4).masked_fill_(torch.tensor([True, False, True, False]), 2.5))
cases["masked_fill_broadcast_error"] = error(
    lambda: torch.zeros(3, 4).masked_fill_(torch.ones(2, dtype=torch.bool), 1.0))
cases["masked_fill_grow_error"] = error(
    lambda: torch.zeros(3, 4).masked_fill_(torch.ones(2, 3, 4, dtype=torch.bool), 1.0))

# week01.empty_like: PyTorch's preserve_format strides for every kind of view.
cases["empty_like_random"] = []
while len(cases["empty_like_random"]) < 80:
    x = torch.zeros([rint(0, 4) if rint(0, 9) == 0 else rint(1, 4) for _ in range(rint(0, 4))])
    for _ in range(rint(1, 3)):
        op = rint(0, 3)
        if op == 0 and x.dim() > 0:
            x = x.permute(torch.randperm(x.dim(), generator=gen).tolist())
        elif op == 1 and x.dim() > 0:
            d = rint(0, x.dim() - 1)
            x = x.narrow(d, 0, x.shape[d])[(slice(None),) * d + (slice(rint(0, 1), None, rint(1, 3)),)]
        elif op == 2 and x.dim() > 0:
            x = x.expand([rint(1, 3) if s == 1 else s for s in x.shape])
        elif op == 3:
            x = x.unsqueeze(rint(0, x.dim()))
    e = torch.empty_like(x)
    assert e.shape == x.shape
    cases["empty_like_random"].append({"sizes": list(x.shape), "strides": list(x.stride()),
                                       "offset": x.storage_offset(), "like_strides": list(e.stride())})
cases["empty_like_notes"] = {"strides": list(torch.empty_like(torch.zeros(2, 3).t()).stride()),
                             "int64_strides": list(torch.empty_like(torch.zeros(2, 3).t(), dtype=torch.int64).stride())}

# week01.add_out: torch.can_cast and add(a, b, out=out).
dts = [torch.bool, torch.uint8, torch.int32, torch.int64, torch.float32, torch.float64]
cases["can_cast"] = [[torch.can_cast(x, y) for y in dts] for x in dts]
cases["add_out_random"] = []
for _ in range(30):
    shape = rshape(0, 3)
    a_shape, b_shape = broadcastable_to(shape), broadcastable_to(shape)
    a_int, b_int = rint(0, 1) == 0, rint(0, 2) == 0
    a = torch.randint(-9, 10, a_shape, generator=gen) if a_int else rnd(a_shape)
    b = torch.randint(-9, 10, b_shape, generator=gen) if b_int else rnd(b_shape)
    rt = torch.result_type(a, b)
    out_dtype = [d for d in (torch.int32, torch.int64, torch.float32, torch.float64) if torch.can_cast(rt, d)][
        rint(0, 1 if rt.is_floating_point else 3)]
    out_shape = [[], [0], [rint(1, 9)], list(torch.broadcast_shapes(a.shape, b.shape))][rint(0, 3)]
    alpha = rint(-2, 2)
    out = torch.zeros(out_shape, dtype=out_dtype)
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.add(a, b, alpha=alpha, out=out)
    cases["add_out_random"].append({"a": values(a), "b": values(b), "alpha": alpha, "out_sizes": out_shape,
                                    "out_dtype": str(out_dtype).replace("torch.", ""), "out": values(out)})
big = torch.tensor([2 ** 24 + 1, 3])
out = torch.zeros(2)
torch.add(big, torch.zeros(2, dtype=torch.int64), out=out)
cases["add_out_int64_to_float32"] = values(out)
out = torch.zeros(2, dtype=torch.uint8)
torch.add(torch.tensor([True, False]), torch.tensor([True, True]), out=out)
cases["add_out_bool_to_uint8"] = values(out)
out = torch.zeros(3, 2).t()
torch.add(torch.arange(6.0).view(2, 3), torch.ones(3), out=out)
cases["add_out_strided"] = {"out": values(out), "strides": list(out.stride())}
out = torch.empty(0)
v = out._version
r = torch.add(torch.arange(6.0).view(2, 3), torch.ones(3), out=out)
cases["add_out_empty"] = {"same": r is out, "version_bump": out._version - v, "sizes": list(out.shape),
                          "strides": list(out.stride())}
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    out = torch.zeros(10)
    p = out.data_ptr()
    torch.add(torch.arange(6.0).view(2, 3), torch.ones(3), out=out)
    big_enough = out.data_ptr() == p
    out = torch.zeros(5)
    p = out.data_ptr()
    torch.add(torch.arange(6.0).view(2, 3), torch.ones(3), out=out)
    cases["add_out_resize"] = {"kept_big_enough": big_enough, "kept_too_small": out.data_ptr() == p,
                               "strides": list(out.stride())}
cases["add_out_float_to_long_error"] = error(
    lambda: torch.add(torch.ones(2), torch.ones(2), out=torch.zeros(2, dtype=torch.int64)))
cases["add_out_long_to_bool_error"] = error(
    lambda: torch.add(torch.ones(2, dtype=torch.int64), torch.ones(2, dtype=torch.int64),
                      out=torch.zeros(2, dtype=torch.bool)))
cases["add_out_autograd_error"] = error(
    lambda: torch.add(torch.ones(2, requires_grad=True), torch.ones(2), out=torch.empty(0)))
cases["add_out_expanded_error"] = error(
    lambda: torch.add(torch.ones(3, 2), torch.ones(3, 2), out=torch.zeros(3, 1).expand(3, 2)))
cases["casts"] = {"float_to_int64": values(torch.tensor([-2.7, 2.7, -0.5, 0.5]).to(torch.int64)),
                  "float_to_uint8": values(torch.tensor([-1.5, 300.7, 255.9]).to(torch.uint8)),
                  "to_bool": values(torch.tensor([0.0, -0.0, 0.1, float("nan")]).to(torch.bool)),
                  "int64_to_float32": values(torch.tensor([2 ** 24, 2 ** 24 + 1, 2 ** 24 + 3]).to(torch.float32))}

# week01.matmul: dot, mv, mm, folding and batched products, chosen by rank.
cases["matmul_random"] = []
for ra in (1, 2, 3, 4):
    for rb in (1, 2, 3, 4):
        for _ in range(3):
            n, k, m = rint(1, 4), rint(0, 4) if rint(0, 5) == 0 else rint(1, 4), rint(1, 4)
            batch = rshape(max(ra, rb) - 2, max(ra, rb) - 2, 3) if max(ra, rb) > 2 else []
            a_batch = broadcastable_to(batch)[-(ra - 2):] if ra > 2 else []
            b_batch = broadcastable_to(batch)[-(rb - 2):] if rb > 2 else []
            a_batch = [1] * (max(ra - 2, 0) - len(a_batch)) + a_batch
            b_batch = [1] * (max(rb - 2, 0) - len(b_batch)) + b_batch
            a = rnd([k] if ra == 1 else a_batch + [n, k])
            b = rnd([k] if rb == 1 else b_batch + [k, m])
            cases["matmul_random"].append({"a": values(a), "b": values(b), "out": values(torch.matmul(a, b))})
cases["matmul_int"] = values(torch.matmul(torch.arange(6).view(2, 3), torch.arange(3)))
z = torch.zeros
cases["matmul_errors"] = [
    {"a": sa, "b": sb, "error": error(lambda: torch.matmul(z(sa), z(sb)))}
    for sa, sb in (([], [3]), ([3], [2]), ([2, 3], [2]), ([3], [2, 4]), ([2, 3], [2, 3]), ([2, 3, 4], [5]),
                   ([2, 3, 4], [5, 6]), ([3], [2, 5, 6]), ([2, 3], [2, 5, 6]), ([2, 3, 4], [2, 5, 6]),
                   ([2, 3, 4], [3, 4, 6]))]

# week01.max_dim: max/min(dim, keepdim), argmax/argmin.
cases["max_dim_random"] = []
for _ in range(40):
    shape = rshape(0, 4)
    x = rnd(shape)
    if rint(0, 4) == 0 and x.numel() > 0:
        x.view(-1)[rint(0, x.numel() - 1)] = float("nan")
    d = rint(0, max(len(shape) - 1, 0)) - (len(shape) if rint(0, 1) and shape else 0)
    keep = rint(0, 1) == 1
    mx, mn = x.max(d, keepdim=keep), x.min(d, keepdim=keep)
    cases["max_dim_random"].append({"x": values(x), "dim": d, "keepdim": keep, "max": values(mx.values),
                                    "argmax_dim": values(mx.indices), "min": values(mn.values),
                                    "argmin_dim": values(mn.indices), "argmax": values(x.argmax()),
                                    "argmin": values(x.argmin())})
cases["max_dim_int"] = {"values": values(torch.tensor([[3, 7, 7], [2, 1, 2]]).max(1).values),
                        "indices": values(torch.tensor([[3, 7, 7], [2, 1, 2]]).max(1).indices)}
cases["max_dim_bool"] = values(torch.tensor([[False, True, True], [False, False, False]]).max(1).indices)
cases["max_dim_empty_error"] = error(lambda: torch.zeros(2, 0).max(1))
cases["argmax_empty_error"] = error(lambda: torch.zeros(0).argmax())
cases["argmax_dim_range_error"] = error(lambda: torch.zeros(2, 3).argmax(2))
cases["argmax_empty_rows"] = values(torch.zeros(0, 3).argmax(1))

# week01.repeat: tiling copies, against expand's free views.
cases["repeat_random"] = []
for _ in range(30):
    shape = rshape(0, 3)
    reps = [rint(0, 3) if rint(0, 5) == 0 else rint(1, 3) for _ in range(len(shape) + rint(0, 2))]
    x = torch.randint(-9, 10, shape, generator=gen)
    strided = x.dim() >= 2 and rint(0, 1) == 1  # the test also repeats a non-contiguous copy of x
    xs = x.transpose(0, -1).contiguous().transpose(0, -1) if strided else x
    cases["repeat_random"].append({"x": values(x), "strided": strided, "repeats": reps, "out": values(xs.repeat(reps))})
cases["repeat_negative_error"] = error(lambda: torch.zeros(2, 3).repeat(2, -1))

# week01.split: chunk and split return views along one dim; chunk may return fewer pieces.
cases["split_random"] = []
for _ in range(40):
    shape = rshape(1, 3, hi_size=7, lo_size=0 if rint(0, 6) == 0 else 1)
    transposed = len(shape) >= 2 and rint(0, 1) == 1
    x = torch.arange(int(torch.tensor(shape).prod()), dtype=torch.float32).reshape(shape)
    if transposed:
        x = x.transpose(0, -1)
    d = rint(0, x.dim() - 1) - (x.dim() if rint(0, 1) else 0)
    size = x.shape[d]
    kind = ["chunk", "split_size", "split_sizes"][rint(0, 2)]
    if kind == "chunk":
        arg = rint(1, 8)
        pieces = x.chunk(arg, d)
    elif kind == "split_size":
        arg = rint(1, 5) if size else rint(0, 3)
        pieces = x.split(arg, d)
    else:
        arg, left = [], size
        while left > 0:
            arg.append(rint(0, left))
            left -= arg[-1]
        arg.insert(rint(0, len(arg)), 0) if rint(0, 2) == 0 else None
        pieces = x.split(arg, d)
    cases["split_random"].append({"shape": shape, "transposed": transposed, "dim": d, "kind": kind, "arg": arg,
                                  "pieces": [geometry(p) for p in pieces]})
cases["split_errors"] = {
    "split_zero": error(lambda: torch.zeros(5).split(0)),
    "split_negative": error(lambda: torch.zeros(5).split(-1)),
    "sizes_sum": error(lambda: torch.zeros(2, 5).split([2, 2], 1)),
    "sizes_negative": error(lambda: torch.zeros(5).split([6, -1])),
    "split_0d": error(lambda: torch.tensor(5.0).split(1)),
    "chunk_0d": error(lambda: torch.tensor(5.0).chunk(1)),
    "chunk_zero": error(lambda: torch.zeros(5).chunk(0)),
    "dim_range": error(lambda: torch.zeros(5).chunk(2, 1)),
}

# week01.lossy_casts: what survives a round trip x -> dtype -> x.dtype, and type_as.
cases["lossy_casts_random"] = []
float_pool = [0.0, -0.0, 1.0, -2.0, 0.5, 0.1, -1.5, 2.7, 255.0, 256.0, -1.0, 3.0e9, -3.0e9, 16777217.0, 1.0e39,
              2.0 ** 53 + 1, 1.0e-40, 7.0, 100.25]
int_pool = [0, 1, -1, 2, 255, 256, -129, 127, 2 ** 24 + 1, 2 ** 31, -(2 ** 31) - 1, 2 ** 53 + 1, 2 ** 62 + 3, 42]
dtypes = [torch.float32, torch.float64, torch.int64, torch.int32, torch.uint8, torch.bool]
for _ in range(60):
    src, dst = dtypes[rint(0, 5)], dtypes[rint(0, 5)]
    if src.is_floating_point:
        pool = [v for v in float_pool if dst.is_floating_point or abs(v) < 2.0 ** 31]
        pool = [v for v in pool if src == torch.float64 or abs(v) < 3.4e38]
    elif src == torch.bool:
        pool = [0, 1]
    else:
        info = torch.iinfo(src)
        pool = [v for v in int_pool if info.min <= v <= info.max]
    vals = [pool[rint(0, len(pool) - 1)] for _ in range(rint(0, 12))]
    x = torch.tensor(vals, dtype=src)
    back = x.to(dst).to(src)
    lossy = int((back != x).sum())
    cases["lossy_casts_random"].append({"x": values(x), "to": str(dst).replace("torch.", ""), "lossy": lossy,
                                        "through": values(x.to(dst))})
_t = torch.ones(3)
cases["type_as_same_dtype_is_self"] = _t.type_as(torch.zeros(1)) is _t and _t.float() is _t
cases["type_as_other_dtype_copies"] = _t.type_as(torch.zeros(1, dtype=torch.float64)).data_ptr() != _t.data_ptr()

# week01.linspace: PyTorch's two-sided formula. Integer dtypes are recorded only for steps <= 7: for
# longer integer outputs PyTorch 1.13's vectorised kernel rounds differently from its own scalar
# loop (linspace(-12, 20, 30) gives different int64 and int32 values), and the kit follows the
# scalar definition.
def linspace_scalar(start, end, steps, integral):
    if integral:
        start, end = float(int(start)), float(int(end))
    if steps == 1:
        return [start]
    step = (end - start) / (steps - 1)
    half = steps // 2
    return [start + step * i if i < half else end - step * (steps - i - 1) for i in range(steps)]


cases["linspace_random"] = []
while len(cases["linspace_random"]) < 60:
    start, end = rint(-20, 20) / rint(1, 7), rint(-20, 20) / rint(1, 7)
    dtype = [torch.float32, torch.float64, torch.int64, torch.int32][rint(0, 3)]
    integral = not dtype.is_floating_point
    steps = rint(0, 7) if integral else rint(0, 40)
    got = torch.linspace(start, end, steps, dtype=dtype)
    if integral:
        assert got.tolist() == [int(v) for v in linspace_scalar(start, end, steps, True)], (start, end, steps)
    cases["linspace_random"].append({"start": start, "end": end, "steps": steps, "out": values(got)})
cases["linspace_endpoints"] = {"last": torch.linspace(-1, 1, 7)[-1].item(), "first": torch.linspace(0.1, 0.3, 5)[0].item(),
                               "one_step": values(torch.linspace(8, 17, 1))}
cases["linspace_negative_error"] = error(lambda: torch.linspace(0, 1, -1))

# week01.noise: the Pearson correlation add_noise is measured with, as torch.corrcoef computes it.
# (The noise itself cannot come from here: Kindling's generator is not PyTorch's, so its tests are
# statistical.) Inputs are float64 so that only the formula is compared, plus a few float32 and
# integer pairs, a constant input (NaN) and one element (NaN).
cases["correlation_random"] = []
for i in range(40):
    n = rint(2, 40)
    a = torch.randn(n, generator=gen, dtype=torch.float64) * rint(1, 5)
    b = a * (rint(-3, 3) / 2) + torch.randn(n, generator=gen, dtype=torch.float64) * rint(0, 4)
    if i % 8 == 5:
        a, b = a.float(), b.float()
    if i % 8 == 6:
        a, b = (a * 3).long(), (b * 3).long()
    r = torch.corrcoef(torch.stack([a.double(), b.double()]))[0, 1].item()
    cases["correlation_random"].append({"a": values(a), "b": values(b), "r": None if r != r else r})
for a, b in [(torch.tensor([1.0, 2.0, 3.0]), torch.tensor([5.0, 5.0, 5.0])), (torch.tensor([2.0]), torch.tensor([7.0]))]:
    r = torch.corrcoef(torch.stack([a, b]))[0, 1].item()
    assert r != r
    cases["correlation_random"].append({"a": values(a), "b": values(b), "r": None})
cases["correlation_size_error"] = error(lambda: torch.stack([torch.zeros(3), torch.zeros(4)]))
cases["normal_std_error"] = error(lambda: torch.empty(3).normal_(0, -1))
cases["randn_like_long_error"] = error(lambda: torch.randn_like(torch.zeros(2, dtype=torch.long)))
cases["rand_like_long_error"] = error(lambda: torch.rand_like(torch.zeros(2, dtype=torch.long)))
cases["randperm_negative_error"] = error(lambda: torch.randperm(-1))  # raised before anything is drawn
cases["set_num_threads_error"] = error(lambda: torch.set_num_threads(0))  # raised before the count changes

# week01.eigh: torch.linalg.eigh on random batches, which need not be symmetric (only the lower
# triangle is read), and f(A) = V diag(f(w)) V^T against PyTorch's own matrix functions where it has
# them (matrix_exp, matrix_power, inv). Eigenvectors are recorded to compare up to sign.
cases["eigh_random"] = []
for i in range(30):
    n = rint(1, 6) if i % 10 else 0
    batch = [0, 2] if i == 7 else [rint(1, 3) for _ in range(rint(0, 2))]  # case 7: an empty batch
    dtype = torch.float32 if i % 4 == 3 else torch.float64
    a = (torch.randn(batch + [n, n], generator=gen, dtype=torch.float64) * rint(1, 4)).to(dtype)
    if i % 5 == 2 and n > 1:  # a repeated eigenvalue (1, twice or more) in a rotated basis: its eigenvectors
        q, _ = torch.linalg.qr(torch.randn(n, n, generator=gen, dtype=torch.float64))  # are not unique, values are
        d = torch.ones(n, dtype=torch.float64)
        d[-1] = 3
        a = (q @ torch.diag(d) @ q.T).to(dtype).expand(batch + [n, n])
    w, v = torch.linalg.eigh(a)
    cases["eigh_random"].append({"a": values(a), "w": values(w), "v": values(v), "v_strides": list(v.stride()),
                                 "w_strides": list(w.stride())})
cases["eigh_lower_triangle"] = {"w": values(torch.linalg.eigh(torch.tensor([[2.0, 1.0], [5.0, 3.0]])).eigenvalues)}
cases["eigh_1d_error"] = error(lambda: torch.linalg.eigh(torch.zeros(3)))
cases["eigh_square_error"] = error(lambda: torch.linalg.eigh(torch.zeros(2, 3)))
cases["eigh_long_error"] = error(lambda: torch.linalg.eigh(torch.zeros(2, 2, dtype=torch.long)))
cases["eigh_bool_error"] = error(lambda: torch.linalg.eigh(torch.zeros(2, 2, dtype=torch.bool)))
cases["matrix_function_random"] = []
for i in range(12):
    n = rint(1, 5)
    batch = [rint(1, 3) for _ in range(rint(0, 1))]
    b = torch.randn(batch + [n, n], generator=gen, dtype=torch.float64)
    spd = b @ b.mT + 0.5 * torch.eye(n, dtype=torch.float64)  # positive definite
    lower = spd.tril() + torch.randn(batch + [n, n], generator=gen, dtype=torch.float64).triu(1)  # upper: ignored
    w, v = torch.linalg.eigh(spd)
    apply = lambda f: v @ torch.diag_embed(f(w)) @ v.mT  # noqa: E731
    cases["matrix_function_random"].append({
        "a": values(lower), "exp": values(torch.matrix_exp(spd)), "square": values(torch.linalg.matrix_power(spd, 2)),
        "cube": values(torch.linalg.matrix_power(spd, 3)), "inverse": values(torch.linalg.inv(spd)),
        "sqrt": values(apply(torch.sqrt)), "log": values(apply(torch.log)), "elementwise_square": values(spd ** 2)})

# ---- week01.slice and week01.squeeze: the rules a plausible wrong solution skips (audit of survivors) -----
# Kept at the end of the file and free of random draws, so that adding them moves no earlier case.
g = torch.arange(24).view(4, 6)
cases["slice_negative_end"] = geometry(g[:, 1:-1])  # an end counted from the back
cases["slice_start_before_begin"] = geometry(g[-10:])  # -10 + 4 = -6, clamped up to 0: the whole dim
cases["slice_before_begin_with_step"] = geometry(g[:, -10:-3:2])  # start clamped to 0, end -3 -> 3
cases["slice_negative_step_error"] = error(lambda: g[::-1])
cases["narrow_negative_length_error"] = error(lambda: g.narrow(1, 2, -1))
cases["narrow_negative_length_at_start_error"] = error(lambda: g.narrow(1, 0, -1))
cases["select_index_equal_to_size_error"] = error(lambda: g.select(0, 4))
cases["select_past_end_of_a_slice_error"] = error(lambda: g[:2].select(0, 2))  # its storage has a row 2
cases["narrow_0d_error"] = error(lambda: torch.tensor(1.0).narrow(0, 0, 1))
cases["select_0d_error"] = error(lambda: torch.tensor(1.0).select(0, 0))
cases["squeeze_negative_dim"] = [dict(input=list(s), dim=d, **geometry(torch.zeros(s).squeeze(d)))
                                 for s, d in (((2, 1, 3), -2), ((2, 3, 1), -2), ((1, 2, 3), -3), ((2, 1, 3), -3))]
cases["squeeze_consecutive_ones"] = [dict(input=list(s), **geometry(torch.zeros(s).squeeze()))
                                     for s in ((1, 1, 3), (2, 1, 1, 3, 1, 1), (1, 1, 1, 2))]
cases["squeeze_all_ones"] = [dict(input=list(s), **geometry(torch.zeros(s).squeeze())) for s in ((1, 1), (1,))]
cases["squeeze_0d"] = [dict(dim=d, **geometry(torch.tensor(2.0).squeeze(d))) for d in (0, -1)]
cases["squeeze_dim_out_of_range_error"] = error(lambda: torch.zeros(2, 1).squeeze(2))
cases["squeeze_0d_dim_error"] = error(lambda: torch.tensor(2.0).squeeze(1))
_x = torch.zeros(2, 3)
_s = _x.squeeze(0)  # size 2: nothing to drop
_a = _x.squeeze()  # no size-1 dim at all
cases["squeeze_unchanged_is_a_new_view"] = {
    "dim_is_same": _s is _x, "dim_is_view": _s._is_view(), "dim_base_is_input": _s._base is _x,
    "all_is_same": _a is _x, "all_is_view": _a._is_view(), "all_base_is_input": _a._base is _x}

# ---- Python's x[...] as LibTorch's x.index({...}) (indexing.hpp) -------------------------------------------
# The input: arange(60).reshape(3, 4, 5) / 7 - 1.5. Basic indexing records the view's geometry
# and whether it shares x's storage; advanced indexing records values (a copy).
_ix = torch.arange(60, dtype=torch.float32).reshape(3, 4, 5) / 7 - 1.5


def index_case(fn):
    y = fn(_ix)
    return dict(geometry(y), shares=y.storage().data_ptr() == _ix.storage().data_ptr(), out=values(y))


cases["index_basic"] = index_case(lambda x: x[0:2, None, ..., 1])
cases["index_negative"] = index_case(lambda x: x[-1])
cases["index_step"] = index_case(lambda x: x[:, ::2])
cases["index_ellipsis"] = index_case(lambda x: x[..., 2])
cases["index_true"] = index_case(lambda x: x[True])
cases["index_false"] = index_case(lambda x: x[False])
cases["index_long"] = index_case(lambda x: x[torch.tensor([2, 0, 2])])
cases["index_long_2d"] = index_case(lambda x: x[:, torch.tensor([[0, 1], [3, 3]])])
cases["index_pair"] = index_case(lambda x: x[torch.tensor([0, 2]), torch.tensor([1, 3])])
cases["index_negative_tensor"] = index_case(lambda x: x[torch.tensor([-1, 0])])
cases["index_mask"] = index_case(lambda x: x[x > 0.5])
cases["index_mask_partial"] = index_case(lambda x: x[:, torch.tensor([True, False, True, True])])
cases["index_slice_then_tensor"] = index_case(lambda x: x[1:, torch.tensor([3, 0]), 2:4])
_gx = _ix.clone().requires_grad_()
_gy = _gx[torch.tensor([2, 0, 2]), 1:3]
_gy.backward(torch.cos(torch.arange(_gy.numel(), dtype=torch.float32) * 0.7).reshape(_gy.shape))
cases["index_grad"] = {"out": values(_gy.detach()), "grad": values(_gx.grad)}
cases["index_too_many"] = error(lambda: _ix[0, 0, 0, 0])
cases["index_out_of_range"] = error(lambda: _ix[5])
cases["index_tensor_out_of_range"] = error(lambda: _ix[torch.tensor([3])])
cases["index_mask_mismatch"] = error(lambda: _ix[torch.tensor([True, False])])
cases["index_two_ellipses"] = index_case(lambda x: x[..., 0, ...])


# LibTorch's method forms: channels-last copies, flip, new_zeros, all/any along a dim.
_cl = torch.arange(120, dtype=torch.float32).reshape(2, 3, 4, 5)
_clc = _cl.contiguous(memory_format=torch.channels_last)
cases["channels_last"] = dict(geometry(_clc), out=values(_clc),
                              is_cl=_clc.is_contiguous(memory_format=torch.channels_last),
                              plain_is_cl=_cl.is_contiguous(memory_format=torch.channels_last))
_clb = torch.arange(6, dtype=torch.float32).reshape(1, 3, 1, 2).contiguous(memory_format=torch.channels_last)
cases["channels_last_ones"] = geometry(_clb)
cases["flip"] = {"out": values(_ix.flip(0, 2))}
cases["flip_last"] = {"out": values(_ix.flip(-1))}
_nz = torch.ones(2, dtype=torch.float64).new_zeros((2, 3))
cases["new_zeros"] = {"out": values(_nz)}
_ab = torch.tensor([[1, 0, 2], [3, 4, 5]])
cases["all_any_dim"] = {"all1": values(_ab.all(1)), "any0": values(_ab.any(0)),
                        "all0_keep": values(_ab.all(0, keepdim=True))}
cases["multinomial_too_many"] = error(lambda: torch.tensor([0.5, 0.5]).multinomial(3))
cases["multinomial_negative"] = error(lambda: torch.tensor([0.5, -0.5]).multinomial(1))
cases["multinomial_zero_sum"] = error(lambda: torch.tensor([0.0, 0.0]).multinomial(1))
cases["multinomial_three_d"] = error(lambda: torch.ones(2, 2, 2).multinomial(1))


def put_case(fn):
    z = torch.zeros(3, 4)
    fn(z)
    return {"out": values(z)}


def _put_row(z):
    z[1] = 5


def _put_col(z):
    z[:, 2] = torch.tensor([1.0, 2.0, 3.0])


def _put_mask(z):
    z[1, 1] = 2
    z[z == 0] = -1


def _put_long(z):
    z[torch.tensor([0, 2])] = torch.tensor([1.0, 2.0, 3.0, 4.0])


def _put_pair(z):
    z[torch.tensor([0, 2]), torch.tensor([1, 3])] = torch.tensor([7.0, 8.0])


def _put_col_pair(z):
    z[:, torch.tensor([0, 2])] = torch.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])


def _put_cols_broadcast(z):
    z[:, torch.tensor([0, 2])] = torch.tensor([7.0, 8.0])


def _put_mask_cols(z):
    z[1:, torch.tensor([True, False, True, False])] = torch.tensor([[1.0, 2.0], [3.0, 4.0]])


cases["put_col_pair"] = put_case(_put_col_pair)
cases["put_cols_broadcast"] = put_case(_put_cols_broadcast)
cases["put_mask_cols"] = put_case(_put_mask_cols)
cases["put_mismatch"] = error(lambda: torch.zeros(3, 3).index_put_((torch.tensor([0]),), torch.ones(5, 3)))
cases["index_bool_tensor_0d"] = index_case(lambda x: x[torch.tensor(True)])
cases["index_int32_rejected"] = error(lambda: _ix[torch.tensor([0], dtype=torch.int32)])
cases["sub_scalar_int"] = {"out": values(torch.arange(5).sub_(1))}
cases["exp_int"] = error(lambda: torch.arange(3).exp_())
cases["flip_0d"] = {"out": values(torch.tensor(5.0).flip(0))}
cases["put_row"] = put_case(_put_row)
cases["put_col"] = put_case(_put_col)
cases["put_mask"] = put_case(_put_mask)
cases["put_long"] = put_case(_put_long)
cases["put_pair"] = put_case(_put_pair)

with open(OUT, "w") as f:
    json.dump({"torch_version": torch.__version__, "cases": cases}, f, indent=1, sort_keys=True, allow_nan=False)
    f.write("\n")
print("wrote", os.path.normpath(OUT), "with", len(cases), "cases", file=sys.stderr)
