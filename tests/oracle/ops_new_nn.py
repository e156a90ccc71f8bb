"""Oracle cases for operators added by other helpers (issue 13): var / var_mean, prod,
mean.dtype, max/min.unary, batch_norm (training / no_stats), cdist / pdist, bilinear upsampling
(plain and antialiased), grid_sampler_2d, convolution_backward, max_pool2d backward."""
import math

import numpy as np

from oracle import BOOL, CL, F32, I64, BoolList, DoubleList, Out, T, rand


def _f32(a):
    return np.asarray(a).astype(np.float32)


def _bilinear_1d(n_in, n_out, align, scale=None):
    """(i0, i1, w1) per output index, ATen's area_pixel source index rules."""
    res = []
    for o in range(n_out):
        if align:
            src = 0.0 if n_out == 1 else o * (n_in - 1) / (n_out - 1)
        else:
            r = (1.0 / scale) if scale else n_in / n_out
            src = max((o + 0.5) * r - 0.5, 0.0)
        i0 = min(int(math.floor(src)), n_in - 1)
        i1 = min(i0 + 1, n_in - 1)
        res.append((i0, i1, src - i0))
    return res


def _bilinear(x, oh, ow, align, sh=None, sw=None):
    N, C, H, W = x.shape
    hs, ws = _bilinear_1d(H, oh, align, sh), _bilinear_1d(W, ow, align, sw)
    xd = x.astype(np.float64)
    y = np.zeros((N, C, oh, ow))
    for i, (h0, h1, lh) in enumerate(hs):
        for j, (w0, w1, lw) in enumerate(ws):
            y[:, :, i, j] = ((1 - lh) * ((1 - lw) * xd[:, :, h0, w0] + lw * xd[:, :, h0, w1]) +
                             lh * ((1 - lw) * xd[:, :, h1, w0] + lw * xd[:, :, h1, w1]))
    return y


def _aa_weights(n_in, n_out, align):
    """Antialiased (triangle filter) weights matrix [n_out, n_in] as ATen's _upsample_*_aa."""
    scale = ((n_in - 1) / (n_out - 1) if n_out > 1 else 0.0) if align else n_in / n_out
    support = scale if scale >= 1.0 else 1.0
    invscale = 1.0 / scale if scale >= 1.0 else 1.0
    Wm = np.zeros((n_out, n_in))
    for o in range(n_out):
        center = scale * (o + 0.5)
        xmin = max(int(center - support + 0.5), 0)
        xmax = min(int(center + support + 0.5), n_in)
        ws = [max(0.0, 1.0 - abs((j - center + 0.5) * invscale)) for j in range(xmin, xmax)]
        tot = sum(ws)
        for k, j in enumerate(range(xmin, xmax)):
            Wm[o, j] = ws[k] / tot if tot else 0.0
    return Wm


def _grid_sample(x, grid, mode, align):
    N, C, H, W = x.shape
    _, OH, OW, _ = grid.shape
    y = np.zeros((N, C, OH, OW))
    xd = x.astype(np.float64)

    def unnorm(v, size):
        return ((v + 1) / 2) * (size - 1) if align else ((v + 1) * size - 1) / 2

    def px(n, yy, xx):
        if 0 <= yy < H and 0 <= xx < W:
            return xd[n, :, yy, xx]
        return np.zeros(C)

    for n in range(N):
        for i in range(OH):
            for j in range(OW):
                ix, iy = unnorm(float(grid[n, i, j, 0]), W), unnorm(float(grid[n, i, j, 1]), H)
                if mode == 1:  # nearest, ties to even
                    y[n, :, i, j] = px(n, int(np.rint(iy)), int(np.rint(ix)))
                    continue
                x0, y0 = math.floor(ix), math.floor(iy)
                tx, ty = ix - x0, iy - y0
                y[n, :, i, j] = (px(n, y0, x0) * (1 - tx) * (1 - ty) + px(n, y0, x0 + 1) * tx * (1 - ty) +
                                 px(n, y0 + 1, x0) * (1 - tx) * ty + px(n, y0 + 1, x0 + 1) * tx * ty)
    return y


def _conv2d_fwd_terms(xs, ws, stride, pad, dil, groups):
    """Yields (n, o, oi, oj, c, i, j, ki, kj) for every product of a 2-d convolution."""
    N, C, H, W = xs
    O, cg, KH, KW = ws
    og = O // groups
    OH = (H + 2 * pad[0] - dil[0] * (KH - 1) - 1) // stride[0] + 1
    OW = (W + 2 * pad[1] - dil[1] * (KW - 1) - 1) // stride[1] + 1
    for n in range(N):
        for o in range(O):
            gi = o // og
            for oi in range(OH):
                for oj in range(OW):
                    for cl in range(cg):
                        c = gi * cg + cl
                        for ki in range(KH):
                            for kj in range(KW):
                                i, j = oi * stride[0] - pad[0] + ki * dil[0], oj * stride[1] - pad[1] + kj * dil[1]
                                if 0 <= i < H and 0 <= j < W:
                                    yield n, o, oi, oj, c, cl, i, j, ki, kj
    return


def cases(g):
    x = rand((3, 4, 5))
    xd = x.astype(np.float64)
    # var.out(self, dim?, unbiased, keepdim)
    g.case("aten::var.out", "dim1_unbiased", [x, [1], True, False], [Out(_f32(np.var(xd, axis=1, ddof=1)))])
    g.case("aten::var.out", "dims_biased_keep", [x, [0, 2], False, True], [Out(_f32(np.var(xd, axis=(0, 2), ddof=0, keepdims=True)))])
    g.case("aten::var.out", "all", [x, None, True, False], [Out(_f32(np.var(xd, ddof=1)))])
    g.case("aten::var.out", "single_element_nan", [np.array([[1.0], [2.0]], np.float32), [1], True, False],
           [Out(np.full((2,), np.nan, np.float32))])
    # var.correction_out(self, dim?, *, correction?, keepdim)
    g.case("aten::var.correction_out", "corr0", [x, [2], 0, False], [Out(_f32(np.var(xd, axis=2, ddof=0)))])
    g.case("aten::var.correction_out", "corr_none", [x, [2], None, True], [Out(_f32(np.var(xd, axis=2, ddof=1, keepdims=True)))])
    g.case("aten::var.correction_out", "corr2_all", [x, None, 2, False], [Out(_f32(np.var(xd, ddof=2)))])
    x4 = rand((2, 3, 2, 2))
    g.case("aten::var.correction_out", "channels_last", [T(x4, CL), [1], 1, True],
           [Out(_f32(np.var(x4.astype(np.float64), axis=1, ddof=1, keepdims=True)), order=CL)])
    g.case("aten::var_mean.correction_out", "dim1", [x, [1], 1, False],
           [Out(_f32(np.var(xd, axis=1, ddof=1))), Out(_f32(np.mean(xd, axis=1)))])
    g.case("aten::var_mean.correction_out", "all_keep", [x, None, 0, True],
           [Out(_f32(np.var(xd, ddof=0, keepdims=True))), Out(_f32(np.mean(xd, keepdims=True)))])
    # prod
    p = rand((2, 3), lo=0.5, hi=2)
    g.case("aten::prod.out", "f32", [p, None], [Out(_f32(np.prod(p.astype(np.float64))))])
    pi = np.array([[2, -3, 1], [4, 1, -1]], np.int32)
    g.case("aten::prod.out", "i32_to_i64", [pi, None], [Out(np.array(np.prod(pi.astype(np.int64))))])
    g.case("aten::prod.out", "empty_is_one", [np.zeros((0,), np.float32), None], [Out(np.array(1.0, np.float32))])
    g.case("aten::prod.int_out", "dim1", [p, 1, False, None], [Out(_f32(np.prod(p.astype(np.float64), axis=1)))])
    g.case("aten::prod.int_out", "dim0_keep_i64", [pi, 0, True, I64], [Out(np.prod(pi.astype(np.int64), axis=0, keepdims=True))])
    g.case("aten::prod.int_out", "nan", [np.array([[1.0, np.nan], [2.0, 3.0]], np.float32), 1, False, None],
           [Out(np.array([np.nan, 6.0], np.float32))])
    g.case("aten::prod.int_out", "err_dim", [p, 2, False, None], [Out(dtype=F32, shape=(2,))], error=("InvalidArgument", "dim"))
    # mean.dtype_out(self, *, dtype?) -> 0-d
    g.case("aten::mean.dtype_out", "f32", [x, None], [Out(_f32(np.mean(xd)))])
    g.case("aten::mean.dtype_out", "i32_to_f32", [pi, F32], [Out(_f32(np.mean(pi.astype(np.float64))))])
    g.case("aten::mean.dtype_out", "f64", [xd, None], [Out(np.array(np.mean(xd)))])
    # max / min unary -> 0-d
    for name, fn in (("max", np.max), ("min", np.min)):
        op = "aten::%s.unary_out" % name
        g.case(op, "f32", [x], [Out(np.array(fn(x)))])
        g.case(op, "i64", [pi.astype(np.int64)], [Out(np.array(fn(pi.astype(np.int64))))])
        g.case(op, "nan", [np.array([1.0, np.nan, 3.0], np.float32)], [Out(np.array(np.nan, np.float32))])
        g.case(op, "bool", [np.array([False, True])], [Out(np.array(fn(np.array([False, True]))))])
        g.case(op, "channels_last", [T(x4, CL)], [Out(np.array(fn(x4)))])
        g.case(op, "err_empty", [np.zeros((0,), np.float32)], [Out(dtype=F32, shape=())], error=("InvalidArgument", "numel() == 0"))

    # batch norm, training: out, save_mean, save_invstd (biased variance)
    xb = rand((3, 2, 2, 2))
    w, b = rand((2,)), rand((2,))
    rm, rv = np.zeros((2,), np.float32), np.ones((2,), np.float32)
    mean = xb.astype(np.float64).mean(axis=(0, 2, 3))
    var = xb.astype(np.float64).var(axis=(0, 2, 3))
    invstd = 1.0 / np.sqrt(var + 1e-5)
    y = (xb - mean[None, :, None, None]) * invstd[None, :, None, None] * w[None, :, None, None] + b[None, :, None, None]
    g.case("aten::_native_batch_norm_legit.out", "train", [xb, w, b, rm, rv, True, 0.1, 1e-5],
           [Out(_f32(y)), Out(_f32(mean)), Out(_f32(invstd))])
    y2 = (xb - mean[None, :, None, None]) * invstd[None, :, None, None]
    g.case("aten::_native_batch_norm_legit.no_stats_out", "train_noaffine", [xb, None, None, True, 0.1, 1e-5],
           [Out(_f32(y2)), Out(_f32(mean)), Out(_f32(invstd))])
    g.case("aten::_native_batch_norm_legit.no_stats_out", "train_affine_3d", [xb.reshape(3, 2, 4), w, b, True, 0.1, 1e-5],
           [Out(_f32(y.reshape(3, 2, 4))), Out(_f32(mean)), Out(_f32(invstd))])

    # cdist(x1, x2, p, compute_mode) / pdist(self, p)
    a, c = rand((4, 3)), rand((5, 3))
    diff = a.astype(np.float64)[:, None, :] - c.astype(np.float64)[None, :, :]
    for p_, fn in ((2.0, lambda d: np.sqrt((d ** 2).sum(-1))), (1.0, lambda d: np.abs(d).sum(-1)),
                   (0.0, lambda d: (d != 0).sum(-1).astype(np.float64)), (float("inf"), lambda d: np.abs(d).max(-1)),
                   (3.0, lambda d: (np.abs(d) ** 3).sum(-1) ** (1 / 3))):
        tag = "inf" if math.isinf(p_) else "p%g" % p_
        g.case("aten::_cdist_forward.out", tag, [a, c, p_, None], [Out(_f32(fn(diff)))])
        iu = np.triu_indices(4, 1)
        pd = a.astype(np.float64)[:, None, :] - a.astype(np.float64)[None, :, :]
        g.case("aten::_pdist_forward.out", tag, [a, p_], [Out(_f32(fn(pd)[iu]))])
    ab, cb = rand((2, 3, 2)), rand((2, 4, 2))
    db = ab.astype(np.float64)[:, :, None, :] - cb.astype(np.float64)[:, None, :, :]
    g.case("aten::_cdist_forward.out", "batched", [ab, cb, 2.0, None], [Out(_f32(np.sqrt((db ** 2).sum(-1))))])
    g.case("aten::_pdist_forward.out", "one_row", [a[:1].copy(), 2.0], [Out(np.zeros((0,), np.float32))])

    # upsample_bilinear2d.vec(input, output_size?, align_corners, scale_factors?)
    xu = rand((1, 2, 3, 4))
    g.case("aten::upsample_bilinear2d.vec_out", "size", [xu, [6, 7], False, None], [Out(_f32(_bilinear(xu, 6, 7, False)))])
    g.case("aten::upsample_bilinear2d.vec_out", "size_align", [xu, [5, 9], True, None], [Out(_f32(_bilinear(xu, 5, 9, True)))])
    g.case("aten::upsample_bilinear2d.vec_out", "down", [xu, [2, 3], False, None], [Out(_f32(_bilinear(xu, 2, 3, False)))])
    g.case("aten::upsample_bilinear2d.vec_out", "scales", [xu, None, False, DoubleList([2.0, 1.5])],
           [Out(_f32(_bilinear(xu, 6, 6, False, 2.0, 1.5)))])
    g.case("aten::upsample_bilinear2d.vec_out", "channels_last", [T(xu, CL), [6, 8], False, None],
           [Out(_f32(_bilinear(xu, 6, 8, False)), order=CL)])
    # _upsample_bilinear2d_aa(self, output_size, align_corners, scales_h?, scales_w?)
    xa = rand((1, 2, 8, 9))
    for tag, oh, ow, al in (("down", 3, 4, False), ("up", 10, 12, False), ("down_align", 4, 3, True)):
        Wh, Ww = _aa_weights(8, oh, al), _aa_weights(9, ow, al)
        ref = np.einsum("oh,nchw,pw->ncop", Wh, xa.astype(np.float64), Ww)
        g.case("aten::_upsample_bilinear2d_aa.out", tag, [xa, [oh, ow], al, None, None], [Out(_f32(ref))])
    # grid_sampler_2d(input, grid, interpolation_mode, padding_mode, align_corners)
    xg = rand((1, 2, 4, 5))
    grid = rand((1, 3, 2, 2), lo=-1.2, hi=1.2)
    for mode in (0, 1):
        for al in (False, True):
            g.case("aten::grid_sampler_2d.out", "mode%d_align%d" % (mode, al), [xg, grid, mode, 0, al],
                   [Out(_f32(_grid_sample(xg, grid, mode, al)))])

    # convolution_backward(grad_out, input, weight, bias_sizes?, stride, padding, dilation,
    #                      transposed, output_padding, groups, output_mask) -> 3 outs
    xi, wt = rand((2, 4, 5, 5)), rand((6, 2, 3, 3))
    stride, pad, dil, groups = (2, 1), (1, 0), (1, 1), 2
    OH = (5 + 2 - 3) // 2 + 1
    OW = (5 - 3) // 1 + 1
    go = rand((2, 6, OH, OW))
    gx, gw = np.zeros(xi.shape), np.zeros(wt.shape)
    for n, o, oi, oj, c, cl, i, j, ki, kj in _conv2d_fwd_terms(xi.shape, wt.shape, stride, pad, dil, groups):
        gx[n, c, i, j] += go[n, o, oi, oj] * wt[o, cl, ki, kj]
        gw[o, cl, ki, kj] += go[n, o, oi, oj] * xi[n, c, i, j]
    gb = go.astype(np.float64).sum(axis=(0, 2, 3))
    args = [go, xi, wt, [6], list(stride), list(pad), list(dil), False, [0, 0], groups]
    g.case("aten::convolution_backward.out", "all", args + [BoolList([True, True, True])], [Out(_f32(gx)), Out(_f32(gw)), Out(_f32(gb))],
           tol=(1e-5, 1e-5))  # sums of up to 18 float32 products
    # max_pool2d_with_indices_backward(grad_output, self, kernel, stride, padding, dilation, ceil_mode, indices)
    xm = rand((1, 2, 4, 4))
    gm = rand((1, 2, 3, 3))
    idx = np.zeros((1, 2, 3, 3), np.int64)
    gin = np.zeros(xm.shape, np.float64)
    for c in range(2):
        for i in range(3):
            for j in range(3):
                win = xm[0, c, i:i + 2, j:j + 2]
                k = int(np.argmax(win))
                hh, ww = i + k // 2, j + k % 2
                idx[0, c, i, j] = hh * 4 + ww
                gin[0, c, hh, ww] += gm[0, c, i, j]
    g.case("aten::max_pool2d_with_indices_backward.grad_input", "k2s1",
           [gm, xm, [2, 2], [1, 1], [0, 0], [1, 1], False, idx], [Out(_f32(gin))])
