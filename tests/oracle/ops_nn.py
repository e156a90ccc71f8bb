"""Oracle cases: layer / group / batch norm, avg / max / adaptive pools, upsample_nearest2d."""
import math

import numpy as np

from oracle import CL, F32, I64, DoubleList, Out, T, rand


def _f32(a):
    return np.asarray(a).astype(np.float32)


def _layer_norm(x, nshape, w, b, eps):
    k = len(nshape)
    axes = tuple(range(x.ndim - k, x.ndim))
    xd = x.astype(np.float64)
    mean = xd.mean(axis=axes, keepdims=True)
    var = ((xd - mean) ** 2).mean(axis=axes, keepdims=True)
    rstd = 1.0 / np.sqrt(var + eps)
    y = (xd - mean) * rstd
    if w is not None:
        y = y * w
    if b is not None:
        y = y + b
    return y, mean, rstd


def _group_norm(x, w, b, G, eps):
    N, C = x.shape[:2]
    xd = x.astype(np.float64).reshape(N, G, -1)
    mean = xd.mean(axis=2)
    var = ((xd - mean[:, :, None]) ** 2).mean(axis=2)
    rstd = 1.0 / np.sqrt(var + eps)
    y = ((xd - mean[:, :, None]) * rstd[:, :, None]).reshape(x.shape)
    shp = (1, C) + (1,) * (x.ndim - 2)
    if w is not None:
        y = y * w.reshape(shp)
    if b is not None:
        y = y + b.reshape(shp)
    return y, mean, rstd


def _pool_out(n, k, s, p, d, ceil):
    num = n + 2 * p - d * (k - 1) - 1
    o = (-(-num // s) if ceil else num // s) + 1
    if ceil and (o - 1) * s >= n + p:
        o -= 1
    return o


def _avg_pool2d(x, k, s, p, ceil, cip, div):
    N, C, H, W = x.shape
    OH, OW = _pool_out(H, k[0], s[0], p[0], 1, ceil), _pool_out(W, k[1], s[1], p[1], 1, ceil)
    y = np.zeros((N, C, OH, OW))
    for i in range(OH):
        for j in range(OW):
            h0, w0 = i * s[0] - p[0], j * s[1] - p[1]
            h1, w1 = min(h0 + k[0], H + p[0]), min(w0 + k[1], W + p[1])
            pool = (h1 - h0) * (w1 - w0)
            hs, ws, he, we = max(h0, 0), max(w0, 0), min(h1, H), min(w1, W)
            acc = x[:, :, hs:he, ws:we].astype(np.float64).sum(axis=(2, 3))
            if div is not None:
                y[:, :, i, j] = acc / div
            elif cip:
                y[:, :, i, j] = acc / pool
            else:
                y[:, :, i, j] = acc / ((he - hs) * (we - ws))
    return y


def _max_pool2d(x, k, s, p, d, ceil):
    N, C, H, W = x.shape
    OH, OW = _pool_out(H, k[0], s[0], p[0], d[0], ceil), _pool_out(W, k[1], s[1], p[1], d[1], ceil)
    y = np.zeros((N, C, OH, OW), x.dtype)
    idx = np.zeros((N, C, OH, OW), np.int64)
    for n in range(N):
        for c in range(C):
            for i in range(OH):
                for j in range(OW):
                    best, bi = -np.inf, -1
                    for ki in range(k[0]):
                        for kj in range(k[1]):
                            hh, ww = i * s[0] - p[0] + ki * d[0], j * s[1] - p[1] + kj * d[1]
                            if 0 <= hh < H and 0 <= ww < W:
                                v = x[n, c, hh, ww]
                                if bi < 0 or v > best or np.isnan(v):
                                    best, bi = v, hh * W + ww
                                    if np.isnan(v):
                                        break
                        if np.isnan(best):
                            break
                    y[n, c, i, j], idx[n, c, i, j] = best, bi
    return y, idx


def _adaptive_avg(x, oh, ow):
    N, C, H, W = x.shape
    y = np.zeros((N, C, oh, ow))
    for i in range(oh):
        h0, h1 = (i * H) // oh, -(-((i + 1) * H) // oh)
        for j in range(ow):
            w0, w1 = (j * W) // ow, -(-((j + 1) * W) // ow)
            y[:, :, i, j] = x[:, :, h0:h1, w0:w1].astype(np.float64).mean(axis=(2, 3))
    return y


def _nearest(x, oh, ow, sh=None, sw=None):
    N, C, H, W = x.shape
    rh = (1.0 / sh) if sh else H / oh
    rw = (1.0 / sw) if sw else W / ow
    hi = np.minimum(np.floor(np.arange(oh) * rh).astype(np.int64), H - 1)
    wi = np.minimum(np.floor(np.arange(ow) * rw).astype(np.int64), W - 1)
    return x[:, :, hi][:, :, :, wi]


def cases(g):
    x = rand((2, 3, 4))
    w, b = rand((4,)), rand((4,))
    for tag, ns, ww, bb in (("last", [4], w, b), ("last2_noaffine", [3, 4], None, None), ("w_only", [4], w, None)):
        y, m, r = _layer_norm(x, ns, ww, bb, 1e-5)
        g.case("aten::native_layer_norm.out", tag, [x, ns, ww, bb, 1e-5], [Out(_f32(y)), Out(_f32(m)), Out(_f32(r))])
    xc = rand((2, 3, 4)) * 0 + np.float32(1.5)
    y, m, r = _layer_norm(xc, [4], None, None, 1e-5)
    g.case("aten::native_layer_norm.out", "constant_rows", [xc, [4], None, None, 1e-5], [Out(_f32(y)), Out(_f32(m)), Out(_f32(r))],
           tol=(1e-5, 1e-3))  # rstd = 1/sqrt(eps) ~ 316: float32 one-pass vs two-pass variance differ near 0
    g.case("aten::native_layer_norm.out", "err_shape", [x, [3], None, None, 1e-5],
           [Out(dtype=F32, shape=(2, 3, 4)), Out(dtype=F32, shape=(2, 3, 1)), Out(dtype=F32, shape=(2, 3, 1))],
           error=("InvalidArgument", "normalized_shape"))
    # group norm: input, weight?, bias?, N, C, HxW, group, eps
    xg = rand((2, 4, 3, 2))
    wg, bg = rand((4,)), rand((4,))
    for G in (1, 2, 4):
        y, m, r = _group_norm(xg, wg, bg, G, 1e-5)
        g.case("aten::native_group_norm.out", "g%d" % G, [xg, wg, bg, 2, 4, 6, G, 1e-5], [Out(_f32(y)), Out(_f32(m)), Out(_f32(r))])
    y, m, r = _group_norm(xg, None, None, 2, 1e-3)
    g.case("aten::native_group_norm.out", "noaffine", [xg, None, None, 2, 4, 6, 2, 1e-3], [Out(_f32(y)), Out(_f32(m)), Out(_f32(r))])
    g.case("aten::native_group_norm.out", "err_groups", [xg, None, None, 2, 4, 6, 3, 1e-5],
           [Out(dtype=F32, shape=xg.shape), Out(dtype=F32, shape=(2, 3)), Out(dtype=F32, shape=(2, 3))],
           error=("InvalidArgument", "group"))
    # batch norm (no training): input, weight?, bias?, running_mean, running_var, momentum, eps
    xb = rand((2, 3, 2, 2))
    rm, rv = rand((3,)), rand((3,), lo=0.2, hi=2)
    wb, bb2 = rand((3,)), rand((3,))
    ref = (xb.astype(np.float64) - rm[None, :, None, None]) / np.sqrt(rv[None, :, None, None] + 1e-5) * wb[None, :, None, None] + bb2[None, :, None, None]
    empty = np.zeros((0,), np.float32)
    g.case("aten::_native_batch_norm_legit_no_training.out", "affine", [xb, wb, bb2, rm, rv, 0.1, 1e-5],
           [Out(_f32(ref)), Out(empty), Out(empty)])
    ref2 = (xb.astype(np.float64) - rm[None, :, None, None]) / np.sqrt(rv[None, :, None, None] + 1e-3)
    g.case("aten::_native_batch_norm_legit_no_training.out", "noaffine", [xb, None, None, rm, rv, 0.1, 1e-3],
           [Out(_f32(ref2)), Out(empty), Out(empty)])
    g.case("aten::_native_batch_norm_legit_no_training.out", "channels_last", [T(xb, CL), wb, bb2, rm, rv, 0.1, 1e-5],
           [Out(_f32(ref), order=CL), Out(empty), Out(empty)])
    x3 = rand((2, 3, 5))
    ref3 = (x3.astype(np.float64) - rm[None, :, None]) / np.sqrt(rv[None, :, None] + 1e-5)
    g.case("aten::_native_batch_norm_legit_no_training.out", "3d", [x3, None, None, rm, rv, 0.1, 1e-5],
           [Out(_f32(ref3)), Out(empty), Out(empty)])

    # pools
    xp = rand((1, 2, 5, 6))
    for tag, k, s, p, ceil, cip, div in (("k2s2", [2, 2], [2, 2], [0, 0], False, True, None),
                                         ("k3s2p1", [3, 3], [2, 2], [1, 1], False, True, None),
                                         ("k3s2p1_exclude_pad", [3, 3], [2, 2], [1, 1], False, False, None),
                                         ("ceil", [2, 2], [2, 2], [0, 0], True, True, None),
                                         ("ceil_exclude", [3, 2], [2, 2], [1, 0], True, False, None),
                                         ("divisor", [2, 3], [1, 2], [0, 1], False, True, 5)):
        g.case("aten::avg_pool2d.out", tag, [xp, k, s, p, ceil, cip, div],
               [Out(_f32(_avg_pool2d(xp, k, s, p, ceil, cip, div)))])
    g.case("aten::avg_pool2d.out", "channels_last", [T(rand((1, 3, 4, 4)) * 0 + xp[:, :1, :4, :4].repeat(3, 1), CL), [2, 2], [2, 2], [0, 0], False, True, None],
           [Out(_f32(_avg_pool2d(xp[:, :1, :4, :4].repeat(3, 1), [2, 2], [2, 2], [0, 0], False, True, None)), order=CL)])
    g.case("aten::avg_pool2d.out", "stride_default", [xp, [2, 2], [], [0, 0], False, True, None],
           [Out(_f32(_avg_pool2d(xp, [2, 2], [2, 2], [0, 0], False, True, None)))])
    for tag, k, s, p, d, ceil in (("k2s2", [2, 2], [2, 2], [0, 0], [1, 1], False),
                                  ("k3s1p1", [3, 3], [1, 1], [1, 1], [1, 1], False),
                                  ("dil2", [2, 2], [1, 1], [0, 0], [2, 2], False),
                                  ("ceil", [2, 2], [2, 2], [0, 0], [1, 1], True)):
        y, idx = _max_pool2d(xp, k, s, p, d, ceil)
        g.case("aten::max_pool2d_with_indices.out", tag, [xp, k, s, p, d, ceil], [Out(y), Out(idx)])
    xn = xp.copy()
    xn[0, 0, 1, 1] = np.nan
    y, idx = _max_pool2d(xn, [2, 2], [2, 2], [0, 0], [1, 1], False)
    g.case("aten::max_pool2d_with_indices.out", "nan", [xn, [2, 2], [2, 2], [0, 0], [1, 1], False], [Out(y), Out(idx)])
    xi = rand((1, 2, 4, 4), np.int32, -50, 50)
    y, idx = _max_pool2d(xi, [2, 2], [2, 2], [0, 0], [1, 1], False)
    g.case("aten::max_pool2d_with_indices.out", "i32", [xi, [2, 2], [2, 2], [0, 0], [1, 1], False], [Out(y), Out(idx)])
    g.case("aten::max_pool2d_with_indices.out", "err_pad_too_big", [xp, [2, 2], [2, 2], [2, 2], [1, 1], False],
           [Out(dtype=F32, shape=(1, 2, 4, 5)), Out(dtype=I64, shape=(1, 2, 4, 5))], error=("InvalidArgument", "pad"))
    for op in ("aten::_adaptive_avg_pool2d.out", "aten::adaptive_avg_pool2d.out"):
        g.case(op, "to_1x1", [xp, [1, 1]], [Out(_f32(_adaptive_avg(xp, 1, 1)))])
        g.case(op, "to_3x4", [xp, [3, 4]], [Out(_f32(_adaptive_avg(xp, 3, 4)))])
        g.case(op, "to_2x3_cl", [T(xp, CL), [2, 3]], [Out(_f32(_adaptive_avg(xp, 2, 3)), order=CL)])
    # upsample_nearest2d.vec(input, output_size?, scale_factors?)
    xu = rand((1, 2, 3, 4))
    g.case("aten::upsample_nearest2d.vec_out", "size", [xu, [6, 8], None], [Out(_nearest(xu, 6, 8))])
    g.case("aten::upsample_nearest2d.vec_out", "size_odd", [xu, [5, 3], None], [Out(_nearest(xu, 5, 3))])
    g.case("aten::upsample_nearest2d.vec_out", "scales", [xu, None, DoubleList([2.0, 1.5])],
           [Out(_nearest(xu, 6, 6, 2.0, 1.5))])
    g.case("aten::upsample_nearest2d.vec_out", "channels_last", [T(xu, CL), [6, 8], None], [Out(_nearest(xu, 6, 8), order=CL)])
