"""Oracle cases: arange, full, full_like, scalar_tensor, fill.Scalar."""
import math

import numpy as np

from oracle import CL, F32, I64, Out, T, rand


def _arange(start, end, step, dt):
    n = max(0, int(math.ceil((end - start) / step)))
    return np.array([start + i * step for i in range(n)], dtype=np.float64).astype(dt)


def cases(g):
    g.case("aten::arange.out", "i64", [5], [Out(np.arange(5, dtype=np.int64))])
    g.case("aten::arange.out", "f32", [5], [Out(np.arange(5, dtype=np.float32))])
    g.case("aten::arange.out", "f32_frac_end", [2.5], [Out(np.arange(3, dtype=np.float32))])
    g.case("aten::arange.out", "zero", [0], [Out(np.zeros((0,), np.int64))])
    g.case("aten::arange.out", "i32", [7], [Out(np.arange(7, dtype=np.int32))])
    g.case("aten::arange.out", "err_negative_end", [-3], [Out(dtype=I64, shape=(0,))], error=("InvalidArgument", "step sign"))
    g.case("aten::arange.start_out", "i64_step", [2, 11, 3], [Out(_arange(2, 11, 3, np.int64))])
    g.case("aten::arange.start_out", "i64_neg_step", [5, -3, -2], [Out(_arange(5, -3, -2, np.int64))])
    g.case("aten::arange.start_out", "f32_frac", [-1.0, 1.0, 0.25], [Out(_arange(-1.0, 1.0, 0.25, np.float32))])
    g.case("aten::arange.start_out", "f32_third", [0.0, 1.0, 0.3], [Out(_arange(0.0, 1.0, 0.3, np.float32))])
    g.case("aten::arange.start_out", "f64", [1.5, 4.0, 0.5], [Out(_arange(1.5, 4.0, 0.5, np.float64))])
    g.case("aten::arange.start_out", "empty", [3, 3, 1], [Out(np.zeros((0,), np.int64))])
    g.case("aten::arange.start_out", "err_step0", [0, 5, 0], [Out(dtype=I64, shape=(5,))], error=("InvalidArgument", "step"))
    g.case("aten::arange.start_out", "err_wrong_sign", [0, 5, -1], [Out(dtype=I64, shape=(0,))], error=("InvalidArgument", "step sign"))

    g.case("aten::full.out", "f32", [[2, 3], 1.5], [Out(np.full((2, 3), 1.5, np.float32))])
    g.case("aten::full.out", "i64_int", [[4], -7], [Out(np.full((4,), -7, np.int64))])
    g.case("aten::full.out", "i32_from_float_truncates", [[2], 2.75], [Out(np.full((2,), 2, np.int32))])
    g.case("aten::full.out", "bool", [[3], True], [Out(np.full((3,), True))])
    g.case("aten::full.out", "0d", [[], 3.0], [Out(np.array(3.0, np.float32))])
    g.case("aten::full.out", "empty", [[0, 2], 1.0], [Out(np.zeros((0, 2), np.float32))])
    g.case("aten::full.out", "nan", [[2], float("nan")], [Out(np.full((2,), np.nan, np.float32))])
    g.case("aten::full.out", "f16", [[2], 0.5], [Out(np.full((2,), 0.5, np.float16))])
    x = rand((2, 3))
    g.case("aten::full_like.out", "f32", [x, -2.0, None], [Out(np.full((2, 3), -2.0, np.float32))])
    g.case("aten::full_like.out", "i32_like_f32_out", [x, 4, None], [Out(np.full((2, 3), 4, np.int32))])
    x4 = rand((1, 2, 2, 2))
    g.case("aten::full_like.out", "channels_last", [T(x4, CL), 1.0, None], [Out(np.ones((1, 2, 2, 2), np.float32), order=CL)])
    g.case("aten::scalar_tensor.out", "f32", [2.5], [Out(np.array(2.5, np.float32))])
    g.case("aten::scalar_tensor.out", "i64", [-9], [Out(np.array(-9, np.int64))])
    g.case("aten::scalar_tensor.out", "bool", [True], [Out(np.array(True))])
    g.case("aten::scalar_tensor.out", "f64_inf", [float("inf")], [Out(np.array(np.inf, np.float64))])
    g.case("aten::fill.Scalar_out", "f32", [x, 0.75], [Out(np.full((2, 3), 0.75, np.float32))])
    g.case("aten::fill.Scalar_out", "i32", [(x * 3).astype(np.int32), -1], [Out(np.full((2, 3), -1, np.int32))])
    g.case("aten::fill.Scalar_out", "0d", [np.array(1.0, np.float32), 5], [Out(np.array(5.0, np.float32))])
    g.case("aten::fill.Scalar_out", "channels_last", [T(x4, CL), 2.0], [Out(np.full((1, 2, 2, 2), 2.0, np.float32), order=CL)])
