"""Oracle cases: every dtype through the data-movement and conversion operators (a _to_copy
matrix over 10 dtypes; each shape / index / copy kernel once per dtype)."""
import numpy as np

from oracle import BF16, BOOL, CL, F16, F32, F64, I8, I16, I32, I64, U8, OptTList, Out, T, TList, bf16

DTS = [U8, I8, I16, I32, I64, F16, F32, F64, BOOL, BF16]
NAME = {U8: "u8", I8: "i8", I16: "i16", I32: "i32", I64: "i64", F16: "f16", F32: "f32", F64: "f64", BOOL: "bool", BF16: "bf16"}
NP = {U8: np.uint8, I8: np.int8, I16: np.int16, I32: np.int32, I64: np.int64, F16: np.float16, F32: np.float32,
      F64: np.float64, BOOL: np.bool_, BF16: np.float32}


def _vals(dt, shape):
    """Values exactly representable in every dtype that can hold them (small non-negative ints,
    plus halves for floats)."""
    n = int(np.prod(shape))
    base = np.arange(n) % 7
    if dt == BOOL:
        return (base % 2 == 1).reshape(shape)
    if dt in (F16, F32, F64, BF16):
        return (base * 0.5).astype(NP[dt]).reshape(shape)
    return base.astype(NP[dt]).reshape(shape)


def _t(arr, dt, order=None):
    return T(arr, order=order, dtype=dt)


def _o(arr, dt, order=None):
    return Out(np.asarray(arr).astype(NP[dt]) if dt != BF16 else bf16(np.asarray(arr, np.float32)), order=order, dtype=dt)


def _convert(v, src, dst):
    if dst == BOOL:
        return v != 0
    if dst in (F16, F32, F64, BF16):
        return v.astype(np.float64)
    return np.trunc(v.astype(np.float64)).astype(np.int64)  # values are small and non-negative


def cases(g):
    for s in DTS:
        v = _vals(s, (2, 3))
        for d in DTS:
            g.case("aten::_to_copy.out", "%s_to_%s" % (NAME[s], NAME[d]), [_t(v, s), False, None], [_o(_convert(v, s, d), d)])
    for dt in DTS:
        n = NAME[dt]
        x = _vals(dt, (2, 3, 2, 2))
        y = _vals(dt, (2, 3))
        g.case("aten::permute_copy.out", n, [_t(y, dt), [1, 0]], [_o(y.T, dt)])
        g.case("aten::clone.out", n + "_cl", [_t(x, dt, CL), None], [_o(x, dt, CL)])
        g.case("aten::cat.out", n, [TList([_t(y, dt), _t(y, dt)]), 1], [_o(np.concatenate([y, y], 1), dt)])
        g.case("aten::flip.out", n, [_t(y, dt), [1]], [_o(np.flip(y, 1), dt)])
        g.case("aten::select_copy.int_out", n, [_t(x, dt, CL), 1, 2], [_o(x[:, 2], dt)])
        g.case("aten::slice_copy.Tensor_out", n, [_t(y, dt), 1, 1, 3, 1], [_o(y[:, 1:3], dt)])
        g.case("aten::expand_copy.out", n, [_t(y[:1], dt), [3, 3], False], [_o(np.broadcast_to(y[:1], (3, 3)), dt)])
        g.case("aten::repeat.out", n, [_t(y, dt), [2, 1]], [_o(np.tile(y, (2, 1)), dt)])
        g.case("aten::view_copy.out", n, [_t(y, dt), [3, 2]], [_o(y.reshape(3, 2), dt)])
        g.case("aten::transpose_copy.int_out", n, [_t(x, dt, CL), 1, 3], [_o(np.swapaxes(x, 1, 3), dt)])
        g.case("aten::unsqueeze_copy.out", n, [_t(y, dt), 0], [_o(y[None], dt)])
        g.case("aten::index_select.out", n, [_t(y, dt), 1, np.array([2, 0], np.int64)], [_o(y[:, [2, 0]], dt)])
        g.case("aten::index.Tensor_out", n, [_t(y, dt), OptTList([T(np.array([1, 1, 0], np.int64))])], [_o(y[[1, 1, 0]], dt)])
        g.case("aten::gather.out", n, [_t(y, dt), 1, np.array([[2, 0], [1, 1]], np.int64), False],
               [_o(np.take_along_axis(y, np.array([[2, 0], [1, 1]]), 1), dt)])
        c = np.array([[True, False, True], [False, True, False]])
        g.case("aten::where.self_out", n, [c, _t(y, dt), _t(y[::-1].copy(), dt)], [_o(np.where(c, y, y[::-1]), dt)])
        one = True if dt == BOOL else 1
        g.case("aten::masked_fill.Scalar_out", n, [_t(y, dt), c, one], [_o(np.where(c, one, y), dt)])
        g.case("aten::constant_pad_nd.out", n, [_t(y, dt), [1, 1], one], [_o(np.pad(y, ((0, 0), (1, 1)), constant_values=one), dt)])
        g.case("aten::full_like.out", n, [_t(y, dt), one, None], [_o(np.full(y.shape, one), dt)])
        g.case("aten::fill.Scalar_out", n, [_t(y, dt), one], [_o(np.full(y.shape, one), dt)])
        g.case("aten::stack.out", n, [TList([_t(y, dt), _t(y, dt)]), 2], [_o(np.stack([y, y], 2), dt)])
        g.case("aten::alias_copy.out", n, [_t(y, dt)], [_o(y, dt)])
        g.case("aten::eq.Tensor_out", n, [_t(y, dt), _t(y[:, ::-1].copy(), dt)], [Out(y == y[:, ::-1])])
        if dt != BOOL:
            g.case("aten::add.out", n, [_t(y, dt), _t(y, dt), 1], [_o(y.astype(np.float64) + y, dt)])
            g.case("aten::amax.out", n, [_t(y, dt), [1], False], [_o(y.max(1), dt)])
            g.case("aten::argmax.out", n, [_t(y, dt), 1, False], [Out(np.argmax(y, 1).astype(np.int64))])
            g.case("aten::sum.IntList_out", n, [_t(y, dt), [1], False, None], [_o(y.astype(np.float64).sum(1), dt)])
