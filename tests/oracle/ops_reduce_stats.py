"""Oracle cases: prod (.out / .int_out), var (.out / .correction_out), var_mean.correction_out,
mean.dtype_out, max.unary_out / min.unary_out. Expected values from numpy (float64 then cast)."""
import numpy as np

from oracle import CL, F32, F64, I32, Out, T, f32_edges, int_extremes, rand


def _f32(a):
    return np.asarray(a).astype(np.float32)


def _var(x, axis, corr, keep):
    xd = x.astype(np.float64)
    n = xd.size if axis is None else int(np.prod([xd.shape[a] for a in np.atleast_1d(axis)]))
    m = xd.mean(axis=axis, keepdims=True) if n > 0 else np.full([1] * xd.ndim, np.nan)
    ssd = ((xd - m) ** 2).sum(axis=axis, keepdims=keep)
    div = max(0.0, n - corr)
    with np.errstate(divide="ignore", invalid="ignore"):
        v = ssd / div if div > 0 else np.where(ssd == 0, np.nan, np.inf * np.sign(ssd))
    mean = np.asarray(xd.mean(axis=axis, keepdims=keep)) if n > 0 else np.full(np.shape(v), np.nan)
    return np.asarray(v), mean


def cases(g):
    # ---- prod ----
    x = rand((2, 3, 4), lo=-1.5, hi=1.5)
    g.case("aten::prod.out", "f32_all", [x, None], [Out(_f32(np.prod(x.astype(np.float64))))])
    xi = rand((3, 4), np.int32, -5, 5)
    g.case("aten::prod.out", "i32_to_i64", [xi, None], [Out(np.array(np.prod(xi.astype(np.int64)), np.int64))])
    g.case("aten::prod.out", "i32_dtype_f64", [xi, F64], [Out(np.array(np.prod(xi.astype(np.float64))))])
    bb = np.array([True, True, False])
    g.case("aten::prod.out", "bool_to_i64", [bb, None], [Out(np.array(0, np.int64))])
    g.case("aten::prod.out", "empty", [np.zeros((0, 3), np.float32), None], [Out(np.array(1.0, np.float32))])
    g.case("aten::prod.out", "f32_edges", [f32_edges()[3:], None], [Out(_f32(np.prod(f32_edges()[3:].astype(np.float64))))])
    for d, keep in ((0, False), (1, True), (-1, False)):
        g.case("aten::prod.int_out", "f32_d%d_k%d" % (d, keep), [x, d, keep, None],
               [Out(_f32(np.prod(x.astype(np.float64), axis=d, keepdims=keep)))])
    x4 = rand((2, 3, 2, 2), lo=-2, hi=2)
    g.case("aten::prod.int_out", "channels_last", [T(x4, CL), 1, True, None],
           [Out(_f32(np.prod(x4.astype(np.float64), axis=1, keepdims=True)), order=CL)])
    # int8 with dtype int8: wraps like two's complement (numpy int8 multiply wraps the same way)
    xc = np.array([[100, 3], [-128, -1], [7, 9]], np.int8)
    with np.errstate(over="ignore"):
        want8 = (xc[:, 0].astype(np.int64) * xc[:, 1].astype(np.int64)).astype(np.int8)
    g.case("aten::prod.int_out", "i8_wrap", [xc, 1, False, 1], [Out(want8)])
    xl = int_extremes(np.int64)
    with np.errstate(over="ignore"):
        wl = np.array(np.prod(xl[2:]), np.int64)
    g.case("aten::prod.int_out", "i64", [xl[2:], 0, False, None], [Out(wl)])
    xh = rand((3, 2), np.float16, -2, 2)
    g.case("aten::prod.int_out", "f16", [xh, 0, False, None],
           [Out(np.prod(xh.astype(np.float64), axis=0).astype(np.float16))])
    g.case("aten::prod.int_out", "err_dim", [x, 3, False, None], [Out(dtype=F32, shape=(2, 3))],
           error=("InvalidArgument", "dim 3 out of range"))
    g.case("aten::prod.out", "err_out_dtype", [xi, None], [Out(dtype=I32, shape=())],
           error=("InvalidArgument", "expected out dtype int64"))

    # ---- mean.dtype_out ----
    g.case("aten::mean.dtype_out", "f32", [x, None], [Out(_f32(x.astype(np.float64).mean()))])
    g.case("aten::mean.dtype_out", "i32_to_f64", [xi, F64], [Out(np.array(xi.astype(np.float64).mean()))])
    g.case("aten::mean.dtype_out", "cl", [T(x4, CL), None], [Out(_f32(x4.astype(np.float64).mean()))])
    g.case("aten::mean.dtype_out", "empty_nan", [np.zeros((0,), np.float32), None], [Out(np.array(np.nan, np.float32))])
    g.case("aten::mean.dtype_out", "err_int_no_dtype", [xi, None], [Out(dtype=F32, shape=())],
           error=("InvalidArgument", "mean"))

    # ---- max / min unary ----
    for op, fn in (("aten::max.unary_out", np.max), ("aten::min.unary_out", np.min)):
        short = op.split("::")[1].split(".")[0]
        g.case(op, "f32", [x], [Out(np.array(fn(x), np.float32))])
        g.case(op, "f32_nan", [f32_edges()], [Out(np.array(np.nan, np.float32))])
        g.case(op, "f32_inf", [f32_edges()[1:]], [Out(np.array(fn(f32_edges()[1:]), np.float32))])
        g.case(op, "i64_extremes", [int_extremes(np.int64)], [Out(np.array(fn(int_extremes(np.int64)), np.int64))])
        g.case(op, "u8", [int_extremes(np.uint8)], [Out(np.array(fn(int_extremes(np.uint8)), np.uint8))])
        g.case(op, "bool", [np.array([False, True, False])], [Out(np.array(short == "max"))])
        g.case(op, "cl", [T(x4, CL)], [Out(np.array(fn(x4), np.float32))])
        # (a 0-d bfloat16 want is not expressible: oracle.bf16() turns 0-d into 1-d) -> float16
        xh16 = rand((5,), np.float16)
        g.case(op, "f16", [xh16], [Out(np.array(fn(xh16), np.float16))])
        g.case(op, "0d", [np.array(-2.5, np.float64)], [Out(np.array(-2.5))])
        g.case(op, "err_empty", [np.zeros((2, 0), np.float32)], [Out(dtype=F32, shape=())],
               error=("InvalidArgument", "numel() == 0"))

    # ---- var / var_mean ----
    xv = rand((3, 4, 5))
    for dims, keep in (([1], False), ([0, 2], True), ([-1], False), (None, False), ([], True)):
        ax = None if not dims else tuple(dims)
        tag = "%s_k%d" % ("none" if dims is None else "_".join(str(d) for d in dims) or "empty", keep)
        for unb in (True, False):
            v, _ = _var(xv, ax, 1.0 if unb else 0.0, keep)
            g.case("aten::var.out", "%s_unb%d" % (tag, unb), [xv, dims, unb, keep], [Out(_f32(v))])
        for corr in (None, 0, 2, 0.5):
            v, m = _var(xv, ax, 1.0 if corr is None else corr, keep)
            ctag = "%s_c%s" % (tag, "none" if corr is None else str(corr).replace(".", "p"))
            g.case("aten::var.correction_out", ctag, [xv, dims, corr, keep], [Out(_f32(v))])
            g.case("aten::var_mean.correction_out", ctag, [xv, dims, corr, keep], [Out(_f32(v)), Out(_f32(m))])
    xd = rand((2, 3, 4, 2), np.float64)
    v, m = _var(xd, (2, 3), 1.0, True)
    g.case("aten::var_mean.correction_out", "f64_cl", [T(xd, CL), [2, 3], None, True], [Out(v, order=CL), Out(m, order=CL)])
    x1 = rand((4, 1))
    v, _ = _var(x1, 1, 1.0, False)
    g.case("aten::var.correction_out", "n1_nan", [x1, [1], None, False], [Out(_f32(v))])
    v, _ = _var(xv, 1, 5.0, False)
    g.case("aten::var.correction_out", "corr_ge_n_inf", [xv, [1], 5, False], [Out(_f32(v))])
    xe = f32_edges().reshape(3, 3)
    v, _ = _var(xe, 1, 1.0, False)
    g.case("aten::var.correction_out", "edges", [xe, [1], None, False], [Out(_f32(v))])
    xh = rand((4, 3), np.float16, -2, 2)
    v, m = _var(xh, 0, 1.0, False)
    g.case("aten::var_mean.correction_out", "f16", [xh, [0], None, False],
           [Out(v.astype(np.float16)), Out(m.astype(np.float16))])
    g.case("aten::var.correction_out", "empty_red", [np.zeros((2, 0), np.float32), [1], None, False],
           [Out(np.full((2,), np.nan, np.float32))])
    g.case("aten::var.out", "err_int", [xi, [1], True, False], [Out(dtype=I32, shape=(3,))],
           error=("InvalidArgument", "floating point"))
    g.case("aten::var_mean.correction_out", "err_mean_dtype", [xv, [1], None, False],
           [Out(dtype=F32, shape=(3, 5)), Out(dtype=F64, shape=(3, 5))], error=("InvalidArgument", "out1 (mean)"))
    g.case("aten::var.correction_out", "err_dup_dim", [xv, [1, -2], None, False], [Out(dtype=F32, shape=(3, 5))],
           error=("InvalidArgument", "multiple times"))
