"""Oracle cases: aten::add/sub/mul/div/... (arithmetic binary operators)."""
import numpy as np

from oracle import CL, F32, I32, Out, Str, T, rand, f32_edges, int_extremes


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
               error=("InvalidArgument", "broadcast"))


def _trunc_div_int(a, b):
    a, b = a.astype(np.int64), b.astype(np.int64)
    q = np.abs(a) // np.abs(b)
    return np.where((a < 0) != (b < 0), -q, q)


def _nonzero(x):
    x = x.copy()
    x[x == 0] = 1
    return x


def cases_mul_div(g):
    for k, (sa, sb) in enumerate(_bin_shapes()):
        a, b = rand(sa), rand(sb)
        g.case("aten::mul.out", "f32_shape%d" % k, [a, b], [Out(a * b)])
        bb = np.asarray(rand(sb, lo=0.5, hi=3.0) * np.where(rand(sb) > 0, 1, -1).astype(np.float32))
        g.case("aten::div.out", "f32_shape%d" % k, [a, bb], [Out(a / bb)])
    e = f32_edges()
    g.case("aten::mul.out", "f32_edges", [e, e[::-1].copy()], [Out(e * e[::-1])])
    with np.errstate(all="ignore"):
        g.case("aten::div.out", "f32_edges", [e, e[::-1].copy()], [Out(e / e[::-1])])
    for dt in (np.int32, np.int64, np.int8, np.uint8, np.int16):
        a, b = rand((3, 4), dt, -11, 11), rand((4,), dt, -11, 11)
        g.case("aten::mul.out", "%s" % np.dtype(dt).name, [a, b],
               [Out((a.astype(np.int64) * b.astype(np.int64)).astype(dt))])
        # integer / integer is true division into the default float dtype
        b = _nonzero(b)
        g.case("aten::div.out", "%s_true" % np.dtype(dt).name, [a, b],
               [Out((a.astype(np.float64) / b.astype(np.float64)).astype(np.float32))])
    x = np.array([True, False, True]), np.array([True, True, False])
    g.case("aten::mul.out", "bool", list(x), [Out(x[0] & x[1])])
    a = rand((2, 2, 3, 3))
    b = rand((2, 2, 3, 3))
    g.case("aten::mul.out", "f32_channels_last", [T(a, CL), T(b, CL)], [Out(a * b, order=CL)])
    a16, b16 = rand((4,), np.float16), rand((4,), np.float16)
    g.case("aten::mul.out", "f16", [a16, b16], [Out((a16.astype(np.float32) * b16.astype(np.float32)).astype(np.float16))])
    g.case("aten::mul.out", "err_broadcast", [rand((3,)), rand((2,))], [Out(dtype=F32, shape=(3,))],
           error=("InvalidArgument", "broadcast"))
    # div with rounding modes
    a = np.array([7, -7, 7, -7, 0, 5, -1, 9], dtype=np.int32)
    b = np.array([2, 2, -2, -2, 3, 5, 3, -4], dtype=np.int32)
    for dt in (np.int32, np.int64, np.int8, np.int16):
        aa, bb = a.astype(dt), b.astype(dt)
        g.case("aten::div.out_mode", "%s_trunc" % np.dtype(dt).name, [aa, bb, Str("trunc")],
               [Out(_trunc_div_int(aa, bb).astype(dt))])
        g.case("aten::div.out_mode", "%s_floor" % np.dtype(dt).name, [aa, bb, Str("floor")],
               [Out(np.floor_divide(aa.astype(np.int64), bb.astype(np.int64)).astype(dt))])
    g.case("aten::div.out_mode", "i32_none", [a, b, None],
           [Out((a.astype(np.float64) / b).astype(np.float32))])
    fa = rand((3, 5), lo=-9, hi=9)
    fb = rand((5,), lo=0.5, hi=3) * np.array([1, -1, 1, -1, 1], dtype=np.float32)
    g.case("aten::div.out_mode", "f32_trunc", [fa, fb, Str("trunc")], [Out(np.trunc(fa / fb))])
    g.case("aten::div.out_mode", "f32_floor", [fa, fb, Str("floor")], [Out(np.floor_divide(fa, fb))])
    g.case("aten::div.out_mode", "f32_none", [fa, fb, None], [Out(fa / fb)])
    # integer division by zero is an error in ATen (ZeroDivisionError), never a crash
    zb = np.array([1, 0, 2], dtype=np.int32)
    for mode in ("trunc", "floor"):
        g.case("aten::div.out_mode", "err_i32_zero_%s" % mode, [np.array([4, 5, 6], np.int32), zb, Str(mode)],
               [Out(dtype=I32, shape=(3,))], error=("InvalidArgument", "division by zero"))
        g.case("aten::div.Scalar_mode_out", "err_i32_zero_%s" % mode, [np.array([4, 5, 6], np.int32), 0, Str(mode)],
               [Out(dtype=I32, shape=(3,))], error=("InvalidArgument", "division by zero"))
    g.case("aten::div.out_mode", "err_bad_mode", [fa, fb, Str("round")], [Out(dtype=F32, shape=(3, 5))],
           error=("InvalidArgument", "rounding_mode"))

    # Scalar variants
    a = rand((2, 3))
    g.case("aten::add.Scalar_out", "f32", [a, 1.5, 2], [Out(a + np.float32(3.0))])
    g.case("aten::sub.Scalar_out", "f32", [a, 1.5, 2], [Out(a - np.float32(3.0))])
    g.case("aten::mul.Scalar_out", "f32", [a, -2.5], [Out(a * np.float32(-2.5))])
    g.case("aten::div.Scalar_out", "f32", [a, 4.0], [Out(a / np.float32(4.0))])
    i = rand((2, 3), np.int32, -50, 50)
    g.case("aten::add.Scalar_out", "i32_int", [i, 7, 1], [Out(i + np.int32(7))])
    g.case("aten::add.Scalar_out", "i32_float_promotes", [i, 0.5, 1], [Out(i.astype(np.float32) + np.float32(0.5))])
    g.case("aten::sub.Scalar_out", "i64_int", [i.astype(np.int64), 9, 2], [Out(i.astype(np.int64) - 18)])
    g.case("aten::mul.Scalar_out", "i32_int", [i, -3], [Out(i * np.int32(-3))])
    g.case("aten::mul.Scalar_out", "i32_float_promotes", [i, 0.25], [Out(i.astype(np.float32) * np.float32(0.25))])
    g.case("aten::mul.Scalar_out", "u8_wrap", [np.array([200, 3], np.uint8), 2], [Out(np.array([144, 6], np.uint8))])
    g.case("aten::div.Scalar_out", "i32_true", [i, 4], [Out((i / 4.0).astype(np.float32))])
    g.case("aten::div.Scalar_mode_out", "i32_floor", [i, 4, Str("floor")], [Out(np.floor_divide(i, 4).astype(np.int32))])
    g.case("aten::div.Scalar_mode_out", "i32_trunc", [i, -4, Str("trunc")],
           [Out(_trunc_div_int(i, np.full_like(i, -4)).astype(np.int32))])
    g.case("aten::div.Scalar_mode_out", "f32_floor", [a, 0.7, Str("floor")], [Out(np.floor_divide(a, np.float32(0.7)))])
    g.case("aten::div.Scalar_mode_out", "f32_none", [a, 0.7, None], [Out(a / np.float32(0.7))])
    e = f32_edges()
    with np.errstate(all="ignore"):
        m0 = e * np.float32(0.0)
    g.case("aten::mul.Scalar_out", "f32_edges", [e, 0.0], [Out(m0)])
    g.case("aten::add.Scalar_out", "empty", [np.zeros((0, 2), np.float32), 1.0, 1], [Out(np.zeros((0, 2), np.float32))])

    # pow
    base = rand((2, 4), lo=0.1, hi=3)
    ex = rand((4,), lo=-2, hi=2)
    g.case("aten::pow.Tensor_Tensor_out", "f32_bcast", [base, ex], [Out(np.power(base, ex))])
    ib, ie = rand((3, 3), np.int32, -4, 4), rand((3, 3), np.int32, 0, 5)
    g.case("aten::pow.Tensor_Tensor_out", "i32", [ib, ie], [Out(np.power(ib.astype(np.int64), ie).astype(np.int32))])
    g.case("aten::pow.Tensor_Scalar_out", "f32_sq", [a, 2.0], [Out(a * a)])
    g.case("aten::pow.Tensor_Scalar_out", "f32_half", [base, 0.5], [Out(np.sqrt(base))])
    g.case("aten::pow.Tensor_Scalar_out", "i32_int", [ib, 3], [Out(ib ** 3)])
    g.case("aten::pow.Tensor_Scalar_out", "f32_edges", [e, 2.0], [Out(e * e)])
    g.case("aten::pow.Scalar_out", "f32", [2.0, ex], [Out(np.power(np.float32(2.0), ex))])
    g.case("aten::pow.Scalar_out", "int_base_int_exp", [3, ie], [Out((3 ** ie.astype(np.int64)).astype(np.int32))])
    g.case("aten::pow.Tensor_Tensor_out", "err_broadcast", [rand((2, 3)), rand((2,))], [Out(dtype=F32, shape=(2, 3))],
           error=("InvalidArgument", "broadcast"))


_orig_cases = cases


def cases(g):  # noqa: F811
    _orig_cases(g)
    cases_mul_div(g)
