"""Oracle cases: harder edges of the existing operators (exact int64 beyond 2^53, half /
bfloat16 data, -inf / NaN rows, odd pooling windows, mixed dim orders)."""
import numpy as np

from oracle import BF16, CL, F32, I64, DoubleList, Out, Str, T, TList, rand, bf16

BIG = 2 ** 62 + 1  # not representable as a double: integer paths must stay in integers


def cases(g):
    b = np.array([BIG, -BIG, 2 ** 53 + 1, 7], np.int64)
    one = np.array([1, -1, 1, 0], np.int64)
    g.case("aten::add.out", "i64_exact", [b, one, 1], [Out(b + one)])
    g.case("aten::add.out", "i64_exact_alpha", [b, one, 3], [Out(b + 3 * one)])
    g.case("aten::sub.out", "i64_exact", [b, one, 1], [Out(b - one)])
    g.case("aten::mul.out", "i64_exact", [np.array([2 ** 31 + 1, 3], np.int64), np.array([2 ** 31 - 1, 5], np.int64)],
           [Out(np.array([(2 ** 31 + 1) * (2 ** 31 - 1), 15], np.int64))])
    g.case("aten::add.Scalar_out", "i64_exact", [b, 3, 1], [Out(b + 3)])
    g.case("aten::mul.Scalar_out", "i64_exact", [np.array([2 ** 40 + 1], np.int64), 2 ** 20 + 1],
           [Out(np.array([(2 ** 40 + 1) * (2 ** 20 + 1)], np.int64))])
    g.case("aten::div.out_mode", "i64_exact_trunc", [b, np.array([1, 1, 1, 2], np.int64), Str("trunc")],
           [Out(np.array([BIG, -BIG, 2 ** 53 + 1, 3], np.int64))])
    g.case("aten::div.out_mode", "i64_exact_floor", [b, np.array([2, 2, 1, -2], np.int64), Str("floor")],
           [Out(np.array([BIG // 2, -BIG // 2, 2 ** 53 + 1, 7 // -2], np.int64))])
    g.case("aten::eq.Tensor_out", "i64_exact", [b, b - one], [Out(b == b - one)])
    g.case("aten::eq.Scalar_out", "i64_exact", [b, BIG - 1], [Out(b == BIG - 1)])
    g.case("aten::lt.Scalar_out", "i64_exact", [b, BIG - 1], [Out(b < BIG - 1)])
    g.case("aten::ge.Tensor_out", "i64_exact", [b, b + one], [Out(b >= b + one)])
    g.case("aten::clamp.out", "i64_exact", [b, -BIG + 1, BIG - 1], [Out(np.clip(b, -BIG + 1, BIG - 1))])
    g.case("aten::where.self_out", "i64_exact", [np.array([True, False, True, False]), b, b + one], [Out(np.where([1, 0, 1, 0], b, b + one))])
    g.case("aten::sum.IntList_out", "i64_exact", [b[:3].copy(), [0], False, None], [Out(np.array(BIG - BIG + 2 ** 53 + 1, np.int64))])
    g.case("aten::cumsum.out", "i64_exact", [b, 0, None], [Out(np.cumsum(b))])
    g.case("aten::amax.out", "i64_exact", [np.array([BIG, BIG - 1], np.int64), [0], False], [Out(np.array(BIG, np.int64))])
    g.case("aten::argmax.out", "i64_exact", [np.array([BIG - 1, BIG, BIG - 2], np.int64), 0, False], [Out(np.array(1, np.int64))])
    g.case("aten::full.out", "i64_exact", [[2], BIG], [Out(np.full((2,), BIG, np.int64))])
    g.case("aten::fill.Scalar_out", "i64_exact", [b, BIG], [Out(np.full((4,), BIG, np.int64))])
    g.case("aten::scalar_tensor.out", "i64_exact", [BIG], [Out(np.array(BIG, np.int64))])
    g.case("aten::masked_fill.Scalar_out", "i64_exact", [b, np.array([True, False, False, True]), BIG],
           [Out(np.where([1, 0, 0, 1], BIG, b))])
    g.case("aten::constant_pad_nd.out", "i64_exact", [b, [1, 0], BIG], [Out(np.concatenate([[BIG], b]).astype(np.int64))])
    g.case("aten::arange.start_out", "i64_exact", [BIG - 3, BIG, 1], [Out(np.array([BIG - 3, BIG - 2, BIG - 1], np.int64))])
    g.case("aten::_to_copy.out", "i64_to_i32_wraps", [b, False, None], [Out(b.astype(np.int32))])
    g.case("aten::abs.out", "i64_exact", [b], [Out(np.abs(b))])
    g.case("aten::neg.out", "i64_exact", [b], [Out(-b)])
    g.case("aten::index_select.out", "i64_exact", [b, 0, np.array([1, 0], np.int64)], [Out(b[[1, 0]])])
    g.case("aten::cat.out", "i64_exact", [TList([b, b]), 0], [Out(np.concatenate([b, b]))])

    # half / bfloat16 data through reductions and norms (looser: one ulp of the output dtype)
    h = rand((3, 8), np.float16, -2, 2)
    g.case("aten::sum.IntList_out", "f16", [h, [1], False, None], [Out(h.astype(np.float64).sum(1).astype(np.float16))], tol=(2e-3, 4e-3))
    g.case("aten::mean.out", "f16", [h, [1], False, None], [Out(h.astype(np.float64).mean(1).astype(np.float16))], tol=(2e-3, 2e-3))
    hb = bf16(rand((3, 8), lo=-2, hi=2))
    g.case("aten::sum.IntList_out", "bf16", [T(hb, dtype=BF16), [1], False, None], [Out(hb.astype(np.float64).sum(1), dtype=BF16)],
           tol=(1e-2, 3e-2))
    g.case("aten::amax.out", "bf16", [T(hb, dtype=BF16), [1], False], [Out(hb.max(1), dtype=BF16)])
    g.case("aten::add.out", "bf16", [T(hb, dtype=BF16), T(hb, dtype=BF16), 1], [Out(hb.astype(np.float64) * 2, dtype=BF16)])
    sm = rand((2, 6), np.float16, -3, 3)
    e = np.exp(sm.astype(np.float64) - sm.astype(np.float64).max(1, keepdims=True))
    g.case("aten::_softmax.out", "f16", [sm, 1, False], [Out((e / e.sum(1, keepdims=True)).astype(np.float16))], tol=(2e-3, 1e-3))
    # softmax rows with -inf entries; an all -inf row is NaN (ATen: 0/0)
    r = np.array([[0.0, -np.inf, 1.0], [-np.inf, -np.inf, -np.inf]], np.float32)
    e0 = np.exp(np.array([0.0, -np.inf, 1.0]) - 1.0)
    g.case("aten::_softmax.out", "neg_inf", [r, 1, False], [Out(np.array([e0 / e0.sum(), [np.nan] * 3], np.float32))])
    g.case("aten::_log_softmax.out", "neg_inf_entry", [r[:1].copy(), 1, False],
           [Out((np.array([[0.0, -np.inf, 1.0]]) - 1.0 - np.log(e0.sum())).astype(np.float32))])
    # layer norm over the last two dims of a channels-last 4-d input
    x4 = rand((2, 3, 2, 4))
    xd = x4.astype(np.float64)
    m = xd.mean(axis=(2, 3), keepdims=True)
    v = xd.var(axis=(2, 3), keepdims=True)
    rs = 1 / np.sqrt(v + 1e-5)
    g.case("aten::native_layer_norm.out", "channels_last_in", [T(x4, CL), [2, 4], None, None, 1e-5],
           [Out(((xd - m) * rs).astype(np.float32), order=CL), Out(m.astype(np.float32)), Out(rs.astype(np.float32))])
    # arange with a step that does not divide exactly: (0.3 - 0) / 0.1 = 2.9999999999999996 -> 3 elements
    g.case("aten::arange.start_out", "f32_tenths", [0.0, 0.3, 0.1], [Out(np.array([0.0, 0.1, 0.2], np.float32))])
    g.case("aten::arange.start_out", "f64_tenths", [0.0, 1.0, 0.1], [Out(np.array([i * 0.1 for i in range(10)], np.float64))])
    # upsample nearest with a non-integer scale factor
    xu = rand((1, 1, 3, 5))
    hi = np.minimum(np.floor(np.arange(5) * (1 / 1.7)).astype(int), 2)
    wi = np.minimum(np.floor(np.arange(8) * (1 / 1.7)).astype(int), 4)
    g.case("aten::upsample_nearest2d.vec_out", "scale_1p7", [xu, None, DoubleList([1.7, 1.7])], [Out(xu[:, :, hi][:, :, :, wi])])
    # max pool over -inf and a channels-last input
    mp = np.full((1, 1, 2, 2), -np.inf, np.float32)
    g.case("aten::max_pool2d_with_indices.out", "all_neg_inf", [mp, [2, 2], [2, 2], [0, 0], [1, 1], False],
           [Out(np.full((1, 1, 1, 1), -np.inf, np.float32)), Out(np.zeros((1, 1, 1, 1), np.int64))])
    # cat mixing a channels-last and a contiguous input into a contiguous out
    c1, c2 = rand((1, 2, 2, 2)), rand((1, 1, 2, 2))
    g.case("aten::cat.out", "mixed_orders", [TList([T(c1, CL), c2]), 1], [Out(np.concatenate([c1, c2], 1))])
    # where with a 0-d condition
    g.case("aten::where.self_out", "0d_cond", [np.array(True), rand((2, 2)) * 0 + np.float32(1), np.zeros((2, 2), np.float32)],
           [Out(np.ones((2, 2), np.float32))])
    # clamp with a NaN bound propagates NaN (ATen: min(max(x, nan), hi) = nan)
    g.case("aten::clamp.out", "nan_min", [np.array([1.0, -1.0], np.float32), float("nan"), None],
           [Out(np.array([np.nan, np.nan], np.float32))])
    g.case("aten::clamp.out", "nan_max", [np.array([1.0, -1.0], np.float32), -5.0, float("nan")],
           [Out(np.array([np.nan, np.nan], np.float32))])
    g.case("aten::clamp.out", "f64_nan_min", [np.array([1.0, -1.0]), float("nan"), 3.0], [Out(np.array([np.nan, np.nan]))])
    g.case("aten::hardtanh.out", "nan_bound", [np.array([0.5], np.float32), float("nan"), 1.0], [Out(np.array([np.nan], np.float32))])
