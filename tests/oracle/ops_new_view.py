"""Oracle cases for view-like copies and rearrangements added by other helpers (issue 13):
as_strided / diagonal / narrow / unbind / unfold / detach / lift_fresh / view_as_real copies,
copy_, pixel_(un)shuffle, repeat_interleave, roll, tril, topk."""
import numpy as np

from oracle import CL, F32, I64, Out, OutList, Ret, T, rand


def _unfold(x, d, size, step):
    n = (x.shape[d] - size) // step + 1
    parts = [np.take(x, np.arange(i * step, i * step + size), axis=d) for i in range(n)]
    st = np.stack(parts, axis=d)  # [.., n, size, ..] with size at d + 1
    return np.moveaxis(st, d + 1, -1)


def _pixel_shuffle(x, r):
    N, C, H, W = x.shape
    return x.reshape(N, C // (r * r), r, r, H, W).transpose(0, 1, 4, 2, 5, 3).reshape(N, C // (r * r), H * r, W * r)


def _pixel_unshuffle(x, r):
    N, C, H, W = x.shape
    return x.reshape(N, C, H // r, r, W // r, r).transpose(0, 1, 3, 5, 2, 4).reshape(N, C * r * r, H // r, W // r)


def cases(g):
    x = rand((3, 4))
    x3 = rand((2, 3, 4))
    flat = x.reshape(-1)
    g.case("aten::as_strided_copy.out", "transpose_like", [x, [4, 3], [1, 4], None], [Out(x.T.copy())])
    g.case("aten::as_strided_copy.out", "offset_overlap", [x, [3, 2], [2, 1], 1],
           [Out(np.array([[flat[1 + 2 * i + j] for j in range(2)] for i in range(3)], np.float32))])
    g.case("aten::diagonal_copy.out", "main", [x, 0, 0, 1], [Out(np.diagonal(x).copy())])
    g.case("aten::diagonal_copy.out", "offset_pos", [x, 1, 0, 1], [Out(np.diagonal(x, 1).copy())])
    g.case("aten::diagonal_copy.out", "offset_neg", [x, -2, 0, 1], [Out(np.diagonal(x, -2).copy())])
    g.case("aten::diagonal_copy.out", "3d_dims", [x3, 0, 2, 0], [Out(np.diagonal(x3, 0, 2, 0).copy())])
    g.case("aten::diagonal_copy.out", "offset_past_end", [x, 7, 0, 1], [Out(np.zeros((0,), np.float32))])
    g.case("aten::narrow_copy.out", "dim1", [x, 1, 1, 2], [Out(x[:, 1:3].copy())])
    g.case("aten::narrow_copy.out", "neg_start", [x, 0, -2, 2], [Out(x[1:3].copy())])
    g.case("aten::narrow_copy.out", "err_range", [x, 1, 3, 2], [Out(dtype=F32, shape=(3, 2))], error=("InvalidArgument", "exceeds"))
    g.case("aten::unbind_copy.int_out", "dim0", [x, 0], [OutList([Out(x[i].copy()) for i in range(3)])])
    g.case("aten::unbind_copy.int_out", "dim_neg", [x3, -1], [OutList([Out(x3[:, :, i].copy()) for i in range(4)])])
    g.case("aten::unfold_copy.out", "dim1", [x, 1, 2, 1], [Out(_unfold(x, 1, 2, 1))])
    g.case("aten::unfold_copy.out", "dim0_step2", [x3, 2, 2, 2], [Out(_unfold(x3, 2, 2, 2))])
    g.case("aten::unfold_copy.out", "0d", [np.array(3.0, np.float32), 0, 1, 1], [Out(np.array([3.0], np.float32))])
    g.case("aten::detach_copy.out", "f32", [x], [Out(x.copy())])
    g.case("aten::lift_fresh_copy.out", "i64", [np.arange(5, dtype=np.int64)], [Out(np.arange(5, dtype=np.int64))])
    z = (rand((2, 3)) + 1j * rand((2, 3))).astype(np.complex64)
    g.case("aten::view_as_real_copy.out", "c64", [z], [Out(np.stack([z.real, z.imag], -1).astype(np.float32))])
    # copy_(self, src, non_blocking) -> self (functional return appended once)
    src = rand((4,))
    g.case("aten::copy_", "bcast", [x, src, False], [Ret(np.broadcast_to(src, x.shape).copy())])
    g.case("aten::copy_", "dtype_convert", [x, (x * 10).astype(np.int32), False], [Ret((x * 10).astype(np.int32).astype(np.float32))])
    xp = rand((1, 8, 2, 3))
    g.case("aten::pixel_shuffle.out", "r2", [xp, 2], [Out(_pixel_shuffle(xp, 2))])
    g.case("aten::pixel_shuffle.out", "channels_last", [T(xp, CL), 2], [Out(_pixel_shuffle(xp, 2), order=CL)])
    xu = rand((1, 2, 4, 6))
    g.case("aten::pixel_unshuffle.out", "r2", [xu, 2], [Out(_pixel_unshuffle(xu, 2))])
    g.case("aten::pixel_shuffle.out", "err_channels", [rand((1, 6, 2, 2)), 2], [Out(dtype=F32, shape=(1, 1, 4, 4))],
           error=("InvalidArgument", "upscale_factor"))
    rp = np.array([1, 0, 3, 2], np.int64)
    g.case("aten::repeat_interleave.Tensor_out", "basic", [rp, None], [Out(np.repeat(np.arange(4), rp).astype(np.int64))])
    g.case("aten::repeat_interleave.Tensor_out", "output_size", [rp, 6], [Out(np.repeat(np.arange(4), rp).astype(np.int64))])
    g.case("aten::repeat_interleave.Tensor_out", "i32", [rp.astype(np.int32), None],
           [Out(np.repeat(np.arange(4), rp).astype(np.int32))])
    g.case("aten::roll.out", "dim1", [x, [1], [1]], [Out(np.roll(x, 1, 1))])
    g.case("aten::roll.out", "two_dims_neg", [x, [-1, 5], [0, 1]], [Out(np.roll(x, (-1, 5), (0, 1)))])
    g.case("aten::roll.out", "flat", [x, [3], []], [Out(np.roll(x, 3))])
    g.case("aten::tril.out", "main", [x, 0], [Out(np.tril(x))])
    g.case("aten::tril.out", "pos", [x, 1], [Out(np.tril(x, 1))])
    g.case("aten::tril.out", "neg_3d", [x3, -1], [Out(np.tril(x3, -1))])
    g.case("aten::tril.out", "i32", [(x * 10).astype(np.int32), 0], [Out(np.tril((x * 10).astype(np.int32)))])
    # topk(self, k, dim, largest, sorted) -> (values, indices); distinct values (no ties)
    t = np.array([[0.5, 3.0, -1.0, 2.0, 7.0], [4.0, -2.0, 6.0, 1.0, 0.0]], np.float32)
    o = np.argsort(-t, axis=1, kind="stable")[:, :3]
    g.case("aten::topk.values", "largest", [t, 3, -1, True, True], [Out(np.take_along_axis(t, o, 1)), Out(o.astype(np.int64))])
    o2 = np.argsort(t, axis=1, kind="stable")[:, :2]
    g.case("aten::topk.values", "smallest", [t, 2, 1, False, True], [Out(np.take_along_axis(t, o2, 1)), Out(o2.astype(np.int64))])
    o3 = np.argsort(-t, axis=0, kind="stable")[:1]
    g.case("aten::topk.values", "dim0", [t, 1, 0, True, True], [Out(np.take_along_axis(t, o3, 0)), Out(o3.astype(np.int64))])
    g.case("aten::topk.values", "err_k", [t, 6, 1, True, True], [Out(dtype=F32, shape=(2, 6)), Out(dtype=I64, shape=(2, 6))],
           error=("InvalidArgument", "k"))
