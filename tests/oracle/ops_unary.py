"""Oracle cases: existing unary math and activation operators."""
import math

import numpy as np

from oracle import BF16, CL, F32, Out, T, rand, f32_edges, int_extremes, bf16

_erf = np.vectorize(math.erf)


def _f32(fn, x):
    """fn evaluated in float64 on float32 values, rounded to float32."""
    return np.asarray(fn(np.asarray(x, np.float64))).astype(np.float32)


def _sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


_FLOAT_UNARY = {
    "exp": np.exp, "log": np.log, "sqrt": np.sqrt, "rsqrt": lambda x: 1.0 / np.sqrt(x),
    "sigmoid": _sigmoid, "tanh": np.tanh,
}


def cases(g):
    e = f32_edges()
    for name, fn in _FLOAT_UNARY.items():
        op = "aten::%s.out" % name
        pos = name in ("log", "sqrt", "rsqrt")
        x = rand((3, 4), lo=0.05 if pos else -4, hi=4)
        g.case(op, "f32", [x], [Out(_f32(fn, x))])
        g.case(op, "f32_edges", [e], [Out(_f32(fn, e))])
        x4 = rand((2, 3, 2, 2), lo=0.05 if pos else -3, hi=3)
        g.case(op, "f32_channels_last", [T(x4, CL)], [Out(_f32(fn, x4), order=CL)])
        g.case(op, "f32_0d", [np.array(0.75, np.float32)], [Out(_f32(fn, np.array(0.75, np.float32)))])
        g.case(op, "empty", [np.zeros((2, 0), np.float32)], [Out(np.zeros((2, 0), np.float32))])
        xi = rand((5,), np.int32, 1 if pos else -5, 6)
        g.case(op, "i32_to_f32", [xi], [Out(_f32(fn, xi))])
        g.case(op, "bool_to_f32", [np.array([True, False])], [Out(_f32(fn, np.array([1.0, 0.0])))])
        xd = rand((4,), np.float64, 0.1 if pos else -3, 3)
        g.case(op, "f64", [xd], [Out(fn(xd))])
        xh = rand((4,), np.float16, 0.1 if pos else -3, 3)
        g.case(op, "f16", [xh], [Out(fn(xh.astype(np.float64)).astype(np.float16))],
               tol=(2e-3, 2e-3))  # half: one ulp of the output
        xb = bf16(rand((4,), np.float32, 0.1 if pos else -3, 3))
        g.case(op, "bf16", [T(xb, dtype=BF16)], [Out(fn(xb.astype(np.float64)).astype(np.float32), dtype=BF16)],
               tol=(1e-2, 1e-2))  # bfloat16 has 8 significant bits

    # abs / neg keep the dtype
    for name, fn in (("abs", np.abs), ("neg", np.negative)):
        op = "aten::%s.out" % name
        x = rand((3, 4))
        g.case(op, "f32", [x], [Out(fn(x))])
        g.case(op, "f32_edges", [e], [Out(fn(e))])
        for dt in (np.int8, np.int16, np.int32, np.int64):
            ie = int_extremes(dt)
            g.case(op, "%s_extremes" % np.dtype(dt).name, [ie], [Out(fn(ie))])  # INT_MIN wraps
        xh = rand((5,), np.float16)
        g.case(op, "f16", [xh], [Out(fn(xh))])
        g.case(op, "channels_last", [T(rand((1, 2, 2, 3)) * 0 + np.arange(12, dtype=np.float32).reshape(1, 2, 2, 3) - 6, CL)],
               [Out(fn(np.arange(12, dtype=np.float32).reshape(1, 2, 2, 3) - 6), order=CL)])
        g.case(op, "empty", [np.zeros((0,), np.int32)], [Out(np.zeros((0,), np.int32))])
    g.case("aten::abs.out", "u8", [np.array([0, 7, 255], np.uint8)], [Out(np.array([0, 7, 255], np.uint8))])

    # activations
    x = rand((4, 5), lo=-4, hi=4)
    x4 = rand((2, 3, 2, 2), lo=-4, hi=4)
    g.case("aten::relu.out", "f32", [x], [Out(np.maximum(x, 0))])
    g.case("aten::relu.out", "f32_edges", [e], [Out(np.where(np.isnan(e), e, np.maximum(e, 0)))])
    xi = rand((6,), np.int32, -9, 9)
    g.case("aten::relu.out", "i32", [xi], [Out(np.maximum(xi, 0))])
    g.case("aten::relu.out", "channels_last", [T(x4, CL)], [Out(np.maximum(x4, 0), order=CL)])
    g.case("aten::relu.out", "empty", [np.zeros((0, 3), np.float32)], [Out(np.zeros((0, 3), np.float32))])
    for approx in ("none", "tanh"):
        from oracle import Str
        if approx == "none":
            fn = lambda v: 0.5 * v * (1.0 + _erf(v / math.sqrt(2.0)))  # noqa: E731
        else:
            fn = lambda v: 0.5 * v * (1.0 + np.tanh(math.sqrt(2.0 / math.pi) * (v + 0.044715 * v ** 3)))  # noqa: E731
        g.case("aten::gelu.out", "f32_" + approx, [x, Str(approx)], [Out(_f32(fn, x))])
        g.case("aten::gelu.out", "f32_cl_" + approx, [T(x4, CL), Str(approx)], [Out(_f32(fn, x4), order=CL)])
        ee = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0], np.float32)
        # ATen evaluates the formula as written: gelu(-inf) = -inf * 0 = NaN
        g.case("aten::gelu.out", "f32_edges_" + approx, [ee, Str(approx)], [Out(_f32(fn, ee))])
        xd = rand((5,), np.float64)
        g.case("aten::gelu.out", "f64_" + approx, [xd, Str(approx)], [Out(fn(xd))])
    g.case("aten::gelu.out", "err_bad_approximate", [x, Str("fast")], [Out(dtype=F32, shape=(4, 5))],
           error=("InvalidArgument", "approximate"))
    g.case("aten::hardtanh.out", "f32", [x, -1.0, 2.0], [Out(np.clip(x, -1, 2).astype(np.float32))])
    g.case("aten::hardtanh.out", "f32_int_bounds", [x, 0, 1], [Out(np.clip(x, 0, 1).astype(np.float32))])
    g.case("aten::hardtanh.out", "i32", [xi, -3, 4], [Out(np.clip(xi, -3, 4))])
    g.case("aten::hardtanh.out", "channels_last", [T(x4, CL), -1.0, 1.0], [Out(np.clip(x4, -1, 1).astype(np.float32), order=CL)])
    g.case("aten::leaky_relu.out", "f32", [x, 0.1], [Out(_f32(lambda v: np.where(v > 0, v, v * 0.1), x))])
    g.case("aten::leaky_relu.out", "f32_default", [x, 0.01], [Out(_f32(lambda v: np.where(v > 0, v, v * 0.01), x))])
    g.case("aten::leaky_relu.out", "f32_edges", [e, 0.5], [Out(_f32(lambda v: np.where(v > 0, v, v * 0.5), e))])
    g.case("aten::leaky_relu.out", "channels_last", [T(x4, CL), 0.2],
           [Out(_f32(lambda v: np.where(v > 0, v, v * 0.2), x4), order=CL)])
    g.case("aten::silu.out", "f32", [x], [Out(_f32(lambda v: v * _sigmoid(v), x))])
    g.case("aten::silu.out", "channels_last", [T(x4, CL)], [Out(_f32(lambda v: v * _sigmoid(v), x4), order=CL)])
    g.case("aten::silu.out", "f32_edges", [np.array([np.nan, np.inf, -np.inf, 0.0], np.float32)],
           [Out(np.array([np.nan, np.inf, np.nan, 0.0], np.float32))])  # ATen: x * sigmoid(x), -inf * 0
    g.case("aten::sigmoid.out", "err_out_int", [x], [Out(dtype=3, shape=(4, 5))], error=("InvalidArgument", "cannot be cast to out"))
