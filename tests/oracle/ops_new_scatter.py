"""Oracle cases for operators added by other helpers (issue 13): creation (empty/ones/zeros/
fill.Tensor/rand/randn), native_dropout, index_put(_), masked_scatter / masked_select, nonzero,
scatter_add, select_scatter / slice_scatter, reflection / replication pads."""
import numpy as np

from oracle import BOOL, CL, F32, I64, Alias, OptTList, Out, Ret, T, rand


def _index_put(x, idx, vals, acc):
    out = x.copy()
    if acc:
        np.add.at(out, idx, vals)
    else:
        out[idx] = vals
    return out


def cases(g):
    # creation
    g.case("aten::empty.out", "f32", [[2, 3], None], [Out(dtype=F32, shape=(2, 3), check="X")])
    g.case("aten::empty.out", "i64_0d", [[], None], [Out(dtype=I64, shape=(), check="X")])
    g.case("aten::empty.out", "zero_size", [[0, 4], None], [Out(dtype=F32, shape=(0, 4), check="X")])
    for name, fn in (("ones", np.ones), ("zeros", np.zeros)):
        op = "aten::%s.out" % name
        g.case(op, "f32", [[2, 3]], [Out(fn((2, 3), np.float32))])
        g.case(op, "i32", [[4]], [Out(fn((4,), np.int32))])
        g.case(op, "bool", [[3]], [Out(fn((3,), np.bool_))])
        g.case(op, "f16_0d", [[]], [Out(fn((), np.float16))])
        g.case(op, "empty", [[2, 0]], [Out(fn((2, 0), np.float32))])
        g.case(op, "channels_last", [[1, 2, 2, 3]], [Out(fn((1, 2, 2, 3), np.float32), order=CL)])
    x = rand((2, 3))
    g.case("aten::fill.Tensor_out", "f32", [x, np.array(2.5, np.float32)], [Out(np.full((2, 3), 2.5, np.float32))])
    g.case("aten::fill.Tensor_out", "i32_from_f64_value", [(x * 4).astype(np.int32), np.array(-3.0)],
           [Out(np.full((2, 3), -3, np.int32))])
    g.case("aten::fill.Tensor_out", "err_value_not_0d", [x, np.array([1.0, 2.0], np.float32)],
           [Out(dtype=F32, shape=(2, 3))], error=("InvalidArgument", "0-dim"))
    g.case("aten::rand.out", "f32", [[64]], [Out(dtype=F32, shape=(64,), check=("R", 0.0, 1.0))])
    g.case("aten::rand.out", "f64_2d", [[4, 5]], [Out(dtype=7, shape=(4, 5), check=("R", 0.0, 1.0))])
    g.case("aten::randn.out", "f32", [[64]], [Out(dtype=F32, shape=(64,), check=("R", -1e30, 1e30))])
    g.case("aten::randn.out", "empty", [[0]], [Out(dtype=F32, shape=(0,), check="X")])
    # native_dropout(input, p, train?) -> (out, mask)
    xd = rand((3, 4))
    g.case("aten::native_dropout.out", "eval", [xd, 0.5, False], [Out(xd.copy()), Out(np.ones((3, 4), np.bool_))])
    g.case("aten::native_dropout.out", "train_p0", [xd, 0.0, True], [Out(xd.copy()), Out(np.ones((3, 4), np.bool_))])
    g.case("aten::native_dropout.out", "train_p1", [xd, 1.0, True], [Out(np.zeros((3, 4), np.float32)), Out(np.zeros((3, 4), np.bool_))])

    # index_put(self, indices, values, accumulate)
    y = rand((4, 3))
    i0 = np.array([3, 0, 1], np.int64)
    v = rand((3, 3))
    g.case("aten::index_put.out", "rows", [y, OptTList([T(i0)]), v, False], [Out(_index_put(y, (i0,), v, False))])
    g.case("aten::index_put.out", "rows_bcast_value", [y, OptTList([T(i0)]), np.array([7.0], np.float32), False],
           [Out(_index_put(y, (i0,), np.float32(7.0), False))])
    ia, ib = np.array([0, 2, 0], np.int64), np.array([1, 1, 1], np.int64)
    vv = np.array([1.0, 2.0, 3.0], np.float32)
    g.case("aten::index_put.out", "accumulate_dups", [y, OptTList([T(ia), T(ib)]), vv, True],
           [Out(_index_put(y, (ia, ib), vv, True))])
    m = np.array([True, False, False, True])
    g.case("aten::index_put.out", "bool_mask", [y, OptTList([T(m)]), np.array(0.5, np.float32), False],
           [Out(_index_put(y, (m,), np.float32(0.5), False))])
    g.case("aten::index_put.out", "none_then_index", [y, OptTList([None, T(np.array([2], np.int64))]),
                                                      np.array([9.0], np.float32), False],
           [Out(_index_put(y, (slice(None), np.array([2])), np.float32(9.0), False))])
    yi = rand((4, 3), np.int32, -9, 9)
    g.case("aten::index_put.out", "i32_accumulate", [yi, OptTList([T(ia), T(ib)]), np.array([5, 5, 5], np.int32), True],
           [Out(_index_put(yi, (ia, ib), np.array([5, 5, 5], np.int32), True))])
    g.case("aten::index_put.out", "err_index_range", [y, OptTList([T(np.array([4], np.int64))]), v[:1].copy(), False],
           [Out(dtype=F32, shape=(4, 3))], error=("InvalidArgument", "index"))
    g.case("aten::index_put_", "rows", [y, OptTList([T(i0)]), v, False], [Ret(_index_put(y, (i0,), v, False))])
    # masked_scatter / masked_select
    ms = rand((2, 3), np.bool_)
    src = rand((6,))
    ref = y[:2].copy()
    ref[ms] = src[: int(ms.sum())]
    g.case("aten::masked_scatter.out", "f32", [y[:2].copy(), ms, src], [Out(ref)])
    mb = np.array([True, False, True])
    ref2 = y.copy()
    flat_src = rand((12,))
    mm = np.broadcast_to(mb, y.shape)
    ref2[mm] = flat_src[: int(mm.sum())]
    g.case("aten::masked_scatter.out", "bcast_mask", [y, mb, flat_src], [Out(ref2)])
    g.case("aten::masked_select.out", "f32", [y, np.broadcast_to(mb, y.shape).copy()], [Out(y[np.broadcast_to(mb, y.shape)])])
    g.case("aten::masked_select.out", "bcast_mask", [y, mb], [Out(y[np.broadcast_to(mb, y.shape)])])
    g.case("aten::masked_select.out", "none_selected", [y, np.zeros((3,), np.bool_)], [Out(np.zeros((0,), np.float32))])
    # nonzero -> int64 [n, ndim]
    nz = np.array([[0, 1.5, 0], [np.nan, 0, -0.0]], np.float32)
    g.case("aten::nonzero.out", "f32", [nz], [Out(np.argwhere(nz != 0).astype(np.int64))])
    nb = rand((2, 2, 3), np.bool_)
    g.case("aten::nonzero.out", "bool_3d", [nb], [Out(np.argwhere(nb).astype(np.int64))])
    g.case("aten::nonzero.out", "none", [np.zeros((4,), np.int32)], [Out(np.zeros((0, 1), np.int64))])
    # scatter_add(self, dim, index, src)
    si = np.array([[0, 1, 0], [2, 0, 0]], np.int64)
    ss = rand((2, 3))
    ref = np.zeros((3, 3), np.float64) + y[:3]
    for (r, c), k in np.ndenumerate(si):
        ref[k, c] += ss[r, c]
    g.case("aten::scatter_add.out", "dim0_dups", [y[:3].copy(), 0, si, ss], [Out(ref.astype(np.float32))])
    ref1 = y[:2].astype(np.float64).copy()
    for (r, c), k in np.ndenumerate(si):
        ref1[r, k] += ss[r, c]
    g.case("aten::scatter_add.out", "dim1", [y[:2].copy(), 1, si, ss], [Out(ref1.astype(np.float32))])
    g.case("aten::scatter_add.out", "err_index_range", [y[:3].copy(), 0, np.array([[3]], np.int64), ss],
           [Out(dtype=F32, shape=(3, 3))], error=("InvalidArgument", "index"))
    # select_scatter(self, src, dim, index) / slice_scatter(self, src, dim, start, end, step)
    z = rand((3, 4))
    r = z.copy()
    r[:, 2] = np.arange(3)
    g.case("aten::select_scatter.out", "dim1", [z, np.arange(3, dtype=np.float32), 1, 2], [Out(r)])
    r = z.copy()
    r[-1] = -1
    g.case("aten::select_scatter.out", "neg_index", [z, np.full((4,), -1, np.float32), 0, -1], [Out(r)])
    g.case("aten::select_scatter.out", "err_src_shape", [z, np.zeros((3,), np.float32), 0, 0],
           [Out(dtype=F32, shape=(3, 4))], error=("InvalidArgument", "src"))
    r = z.copy()
    r[:, 1:4:2] = np.ones((3, 2))
    g.case("aten::slice_scatter.out", "step2", [z, np.ones((3, 2), np.float32), 1, 1, 4, 2], [Out(r)])
    r = z.copy()
    r[1:] = 0
    g.case("aten::slice_scatter.out", "none_end", [z, np.zeros((2, 4), np.float32), 0, 1, None, 1], [Out(r)])
    # pads: (last dim left, right, [prev dim top, bottom, [front, back]])
    for kind, mode in (("reflection", "reflect"), ("replication", "edge")):
        p1 = rand((2, 5))
        g.case("aten::%s_pad1d.out" % kind, "2d", [p1, [2, 1]], [Out(np.pad(p1, ((0, 0), (2, 1)), mode=mode))])
        p1b = rand((1, 2, 4))
        g.case("aten::%s_pad1d.out" % kind, "3d", [p1b, [3, 0]], [Out(np.pad(p1b, ((0, 0), (0, 0), (3, 0)), mode=mode))])
        p2 = rand((1, 2, 4, 5))
        g.case("aten::%s_pad2d.out" % kind, "4d", [p2, [1, 2, 3, 0]],
               [Out(np.pad(p2, ((0, 0), (0, 0), (3, 0), (1, 2)), mode=mode))])
        p2i = rand((2, 3, 4), np.int32, -9, 9)
        g.case("aten::%s_pad2d.out" % kind, "3d_i32", [p2i, [1, 1, 1, 1]],
               [Out(np.pad(p2i, ((0, 0), (1, 1), (1, 1)), mode=mode))])
        g.case("aten::%s_pad2d.out" % kind, "channels_last", [T(p2, CL), [1, 1, 2, 2]],
               [Out(np.pad(p2, ((0, 0), (0, 0), (2, 2), (1, 1)), mode=mode), order=CL)])
        p3 = rand((1, 1, 3, 3, 4))
        g.case("aten::%s_pad3d.out" % kind, "5d", [p3, [1, 2, 0, 1, 2, 1]],
               [Out(np.pad(p3, ((0, 0), (0, 0), (2, 1), (0, 1), (1, 2)), mode=mode))])
    g.case("aten::reflection_pad1d.out", "err_pad_too_big", [rand((2, 3)), [3, 0]], [Out(dtype=F32, shape=(2, 6))],
           error=("InvalidArgument", "pad"))
