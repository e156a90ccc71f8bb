"""Oracle cases: reductions (sum, mean, amax/amin, argmax/argmin, any, cumsum, max/min.dim) and
softmax / log_softmax."""
import numpy as np

from oracle import BOOL, CL, F32, I64, Out, T, rand, f32_edges


def _f32(a):
    return np.asarray(a).astype(np.float32)


def _softmax(x, d):
    x = x.astype(np.float64)
    m = np.max(x, axis=d, keepdims=True)
    ex = np.exp(x - m)
    return ex / np.sum(ex, axis=d, keepdims=True)


def _log_softmax(x, d):
    x = x.astype(np.float64)
    m = np.max(x, axis=d, keepdims=True)
    return (x - m) - np.log(np.sum(np.exp(x - m), axis=d, keepdims=True))


def _first_arg(fn_is_max, x, axis):
    """argmax/argmin with ATen's NaN rule (a NaN wins) and ties to the first index."""
    xm = np.moveaxis(x.astype(np.float64), axis, -1)
    out = np.zeros(xm.shape[:-1], np.int64)
    for idx in np.ndindex(*xm.shape[:-1]):
        row = xm[idx]
        best = 0
        for j in range(1, row.shape[0]):
            if np.isnan(row[best]):
                break
            if np.isnan(row[j]) or (row[j] > row[best] if fn_is_max else row[j] < row[best]):
                best = j
        out[idx] = best
    return out


def cases(g):
    x = rand((2, 3, 4))
    x4 = rand((2, 3, 2, 2))
    xi = rand((3, 4), np.int32, -100, 100)
    # sum / mean
    for dims, keep in (([1], False), ([0, 2], True), ([-1], False), (None, False), ([], False)):
        tag = "dims%s_keep%d" % ("none" if dims is None else "_".join(str(d) for d in dims) or "empty", keep)
        ax = None if not dims else tuple(dims)
        s = np.sum(x.astype(np.float64), axis=ax, keepdims=keep)
        m = np.mean(x.astype(np.float64), axis=ax, keepdims=keep)
        g.case("aten::sum.IntList_out", "f32_" + tag, [x, dims, keep, None], [Out(_f32(s))])
        g.case("aten::mean.out", "f32_" + tag, [x, dims, keep, None], [Out(_f32(m))])
    g.case("aten::sum.IntList_out", "i32_to_i64", [xi, [1], False, None], [Out(np.sum(xi.astype(np.int64), axis=1))])
    g.case("aten::sum.IntList_out", "i32_dtype_f32", [xi, [0], False, F32], [Out(_f32(np.sum(xi, axis=0)))])
    bb = np.eye(3, 5, dtype=np.bool_)
    g.case("aten::sum.IntList_out", "bool_to_i64", [bb, [1], True, None], [Out(np.sum(bb.astype(np.int64), axis=1, keepdims=True))])
    g.case("aten::sum.IntList_out", "channels_last", [T(x4, CL), [1], True, None],
           [Out(_f32(np.sum(x4.astype(np.float64), axis=1, keepdims=True)), order=CL)])
    g.case("aten::sum.IntList_out", "empty_dim", [np.zeros((2, 0), np.float32), [1], False, None], [Out(np.zeros((2,), np.float32))])
    g.case("aten::sum.IntList_out", "f32_0d", [np.array(2.5, np.float32), None, False, None], [Out(np.array(2.5, np.float32))])
    e = f32_edges()
    g.case("aten::sum.IntList_out", "f32_nan", [e[:4].copy(), None, False, None], [Out(np.array(np.nan, np.float32))])
    g.case("aten::mean.out", "f64", [x.astype(np.float64), [2], False, None], [Out(np.mean(x.astype(np.float64), axis=2))])
    g.case("aten::mean.out", "i32_dtype_f32", [xi, [1], False, F32], [Out(_f32(np.mean(xi.astype(np.float64), axis=1)))])
    g.case("aten::mean.out", "channels_last", [T(x4, CL), [2, 3], True, None],
           [Out(_f32(np.mean(x4.astype(np.float64), axis=(2, 3), keepdims=True)), order=CL)])
    g.case("aten::mean.out", "empty_dim_nan", [np.zeros((2, 0), np.float32), [1], False, None],
           [Out(np.full((2,), np.nan, np.float32))])
    g.case("aten::sum.IntList_out", "err_dim_range", [x, [3], False, None], [Out(dtype=F32, shape=(2, 3))],
           error=("InvalidArgument", "dim"))
    g.case("aten::mean.out", "err_dim_range", [x, [-4], False, None], [Out(dtype=F32, shape=(2, 3))],
           error=("InvalidArgument", "dim"))

    # amax / amin
    for name, fn in (("amax", np.max), ("amin", np.min)):
        op = "aten::%s.out" % name
        g.case(op, "f32_dim1", [x, [1], False], [Out(fn(x, axis=1))])
        g.case(op, "f32_dims_keep", [x, [0, 2], True], [Out(fn(x, axis=(0, 2), keepdims=True))])
        g.case(op, "f32_all", [x, [], False], [Out(np.asarray(fn(x)))])
        g.case(op, "i32", [xi, [0], False], [Out(fn(xi, axis=0))])
        en = np.array([[1.0, np.nan, 3.0], [-np.inf, 2.0, np.inf]], np.float32)
        g.case(op, "f32_nan_propagates", [en, [1], False], [Out(fn(en, axis=1))])
        g.case(op, "channels_last", [T(x4, CL), [1], True], [Out(fn(x4, axis=1, keepdims=True), order=CL)])
        g.case(op, "bool", [bb, [1], False], [Out(fn(bb, axis=1))])
        g.case(op, "err_dim_range", [x, [5], False], [Out(dtype=F32, shape=(2, 3))], error=("InvalidArgument", "dim"))

    # argmax / argmin
    for name, is_max in (("argmax", True), ("argmin", False)):
        op = "aten::%s.out" % name
        g.case(op, "f32_dim1", [x, 1, False], [Out(_first_arg(is_max, x, 1))])
        g.case(op, "f32_dim_neg_keep", [x, -1, True], [Out(_first_arg(is_max, x, 2)[..., None])])
        g.case(op, "f32_flat", [x, None, False], [Out(np.asarray(_first_arg(is_max, x.reshape(-1), 0)))])
        ties = np.array([[1, 3, 3, 1], [2, 2, 0, 0]], np.int32)
        g.case(op, "i32_ties_first", [ties, 1, False], [Out(_first_arg(is_max, ties, 1))])
        en = np.array([[1.0, np.nan, 3.0, np.nan], [-np.inf, 2.0, np.inf, 0.0]], np.float32)
        g.case(op, "f32_nan", [en, 1, False], [Out(_first_arg(is_max, en, 1))])
        g.case(op, "err_dim_range", [x, 3, False], [Out(dtype=I64, shape=(2, 3))], error=("InvalidArgument", "dim"))

    # any
    bz = np.array([[0, 0, 1], [0, 0, 0]], np.float32)
    g.case("aten::any.all_out", "f32", [bz], [Out(np.array(True))])
    g.case("aten::any.all_out", "f32_zeros", [np.zeros((2, 2), np.float32)], [Out(np.array(False))])
    g.case("aten::any.all_out", "nan_is_true", [np.array([0.0, np.nan], np.float32)], [Out(np.array(True))])
    g.case("aten::any.all_out", "empty", [np.zeros((0,), np.int32)], [Out(np.array(False))])
    g.case("aten::any.out", "f32_dim1", [bz, 1, False], [Out(np.any(bz, axis=1))])
    g.case("aten::any.out", "i32_dim0_keep", [xi * (xi > 50), 0, True], [Out(np.any(xi * (xi > 50), axis=0, keepdims=True))])
    g.case("aten::any.dims_out", "bool_dims", [rand((2, 3, 4), np.bool_) & False, [0, 2], False],
           [Out(np.zeros((3,), np.bool_))])
    b3 = rand((2, 3, 4), np.bool_)
    g.case("aten::any.dims_out", "bool_dims_keep", [b3, [0, 2], True], [Out(np.any(b3, axis=(0, 2), keepdims=True))])
    g.case("aten::any.dims_out", "none_all", [b3, None, False], [Out(np.asarray(np.any(b3)))])
    g.case("aten::any.out", "err_dim_range", [bz, 2, False], [Out(dtype=BOOL, shape=(2,))], error=("InvalidArgument", "dim"))

    # cumsum
    g.case("aten::cumsum.out", "f32_dim1", [x, 1, None], [Out(_f32(np.cumsum(x.astype(np.float64), axis=1)))])
    g.case("aten::cumsum.out", "f32_dim_neg", [x, -1, None], [Out(_f32(np.cumsum(x.astype(np.float64), axis=2)))])
    g.case("aten::cumsum.out", "i32_to_i64", [xi, 0, I64], [Out(np.cumsum(xi.astype(np.int64), axis=0))])
    g.case("aten::cumsum.out", "i64", [xi.astype(np.int64), 1, None], [Out(np.cumsum(xi.astype(np.int64), axis=1))])
    g.case("aten::cumsum.out", "f32_0d", [np.array(3.0, np.float32), 0, None], [Out(np.array(3.0, np.float32))])
    g.case("aten::cumsum.out", "f32_nan", [np.array([1.0, np.nan, 2.0], np.float32), 0, None],
           [Out(np.array([1.0, np.nan, np.nan], np.float32))])
    g.case("aten::cumsum.out", "channels_last", [T(x4, CL), 1, None],
           [Out(_f32(np.cumsum(x4.astype(np.float64), axis=1)), order=CL)])
    g.case("aten::cumsum.out", "err_dim_range", [x, 3, None], [Out(dtype=F32, shape=(2, 3, 4))], error=("InvalidArgument", "dim"))

    # max.dim_max / min.dim_min (values, indices)
    for name, is_max, fn in (("max.dim_max", True, np.max), ("min.dim_min", False, np.min)):
        op = "aten::" + name
        g.case(op, "f32_dim1", [x, 1, False], [Out(fn(x, axis=1)), Out(_first_arg(is_max, x, 1))])
        g.case(op, "f32_keep", [x, 2, True], [Out(fn(x, axis=2, keepdims=True)), Out(_first_arg(is_max, x, 2)[..., None])])
        g.case(op, "i32", [xi, 0, False], [Out(fn(xi, axis=0)), Out(_first_arg(is_max, xi, 0))])
        en = np.array([[1.0, np.nan, 3.0], [-np.inf, 2.0, np.inf]], np.float32)
        g.case(op, "f32_nan", [en, 1, False], [Out(np.array([np.nan, fn(en[1])], np.float32)), Out(_first_arg(is_max, en, 1))])
        g.case(op, "err_dim_range", [x, -4, False], [Out(dtype=F32, shape=(2, 3)), Out(dtype=I64, shape=(2, 3))],
               error=("InvalidArgument", "dim"))

    # softmax / log_softmax
    for op, fn in (("aten::_softmax.out", _softmax), ("aten::_log_softmax.out", _log_softmax)):
        g.case(op, "f32_last", [x, -1, False], [Out(_f32(fn(x, -1)))])
        g.case(op, "f32_dim0", [x, 0, False], [Out(_f32(fn(x, 0)))])
        g.case(op, "f32_large", [x * 1000, 1, False], [Out(_f32(fn(x * np.float32(1000), 1)))])
        g.case(op, "channels_last_dim1", [T(x4, CL), 1, False], [Out(_f32(fn(x4, 1)), order=CL)])
        g.case(op, "f64", [x.astype(np.float64), 2, False], [Out(fn(x.astype(np.float64), 2))])
        g.case(op, "f32_0d", [np.array(0.3, np.float32), 0, False], [Out(_f32(fn(np.array([0.3], np.float32), 0)[0]))])
        g.case(op, "err_dim_range", [x, 3, False], [Out(dtype=F32, shape=(2, 3, 4))], error=("InvalidArgument", "dim"))
