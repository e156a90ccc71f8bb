"""Oracle cases: ATen type promotion over every pair of 10 dtypes (add, mul, where, eq, cat,
maximum). The rule, written out: bool < integers < floating; across categories the higher
category's dtype wins; within integers the smallest type holding both (uint8 + int8 -> int16);
within floats the wider one, float16 + bfloat16 -> float32. Values are small non-negative integers
(exact in every dtype), so every result is exact."""
import numpy as np

from oracle import BF16, BOOL, F16, F32, F64, I8, I16, I32, I64, U8, Out, T, TList, bf16

DTS = [U8, I8, I16, I32, I64, F16, F32, F64, BOOL, BF16]
NAME = {U8: "u8", I8: "i8", I16: "i16", I32: "i32", I64: "i64", F16: "f16", F32: "f32", F64: "f64", BOOL: "bool", BF16: "bf16"}
NP = {U8: np.uint8, I8: np.int8, I16: np.int16, I32: np.int32, I64: np.int64, F16: np.float16, F32: np.float32,
      F64: np.float64, BOOL: np.bool_, BF16: np.float32}
INTS = [U8, I8, I16, I32, I64]
FLOATS = {F16: 1, BF16: 1, F32: 2, F64: 3}


def _cat(d):
    return 0 if d == BOOL else (1 if d in INTS else 2)


def promote(a, b):
    if a == b:
        return a
    ca, cb = _cat(a), _cat(b)
    if ca != cb:
        return a if ca > cb else b
    if ca == 1:
        return {np.dtype(v): k for k, v in NP.items() if k in INTS}[np.promote_types(NP[a], NP[b])]
    if {a, b} == {F16, BF16}:
        return F32
    return a if FLOATS[a] > FLOATS[b] else b


def _vals(dt, n, seed):
    v = (np.arange(n) * (seed + 1) + seed) % 5
    return (v % 2 == 1) if dt == BOOL else v.astype(NP[dt])


def _out(v, dt):
    v = np.asarray(v)
    if dt == BOOL:
        return Out(v.astype(np.bool_))
    if dt == BF16:
        return Out(bf16(v.astype(np.float32)), dtype=BF16)
    return Out(v.astype(NP[dt]))


def cases(g):
    for a in DTS:
        for b in DTS:
            r = promote(a, b)
            tag = "%s_%s" % (NAME[a], NAME[b])
            x, y = _vals(a, 6, 1), _vals(b, 6, 2)
            xa, ya = T(x, dtype=a), T(y, dtype=b)
            xi, yi = x.astype(np.int64), y.astype(np.int64)
            if r == BOOL:
                g.case("aten::add.out", tag, [xa, ya, 1], [_out(xi | yi, r)])
                g.case("aten::mul.out", tag, [xa, ya], [_out(xi & yi, r)])
            else:
                g.case("aten::add.out", tag, [xa, ya, 1], [_out(xi + yi, r)])
                g.case("aten::mul.out", tag, [xa, ya], [_out(xi * yi, r)])
                g.case("aten::maximum.out", tag, [xa, ya], [_out(np.maximum(xi, yi), r)])
            c = np.array([True, False, True, True, False, False])
            g.case("aten::where.self_out", tag, [c, xa, ya], [_out(np.where(c, xi, yi), r)])
            g.case("aten::eq.Tensor_out", tag, [xa, ya], [Out(xi == yi)])
            g.case("aten::cat.out", tag, [TList([xa, ya]), 0], [_out(np.concatenate([xi, yi]), r)])


def cases_scalar(g):
    # a Scalar only raises the category: int tensor + float Scalar -> float32 (the default float
    # dtype), bool tensor + int Scalar -> int64, any tensor keeps its dtype within its category
    for a in DTS:
        x = _vals(a, 5, 3)
        xa, xi = T(x, dtype=a), x.astype(np.int64)
        for tag, s in (("int", 2), ("float", 2.0), ("bool", True)):
            kind = 1 if tag == "int" else (2 if tag == "float" else 0)
            ca = _cat(a)
            r = a if ca >= kind else (I64 if kind == 1 else F32)
            sv = int(s)
            if r == BOOL:
                g.case("aten::add.Scalar_out", "%s_%s" % (NAME[a], tag), [xa, s, 1], [_out(xi | sv, r)])
                g.case("aten::mul.Scalar_out", "%s_%s" % (NAME[a], tag), [xa, s], [_out(xi & sv, r)])
            else:
                g.case("aten::add.Scalar_out", "%s_%s" % (NAME[a], tag), [xa, s, 1], [_out(xi + sv, r)])
                g.case("aten::mul.Scalar_out", "%s_%s" % (NAME[a], tag), [xa, s], [_out(xi * sv, r)])
            g.case("aten::eq.Scalar_out", "%s_%s" % (NAME[a], tag), [xa, s], [Out(xi == sv)])


_cases_pairs = cases


def cases(g):  # noqa: F811
    _cases_pairs(g)
    cases_scalar(g)
