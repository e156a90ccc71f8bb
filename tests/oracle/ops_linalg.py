"""Oracle cases: mm, bmm, addmm, linear, convolution."""
import numpy as np

from oracle import CL, F32, Out, T, rand


def _f32(a):
    return np.asarray(a).astype(np.float32)


def _conv(x, w, b, stride, pad, dil, groups):
    """N-d (1-d or 2-d) cross-correlation in float64, as ATen's convolution."""
    x = x.astype(np.float64)
    w = w.astype(np.float64)
    nd = x.ndim - 2
    N, C = x.shape[:2]
    O = w.shape[0]
    cin_g = C // groups
    cout_g = O // groups
    ks = w.shape[2:]
    outs = [(x.shape[2 + i] + 2 * pad[i] - dil[i] * (ks[i] - 1) - 1) // stride[i] + 1 for i in range(nd)]
    xp = np.pad(x, [(0, 0), (0, 0)] + [(pad[i], pad[i]) for i in range(nd)])
    y = np.zeros([N, O] + outs)
    for n in range(N):
        for o in range(O):
            gi = o // cout_g
            for pos in np.ndindex(*outs):
                acc = 0.0
                for kpos in np.ndindex(*ks):
                    idx = tuple(pos[i] * stride[i] + kpos[i] * dil[i] for i in range(nd))
                    acc += np.dot(xp[(n, slice(gi * cin_g, (gi + 1) * cin_g)) + idx], w[(o, slice(None)) + kpos])
                y[(n, o) + pos] = acc + (b[o] if b is not None else 0.0)
    return y


def _conv_transpose2d(x, w, b, stride, pad, dil, out_pad, groups):
    x = x.astype(np.float64)
    w = w.astype(np.float64)  # (C_in, C_out/groups, kh, kw)
    N, C, H, W = x.shape
    cout_g = w.shape[1]
    cin_g = C // groups
    kh, kw = w.shape[2:]
    OH = (H - 1) * stride[0] - 2 * pad[0] + dil[0] * (kh - 1) + out_pad[0] + 1
    OW = (W - 1) * stride[1] - 2 * pad[1] + dil[1] * (kw - 1) + out_pad[1] + 1
    y = np.zeros((N, cout_g * groups, OH, OW))
    for n in range(N):
        for c in range(C):
            gi = c // cin_g
            for i in range(H):
                for j in range(W):
                    for ki in range(kh):
                        for kj in range(kw):
                            oi = i * stride[0] - pad[0] + ki * dil[0]
                            oj = j * stride[1] - pad[1] + kj * dil[1]
                            if 0 <= oi < OH and 0 <= oj < OW:
                                y[n, gi * cout_g:(gi + 1) * cout_g, oi, oj] += x[n, c, i, j] * w[c, :, ki, kj]
    if b is not None:
        y += b.astype(np.float64)[None, :, None, None]
    return y


U32 = 2.0 ** -24


def _conv_tol(x, w, b, stride, pad, dil, groups):
    """Looser than the default on purpose: each output is a K-term float32 dot product, whose
    rounding error grows like sqrt(K) * u * sum|x*w| (u = 2^-24) whatever the summation order."""
    k = (w.shape[1] * int(np.prod(w.shape[2:])))
    mag = _conv(np.abs(x), np.abs(w), None if b is None else np.abs(b), stride, pad, dil, groups).max()
    return (1e-5, 8 * U32 * np.sqrt(k) * mag)


def cases(g):
    a, b = rand((3, 4)), rand((4, 5))
    mm = _f32(a.astype(np.float64) @ b)
    g.case("aten::mm.out", "f32", [a, b], [Out(mm)])
    g.case("aten::mm.out", "f64", [a.astype(np.float64), b.astype(np.float64)], [Out(a.astype(np.float64) @ b.astype(np.float64))])
    ia, ib = rand((2, 3), np.int32, -20, 20), rand((3, 2), np.int32, -20, 20)
    g.case("aten::mm.out", "i32", [ia, ib], [Out(ia @ ib)])
    g.case("aten::mm.out", "k0", [np.zeros((2, 0), np.float32), np.zeros((0, 3), np.float32)], [Out(np.zeros((2, 3), np.float32))])
    g.case("aten::mm.out", "err_inner", [a, rand((3, 5))], [Out(dtype=F32, shape=(3, 5))], error=("InvalidArgument", "mismatch"))
    ba, bb = rand((2, 3, 4)), rand((2, 4, 2))
    g.case("aten::bmm.out", "f32", [ba, bb], [Out(_f32(np.matmul(ba.astype(np.float64), bb)))])
    g.case("aten::bmm.out", "err_batch", [ba, rand((3, 4, 2))], [Out(dtype=F32, shape=(2, 3, 2))], error=("InvalidArgument", "mismatch"))
    bias = rand((5,))
    g.case("aten::addmm.out", "f32_default", [bias, a, b, 1, 1], [Out(_f32(bias.astype(np.float64) + a.astype(np.float64) @ b))])
    g.case("aten::addmm.out", "f32_beta_alpha", [rand((3, 1)) * 0 + bias[:3, None], a, b, 0.5, 2.0],
           [Out(_f32(0.5 * bias[:3, None].astype(np.float64) + 2.0 * (a.astype(np.float64) @ b)))])
    nanb = np.full((5,), np.nan, np.float32)
    g.case("aten::addmm.out", "beta0_ignores_nan", [nanb, a, b, 0, 1], [Out(mm)])
    w = rand((5, 4))
    g.case("aten::linear.out", "f32_bias", [a, w, bias], [Out(_f32(a.astype(np.float64) @ w.T + bias))])
    g.case("aten::linear.out", "f32_nobias", [a, w, None], [Out(_f32(a.astype(np.float64) @ w.T))])
    x3 = rand((2, 3, 4))
    g.case("aten::linear.out", "f32_3d", [x3, w, bias], [Out(_f32(x3.astype(np.float64) @ w.T + bias))])

    # convolution.out(input, weight, bias?, stride, padding, dilation, transposed, output_padding, groups)
    x = rand((2, 4, 6, 5))
    wt = rand((6, 4, 3, 3))
    bs = rand((6,))
    g.case("aten::convolution.out", "2d_basic", [x, wt, bs, [1, 1], [0, 0], [1, 1], False, [0, 0], 1],
           [Out(_f32(_conv(x, wt, bs, (1, 1), (0, 0), (1, 1), 1)))], tol=_conv_tol(x, wt, bs, (1, 1), (0, 0), (1, 1), 1))
    g.case("aten::convolution.out", "2d_stride_pad", [x, wt, bs, [2, 1], [1, 2], [1, 1], False, [0, 0], 1],
           [Out(_f32(_conv(x, wt, bs, (2, 1), (1, 2), (1, 1), 1)))], tol=_conv_tol(x, wt, bs, (2, 1), (1, 2), (1, 1), 1))
    g.case("aten::convolution.out", "2d_dilation_nobias", [x, wt, None, [1, 1], [2, 2], [2, 2], False, [0, 0], 1],
           [Out(_f32(_conv(x, wt, None, (1, 1), (2, 2), (2, 2), 1)))], tol=_conv_tol(x, wt, None, (1, 1), (2, 2), (2, 2), 1))
    wg = rand((6, 2, 3, 3))
    g.case("aten::convolution.out", "2d_groups2", [x, wg, bs, [1, 1], [1, 1], [1, 1], False, [0, 0], 2],
           [Out(_f32(_conv(x, wg, bs, (1, 1), (1, 1), (1, 1), 2)))], tol=_conv_tol(x, wg, bs, (1, 1), (1, 1), (1, 1), 2))
    wd = rand((4, 1, 3, 3))
    g.case("aten::convolution.out", "2d_depthwise", [x, wd, None, [1, 1], [1, 1], [1, 1], False, [0, 0], 4],
           [Out(_f32(_conv(x, wd, None, (1, 1), (1, 1), (1, 1), 4)))], tol=_conv_tol(x, wd, None, (1, 1), (1, 1), (1, 1), 4))
    g.case("aten::convolution.out", "2d_channels_last", [T(x, CL), T(wt, CL), bs, [1, 1], [1, 1], [1, 1], False, [0, 0], 1],
           [Out(_f32(_conv(x, wt, bs, (1, 1), (1, 1), (1, 1), 1)), order=CL)], tol=_conv_tol(x, wt, bs, (1, 1), (1, 1), (1, 1), 1))
    x1 = rand((2, 3, 9))
    w1 = rand((4, 3, 2))
    g.case("aten::convolution.out", "1d", [x1, w1, rand((4,)) * 0, [2], [1], [1], False, [0], 1],
           [Out(_f32(_conv(x1, w1, None, (2,), (1,), (1,), 1)))], tol=_conv_tol(x1, w1, None, (2,), (1,), (1,), 1))
    wtr = rand((4, 3, 3, 3))
    btr = rand((3,))
    g.case("aten::convolution.out", "2d_transposed", [x, wtr, btr, [2, 2], [1, 1], [1, 1], True, [1, 0], 1],
           [Out(_f32(_conv_transpose2d(x, wtr, btr, (2, 2), (1, 1), (1, 1), (1, 0), 1)))],
           tol=(1e-5, 8 * U32 * 6 * np.abs(x).max() * np.abs(wtr).max() * 12))  # <= 12 terms per output
    g.case("aten::convolution.out", "err_channels", [x, rand((6, 3, 3, 3)), None, [1, 1], [0, 0], [1, 1], False, [0, 0], 1],
           [Out(dtype=F32, shape=(2, 6, 4, 3))], error=("InvalidArgument", "channels"))
