"""Oracle cases: reflection_pad{1,2,3}d, replication_pad{1,2,3}d (numpy.pad 'reflect' / 'edge';
negative padding crops first)."""
import numpy as np

from oracle import BF16, CL, F32, F64, Out, T, bf16, rand


def _pad(x, padding, reflect):
    """padding lists the last dim's (before, after) first, as ATen."""
    nd = len(padding) // 2
    width = [(0, 0)] * (x.ndim - nd)
    sl = [slice(None)] * x.ndim
    for q in range(nd - 1, -1, -1):
        lo, hi = padding[2 * q], padding[2 * q + 1]
        d = x.ndim - 1 - q
        sl[d] = slice(max(-lo, 0), x.shape[d] - max(-hi, 0))
        width.append((max(lo, 0), max(hi, 0)))
    return np.pad(x[tuple(sl)], width, mode="reflect" if reflect else "edge")


def cases(g):
    for reflect in (True, False):
        kind = "reflection" if reflect else "replication"
        x1 = rand((2, 5))
        g.case("aten::%s_pad1d.out" % kind, "f32_2d", [x1, [2, 3]], [Out(_pad(x1, [2, 3], reflect))])
        x1b = rand((2, 3, 4), np.int64, -99, 99)
        g.case("aten::%s_pad1d.out" % kind, "i64_batched", [x1b, [0, 3]], [Out(_pad(x1b, [0, 3], reflect))])
        g.case("aten::%s_pad1d.out" % kind, "crop_left", [x1, [-1, 2]], [Out(_pad(x1, [-1, 2], reflect))])
        g.case("aten::%s_pad1d.out" % kind, "empty_batch", [np.zeros((0, 2, 4), np.float32), [1, 1]],
               [Out(np.zeros((0, 2, 6), np.float32))])
        x2 = rand((2, 3, 4, 5))
        g.case("aten::%s_pad2d.out" % kind, "f32_4d", [x2, [1, 2, 3, 0]], [Out(_pad(x2, [1, 2, 3, 0], reflect))])
        g.case("aten::%s_pad2d.out" % kind, "channels_last", [T(x2, CL), [2, 2, 1, 1]],
               [Out(_pad(x2, [2, 2, 1, 1], reflect), order=CL)])
        x2h = rand((3, 3, 4)).astype(np.float16)
        g.case("aten::%s_pad2d.out" % kind, "f16_3d", [x2h, [3, 0, 0, 2]], [Out(_pad(x2h, [3, 0, 0, 2], reflect))])
        x2b = bf16(rand((1, 2, 3)))
        g.case("aten::%s_pad2d.out" % kind, "bf16", [T(x2b, dtype=BF16), [1, 1, 1, 1]],
               [Out(_pad(x2b, [1, 1, 1, 1], reflect), dtype=BF16)])
        xu = rand((1, 3, 3), np.uint8, 0, 255)
        g.case("aten::%s_pad2d.out" % kind, "u8_crop", [xu, [-1, 1, 1, -1]], [Out(_pad(xu, [-1, 1, 1, -1], reflect))])
        x3 = rand((2, 2, 3, 4, 3))
        g.case("aten::%s_pad3d.out" % kind, "f32_5d", [x3, [1, 0, 2, 1, 0, 2]], [Out(_pad(x3, [1, 0, 2, 1, 0, 2], reflect))])
        x3b = rand((1, 2, 2, 2), np.bool_)
        g.case("aten::%s_pad3d.out" % kind, "bool_4d", [x3b, [1, 1, 1, 1, 1, 1]], [Out(_pad(x3b, [1, 1, 1, 1, 1, 1], reflect))])
        x3i = rand((1, 3, 2, 2), np.int32, -9, 9)
        g.case("aten::%s_pad3d.out" % kind, "i32_depth_only", [x3i, [0, 0, 0, 0, 2, 1]],
               [Out(_pad(x3i, [0, 0, 0, 0, 2, 1], reflect))])
        g.case("aten::%s_pad1d.out" % kind, "err_padding_len", [x1, [1]], [Out(dtype=F32, shape=(2, 6))],
               error=("InvalidArgument", "padding"))
        g.case("aten::%s_pad2d.out" % kind, "err_rank", [x1, [1, 1, 1, 1]], [Out(dtype=F32, shape=(4, 7))],
               error=("InvalidArgument", "%s_pad2d" % kind))
        g.case("aten::%s_pad3d.out" % kind, "err_dtype", [x3, [0, 0, 0, 0, 0, 0]],
               [Out(dtype=F64, shape=x3.shape)], error=("InvalidArgument", "dtype"))
    g.case("aten::reflection_pad1d.out", "err_pad_too_big", [rand((2, 3)), [3, 0]], [Out(dtype=F32, shape=(2, 6))],
           error=("InvalidArgument", "reflection_pad1d"))
    g.case("aten::reflection_pad2d.out", "err_pad_too_big", [rand((1, 2, 3)), [0, 0, 2, 0]], [Out(dtype=F32, shape=(1, 4, 3))],
           error=("InvalidArgument", "padding"))
