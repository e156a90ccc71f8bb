"""Oracle cases: quantized_decomposed quantize / dequantize (per tensor, channel, token) and
choose_qparams.Tensor.

Reference arithmetic (upstream's quantized kernels): q = clamp(zp + nearbyint(x * (1.0f /
(float)scale)), qmin, qmax) in float32 with ties to even; x = (q - zp) * scale."""
import numpy as np

from oracle import CL, F32, I8, I32, I64, U8, Out, T, rand


def _q(x, scale, zp, qmin, qmax, dt):
    inv = np.float32(1.0) / np.float32(scale)
    p = (np.asarray(x, np.float32) * inv).astype(np.float32)
    return np.clip(np.rint(p).astype(np.int64) + np.asarray(zp, np.int64), qmin, qmax).astype(dt)


def _dq(q, scale, zp):
    return ((np.asarray(q, np.int64) - np.asarray(zp, np.int64)).astype(np.float32) * np.asarray(scale, np.float32)).astype(np.float32)


def cases(g):
    x = rand((3, 4), lo=-2, hi=2)
    ties = np.array([0.25, 0.75, -0.25, -0.75, 1.25, 63.75, -64.25, 100.0, -100.0], np.float32)
    qpt = "quantized_decomposed::quantize_per_tensor.out"
    g.case(qpt, "i8", [x, 0.02, 3, -128, 127, I8], [Out(_q(x, 0.02, 3, -128, 127, np.int8))])
    g.case(qpt, "u8", [x, 0.015, 128, 0, 255, U8], [Out(_q(x, 0.015, 128, 0, 255, np.uint8))])
    g.case(qpt, "i8_ties_even_and_clamp", [ties, 0.5, 0, -128, 127, I8], [Out(_q(ties, 0.5, 0, -128, 127, np.int8))])
    g.case(qpt, "i8_narrow_range", [x, 0.01, 0, -10, 10, I8], [Out(_q(x, 0.01, 0, -10, 10, np.int8))])
    g.case(qpt, "i32", [x, 1e-4, -7, -(2 ** 31), 2 ** 31 - 1, I32], [Out(_q(x, 1e-4, -7, -(2 ** 31), 2 ** 31 - 1, np.int32))])
    g.case(qpt, "i16", [x, 1e-3, 0, -32768, 32767, 2], [Out(_q(x, 1e-3, 0, -32768, 32767, np.int16))])
    x4 = rand((1, 3, 2, 2), lo=-1, hi=1)
    g.case(qpt, "channels_last", [T(x4, CL), 0.01, -5, -128, 127, I8], [Out(_q(x4, 0.01, -5, -128, 127, np.int8), order=CL)])
    g.case(qpt, "empty", [np.zeros((0, 2), np.float32), 0.1, 0, -128, 127, I8], [Out(np.zeros((0, 2), np.int8))])
    g.case(qpt, "err_out_dtype", [x, 0.02, 0, -128, 127, I8], [Out(dtype=U8, shape=(3, 4))], error=("InvalidArgument", "dtype"))
    g.case(qpt, "err_int_input", [np.array([1, 2], np.int32), 0.02, 0, -128, 127, I8], [Out(dtype=I8, shape=(2,))],
           error=("InvalidArgument", "input"))
    qtt = "quantized_decomposed::quantize_per_tensor.Tensor_out"
    g.case(qtt, "i8", [x, np.array([0.02]), np.array([3], np.int64), -128, 127, I8], [Out(_q(x, 0.02, 3, -128, 127, np.int8))])
    g.case(qtt, "u8", [x, np.array([0.03]), np.array([100], np.int64), 0, 255, U8], [Out(_q(x, 0.03, 100, 0, 255, np.uint8))])
    g.case(qtt, "err_scale_dtype", [x, np.array([0.02], np.float32), np.array([3], np.int64), -128, 127, I8],
           [Out(dtype=I8, shape=(3, 4))], error=("InvalidArgument", "scale"))

    q = rand((3, 4), np.int8, -128, 127)
    dpt = "quantized_decomposed::dequantize_per_tensor.out"
    g.case(dpt, "i8", [q, 0.05, -3, -128, 127, I8, None], [Out(_dq(q, 0.05, -3))])
    qu = rand((3, 4), np.uint8, 0, 255)
    g.case(dpt, "u8", [qu, 0.1, 128, 0, 255, U8, None], [Out(_dq(qu, 0.1, 128))])
    g.case(dpt, "out_dtype_f32", [q, 0.05, 0, -128, 127, I8, F32], [Out(_dq(q, 0.05, 0))])
    q4 = rand((1, 3, 2, 2), np.int8, -128, 127)
    g.case(dpt, "channels_last", [T(q4, CL), 0.5, 1, -128, 127, I8, None], [Out(_dq(q4, 0.5, 1), order=CL)])
    g.case(dpt, "err_dtype_mismatch", [q, 0.05, 0, -128, 127, U8, None], [Out(dtype=F32, shape=(3, 4))],
           error=("InvalidArgument", "dtype"))
    dtt = "quantized_decomposed::dequantize_per_tensor.Tensor_out"
    g.case(dtt, "i8", [q, np.array([0.05]), np.array([-3], np.int64), -128, 127, I8, None], [Out(_dq(q, 0.05, -3))])

    # per channel
    xc = rand((3, 4), lo=-2, hi=2)
    sc = np.array([0.01, 0.02, 0.05], np.float64)
    zc = np.array([0, -4, 9], np.int64)
    qpc = "quantized_decomposed::quantize_per_channel.out"
    g.case(qpc, "axis0", [xc, sc, zc, 0, -128, 127, I8],
           [Out(np.stack([_q(xc[i], sc[i], zc[i], -128, 127, np.int8) for i in range(3)]))])
    s4, z4 = np.array([0.01, 0.02, 0.03, 0.04]), np.array([1, 2, 3, 4], np.int64)
    g.case(qpc, "axis1", [xc, s4, z4, 1, -128, 127, I8],
           [Out(np.stack([_q(xc[:, j], s4[j], z4[j], -128, 127, np.int8) for j in range(4)], 1))])
    g.case(qpc, "axis_neg_f32_scales", [xc, s4.astype(np.float32), z4, -1, 0, 255, U8],
           [Out(np.stack([_q(xc[:, j], np.float32(s4[j]), z4[j], 0, 255, np.uint8) for j in range(4)], 1))])
    g.case(qpc, "err_axis_range", [xc, sc, zc, 2, -128, 127, I8], [Out(dtype=I8, shape=(3, 4))], error=("InvalidArgument", "axis"))
    g.case(qpc, "err_scales_len", [xc, s4, z4, 0, -128, 127, I8], [Out(dtype=I8, shape=(3, 4))], error=("InvalidArgument", "scales"))
    dpc = "quantized_decomposed::dequantize_per_channel.out"
    qc = rand((3, 4), np.int8, -128, 127)
    g.case(dpc, "axis0", [qc, sc, zc, 0, -128, 127, I8, None],
           [Out(np.stack([_dq(qc[i], sc[i], zc[i]) for i in range(3)]))])
    g.case(dpc, "axis1_no_zp", [qc, s4, None, 1, -128, 127, I8, None],
           [Out(np.stack([_dq(qc[:, j], s4[j], 0) for j in range(4)], 1))])
    g.case(dpc, "err_axis_range", [qc, sc, zc, -3, -128, 127, I8, None], [Out(dtype=F32, shape=(3, 4))],
           error=("InvalidArgument", "axis"))

    # per token: one (scale, zp) per row of [numel / K, K]
    xt = rand((2, 3, 4), lo=-3, hi=3)
    st = rand((2, 3, 1), np.float32, 0.01, 0.05).astype(np.float64)
    zt = rand((2, 3, 1), np.int64, -10, 10)
    g.case("quantized_decomposed::quantize_per_token.out", "i8", [xt, st, zt, -128, 127, I8],
           [Out(_q_rows(xt, st, zt, -128, 127, np.int8))])
    qt = rand((2, 3, 4), np.int8, -128, 127)
    g.case("quantized_decomposed::dequantize_per_token.out", "i8", [qt, st, zt, -128, 127, I8, F32],
           [Out(((qt.astype(np.int64) - zt).astype(np.float32) * st.astype(np.float32)).astype(np.float32))])

    # choose_qparams.Tensor: extremes chosen so both zero-point candidates agree
    xq = np.array([[-1.0, 0.5, 3.0], [2.0, -0.25, 1.0]], np.float32)
    scale = (3.0 - -1.0) / 255.0
    zp = np.rint(-128 - (-1.0) / scale)
    g.case("quantized_decomposed::choose_qparams.Tensor_out", "i8", [xq, -128, 127, 1.1920928955078125e-07, I8],
           [Out(np.array([scale])), Out(np.array([int(zp)], np.int64))], tol=(1e-7, 0))  # scale: double from float32 extremes
    xp = np.array([0.5, 2.0, 1.0], np.float32)  # min clamps to 0 -> zero point = quant_min
    g.case("quantized_decomposed::choose_qparams.Tensor_out", "u8_positive", [xp, 0, 255, 1.1920928955078125e-07, U8],
           [Out(np.array([2.0 / 255.0])), Out(np.array([0], np.int64))], tol=(1e-7, 0))
    # all zeros: scale 0 -> 0.1 (upstream ExecuTorch's kernel; PyTorch's python reference would
    # clamp to eps instead); zero point from the candidate with the smaller error term:
    # |qmin| - 0 = 128 vs |qmax| - 0 = 127 -> the max candidate, 127 - 0 / 0.1 = 127
    g.case("quantized_decomposed::choose_qparams.Tensor_out", "zeros_scale_0p1", [np.zeros((4,), np.float32), -128, 127, 1e-7, I8],
           [Out(np.array([0.1])), Out(np.array([127], np.int64))], tol=(1e-7, 0))


def _q_rows(x, s, z, qmin, qmax, dt):
    out = np.zeros(x.shape, dt)
    for idx in np.ndindex(*x.shape[:-1]):
        out[idx] = _q(x[idx], s[idx][0], z[idx][0], qmin, qmax, dt)
    return out
