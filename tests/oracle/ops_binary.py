"""Oracle cases: aten::add/sub/mul/div/... (arithmetic binary operators)."""
import numpy as np

from oracle import CL, F32, Out, T, rand, f32_edges, int_extremes


def _bin_shapes():
    # (self shape, other shape): same, broadcast both ways, scalar 0-d, empty
    return [((2, 3), (2, 3)), ((2, 1, 4), (3, 1)), ((), (2, 2)), ((4,), ()), ((0, 3), (1, 3)),
            ((2, 3, 4, 5), (2, 3, 4, 5))]


def cases(g):
    for op, fn in (("aten::add.out", lambda a, b, al: a + al * b),
                   ("aten::sub.out", lambda a, b, al: a - al * b)):
        for k, (sa, sb) in enumerate(_bin_shapes()):
            a, b = rand(sa), rand(sb)
            g.case(op, "f32_shape%d" % k, [a, b, 1], [Out(fn(a, b, np.float32(1)))])
        a, b = rand((2, 3)), rand((2, 3))
        g.case(op, "f32_alpha", [a, b, 2.5],
               [Out((fn(a.astype(np.float64), b.astype(np.float64), 2.5)).astype(np.float32))])
        e = f32_edges()
        g.case(op, "f32_edges", [e, e[::-1].copy(), 1], [Out(fn(e, e[::-1], np.float32(1)))])
        for dt in (np.int32, np.int64, np.int8, np.uint8, np.int16):
            a, b = rand((3, 4), dt, -20, 20), rand((4,), dt, -20, 20)
            g.case(op, "%s_bcast" % np.dtype(dt).name, [a, b, 3],
                   [Out(fn(a.astype(np.int64), b.astype(np.int64), 3).astype(dt))])
        # wrap-around of int32 (ATen integer arithmetic wraps)
        x = int_extremes(np.int32)
        y = np.array([1, 1, 0, 0, 0], dtype=np.int32)
        g.case(op, "i32_wrap", [x, y, 1],
               [Out(fn(x.astype(np.int64), y.astype(np.int64), 1).astype(np.int32))])
        # promotion: int32 + float32 -> float32; uint8 + int8 -> int16
        a, b = rand((2, 3), np.int32, -9, 9), rand((2, 3))
        g.case(op, "promote_i32_f32", [a, b, 1], [Out(fn(a.astype(np.float32), b, np.float32(1)))])
        a, b = rand((5,), np.uint8, 0, 255), rand((5,), np.int8, -128, 127)
        g.case(op, "promote_u8_i8", [a, b, 1],
               [Out(fn(a.astype(np.int16), b.astype(np.int16), np.int16(1)))])
        # channels-last inputs and output
        a, b = rand((2, 3, 2, 2)), rand((2, 3, 2, 2))
        g.case(op, "f32_channels_last", [T(a, CL), T(b, CL), 1], [Out(fn(a, b, np.float32(1)), order=CL)])
        a, b = rand((2, 3, 2, 2)), rand((1, 3, 1, 1))
        g.case(op, "f32_mixed_order", [T(a, CL), b, 1], [Out(fn(a, b, np.float32(1)), order=CL)])
        # float64, float16
        a, b = rand((3, 3), np.float64), rand((3, 3), np.float64)
        g.case(op, "f64", [a, b, 1], [Out(fn(a, b, 1.0))])
        a, b = rand((3, 3), np.float16), rand((3, 3), np.float16)
        g.case(op, "f16", [a, b, 1], [Out(fn(a.astype(np.float32), b.astype(np.float32), 1).astype(np.float16))])
        # bad input: broadcast mismatch, bool alpha on... out dtype too narrow
        g.case(op, "err_broadcast", [rand((2, 3)), rand((4,)), 1], [Out(dtype=F32, shape=(2, 3))],
               error=("any", ""))
