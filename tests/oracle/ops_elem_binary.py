"""Oracle cases: bitwise_not/and/or/xor, logical_and/or/xor, atan2, fmod, remainder,
floor_divide, maximum, minimum, rsub. Expected values: numpy (integer results computed in int64
and wrapped to the result dtype, as ATen's integer arithmetic wraps) or the ATen definitions."""
import numpy as np

from oracle import BF16, BOOL, CL, F32, I32, I64, Out, T, rand, f32_edges, int_extremes, bf16

_INTS = (np.int8, np.uint8, np.int16, np.int32, np.int64)


def _wrap(x, dt):
    """int64 values wrapped to dt (two's complement)."""
    return np.asarray(x, np.int64).astype(dt)


def _shapes():
    # (self, other): same, broadcast both ways, 0-d, empty
    return [((2, 3), (2, 3)), ((2, 1, 4), (3, 1)), ((), (2, 2)), ((4,), ()), ((0, 3), (1, 3))]


def _bitwise_cases(g):
    for name, fn in (("and", np.bitwise_and), ("or", np.bitwise_or), ("xor", np.bitwise_xor)):
        op = "aten::bitwise_%s.Tensor_out" % name
        for dt in _INTS:
            a, b = rand((3, 4), dt, -1000, 1000), rand((4,), dt, -1000, 1000)
            g.case(op, "%s_bcast" % np.dtype(dt).name, [a, b], [Out(fn(a, b))])
            ie = int_extremes(dt)
            g.case(op, "%s_extremes" % np.dtype(dt).name, [ie, ie[::-1].copy()], [Out(fn(ie, ie[::-1]))])
        for k, (sa, sb) in enumerate(_shapes()):
            a, b = rand(sa, np.int32, -99, 99), rand(sb, np.int32, -99, 99)
            g.case(op, "i32_shape%d" % k, [a, b], [Out(fn(a, b))])
        p, q = np.array([True, True, False, False]), np.array([True, False, True, False])
        g.case(op, "bool", [p, q], [Out(fn(p, q))])
        a, b = rand((5,), np.uint8, 0, 255), rand((5,), np.int8, -128, 127)
        g.case(op, "promote_u8_i8", [a, b], [Out(fn(a.astype(np.int16), b.astype(np.int16)))])
        a = rand((4,), np.int32, -50, 50)
        g.case(op, "promote_bool_i32", [p, a], [Out(fn(p.astype(np.int32), a))])
        a4, b4 = rand((2, 3, 2, 2), np.int64, -9, 9), rand((2, 3, 2, 2), np.int64, -9, 9)
        g.case(op, "i64_channels_last", [T(a4, CL), b4], [Out(fn(a4, b4), order=CL)])
        g.case(op, "i32_to_i64_out", [a, a[::-1].copy()], [Out(fn(a, a[::-1]).astype(np.int64))])
        g.case(op, "err_float_self", [rand((3,)), rand((3,), np.int32, 0, 5)], [Out(dtype=F32, shape=(3,))],
               error=("InvalidArgument", "self"))
        g.case(op, "err_broadcast", [rand((2, 3), np.int32, 0, 5), rand((4,), np.int32, 0, 5)],
               [Out(dtype=I32, shape=(2, 3))], error=("InvalidArgument", "broadcast"))
        g.case(op, "err_int_into_bool", [a, a], [Out(dtype=BOOL, shape=(4,))], error=("InvalidArgument", "out"))

        op = "aten::bitwise_%s.Scalar_out" % name
        for dt in _INTS:
            a = rand((2, 3), dt, -1000, 1000)
            s = 0x5A
            g.case(op, "%s_int" % np.dtype(dt).name, [a, s], [Out(_wrap(fn(a.astype(np.int64), s), dt))])
        a = rand((5,), np.int8, -128, 127)
        # the scalar is cast (wrapped) to the tensor's dtype: 0x1FF -> int8 -1
        g.case(op, "i8_wrapped_scalar", [a, 0x1FF], [Out(fn(a, np.int8(-1)))])
        p = np.array([True, False, True])
        g.case(op, "bool_bool", [p, True], [Out(fn(p, True))])
        g.case(op, "bool_int_to_i64", [p, 6], [Out(fn(p.astype(np.int64), 6))])
        a4 = rand((1, 2, 2, 3), np.int32, -99, 99)
        g.case(op, "i32_channels_last", [T(a4, CL), -3], [Out(fn(a4, np.int32(-3)), order=CL)])
        g.case(op, "err_double_scalar", [a, 1.5], [Out(dtype=I32, shape=(5,))],
               error=("InvalidArgument", "other"))

    op = "aten::bitwise_not.out"
    for dt in _INTS:
        ie = int_extremes(dt)
        g.case(op, np.dtype(dt).name, [ie], [Out(np.invert(ie))])
    p = np.array([True, False])
    g.case(op, "bool", [p], [Out(np.invert(p))])
    a4 = rand((2, 3, 2, 2), np.int16, -999, 999)
    g.case(op, "i16_channels_last", [T(a4, CL)], [Out(np.invert(a4), order=CL)])
    g.case(op, "empty", [np.zeros((0, 2), np.int32)], [Out(np.zeros((0, 2), np.int32))])
    g.case(op, "err_float", [rand((3,))], [Out(dtype=F32, shape=(3,))], error=("InvalidArgument", "self"))


def _logical_cases(g):
    e = f32_edges()
    for name, fn in (("and", np.logical_and), ("or", np.logical_or), ("xor", np.logical_xor)):
        op = "aten::logical_%s.out" % name
        g.case(op, "f32_edges", [e, e[::-1].copy()], [Out(fn(e, e[::-1]))])  # NaN is true
        a = np.array([0, 1, -3, 0, 7], np.int32)
        b = np.array([0.0, 0.0, np.nan, -0.0, 1e-30], np.float32)
        g.case(op, "i32_f32", [a, b], [Out(fn(a, b))])
        g.case(op, "i32_f32_to_f32_out", [a, b], [Out(fn(a, b).astype(np.float32))])
        g.case(op, "i32_f32_to_i64_out", [a, b], [Out(fn(a, b).astype(np.int64))])
        for k, (sa, sb) in enumerate(_shapes()):
            x, y = rand(sa, np.int8, -2, 2), np.asarray(rand(sb, np.float64, -1, 1).round(), np.float64)
            g.case(op, "i8_f64_shape%d" % k, [x, y], [Out(fn(x, y))])
        p, q = np.array([True, True, False, False]), np.array([True, False, True, False])
        g.case(op, "bool", [p, q], [Out(fn(p, q))])
        l = np.array([np.iinfo(np.int64).min, 0, 1], np.int64)
        d = np.array([1e-300, 5.0, 0.0], np.float64)
        g.case(op, "i64_f64", [l, d], [Out(fn(l, d))])
        h = np.array([0.0, 1e-4, -0.0], np.float16)
        g.case(op, "f16_u8", [h, np.array([1, 0, 255], np.uint8)], [Out(fn(h, np.array([1, 0, 255])))])
        bf = np.array([1e-30, 0.0, -2.0], np.float32)
        g.case(op, "bf16_bool", [T(bf, dtype=BF16), p[:3].copy()], [Out(fn(bf, p[:3]))])
        x4, y4 = rand((2, 3, 2, 2), np.int32, -1, 1), rand((2, 3, 2, 2), np.int32, -1, 1)
        g.case(op, "i32_channels_last", [T(x4, CL), y4], [Out(fn(x4, y4), order=CL)])
        g.case(op, "err_broadcast", [rand((2, 3)), rand((4,))], [Out(dtype=BOOL, shape=(2, 3))],
               error=("InvalidArgument", "broadcast"))


def _f32(fn, *xs):
    return np.asarray(fn(*[np.asarray(x, np.float64) for x in xs])).astype(np.float32)


def _py_mod(a, b):
    """Python / ATen remainder for integers (sign of the divisor), in int64."""
    a, b = np.asarray(a, np.int64), np.asarray(b, np.int64)
    return np.remainder(a, b)


def _c_mod(a, b):
    a, b = np.asarray(a, np.int64), np.asarray(b, np.int64)
    return np.fmod(a, b)


def _int_floordiv(a, b):
    a, b = np.asarray(a, np.int64), np.asarray(b, np.int64)
    return np.floor_divide(a, b)


def _divmod_cases(g):
    e = f32_edges()
    ea = np.array([5.5, -5.5, 5.5, -5.5, 1.0, np.inf, 3.0, -1.0, 0.0, np.nan, 7.0], np.float32)
    eb = np.array([2.0, 2.0, -2.0, -2.0, 0.0, 2.0, np.inf, np.inf, -3.0, 1.0, -np.inf], np.float32)
    for name, ffn, ifn in (("fmod", np.fmod, _c_mod), ("remainder", np.remainder, _py_mod)):
        op = "aten::%s.Tensor_out" % name
        for k, (sa, sb) in enumerate(_shapes()):
            a = rand(sa, lo=-9, hi=9)
            b = np.asarray(rand(sb, lo=0.5, hi=4) * np.where(rand(sb, np.int32, 0, 1) > 0, -1, 1), np.float32)
            g.case(op, "f32_shape%d" % k, [a, b], [Out(_f32(ffn, a, b))])
        g.case(op, "f32_edges", [ea, eb], [Out(_f32(ffn, ea, eb))])
        for dt in _INTS:
            lo = 0 if dt == np.uint8 else -100
            a = rand((3, 4), dt, lo, 100)
            b = rand((4,), dt, 1, 9)
            if dt != np.uint8:
                b = (b * np.array([1, -1, 1, -1], dt)).astype(dt)
            g.case(op, "%s_bcast" % np.dtype(dt).name, [a, b], [Out(_wrap(ifn(a, b), dt))])
        ie = int_extremes(np.int64)
        d = np.array([-1, 7, 3, -5, 2], np.int64)
        g.case(op, "i64_extremes", [ie, d], [Out(ifn(ie, d))])  # INT64_MIN % -1 = 0
        i8 = np.array([-128, -128, 127, -7], np.int8)
        d8 = np.array([-1, 127, -128, 3], np.int8)
        g.case(op, "i8_extremes", [i8, d8], [Out(_wrap(ifn(i8, d8), np.int8))])
        a, b = rand((2, 3), np.int32, -50, 50), rand((2, 3), lo=0.5, hi=3)
        g.case(op, "promote_i32_f32", [a, b], [Out(_f32(ffn, a, b))])
        a4, b4 = rand((2, 3, 2, 2), lo=-9, hi=9), rand((1, 3, 1, 1), lo=1, hi=3)
        g.case(op, "f32_channels_last", [T(a4, CL), b4], [Out(_f32(ffn, a4, b4), order=CL)])
        xd, yd = rand((5,), np.float64, -9, 9), rand((5,), np.float64, 0.5, 3)
        g.case(op, "f64", [xd, -yd], [Out(ffn(xd, -yd))])
        xh, yh = rand((4,), np.float16, -9, 9), rand((4,), np.float16, 0.5, 3)
        g.case(op, "f16", [xh, yh], [Out(_f32(ffn, xh, yh).astype(np.float16))], tol=(2e-3, 2e-3))
        g.case(op, "err_int_div_zero", [np.array([1, 2], np.int32), np.array([1, 0], np.int32)],
               [Out(dtype=I32, shape=(2,))], error=("InvalidArgument", "division by zero"))
        g.case(op, "err_bool", [np.array([True]), np.array([True])], [Out(dtype=BOOL, shape=(1,))],
               error=("InvalidArgument", "bool"))
        g.case(op, "err_broadcast", [rand((2, 3)), rand((2,))], [Out(dtype=F32, shape=(2, 3))],
               error=("InvalidArgument", "broadcast"))

        op = "aten::%s.Scalar_out" % name
        a = rand((3, 4), lo=-9, hi=9)
        g.case(op, "f32_double", [a, 2.5], [Out(_f32(ffn, a, 2.5))])
        g.case(op, "f32_neg_int", [a, -3], [Out(_f32(ffn, a, -3.0))])
        g.case(op, "f32_edges", [e, 1.5], [Out(_f32(ffn, e, 1.5))])
        for dt in _INTS:
            lo = 0 if dt == np.uint8 else -100
            x = rand((5,), dt, lo, 100)
            s = 7 if dt == np.uint8 else -7
            g.case(op, "%s_int" % np.dtype(dt).name, [x, s], [Out(_wrap(ifn(x, s), dt))])
        xi = rand((5,), np.int32, -20, 20)
        g.case(op, "i32_double_to_f32", [xi, 2.5], [Out(_f32(ffn, xi, 2.5))])
        x4 = rand((1, 2, 2, 3), lo=-9, hi=9)
        g.case(op, "f32_channels_last", [T(x4, CL), 0.75], [Out(_f32(ffn, x4, 0.75), order=CL)])
        g.case(op, "empty", [np.zeros((0, 3), np.float32), 2.0], [Out(np.zeros((0, 3), np.float32))])
        g.case(op, "err_int_div_zero", [xi, 0], [Out(dtype=I32, shape=(5,))],
               error=("InvalidArgument", "division by zero"))

    op = "aten::floor_divide.out"
    for k, (sa, sb) in enumerate(_shapes()):
        a, b = rand(sa, lo=-9, hi=9), rand(sb, lo=0.5, hi=4)
        b = np.asarray(-b, np.float32)
        g.case(op, "f32_shape%d" % k, [a, b], [Out(_f32(np.floor_divide, a, b))])
    fa = np.array([7.5, -7.5, 1.0, -1.0, 0.0, -0.5, 7.0, np.inf, np.nan], np.float32)
    fb = np.array([2.0, 2.0, 0.0, 0.0, 0.0, 4.0, 0.1, 2.0, 1.0], np.float32)
    g.case(op, "f32_edges", [fa, fb], [Out(_f32(np.floor_divide, fa, fb))])
    for dt in _INTS:
        lo = 0 if dt == np.uint8 else -100
        a, b = rand((3, 4), dt, lo, 100), rand((4,), dt, 1, 9)
        if dt != np.uint8:
            b = (b * np.array([1, -1, 1, -1], dt)).astype(dt)
        g.case(op, "%s_bcast" % np.dtype(dt).name, [a, b], [Out(_wrap(_int_floordiv(a, b), dt))])
    i8 = np.array([-128, -128, 127, -7], np.int8)
    d8 = np.array([-1, 3, -128, 2], np.int8)
    g.case(op, "i8_wrap", [i8, d8], [Out(_wrap(_int_floordiv(i8, d8), np.int8))])  # -128 // -1 wraps
    ie = np.array([np.iinfo(np.int64).min, np.iinfo(np.int64).min, np.iinfo(np.int64).max, -7], np.int64)
    d = np.array([-1, 3, -2, 2], np.int64)
    exp = np.array([np.iinfo(np.int64).min, -3074457345618258603, -4611686018427387904, -4], np.int64)
    g.case(op, "i64_extremes", [ie, d], [Out(exp)])  # hand: floor(-2^63 / 3), floor((2^63-1) / -2)
    xd, yd = rand((5,), np.float64, -9, 9), rand((5,), np.float64, 0.5, 3)
    g.case(op, "f64", [xd, yd], [Out(np.floor_divide(xd, yd))])
    xi, yd1 = rand((4,), np.int32, -20, 20), np.array([0.1], np.float64)
    g.case(op, "promote_i32_f64", [xi, yd1], [Out(np.floor_divide(xi.astype(np.float64), yd1))])
    xh, yh = rand((4,), np.float16, -9, 9), rand((4,), np.float16, 0.5, 3)
    g.case(op, "f16", [xh, yh], [Out(_f32(np.floor_divide, xh, yh).astype(np.float16))])
    a4, b4 = rand((2, 3, 2, 2), np.int32, -50, 50), rand((2, 3, 2, 2), np.int32, 1, 7)
    g.case(op, "i32_channels_last", [T(a4, CL), T(b4, CL)], [Out(_int_floordiv(a4, b4).astype(np.int32), order=CL)])
    g.case(op, "err_int_div_zero", [np.array([1, 2], np.int64), np.array([0], np.int64)],
           [Out(dtype=I64, shape=(2,))], error=("InvalidArgument", "division by zero"))
    g.case(op, "err_bool", [np.array([True]), np.array([True])], [Out(dtype=BOOL, shape=(1,))],
           error=("InvalidArgument", "bool"))


def _minmax_atan2_rsub_cases(g):
    e = f32_edges()
    for name, fn in (("maximum", np.maximum), ("minimum", np.minimum)):
        op = "aten::%s.out" % name
        for k, (sa, sb) in enumerate(_shapes()):
            a, b = rand(sa), rand(sb)
            g.case(op, "f32_shape%d" % k, [a, b], [Out(fn(a, b))])
        g.case(op, "f32_edges", [e, e[::-1].copy()], [Out(fn(e, e[::-1]))])  # NaN propagates
        for dt in _INTS:
            ie = int_extremes(dt)
            g.case(op, np.dtype(dt).name, [ie, ie[::-1].copy()], [Out(fn(ie, ie[::-1]))])
        a, b = rand((5,), np.uint8, 0, 255), rand((5,), np.int8, -128, 127)
        g.case(op, "promote_u8_i8", [a, b], [Out(fn(a.astype(np.int16), b.astype(np.int16)))])
        a, b = rand((2, 3), np.int32, -9, 9), rand((3,), np.float64)
        g.case(op, "promote_i32_f64", [a, b], [Out(fn(a.astype(np.float64), b))])
        p, q = np.array([True, True, False, False]), np.array([True, False, True, False])
        g.case(op, "bool", [p, q], [Out(fn(p, q))])
        xh, xb = rand((4,), np.float16), bf16(rand((4,)))
        g.case(op, "f16_bf16_to_f32", [xh, T(xb, dtype=BF16)], [Out(fn(xh.astype(np.float32), xb))])
        xd = rand((3,), np.float64)
        g.case(op, "f64", [xd, xd[::-1].copy()], [Out(fn(xd, xd[::-1]))])
        a4, b4 = rand((2, 3, 2, 2)), rand((2, 3, 2, 2))
        g.case(op, "f32_channels_last", [T(a4, CL), b4], [Out(fn(a4, b4), order=CL)])
        g.case(op, "err_float_into_int", [rand((3,)), rand((3,))], [Out(dtype=I32, shape=(3,))],
               error=("InvalidArgument", "out"))
        g.case(op, "err_broadcast", [rand((2, 3)), rand((4,))], [Out(dtype=F32, shape=(2, 3))],
               error=("InvalidArgument", "broadcast"))

    op = "aten::atan2.out"
    for k, (sa, sb) in enumerate(_shapes()):
        a, b = rand(sa), rand(sb)
        g.case(op, "f32_shape%d" % k, [a, b], [Out(_f32(np.arctan2, a, b))])
    ya = np.array([1, 1, -1, 0, -0.0, np.inf, -np.inf, np.nan, 0, 0], np.float32)
    xa = np.array([1, -1, -1, -1, -1, np.inf, 1, 1, 0, -0.0], np.float32)
    g.case(op, "f32_edges", [ya, xa], [Out(_f32(np.arctan2, ya, xa))])
    yi, xi = rand((3, 1), np.int32, -5, 5), rand((4,), np.int64, -5, 5)
    g.case(op, "int_to_f32", [yi, xi], [Out(_f32(np.arctan2, yi, xi))])
    g.case(op, "bool_u8_to_f32", [np.array([True, False]), np.array([0, 3], np.uint8)],
           [Out(_f32(np.arctan2, [1.0, 0.0], [0.0, 3.0]))])
    yd, xd = rand((4,), np.float64), rand((4,), np.float64)
    g.case(op, "f64", [yd, xd], [Out(np.arctan2(yd, xd))])
    g.case(op, "i32_f64", [yi, xd], [Out(np.arctan2(yi.astype(np.float64), xd))])
    yh, xh = rand((4,), np.float16), rand((4,), np.float16)
    g.case(op, "f16", [yh, xh], [Out(_f32(np.arctan2, yh, xh).astype(np.float16))], tol=(2e-3, 2e-3))
    a4, b4 = rand((2, 3, 2, 2)), rand((2, 3, 2, 2))
    g.case(op, "f32_channels_last", [T(a4, CL), T(b4, CL)], [Out(_f32(np.arctan2, a4, b4), order=CL)])
    g.case(op, "err_int_out", [yi, xi], [Out(dtype=I32, shape=(3, 4))], error=("InvalidArgument", "out"))

    op = "aten::rsub.Scalar_out"
    a = rand((3, 4))
    g.case(op, "f32", [a, 2.0, 1], [Out(_f32(lambda x: 2.0 - x, a))])
    g.case(op, "f32_alpha", [a, 0.5, 2.5], [Out(_f32(lambda x: 0.5 - 2.5 * x, a))])
    g.case(op, "f32_edges", [e, 1, 1], [Out(_f32(lambda x: 1.0 - x, e))])
    for dt in (np.int8, np.int16, np.int32, np.int64):
        x = int_extremes(dt)
        g.case(op, "%s_wrap" % np.dtype(dt).name, [x, 10, 3],
               [Out(_wrap(10 - 3 * x.astype(np.int64), dt) if dt != np.int64 else
                    (np.int64(10) - np.int64(3) * x))])  # int64 wraps too (numpy wraps silently)
    xi = rand((4,), np.int32, -9, 9)
    g.case(op, "i32_double_to_f32", [xi, 0.5, 1], [Out(_f32(lambda x: 0.5 - x, xi))])
    xb = np.array([True, False])
    # ATen rejects a bool self even with an Int other (sub's bool check)
    g.case(op, "err_bool_self_int", [xb, 5, 2], [Out(dtype=I64, shape=(2,))], error=("InvalidArgument", "bool"))
    xd = rand((3,), np.float64)
    g.case(op, "f64", [xd, 1.25, 0.5], [Out(1.25 - 0.5 * xd)])
    xh = rand((4,), np.float16)
    g.case(op, "f16", [xh, 1.0, 0.1], [Out(_f32(lambda x: np.float32(1.0) - np.float32(0.1) * x.astype(np.float32), xh).astype(np.float16))])
    x4 = rand((2, 3, 2, 2))
    g.case(op, "f32_channels_last", [T(x4, CL), 3, 1], [Out(_f32(lambda x: 3.0 - x, x4), order=CL)])
    g.case(op, "empty", [np.zeros((0,), np.float32), 1, 1], [Out(np.zeros((0,), np.float32))])
    g.case(op, "err_bool", [xb, True, 1], [Out(dtype=BOOL, shape=(2,))], error=("InvalidArgument", "bool"))
    g.case(op, "err_float_alpha_int", [xi, 1, 1.5], [Out(dtype=I32, shape=(4,))],
           error=("InvalidArgument", "alpha"))


def cases(g):
    _bitwise_cases(g)
    _logical_cases(g)
    _divmod_cases(g)
    _minmax_atan2_rsub_cases(g)
