"""tests/oracle/oracle.py — building oracle case tables (format: tests/oracle/README.md).

A family file tests/oracle/ops_<family>.py defines `cases(g)` and adds cases with `g.case(...)`.
Expected values are computed here with numpy or written by hand from the ATen definition; they
must never be copied from pte's output.
"""
import math

import numpy as np

# pte_dtype / upstream ScalarType codes
U8, I8, I16, I32, I64, F16, F32, F64, BOOL, BF16 = 0, 1, 2, 3, 4, 5, 6, 7, 11, 15
_NP2DT = {
    np.dtype(np.uint8): U8, np.dtype(np.int8): I8, np.dtype(np.int16): I16,
    np.dtype(np.int32): I32, np.dtype(np.int64): I64, np.dtype(np.float16): F16,
    np.dtype(np.float32): F32, np.dtype(np.float64): F64, np.dtype(np.bool_): BOOL,
    np.dtype(np.complex64): 9,
}
DT2NP = {v: k for k, v in _NP2DT.items()}
FLOAT_DTS = (F16, F32, F64, BF16)
CL = (0, 2, 3, 1)  # channels-last dim order of a 4-d tensor


def dt_of(arr):
    return _NP2DT[np.asarray(arr).dtype]


def bf16(x):
    """x rounded to bfloat16 (round to nearest even), returned as float32 values."""
    a = np.ascontiguousarray(np.asarray(x, dtype=np.float32))
    u = a.view(np.uint32).astype(np.uint64)
    r = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16) << 16
    out = r.astype(np.uint32).view(np.float32).copy()
    out[np.isnan(a)] = np.nan
    return out


class T:
    """A tensor argument: values (numpy, logical order), optional dim order, optional dtype code
    (needed for bfloat16, whose values are given as float32), role 'in' (method input) or
    'const' (constant segment)."""

    def __init__(self, arr, order=None, dtype=None, role="in"):
        self.arr = np.asarray(arr)
        self.order = tuple(order) if order is not None else tuple(range(self.arr.ndim))
        self.dtype = dtype if dtype is not None else dt_of(self.arr)
        self.role = role


class Out:
    """An out tensor argument with its expected value (None: an error case, give dtype+shape).
    check="X": only shape and dtype are compared (empty.out); check=("R", lo, hi): every value in
    [lo, hi) (rand.out)."""

    is_arg = True

    def __init__(self, want=None, order=None, dtype=None, shape=None, check=None):
        self.check = check
        self.want = None if want is None else np.asarray(want)
        if dtype is None:
            dtype = dt_of(self.want)
        self.dtype = dtype
        self.shape = tuple(shape) if shape is not None else tuple(self.want.shape)
        self.order = tuple(order) if order is not None else tuple(range(len(self.shape)))


class Ret(Out):
    """A returned tensor that is not an out argument (functional ops such as et_view): the value
    is appended once to the kernel arguments."""

    is_arg = False


class OutScalar:
    """A scalar output EValue (prim ops): kind 'I', 'D' or 'B', its expected value and the
    placeholder the program stores before running."""

    def __init__(self, kind, want, placeholder=0):
        self.kind, self.want, self.placeholder = kind, want, placeholder


class Alias:
    """The method output is an earlier argument, mutated in place (et_copy_index): index into args.
    append=True also appends it to the kernel arguments as the returned value."""

    def __init__(self, index, want, append=False):
        self.index = index
        self.append = append
        self.want = np.asarray(want)


class IntList(list):
    pass


class DoubleList(list):
    pass


class BoolList(list):
    pass


class TList(list):
    """A TensorList of T."""


class OptTList(list):
    """An optional TensorList: T or None items."""


class Str(str):
    pass


def _num(x, dt):
    if dt in FLOAT_DTS:
        x = float(x)
        if math.isnan(x):
            return "nan"
        if math.isinf(x):
            return "inf" if x > 0 else "-inf"
        return repr(x)
    return str(int(x))


def _vals(arr, dt):
    flat = np.asarray(arr).reshape(-1)
    if dt == 9:  # complex64: (re, im) pairs
        flat = np.stack([flat.real, flat.imag], axis=-1).reshape(-1).astype(np.float64)
        dt = F64
    if dt == BOOL:
        flat = flat.astype(np.int64)
    return " ".join(_num(x, dt) for x in flat.tolist())


class OutList:
    """An out argument of type Tensor[] (split_copy, unbind_copy...): a list of Out."""

    def __init__(self, items):
        self.items = list(items)


def _want_line(o):
    if getattr(o, "check", None) is not None:
        shp = " ".join(str(s) for s in o.shape)
        if o.check == "X":
            return "X %d %d %s" % (o.dtype, len(o.shape), shp)
        return "R %d %d %s %s %s" % (o.dtype, len(o.shape), shp, _num(o.check[1], F64), _num(o.check[2], F64))
    if o.want is None:
        return None
    w = o.want
    if o.dtype == BF16:
        w = bf16(w)
    return "T %d %d %s %s" % (o.dtype, w.ndim, " ".join(str(s) for s in w.shape), _vals(w, o.dtype))


class Gen:
    def __init__(self):
        self.lines = []
        self.ops = {}
        self.ids = set()
        self.family = ""

    def case(self, op, cid, args, outs, tol=None, error=None):
        """args: the schema arguments before the out arguments (T, int, float, bool, None, Str,
        IntList, DoubleList, BoolList, TList, OptTList); outs: the out arguments (Out,
        OutScalar or Alias), appended to the kernel arguments and then returned, as upstream's
        exporter writes an out-variant call. error=(status name or 'any', message substring)."""
        key = (self.family, op, cid)  # ids are unique within a family file
        assert key not in self.ids, "duplicate case id %s: %s %s" % key
        assert " " not in cid
        self.ids.add(key)
        self.ops[op] = self.ops.get(op, 0) + 1
        L = ["case %s %s" % (op, cid)]
        if tol is not None:
            L.append("tol %r %r" % (float(tol[0]), float(tol[1])))
        names = []
        counter = [0]

        def new(prefix):
            counter[0] += 1
            return "%s%d" % (prefix, counter[0])

        def tensor_line(t):
            n = new("t")
            arr = t.arr
            dt = t.dtype
            if dt == BF16:
                arr = bf16(arr)
            shape = arr.shape
            L.append("v %s T %d %d %s %s %s %s" % (
                n, dt, len(shape), " ".join(str(s) for s in shape),
                " ".join(str(o) for o in t.order), t.role, _vals(arr, dt)))
            return n

        def value(a):
            if isinstance(a, T):
                return tensor_line(a)
            if isinstance(a, np.ndarray):
                return tensor_line(T(a))
            if isinstance(a, np.generic) and not isinstance(a, (np.bool_, np.integer, np.floating)):
                raise TypeError("unsupported numpy scalar %r" % (a,))
            n = new("v")
            if a is None:
                L.append("v %s N" % n)
            elif isinstance(a, (bool, np.bool_)):
                L.append("v %s B %d" % (n, int(bool(a))))
            elif isinstance(a, (int, np.integer)):
                L.append("v %s I %d" % (n, int(a)))
            elif isinstance(a, (float, np.floating)):
                L.append("v %s D %s" % (n, _num(a, F64)))
            elif isinstance(a, Str):
                L.append("v %s S %s" % (n, str(a)))
            elif isinstance(a, BoolList):
                L.append("v %s BL %d %s" % (n, len(a), " ".join(str(int(bool(x))) for x in a)))
            elif isinstance(a, DoubleList):
                L.append("v %s DL %d %s" % (n, len(a), " ".join(_num(x, F64) for x in a)))
            elif isinstance(a, TList):
                items = [value(x) for x in a]
                L.append("v %s TL %d %s" % (n, len(a), " ".join(items)))
            elif isinstance(a, OptTList):
                items = ["-" if x is None else value(x) for x in a]
                L.append("v %s OTL %d %s" % (n, len(a), " ".join(items)))
            elif isinstance(a, (IntList, list, tuple)):
                L.append("v %s IL %d %s" % (n, len(a), " ".join(str(int(x)) for x in a)))
            else:
                raise TypeError("unsupported argument %r" % (a,))
            return n

        for a in args:
            names.append(value(a))
        rets, wants = [], []
        out_tensor_names, appended_single, out_list = [], [], False
        for o in outs:
            if isinstance(o, OutList):
                out_list = True
                items = []
                for it in o.items:
                    n = new("o")
                    L.append("v %s T %d %d %s %s out" % (
                        n, it.dtype, len(it.shape), " ".join(str(x) for x in it.shape),
                        " ".join(str(x) for x in it.order)))
                    items.append(n)
                    rets.append(n)
                    wants.append(_want_line(it))
                ln = new("l")
                L.append("v %s TL %d %s" % (ln, len(items), " ".join(items)))
                names.append(ln)
                out_tensor_names.extend(items)
            elif isinstance(o, Out):
                n = new("o")
                L.append("v %s T %d %d %s %s out" % (
                    n, o.dtype, len(o.shape), " ".join(str(s) for s in o.shape),
                    " ".join(str(x) for x in o.order)))
                if o.is_arg:
                    names.append(n)
                    out_tensor_names.append(n)
                else:
                    appended_single.append(n)
                rets.append(n)
                if o.want is not None or o.check is not None:
                    wants.append(_want_line(o))
            elif isinstance(o, OutScalar):
                n = new("s")
                ph = {"I": "%d" % int(o.placeholder), "D": _num(o.placeholder, F64),
                      "B": "%d" % int(bool(o.placeholder))}[o.kind]
                L.append("v %s %s %s" % (n, o.kind, ph))
                appended_single.append(n)
                rets.append(n)
                if o.want is not None:
                    wv = {"I": lambda x: "%d" % int(x), "D": lambda x: _num(x, F64),
                          "B": lambda x: "%d" % int(bool(x))}[o.kind](o.want)
                    wants.append("%s %s" % (o.kind, wv))
            elif isinstance(o, Alias):
                if o.append:
                    appended_single.append(names[o.index])
                rets.append(names[o.index])
                a = args[o.index]
                dt = a.dtype if isinstance(a, T) else dt_of(a)
                wants.append("T %d %d %s %s" % (dt, o.want.ndim, " ".join(str(s) for s in o.want.shape),
                                                _vals(o.want, dt)))
            else:
                raise TypeError("unsupported out %r" % (o,))
        # upstream's emitter appends the returned value: one out -> that value; several outs (or
        # an out TensorList) -> one new TensorList of them; prim / functional ops -> the new value
        appended = list(appended_single)
        if out_tensor_names and len(out_tensor_names) == 1 and not out_list:
            appended.append(out_tensor_names[0])
        elif out_tensor_names:
            n = new("r")
            L.append("v %s TL %d %s" % (n, len(out_tensor_names), " ".join(out_tensor_names)))
            appended.append(n)
        L.append("args %s %s" % (" ".join(names), " ".join(appended)))
        L.append("ret %s" % " ".join(rets))
        if error is not None:
            L.append("error %s %s" % (error[0], error[1]))
        else:
            assert len(wants) == len(rets) and None not in wants, "every output needs an expected value"
            for k, w in enumerate(wants):
                L.append("want %d %s" % (k, w))
        L.append("end")
        self.lines.extend(L)

    def text(self):
        return "\n".join(self.lines) + "\n"


# ---- helpers for family files -------------------------------------------------------------

RNG = np.random.default_rng(20260713)


def rand(shape, dtype=np.float32, lo=-3.0, hi=3.0):
    """Random array (always an ndarray, also for shape ())."""
    if np.issubdtype(np.dtype(dtype), np.floating):
        return np.asarray(RNG.uniform(lo, hi, size=shape), dtype=dtype)
    if np.dtype(dtype) == np.bool_:
        return np.asarray(RNG.integers(0, 2, size=shape), dtype=np.bool_)
    info = np.iinfo(dtype)
    return np.asarray(RNG.integers(max(int(lo), info.min), min(int(hi), info.max) + 1, size=shape), dtype=dtype)


def f32_edges():
    """Edge values of float32 (NaN, +-inf, -0, tiny, large)."""
    return np.array([np.nan, np.inf, -np.inf, -0.0, 0.0, 1e-30, -1e30, 3.5, -2.25], dtype=np.float32)


def int_extremes(dtype):
    info = np.iinfo(dtype)
    return np.array([info.min, info.max, 0, -1 if info.min < 0 else 1, 1], dtype=dtype)


def channels_last(x):
    return T(x, order=CL)
