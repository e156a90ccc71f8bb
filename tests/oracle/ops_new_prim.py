"""Oracle cases for the primitive ops (issue 13; registered by other helpers). Facts of
upstream's prim ops: Int op Int stays Int, any Double makes a Double; truediv is always Double;
floordiv.Scalar floors (Python //), floordiv.int and mod.int / mod.Scalar truncate as C does;
ceil / round (half to even) / trunc take a Double and return an Int; sym_size / sym_numel /
_local_scalar_dense read a tensor. Each call is [inputs..., returned value].

Upstream's kernels/prim_ops/register_prim_ops.cpp computes floordiv.int as `a.toInt() / b.toInt()`
and mod.int / mod.Scalar as `a.toInt() % b.toInt()` (C truncation; mod.Scalar refuses Doubles),
while its floordiv.Scalar floors as Python does. pte deliberately floors in all four: these ops
carry Python's `//` and `%` on SymInts from the exported graph (torch.SymInt semantics are
Python's), and upstream's own floordiv.Scalar floors, so truncating .int overloads would make the
same graph compute differently depending on which overload the exporter chose. The two agree for
non-negative operands (every shape computation we know of); the "neg" cases below assert Python's
semantics and document the divergence (docs/robustness.md, "Where pte differs from upstream")."""
import math

import numpy as np

from oracle import Alias, OutScalar, T, rand


def _ctrunc_div(a, b):
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


def _cmod(a, b):
    return a - _ctrunc_div(a, b) * b


def cases(g):
    P = "executorch_prim::"
    for name, fn in (("add", lambda a, b: a + b), ("sub", lambda a, b: a - b), ("mul", lambda a, b: a * b)):
        for tag, a, b in (("int", 7, -3), ("double", 2.5, 0.25), ("int_double", 3, 0.5), ("double_int", -1.5, 4)):
            r = fn(a, b)
            kind = "I" if isinstance(r, int) else "D"
            g.case(P + name + ".Scalar", tag, [a, b], [OutScalar(kind, r)])
    for tag, a, b in (("int", 7, 2), ("neg", -7, 2), ("double", 1.0, 4.0), ("int_double", 3, 1.5)):
        g.case(P + "truediv.Scalar", tag, [a, b], [OutScalar("D", a / b)])
    for tag, a, b in (("int", 7, 2), ("neg_int", -7, 2), ("neg_divisor", 7, -2), ("exact_neg", -8, 2),
                      ("double", -7.5, 2.0), ("int_double", 7, 2.5)):
        r = a // b
        g.case(P + "floordiv.Scalar", tag, [a, b], [OutScalar("I" if isinstance(r, int) else "D", r)])
    for tag, a, b in (("pos", 7, 2), ("neg", -7, 2), ("neg_divisor", 7, -2)):
        g.case(P + "floordiv.int", tag, [a, b], [OutScalar("I", a // b)])  # Python floor division
        g.case(P + "mod.int", tag, [a, b], [OutScalar("I", a % b)])  # Python modulo: sign of b
        g.case(P + "mod.Scalar", tag, [a, b], [OutScalar("I", a % b)])
        # (upstream's runtime would give _ctrunc_div(a, b) and _cmod(a, b) for negative operands)
    for name, fn in (("eq", lambda a, b: a == b), ("gt", lambda a, b: a > b), ("lt", lambda a, b: a < b),
                     ("ge", lambda a, b: a >= b), ("le", lambda a, b: a <= b)):
        for tag, a, b in (("int_eq", 3, 3), ("int_lt", 2, 5), ("double", 2.5, -1.0), ("mixed", 2, 2.0)):
            g.case(P + name + ".Scalar", tag, [a, b], [OutScalar("B", fn(a, b))])
    g.case(P + "eq.Scalar", "bool", [True, True], [OutScalar("B", True)])
    g.case(P + "neg.Scalar", "int", [5], [OutScalar("I", -5)])
    g.case(P + "neg.Scalar", "double", [-2.5], [OutScalar("D", 2.5)])
    for tag, v in (("pos", 2.3), ("neg", -2.3), ("whole", 4.0)):
        g.case(P + "ceil.Scalar", tag, [v], [OutScalar("I", math.ceil(v))])
        g.case(P + "trunc.Scalar", tag, [v], [OutScalar("I", math.trunc(v))])
    for tag, v in (("half_even_down", 2.5), ("half_even_up", 3.5), ("neg_half", -2.5), ("plain", 2.7)):
        g.case(P + "round.Scalar", tag, [v], [OutScalar("I", round(v))])  # Python: half to even
    g.case(P + "sym_float.Scalar", "int", [7], [OutScalar("D", 7.0)])
    g.case(P + "sym_int.Scalar", "double", [3.75], [OutScalar("I", 3)])
    g.case(P + "sym_int.Scalar", "neg_double", [-3.75], [OutScalar("I", -3)])
    g.case(P + "sym_ite.Scalar", "true", [True, 4, 9], [OutScalar("I", 4)])
    g.case(P + "sym_ite.Scalar", "false", [False, 4, 9], [OutScalar("I", 9)])
    g.case(P + "sym_max.Scalar", "int", [3, -8], [OutScalar("I", 3)])
    g.case(P + "sym_min.Scalar", "int", [3, -8], [OutScalar("I", -8)])
    g.case(P + "sym_not.Scalar", "true", [True], [OutScalar("B", False)])
    g.case(P + "sym_not.Scalar", "false", [False], [OutScalar("B", True)])
    x = rand((2, 3, 4))
    for d in (0, 2, -1):
        g.case("aten::sym_size.int", "dim%d" % d, [x, d], [OutScalar("I", x.shape[d])])
    g.case("aten::sym_numel", "f32", [x], [OutScalar("I", x.size)])
    g.case("aten::sym_numel", "empty", [np.zeros((3, 0), np.float32)], [OutScalar("I", 0)])
    g.case("aten::sym_numel", "0d", [np.array(1.0, np.float32)], [OutScalar("I", 1)])
    g.case("aten::_local_scalar_dense", "f32", [np.array([2.5], np.float32)], [OutScalar("D", 2.5)])
    g.case("aten::_local_scalar_dense", "i64", [np.array(-7, np.int64)], [OutScalar("I", -7)])
    g.case("aten::_local_scalar_dense", "bool", [np.array(True)], [OutScalar("B", True)])
    g.case("aten::_local_scalar_dense", "err_empty", [np.zeros((0,), np.float32)], [OutScalar("I", None)],
           error=("InvalidArgument", "element"))
    # et_copy_index(copy_to, copy_from, index): copy_to[index] = copy_from, copy_to has index + 1 rows
    to = rand((3, 2))
    src = np.array([9.0, -9.0], np.float32)
    ref = to.copy()
    ref[2] = src
    g.case(P + "et_copy_index.tensor", "last_row", [to, src, 2], [Alias(0, ref)])
