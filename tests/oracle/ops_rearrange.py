"""Oracle cases: roll, pixel_shuffle, pixel_unshuffle, repeat_interleave, tril, topk.
Expected values from numpy (np.roll, reshape/transpose, np.repeat, np.tril, stable sorts)."""
import numpy as np

from oracle import BF16, CL, F32, I32, I64, Out, T, bf16, rand


def _shuffle(x, r):
    *b, c, h, w = x.shape
    y = x.reshape(*b, c // (r * r), r, r, h, w)
    n = len(b)
    perm = list(range(n)) + [n, n + 3, n + 1, n + 4, n + 2]
    return np.ascontiguousarray(y.transpose(perm).reshape(*b, c // (r * r), h * r, w * r))


def _unshuffle(x, r):
    *b, c, h, w = x.shape
    y = x.reshape(*b, c, h // r, r, w // r, r)
    n = len(b)
    perm = list(range(n)) + [n, n + 2, n + 4, n + 1, n + 3]
    return np.ascontiguousarray(y.transpose(perm).reshape(*b, c * r * r, h // r, w // r))


def _topk(x, k, dim, largest):
    """values, indices along dim; NaN ranks as the largest value; ties keep index order."""
    xm = np.moveaxis(x, dim, -1)
    vals = np.empty(xm.shape[:-1] + (k,), x.dtype)
    idxs = np.empty(xm.shape[:-1] + (k,), np.int64)
    for pos in np.ndindex(*xm.shape[:-1]):
        row = xm[pos].astype(np.float64)
        nan = np.isnan(row)
        if largest:
            key = sorted(range(len(row)), key=lambda i: (0 if nan[i] else 1, -row[i] if not nan[i] else 0, i))
        else:
            key = sorted(range(len(row)), key=lambda i: (1 if nan[i] else 0, row[i] if not nan[i] else 0, i))
        sel = key[:k]
        vals[pos] = xm[pos][sel]
        idxs[pos] = sel
    return np.ascontiguousarray(np.moveaxis(vals, -1, dim)), np.ascontiguousarray(np.moveaxis(idxs, -1, dim))


def cases(g):
    x = rand((3, 4))
    # roll
    g.case("aten::roll.out", "f32_dim1", [x, [1], [1]], [Out(np.roll(x, 1, 1))])
    g.case("aten::roll.out", "f32_flat_neg", [x, [-5], []], [Out(np.roll(x, -5))])
    g.case("aten::roll.out", "f32_two_dims", [x, [2, -1], [0, 1]], [Out(np.roll(x, (2, -1), (0, 1)))])
    g.case("aten::roll.out", "same_dim_twice", [x, [1, 2], [-1, 1]], [Out(np.roll(x, 3, 1))])
    g.case("aten::roll.out", "big_shift", [x, [-13], [0]], [Out(np.roll(x, -13, 0))])
    x4 = rand((2, 3, 2, 4))
    g.case("aten::roll.out", "channels_last", [T(x4, CL), [1, 3], [1, 3]], [Out(np.roll(x4, (1, 3), (1, 3)), order=CL)])
    g.case("aten::roll.out", "channels_last_flat", [T(x4, CL), [7], []], [Out(np.roll(x4, 7))])
    xi = rand((5,), np.int16, -300, 300)
    g.case("aten::roll.out", "i16", [xi, [2], [0]], [Out(np.roll(xi, 2))])
    rb = rand((2, 3), np.bool_)
    g.case("aten::roll.out", "bool", [rb, [1], [0]], [Out(np.roll(rb, 1, 0))])
    g.case("aten::roll.out", "empty", [np.zeros((0, 3), np.float32), [1], [1]], [Out(np.zeros((0, 3), np.float32))])
    g.case("aten::roll.out", "err_len", [x, [1, 1], [0]], [Out(dtype=F32, shape=(3, 4))], error=("InvalidArgument", "roll"))
    g.case("aten::roll.out", "err_dim", [x, [1], [2]], [Out(dtype=F32, shape=(3, 4))], error=("InvalidArgument", "dims"))
    # pixel_shuffle / pixel_unshuffle
    p = rand((2, 8, 2, 3))
    g.case("aten::pixel_shuffle.out", "f32_r2", [p, 2], [Out(_shuffle(p, 2))])
    g.case("aten::pixel_shuffle.out", "channels_last", [T(p, CL), 2], [Out(_shuffle(p, 2), order=CL)])
    p9 = rand((9, 1, 2), np.int32, -50, 50)
    g.case("aten::pixel_shuffle.out", "i32_3d_r3", [p9, 3], [Out(_shuffle(p9, 3))])
    p5 = rand((2, 1, 4, 2, 2))
    g.case("aten::pixel_shuffle.out", "f32_5d", [p5, 2], [Out(_shuffle(p5, 2))])
    g.case("aten::pixel_shuffle.out", "r1", [p, 1], [Out(p.copy())])
    g.case("aten::pixel_shuffle.out", "err_channels", [p, 3], [Out(dtype=F32, shape=(2, 1, 6, 9))],
           error=("InvalidArgument", "pixel_shuffle"))
    q = rand((2, 3, 4, 6))
    g.case("aten::pixel_unshuffle.out", "f32_r2", [q, 2], [Out(_unshuffle(q, 2))])
    g.case("aten::pixel_unshuffle.out", "channels_last", [T(q, CL), 2], [Out(_unshuffle(q, 2), order=CL)])
    qh = rand((1, 6, 6)).astype(np.float16)
    g.case("aten::pixel_unshuffle.out", "f16_3d_r3", [qh, 3], [Out(_unshuffle(qh, 3))])
    g.case("aten::pixel_unshuffle.out", "roundtrip", [_shuffle(p, 2), 2], [Out(p.copy())])
    g.case("aten::pixel_unshuffle.out", "err_divisible", [q, 4], [Out(dtype=F32, shape=(2, 48, 1, 1))],
           error=("InvalidArgument", "pixel_unshuffle"))
    # repeat_interleave
    r = np.array([2, 0, 3, 1], np.int64)
    g.case("aten::repeat_interleave.Tensor_out", "i64", [r, None], [Out(np.repeat(np.arange(4, dtype=np.int64), r))])
    g.case("aten::repeat_interleave.Tensor_out", "i32_output_size", [r.astype(np.int32), 6],
           [Out(np.repeat(np.arange(4, dtype=np.int32), r))])
    g.case("aten::repeat_interleave.Tensor_out", "empty", [np.zeros((0,), np.int64), None], [Out(np.zeros((0,), np.int64))])
    g.case("aten::repeat_interleave.Tensor_out", "err_output_size", [r, 5], [Out(dtype=I64, shape=(5,))],
           error=("InvalidArgument", "output_size"))
    g.case("aten::repeat_interleave.Tensor_out", "err_negative", [np.array([1, -1], np.int64), None],
           [Out(dtype=I64, shape=(0,))], error=("InvalidArgument", "negative"))
    g.case("aten::repeat_interleave.Tensor_out", "err_float", [np.array([1.0], np.float32), None],
           [Out(dtype=F32, shape=(1,))], error=("InvalidArgument", "repeats"))
    # tril
    for d in (0, 1, -1, 3, -3):
        g.case("aten::tril.out", "f32_diag%s" % (d if d >= 0 else "m%d" % -d), [x, d], [Out(np.tril(x, d))])
    t3 = rand((2, 3, 3), np.int64, -9, 9)
    g.case("aten::tril.out", "i64_batched", [t3, 0], [Out(np.tril(t3, 0))])
    g.case("aten::tril.out", "channels_last", [T(x4, CL), -1], [Out(np.tril(x4, -1), order=CL)])
    tb = rand((4, 4), np.bool_)
    g.case("aten::tril.out", "bool", [tb, 1], [Out(np.tril(tb, 1))])
    e = np.array([[np.nan, np.inf], [-np.inf, -0.0]], np.float32)
    g.case("aten::tril.out", "edges", [e, 0], [Out(np.array([[np.nan, 0], [-np.inf, -0.0]], np.float32))])
    g.case("aten::tril.out", "err_rank1", [x[0].copy(), 0], [Out(dtype=F32, shape=(4,))], error=("InvalidArgument", "tril"))
    # topk (values without ties, except where the tie order is spelled out)
    v = np.array([3, 1, 4, 1.5, 5, 9, 2, 6], np.float32)
    for k, largest in ((3, True), (3, False), (8, True), (1, False), (0, True)):
        vv, ii = _topk(v, k, 0, largest)
        g.case("aten::topk.values", "f32_k%d_%s" % (k, "max" if largest else "min"), [v, k, -1, largest, True],
               [Out(vv), Out(ii)])
    m = rand((3, 5))
    for dim in (0, 1):
        vv, ii = _topk(m, 2, dim, True)
        g.case("aten::topk.values", "f32_2d_dim%d" % dim, [m, 2, dim, True, True], [Out(vv), Out(ii)])
    vv, ii = _topk(x4, 2, 1, False)
    g.case("aten::topk.values", "channels_last", [T(x4, CL), 2, 1, False, True], [Out(vv, order=CL), Out(ii, order=CL)])
    n = np.array([1, np.nan, 3, -np.inf, 2], np.float64)
    vv, ii = _topk(n, 3, 0, True)
    g.case("aten::topk.values", "f64_nan_largest", [n, 3, 0, True, True], [Out(vv), Out(ii)])
    vv, ii = _topk(n, 5, 0, False)
    g.case("aten::topk.values", "f64_nan_smallest", [n, 5, 0, False, True], [Out(vv), Out(ii)])
    for dt in (np.int8, np.uint8, np.int32, np.int64):
        w = np.array([[5, 100, 7, 0], [1, 2, 3, 4]], dt)
        vv, ii = _topk(w, 2, 1, True)
        g.case("aten::topk.values", "int_%s" % np.dtype(dt).name, [w, 2, 1, True, True], [Out(vv), Out(ii)])
    wh = np.array([0.5, -1.25, 3.0, 2.0], np.float16)
    vv, ii = _topk(wh, 2, 0, True)
    g.case("aten::topk.values", "f16", [wh, 2, 0, True, True], [Out(vv), Out(ii)])
    wb = bf16(np.array([0.5, -1.25, 3.0, 2.0], np.float32))
    vv, ii = _topk(wb, 3, 0, False)
    g.case("aten::topk.values", "bf16", [T(wb, dtype=BF16), 3, 0, False, True], [Out(vv, dtype=BF16), Out(ii)])
    vv, ii = _topk(np.array([2.0, -1.0, 2.0, 0.0], np.float32), 3, 0, True)
    g.case("aten::topk.values", "tie_index_order", [np.array([2.0, -1.0, 2.0, 0.0], np.float32), 3, 0, True, False],
           [Out(vv), Out(ii)])
    g.case("aten::topk.values", "scalar", [np.array(4.0, np.float32), 1, 0, True, True],
           [Out(np.array(4.0, np.float32)), Out(np.array(0, np.int64))])
    g.case("aten::topk.values", "err_k", [v, 9, 0, True, True], [Out(dtype=F32, shape=(9,)), Out(dtype=I64, shape=(9,))],
           error=("InvalidArgument", "k"))
    g.case("aten::topk.values", "err_indices_dtype", [v, 2, 0, True, True],
           [Out(dtype=F32, shape=(2,)), Out(dtype=I32, shape=(2,))], error=("InvalidArgument", "indices"))
