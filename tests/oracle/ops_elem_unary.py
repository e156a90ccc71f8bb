"""Oracle cases: floating unary math (trig, hyperbolic, erf, expm1, log1p, log2, log10,
reciprocal, logit), rounding (ceil/floor/round/trunc), sign, isinf/isnan, _conj_physical, elu
and glu. Expected values: numpy in float64 on the input values, rounded to the output dtype, or
the ATen definitions written out here."""
import math

import numpy as np

from oracle import BF16, BOOL, CL, F32, I32, Out, T, rand, f32_edges, int_extremes, bf16

_erf = np.vectorize(math.erf, otypes=[np.float64])


def _f32(fn, x):
    """fn evaluated in float64 on the (float32-representable) values of x, rounded to float32."""
    return np.asarray(fn(np.asarray(x, np.float64))).astype(np.float32)


# name -> (function in float64, (lo, hi) of a domain for random inputs)
_MATH = {
    "acos": (np.arccos, (-1, 1)),
    "acosh": (np.arccosh, (1, 6)),
    "asin": (np.arcsin, (-1, 1)),
    "asinh": (np.arcsinh, (-5, 5)),
    "atan": (np.arctan, (-5, 5)),
    "atanh": (np.arctanh, (-0.99, 0.99)),
    "cos": (np.cos, (-6, 6)),
    "cosh": (np.cosh, (-5, 5)),
    "sin": (np.sin, (-6, 6)),
    "sinh": (np.sinh, (-5, 5)),
    "tan": (np.tan, (-1.5, 1.5)),
    "erf": (_erf, (-3, 3)),
    "expm1": (np.expm1, (-3, 3)),
    "log1p": (np.log1p, (-0.9, 5)),
    "log2": (np.log2, (0.01, 50)),
    "log10": (np.log10, (0.01, 50)),
    "reciprocal": (lambda x: 1.0 / x, (0.1, 5)),
}


def _logit(x, eps=None):
    x = np.asarray(x, np.float64)
    if eps is not None and eps >= 0:
        x = np.where(x < eps, eps, np.where(x > 1 - eps, 1 - eps, x))  # NaN stays NaN
    return np.log(x / (1.0 - x))


def _math_cases(g):
    e = f32_edges()
    for name, (fn, (lo, hi)) in _MATH.items():
        op = "aten::%s.out" % name
        x = rand((3, 4), lo=lo, hi=hi)
        g.case(op, "f32", [x], [Out(_f32(fn, x))])
        g.case(op, "f32_edges", [e], [Out(_f32(fn, e))])
        x4 = rand((2, 3, 2, 2), lo=lo, hi=hi)
        g.case(op, "f32_channels_last", [T(x4, CL)], [Out(_f32(fn, x4), order=CL)])
        g.case(op, "f32_in_cl_out_contig", [T(x4, CL)], [Out(_f32(fn, x4))])
        x0 = np.array((lo + hi) / 2.0 + 0.125, np.float32)
        g.case(op, "f32_0d", [x0], [Out(_f32(fn, x0))])
        g.case(op, "empty", [np.zeros((2, 0, 3), np.float32)], [Out(np.zeros((2, 0, 3), np.float32))])
        for dt in (np.int32, np.int64, np.int8, np.uint8, np.int16):
            xi = rand((5,), dt, max(math.ceil(lo), 0 if dt == np.uint8 else -100), math.floor(hi))
            g.case(op, "%s_to_f32" % np.dtype(dt).name, [xi], [Out(_f32(fn, xi))])
        xb = np.array([True, False, True])
        g.case(op, "bool_to_f32", [xb], [Out(_f32(fn, xb.astype(np.float64)))])
        xi = rand((4,), np.int32, max(math.ceil(lo), -100), math.floor(hi))
        g.case(op, "i32_to_f64_out", [xi], [Out(_f32(fn, xi).astype(np.float64))])
        xd = rand((2, 3), np.float64, lo, hi)
        g.case(op, "f64", [xd], [Out(fn(xd))])
        xh = rand((5,), np.float16, lo, hi)
        g.case(op, "f16", [xh], [Out(np.asarray(fn(xh.astype(np.float64))).astype(np.float16))],
               tol=(2e-3, 2e-3))  # half: one ulp of the output
        xbf = bf16(rand((5,), np.float32, lo, hi))
        g.case(op, "bf16", [T(xbf, dtype=BF16)],
               [Out(np.asarray(fn(xbf.astype(np.float64))).astype(np.float32), dtype=BF16)],
               tol=(1e-2, 1e-2))  # bfloat16 keeps 8 significant bits
        g.case(op, "err_int_out", [x], [Out(dtype=I32, shape=(3, 4))], error=("InvalidArgument", "out"))
    # expm1 / log1p keep their accuracy near zero (exp(x) - 1 would not)
    tiny = np.array([1e-10, -1e-10, 1e-300, 0.0], np.float64)
    g.case("aten::expm1.out", "f64_tiny", [tiny], [Out(np.expm1(tiny))], tol=(1e-15, 0.0))
    g.case("aten::log1p.out", "f64_tiny", [tiny], [Out(np.log1p(tiny))], tol=(1e-15, 0.0))
    # logit
    x = rand((3, 4), lo=0.01, hi=0.99)
    g.case("aten::logit.out", "f32_no_eps", [x, None], [Out(_f32(_logit, x))])
    xe = np.array([0.0, 1.0, 0.5, 0.05, 0.97, np.nan, -1.0, 2.0], np.float32)
    g.case("aten::logit.out", "f32_edges_no_eps", [xe, None], [Out(_f32(_logit, xe))])
    eps32 = float(np.float32(0.1))  # ATen clamps with eps in float32 for a float32 input
    g.case("aten::logit.out", "f32_eps", [xe, 0.1], [Out(_f32(lambda v: _logit(v, eps32), xe))])
    g.case("aten::logit.out", "f32_neg_eps", [xe, -1.0], [Out(_f32(_logit, xe))])
    xd = rand((5,), np.float64, lo=-0.5, hi=1.5)
    g.case("aten::logit.out", "f64_eps", [xd, 0.25], [Out(_logit(xd, 0.25))])
    xi = np.array([0, 1, 2], np.int32)
    g.case("aten::logit.out", "i32_to_f32", [xi, None], [Out(_f32(_logit, xi))])
    x4 = rand((1, 2, 2, 3), lo=0.01, hi=0.99)
    g.case("aten::logit.out", "f32_channels_last", [T(x4, CL), 0.2],
           [Out(_f32(lambda v: _logit(v, float(np.float32(0.2))), x4), order=CL)])
    xh = rand((4,), np.float16, 0.05, 0.95)
    g.case("aten::logit.out", "f16", [xh, None], [Out(_logit(xh.astype(np.float64)).astype(np.float16))],
           tol=(2e-3, 2e-3))


def _rounding_cases(g):
    ties = np.array([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 2.7, -2.7, np.nan, np.inf, -np.inf, -0.0,
                     8388609.0, 1e30], np.float32)
    for name, fn in (("ceil", np.ceil), ("floor", np.floor), ("round", np.round), ("trunc", np.trunc)):
        op = "aten::%s.out" % name
        x = rand((3, 5), lo=-10, hi=10)
        g.case(op, "f32", [x], [Out(fn(x))])
        g.case(op, "f32_ties_edges", [ties], [Out(fn(ties))])
        x4 = rand((2, 2, 3, 2), lo=-5, hi=5)
        g.case(op, "f32_channels_last", [T(x4, CL)], [Out(fn(x4), order=CL)])
        xd = np.array([0.49999999999999994, 4503599627370497.0, -2.5, 3.5, -1e-300], np.float64)
        g.case(op, "f64_edges", [xd], [Out(fn(xd))])
        xh = np.array([-2.5, 0.5, 1.5, 2.75, -0.25, 65504.0], np.float16)
        g.case(op, "f16", [xh], [Out(fn(xh))])
        xb = bf16(np.array([-2.5, 0.5, 1.5, 3.75, -7.25], np.float32))
        g.case(op, "bf16", [T(xb, dtype=BF16)], [Out(fn(xb), dtype=BF16)])
        for dt in (np.int8, np.uint8, np.int16, np.int32, np.int64):
            ie = int_extremes(dt)
            g.case(op, "%s_passthrough" % np.dtype(dt).name, [ie], [Out(ie)])
        g.case(op, "empty", [np.zeros((0,), np.float32)], [Out(np.zeros((0,), np.float32))])
        g.case(op, "f32_0d", [np.array(-3.5, np.float32)], [Out(fn(np.array(-3.5, np.float32)))])
        g.case(op, "err_bool", [np.array([True, False])], [Out(dtype=BOOL, shape=(2,))],
               error=("InvalidArgument", "dtype"))
        g.case(op, "err_float_to_int_out", [x], [Out(dtype=I32, shape=(3, 5))],
               error=("InvalidArgument", "out"))


def _sign_pred_conj_cases(g):
    e = f32_edges()
    op = "aten::sign.out"
    x = rand((3, 4))
    g.case(op, "f32", [x], [Out(np.sign(x))])
    g.case(op, "f32_edges", [e], [Out(np.sign(e))])  # NaN stays NaN, zeros give 0
    for dt in (np.int8, np.uint8, np.int16, np.int32, np.int64):
        ie = int_extremes(dt)
        g.case(op, "%s" % np.dtype(dt).name, [ie], [Out(np.sign(ie).astype(dt))])
    xb = np.array([True, False, True])
    g.case(op, "bool", [xb], [Out(xb)])
    xd = rand((4,), np.float64)
    g.case(op, "f64", [xd], [Out(np.sign(xd))])
    xh = np.array([-0.001, 0.0, 65504.0, np.nan], np.float16)
    g.case(op, "f16", [xh], [Out(np.sign(xh))])
    x4 = rand((2, 3, 2, 2))
    g.case(op, "f32_channels_last", [T(x4, CL)], [Out(np.sign(x4), order=CL)])
    g.case(op, "empty", [np.zeros((0, 2), np.int32)], [Out(np.zeros((0, 2), np.int32))])

    for name, fn in (("isinf", np.isinf), ("isnan", np.isnan)):
        op = "aten::%s.out" % name
        g.case(op, "f32_edges", [e], [Out(fn(e))])
        g.case(op, "f64", [np.array([1e300, np.inf, np.nan, -np.inf], np.float64)],
               [Out(fn(np.array([1e300, np.inf, np.nan, -np.inf])))])
        xh = np.array([65504.0, -np.inf, np.nan, 0.0], np.float16)
        g.case(op, "f16", [xh], [Out(fn(xh))])
        xbf = np.array([1e38, np.inf, np.nan, -np.inf], np.float32)
        g.case(op, "bf16", [T(xbf, dtype=BF16)], [Out(fn(xbf))])
        for dt in (np.int32, np.int64, np.uint8):
            ie = int_extremes(dt)
            g.case(op, np.dtype(dt).name, [ie], [Out(np.zeros(ie.shape, np.bool_))])
        g.case(op, "bool", [np.array([True, False])], [Out(np.array([False, False]))])
        x4 = np.where(rand((1, 2, 2, 3)) > 0, np.float32(np.nan), np.float32(np.inf)).astype(np.float32)
        x4[0, 0, 0, 0] = 1.0
        g.case(op, "f32_channels_last", [T(x4, CL)], [Out(fn(x4), order=CL)])
        g.case(op, "empty", [np.zeros((3, 0), np.float32)], [Out(np.zeros((3, 0), np.bool_))])
        g.case(op, "err_out_not_bool", [e], [Out(dtype=F32, shape=e.shape)],
               error=("InvalidArgument", "bool"))

    op = "aten::_conj_physical.out"
    g.case(op, "f32_edges", [e], [Out(e)])
    for dt in (np.int8, np.uint8, np.int16, np.int32, np.int64):
        ie = int_extremes(dt)
        g.case(op, np.dtype(dt).name, [ie], [Out(ie)])
    g.case(op, "bool", [np.array([True, False])], [Out(np.array([True, False]))])
    xd = rand((2, 2), np.float64)
    g.case(op, "f64", [xd], [Out(xd)])
    xh = rand((3,), np.float16)
    g.case(op, "f16", [xh], [Out(xh)])
    x4 = rand((2, 3, 2, 2))
    g.case(op, "f32_channels_last", [T(x4, CL)], [Out(x4, order=CL)])
    g.case(op, "empty", [np.zeros((0,), np.float32)], [Out(np.zeros((0,), np.float32))])


def _elu(x, alpha, scale, input_scale):
    x = np.asarray(x, np.float64)
    return np.where(x > 0, x * scale, np.expm1(x * input_scale) * alpha * scale)


def _glu(x, dim):
    a, b = np.split(np.asarray(x, np.float64), 2, axis=dim)
    return a / (1.0 + np.exp(-b))


def _act_cases(g):
    e = f32_edges()
    op = "aten::elu.out"
    x = rand((3, 4), lo=-4, hi=4)
    g.case(op, "f32_default", [x, 1, 1, 1], [Out(_elu(x, 1, 1, 1).astype(np.float32))])
    g.case(op, "f32_coefs", [x, 2.0, 1.5, 0.5], [Out(_elu(x, 2.0, 1.5, 0.5).astype(np.float32))])
    g.case(op, "f32_edges", [e, 1.0, 1.0, 1.0], [Out(_elu(e, 1, 1, 1).astype(np.float32))])
    x4 = rand((2, 3, 2, 2), lo=-3, hi=3)
    g.case(op, "f32_channels_last", [T(x4, CL), 0.5, 1, 2],
           [Out(_elu(x4, 0.5, 1, 2).astype(np.float32), order=CL)])
    xd = rand((5,), np.float64, -3, 3)
    g.case(op, "f64", [xd, 1.25, 0.75, 1.5], [Out(_elu(xd, 1.25, 0.75, 1.5))])
    xh = rand((5,), np.float16, -3, 3)
    g.case(op, "f16", [xh, 1, 1, 1], [Out(_elu(xh, 1, 1, 1).astype(np.float16))], tol=(2e-3, 2e-3))
    xbf = bf16(rand((5,), np.float32, -3, 3))
    g.case(op, "bf16", [T(xbf, dtype=BF16), 1, 1, 1], [Out(_elu(xbf, 1, 1, 1).astype(np.float32), dtype=BF16)],
           tol=(1e-2, 1e-2))
    g.case(op, "empty", [np.zeros((0, 4), np.float32), 1, 1, 1], [Out(np.zeros((0, 4), np.float32))])
    g.case(op, "err_int_self", [np.array([1, -2], np.int32), 1, 1, 1], [Out(dtype=I32, shape=(2,))],
           error=("InvalidArgument", "elu"))

    op = "aten::glu.out"
    x = rand((4, 6), lo=-4, hi=4)
    g.case(op, "f32_last", [x, -1], [Out(_glu(x, 1).astype(np.float32))])
    g.case(op, "f32_dim0", [x, 0], [Out(_glu(x, 0).astype(np.float32))])
    x3 = rand((2, 4, 3), lo=-4, hi=4)
    g.case(op, "f32_mid", [x3, 1], [Out(_glu(x3, 1).astype(np.float32))])
    x4 = rand((2, 4, 2, 3), lo=-3, hi=3)
    g.case(op, "f32_channels_last_dim1", [T(x4, CL), 1], [Out(_glu(x4, 1).astype(np.float32), order=CL)])
    g.case(op, "f32_channels_last_dim2", [T(x4, CL), 2], [Out(_glu(x4, 2).astype(np.float32), order=CL)])
    xd = rand((2, 8), np.float64)
    g.case(op, "f64", [xd, 1], [Out(_glu(xd, 1))])
    g.case(op, "f32_to_f64_out", [x, 1], [Out(_glu(x, 1))], tol=(1e-6, 1e-7))  # float32 compute
    xh = rand((2, 4), np.float16)
    g.case(op, "f16", [xh, 1], [Out(_glu(xh, 1).astype(np.float16))], tol=(2e-3, 2e-3))
    g.case(op, "empty", [np.zeros((0, 4), np.float32), 1], [Out(np.zeros((0, 2), np.float32))])
    g.case(op, "err_odd", [rand((2, 3)), 1], [Out(dtype=F32, shape=(2, 1))],
           error=("InvalidArgument", "even"))
    g.case(op, "err_dim", [rand((2, 4)), 2], [Out(dtype=F32, shape=(2, 2))],
           error=("InvalidArgument", "dim"))
    g.case(op, "err_int_self", [np.array([[1, 2]], np.int32), 1], [Out(dtype=F32, shape=(1, 1))],
           error=("InvalidArgument", "self"))


def cases(g):
    _math_cases(g)
    _rounding_cases(g)
    _sign_pred_conj_cases(g)
    _act_cases(g)
