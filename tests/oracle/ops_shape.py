"""Oracle cases: shape and copy operators (cat, stack, split, permute, view, expand, select,
slice, squeeze, unsqueeze, t, transpose, repeat, flip, alias/clone/copy, _to_copy, dim-order
copies, constant_pad_nd, et_view)."""
import numpy as np

from oracle import BOOL, CL, F32, I32, I64, Out, OutList, Ret, T, TList, rand, f32_edges


def cases(g):
    a = rand((2, 3))
    b = rand((2, 4))
    c = rand((2, 1))
    # cat
    g.case("aten::cat.out", "f32_dim1", [TList([a, b, c]), 1], [Out(np.concatenate([a, b, c], 1))])
    a1 = rand((1, 3))
    g.case("aten::cat.out", "f32_dim0", [TList([a, a1]), 0], [Out(np.concatenate([a, a1], 0))])
    g.case("aten::cat.out", "f32_dim_neg", [TList([a, b]), -1], [Out(np.concatenate([a, b], -1))])
    g.case("aten::cat.out", "legacy_empty_skipped", [TList([a, np.zeros((0,), np.float32), a]), 0],
           [Out(np.concatenate([a, a], 0))])
    g.case("aten::cat.out", "single", [TList([a]), 0], [Out(a.copy())])
    ia, ib = rand((2, 2), np.int32, -9, 9), rand((2, 2), np.int64, -9, 9)
    g.case("aten::cat.out", "promote_i32_i64", [TList([ia, ib]), 1], [Out(np.concatenate([ia.astype(np.int64), ib], 1))])
    g.case("aten::cat.out", "promote_i32_f32", [TList([ia, a[:, :2].copy()]), 0],
           [Out(np.concatenate([ia.astype(np.float32), a[:, :2]], 0))])
    x4, y4 = rand((2, 3, 2, 2)), rand((2, 1, 2, 2))
    g.case("aten::cat.out", "channels_last_dim1", [TList([T(x4, CL), T(y4, CL)]), 1],
           [Out(np.concatenate([x4, y4], 1), order=CL)])
    g.case("aten::cat.out", "bool", [TList([np.array([True]), np.array([False, True])]), 0],
           [Out(np.array([True, False, True]))])
    g.case("aten::cat.out", "err_shape_mismatch", [TList([a, rand((3, 3))]), 1], [Out(dtype=F32, shape=(2, 6))],
           error=("InvalidArgument", "sizes of tensors"))
    g.case("aten::cat.out", "err_dim_range", [TList([a, a]), 2], [Out(dtype=F32, shape=(2, 6))],
           error=("InvalidArgument", "dim"))
    # stack
    g.case("aten::stack.out", "f32_dim0", [TList([a, a * 2, a * 3]), 0], [Out(np.stack([a, a * 2, a * 3], 0))])
    g.case("aten::stack.out", "f32_dim2", [TList([a, a + 1]), 2], [Out(np.stack([a, a + 1], 2))])
    g.case("aten::stack.out", "f32_dim_neg", [TList([a, a + 1]), -1], [Out(np.stack([a, a + 1], -1))])
    g.case("aten::stack.out", "i64_0d", [TList([np.array(3, np.int64), np.array(-4, np.int64)]), 0],
           [Out(np.array([3, -4], np.int64))])
    g.case("aten::stack.out", "err_shape_mismatch", [TList([a, b]), 0], [Out(dtype=F32, shape=(2, 2, 3))],
           error=("InvalidArgument", "equal size"))
    # split
    x = rand((5, 4))
    g.case("aten::split_copy.Tensor_out", "f32_dim0", [x, 2, 0], [OutList([Out(x[0:2]), Out(x[2:4]), Out(x[4:5])])])
    g.case("aten::split_copy.Tensor_out", "f32_dim1", [x, 3, 1], [OutList([Out(x[:, 0:3]), Out(x[:, 3:4])])])
    g.case("aten::split_copy.Tensor_out", "f32_dim_neg_whole", [x, 4, -1], [OutList([Out(x.copy())])])
    g.case("aten::split_with_sizes_copy.out", "f32", [x, [1, 0, 3], 1],
           [OutList([Out(x[:, 0:1]), Out(x[:, 1:1]), Out(x[:, 1:4])])])
    g.case("aten::split_with_sizes_copy.out", "i32_dim0", [(x * 10).astype(np.int32), [2, 3], 0],
           [OutList([Out((x * 10).astype(np.int32)[0:2]), Out((x * 10).astype(np.int32)[2:5])])])
    g.case("aten::split_with_sizes_copy.out", "err_sizes_sum", [x, [1, 2], 1],
           [OutList([Out(dtype=F32, shape=(5, 1)), Out(dtype=F32, shape=(5, 2))])], error=("InvalidArgument", "split"))
    # permute / t / transpose
    x3 = rand((2, 3, 4))
    g.case("aten::permute_copy.out", "f32", [x3, [2, 0, 1]], [Out(np.transpose(x3, (2, 0, 1)))])
    g.case("aten::permute_copy.out", "neg_dims", [x3, [-1, -2, -3]], [Out(np.transpose(x3, (2, 1, 0)))])
    g.case("aten::permute_copy.out", "channels_last_in", [T(x4, CL), [0, 2, 3, 1]], [Out(np.transpose(x4, (0, 2, 3, 1)))])
    i8 = rand((2, 3), np.int8, -100, 100)
    g.case("aten::permute_copy.out", "i8", [i8, [1, 0]], [Out(i8.T.copy())])
    g.case("aten::permute_copy.out", "err_repeated_dim", [x3, [0, 0, 1]], [Out(dtype=F32, shape=(2, 2, 3))],
           error=("InvalidArgument", "repeated dim"))
    g.case("aten::t_copy.out", "f32_2d", [a], [Out(a.T.copy())])
    g.case("aten::t_copy.out", "f32_1d", [a[0].copy()], [Out(a[0].copy())])
    g.case("aten::t_copy.out", "f32_0d", [np.array(2.0, np.float32)], [Out(np.array(2.0, np.float32))])
    g.case("aten::transpose_copy.int_out", "f32", [x3, 0, 2], [Out(np.swapaxes(x3, 0, 2))])
    g.case("aten::transpose_copy.int_out", "neg", [x3, -1, 1], [Out(np.swapaxes(x3, 2, 1))])
    g.case("aten::transpose_copy.int_out", "err_dim_range", [x3, 0, 3], [Out(dtype=F32, shape=(2, 3, 4))],
           error=("InvalidArgument", "dim"))
    # view / et_view
    g.case("aten::view_copy.out", "f32", [x3, [4, 6]], [Out(x3.reshape(4, 6))])
    g.case("aten::view_copy.out", "infer", [x3, [-1, 2]], [Out(x3.reshape(-1, 2))])
    g.case("aten::view_copy.out", "to_0d", [np.array([5.0], np.float32), []], [Out(np.array(5.0, np.float32))])
    g.case("aten::view_copy.out", "channels_last_in", [T(x4, CL), [2, 12]], [Out(x4.reshape(2, 12))])
    g.case("aten::view_copy.out", "err_numel", [x3, [5, 5]], [Out(dtype=F32, shape=(5, 5))], error=("InvalidArgument", "shape"))
    g.case("executorch_prim::et_view.default", "f32", [x3, [3, 8]], [Ret(x3.reshape(3, 8))])
    g.case("executorch_prim::et_view.default", "infer", [x3, [-1]], [Ret(x3.reshape(-1))])
    # expand
    e1 = rand((3, 1))
    g.case("aten::expand_copy.out", "f32", [e1, [3, 4], False], [Out(np.broadcast_to(e1, (3, 4)).copy())])
    g.case("aten::expand_copy.out", "new_dims_keep", [e1, [2, -1, 5], False], [Out(np.broadcast_to(e1, (2, 3, 5)).copy())])
    g.case("aten::expand_copy.out", "0d", [np.array(7, np.int32), [2, 2], False], [Out(np.full((2, 2), 7, np.int32))])
    g.case("aten::expand_copy.out", "err_size", [e1, [4, 4], False], [Out(dtype=F32, shape=(4, 4))], error=("InvalidArgument", "size"))
    # select / slice
    g.case("aten::select_copy.int_out", "f32", [x3, 1, 2], [Out(x3[:, 2])])
    g.case("aten::select_copy.int_out", "neg_index", [x3, 2, -1], [Out(x3[:, :, -1])])
    g.case("aten::select_copy.int_out", "to_0d", [a[0].copy(), 0, 1], [Out(np.asarray(a[0, 1]))])
    g.case("aten::select_copy.int_out", "channels_last", [T(x4, CL), 1, 0], [Out(x4[:, 0])])
    g.case("aten::select_copy.int_out", "err_index_range", [x3, 1, 3], [Out(dtype=F32, shape=(2, 4))], error=("InvalidArgument", "index"))
    g.case("aten::select_copy.int_out", "err_dim_range", [x3, 3, 0], [Out(dtype=F32, shape=(2, 3))], error=("InvalidArgument", "dim"))
    s = rand((6, 5))
    g.case("aten::slice_copy.Tensor_out", "step2", [s, 0, 1, 6, 2], [Out(s[1:6:2])])
    g.case("aten::slice_copy.Tensor_out", "neg_start", [s, 1, -3, None, 1], [Out(s[:, -3:])])
    g.case("aten::slice_copy.Tensor_out", "none_none", [s, 1, None, None, 3], [Out(s[:, ::3])])
    g.case("aten::slice_copy.Tensor_out", "clamped_end", [s, 0, 2, 100, 1], [Out(s[2:100])])
    g.case("aten::slice_copy.Tensor_out", "empty", [s, 0, 4, 2, 1], [Out(s[4:2])])
    g.case("aten::slice_copy.Tensor_out", "neg_end", [s, -1, 0, -1, 1], [Out(s[:, 0:-1])])
    g.case("aten::slice_copy.Tensor_out", "err_step0", [s, 0, 0, 6, 0], [Out(dtype=F32, shape=(6, 5))], error=("InvalidArgument", "step"))
    # squeeze / unsqueeze
    q = rand((1, 3, 1, 2))
    g.case("aten::squeeze_copy.dim_out", "dim0", [q, 0], [Out(q.reshape(3, 1, 2))])
    g.case("aten::squeeze_copy.dim_out", "not_one_noop", [q, 1], [Out(q.copy())])
    g.case("aten::squeeze_copy.dim_out", "neg", [q, -2], [Out(q.reshape(1, 3, 2))])
    g.case("aten::squeeze_copy.dims_out", "both", [q, [0, 2]], [Out(q.reshape(3, 2))])
    g.case("aten::squeeze_copy.dims_out", "mixed", [q, [1, 2]], [Out(q.reshape(1, 3, 2))])
    g.case("aten::unsqueeze_copy.out", "dim0", [a, 0], [Out(a[None])])
    g.case("aten::unsqueeze_copy.out", "last", [a, 2], [Out(a[:, :, None])])
    g.case("aten::unsqueeze_copy.out", "neg", [a, -1], [Out(a[:, :, None])])
    g.case("aten::unsqueeze_copy.out", "0d", [np.array(3, np.int64), 0], [Out(np.array([3], np.int64))])
    g.case("aten::unsqueeze_copy.out", "err_dim_range", [a, 4], [Out(dtype=F32, shape=(2, 3, 1))], error=("InvalidArgument", "dim"))
    # repeat / flip
    g.case("aten::repeat.out", "f32", [a, [2, 3]], [Out(np.tile(a, (2, 3)))])
    g.case("aten::repeat.out", "more_dims", [a, [2, 1, 2]], [Out(np.tile(a, (2, 1, 2)))])
    g.case("aten::repeat.out", "zero", [a, [0, 1]], [Out(np.tile(a, (0, 1)))])
    g.case("aten::repeat.out", "err_too_few", [a, [2]], [Out(dtype=F32, shape=(2, 6))], error=("InvalidArgument", "repeat dims"))
    g.case("aten::flip.out", "f32_dim0", [x3, [0]], [Out(np.flip(x3, 0).copy())])
    g.case("aten::flip.out", "f32_dims", [x3, [0, -1]], [Out(np.flip(x3, (0, 2)).copy())])
    g.case("aten::flip.out", "channels_last", [T(x4, CL), [1, 3]], [Out(np.flip(x4, (1, 3)).copy(), order=CL)])
    g.case("aten::flip.out", "err_dim_range", [x3, [3]], [Out(dtype=F32, shape=(2, 3, 4))], error=("InvalidArgument", "dim"))
    # alias / clone / copy
    e = f32_edges()
    g.case("aten::alias_copy.out", "f32_edges", [e], [Out(e.copy())])
    g.case("aten::clone.out", "f32", [x3, None], [Out(x3.copy())])
    g.case("aten::clone.out", "channels_last", [T(x4, CL), None], [Out(x4.copy(), order=CL)])
    g.case("aten::clone.out", "bool", [np.array([True, False]), None], [Out(np.array([True, False]))])
    g.case("aten::copy.out", "bcast_src", [a, rand((3,)) * 0 + np.float32(1.25), False], [Out(np.full((2, 3), 1.25, np.float32))])
    src = rand((2, 3), np.int32, -5, 5)
    g.case("aten::copy.out", "src_dtype_converted", [a, src, False], [Out(src.astype(np.float32))])
    # _to_copy: dtype conversion by the out tensor
    f = np.array([-2.75, -0.5, 0.0, 0.5, 1.99, 100.25], np.float32)
    g.case("aten::_to_copy.out", "f32_to_i32_truncates", [f, False, None], [Out(np.trunc(f).astype(np.int32))])
    g.case("aten::_to_copy.out", "f32_to_bool", [f, False, None], [Out(f != 0)])
    g.case("aten::_to_copy.out", "i64_to_f32", [np.array([1, -7, 2 ** 40], np.int64), False, None],
           [Out(np.array([1, -7, 2 ** 40], np.float32))])
    g.case("aten::_to_copy.out", "f32_to_f16", [f, False, None], [Out(f.astype(np.float16))])
    g.case("aten::_to_copy.out", "f16_to_f32", [f.astype(np.float16), False, None], [Out(f.astype(np.float16).astype(np.float32))])
    g.case("aten::_to_copy.out", "f32_to_f64", [e, False, None], [Out(e.astype(np.float64))])
    g.case("aten::_to_copy.out", "bool_to_u8", [np.array([True, False]), False, None], [Out(np.array([1, 0], np.uint8))])
    g.case("aten::_to_copy.out", "i32_to_i8_wraps", [np.array([300, -129, 5], np.int32), False, None],
           [Out(np.array([300, -129, 5], np.int32).astype(np.int8))])
    g.case("aten::_to_copy.out", "to_channels_last", [x4, False, None], [Out(x4.copy(), order=CL)])
    g.case("dim_order_ops::_to_dim_order_copy.out", "to_channels_last", [x4, False, [0, 2, 3, 1]], [Out(x4.copy(), order=CL)])
    g.case("dim_order_ops::_to_dim_order_copy.out", "from_channels_last", [T(x4, CL), False, [0, 1, 2, 3]], [Out(x4.copy())])
    g.case("dim_order_ops::_to_dim_order_copy.out", "f32_to_i64_none", [f, False, None], [Out(np.trunc(f).astype(np.int64))])
    g.case("dim_order_ops::_to_dim_order_copy.out", "err_dim_order_mismatch", [x4, False, [0, 2, 3, 1]],
           [Out(dtype=F32, shape=x4.shape)], error=("InvalidArgument", "dim_order"))
    g.case("dim_order_ops::_clone_dim_order.out", "to_channels_last", [x4, False, [0, 2, 3, 1]], [Out(x4.copy(), order=CL)])
    g.case("dim_order_ops::_clone_dim_order.out", "same", [x3, False, None], [Out(x3.copy())])
    # constant_pad_nd
    p = rand((2, 3))
    g.case("aten::constant_pad_nd.out", "last_dim", [p, [1, 2], 0.5], [Out(np.pad(p, ((0, 0), (1, 2)), constant_values=0.5))])
    g.case("aten::constant_pad_nd.out", "two_dims", [p, [0, 1, 2, 0], -1.0], [Out(np.pad(p, ((2, 0), (0, 1)), constant_values=-1.0))])
    g.case("aten::constant_pad_nd.out", "negative_crops", [p, [-1, 1], 0.0], [Out(np.pad(p, ((0, 0), (0, 1)))[:, 1:])])
    g.case("aten::constant_pad_nd.out", "i32", [src, [1, 1], 9], [Out(np.pad(src, ((0, 0), (1, 1)), constant_values=9))])
    g.case("aten::constant_pad_nd.out", "channels_last", [T(x4, CL), [1, 0, 0, 1], 2.0],
           [Out(np.pad(x4, ((0, 0), (0, 0), (0, 1), (1, 0)), constant_values=2.0), order=CL)])
    g.case("aten::constant_pad_nd.out", "err_odd_pad", [p, [1], 0.0], [Out(dtype=F32, shape=(2, 4))], error=("InvalidArgument", "pad"))
