"""Oracle cases: the primitive operators (aten::sym_size.int, aten::sym_numel,
aten::_local_scalar_dense, executorch_prim::*). Expected values are Python's own operators
(floor division and modulo with Python's signs, round() half to even, math.ceil/trunc, int(),
float()), evaluated here at table-generation time. executorch_prim::et_view.default has its
cases in ops_shape.py."""
import math

import numpy as np

from oracle import Alias, OutScalar, T, rand

INTS = [-7, -2, 0, 3, 7, 1000000007]
DBLS = [-7.5, -2.5, -0.5, 0.5, 2.5, 3.25]


def _kind(v):
    if isinstance(v, bool):
        return "B"
    if isinstance(v, int):
        return "I"
    return "D"


def _binary(g, op, fn, pairs, tag):
    for k, (a, b) in enumerate(pairs):
        want = fn(a, b)
        g.case(op, "%s%d" % (tag, k), [a, b], [OutScalar(_kind(want), want)])


def cases(g):
    x = rand((2, 3, 4))
    g.case("aten::sym_size.int", "dim1", [x, 1], [OutScalar("I", 3)])
    g.case("aten::sym_size.int", "dim_neg", [x, -1], [OutScalar("I", 4)])
    g.case("aten::sym_size.int", "err_dim", [x, 3], [OutScalar("I", None)], error=("InvalidArgument", "dim 3"))
    g.case("aten::sym_numel", "rank3", [x], [OutScalar("I", 24)])
    g.case("aten::sym_numel", "empty", [np.zeros((2, 0), np.float32)], [OutScalar("I", 0)])

    g.case("aten::_local_scalar_dense", "i32", [np.array([-42], np.int32)], [OutScalar("I", -42)])
    g.case("aten::_local_scalar_dense", "i64_0d", [np.array(1 << 40, np.int64)], [OutScalar("I", 1 << 40)])
    g.case("aten::_local_scalar_dense", "f32", [np.array([2.25], np.float32)], [OutScalar("D", 2.25)])
    g.case("aten::_local_scalar_dense", "f64", [np.array([-0.125], np.float64)], [OutScalar("D", -0.125)])
    g.case("aten::_local_scalar_dense", "err_f16", [np.array([1.5], np.float16)], [OutScalar("D", None)],
           error=("InvalidType", "float16"))  # not one of upstream's dtypes for this op
    g.case("aten::_local_scalar_dense", "bool", [np.array([True])], [OutScalar("B", True)])
    g.case("aten::_local_scalar_dense", "err_empty", [np.zeros((0,), np.float32)], [OutScalar("D", None)],
           error=("InvalidArgument", "no elements"))

    ipairs = [(a, b) for a in INTS for b in INTS if b != 0][::3]
    dpairs = [(a, b) for a in DBLS for b in DBLS][::4]
    mixed = [(3, 0.5), (-2.5, 4), (7, -2.0)]
    _binary(g, "executorch_prim::add.Scalar", lambda a, b: a + b, ipairs[:4] + dpairs[:3] + mixed, "c")
    _binary(g, "executorch_prim::sub.Scalar", lambda a, b: a - b, ipairs[:4] + dpairs[:3] + mixed, "c")
    _binary(g, "executorch_prim::mul.Scalar", lambda a, b: a * b, ipairs[:4] + dpairs[:3] + mixed, "c")
    _binary(g, "executorch_prim::truediv.Scalar", lambda a, b: float(a) / float(b), ipairs[:6] + dpairs[:4] + mixed, "c")
    _binary(g, "executorch_prim::floordiv.Scalar", lambda a, b: a // b, ipairs + dpairs + mixed, "c")
    _binary(g, "executorch_prim::floordiv.int", lambda a, b: a // b, ipairs, "c")
    _binary(g, "executorch_prim::mod.int", lambda a, b: a % b, ipairs, "c")
    _binary(g, "executorch_prim::mod.Scalar", lambda a, b: a % b, ipairs, "c")
    g.case("executorch_prim::mod.Scalar", "err_double", [7.5, 2.0], [OutScalar("D", None)],
           error=("InvalidType", "expected Int"))  # Ints only, as upstream
    for op in ("executorch_prim::floordiv.int", "executorch_prim::mod.int", "executorch_prim::floordiv.Scalar",
               "executorch_prim::mod.Scalar"):
        g.case(op, "err_div_zero", [7, 0], [OutScalar("I", None)], error=("InvalidArgument", "division by zero"))
    g.case("executorch_prim::floordiv.int", "err_type", [7, 2.0], [OutScalar("I", None)], error=("InvalidType", "b is Double"))

    cmp = {"eq": lambda a, b: a == b, "gt": lambda a, b: a > b, "lt": lambda a, b: a < b,
           "ge": lambda a, b: a >= b, "le": lambda a, b: a <= b}
    cpairs = [(3, 3), (3, 4), (-2.5, -2.5), (2, 2.5), (0.5, -7), (True, False), (False, False)]
    for name, fn in cmp.items():
        _binary(g, "executorch_prim::%s.Scalar" % name, fn, cpairs, "c")

    for k, v in enumerate([5, -3, 2.5, -0.0]):
        g.case("executorch_prim::neg.Scalar", "c%d" % k, [v], [OutScalar(_kind(-v), -v)])
    for k, v in enumerate([-2.5, -0.5, 0.5, 1.5, 2.5, 3.7, -3.7, 1e15 + 0.5]):
        g.case("executorch_prim::round.Scalar", "c%d" % k, [v], [OutScalar("I", round(v))])
        g.case("executorch_prim::ceil.Scalar", "c%d" % k, [v], [OutScalar("I", math.ceil(v))])
        g.case("executorch_prim::trunc.Scalar", "c%d" % k, [v], [OutScalar("I", math.trunc(v))])
        g.case("executorch_prim::sym_int.Scalar", "c%d" % k, [v], [OutScalar("I", int(v))])
    g.case("executorch_prim::round.Scalar", "err_inf", [math.inf], [OutScalar("I", None)], error=("InvalidArgument", ""))
    g.case("executorch_prim::sym_int.Scalar", "int", [9], [OutScalar("I", 9)])
    for k, v in enumerate([3, -7, 2.5]):
        g.case("executorch_prim::sym_float.Scalar", "c%d" % k, [v], [OutScalar("D", float(v))])
    _binary(g, "executorch_prim::sym_max.Scalar", max, [(3, 4), (-5, -9), (7, 7)], "c")
    _binary(g, "executorch_prim::sym_min.Scalar", min, [(3, 4), (-5, -9), (7, 7)], "c")
    g.case("executorch_prim::sym_not.Scalar", "t", [True], [OutScalar("B", False)])
    g.case("executorch_prim::sym_not.Scalar", "f", [False], [OutScalar("B", True)])
    g.case("executorch_prim::sym_not.Scalar", "err_int", [1], [OutScalar("B", None)], error=("InvalidType", "a is Int"))
    g.case("executorch_prim::sym_ite.Scalar", "then", [True, 11, 22], [OutScalar("I", 11)])
    g.case("executorch_prim::sym_ite.Scalar", "else", [False, 11, 22], [OutScalar("I", 22)])
    g.case("executorch_prim::sym_ite.Scalar", "dbl", [False, 1.5, -2.5], [OutScalar("D", -2.5)])

    # et_copy_index(copy_to, to_copy, index): row `index` of copy_to becomes to_copy and copy_to
    # keeps index + 1 rows (here the static [3, 2] with index 2)
    dst = np.zeros((3, 2), np.int32)
    row = np.array([5, -6], np.int32)
    want = dst.copy()
    want[2] = row
    g.case("executorch_prim::et_copy_index.tensor", "last_row", [dst, row, 2], [Alias(0, want)])
    fdst = rand((2, 3))
    frow = rand((3,))
    fwant = fdst.copy()
    fwant[1] = frow
    g.case("executorch_prim::et_copy_index.tensor", "f32", [fdst, frow, 1], [Alias(0, fwant)])
    g.case("executorch_prim::et_copy_index.tensor", "err_shape", [dst, np.zeros((3,), np.int32), 2],
           [Alias(0, want)], error=("InvalidArgument", "to_copy"))
