#!/usr/bin/python3
"""kws_ref.py — independent numpy reference of the keyword-spotting network (kws_model.c).

Regenerates the weights and the input from the same LCG (seed 2026 for the parameters in the order
kws_model.c draws them, seed 7 for the input) and evaluates the network with integer numpy
arithmetic written from the CMSIS-NN definitions (no pte code involved): per-channel requantize =
rounding doubling high multiply, then a rounding right shift with ties away from zero; average
pooling rounded half away from zero; ReLU through the activation range.

Prints the pooled features (output 3) and the logits (output 2) in the runner's line format, plus
the expected label (argmax of the logits; the int8 softmax is monotonic, the label of the
probabilities is the same). Usage: kws_ref.py  (writes to stdout)
"""
import numpy as np

C, H, W, BLOCKS = 64, 25, 5, 4
Q30 = 1 << 30


class Lcg:
    def __init__(self, seed):
        self.s = seed

    def rnd(self, lo, hi):
        self.s = (self.s * 1664525 + 1013904223) & 0xFFFFFFFF
        return lo + ((self.s >> 8) % (hi - lo + 1))

    def arr(self, n, lo, hi):
        return np.array([self.rnd(lo, hi) for _ in range(n)], dtype=np.int64)


def requant(acc, mult, shift):
    """acc int64 array (last axis = channel), mult/shift per channel."""
    x = acc.astype(np.int64)
    pos = shift > 0
    if np.any(pos):
        x = np.where(pos, ((x << np.maximum(shift, 0)) + (1 << 31)) % (1 << 32) - (1 << 31), x)
    hi = np.floor_divide(x * mult + (1 << 30), 1 << 31)
    r = np.maximum(-shift, 0)
    mag = np.abs(hi)
    rounded = np.where(r > 0, (mag + (np.left_shift(1, np.maximum(r - 1, 0)))) >> r, mag)
    return np.where(hi < 0, -rounded, rounded)


def conv(x, w, bias, mult, shift, stride, pad, in_zp, out_zp, depthwise):
    """x int64 [H, W, Cin] (NHWC without N); w [Cout, kh, kw, Cin] or [1, kh, kw, C] (depthwise)."""
    kh, kw = w.shape[1], w.shape[2]
    hh, ww, cin = x.shape
    oh = (hh + 2 * pad[0] - kh) // stride[0] + 1
    ow = (ww + 2 * pad[1] - kw) // stride[1] + 1
    xp = np.zeros((hh + 2 * pad[0], ww + 2 * pad[1], cin), dtype=np.int64)
    xp[pad[0]:pad[0] + hh, pad[1]:pad[1] + ww, :] = x - in_zp  # padding contributes 0 after the offset
    cout = w.shape[3] if depthwise else w.shape[0]
    acc = np.zeros((oh, ow, cout), dtype=np.int64)
    for i in range(oh):
        for j in range(ow):
            patch = xp[i * stride[0]:i * stride[0] + kh, j * stride[1]:j * stride[1] + kw, :]
            if depthwise:
                acc[i, j, :] = np.sum(patch * w[0], axis=(0, 1))
            else:
                acc[i, j, :] = np.tensordot(w, patch, axes=([1, 2, 3], [0, 1, 2]))
    acc += bias
    return np.clip(requant(acc, mult, shift) + out_zp, out_zp, 127)


def main():
    g = Lcg(2026)

    def conv_params(depthwise, cin, cout, kh, kw, wmax, slo, shi):
        n = kh * kw * cout if depthwise else cout * kh * kw * cin
        w = g.arr(n, -wmax, wmax)
        w = w.reshape((1, kh, kw, cout) if depthwise else (cout, kh, kw, cin))
        return w, g.arr(cout, -400, 400), g.arr(cout, Q30, 2147483000), g.arr(cout, slo, shi)

    p_conv1 = conv_params(False, 1, C, 10, 4, 40, -7, -6)
    blocks = []
    for _ in range(BLOCKS):
        blocks.append((conv_params(True, C, C, 3, 3, 60, -6, -5), conv_params(False, C, C, 1, 1, 50, -6, -5)))
    w_fc = g.arr(12 * C, -100, 100).reshape(12, C)
    b_fc = g.arr(12, -900, 900)

    gi = Lcg(7)
    feat = np.array([np.float32(gi.rnd(0, 1999) - 1000) / np.float32(250.0) for _ in range(49 * 10)], dtype=np.float32)
    q = np.clip(np.rint(feat * np.float32(16.0)).astype(np.int64) - 7, -128, 127).reshape(49, 10, 1)

    a = conv(q, *p_conv1, stride=(2, 2), pad=(5, 1), in_zp=-7, out_zp=-20, depthwise=False)
    for dw, pw in blocks:
        a = conv(a, *dw, stride=(1, 1), pad=(1, 1), in_zp=-20, out_zp=-5, depthwise=True)
        a = conv(a, *pw, stride=(1, 1), pad=(0, 0), in_zp=-5, out_zp=-20, depthwise=False)
    s = a.reshape(H * W, C).sum(axis=0)
    cnt = H * W
    pooled = np.where(s > 0, (s + cnt // 2) // cnt, -((-s + cnt // 2) // cnt))  # truncating division
    pooled = np.clip(pooled, -128, 127)
    acc = (w_fc * (pooled + 20)[None, :]).sum(axis=1) + b_fc
    logits = np.clip(requant(acc, np.int64(1518500250), np.int64(-8)) + 3, -128, 127)

    def hexline(idx, v):
        return "out %d int8 %d: %s" % (idx, len(v), " ".join("%02x" % (int(x) & 0xFF) for x in v))

    print(hexline(2, logits))
    print(hexline(3, pooled))
    print("label %d" % int(np.argmax(logits)))


if __name__ == "__main__":
    main()
