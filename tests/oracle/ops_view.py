"""Oracle cases: view-like copies (as_strided_copy, diagonal_copy, unfold_copy, narrow_copy,
unbind_copy, view_as_real_copy, detach_copy, lift_fresh_copy, copy_). Expected values from numpy
indexing of the same data."""
import numpy as np

from oracle import BF16, CL, F32, I64, Alias, Out, OutList, T, bf16, rand


def _as_strided(storage, size, stride, off):
    """out[idx] = storage[off + sum(idx * stride)] (storage = memory order of self)."""
    out = np.empty(size, storage.dtype)
    for idx in np.ndindex(*size):
        out[idx] = storage[off + sum(i * s for i, s in zip(idx, stride))]
    return out


def _unfold(x, d, size, step):
    if x.ndim == 0:
        return x.reshape(1)[:size].copy()
    w = np.lib.stride_tricks.sliding_window_view(x, size, axis=d)
    sl = [slice(None)] * w.ndim
    sl[d] = slice(None, None, step)
    return np.ascontiguousarray(w[tuple(sl)])


def cases(g):
    x = rand((3, 4))
    # as_strided_copy: storage is self's memory
    g.case("aten::as_strided_copy.out", "f32_basic", [x, [2, 2], [1, 2], 1],
           [Out(_as_strided(x.ravel(), (2, 2), (1, 2), 1))])
    g.case("aten::as_strided_copy.out", "offset_none_zero_stride", [x, [2, 3], [0, 5], None],
           [Out(_as_strided(x.ravel(), (2, 3), (0, 5), 0))])
    xi = rand((4, 5), np.int64, -100, 100)
    g.case("aten::as_strided_copy.out", "i64_overlap", [xi, [3, 3, 2], [5, 2, 1], 2],
           [Out(_as_strided(xi.ravel(), (3, 3, 2), (5, 2, 1), 2))])
    x4 = rand((1, 3, 2, 2))
    g.case("aten::as_strided_copy.out", "channels_last_storage", [T(x4, CL), [6], [2], 1],
           [Out(_as_strided(x4.transpose(0, 2, 3, 1).ravel(), (6,), (2,), 1))])
    g.case("aten::as_strided_copy.out", "empty", [x, [0, 2], [1, 1], 0], [Out(np.zeros((0, 2), np.float32))])
    g.case("aten::as_strided_copy.out", "err_out_of_bounds", [x, [3, 4], [4, 1], 1],
           [Out(dtype=F32, shape=(3, 4))], error=("InvalidArgument", "as_strided_copy"))
    g.case("aten::as_strided_copy.out", "err_negative_stride", [x, [2], [-1], 3],
           [Out(dtype=F32, shape=(2,))], error=("InvalidArgument", "stride"))
    # diagonal_copy
    for off in (0, 1, 3, -1, -2, 5):
        g.case("aten::diagonal_copy.out", "f32_off%d" % off if off >= 0 else "f32_offm%d" % -off, [x, off, 0, 1],
               [Out(np.ascontiguousarray(np.diagonal(x, off, 0, 1)))])
    y = rand((2, 3, 4), np.int8, -100, 100)
    g.case("aten::diagonal_copy.out", "i8_3d_dims_neg", [y, 1, -1, 0], [Out(np.ascontiguousarray(np.diagonal(y, 1, 2, 0)))])
    g.case("aten::diagonal_copy.out", "i8_3d_dims12", [y, -1, 1, 2], [Out(np.ascontiguousarray(np.diagonal(y, -1, 1, 2)))])
    b = rand((3, 3), np.bool_)
    g.case("aten::diagonal_copy.out", "bool", [b, 0, 1, 0], [Out(np.ascontiguousarray(np.diagonal(b, 0, 1, 0)))])
    xb = bf16(rand((2, 2, 3)))
    g.case("aten::diagonal_copy.out", "f32_channels_last", [T(x4, CL), 0, 2, 3],
           [Out(np.ascontiguousarray(np.diagonal(x4, 0, 2, 3)))])
    g.case("aten::diagonal_copy.out", "bf16", [T(xb, dtype=BF16), 1, 1, 2],
           [Out(np.ascontiguousarray(np.diagonal(xb, 1, 1, 2)), dtype=BF16)])
    g.case("aten::diagonal_copy.out", "err_same_dims", [x, 0, 1, -1], [Out(dtype=F32, shape=(3,))],
           error=("InvalidArgument", "dim1"))
    g.case("aten::diagonal_copy.out", "err_rank1", [x[0].copy(), 0, 0, 1], [Out(dtype=F32, shape=(1,))],
           error=("InvalidArgument", "diagonal_copy"))
    # unfold_copy
    v = rand((7,))
    g.case("aten::unfold_copy.out", "f32_1d", [v, 0, 3, 2], [Out(_unfold(v, 0, 3, 2))])
    g.case("aten::unfold_copy.out", "f32_2d_last", [x, -1, 2, 1], [Out(_unfold(x, 1, 2, 1))])
    g.case("aten::unfold_copy.out", "i32_2d_dim0_big_step", [(x * 10).astype(np.int32), 0, 2, 5],
           [Out(_unfold((x * 10).astype(np.int32), 0, 2, 5))])
    g.case("aten::unfold_copy.out", "channels_last", [T(x4, CL), 1, 2, 1], [Out(_unfold(x4, 1, 2, 1))])
    g.case("aten::unfold_copy.out", "scalar", [np.array(2.5, np.float32), 0, 1, 1], [Out(np.array([2.5], np.float32))])
    g.case("aten::unfold_copy.out", "err_size", [v, 0, 8, 1], [Out(dtype=F32, shape=(1, 8))],
           error=("InvalidArgument", "size"))
    g.case("aten::unfold_copy.out", "err_step", [v, 0, 2, 0], [Out(dtype=F32, shape=(6, 2))],
           error=("InvalidArgument", "step"))
    # narrow_copy
    g.case("aten::narrow_copy.out", "f32_dim1_neg_start", [x, 1, -3, 2], [Out(x[:, 1:3].copy())])
    g.case("aten::narrow_copy.out", "f32_dim_neg", [x, -2, 1, 2], [Out(x[1:3].copy())])
    g.case("aten::narrow_copy.out", "empty", [x, 0, 3, 0], [Out(x[3:3].copy())])
    g.case("aten::narrow_copy.out", "u8_channels_last", [T((x4 * 10 + 40).astype(np.uint8), CL), 1, 1, 2],
           [Out((x4 * 10 + 40).astype(np.uint8)[:, 1:3], order=CL)])
    g.case("aten::narrow_copy.out", "err_range", [x, 1, 3, 2], [Out(dtype=F32, shape=(3, 2))],
           error=("InvalidArgument", "narrow_copy"))
    g.case("aten::narrow_copy.out", "err_dim", [x, 2, 0, 1], [Out(dtype=F32, shape=(3, 1))],
           error=("InvalidArgument", "dim"))
    # unbind_copy
    g.case("aten::unbind_copy.int_out", "f32_dim0", [x, 0], [OutList([Out(x[i].copy()) for i in range(3)])])
    g.case("aten::unbind_copy.int_out", "i64_dim_neg", [xi, -1], [OutList([Out(xi[:, i].copy()) for i in range(5)])])
    g.case("aten::unbind_copy.int_out", "channels_last_dim1", [T(x4, CL), 1],
           [OutList([Out(x4[:, i].copy()) for i in range(3)])])
    g.case("aten::unbind_copy.int_out", "err_count", [x, 0], [OutList([Out(dtype=F32, shape=(4,))] * 2)],
           error=("InvalidArgument", "unbind_copy"))
    # view_as_real_copy: the case builder has no complex tensors; the dtype check is covered here,
    # values in tests/unit/test_kernels_shape_view.c
    g.case("aten::view_as_real_copy.out", "err_real_self", [x], [Out(dtype=F32, shape=(3, 4, 2))],
           error=("InvalidArgument", "complex"))
    # detach_copy / lift_fresh_copy
    for op in ("aten::detach_copy.out", "aten::lift_fresh_copy.out"):
        g.case(op, "f32", [x], [Out(x.copy())])
        g.case(op, "channels_last_to_contiguous", [T(x4, CL)], [Out(x4.copy())])
        g.case(op, "bool", [b], [Out(b.copy())])
        g.case(op, "f16", [x.astype(np.float16)], [Out(x.astype(np.float16))])
        g.case(op, "i64_0d", [np.array(-7, np.int64)], [Out(np.array(-7, np.int64))])
        g.case(op, "err_dtype", [x], [Out(dtype=I64, shape=(3, 4))], error=("InvalidArgument", "dtype"))
    # copy_ (in place; returns self)
    s = rand((2, 3))
    src = rand((3,))
    g.case("aten::copy_", "f32_broadcast", [s, src, False], [Alias(0, np.broadcast_to(src, (2, 3)).copy())])
    g.case("aten::copy_", "f32_to_i32_trunc", [np.zeros((2, 3), np.int32), s * 10, False],
           [Alias(0, np.trunc(s * 10).astype(np.int32))])
    g.case("aten::copy_", "i64_to_f16", [np.zeros((4,), np.float16), np.array([1, 2049, -3, 70000], np.int64), False],
           [Alias(0, np.array([1, 2049, -3, 70000], np.int64).astype(np.float16))])
    g.case("aten::copy_", "channels_last_self", [T(np.zeros_like(x4), CL), x4, False], [Alias(0, x4.copy())])
    g.case("aten::copy_", "err_broadcast", [s, rand((2,)), False], [Alias(0, s)], error=("InvalidArgument", "copy_"))
