"""Oracle cases for operators being added by other helpers (issue 13): unary math (trig,
hyperbolic, rounding, sign, erf/expm1/log1p/log2/log10, reciprocal, isinf/isnan, bitwise_not,
_conj_physical, logit, elu, glu). These fail until those kernels are merged."""
import math

import numpy as np

from oracle import BF16, BOOL, CL, F32, I32, Out, T, rand, f32_edges, int_extremes, bf16

_erf = np.vectorize(math.erf)


def _f32(fn, x):
    with np.errstate(all="ignore"):
        return np.asarray(fn(np.asarray(x, np.float64))).astype(np.float32)


# name -> (fn, domain lo, hi)
_FLOAT = {
    "sin": (np.sin, -4, 4), "cos": (np.cos, -4, 4), "tan": (np.tan, -1.4, 1.4),
    "asin": (np.arcsin, -1, 1), "acos": (np.arccos, -1, 1), "atan": (np.arctan, -5, 5),
    "sinh": (np.sinh, -3, 3), "cosh": (np.cosh, -3, 3), "asinh": (np.arcsinh, -5, 5),
    "acosh": (np.arccosh, 1, 6), "atanh": (np.arctanh, -0.99, 0.99),
    "erf": (_erf, -3, 3), "expm1": (np.expm1, -3, 3), "log1p": (np.log1p, -0.9, 5),
    "log2": (np.log2, 0.01, 50), "log10": (np.log10, 0.01, 50), "reciprocal": (lambda v: 1.0 / v, 0.25, 4),
}


def cases(g):
    e = f32_edges()
    for name, (fn, lo, hi) in _FLOAT.items():
        op = "aten::%s.out" % name
        x = rand((3, 4), lo=lo, hi=hi)
        g.case(op, "f32", [x], [Out(_f32(fn, x))])
        g.case(op, "f32_edges", [e], [Out(_f32(fn, e))])
        x4 = rand((2, 3, 2, 2), lo=lo, hi=hi)
        g.case(op, "f32_channels_last", [T(x4, CL)], [Out(_f32(fn, x4), order=CL)])
        g.case(op, "f32_0d", [np.array((lo + hi) / 3, np.float32)], [Out(_f32(fn, np.array((lo + hi) / 3, np.float32)))])
        g.case(op, "empty", [np.zeros((0, 3), np.float32)], [Out(np.zeros((0, 3), np.float32))])
        xi = rand((5,), np.int32, max(math.ceil(lo), -3), min(math.floor(hi), 3))
        if name == "reciprocal":
            xi = np.array([1, 2, -4, 3, -1], np.int32)
        g.case(op, "i32_to_f32", [xi], [Out(_f32(fn, xi))])
        xd = rand((4,), np.float64, lo, hi)
        g.case(op, "f64", [xd], [Out(np.asarray(fn(xd), np.float64))])
        xh = rand((4,), np.float16, lo, hi)
        g.case(op, "f16", [xh], [Out(_f32(fn, xh).astype(np.float16))], tol=(2e-3, 2e-3))  # half: 1 ulp
        xb = bf16(rand((4,), np.float32, lo, hi))
        g.case(op, "bf16", [T(xb, dtype=BF16)], [Out(_f32(fn, xb), dtype=BF16)], tol=(1e-2, 1e-2))
    g.case("aten::reciprocal.out", "f32_zero", [np.array([0.0, -0.0], np.float32)], [Out(np.array([np.inf, -np.inf], np.float32))])

    # rounding: float keeps dtype, integers are the identity
    for name, fn in (("ceil", np.ceil), ("floor", np.floor), ("round", np.rint), ("trunc", np.trunc)):
        op = "aten::%s.out" % name
        x = np.array([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 2.49, -2.51, 7.0, 1e20], np.float32)
        g.case(op, "f32_halves", [x], [Out(fn(x))])  # round: half to even
        g.case(op, "f32_edges", [e], [Out(fn(e))])
        x4 = rand((2, 2, 2, 3), lo=-9, hi=9)
        g.case(op, "channels_last", [T(x4, CL)], [Out(fn(x4), order=CL)])
        ie = int_extremes(np.int64)
        g.case(op, "i64_identity", [ie], [Out(ie.copy())])
        xd = rand((5,), np.float64, -9, 9)
        g.case(op, "f64", [xd], [Out(fn(xd))])
        xh = (rand((5,), np.float32, -20, 20) * 4).round() / 4
        g.case(op, "f16", [xh.astype(np.float16)], [Out(fn(xh).astype(np.float16))])
    # sign
    xs = np.array([-3.5, -0.0, 0.0, 2.0, np.inf, -np.inf], np.float32)
    g.case("aten::sign.out", "f32", [xs], [Out(np.sign(xs))])
    ii = rand((6,), np.int32, -5, 5)
    g.case("aten::sign.out", "i32", [ii], [Out(np.sign(ii))])
    g.case("aten::sign.out", "bool", [np.array([True, False])], [Out(np.array([True, False]))])
    x4 = rand((1, 2, 2, 2))
    g.case("aten::sign.out", "channels_last", [T(x4, CL)], [Out(np.sign(x4), order=CL)])
    # isinf / isnan -> bool
    for name, fn in (("isinf", np.isinf), ("isnan", np.isnan)):
        op = "aten::%s.out" % name
        g.case(op, "f32_edges", [e], [Out(fn(e))])
        g.case(op, "f64", [e.astype(np.float64)], [Out(fn(e))])
        g.case(op, "f16", [e.astype(np.float16)], [Out(fn(e.astype(np.float16)))])
        g.case(op, "i32", [ii], [Out(np.zeros((6,), np.bool_))])
        g.case(op, "channels_last", [T(x4, CL)], [Out(fn(x4), order=CL)])
        g.case(op, "empty", [np.zeros((0,), np.float32)], [Out(np.zeros((0,), np.bool_))])
    # bitwise_not
    for dt in (np.int8, np.uint8, np.int16, np.int32, np.int64):
        ie = int_extremes(dt) if np.dtype(dt).kind == "i" else np.array([0, 1, 255, 128], dt)
        g.case("aten::bitwise_not.out", np.dtype(dt).name, [ie], [Out(np.invert(ie))])
    g.case("aten::bitwise_not.out", "bool", [np.array([True, False])], [Out(np.array([False, True]))])
    g.case("aten::bitwise_not.out", "err_float", [rand((2,))], [Out(dtype=F32, shape=(2,))], error=("InvalidArgument", "dtype"))
    # _conj_physical on real tensors is a copy
    g.case("aten::_conj_physical.out", "f32", [e], [Out(e.copy())])
    g.case("aten::_conj_physical.out", "i32", [ii], [Out(ii.copy())])
    # logit(x, eps=None)
    xl = rand((6,), lo=0.01, hi=0.99)
    g.case("aten::logit.out", "f32", [xl, None], [Out(_f32(lambda v: np.log(v / (1 - v)), xl))])
    xe = np.array([0.0, 1.0, 0.5, 0.001, 0.999, -1.0], np.float32)
    g.case("aten::logit.out", "f32_eps", [xe, 0.01],
           [Out(_f32(lambda v: np.log(np.clip(v, 0.01, 0.99) / (1 - np.clip(v, 0.01, 0.99))), xe))])
    g.case("aten::logit.out", "f32_edges_no_eps", [np.array([0.0, 1.0, 2.0], np.float32), None],
           [Out(np.array([-np.inf, np.inf, np.nan], np.float32))])
    # elu(x, alpha=1, scale=1, input_scale=1)
    xe2 = rand((3, 4), lo=-3, hi=3)
    for tag, al, sc, isc in (("default", 1.0, 1.0, 1.0), ("params", 0.5, 2.0, 1.5)):
        ref = _f32(lambda v: np.where(v > 0, sc * v, sc * al * (np.exp(v * isc) - 1)), xe2)
        g.case("aten::elu.out", tag, [xe2, al, sc, isc], [Out(ref)])
    g.case("aten::elu.out", "channels_last", [T(x4, CL), 1.0, 1.0, 1.0],
           [Out(_f32(lambda v: np.where(v > 0, v, np.exp(v) - 1), x4), order=CL)])
    # glu(x, dim=-1)
    xg = rand((2, 4, 6))
    for d in (-1, 1, 0):
        a, b = np.split(xg.astype(np.float64), 2, axis=d)
        g.case("aten::glu.out", "dim%d" % d, [xg, d], [Out(_f32(lambda _: a / (1 + np.exp(-b)), xg))])
    g.case("aten::glu.out", "err_odd", [rand((2, 3)), 1], [Out(dtype=F32, shape=(2, 1))], error=("InvalidArgument", "even"))
