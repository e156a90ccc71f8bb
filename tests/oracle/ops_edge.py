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


def cases_promotion(g):
    # ATen: a 0-d tensor does not raise the category's width of a dimensioned tensor
    i8 = np.array([100, -100, 5], np.int8)
    g.case("aten::add.out", "i8_plus_0d_i64_stays_i8", [i8, np.array(100, np.int64), 1], [Out((i8.astype(np.int64) + 100).astype(np.int8))])
    f = np.array([1.5, -2.25], np.float32)
    g.case("aten::mul.out", "f32_times_0d_f64_stays_f32", [f, np.array(1.0 / 3.0), ], [Out(f * np.float32(1.0 / 3.0))])
    g.case("aten::add.out", "i32_plus_0d_f64_is_f32", [np.array([1, 2], np.int32), np.array(0.5), 1], [Out(np.array([1.5, 2.5], np.float32))])
    g.case("aten::add.out", "bool_or", [np.array([True, False, False]), np.array([True, True, False]), 1], [Out(np.array([True, True, False]))])
    g.case("aten::sub.out", "err_bool", [np.array([True]), np.array([False]), 1], [Out(dtype=1 + 10, shape=(1,))], error=("InvalidArgument", "bool"))
    g.case("aten::div.out", "err_int_out", [np.array([4, 2], np.int32), np.array([2, 2], np.int32)], [Out(dtype=3, shape=(2,))],
           error=("InvalidArgument", "cannot be cast to out"))
    a, b = rand((2, 3)), rand((2, 3))
    g.case("aten::add.out", "contiguous_in_cl_out", [a.reshape(1, 2, 3, 1), b.reshape(1, 2, 3, 1), 1],
           [Out((a + b).reshape(1, 2, 3, 1), order=CL)])
    g.case("aten::lt.Tensor_out", "f32_out", [a, b], [Out((a < b).astype(np.float32))])
    g.case("aten::where.self_out", "bool_values", [np.array([True, False]), np.array([False, False]), np.array([True, True])],
           [Out(np.array([False, True]))])
    g.case("aten::argmax.out", "none_keepdim", [a, None, True], [Out(np.array([[int(np.argmax(a))]], np.int64))])
    g.case("aten::cumsum.out", "bool_to_i64", [np.array([True, False, True]), 0, I64], [Out(np.array([1, 1, 2], np.int64))])
    g.case("aten::_softmax.out", "err_int", [np.array([1, 2], np.int32), 0, False], [Out(dtype=3, shape=(2,))], error=("InvalidArgument", "floating"))
    g.case("aten::constant_pad_nd.out", "crop_to_empty", [a, [-2, -1], 0.0], [Out(np.zeros((2, 0), np.float32))])
    g.case("aten::linear.out", "1d_input", [a[0].copy(), rand((4, 3)) * 0 + np.eye(4, 3, dtype=np.float32), None],
           [Out(np.eye(4, 3, dtype=np.float64).dot(a[0].astype(np.float64)).astype(np.float32))])
    ai, bi = rand((2, 3), np.int32, -9, 9), rand((3, 2), np.int32, -9, 9)
    g.case("aten::addmm.out", "i32", [np.array([1, -1], np.int32), ai, bi, 2, 3],
           [Out((2 * np.array([1, -1]) + 3 * (ai.astype(np.int64) @ bi)).astype(np.int32))])
    g.case("aten::bmm.out", "i64", [ai.astype(np.int64)[None], bi.astype(np.int64)[None]], [Out((ai.astype(np.int64) @ bi)[None])])
    h1, h2 = rand((2, 3), np.float16), rand((3, 2), np.float16)
    g.case("aten::mm.out", "f16", [h1, h2], [Out((h1.astype(np.float64) @ h2).astype(np.float16))], tol=(2e-3, 4e-3))
    g.case("aten::scalar_tensor.out", "float_to_i32_truncates", [2.7], [Out(np.array(2, np.int32))])
    g.case("aten::full.out", "float_to_bool", [[2], 0.5], [Out(np.array([True, True]))])
    # ATen sizes an int64 arange from the bounds converted to int64 first (2.5 -> 2), other dtypes
    # in double (2.5 -> 3 elements)
    g.case("aten::arange.out", "f_end_i64_out_truncates", [2.5], [Out(np.array([0, 1], np.int64))])
    g.case("aten::arange.out", "f_end_i32_out", [2.5], [Out(np.array([0, 1, 2], np.int32))])
    v = np.array([1.0 + 2 ** -10, 3.0000001, 65504.0, 1e-8, -2.5], np.float32)
    g.case("aten::_to_copy.out", "f32_to_bf16_rne", [v, False, None], [Out(bf16(v), dtype=BF16)], tol=(0, 0))
    g.case("aten::_to_copy.out", "f64_to_f32_rne", [np.array([1 + 2 ** -30, 0.1]), False, None],
           [Out(np.array([1 + 2 ** -30, 0.1]).astype(np.float32))], tol=(0, 0))
    g.case("aten::_to_copy.out", "i64_to_f16", [np.array([2049, 70000, -3], np.int64), False, None],
           [Out(np.array([2049, 70000, -3], np.int64).astype(np.float16))], tol=(0, 0))
    q = rand((2, 3), lo=-1, hi=1).astype(np.float16)
    g.case("quantized_decomposed::quantize_per_tensor.out", "f16_input", [q, 0.01, 0, -128, 127, 1],
           [Out(np.clip(np.rint(q.astype(np.float32) * (np.float32(1) / np.float32(0.01))), -128, 127).astype(np.int8))])
    qi = rand((2, 3), np.int8, -128, 127)
    g.case("quantized_decomposed::dequantize_per_tensor.out", "f16_out", [qi, 0.01, 2, -128, 127, 1, 5],
           [Out(((qi.astype(np.float32) - 2) * np.float32(0.01)).astype(np.float16))])
    xg = rand((2, 4, 1, 1))
    m = xg.astype(np.float64).reshape(2, 2, 2).mean(2)
    vv = xg.astype(np.float64).reshape(2, 2, 2).var(2)
    rs = 1 / np.sqrt(vv + 1e-5)
    y = ((xg.astype(np.float64).reshape(2, 2, 2) - m[:, :, None]) * rs[:, :, None]).reshape(2, 4, 1, 1)
    g.case("aten::native_group_norm.out", "hxw1", [xg, None, None, 2, 4, 1, 2, 1e-5],
           [Out(y.astype(np.float32)), Out(m.astype(np.float32)), Out(rs.astype(np.float32))], tol=(1e-5, 1e-4))
    hl = rand((2, 8), np.float16)
    hd = hl.astype(np.float64)
    mu, var = hd.mean(1, keepdims=True), hd.var(1, keepdims=True)
    r = 1 / np.sqrt(var + 1e-5)
    g.case("aten::native_layer_norm.out", "f16", [hl, [8], None, None, 1e-5],
           [Out(((hd - mu) * r).astype(np.float16)), Out(mu.astype(np.float16)), Out(r.astype(np.float16))], tol=(4e-3, 4e-3))



_cases_edge = cases


def cases(g):  # noqa: F811
    _cases_edge(g)
    cases_promotion(g)
