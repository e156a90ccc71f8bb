"""pte — run ExecuTorch .pte programs from Python (numpy arrays in and out).

    import numpy as np, pte
    prog = pte.load("model.pte")                  # pte.load(path, data="weights.ptd")
    print(prog.methods)                           # ('forward',)
    y, = prog.forward(np.array([1, 2, 3], dtype=np.float32))
    outs = prog.run("forward", x)                 # any method by name
    info = pte.inspect("model.pte")               # dict: header, segments, methods (inputs, outputs...)
    pte.prepare("model.pte", "model.prepared.pte")

Pure ctypes over libpte.so (the Module API, include/pte/module.h): no compiled extension. The
library is found through $PTE_LIBRARY, then next to an installed package, then the system's
library path. Every failure raises a subclass of pte.Error named after the pte status
(pte.InvalidArgument, pte.InvalidProgram, pte.AccessFailed, ...) carrying .status (the numeric
code, upstream ExecuTorch's Error value), .name and the C library's message.
"""
import ctypes
import os

import numpy as np

from . import _native as _n

__all__ = ["load", "inspect", "prepare", "Program", "Error", "library_path"]

library_path = _n.library_path
_lib = _n.lib


# ---------------------------------------------------------------------------------------- errors
class Error(Exception):
    """A pte call failed: .status (int code), .name (e.g. "InvalidProgram"), .message."""

    status = None
    name = None

    def __init__(self, message, status=None):
        if status is not None:
            self.status = status
            self.name = _status_name(status)
        self.message = message
        super().__init__("%s (0x%02x): %s" % (self.name, self.status if self.status is not None else 0, message))


def _status_name(code):
    return _lib.pte_status_name(code).decode()


# One subclass per status code of pte/status.h, named as upstream's Error enum (pte_status_name).
class Internal(Error):
    status, name = 0x01, "Internal"


class InvalidState(Error):
    status, name = 0x02, "InvalidState"


class EndOfMethod(Error):
    status, name = 0x03, "EndOfMethod"


class AlreadyLoaded(Error):
    status, name = 0x04, "AlreadyLoaded"


class NotSupported(Error):
    status, name = 0x10, "NotSupported"


class NotImplemented(Error):
    status, name = 0x11, "NotImplemented"


class InvalidArgument(Error):
    status, name = 0x12, "InvalidArgument"


class InvalidType(Error):
    status, name = 0x13, "InvalidType"


class OperatorMissing(Error):
    status, name = 0x14, "OperatorMissing"


class RegistrationExceedingMaxKernels(Error):
    status, name = 0x15, "RegistrationExceedingMaxKernels"


class RegistrationAlreadyRegistered(Error):
    status, name = 0x16, "RegistrationAlreadyRegistered"


class NotFound(Error):
    status, name = 0x20, "NotFound"


class MemoryAllocationFailed(Error):
    status, name = 0x21, "MemoryAllocationFailed"


class AccessFailed(Error):
    status, name = 0x22, "AccessFailed"


class InvalidProgram(Error):
    status, name = 0x23, "InvalidProgram"


class InvalidExternalData(Error):
    status, name = 0x24, "InvalidExternalData"


class OutOfResources(Error):
    status, name = 0x25, "OutOfResources"


class DelegateInvalidCompatibility(Error):
    status, name = 0x30, "DelegateInvalidCompatibility"


class DelegateMemoryAllocationFailed(Error):
    status, name = 0x31, "DelegateMemoryAllocationFailed"


class DelegateInvalidHandle(Error):
    status, name = 0x32, "DelegateInvalidHandle"


_ERROR_CLASSES = {cls.status: cls for cls in Error.__subclasses__()}
__all__ += [cls.name for cls in _ERROR_CLASSES.values()]
for _code, _cls in _ERROR_CLASSES.items():  # the library and this table must agree
    if _status_name(_code) != _cls.name:
        raise ImportError("pte: status 0x%02x is %s in libpte.so, %s here" % (_code, _status_name(_code), _cls.name))
del _code, _cls


def _raise(status, err=None, message=None):
    msg = message if message is not None else (err.msg.decode("utf-8", "replace") if err is not None else "")
    cls = _ERROR_CLASSES.get(status)
    if cls is None:
        raise Error(msg, status)
    raise cls(msg)


def _check(status, err):
    if status != 0:
        _raise(status, err)


# ---------------------------------------------------------------------------------------- dtypes
_TAG_NONE, _TAG_TENSOR, _TAG_STRING, _TAG_DOUBLE, _TAG_INT, _TAG_BOOL = 0, 1, 2, 3, 4, 5
_BFLOAT16 = 15
_NP_OF = {
    0: np.uint8, 1: np.int8, 2: np.int16, 3: np.int32, 4: np.int64, 5: np.float16, 6: np.float32,
    7: np.float64, 9: np.complex64, 10: np.complex128, 11: np.bool_, 12: np.int8, 13: np.uint8,
    14: np.int32, 21: np.uint8, 22: np.uint16, 27: np.uint16, 28: np.uint32, 29: np.uint64,
}
# numpy dtype -> pte dtype for inputs (the plain types; a quantized or bits input of the same width
# takes the same numpy data, see Program._set_tensor)
_PTE_OF = {np.dtype(v): k for k, v in {0: np.uint8, 1: np.int8, 2: np.int16, 3: np.int32, 4: np.int64,
                                        5: np.float16, 6: np.float32, 7: np.float64, 9: np.complex64,
                                        10: np.complex128, 11: np.bool_, 27: np.uint16, 28: np.uint32,
                                        29: np.uint64}.items()}


def _dtype_name(code):
    return _lib.pte_dtype_name(code).decode()


def _to_bf16(a):
    """float32 -> bfloat16 bits (round to nearest even), as uint16."""
    u = np.ascontiguousarray(a, dtype=np.float32).view(np.uint32)
    rounded = u + 0x7FFF + ((u >> 16) & 1)
    bits = np.where(np.isnan(a), (u >> 16) | 0x40, rounded >> 16)
    return bits.astype(np.uint16)


def _from_bf16(bits):
    return (bits.astype(np.uint32) << 16).view(np.float32)


def _tensor_info_dict(ti, tag_name="Tensor"):
    dim = ti.dim
    return {
        "kind": tag_name,
        "dtype": _dtype_name(ti.dtype),
        "shape": [ti.sizes[d] for d in range(dim)],
        "dim_order": [ti.dim_order[d] for d in range(dim)],
        "dynamic": ti.dynamism != 0,
        "nbytes": ti.nbytes,
        "planned": bool(ti.is_memory_planned),
    }


def _value_infos(meta, n, tag_fn, info_fn):
    out = []
    for i in range(n):
        tag = ctypes.c_int(0)
        s = tag_fn(ctypes.byref(meta), i, ctypes.byref(tag))
        if s != 0:
            out.append({"kind": "Unknown"})
            continue
        tag_name = _lib.pte_tag_name(tag.value).decode()
        if tag.value == _TAG_TENSOR:
            ti = _n.TensorInfo()
            _check(info_fn(ctypes.byref(meta), i, ctypes.byref(ti)), None)
            out.append(_tensor_info_dict(ti, tag_name))
        else:
            out.append({"kind": tag_name})
    return out


def _meta_dict(meta):
    m = ctypes.byref(meta)
    planned = []
    for i in range(_lib.pte_method_meta_num_planned_buffers(m)):
        sz = ctypes.c_uint64(0)
        _check(_lib.pte_method_meta_planned_buffer_size(m, i, ctypes.byref(sz)), None)
        planned.append(sz.value)
    return {
        "name": meta.name.decode(),
        "inputs": _value_infos(meta, _lib.pte_method_meta_num_inputs(m), _lib.pte_method_meta_input_tag,
                               _lib.pte_method_meta_input_tensor_info),
        "outputs": _value_infos(meta, _lib.pte_method_meta_num_outputs(m), _lib.pte_method_meta_output_tag,
                                _lib.pte_method_meta_output_tensor_info),
        "planned_buffers": planned,
        "instructions": _lib.pte_method_meta_num_instructions(m),
        "delegates": [_lib.pte_method_meta_delegate_id(m, i).decode()
                      for i in range(_lib.pte_method_meta_num_delegates(m))],
    }


# ---------------------------------------------------------------------------------------- program
_LOADERS = {"mmap": 0, "file": 1, "buffer": 2}


class Program:
    """An opened .pte (pte.load). Methods load on first use and stay loaded until close(). A
    Program is not thread-safe: use one per thread (several may open the same file)."""

    def __init__(self, path, data=None, loader="mmap", verify="full", threads=0, max_memory=0,
                 max_instructions=0):
        self._mod = None
        if loader not in _LOADERS:
            raise InvalidArgument("loader must be one of mmap, file, buffer, not %r" % (loader,))
        if verify not in ("full", "minimal"):
            raise InvalidArgument("verify must be 'full' or 'minimal', not %r" % (verify,))
        self.path = os.fspath(path)
        self.data = os.fspath(data) if data is not None else None
        opts = _n.ModuleOptions()
        opts.loader = _LOADERS[loader]
        opts.data_path = os.fsencode(self.data) if self.data is not None else None
        opts.verify_minimal = verify == "minimal"
        opts.max_planned_memory = int(max_memory)
        opts.max_instructions = int(max_instructions)
        opts.num_threads = int(threads)
        err = _n.ErrorInfo()
        mod = ctypes.c_void_p()
        _check(_lib.pte_module_open(os.fsencode(self.path), ctypes.byref(opts), ctypes.byref(mod), ctypes.byref(err)),
               err)
        self._mod = mod
        self._inputs = {}  # method -> input descriptions (from the metadata)

    # -- lifetime
    def close(self):
        if self._mod:
            _lib.pte_module_destroy(self._mod)
            self._mod = None

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _handle(self):
        if not self._mod:
            raise InvalidState("program %s is closed" % self.path)
        return self._mod

    # -- metadata
    @property
    def methods(self):
        """Names of the program's methods, in file order."""
        mod = self._handle()
        return tuple(_lib.pte_module_method_name(mod, i).decode() for i in range(_lib.pte_module_num_methods(mod)))

    def _meta(self, method):
        meta = _n.MethodMeta()
        err = _n.ErrorInfo()
        _check(_lib.pte_module_method_meta(self._handle(), method.encode(), ctypes.byref(meta), ctypes.byref(err)), err)
        return meta

    def method_meta(self, method="forward"):
        """Inputs, outputs (kind, dtype, shape, dim order...), planned buffers, delegates of a method."""
        return _meta_dict(self._meta(method))

    def load_method(self, method="forward"):
        err = _n.ErrorInfo()
        _check(_lib.pte_module_load_method(self._handle(), method.encode(), ctypes.byref(err)), err)

    # -- running
    def forward(self, *inputs):
        """run("forward", *inputs)."""
        return self.run("forward", *inputs)

    def run(self, method, *inputs):
        """Sets the inputs (numpy arrays for tensors; Python numbers for Int/Double/Bool inputs,
        which must equal the traced values), executes the method and returns its outputs as a list
        (numpy arrays, copies; Python scalars for scalar outputs)."""
        mod = self._handle()
        name = method.encode()
        descs = self._inputs.get(method)
        if descs is None:
            descs = self.method_meta(method)["inputs"]
            self._inputs[method] = descs
        if len(inputs) > len(descs):
            raise InvalidArgument("method '%s' takes %d input%s, %d given" %
                                  (method, len(descs), "" if len(descs) == 1 else "s", len(inputs)))
        err = _n.ErrorInfo()
        for i, x in enumerate(inputs):
            d = descs[i]
            if d["kind"] == "Tensor":
                self._set_tensor(mod, name, method, i, d, x, err)
            else:
                self._set_value(mod, name, method, i, d, x, err)
        _check(_lib.pte_module_execute(mod, name, ctypes.byref(err)), err)
        return [self._output(mod, name, i, err) for i in range(_lib.pte_module_num_outputs(mod, name))]

    def _set_tensor(self, mod, name, method, i, d, x, err):
        want = d["dtype"]
        if isinstance(x, np.ndarray):
            a = x
        else:  # lists and Python numbers take the input's dtype
            np_t = np.float32 if want == "bfloat16" else _NP_OF.get(_dtype_code(want))
            try:
                a = np.asarray(x, dtype=np_t)
            except (TypeError, ValueError) as e:
                raise InvalidArgument("method '%s' input %d: expected %s%s, got %r (%s)" %
                                      (method, i, want, d["shape"], x, e)) from None
        if want == "bfloat16" and a.dtype == np.float32:
            a, code = _to_bf16(a), _BFLOAT16
        else:
            code = _PTE_OF.get(a.dtype)
            if code is None:
                raise InvalidArgument("method '%s' input %d: numpy dtype %s has no pte equivalent (expected %s)" %
                                      (method, i, a.dtype, want))
            # int8/uint8/int32 data for a quantized dtype of the same width
            if code != _dtype_code(want) and _NP_OF.get(_dtype_code(want)) == a.dtype.type:
                code = _dtype_code(want)
        a = np.ascontiguousarray(a)
        shape = (ctypes.c_int32 * max(a.ndim, 1))(*a.shape)
        _check(_lib.pte_module_set_input(mod, name, i, code, shape, a.ndim, a.ctypes.data_as(ctypes.c_void_p),
                                         a.nbytes, ctypes.byref(err)), err)

    def _set_value(self, mod, name, method, i, d, x, err):
        v = _n.EValue()
        kind = d["kind"]
        if kind == "Int":
            v.tag, v.u.i = _TAG_INT, int(x)
        elif kind == "Double":
            v.tag, v.u.d = _TAG_DOUBLE, float(x)
        elif kind == "Bool":
            v.tag, v.u.b = _TAG_BOOL, bool(x)
        elif kind == "None":
            v.tag = _TAG_NONE
        elif kind == "String":
            raw = x.encode() if isinstance(x, str) else bytes(x)
            buf = ctypes.create_string_buffer(raw, len(raw))
            v.tag = _TAG_STRING
            v.u.str.ptr = ctypes.cast(buf, ctypes.c_void_p)
            v.u.str.len = len(raw)
        else:
            raise NotSupported("method '%s' input %d is a %s: not settable from Python" % (method, i, kind))
        _check(_lib.pte_module_set_input_value(mod, name, i, ctypes.byref(v), ctypes.byref(err)), err)

    def _output(self, mod, name, i, err):
        p = _lib.pte_module_output(mod, name, i)
        if not p:
            _raise(0x01, message="output %d is missing" % i)
        v = p.contents
        if v.tag == _TAG_TENSOR:
            t = v.u.tensor.contents
            shape = tuple(t.sizes[d] for d in range(t.dim))
            if t.dtype == _BFLOAT16:
                bits = np.empty(shape, dtype=np.uint16)
                _check(_lib.pte_module_output_copy(mod, name, i, bits.ctypes.data_as(ctypes.c_void_p), bits.nbytes,
                                                   ctypes.byref(err)), err)
                return _from_bf16(bits)
            np_t = _NP_OF.get(t.dtype)
            if np_t is None:
                raise NotSupported("output %d has dtype %s, which numpy cannot hold" % (i, _dtype_name(t.dtype)))
            out = np.empty(shape, dtype=np_t)
            _check(_lib.pte_module_output_copy(mod, name, i, out.ctypes.data_as(ctypes.c_void_p), out.nbytes,
                                               ctypes.byref(err)), err)
            return out
        if v.tag == _TAG_INT:
            return int(v.u.i)
        if v.tag == _TAG_DOUBLE:
            return float(v.u.d)
        if v.tag == _TAG_BOOL:
            return bool(v.u.b)
        if v.tag == _TAG_STRING:
            return ctypes.string_at(v.u.str.ptr, v.u.str.len).decode("utf-8", "replace")
        if v.tag == _TAG_NONE:
            return None
        raise NotSupported("output %d is a %s: not convertible" % (i, _lib.pte_tag_name(v.tag).decode()))

    def __repr__(self):
        return "<pte.Program %s methods=%s>" % (self.path, list(self.methods) if self._mod else "closed")


def _dtype_code(name):
    for code in range(30):
        if _dtype_name(code) == name:
            return code
    return None


# ---------------------------------------------------------------------------------------- top level
def load(path, data=None, **options):
    """Opens a .pte (mmap by default). data: a .ptd with the program's external weights.
    Options: loader ("mmap" | "file" | "buffer"), verify ("full" | "minimal"), threads (XNNPACK
    delegate threads), max_memory (bytes of planned memory a method may need), max_instructions."""
    return Program(path, data, **options)


def _keys(ndm):
    keys = []
    if not ndm:
        return keys
    n = ctypes.c_uint32(0)
    _check(_lib.pte_named_data_map_num_keys(ndm, ctypes.byref(n)), None)
    for i in range(n.value):
        k = ctypes.c_char_p()
        _check(_lib.pte_named_data_map_get_key(ndm, i, ctypes.byref(k)), None)
        keys.append(k.value.decode("utf-8", "replace"))
    return keys


def _inspect_ptd(path):
    err = _n.ErrorInfo()
    loader = ctypes.create_string_buffer(_n.OPAQUE_SIZE)  # pte_file_loader
    ptd = ctypes.create_string_buffer(_n.OPAQUE_SIZE)     # pte_ptd (its map interface comes first)
    _check(_lib.pte_file_loader_open(loader, os.fsencode(path), 0, ctypes.byref(err)), err)
    try:
        _check(_lib.pte_ptd_load(loader, ptd, ctypes.byref(err)), err)
        try:
            tensors = []
            for key in _keys(ptd):
                lay = _n.TensorLayout()
                s = _lib.pte_named_data_map_get_tensor_layout(ptd, key.encode(), ctypes.byref(lay))
                if s == 0:
                    tensors.append({"key": key, "dtype": _dtype_name(lay.dtype),
                                    "shape": [lay.sizes[d] for d in range(lay.dim)],
                                    "dim_order": [lay.dim_order[d] for d in range(lay.dim)], "nbytes": lay.nbytes})
                else:
                    tensors.append({"key": key, "dtype": None})  # an opaque blob
            segments = []
            for i in range(_lib.pte_ptd_num_segments(ptd)):
                off, size = ctypes.c_uint64(0), ctypes.c_uint64(0)
                _check(_lib.pte_ptd_segment(ptd, i, ctypes.byref(off), ctypes.byref(size)), None)
                segments.append({"offset": off.value, "size": size.value})
            return {"file": path, "file_size": os.path.getsize(path), "format": "ptd", "segments": segments,
                    "named_data": tensors}
        finally:
            _lib.pte_ptd_destroy(ptd)
    finally:
        _lib.pte_file_loader_close(loader)


def inspect(path):
    """What a .pte or .ptd holds, as a dict, through the C API; nothing is loaded or run.
    .pte: file size, eh00 header (None without one), segments, named data keys, and per method
    its inputs and outputs (kind, dtype, shape, dim order, dynamic, planned), planned buffer
    sizes, instruction count and delegate backend ids. .ptd: segments and entries (key, dtype,
    shape, dim order, bytes) of its named data. Other files (.bpte): `pte inspect --json FILE`."""
    path = os.fspath(path)
    with open(path, "rb") as f:
        ident = f.read(8)[4:8]
    if ident == b"FT01":
        return _inspect_ptd(path)
    if ident == b"BP08":
        raise NotSupported("%s is a bundled program (.bpte): use `pte inspect --json` for it" % path)
    with Program(path) as prog:
        mod = prog._handle()
        p = _lib.pte_module_program(mod)
        h = _lib.pte_program_get_header(p).contents
        segments = []
        for i in range(_lib.pte_program_num_segments(p)):
            off, size = ctypes.c_uint64(0), ctypes.c_uint64(0)
            _check(_lib.pte_program_segment(p, i, ctypes.byref(off), ctypes.byref(size)), None)
            segments.append({"offset": off.value, "size": size.value})
        return {
            "file": prog.path,
            "file_size": os.path.getsize(prog.path),
            "format": "pte",
            "header": {
                "header_length": h.header_length,
                "program_size": h.program_size,
                "segment_base_offset": h.segment_base_offset,
                "segment_data_size": h.segment_data_size,
            } if h.present else None,
            "segments": segments,
            "named_data": [{"key": k} for k in _keys(_lib.pte_program_named_data_map(p))],
            "methods": [prog.method_meta(m) for m in prog.methods],
        }


def prepare(src, dst):
    """Prepares src for this device into dst (may equal src): every registered backend packs its
    data into the file (pte prepare; atomic, crash-safe). Returns dst."""
    err = _n.ErrorInfo()
    _check(_lib.pte_module_register_all(ctypes.byref(err)), err)
    _check(_lib.pte_prepare_file(os.fsencode(os.fspath(src)), os.fsencode(os.fspath(dst)), None, None,
                                 ctypes.byref(err)), err)
    return dst
