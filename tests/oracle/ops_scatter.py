"""Oracle cases: index_put (.out and in place), scatter_add, select_scatter, slice_scatter,
masked_scatter, masked_select, nonzero. Expected values from numpy fancy indexing, np.add.at,
np.argwhere."""
import numpy as np

from oracle import BF16, CL, F32, I32, I64, Alias, OptTList, Out, T, bf16, rand


def _scatter_add(x, d, idx, src):
    out = x.copy()
    for pos in np.ndindex(*idx.shape):
        tgt = list(pos)
        tgt[d] = idx[pos]
        if out.dtype == np.bool_:
            out[tuple(tgt)] = out[tuple(tgt)] or src[pos]
        else:
            out[tuple(tgt)] = out[tuple(tgt)] + src[pos]
    return out


def _put(x, idx, v, acc=False):
    out = x.copy()
    if acc:
        np.add.at(out, idx, v)
    else:
        out[idx] = v
    return out


def cases(g):
    x = rand((4, 3))
    # index_put
    i = np.array([2, 0], np.int64)
    v = rand((2, 3))
    g.case("aten::index_put.out", "rows", [x, OptTList([T(i)]), v, False], [Out(_put(x, (i,), v))])
    g.case("aten::index_put.out", "rows_bcast_value", [x, OptTList([T(i)]), v[0].copy(), False], [Out(_put(x, (i,), v[0]))])
    r, c = np.array([[0], [3]], np.int64), np.array([2, -1], np.int32)
    g.case("aten::index_put.out", "two_bcast_0d_value", [x, OptTList([T(r), T(c)]), np.array(7.5, np.float32), False],
           [Out(_put(x, (r, c), np.float32(7.5)))])
    xz = rand((2, 3, 4))
    vz = rand((2, 3))
    i0, i2 = np.array([1, 0], np.int64), np.array([3, 1], np.int64)
    g.case("aten::index_put.out", "non_adjacent", [xz, OptTList([T(i0), None, T(i2)]), vz, False],
           [Out(_put(xz, (i0, slice(None), i2), vz))])
    vg = rand((4, 1))
    g.case("aten::index_put.out", "none_gap", [x, OptTList([None, T(np.array([1], np.int64))]), vg, False],
           [Out(_put(x, (slice(None), np.array([1])), vg))])
    m = rand((4, 3), np.bool_)
    vm = rand((int(m.sum()),))
    g.case("aten::index_put.out", "bool_mask", [x, OptTList([T(m)]), vm, False], [Out(_put(x, (m,), vm))])
    dup = np.array([1, 1, 3, -1, 0], np.int64)
    vd = rand((5, 3))
    g.case("aten::index_put.out", "accumulate_dups", [x, OptTList([T(dup)]), vd, True], [Out(_put(x, (dup,), vd, True))])
    xi = rand((6,), np.int32, -50, 50)
    g.case("aten::index_put.out", "i32_accumulate", [xi, OptTList([T(np.array([5, 5, 0], np.int64))]),
                                                     np.array([3, 4, -5], np.int32), True],
           [Out(_put(xi, (np.array([5, 5, 0]),), np.array([3, 4, -5], np.int32), True))])
    x8 = np.array([120, -120, 5], np.int8)
    g.case("aten::index_put.out", "i8_accumulate_wraps", [x8, OptTList([T(np.array([0, 1], np.int64))]),
                                                          np.array([10, -10], np.int8), True],
           [Out(np.array([-126, 126, 5], np.int8))])
    x4 = rand((2, 3, 2, 2))
    v4 = rand((2, 2, 2, 2))
    g.case("aten::index_put.out", "channels_last", [T(x4, CL), OptTList([None, T(np.array([2, 0], np.int64))]), v4, False],
           [Out(_put(x4, (slice(None), np.array([2, 0])), v4), order=CL)])
    xb = bf16(rand((3, 2)))
    vb = bf16(rand((2,)))
    g.case("aten::index_put.out", "bf16", [T(xb, dtype=BF16), OptTList([T(np.array([1], np.int64))]), T(vb, dtype=BF16), False],
           [Out(_put(xb, (np.array([1]),), vb), dtype=BF16)])
    g.case("aten::index_put.out", "err_index_range", [x, OptTList([T(np.array([4], np.int64))]), v[0].copy(), False],
           [Out(dtype=F32, shape=(4, 3))], error=("InvalidArgument", "index"))
    g.case("aten::index_put.out", "err_values_dtype", [x, OptTList([T(i)]), v.astype(np.float64), False],
           [Out(dtype=F32, shape=(4, 3))], error=("InvalidArgument", "values"))
    g.case("aten::index_put.out", "err_values_shape", [x, OptTList([T(i)]), rand((3, 3)), False],
           [Out(dtype=F32, shape=(4, 3))], error=("InvalidArgument", "broadcast"))
    g.case("aten::index_put.out", "err_index_dtype", [x, OptTList([T(np.array([0.0], np.float32))]), v[0].copy(), False],
           [Out(dtype=F32, shape=(4, 3))], error=("InvalidArgument", "indices"))
    # index_put_ (in place)
    g.case("aten::index_put_", "rows", [x, OptTList([T(i)]), v, False], [Alias(0, _put(x, (i,), v))])
    g.case("aten::index_put_", "accumulate", [x, OptTList([T(dup)]), vd, True], [Alias(0, _put(x, (dup,), vd, True))])
    g.case("aten::index_put_", "err_index_range", [x, OptTList([T(np.array([-5], np.int64))]), v[0].copy(), False],
           [Alias(0, x)], error=("InvalidArgument", "index_put_"))
    # scatter_add
    s = rand((3, 4))
    idx = np.array([[0, 1, 2, 0], [2, 2, 1, 0]], np.int64)
    src = rand((2, 4))
    g.case("aten::scatter_add.out", "dim0", [s, 0, idx, src], [Out(_scatter_add(s, 0, idx, src))])
    idx1 = np.array([[3, 3], [0, 1], [2, 2]], np.int64)
    src1 = rand((3, 5))
    g.case("aten::scatter_add.out", "dim1_smaller_index", [s, -1, idx1, src1], [Out(_scatter_add(s, 1, idx1, src1))])
    si = rand((3, 4), np.int64, -9, 9)
    sv = np.ones((3, 2), np.int64)
    g.case("aten::scatter_add.out", "i64", [si, 1, idx1, sv], [Out(_scatter_add(si, 1, idx1, sv))])
    g.case("aten::scatter_add.out", "i8_wraps", [np.array([127], np.int8), 0, np.array([0, 0], np.int64), np.array([1, 2], np.int8)],
           [Out(np.array([-126], np.int8))])  # 127 + 1 + 2 = 130 -> 130 - 256
    sb = rand((2, 3), np.bool_)
    bsrc = rand((2, 3), np.bool_)
    bidx = np.array([[1, 0, 1], [0, 0, 1]], np.int64)
    g.case("aten::scatter_add.out", "bool_or", [sb, 0, bidx, bsrc], [Out(_scatter_add(sb, 0, bidx, bsrc))])
    g.case("aten::scatter_add.out", "err_index_range", [s, 0, np.array([[3]], np.int64), src], [Out(dtype=F32, shape=(3, 4))],
           error=("InvalidArgument", "scatter_add"))
    g.case("aten::scatter_add.out", "err_src_dtype", [s, 0, idx, src.astype(np.float64)], [Out(dtype=F32, shape=(3, 4))],
           error=("InvalidArgument", "src"))
    # select_scatter
    ss = rand((3,))
    want = x.copy()
    want[-1] = ss
    g.case("aten::select_scatter.out", "dim0_neg_index", [x, ss, 0, -1], [Out(want)])
    s4 = rand((4,))
    want = x.copy()
    g.case("aten::select_scatter.out", "dim1", [x, s4, 1, 1], [Out(np.concatenate([x[:, :1], s4[:, None], x[:, 2:]], 1))])
    want = x4.copy()
    sc = rand((2, 3, 2))
    want[:, :, 1] = sc
    g.case("aten::select_scatter.out", "channels_last", [T(x4, CL), sc, 2, 1], [Out(want, order=CL)])
    g.case("aten::select_scatter.out", "i32_src_into_f32", [x, np.array([1, -2, 3], np.int32), 0, 2],
           [Out(np.concatenate([x[:2], np.array([[1, -2, 3]], np.float32), x[3:]], 0))])
    g.case("aten::select_scatter.out", "err_index", [x, ss, 0, 4], [Out(dtype=F32, shape=(4, 3))],
           error=("InvalidArgument", "index"))
    g.case("aten::select_scatter.out", "err_src_shape", [x, s4, 0, 0], [Out(dtype=F32, shape=(4, 3))],
           error=("InvalidArgument", "src"))
    # slice_scatter
    l = rand((8, 3))
    w = l.copy()
    srcl = rand((3, 3))
    w[1::3] = srcl
    g.case("aten::slice_scatter.out", "step3", [l, srcl, 0, 1, None, 3], [Out(w)])
    w = l.copy()
    src2 = rand((8, 2))
    w[:, -2:] = src2
    g.case("aten::slice_scatter.out", "dim_neg_start_neg", [l, src2, -1, -2, None, 1], [Out(w)])
    w = l.copy()
    src3 = rand((2, 3))
    w[2:4] = src3
    g.case("aten::slice_scatter.out", "clamped_end", [l, src3, 0, -6, -4, 1], [Out(w)])
    g.case("aten::slice_scatter.out", "defaults_whole", [l, srcl[:1].repeat(8, 0), 0, None, None, 1], [Out(srcl[:1].repeat(8, 0))])
    w = x4.copy()
    src4 = rand((2, 3, 1, 2))
    w[:, :, 1:] = src4
    g.case("aten::slice_scatter.out", "channels_last", [T(x4, CL), src4, 2, 1, 100, 1], [Out(w, order=CL)])
    g.case("aten::slice_scatter.out", "err_step", [l, srcl, 0, 0, None, 0], [Out(dtype=F32, shape=(8, 3))],
           error=("InvalidArgument", "step"))
    g.case("aten::slice_scatter.out", "err_src_shape", [l, srcl, 0, 0, None, 2], [Out(dtype=F32, shape=(8, 3))],
           error=("InvalidArgument", "src"))
    # masked_scatter
    mk = rand((4, 3), np.bool_)
    source = rand((20,))
    w = x.copy()
    w[mk] = source[:int(mk.sum())]
    g.case("aten::masked_scatter.out", "f32", [x, mk, source], [Out(w)])
    mrow = np.array([True, False, True])
    xb3 = rand((3,))
    w = np.broadcast_to(xb3, (4, 3)).copy()
    mb = np.broadcast_to(mrow, (4, 3))
    w[mb] = source[:int(mb.sum())]
    g.case("aten::masked_scatter.out", "broadcast_mask", [np.broadcast_to(xb3, (4, 3)).copy(), mrow, source], [Out(w)])
    mcol = np.array([[True], [False]])
    w = np.broadcast_to(xb3, (2, 3)).copy()
    w[np.broadcast_to(mcol, (2, 3))] = source[:3]
    g.case("aten::masked_scatter.out", "broadcast_self", [xb3, mcol, source], [Out(w)])
    xi16 = rand((2, 2), np.int16, -999, 999)
    w = xi16.copy()
    srci = rand((2, 2), np.int16, -999, 999)
    mi = np.array([[False, True], [True, True]])
    w[mi] = srci.ravel()[:3]
    g.case("aten::masked_scatter.out", "i16_2d_source", [xi16, mi, srci], [Out(w)])
    g.case("aten::masked_scatter.out", "err_source_small", [x, np.ones((4, 3), np.bool_), rand((5,))],
           [Out(dtype=F32, shape=(4, 3))], error=("InvalidArgument", "source"))
    g.case("aten::masked_scatter.out", "err_mask_dtype", [x, np.ones((4, 3), np.uint8), source],
           [Out(dtype=F32, shape=(4, 3))], error=("InvalidArgument", "mask"))
    # masked_select (out shapes are the data-dependent sizes; the out tensors are static)
    g.case("aten::masked_select.out", "f32", [x, mk], [Out(x[mk])])
    xs, ms = np.broadcast_arrays(xb3, mcol)
    g.case("aten::masked_select.out", "broadcast", [xb3, mcol], [Out(xs[ms])])
    g.case("aten::masked_select.out", "channels_last", [T(x4, CL), x4 > 0], [Out(x4[x4 > 0])])
    g.case("aten::masked_select.out", "none_selected", [x, np.zeros((4, 3), np.bool_)], [Out(np.zeros((0,), np.float32))])
    g.case("aten::masked_select.out", "i64_0d_mask", [xi.astype(np.int64), np.array(True)], [Out(xi.astype(np.int64))])
    g.case("aten::masked_select.out", "err_static_size", [x, np.ones((4, 3), np.bool_)], [Out(dtype=F32, shape=(5,))],
           error=("InvalidArgument", "static"))
    g.case("aten::masked_select.out", "err_mask_dtype", [x, np.ones((4, 3), np.int64)], [Out(dtype=F32, shape=(12,))],
           error=("InvalidArgument", "mask"))
    # nonzero
    e = np.array([[0, 1.5, np.nan], [-0.0, np.inf, 0]], np.float32)
    g.case("aten::nonzero.out", "f32_edges", [e], [Out(np.argwhere(e).astype(np.int64))])
    n3 = rand((2, 3, 4), np.int32, -1, 1)
    g.case("aten::nonzero.out", "i32_3d", [n3], [Out(np.argwhere(n3).astype(np.int64))])
    g.case("aten::nonzero.out", "channels_last", [T(x4 > 0, CL)], [Out(np.argwhere(x4 > 0).astype(np.int64))])
    g.case("aten::nonzero.out", "scalar_true", [np.array(3, np.int64)], [Out(np.zeros((1, 0), np.int64))])
    g.case("aten::nonzero.out", "scalar_false", [np.array(0.0, np.float64)], [Out(np.zeros((0, 0), np.int64))])
    g.case("aten::nonzero.out", "none", [np.zeros((3, 2), np.uint8)], [Out(np.zeros((0, 2), np.int64))])
    g.case("aten::nonzero.out", "err_static_size", [e], [Out(dtype=I64, shape=(4, 2))], error=("InvalidArgument", "static"))
    g.case("aten::nonzero.out", "err_out_dtype", [e], [Out(dtype=I32, shape=(4, 2))], error=("InvalidArgument", "int64"))
