"""Oracle cases: the quantized_decomposed operators (kernels/quantized). Expected values are numpy
float32 arithmetic following the operators' definitions:
  quantize   q = clamp(int(float32(zp) + rint(float32(1 / float32(scale)) * x)), qmin, qmax)
  dequantize x = float32(q - zp) * float32(scale)
  embedding  ((float32)q - zp) * scale per element, packed 4-bit = high nibble first (+8),
             2-bit = lowest bit pair first (+2)
  mixed_mm / mixed_linear: float64 products (compared at the float32 tolerance)
  add        dequantize -> float32 add -> quantize
  choose_qparams(_per_token_asymmetric): the asymmetric min/max rule written out below."""
import numpy as np

from oracle import F16, F32, F64, I8, I64, U8, Out, T, TList, rand

R = np.random.default_rng(424242)


def q_ref(x, scale, zp, qmin, qmax, dt):
    inv = np.float32(1.0) / np.float32(scale)
    p = (inv * np.asarray(x, np.float32)).astype(np.float32)
    f = (np.float32(zp) + np.rint(p)).astype(np.float32)
    return np.clip(f.astype(np.int64), qmin, qmax).astype(dt)


def dq_ref(q, scale, zp):
    return (np.asarray(q, np.int64) - zp).astype(np.float32) * np.float32(scale)


def choose_ref(x, qmin, qmax):
    mn = min(float(np.min(x)), 0.0)
    mx = max(float(np.max(x)), 0.0)
    scale = (np.float64(mx) - np.float64(mn)) / (qmax - qmin)
    if np.float32(scale) == 0 or np.isinf(np.float32(1.0) / np.float32(scale)):
        scale = 0.1
    zmin = qmin - mn / scale
    zmax = qmax - mx / scale
    emin = abs(qmin) - abs(mn / scale)
    emax = abs(qmax) - abs(mx / scale)
    z0 = zmin if emin < emax else zmax
    zp = qmin if z0 < qmin else (qmax if z0 > qmax else int(np.rint(np.float32(z0))))
    return scale, zp


def cases(g):
    # ---- quantize / dequantize per tensor (scalar and Tensor_out overloads)
    x = rand((2, 3, 4), lo=-4, hi=4)
    for dt, qmin, qmax, zp in ((np.int8, -128, 127, -5), (np.uint8, 0, 255, 128), (np.int16, -32768, 32767, 7)):
        code = {np.int8: I8, np.uint8: U8, np.int16: 2}[dt]
        q = q_ref(x, 0.03, zp, qmin, qmax, dt)
        g.case("quantized_decomposed::quantize_per_tensor.out", "f32_%s" % np.dtype(dt).name,
               [x, 0.03, zp, qmin, qmax, code], [Out(q)])
        g.case("quantized_decomposed::quantize_per_tensor.Tensor_out", "f32_%s" % np.dtype(dt).name,
               [x, np.array([0.03]), np.array([zp], np.int64), qmin, qmax, code], [Out(q)])
        g.case("quantized_decomposed::dequantize_per_tensor.out", "to_f32_%s" % np.dtype(dt).name,
               [q, 0.03, zp, qmin, qmax, code, None], [Out(dq_ref(q, 0.03, zp))])
        g.case("quantized_decomposed::dequantize_per_tensor.Tensor_out", "to_f32_%s" % np.dtype(dt).name,
               [q, np.array([0.03]), np.array([zp], np.int64), qmin, qmax, code, None], [Out(dq_ref(q, 0.03, zp))])
    g.case("quantized_decomposed::quantize_per_tensor.out", "ties_even", [np.array([1.25, 1.75, -0.25, -0.75], np.float32), 0.5, 3, -128, 127, I8],
           [Out(np.array([5, 7, 3, 1], np.int8))])
    g.case("quantized_decomposed::quantize_per_tensor.out", "err_dtype", [x, 0.03, 0, -128, 127, U8],
           [Out(dtype=I8, shape=(2, 3, 4))], error=("InvalidArgument", ""))
    # ---- per channel
    xc = rand((3, 4), lo=-2, hi=2)
    sc = np.array([0.01, 0.02, 0.05])
    zc = np.array([-3, 0, 4], np.int64)
    qc = np.stack([q_ref(xc[i], sc[i], zc[i], -128, 127, np.int8) for i in range(3)])
    g.case("quantized_decomposed::quantize_per_channel.out", "axis0", [xc, sc, zc, 0, -128, 127, I8], [Out(qc)])
    dqc = np.stack([dq_ref(qc[i], sc[i], zc[i]) for i in range(3)])
    g.case("quantized_decomposed::dequantize_per_channel.out", "axis0", [qc, sc, zc, 0, -128, 127, I8, None], [Out(dqc)])
    s4 = np.array([0.01, 0.02, 0.03, 0.04])
    qc1 = np.stack([q_ref(xc[:, j], s4[j], 0, -128, 127, np.int8) for j in range(4)], axis=1)
    g.case("quantized_decomposed::quantize_per_channel.out", "axis_neg", [xc, s4, np.zeros(4, np.int64), -1, -128, 127, I8], [Out(qc1)])
    g.case("quantized_decomposed::dequantize_per_channel.out", "no_zp", [qc1, s4, None, 1, -128, 127, I8, None],
           [Out(np.stack([dq_ref(qc1[:, j], s4[j], 0) for j in range(4)], axis=1))])
    # ---- per token: tokens are the last dimension
    xt = rand((2, 2, 5), lo=-3, hi=3)
    st = np.array([0.02, 0.05, 0.01, 0.04]).reshape(2, 2, 1)
    zt = np.array([1, -2, 0, 3], np.int64).reshape(2, 2, 1)
    qt = np.stack([q_ref(xt.reshape(4, 5)[i], st.ravel()[i], zt.ravel()[i], -128, 127, np.int8) for i in range(4)]).reshape(2, 2, 5)
    g.case("quantized_decomposed::quantize_per_token.out", "rank3", [xt, st, zt, -128, 127, I8], [Out(qt)])
    dqt = np.stack([dq_ref(qt.reshape(4, 5)[i], st.ravel()[i], zt.ravel()[i]) for i in range(4)]).reshape(2, 2, 5)
    g.case("quantized_decomposed::dequantize_per_token.out", "rank3", [qt, st, zt, -128, 127, I8, F32], [Out(dqt)])
    # ---- choose_qparams
    xq = np.array([-1.0, 0.5, 3.0], np.float32)
    s0, z0 = choose_ref(xq, 0, 255)
    g.case("quantized_decomposed::choose_qparams.Tensor_out", "u8", [xq, 0, 255, 1e-5, U8],
           [Out(np.array([s0])), Out(np.array([z0], np.int64))])
    xr = rand((3, 6), lo=-2, hi=5)
    pairs = [choose_ref(xr[i], -128, 127) for i in range(3)]
    g.case("quantized_decomposed::choose_qparams_per_token_asymmetric.out", "rows", [xr, F32],
           [Out(np.array([p[0] for p in pairs]).reshape(3, 1)), Out(np.array([p[1] for p in pairs], np.int64).reshape(3, 1))])
    xp = np.array([[-0.5, 0.3, 1.2], [0.1, -0.8, 2.1]], np.float32)  # upstream's published case
    g.case("quantized_decomposed::choose_qparams_per_token_asymmetric.out", "published", [xp, F32],
           [Out(np.array([[choose_ref(xp[0], -128, 127)[0]], [choose_ref(xp[1], -128, 127)[0]]])),
            Out(np.array([[-53], [-58]], np.int64))])  # zero points as upstream's own test gives them

    # ---- embeddings
    V, D = 6, 8
    idx = np.array([[5, 0, 2], [1, 1, 4]], np.int64)
    for nbit in (8, 4, 2):
        base = {8: "embedding_byte", 4: "embedding_4bit", 2: "embedding_2bit"}[nbit]
        lo, hi = {8: (-128, 127), 4: (-8, 7), 2: (-2, 1)}[nbit]
        q = R.integers(lo, hi + 1, size=(V, D))
        if nbit == 8:
            w = q.astype(np.int8)
        elif nbit == 4:
            u = q + 8
            w = ((u[:, 0::2] << 4) | u[:, 1::2]).astype(np.uint8)
        else:
            u = q + 2
            w = (u[:, 0::4] | (u[:, 1::4] << 2) | (u[:, 2::4] << 4) | (u[:, 3::4] << 6)).astype(np.uint8)
        s_row = R.uniform(0.01, 0.2, size=(V,)).astype(np.float32)
        s_grp = R.uniform(0.01, 0.2, size=(V, 2)).astype(np.float32)
        z_grp = R.integers(-3, 4, size=(V, 2)).astype(np.float32)
        want_row = (q.astype(np.float32) * s_row[:, None])[idx]
        se = np.repeat(s_grp, D // 2, axis=1)
        ze = np.repeat(z_grp, D // 2, axis=1)
        want_grp = ((q.astype(np.float32) - ze) * se)[idx]
        name = "quantized_decomposed::%s" % base
        g.case(name + ".out", "per_row", [T(w, role="const"), T(s_row, role="const"), None, lo, hi, idx], [Out(want_row)])
        g.case(name + ".out", "groups_zp", [T(w, role="const"), T(s_grp, role="const"), T(z_grp, role="const"), lo, hi,
                                            idx[0].copy()], [Out(want_grp[0])])
        g.case(name + ".dtype_out", "f16_out", [T(w, role="const"), T(s_grp, role="const"), T(z_grp, role="const"), lo, hi,
                                                idx, F16], [Out(want_grp.astype(np.float16))])
        g.case(name + ".dtype_out", "dtype_none", [T(w, role="const"), T(s_row, role="const"), None, lo, hi, idx, None],
               [Out(want_row)])
        g.case(name + ".out", "err_index", [T(w, role="const"), T(s_row, role="const"), None, lo, hi,
                                            np.array([V], np.int64)], [Out(dtype=F32, shape=(1, D))],
               error=("InvalidArgument", "out of range"))

    # ---- mixed_mm / mixed_linear (float64 reference). The kernels accumulate K = 10 products of
    # magnitude up to ~13 in float32 as upstream does, so an absolute error up to ~K * 2^-24 * 13
    # (~8e-6) is inherent: atol 1e-5 for these cases.
    MT = (1e-5, 1e-5)
    M, K, N = 3, 10, 4
    xm = rand((M, K), lo=-2, hi=2)
    wm = R.integers(-128, 128, size=(K, N)).astype(np.int8)
    sm = R.uniform(0.001, 0.05, size=(K,)).astype(np.float32)
    g.case("quantized_decomposed::mixed_mm.out", "f32", [xm, T(wm, role="const"), T(sm, role="const"), None],
           [Out((xm.astype(np.float64) @ (wm.astype(np.float64) * sm.astype(np.float64)[:, None])).astype(np.float32))], tol=MT)
    wl = R.integers(-128, 128, size=(N, K)).astype(np.int8)
    sl = R.uniform(0.001, 0.05, size=(N, 4)).astype(np.float32)
    se = np.repeat(sl.astype(np.float64), 3, axis=1)[:, :K]
    g.case("quantized_decomposed::mixed_linear.out", "groups", [xm, T(wl, role="const"), T(sl, role="const"), None, None],
           [Out((xm.astype(np.float64) @ (wl.astype(np.float64) * se).T).astype(np.float32))], tol=MT)
    sr = R.uniform(0.001, 0.05, size=(N,)).astype(np.float32)
    g.case("quantized_decomposed::mixed_linear.out", "per_row_dtype", [xm, T(wl, role="const"), T(sr, role="const"), None, F32],
           [Out((xm.astype(np.float64) @ (wl.astype(np.float64) * sr.astype(np.float64)[:, None]).T).astype(np.float32))], tol=MT)
    g.case("quantized_decomposed::mixed_mm.out", "err_zero_points", [xm, T(wm, role="const"), T(sm, role="const"), T(sm, role="const")],
           [Out(dtype=F32, shape=(M, N))], error=("InvalidArgument", "zero_points"))

    # ---- add: dequantize -> float add -> quantize
    a = R.integers(0, 256, size=(2, 3, 4)).astype(np.uint8)
    b = R.integers(0, 256, size=(2, 3, 4)).astype(np.uint8)
    da = ((a.astype(np.int64) - 120).astype(np.float64) * np.float64(np.float32(0.05))).astype(np.float32)
    db = ((b.astype(np.int64) - 3).astype(np.float64) * np.float64(np.float32(0.021))).astype(np.float32)
    want = q_ref((da + db).astype(np.float32), 0.07, 100, 10, 240, np.uint8)
    g.case("quantized_decomposed::add.out", "u8", [a, 0.05, 120, 0, 255, b, 0.021, 3, 0, 255, 0.07, 100, 10, 240], [Out(want)])
    g.case("quantized_decomposed::add.out", "err_range", [a, 0.05, 120, 0, 255, b, 0.021, 3, 0, 256, 0.07, 100, 10, 240],
           [Out(dtype=U8, shape=(2, 3, 4))], error=("InvalidArgument", "quant range"))
