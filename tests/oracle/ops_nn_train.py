"""Oracle cases: training-mode batch norm (_native_batch_norm_legit .out / .no_stats_out) and the
backward kernels convolution_backward.out and max_pool2d_with_indices_backward.grad_input.

Convolution gradients come from linearity alone: numpy computes the forward convolution (slices
and einsum) and grad_x[i] = sum(gy * conv(e_i, w)), grad_w[j] = sum(gy * conv(x, e_j)),
grad_b = gy summed over batch and space; no backward formula is written here."""
import numpy as np

from oracle import CL, F32, BoolList, Out, T, rand


def _f32(a):
    return np.asarray(a).astype(np.float32)


def _bn_train(x, w, b, eps):
    axes = (0,) + tuple(range(2, x.ndim))
    xd = x.astype(np.float64)
    shp = (1, -1) + (1,) * (x.ndim - 2)
    mean = xd.mean(axis=axes)
    var = ((xd - mean.reshape(shp)) ** 2).mean(axis=axes)
    invstd = 1.0 / np.sqrt(var + eps)
    y = (xd - mean.reshape(shp)) * invstd.reshape(shp)
    if w is not None:
        y = y * w.reshape(shp)
    if b is not None:
        y = y + b.reshape(shp)
    return y, mean, invstd


def _conv(x, w, s, p, d, g, tr, op):
    N, C, H, W = x.shape
    kh, kw = w.shape[2], w.shape[3]
    if not tr:
        Co, Cig = w.shape[0], w.shape[1]
        Cog = Co // g
        OH = (H + 2 * p[0] - d[0] * (kh - 1) - 1) // s[0] + 1
        OW = (W + 2 * p[1] - d[1] * (kw - 1) - 1) // s[1] + 1
        xp = np.pad(x, ((0, 0), (0, 0), (p[0], p[0]), (p[1], p[1])))
        y = np.zeros((N, Co, OH, OW))
        for gi in range(g):
            for i in range(kh):
                for j in range(kw):
                    patch = xp[:, gi * Cig:(gi + 1) * Cig, i * d[0]:i * d[0] + s[0] * (OH - 1) + 1:s[0],
                               j * d[1]:j * d[1] + s[1] * (OW - 1) + 1:s[1]]
                    y[:, gi * Cog:(gi + 1) * Cog] += np.einsum("ncij,oc->noij", patch, w[gi * Cog:(gi + 1) * Cog, :, i, j])
        return y
    Cig, Cog = C // g, w.shape[1]
    OH = (H - 1) * s[0] - 2 * p[0] + d[0] * (kh - 1) + op[0] + 1
    OW = (W - 1) * s[1] - 2 * p[1] + d[1] * (kw - 1) + op[1] + 1
    yf = np.zeros((N, Cog * g, (H - 1) * s[0] + d[0] * (kh - 1) + 1 + op[0], (W - 1) * s[1] + d[1] * (kw - 1) + 1 + op[1]))
    for gi in range(g):
        for i in range(kh):
            for j in range(kw):
                yf[:, gi * Cog:(gi + 1) * Cog, i * d[0]:i * d[0] + s[0] * (H - 1) + 1:s[0],
                   j * d[1]:j * d[1] + s[1] * (W - 1) + 1:s[1]] += np.einsum(
                       "ncij,co->noij", x[:, gi * Cig:(gi + 1) * Cig], w[gi * Cig:(gi + 1) * Cig, :, i, j])
    return yf[:, :, p[0]:p[0] + OH, p[1]:p[1] + OW]


def _conv_grads(x, w, gy, *a):
    x, w, gy = x.astype(np.float64), w.astype(np.float64), gy.astype(np.float64)
    gx, gw = np.zeros(x.size), np.zeros(w.size)
    for i in range(x.size):
        e = np.zeros(x.size)
        e[i] = 1
        gx[i] = (gy * _conv(e.reshape(x.shape), w, *a)).sum()
    for i in range(w.size):
        e = np.zeros(w.size)
        e[i] = 1
        gw[i] = (gy * _conv(x, e.reshape(w.shape), *a)).sum()
    return gx.reshape(x.shape), gw.reshape(w.shape), gy.sum(axis=(0, 2, 3))


def _out_shape(x, w, s, p, d, g, tr, op):
    N, C, H, W = x.shape
    kh, kw = w.shape[2], w.shape[3]
    if not tr:
        return (N, w.shape[0], (H + 2 * p[0] - d[0] * (kh - 1) - 1) // s[0] + 1, (W + 2 * p[1] - d[1] * (kw - 1) - 1) // s[1] + 1)
    return (N, w.shape[1] * g, (H - 1) * s[0] - 2 * p[0] + d[0] * (kh - 1) + op[0] + 1,
            (W - 1) * s[1] - 2 * p[1] + d[1] * (kw - 1) + op[1] + 1)


def cases(g):
    # ---- _native_batch_norm_legit (training) ----
    x = rand((3, 4, 2, 3))
    w, b = rand((4,)), rand((4,))
    rm, rv = rand((4,)), rand((4,), lo=0.5, hi=2)
    for tag, ww, bb, eps in (("affine", w, b, 1e-5), ("noaffine", None, None, 1e-3), ("w_only", w, None, 0.1)):
        y, m, r = _bn_train(x, ww, bb, eps)
        g.case("aten::_native_batch_norm_legit.out", "train_" + tag, [x, ww, bb, rm, rv, True, 0.1, eps],
               [Out(_f32(y)), Out(_f32(m)), Out(_f32(r))])
        g.case("aten::_native_batch_norm_legit.no_stats_out", tag, [x, ww, bb, True, 0.1, eps],
               [Out(_f32(y)), Out(_f32(m)), Out(_f32(r))])
    y, m, r = _bn_train(x, w, b, 1e-5)
    g.case("aten::_native_batch_norm_legit.out", "train_cl", [T(x, CL), w, b, rm, rv, True, 0.1, 1e-5],
           [Out(_f32(y), order=CL), Out(_f32(m)), Out(_f32(r))])
    x3 = rand((4, 3, 5), np.float64)
    y, m, r = _bn_train(x3, None, None, 1e-5)
    g.case("aten::_native_batch_norm_legit.no_stats_out", "f64_3d", [x3, None, None, True, 0.1, 1e-5], [Out(y), Out(m), Out(r)])
    x2 = rand((5, 3))
    y, m, r = _bn_train(x2, w[:3], b[:3], 1e-5)
    g.case("aten::_native_batch_norm_legit.no_stats_out", "2d", [x2, w[:3], b[:3], True, 0.1, 1e-5],
           [Out(_f32(y)), Out(_f32(m)), Out(_f32(r))])
    # eval mode: running statistics, empty save_mean / save_invstd (as ATen's CPU kernel)
    shp = (1, -1, 1, 1)
    ref = (x.astype(np.float64) - rm.reshape(shp)) / np.sqrt(rv.reshape(shp) + 1e-5) * w.reshape(shp) + b.reshape(shp)
    empty = np.zeros((0,), np.float32)
    g.case("aten::_native_batch_norm_legit.out", "eval", [x, w, b, rm, rv, False, 0.1, 1e-5],
           [Out(_f32(ref)), Out(empty), Out(empty)])
    g.case("aten::_native_batch_norm_legit.no_stats_out", "err_int", [rand((2, 3), np.int32), None, None, True, 0.1, 1e-5],
           [Out(dtype=3, shape=(2, 3)), Out(dtype=F32, shape=(3,)), Out(dtype=F32, shape=(3,))],
           error=("InvalidArgument", "floating"))
    g.case("aten::_native_batch_norm_legit.no_stats_out", "err_eval_no_stats", [x, None, None, False, 0.1, 1e-5],
           [Out(dtype=F32, shape=x.shape), Out(dtype=F32, shape=(4,)), Out(dtype=F32, shape=(4,))],
           error=("InvalidArgument", "training=False"))
    g.case("aten::_native_batch_norm_legit.out", "err_weight", [x, w[:3], None, rm, rv, True, 0.1, 1e-5],
           [Out(dtype=F32, shape=x.shape), Out(dtype=F32, shape=(4,)), Out(dtype=F32, shape=(4,))],
           error=("InvalidArgument", "weight"))

    # ---- convolution_backward ----
    for tag, xs, ws, s, p, d, grp, tr, op, order in (
            ("basic", (2, 3, 5, 4), (4, 3, 3, 2), [1, 1], [1, 0], [1, 1], 1, False, [0, 0], None),
            ("groups_stride", (1, 4, 6, 5), (6, 2, 3, 3), [2, 2], [1, 1], [1, 1], 2, False, [0, 0], CL),
            ("depthwise_dil", (1, 3, 7, 6), (3, 1, 2, 3), [1, 2], [0, 2], [2, 1], 3, False, [0, 0], None),
            ("transposed", (1, 2, 3, 4), (2, 3, 2, 3), [1, 1], [0, 1], [1, 1], 1, True, [0, 0], None),
            ("transposed_groups_opad", (2, 4, 3, 3), (4, 2, 3, 2), [2, 2], [1, 0], [1, 2], 2, True, [1, 1], CL)):
        xx, wt = rand(xs, lo=-2, hi=2), rand(ws, lo=-2, hi=2)
        ys = _out_shape(xx, wt, s, p, d, grp, tr, op)
        gy = rand(ys, lo=-2, hi=2)
        gx, gw, gb = _conv_grads(xx, wt, gy, s, p, d, grp, tr, op)
        od = order or (0, 1, 2, 3)
        g.case("aten::convolution_backward.out", tag,
               [T(gy, od), T(xx, od), wt, [ys[1]], s, p, d, tr, op, grp, BoolList([True, True, True])],
               [Out(_f32(gx), order=od), Out(_f32(gw)), Out(_f32(gb))], tol=(1e-5, 1e-5))
    # 1-D: [N, C, L] (H = 1 inside)
    xx, wt = rand((2, 2, 9), lo=-2, hi=2), rand((3, 2, 3), lo=-2, hi=2)
    gy = rand((2, 3, 4), lo=-2, hi=2)
    gx, gw, gb = _conv_grads(xx[:, :, None, :], wt[:, :, None, :], gy[:, :, None, :], [1, 2], [0, 1], [1, 2], 1, False, [0, 0])
    g.case("aten::convolution_backward.out", "conv1d", [gy, xx, wt, None, [2], [1], [2], False, [0], 1, BoolList([True, True, True])],
           [Out(_f32(gx[:, :, 0, :])), Out(_f32(gw[:, :, 0, :])), Out(_f32(gb))], tol=(1e-5, 1e-5))
    xd, wd = rand((1, 2, 4, 4), np.float64), rand((2, 2, 2, 2), np.float64)
    gyd = rand((1, 2, 3, 3), np.float64)
    gx, gw, gb = _conv_grads(xd, wd, gyd, [1, 1], [0, 0], [1, 1], 1, False, [0, 0])
    g.case("aten::convolution_backward.out", "f64", [gyd, xd, wd, [2], [1, 1], [0, 0], [1, 1], False, [0, 0], 1,
                                                    BoolList([True, True, True])], [Out(gx), Out(gw), Out(gb)])
    g.case("aten::convolution_backward.out", "err_grad_shape",
           [rand((1, 2, 2, 2)), xd.astype(np.float32), wd.astype(np.float32), [2], [1, 1], [0, 0], [1, 1], False, [0, 0], 1,
            BoolList([True, True, True])],
           [Out(dtype=F32, shape=(1, 2, 4, 4)), Out(dtype=F32, shape=(2, 2, 2, 2)), Out(dtype=F32, shape=(2,))],
           error=("InvalidArgument", "grad_output"))

    # ---- max_pool2d_with_indices_backward ----
    # indices picked at random inside each window (any valid index works; the gradient is the
    # scatter-add of grad_output at the indices, computed here with np.add.at)
    for tag, xs, k, s, p, d, ceil, order in (("k2s2", (2, 3, 4, 6), [2, 2], [2, 2], [0, 0], [1, 1], False, None),
                                             ("k3s1p1_overlap", (1, 2, 5, 5), [3, 3], [1, 1], [1, 1], [1, 1], False, CL),
                                             ("dil_ceil", (1, 1, 7, 6), [2, 3], [2, 2], [1, 1], [2, 1], True, None)):
        N, C, H, W = xs

        def osz(n, kk, ss, pp, dd):
            num = n + 2 * pp - dd * (kk - 1) - 1
            o = (-(-num // ss) if ceil else num // ss) + 1
            if ceil and (o - 1) * ss >= n + pp:
                o -= 1
            return o
        OH, OW = osz(H, k[0], s[0], p[0], d[0]), osz(W, k[1], s[1], p[1], d[1])
        idx = np.zeros((N, C, OH, OW), np.int64)
        for i in range(OH):
            for j in range(OW):
                hs = [i * s[0] - p[0] + a * d[0] for a in range(k[0]) if 0 <= i * s[0] - p[0] + a * d[0] < H]
                ws_ = [j * s[1] - p[1] + a * d[1] for a in range(k[1]) if 0 <= j * s[1] - p[1] + a * d[1] < W]
                idx[:, :, i, j] = np.array(hs)[np.arange(N * C) % len(hs)].reshape(N, C) * W + \
                    np.array(ws_)[(np.arange(N * C) * 7 + i + j) % len(ws_)].reshape(N, C)
        gy = rand((N, C, OH, OW))
        want = np.zeros((N * C, H * W))
        np.add.at(want, (np.repeat(np.arange(N * C), OH * OW), idx.reshape(-1)), gy.astype(np.float64).reshape(-1))
        od = order or (0, 1, 2, 3)
        g.case("aten::max_pool2d_with_indices_backward.grad_input", tag,
               [T(gy, od), T(rand(xs), od), k, s, p, d, ceil, idx], [Out(_f32(want.reshape(xs)), order=od)])
    xs3 = rand((2, 4, 4))
    gy3 = rand((2, 2, 2))
    idx3 = np.array([[[0, 3], [12, 15]], [[5, 6], [9, 10]]], np.int64)
    want3 = np.zeros((2, 16))
    for c in range(2):
        for v, ix in zip(gy3[c].reshape(-1), idx3[c].reshape(-1)):
            want3[c, ix] += v
    g.case("aten::max_pool2d_with_indices_backward.grad_input", "3d_stride_default",
           [gy3, xs3, [2, 2], [], [0, 0], [1, 1], False, idx3], [Out(_f32(want3.reshape(2, 4, 4)))])
    g.case("aten::max_pool2d_with_indices_backward.grad_input", "err_index",
           [gy3, xs3, [2, 2], [], [0, 0], [1, 1], False, idx3 + 16], [Out(dtype=F32, shape=(2, 4, 4))],
           error=("InvalidArgument", "out of range"))
    g.case("aten::max_pool2d_with_indices_backward.grad_input", "err_idx_dtype",
           [gy3, xs3, [2, 2], [], [0, 0], [1, 1], False, idx3.astype(np.int32)], [Out(dtype=F32, shape=(2, 4, 4))],
           error=("InvalidArgument", "int64"))
