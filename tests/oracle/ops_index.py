"""Oracle cases: index.Tensor, index_select, gather, scatter (src / value), embedding."""
import numpy as np

from oracle import CL, F32, Out, OptTList, T, rand


def _gather(x, d, idx):
    return np.take_along_axis(x, idx, axis=d)


def _scatter(x, d, idx, src):
    out = x.copy()
    for pos in np.ndindex(*idx.shape):
        tgt = list(pos)
        tgt[d] = idx[pos]
        out[tuple(tgt)] = src[pos] if isinstance(src, np.ndarray) else src
    return out


def cases(g):
    x = rand((4, 3, 2))
    i1 = np.array([3, 0, -1, 2, 0], np.int64)
    g.case("aten::index.Tensor_out", "dim0_i64", [x, OptTList([T(i1)])], [Out(x[i1])])
    g.case("aten::index.Tensor_out", "dim0_i32", [x, OptTList([T(i1.astype(np.int32))])], [Out(x[i1])])
    m = np.array([True, False, True, True])
    g.case("aten::index.Tensor_out", "bool_mask", [x, OptTList([T(m)])], [Out(x[m])])
    m2 = rand((4, 3), np.bool_)
    g.case("aten::index.Tensor_out", "bool_mask_2d", [x, OptTList([T(m2)])], [Out(x[m2])])
    a, b = np.array([[0], [2]], np.int64), np.array([1, 0, 2], np.int64)
    g.case("aten::index.Tensor_out", "two_broadcast", [x, OptTList([T(a), T(b)])], [Out(x[a, b])])
    g.case("aten::index.Tensor_out", "none_then_index", [x, OptTList([None, T(b)])], [Out(x[:, b])])
    g.case("aten::index.Tensor_out", "i32_values", [(x * 10).astype(np.int32), OptTList([T(i1)])], [Out((x * 10).astype(np.int32)[i1])])
    g.case("aten::index.Tensor_out", "empty_index", [x, OptTList([T(np.zeros((0,), np.int64))])], [Out(x[np.zeros((0,), np.int64)])])
    g.case("aten::index.Tensor_out", "err_index_range", [x, OptTList([T(np.array([4], np.int64))])],
           [Out(dtype=F32, shape=(1, 3, 2))], error=("InvalidArgument", "index"))
    # index_select
    g.case("aten::index_select.out", "dim0", [x, 0, np.array([2, 2, 0], np.int64)], [Out(x[[2, 2, 0]])])
    g.case("aten::index_select.out", "dim_neg_i32", [x, -1, np.array([1, 0], np.int32)], [Out(x[:, :, [1, 0]])])
    g.case("aten::index_select.out", "0d_index", [x, 1, np.array(2, np.int64)], [Out(x[:, [2]])])
    g.case("aten::index_select.out", "0d_self", [np.array(5.0, np.float32), 0, np.array([0], np.int64)],
           [Out(np.array(5.0, np.float32))])
    x4 = rand((2, 3, 2, 2))
    g.case("aten::index_select.out", "channels_last", [T(x4, CL), 1, np.array([2, 0], np.int64)], [Out(x4[:, [2, 0]], order=CL)])
    g.case("aten::index_select.out", "err_index_range", [x, 1, np.array([3], np.int64)],
           [Out(dtype=F32, shape=(4, 1, 2))], error=("InvalidArgument", "index"))
    g.case("aten::index_select.out", "err_dim_range", [x, 3, np.array([0], np.int64)],
           [Out(dtype=F32, shape=(4, 3, 1))], error=("InvalidArgument", "dim"))
    g.case("aten::index_select.out", "err_index_dtype", [x, 0, np.array([0.0], np.float32)],
           [Out(dtype=F32, shape=(1, 3, 2))], error=("InvalidArgument", "index"))
    # gather
    y = rand((3, 4))
    gi = np.array([[0, 3], [1, 1], [2, 0]], np.int64)
    g.case("aten::gather.out", "dim1", [y, 1, gi, False], [Out(_gather(y, 1, gi))])
    gi0 = np.array([[2, 0, 1, 1]], np.int64)
    g.case("aten::gather.out", "dim0", [y, 0, gi0, False], [Out(_gather(y, 0, gi0))])
    g.case("aten::gather.out", "neg_dim_smaller_index", [y, -1, np.array([[3], [0]], np.int64), False],
           [Out(np.array([[y[0, 3]], [y[1, 0]]], np.float32))])
    g.case("aten::gather.out", "err_index_range", [y, 1, np.array([[4]], np.int64), False],
           [Out(dtype=F32, shape=(1, 1))], error=("InvalidArgument", "index"))
    # scatter
    si = np.array([[1, 0], [3, 2]], np.int64)
    src = rand((2, 2))
    g.case("aten::scatter.src_out", "dim1", [y, 1, si, src], [Out(_scatter(y, 1, si, src))])
    si0 = np.array([[2, 0, 1, 0]], np.int64)
    src0 = rand((1, 4))
    g.case("aten::scatter.src_out", "dim0", [y, 0, si0, src0], [Out(_scatter(y, 0, si0, src0))])
    g.case("aten::scatter.value_out", "dim1", [y, 1, si, 9.5], [Out(_scatter(y, 1, si, np.float32(9.5)))])
    yi = rand((3, 4), np.int32, -9, 9)
    g.case("aten::scatter.value_out", "i32", [yi, 0, si0, -1], [Out(_scatter(yi, 0, si0, -1))])
    g.case("aten::scatter.src_out", "err_index_range", [y, 1, np.array([[4]], np.int64), src],
           [Out(dtype=F32, shape=(3, 4))], error=("InvalidArgument", "index"))
    # embedding
    w = rand((5, 3))
    ids = np.array([[0, 4], [2, 2]], np.int64)
    g.case("aten::embedding.out", "i64_2d", [w, ids, -1, False, False], [Out(w[ids])])
    g.case("aten::embedding.out", "i32", [w, ids.astype(np.int32), -1, False, False], [Out(w[ids])])
    g.case("aten::embedding.out", "0d_ids", [w, np.array(3, np.int64), -1, False, False], [Out(w[3])])
    g.case("aten::embedding.out", "empty_ids", [w, np.zeros((0,), np.int64), -1, False, False], [Out(np.zeros((0, 3), np.float32))])
    g.case("aten::embedding.out", "err_index_range", [w, np.array([5], np.int64), -1, False, False],
           [Out(dtype=F32, shape=(1, 3))], error=("InvalidArgument", "index"))
    g.case("aten::embedding.out", "err_negative_index", [w, np.array([-1], np.int64), -1, False, False],
           [Out(dtype=F32, shape=(1, 3))], error=("InvalidArgument", "index"))
