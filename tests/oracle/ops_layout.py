"""Oracle cases: dim orders (channels-last inputs / outputs, mixed) through the existing shape,
index, reduction, pooling and convolution operators, plus ATen's advanced-indexing placement
rules (non-adjacent index tensors move to the front)."""
import numpy as np

from oracle import CL, F32, I64, OptTList, Out, OutList, T, TList, rand


def cases(g):
    x = rand((2, 3, 4, 5))
    X = T(x, CL)
    g.case("aten::permute_copy.out", "cl_in_cl_out", [X, [0, 1, 3, 2]], [Out(np.transpose(x, (0, 1, 3, 2)), order=CL)])
    e1 = rand((1, 3, 1, 1))
    g.case("aten::expand_copy.out", "cl_out", [e1, [2, 3, 4, 5], False], [Out(np.broadcast_to(e1, (2, 3, 4, 5)).copy(), order=CL)])
    g.case("aten::split_with_sizes_copy.out", "cl_dim1", [X, [1, 2], 1],
           [OutList([Out(x[:, :1].copy(), order=CL), Out(x[:, 1:].copy(), order=CL)])])
    g.case("aten::split_copy.Tensor_out", "cl_dim3", [X, 2, 3],
           [OutList([Out(x[..., 0:2].copy(), order=CL), Out(x[..., 2:4].copy(), order=CL), Out(x[..., 4:5].copy(), order=CL)])])
    g.case("aten::slice_copy.Tensor_out", "cl_dim2_step2", [X, 2, 0, 4, 2], [Out(x[:, :, 0:4:2].copy(), order=CL)])
    g.case("aten::cat.out", "cl_dim3", [TList([X, T(x[..., :2].copy(), CL)]), 3], [Out(np.concatenate([x, x[..., :2]], 3), order=CL)])
    g.case("aten::stack.out", "cl_inputs_dim0", [TList([X, X]), 0], [Out(np.stack([x, x]))])
    g.case("aten::repeat.out", "cl_in", [X, [1, 1, 1, 2]], [Out(np.tile(x, (1, 1, 1, 2)))])
    g.case("aten::flip.out", "cl_in_contig_out", [X, [2]], [Out(np.flip(x, 2).copy())])
    g.case("aten::transpose_copy.int_out", "cl_in", [X, 1, 3], [Out(np.swapaxes(x, 1, 3).copy())])
    g.case("aten::unsqueeze_copy.out", "cl_in", [X, 1], [Out(x[:, None])])
    g.case("aten::squeeze_copy.dims_out", "cl_in", [T(x[:, :1].copy(), CL), [1]], [Out(x[:, 0])])
    g.case("aten::index_select.out", "cl_dim3_i32", [X, 3, np.array([4, 0], np.int32)], [Out(x[..., [4, 0]], order=CL)])
    idx = rand((2, 3, 4, 2), np.int64, 0, 4)
    g.case("aten::gather.out", "cl_self_cl_index", [X, 3, T(idx, CL), False], [Out(np.take_along_axis(x, idx, 3), order=CL)])
    g.case("aten::cumsum.out", "cl_dim0", [X, 0, None], [Out(np.cumsum(x.astype(np.float64), 0).astype(np.float32), order=CL)])
    g.case("aten::argmax.out", "cl_dim1", [X, 1, False], [Out(np.argmax(x, 1).astype(np.int64))])
    g.case("aten::amax.out", "cl_dims23", [X, [2, 3], True], [Out(x.max((2, 3), keepdims=True), order=CL)])
    g.case("aten::any.dims_out", "cl", [T(x > 1.0, CL), [1, 2], False], [Out(np.any(x > 1.0, (1, 2)))])
    g.case("aten::logical_not.out", "cl", [X], [Out(x == 0, order=CL)])
    g.case("aten::_softmax.out", "cl_dim3_f64", [T(x.astype(np.float64), CL), 3, False],
           [Out(np.exp(x.astype(np.float64)) / np.exp(x.astype(np.float64)).sum(3, keepdims=True), order=CL)])
    g.case("aten::_to_copy.out", "cl_to_cl_f64", [X, False, None], [Out(x.astype(np.float64), order=CL)])
    w16 = rand((5, 3), np.float16)
    g.case("aten::embedding.out", "f16_weights", [w16, np.array([4, 1], np.int64), -1, False, False], [Out(w16[[4, 1]])])
    # advanced indexing: adjacent index tensors stay in place, separated ones go to the front
    y = rand((3, 4, 5, 2))
    i1, i2 = np.array([0, 2], np.int64), np.array([1, 3], np.int64)
    g.case("aten::index.Tensor_out", "adjacent_middle", [y, OptTList([None, T(i2), T(np.array([4, 0], np.int64))])],
           [Out(y[:, i2, [4, 0]])])
    g.case("aten::index.Tensor_out", "separated_to_front", [y, OptTList([T(i1), None, T(np.array([4, 0], np.int64))])],
           [Out(y[i1, :, [4, 0]])])
    g.case("aten::index.Tensor_out", "cl_self", [T(y, CL), OptTList([None, T(i2)])], [Out(y[:, i2])])
    g.case("aten::index.Tensor_out", "neg_index_2d", [y, OptTList([T(np.array([[-1, 0], [1, -2]], np.int64))])],
           [Out(y[np.array([[-1, 0], [1, -2]])])])
    # pooling / convolution / upsample with channels-last outs and odd windows
    xp = rand((1, 2, 7, 6))
    from ops_nn import _avg_pool2d, _max_pool2d, _nearest  # noqa: E402  (reference helpers)
    g.case("aten::avg_pool2d.out", "cl_ceil_pad", [T(xp, CL), [3, 2], [2, 2], [1, 1], True, True, None],
           [Out(_avg_pool2d(xp, [3, 2], [2, 2], [1, 1], True, True, None).astype(np.float32), order=CL)])
    y2, i2_ = _max_pool2d(xp, [3, 3], [2, 2], [1, 1], [2, 1], True)
    g.case("aten::max_pool2d_with_indices.out", "cl_dil_pad_ceil", [T(xp, CL), [3, 3], [2, 2], [1, 1], [2, 1], True],
           [Out(y2, order=CL), Out(i2_, order=CL)])
    g.case("aten::upsample_nearest2d.vec_out", "cl_down", [T(xp, CL), [3, 4], None], [Out(_nearest(xp, 3, 4), order=CL)])
    from ops_linalg import _conv, _conv_tol  # noqa: E402
    xc = rand((1, 4, 7, 7))
    wc = rand((4, 2, 3, 3))
    g.case("aten::convolution.out", "cl_groups2_stride2_dil2", [T(xc, CL), wc, None, [2, 2], [2, 1], [2, 2], False, [0, 0], 2],
           [Out(_conv(xc, wc, None, (2, 2), (2, 1), (2, 2), 2).astype(np.float32), order=CL)],
           tol=_conv_tol(xc, wc, None, (2, 2), (2, 1), (2, 2), 2))
