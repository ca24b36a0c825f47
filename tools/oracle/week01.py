#!/usr/bin/python3
"""Expected values for week 1, produced by PyTorch 1.13 (Debian's python3-torch).

Run with Debian's interpreter:  /usr/bin/python3 tools/oracle/week01.py
It writes grader/tests/week01/data/oracle.json; the C++ tests read that file and
never need Python. Each case is named; the test builds the same inputs in C++
(the formulas are repeated in the test, next to each case) and compares.
"""
import json
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

with open(OUT, "w") as f:
    json.dump({"torch_version": torch.__version__, "cases": cases}, f, indent=1, sort_keys=True, allow_nan=False)
    f.write("\n")
print("wrote", os.path.normpath(OUT), "with", len(cases), "cases", file=sys.stderr)
