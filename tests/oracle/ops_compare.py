"""Oracle cases: comparisons, where, masked_fill, clamp, logical_not."""
import numpy as np

from oracle import BOOL, CL, F32, Out, T, rand, f32_edges, int_extremes

_CMP = {"eq": np.equal, "ne": np.not_equal, "lt": np.less, "le": np.less_equal,
        "gt": np.greater, "ge": np.greater_equal}


def cases(g):
    for name, fn in _CMP.items():
        op_t, op_s = "aten::%s.Tensor_out" % name, "aten::%s.Scalar_out" % name
        # mostly-equal values so eq/ne are exercised
        a = rand((3, 4), np.int32, -2, 2).astype(np.float32)
        b = rand((4,), np.int32, -2, 2).astype(np.float32)
        g.case(op_t, "f32_bcast", [a, b], [Out(fn(a, b))])
        e = f32_edges()
        g.case(op_t, "f32_edges", [e, e[::-1].copy()], [Out(fn(e, e[::-1]))])
        ia, ib = int_extremes(np.int64), int_extremes(np.int64)[::-1].copy()
        g.case(op_t, "i64_extremes", [ia, ib], [Out(fn(ia, ib))])
        ia, fb = rand((2, 3), np.int32, -3, 3), rand((2, 3), lo=-3, hi=3)
        g.case(op_t, "promote_i32_f32", [ia, fb], [Out(fn(ia.astype(np.float32), fb))])
        u, i8 = np.array([0, 200, 5], np.uint8), np.array([0, -56, 5], np.int8)
        g.case(op_t, "promote_u8_i8", [u, i8], [Out(fn(u.astype(np.int16), i8.astype(np.int16)))])
        x = rand((2, 2, 2, 3), np.int32, -2, 2)
        y = rand((2, 2, 2, 3), np.int32, -2, 2)
        g.case(op_t, "i32_channels_last", [T(x, CL), T(y, CL)], [Out(fn(x, y), order=CL)])
        g.case(op_t, "empty", [np.zeros((0,), np.float32), np.zeros((1,), np.float32)],
               [Out(np.zeros((0,), np.bool_))])
        g.case(op_t, "bool", [np.array([True, False, True, False]), np.array([True, True, False, False])],
               [Out(fn(np.array([1, 0, 1, 0]), np.array([1, 1, 0, 0])))])
        g.case(op_t, "scalar_0d", [np.array(1.5, np.float32), np.array([1.0, 1.5, 2.0], np.float32)],
               [Out(fn(np.float32(1.5), np.array([1.0, 1.5, 2.0], np.float32)))])
        g.case(op_t, "err_broadcast", [rand((3,)), rand((2,))], [Out(dtype=BOOL, shape=(3,))],
               error=("InvalidArgument", "broadcast"))
        g.case(op_s, "f32", [a, 1.0], [Out(fn(a, np.float32(1.0)))])
        g.case(op_s, "f32_nan_scalar", [a, float("nan")], [Out(fn(a, np.float32(np.nan)))])
        ia = rand((5,), np.int32, -2, 2)
        g.case(op_s, "i32_int", [ia, 0], [Out(fn(ia, 0))])
        ib = rand((6,), np.int32, -3, 3)
        g.case(op_s, "i32_float_scalar", [ib, 0.5], [Out(fn(ib.astype(np.float64), 0.5))])
        g.case(op_s, "f32_out_float", [a, 0.0], [Out(fn(a, np.float32(0)).astype(np.float32))])

    # where
    c = rand((3, 1), np.bool_)
    x, y = rand((3, 4)), rand((4,))
    g.case("aten::where.self_out", "f32_bcast", [c, x, y], [Out(np.where(c, x, y))])
    xi, yi = rand((2, 3), np.int32, -9, 9), rand((2, 3), np.int64, -9, 9)
    c2 = rand((2, 3), np.bool_)
    g.case("aten::where.self_out", "promote_i32_i64", [c2, xi, yi], [Out(np.where(c2, xi.astype(np.int64), yi))])
    xf = rand((2, 3))
    g.case("aten::where.self_out", "promote_i32_f32", [c2, xi, xf], [Out(np.where(c2, xi.astype(np.float32), xf))])
    c4 = rand((2, 3, 2, 2), np.bool_)
    x4, y4 = rand((2, 3, 2, 2)), rand((2, 3, 2, 2))
    g.case("aten::where.self_out", "channels_last", [T(c4, CL), T(x4, CL), T(y4, CL)],
           [Out(np.where(c4, x4, y4), order=CL)])
    g.case("aten::where.self_out", "empty", [np.zeros((0, 2), np.bool_), np.zeros((0, 2), np.float32),
                                             np.zeros((1, 2), np.float32)], [Out(np.zeros((0, 2), np.float32))])
    g.case("aten::where.self_out", "err_broadcast", [rand((3,), np.bool_), rand((2,)), rand((3,))],
           [Out(dtype=F32, shape=(3,))], error=("InvalidArgument", "broadcast"))

    # masked_fill
    m = rand((3, 4), np.bool_)
    g.case("aten::masked_fill.Scalar_out", "f32", [x, m, -7.5], [Out(np.where(m, np.float32(-7.5), x))])
    m1 = rand((4,), np.bool_)
    g.case("aten::masked_fill.Scalar_out", "f32_bcast_mask", [x, m1, 2.0], [Out(np.where(m1, np.float32(2.0), x))])
    g.case("aten::masked_fill.Scalar_out", "i64", [xi.astype(np.int64), c2, 100],
           [Out(np.where(c2, 100, xi.astype(np.int64)))])
    g.case("aten::masked_fill.Scalar_out", "f32_nan", [x, m, float("nan")], [Out(np.where(m, np.float32(np.nan), x))])

    # clamp
    e = f32_edges()
    g.case("aten::clamp.out", "f32_both", [x, -1.0, 1.5], [Out(np.clip(x, -1.0, 1.5).astype(np.float32))])
    g.case("aten::clamp.out", "f32_min_only", [x, 0.25, None], [Out(np.maximum(x, np.float32(0.25)))])
    g.case("aten::clamp.out", "f32_max_only", [x, None, 0.25], [Out(np.minimum(x, np.float32(0.25)))])
    # NaN propagates; min > max gives max (ATen: min(max(x, lo), hi))
    g.case("aten::clamp.out", "f32_edges", [e, -2.0, 2.0], [Out(np.minimum(np.maximum(e, -2), 2).astype(np.float32))])
    g.case("aten::clamp.out", "f32_min_gt_max", [x, 2.0, 1.0], [Out(np.full_like(x, 1.0))])
    ii = rand((7,), np.int32, -100, 100)
    g.case("aten::clamp.out", "i32", [ii, -10, 20], [Out(np.clip(ii, -10, 20))])
    u8 = rand((7,), np.uint8, 0, 255)
    g.case("aten::clamp.out", "u8", [u8, 10, 200], [Out(np.clip(u8, 10, 200).astype(np.uint8))])
    g.case("aten::clamp.out", "channels_last", [T(x4, CL), -0.5, 0.5],
           [Out(np.clip(x4, -0.5, 0.5).astype(np.float32), order=CL)])
    lo, hi = rand((4,), lo=-2, hi=0), rand((3, 1), lo=0, hi=2)
    g.case("aten::clamp.Tensor_out", "f32_bcast", [x, lo, hi], [Out(np.minimum(np.maximum(x, lo), hi))])
    g.case("aten::clamp.Tensor_out", "f32_min_none", [x, None, hi], [Out(np.minimum(x, hi))])
    g.case("aten::clamp.Tensor_out", "f32_max_none", [x, lo, None], [Out(np.maximum(x, lo))])
    li, hi_ = rand((7,), np.int32, -50, 0), rand((7,), np.int32, 0, 50)
    g.case("aten::clamp.Tensor_out", "i32", [ii, li, hi_], [Out(np.minimum(np.maximum(ii, li), hi_))])

    # logical_not
    g.case("aten::logical_not.out", "f32_edges", [e], [Out(e == 0)])
    g.case("aten::logical_not.out", "i32", [ii], [Out(ii == 0)])
    bb = rand((2, 3), np.bool_)
    g.case("aten::logical_not.out", "bool", [bb], [Out(~bb)])
    g.case("aten::logical_not.out", "bool_to_f32", [bb], [Out((~bb).astype(np.float32))])
    g.case("aten::logical_not.out", "empty", [np.zeros((0,), np.float32)], [Out(np.zeros((0,), np.bool_))])
