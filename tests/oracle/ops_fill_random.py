"""Oracle cases: empty, ones, zeros, fill.Tensor, rand, randn, native_dropout.

rand / randn / a p in (0, 1) dropout draw random numbers: values cannot be compared with an
independent source, so their cases here are the deterministic ones (empty results, dropout with
p = 0, p = 1 or train = False, errors); ranges and statistics are checked in
tests/unit/test_kernels_shape_creation.c. empty.out leaves the contents undefined, so its cases
have zero elements."""
import numpy as np

from oracle import BF16, BOOL, F32, I32, Out, T, bf16, rand


def cases(g):
    # empty
    g.case("aten::empty.out", "f32_0x3", [[0, 3], None], [Out(np.zeros((0, 3), np.float32))])
    g.case("aten::empty.out", "i64_2x0x4_memfmt", [[2, 0, 4], 0], [Out(np.zeros((2, 0, 4), np.int64))])
    g.case("aten::empty.out", "err_rank", [[2, 3], None], [Out(dtype=F32, shape=(6,))], error=("InvalidArgument", "empty"))
    # ones / zeros
    for name, val in (("ones", 1), ("zeros", 0)):
        for dt in (np.float32, np.float64, np.float16, np.int8, np.uint8, np.int16, np.int32, np.int64, np.bool_):
            g.case("aten::%s.out" % name, np.dtype(dt).name, [[2, 3]], [Out(np.full((2, 3), val, dt))])
        g.case("aten::%s.out" % name, "bf16", [[4]], [Out(np.full((4,), val, np.float32), dtype=BF16)])
        g.case("aten::%s.out" % name, "scalar", [[]], [Out(np.array(val, np.float32))])
        g.case("aten::%s.out" % name, "empty", [[3, 0]], [Out(np.zeros((3, 0), np.int32))])
        g.case("aten::%s.out" % name, "err_negative", [[2, -1]], [Out(dtype=F32, shape=(2, 1))],
               error=("InvalidArgument", name))
    # fill.Tensor
    x = rand((2, 3))
    g.case("aten::fill.Tensor_out", "f32_from_f64", [x, np.array(0.1, np.float64)], [Out(np.full((2, 3), 0.1, np.float32))])
    g.case("aten::fill.Tensor_out", "i32_from_f32_trunc", [(x * 10).astype(np.int32), np.array(-3.75, np.float32)],
           [Out(np.full((2, 3), -3, np.int32))])
    g.case("aten::fill.Tensor_out", "i64_from_i64_big", [np.zeros((3,), np.int64), np.array(2**62 + 1, np.int64)],
           [Out(np.full((3,), 2**62 + 1, np.int64))])
    g.case("aten::fill.Tensor_out", "bool_from_f32", [np.zeros((2,), np.bool_), np.array(0.5, np.float32)],
           [Out(np.array([True, True]))])
    g.case("aten::fill.Tensor_out", "f16_from_i64", [np.zeros((2, 2), np.float16), np.array(2049, np.int64)],
           [Out(np.full((2, 2), 2048, np.float16))])
    g.case("aten::fill.Tensor_out", "bf16_nan", [T(bf16(x), dtype=BF16), np.array(np.nan, np.float32)],
           [Out(np.full((2, 3), np.nan, np.float32), dtype=BF16)])
    g.case("aten::fill.Tensor_out", "err_value_rank", [x, np.array([1.0], np.float32)], [Out(dtype=F32, shape=(2, 3))],
           error=("InvalidArgument", "value"))
    g.case("aten::fill.Tensor_out", "err_out_dtype", [x, np.array(1.0, np.float32)], [Out(dtype=I32, shape=(2, 3))],
           error=("InvalidArgument", "dtype"))
    # rand / randn
    for name in ("rand", "randn"):
        g.case("aten::%s.out" % name, "empty", [[0]], [Out(np.zeros((0,), np.float32))])
        g.case("aten::%s.out" % name, "f64_2x0", [[2, 0]], [Out(np.zeros((2, 0), np.float64))])
        g.case("aten::%s.out" % name, "err_int_out", [[2]], [Out(dtype=I32, shape=(2,))], error=("InvalidArgument", "floating"))
    # native_dropout
    d = np.array([[1.5, -2.0, np.nan], [np.inf, -0.0, 3.25]], np.float32)
    ones = np.ones(d.shape, np.bool_)
    g.case("aten::native_dropout.out", "p0_train", [d, 0.0, True], [Out(d.copy()), Out(ones)])
    g.case("aten::native_dropout.out", "eval_keeps_all", [d, 0.6, False], [Out(d.copy()), Out(ones)])
    g.case("aten::native_dropout.out", "p0_train_none", [d.astype(np.float64), 0.0, None], [Out(d.astype(np.float64)), Out(ones)])
    # p = 1: (x * 0) * 0, NaN and inf give NaN, -0 stays -0 for negative x
    g.case("aten::native_dropout.out", "p1_drops_all", [d, 1.0, True],
           [Out(d * np.float32(0) * np.float32(0)), Out(np.zeros(d.shape, np.bool_))])
    g.case("aten::native_dropout.out", "f16_eval", [d.astype(np.float16), 0.3, False], [Out(d.astype(np.float16)), Out(ones)])
    g.case("aten::native_dropout.out", "err_p", [d, 1.5, True], [Out(dtype=F32, shape=(2, 3)), Out(dtype=BOOL, shape=(2, 3))],
           error=("InvalidArgument", "p"))
    g.case("aten::native_dropout.out", "err_mask_dtype", [d, 0.5, True], [Out(dtype=F32, shape=(2, 3)), Out(dtype=F32, shape=(2, 3))],
           error=("InvalidArgument", "mask"))
