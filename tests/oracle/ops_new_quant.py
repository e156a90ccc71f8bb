"""Oracle cases for quantized_decomposed operators added by other helpers (issue 13):
embedding_byte / embedding_4bit / embedding_2bit (.out and .dtype_out) and add.

Facts of upstream's quantized kernels: out = (w - zp) * scale in float with per-row (or per-group)
float scales and float zero points; 4-bit weights pack two values per byte, the even column in
the high nibble, stored as value + 8; 2-bit weights pack four, column j % 4 in bits 2*(j % 4),
stored as value + 2. quantized add: dequantize both inputs, add, quantize with the output
parameters (nearbyint, ties to even)."""
import numpy as np

from oracle import F32, I8, U8, Out, T, rand


def _pack4(q):
    q = (q.astype(np.int64) + 8).astype(np.uint8)
    return ((q[:, 0::2] << 4) | q[:, 1::2]).astype(np.uint8)


def _pack2(q):
    q = (q.astype(np.int64) + 2).astype(np.uint8)
    return (q[:, 0::4] | (q[:, 1::4] << 2) | (q[:, 2::4] << 4) | (q[:, 3::4] << 6)).astype(np.uint8)


def _deq_rows(q, scales, zps, ids):
    """Per-row (scales [R]) or per-group (scales [R, G]) dequantization of rows ids."""
    R, D = q.shape
    s = scales.reshape(R, -1).astype(np.float32)
    z = np.zeros_like(s) if zps is None else zps.reshape(R, -1).astype(np.float32)
    gs = D // s.shape[1]
    out = np.zeros(ids.shape + (D,), np.float32)
    for pos in np.ndindex(*ids.shape):
        r = int(ids[pos])
        g = np.arange(D) // gs
        out[pos] = (q[r].astype(np.float32) - z[r, g]) * s[r, g]
    return out


def cases(g):
    ids = np.array([[2, 0], [3, 3]], np.int64)
    # embedding_byte(weight, scales, zero_points?, qmin, qmax, indices)
    qb = rand((4, 6), np.int8, -128, 127)
    sb = rand((4,), np.float32, 0.01, 0.1)
    zb = rand((4,), np.int32, -5, 5).astype(np.float32)
    g.case("quantized_decomposed::embedding_byte.out", "per_row", [qb, sb, zb, -128, 127, ids],
           [Out(_deq_rows(qb, sb, zb, ids))])
    g.case("quantized_decomposed::embedding_byte.out", "no_zp", [qb, sb, None, -128, 127, ids[0].copy()],
           [Out(_deq_rows(qb, sb, None, ids[0]))])
    sg = rand((4, 2), np.float32, 0.01, 0.1)
    zg = rand((4, 2), np.int32, -3, 3).astype(np.float32)
    g.case("quantized_decomposed::embedding_byte.out", "groups2", [qb, sg, zg, -128, 127, ids],
           [Out(_deq_rows(qb, sg, zg, ids))])
    g.case("quantized_decomposed::embedding_byte.dtype_out", "f32", [qb, sb, zb, -128, 127, ids, F32],
           [Out(_deq_rows(qb, sb, zb, ids))])
    g.case("quantized_decomposed::embedding_byte.dtype_out", "none_dtype", [qb, sb, zb, -128, 127, ids, None],
           [Out(_deq_rows(qb, sb, zb, ids))])
    g.case("quantized_decomposed::embedding_byte.out", "err_index_range", [qb, sb, zb, -128, 127, np.array([4], np.int64)],
           [Out(dtype=F32, shape=(1, 6))], error=("InvalidArgument", "out of range"))
    # 4-bit: weight [R, D/2] uint8
    q4 = rand((4, 6), np.int8, -8, 7)
    w4 = _pack4(q4)
    g.case("quantized_decomposed::embedding_4bit.out", "per_row", [w4, sb, zb, -8, 7, ids], [Out(_deq_rows(q4, sb, zb, ids))])
    g.case("quantized_decomposed::embedding_4bit.out", "groups2_no_zp", [w4, sg, None, -8, 7, ids],
           [Out(_deq_rows(q4, sg, None, ids))])
    g.case("quantized_decomposed::embedding_4bit.dtype_out", "f32", [w4, sb, zb, -8, 7, ids, F32], [Out(_deq_rows(q4, sb, zb, ids))])
    # 2-bit: weight [R, D/4] uint8
    q2 = rand((4, 8), np.int8, -2, 1)
    w2 = _pack2(q2)
    g.case("quantized_decomposed::embedding_2bit.out", "per_row", [w2, sb, zb, -2, 1, ids], [Out(_deq_rows(q2, sb, zb, ids))])
    g.case("quantized_decomposed::embedding_2bit.dtype_out", "f32_groups", [w2, sg, zg, -2, 1, ids, F32],
           [Out(_deq_rows(q2, sg, zg, ids))])
    # add(a, a_scale, a_zp, a_qmin, a_qmax, b, ..., out_scale, out_zp, out_qmin, out_qmax): upstream
    # requires every quant range inside [0, 255]; a, b, out share one integer dtype
    qa, qbb = rand((3, 4), np.uint8, 0, 255), rand((3, 4), np.uint8, 0, 255)
    for tag, sa, za, sb_, zb_, so, zo in (("pow2_exact", 0.5, 131, 0.25, 120, 0.125, 128),
                                          ("general", 0.02, 128, 0.03, 100, 0.07, 130)):
        fa = (qa.astype(np.int64) - za).astype(np.float32) * np.float32(sa)
        fb = (qbb.astype(np.int64) - zb_).astype(np.float32) * np.float32(sb_)
        v = (fa + fb).astype(np.float32) * (np.float32(1.0) / np.float32(so))
        ref = np.clip(np.rint(v).astype(np.int64) + zo, 0, 255).astype(np.uint8)
        g.case("quantized_decomposed::add.out", tag,
               [qa, sa, za, 0, 255, qbb, sb_, zb_, 0, 255, so, zo, 0, 255], [Out(ref)])
    g.case("quantized_decomposed::add.out", "err_range_int8",
           [qa.astype(np.int8), 0.5, 0, -128, 127, qbb.astype(np.int8), 0.5, 0, -128, 127, 1.0, 0, -128, 127],
           [Out(dtype=I8, shape=(3, 4))], error=("InvalidArgument", "range"))


def cases_mixed(g):
    # mixed_mm(input [m, n], weight int8 [n, p], scales [n], zero_points?) = input @ (weight * scales[:, None])
    x = rand((3, 5))
    w = rand((5, 4), np.int8, -128, 127)
    s = rand((5,), np.float32, 0.01, 0.05)
    ref = (x.astype(np.float64) @ (w.astype(np.float64) * s.astype(np.float64)[:, None])).astype(np.float32)
    g.case("quantized_decomposed::mixed_mm.out", "f32", [x, T(w, role="const"), T(s, role="const"), None], [Out(ref)],
           tol=(1e-5, 1e-5))  # 5-term float32 sums of products up to ~20
    # upstream: a failed argument check is ET_KERNEL_CHECK(..., InvalidArgument)
    g.case("quantized_decomposed::mixed_mm.out", "err_zero_points", [x, T(w, role="const"), T(s, role="const"), T(s, role="const")],
           [Out(dtype=F32, shape=(3, 4))], error=("InvalidArgument", "zero_points"))
    # mixed_linear(input [m, n], weight int8 [p, n], scales [p] or [p, groups], zero_points?, dtype?)
    wl = rand((4, 6), np.int8, -128, 127)
    sl = rand((4,), np.float32, 0.01, 0.05)
    ref = (x[:, :1].repeat(6, 1).astype(np.float64) * 0 + rand((3, 6)).astype(np.float64))
    xi = ref.astype(np.float32)
    r1 = (xi.astype(np.float64) @ (wl.astype(np.float64) * sl.astype(np.float64)[:, None]).T).astype(np.float32)
    g.case("quantized_decomposed::mixed_linear.out", "per_row", [xi, T(wl, role="const"), T(sl, role="const"), None, None],
           [Out(r1)], tol=(1e-5, 1e-5))
    sg = rand((4, 2), np.float32, 0.01, 0.05)
    wd = wl.astype(np.float64) * np.repeat(sg.astype(np.float64), 3, axis=1)
    r2 = (xi.astype(np.float64) @ wd.T).astype(np.float32)
    g.case("quantized_decomposed::mixed_linear.out", "groups2_dtype", [xi, T(wl, role="const"), T(sg, role="const"), None, F32],
           [Out(r2)], tol=(1e-5, 1e-5))
    # choose_qparams_per_token_asymmetric(input, dtype) -> (scale [.., 1], zero_point [.., 1]); range [-128, 127];
    # rows whose two zero-point candidates agree: [-1, 3] -> zp -64, [-2, 2] -> -0.5 rounds to even 0
    xr = np.array([[-1.0, 0.5, 3.0, 2.0], [2.0, -2.0, 1.0, 0.0]], np.float32)
    g.case("quantized_decomposed::choose_qparams_per_token_asymmetric.out", "rows", [xr, F32],
           [Out(np.array([[4.0 / 255], [4.0 / 255]], np.float64)), Out(np.array([[-64], [0]], np.int64))],
           tol=(1e-7, 0))  # scale_out float64 (upstream checks it like the per-tensor variant)


_cases_quant = cases


def cases(g):  # noqa: F811
    _cases_quant(g)
    cases_mixed(g)
