"""Oracle cases: upsample_bilinear2d.vec, _upsample_bilinear2d_aa, grid_sampler_2d, _cdist_forward,
_pdist_forward. numpy transcriptions of ATen's documented coordinate rules (half-pixel /
align_corners source index, triangle filter with support max(scale, 1) for the antialiased
variant, grid unnormalise + zeros/border/reflection padding, cubic A = -0.75)."""
import numpy as np

from oracle import BF16, CL, F32, DoubleList, Out, T, bf16, rand


def _f32(a):
    return np.asarray(a).astype(np.float32)


def _taps(insz, outsz, ac, sf):
    d = np.arange(outsz, dtype=np.float64)
    if insz == outsz:
        return d.astype(int), d.astype(int), np.ones(outsz), np.zeros(outsz)
    if ac:
        r = (insz - 1) / (outsz - 1) if outsz > 1 else 0.0
    else:
        r = 1.0 / sf if sf else insz / outsz
    s = r * d if ac else np.maximum(r * (d + 0.5) - 0.5, 0.0)
    i0 = np.minimum(np.floor(s).astype(int), insz - 1)
    i1 = np.where(i0 < insz - 1, i0 + 1, i0)
    l1 = np.clip(s - i0, 0.0, 1.0)
    return i0, i1, 1.0 - l1, l1


def _bilinear(x, oh, ow, ac, sh=None, sw=None):
    x = x.astype(np.float64)
    y0, y1, a0, a1 = _taps(x.shape[2], oh, ac, sh)
    x0, x1, b0, b1 = _taps(x.shape[3], ow, ac, sw)
    r0 = x[:, :, y0, :] * a0[:, None] + x[:, :, y1, :] * a1[:, None]
    return r0[:, :, :, x0] * b0 + r0[:, :, :, x1] * b1


def _aa_matrix(insz, outsz, ac, sc):
    if insz == outsz:
        return np.eye(insz)
    m = np.zeros((outsz, insz))
    if ac:
        scale = (insz - 1) / (outsz - 1) if outsz > 1 else 0.0
    else:
        scale = 1.0 / sc if sc else insz / outsz
    support = scale if scale >= 1.0 else 1.0
    inv = 1.0 / scale if scale >= 1.0 else 1.0
    for i in range(outsz):
        c = scale * (i + 0.5)
        lo, hi = max(int(c - support + 0.5), 0), min(int(c + support + 0.5), insz)
        js = np.arange(lo, hi)
        w = np.maximum(0.0, 1.0 - np.abs((js - c + 0.5) * inv))
        if w.sum() != 0:
            m[i, lo:hi] = w / w.sum()
    return m


def _aa(x, oh, ow, ac, sh=None, sw=None):
    return np.einsum("ij,ncjk,lk->ncil", _aa_matrix(x.shape[2], oh, ac, sh), x.astype(np.float64),
                     _aa_matrix(x.shape[3], ow, ac, sw))


def _unnorm(c, size, ac):
    return (c + 1) / 2 * (size - 1) if ac else ((c + 1) * size - 1) / 2


def _reflect(c, lo2, hi2):
    if lo2 == hi2:
        return 0.0
    mn, span = lo2 / 2, (hi2 - lo2) / 2
    c = abs(c - mn)
    extra, flips = np.fmod(c, span), int(np.floor(c / span))
    return extra + mn if flips % 2 == 0 else span - extra + mn


def _pad(c, size, pm, ac):
    if pm == 1:
        c = min(max(c, 0.0), size - 1.0)
    elif pm == 2:
        c = _reflect(c, 0, 2 * (size - 1)) if ac else _reflect(c, -1, 2 * size - 1)
        c = min(max(c, 0.0), size - 1.0)
    return c


def _at(img, x, y):
    H, W = img.shape
    return img[y, x] if 0 <= x < W and 0 <= y < H else 0.0


def _cubic(t):
    A = -0.75
    c1 = lambda v: ((A + 2) * v - (A + 3)) * v * v + 1  # noqa: E731
    c2 = lambda v: ((A * v - 5 * A) * v + 8 * A) * v - 4 * A  # noqa: E731
    return [c2(t + 1), c1(t), c1(1 - t), c2(2 - t)]


def _sample(img, gx, gy, mode, pm, ac):
    H, W = img.shape
    if mode == 2:
        ix, iy = _unnorm(gx, W, ac), _unnorm(gy, H, ac)
        fx, fy = np.floor(ix), np.floor(iy)
        wx, wy = _cubic(ix - fx), _cubic(iy - fy)
        v = 0.0
        for i in range(4):
            for j in range(4):
                v += wy[i] * wx[j] * _at(img, int(_pad(fx - 1 + j, W, pm, ac)), int(_pad(fy - 1 + i, H, pm, ac)))
        return v
    ix, iy = _pad(_unnorm(gx, W, ac), W, pm, ac), _pad(_unnorm(gy, H, ac), H, pm, ac)
    if mode == 1:
        return _at(img, int(np.rint(ix)), int(np.rint(iy)))
    x0, y0 = int(np.floor(ix)), int(np.floor(iy))
    tx, ty = ix - x0, iy - y0
    return ((1 - tx) * (1 - ty) * _at(img, x0, y0) + tx * (1 - ty) * _at(img, x0 + 1, y0) +
            (1 - tx) * ty * _at(img, x0, y0 + 1) + tx * ty * _at(img, x0 + 1, y0 + 1))


def _grid_sample(x, grid, mode, pm, ac):
    x, grid = x.astype(np.float64), grid.astype(np.float64)
    N, C = x.shape[:2]
    Ho, Wo = grid.shape[1:3]
    r = np.zeros((N, C, Ho, Wo))
    for n in range(N):
        for c in range(C):
            for i in range(Ho):
                for j in range(Wo):
                    r[n, c, i, j] = _sample(x[n, c], grid[n, i, j, 0], grid[n, i, j, 1], mode, pm, ac)
    return r


def _dist(d, p):
    d = np.abs(d.astype(np.float64))
    if d.shape[-1] == 0:
        return np.zeros(d.shape[:-1])
    if p == 0:
        return (d != 0).sum(-1).astype(np.float64)
    if np.isinf(p):
        return d.max(-1)
    return (d ** p).sum(-1) ** (1.0 / p)


def cases(g):
    # ---- upsample_bilinear2d.vec(input, output_size?, align_corners, scale_factors?) ----
    x = rand((2, 3, 4, 5))
    for ac in (False, True):
        t = "ac%d" % ac
        g.case("aten::upsample_bilinear2d.vec_out", "up_" + t, [x, [7, 9], ac, None], [Out(_f32(_bilinear(x, 7, 9, ac)))])
        g.case("aten::upsample_bilinear2d.vec_out", "down_" + t, [x, [3, 2], ac, None], [Out(_f32(_bilinear(x, 3, 2, ac)))])
        g.case("aten::upsample_bilinear2d.vec_out", "to1_" + t, [x, [1, 1], ac, None], [Out(_f32(_bilinear(x, 1, 1, ac)))])
        g.case("aten::upsample_bilinear2d.vec_out", "cl_" + t, [T(x, CL), [8, 10], ac, None],
               [Out(_f32(_bilinear(x, 8, 10, ac)), order=CL)])
        g.case("aten::upsample_bilinear2d.vec_out", "scales_" + t, [x, None, ac, DoubleList([2.5, 1.5])],
               [Out(_f32(_bilinear(x, 10, 7, ac, 2.5, 1.5)))])
        xd = rand((1, 2, 3, 3), np.float64)
        g.case("aten::upsample_bilinear2d.vec_out", "f64_" + t, [xd, [5, 4], ac, None], [Out(_bilinear(xd, 5, 4, ac))])
    xh = rand((1, 2, 3, 3), np.float16, -2, 2)
    g.case("aten::upsample_bilinear2d.vec_out", "f16", [xh, [5, 6], False, None],
           [Out(_bilinear(xh, 5, 6, False).astype(np.float16))])
    xb = rand((1, 2, 3, 3))
    g.case("aten::upsample_bilinear2d.vec_out", "bf16", [T(xb, dtype=BF16), [4, 5], True, None],
           [Out(_bilinear(bf16(xb), 4, 5, True), dtype=BF16)], tol=(1e-2, 1e-2))  # two bf16 roundings
    xu = np.array([[[[0, 255], [10, 20]]]], np.uint8)
    g.case("aten::upsample_bilinear2d.vec_out", "u8_round", [xu, [2, 3], True, None],
           [Out(np.rint(_bilinear(xu, 2, 3, True)).astype(np.uint8))])
    g.case("aten::upsample_bilinear2d.vec_out", "err_both", [x, [7, 9], False, DoubleList([2.0, 2.0])],
           [Out(dtype=F32, shape=(2, 3, 7, 9))], error=("InvalidArgument", "exactly one"))
    g.case("aten::upsample_bilinear2d.vec_out", "err_rank", [rand((3, 4, 5)), [7, 9], False, None],
           [Out(dtype=F32, shape=(3, 7, 9))], error=("InvalidArgument", "4-D"))

    # ---- _upsample_bilinear2d_aa(self, output_size, align_corners, scales_h?, scales_w?) ----
    xa = rand((1, 2, 9, 11))
    for ac in (False, True):
        t = "ac%d" % ac
        g.case("aten::_upsample_bilinear2d_aa.out", "down_" + t, [xa, [4, 3], ac, None, None], [Out(_f32(_aa(xa, 4, 3, ac)))])
        g.case("aten::_upsample_bilinear2d_aa.out", "up_" + t, [xa, [12, 15], ac, None, None], [Out(_f32(_aa(xa, 12, 15, ac)))])
        g.case("aten::_upsample_bilinear2d_aa.out", "cl_" + t, [T(xa, CL), [5, 11], ac, None, None],
               [Out(_f32(_aa(xa, 5, 11, ac)), order=CL)])
    g.case("aten::_upsample_bilinear2d_aa.out", "scales", [xa, [4, 5], False, 0.5, 0.45],
           [Out(_f32(_aa(xa, 4, 5, False, 0.5, 0.45)))])
    xad = rand((2, 1, 16, 6), np.float64)
    g.case("aten::_upsample_bilinear2d_aa.out", "f64_factor4", [xad, [4, 6], False, None, None], [Out(_aa(xad, 4, 6, False))])
    g.case("aten::_upsample_bilinear2d_aa.out", "err_size", [xa, [4], False, None, None], [Out(dtype=F32, shape=(1, 2, 4, 4))],
           error=("InvalidArgument", "output_size"))

    # ---- grid_sampler_2d(input, grid, interpolation_mode, padding_mode, align_corners) ----
    xg = rand((2, 2, 4, 5))
    grid = rand((2, 3, 4, 2), lo=-1.4, hi=1.4)
    grid[0, 0, 0] = [1.0, -1.0]
    grid[0, 0, 1] = [0.0, 0.25]
    for mode in range(3):
        for pm in range(3):
            for ac in (False, True):
                tag = "m%d_p%d_ac%d" % (mode, pm, ac)
                g.case("aten::grid_sampler_2d.out", tag, [xg, grid, mode, pm, ac], [Out(_f32(_grid_sample(xg, grid, mode, pm, ac)))],
                       tol=(1e-5, 1e-5))
    xgd = rand((1, 3, 3, 3), np.float64)
    gd = rand((1, 2, 2, 2), np.float64, -1.2, 1.2)
    g.case("aten::grid_sampler_2d.out", "f64_cl_bicubic", [T(xgd, CL), gd, 2, 2, False], [Out(_grid_sample(xgd, gd, 2, 2, False))])
    g.case("aten::grid_sampler_2d.out", "err_mode", [xg, grid, 3, 0, False], [Out(dtype=F32, shape=(2, 2, 3, 4))],
           error=("InvalidArgument", "interpolation_mode"))
    g.case("aten::grid_sampler_2d.out", "err_grid", [xg, grid[..., :1].copy(), 0, 0, False], [Out(dtype=F32, shape=(2, 2, 3, 4))],
           error=("InvalidArgument", "grid"))

    # ---- _cdist_forward(x1, x2, p, compute_mode?) / _pdist_forward(self, p) ----
    a = (rand((4, 3), lo=-2, hi=2) * 2).round() / 2  # half-integers: equal coordinates occur (p = 0)
    b = (rand((5, 3), lo=-2, hi=2) * 2).round() / 2
    ab = (rand((2, 3, 4), lo=-2, hi=2) * 2).round() / 2
    bb = (rand((3, 1, 5, 4), lo=-2, hi=2) * 2).round() / 2
    for p in (0.0, 1.0, 2.0, 3.0, 0.5, float("inf")):
        tag = "p%s" % ("inf" if np.isinf(p) else str(p).replace(".", "_"))
        g.case("aten::_cdist_forward.out", tag, [a, b, p, None], [Out(_f32(_dist(a[:, None, :] - b[None, :, :], p)))])
        g.case("aten::_cdist_forward.out", "bcast_" + tag, [ab, bb, p, 0],
               [Out(_f32(_dist(ab[..., :, None, :] - bb[..., None, :, :], p)))])
        i, j = np.triu_indices(4, 1)
        g.case("aten::_pdist_forward.out", tag, [a, p], [Out(_f32(_dist(a[i] - a[j], p)))])
    ad = rand((3, 2), np.float64)
    g.case("aten::_cdist_forward.out", "f64_transposed", [T(ad.T.copy().T, (1, 0)), ad[:2], 2.0, 1],
           [Out(_dist(ad[:, None, :] - ad[None, :2, :], 2.0))])
    g.case("aten::_cdist_forward.out", "empty_rows", [np.zeros((0, 3), np.float32), b, 2.0, None], [Out(np.zeros((0, 5), np.float32))])
    g.case("aten::_pdist_forward.out", "one_row", [a[:1], 2.0], [Out(np.zeros((0,), np.float32))])
    g.case("aten::_cdist_forward.out", "err_cols", [a, rand((2, 4)), 2.0, None], [Out(dtype=F32, shape=(4, 2))],
           error=("InvalidArgument", "columns"))
    g.case("aten::_cdist_forward.out", "err_p", [a, b, -1.0, None], [Out(dtype=F32, shape=(4, 5))],
           error=("InvalidArgument", "non-negative"))
    g.case("aten::_pdist_forward.out", "err_rank", [ab, 2.0], [Out(dtype=F32, shape=(3,))], error=("InvalidArgument", "2-D"))
