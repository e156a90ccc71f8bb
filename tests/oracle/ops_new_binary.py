"""Oracle cases for binary operators added by other helpers (issue 13): atan2, bitwise_*,
logical_*, maximum / minimum, fmod, remainder, floor_divide, rsub."""
import numpy as np

from oracle import BOOL, CL, F32, I32, Out, T, rand, f32_edges, int_extremes


def _f32(fn, *a):
    with np.errstate(all="ignore"):
        return np.asarray(fn(*[np.asarray(v, np.float64) for v in a])).astype(np.float32)


def _c_fmod_int(a, b):
    a, b = a.astype(np.int64), b.astype(np.int64)
    return np.sign(a) * (np.abs(a) % np.abs(b))


def cases(g):
    a, b = rand((3, 4)), rand((4,))
    e = f32_edges()
    g.case("aten::atan2.out", "f32_bcast", [a, b], [Out(_f32(np.arctan2, a, b))])
    g.case("aten::atan2.out", "f32_edges", [e, e[::-1].copy()], [Out(_f32(np.arctan2, e, e[::-1]))])
    ia, ib = rand((5,), np.int32, -5, 5), rand((5,), np.int32, -5, 5)
    g.case("aten::atan2.out", "i32_to_f32", [ia, ib], [Out(_f32(np.arctan2, ia, ib))])
    for name, fn in (("and", np.bitwise_and), ("or", np.bitwise_or), ("xor", np.bitwise_xor)):
        op_t, op_s = "aten::bitwise_%s.Tensor_out" % name, "aten::bitwise_%s.Scalar_out" % name
        for dt in (np.int8, np.uint8, np.int16, np.int32, np.int64):
            x = int_extremes(dt) if np.dtype(dt).kind == "i" else np.array([0, 1, 255, 128, 7], dt)
            y = np.array([-1, 0, 5, 3, 6], np.int64).astype(dt)
            g.case(op_t, np.dtype(dt).name, [x, y], [Out(fn(x, y))])
        bx, by = np.array([True, True, False, False]), np.array([True, False, True, False])
        g.case(op_t, "bool", [bx, by], [Out(fn(bx, by))])
        m, n = rand((2, 3), np.int32, -100, 100), rand((3,), np.int64, -100, 100)
        g.case(op_t, "promote_i32_i64", [m, n], [Out(fn(m.astype(np.int64), n))])
        g.case(op_t, "err_float", [a, a], [Out(dtype=F32, shape=(3, 4))], error=("InvalidArgument", "dtype"))
        g.case(op_s, "i32", [m, 12], [Out(fn(m, np.int32(12)))])
        g.case(op_s, "bool", [bx, True], [Out(fn(bx, True))])
        lg = {"and": np.logical_and, "or": np.logical_or, "xor": np.logical_xor}[name]
        op_l = "aten::logical_%s.out" % name
        g.case(op_l, "bool", [bx, by], [Out(lg(bx, by))])
        g.case(op_l, "f32_truthiness", [e, e[::-1].copy()], [Out(lg(e != 0, e[::-1] != 0))])
        g.case(op_l, "i32_bcast", [m, np.array([0, 1, -2], np.int32)], [Out(lg(m != 0, np.array([0, 1, -2]) != 0))])
        g.case(op_l, "to_f32_out", [bx, by], [Out(lg(bx, by).astype(np.float32))])
    for name, fn in (("maximum", np.maximum), ("minimum", np.minimum)):
        op = "aten::%s.out" % name
        g.case(op, "f32_bcast", [a, b], [Out(fn(a, b))])
        g.case(op, "f32_nan_propagates", [e, e[::-1].copy()], [Out(fn(e, e[::-1]))])
        g.case(op, "i32", [ia, ib], [Out(fn(ia, ib))])
        g.case(op, "promote_i32_f32", [ia, ia.astype(np.float32) + np.float32(0.5)],
               [Out(fn(ia.astype(np.float32), ia.astype(np.float32) + np.float32(0.5)))])
        x4, y4 = rand((2, 3, 2, 2)), rand((2, 3, 2, 2))
        g.case(op, "channels_last", [T(x4, CL), T(y4, CL)], [Out(fn(x4, y4), order=CL)])
        g.case(op, "err_broadcast", [rand((3,)), rand((2,))], [Out(dtype=F32, shape=(3,))], error=("InvalidArgument", "broadcast"))
    # fmod: sign of the dividend (C fmod); remainder: sign of the divisor (Python %)
    fa = np.array([5.5, -5.5, 5.5, -5.5, 0.0, 7.0, 3.0], np.float32)
    fb = np.array([2.0, 2.0, -2.0, -2.0, 3.0, 0.5, np.inf], np.float32)
    ii = np.array([7, -7, 7, -7, 0, 9], np.int32)
    jj = np.array([3, 3, -3, -3, 5, 4], np.int32)
    g.case("aten::fmod.Tensor_out", "f32", [fa, fb], [Out(np.fmod(fa, fb))])
    g.case("aten::fmod.Tensor_out", "i32", [ii, jj], [Out(_c_fmod_int(ii, jj).astype(np.int32))])
    g.case("aten::fmod.Tensor_out", "f32_zero_divisor_nan", [fa[:2].copy(), np.zeros((2,), np.float32)],
           [Out(np.full((2,), np.nan, np.float32))])
    g.case("aten::fmod.Tensor_out", "err_int_zero", [ii, np.zeros((6,), np.int32)], [Out(dtype=I32, shape=(6,))],
           error=("InvalidArgument", "zero"))
    g.case("aten::fmod.Scalar_out", "f32", [fa, 1.5], [Out(np.fmod(fa, np.float32(1.5)))])
    g.case("aten::fmod.Scalar_out", "i32", [ii, -4], [Out(_c_fmod_int(ii, np.full_like(ii, -4)).astype(np.int32))])
    g.case("aten::fmod.Scalar_out", "err_int_zero", [ii, 0], [Out(dtype=I32, shape=(6,))], error=("InvalidArgument", "zero"))
    g.case("aten::remainder.Tensor_out", "f32", [fa[:6].copy(), fb[:6].copy()], [Out(np.remainder(fa[:6], fb[:6]))])
    g.case("aten::remainder.Tensor_out", "i32", [ii, jj], [Out(np.remainder(ii, jj))])
    g.case("aten::remainder.Tensor_out", "err_int_zero", [ii, np.zeros((6,), np.int32)], [Out(dtype=I32, shape=(6,))],
           error=("InvalidArgument", "zero"))
    g.case("aten::remainder.Scalar_out", "f32", [fa, -1.5], [Out(np.remainder(fa, np.float32(-1.5)))])
    g.case("aten::remainder.Scalar_out", "i64", [ii.astype(np.int64), 4], [Out(np.remainder(ii.astype(np.int64), 4))])
    g.case("aten::remainder.Scalar_out", "err_int_zero", [ii, 0], [Out(dtype=I32, shape=(6,))], error=("InvalidArgument", "zero"))
    g.case("aten::floor_divide.out", "i32", [ii, jj], [Out(np.floor_divide(ii, jj))])
    g.case("aten::floor_divide.out", "f32", [fa[:6].copy(), fb[:6].copy()], [Out(np.floor_divide(fa[:6], fb[:6]))])
    g.case("aten::floor_divide.out", "err_int_zero", [ii, np.zeros((6,), np.int32)], [Out(dtype=I32, shape=(6,))],
           error=("InvalidArgument", "zero"))
    # rsub.Scalar(self, other, alpha) = other - alpha * self
    g.case("aten::rsub.Scalar_out", "f32", [a, 2.0, 1], [Out(np.float32(2.0) - a)])
    g.case("aten::rsub.Scalar_out", "f32_alpha", [a, 1.0, 3.0], [Out(_f32(lambda v: 1.0 - 3.0 * v, a))])
    g.case("aten::rsub.Scalar_out", "i32", [ia, 10, 2], [Out(np.int32(10) - 2 * ia)])
