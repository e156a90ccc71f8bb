"""ctypes declarations of the parts of libpte.so the bindings use (include/pte/*.h).

The structures mirror the C ones field by field (natural alignment, as the C compiler lays them
out); every function gets explicit argtypes/restype so that 64-bit values and pointers pass intact.
"""
import ctypes
import ctypes.util
import os

c_size_t = ctypes.c_size_t
PTE_MAX_RANK = 16
PTE_ERROR_MSG_MAX = 256


class ErrorInfo(ctypes.Structure):  # pte_error_info
    _fields_ = [("status", ctypes.c_int), ("msg", ctypes.c_char * PTE_ERROR_MSG_MAX)]


class ModuleOptions(ctypes.Structure):  # pte_module_options
    _fields_ = [
        ("loader", ctypes.c_int),
        ("data_path", ctypes.c_char_p),
        ("verify_minimal", ctypes.c_bool),
        ("no_register", ctypes.c_bool),
        ("max_planned_memory", ctypes.c_uint64),
        ("max_instructions", ctypes.c_uint64),
        ("num_threads", ctypes.c_int),
    ]


class MethodMeta(ctypes.Structure):  # pte_method_meta
    _fields_ = [
        ("program", ctypes.c_void_p),
        ("fb", ctypes.c_void_p),
        ("fb_size", c_size_t),
        ("plan", ctypes.c_uint32),
        ("name", ctypes.c_char_p),
    ]


class TensorInfo(ctypes.Structure):  # pte_tensor_info
    _fields_ = [
        ("dtype", ctypes.c_uint8),
        ("dynamism", ctypes.c_uint8),
        ("dim", ctypes.c_int32),
        ("sizes", ctypes.c_int32 * PTE_MAX_RANK),
        ("dim_order", ctypes.c_uint8 * PTE_MAX_RANK),
        ("nbytes", c_size_t),
        ("is_memory_planned", ctypes.c_bool),
    ]


class Tensor(ctypes.Structure):  # pte_tensor
    _fields_ = [
        ("data", ctypes.c_void_p),
        ("sizes", ctypes.POINTER(ctypes.c_int32)),
        ("dim_order", ctypes.POINTER(ctypes.c_uint8)),
        ("strides", ctypes.POINTER(ctypes.c_int32)),
        ("numel", c_size_t),
        ("capacity_bytes", c_size_t),
        ("dim", ctypes.c_int32),
        ("dtype", ctypes.c_uint8),
        ("dynamism", ctypes.c_uint8),
        ("flags", ctypes.c_uint8),
        ("reserved", ctypes.c_uint8),
    ]


class _Str(ctypes.Structure):
    _fields_ = [("ptr", ctypes.c_void_p), ("len", c_size_t)]


class _EValueUnion(ctypes.Union):
    _fields_ = [
        ("i", ctypes.c_int64),
        ("d", ctypes.c_double),
        ("b", ctypes.c_bool),
        ("str", _Str),
        ("tensor", ctypes.POINTER(Tensor)),
        ("_pad", ctypes.c_uint8 * 24),  # the largest member: a list (two pointers and a length)
    ]


class EValue(ctypes.Structure):  # pte_evalue
    _fields_ = [("tag", ctypes.c_uint32), ("u", _EValueUnion)]


class ProgramHeader(ctypes.Structure):  # pte_program_header
    _fields_ = [
        ("present", ctypes.c_bool),
        ("header_length", ctypes.c_uint32),
        ("program_size", ctypes.c_uint64),
        ("segment_base_offset", ctypes.c_uint64),
        ("segment_data_size", ctypes.c_uint64),
    ]


class TensorLayout(ctypes.Structure):  # pte_tensor_layout
    _fields_ = [
        ("dtype", ctypes.c_uint8),
        ("dim", ctypes.c_int32),
        ("sizes", ctypes.POINTER(ctypes.c_int32)),
        ("dim_order", ctypes.POINTER(ctypes.c_uint8)),
        ("nbytes", c_size_t),
    ]


# Caller storage for structs the bindings only pass around (pte_file_loader, pte_ptd): generously
# sized, malloc-aligned buffers instead of field-by-field mirrors.
OPAQUE_SIZE = 1024


def _candidates():
    env = os.environ.get("PTE_LIBRARY")
    if env:
        return [env]
    out = []
    here = os.path.dirname(os.path.abspath(__file__))
    try:  # written by `make install`: where libpte.so was installed, relative to this package
        from . import _libpath

        base = _libpath.LIBDIR if os.path.isabs(_libpath.LIBDIR) else os.path.join(here, _libpath.LIBDIR)
        out += [os.path.join(base, "libpte.so.0"), os.path.join(base, "libpte.so")]
    except ImportError:
        pass
    found = ctypes.util.find_library("pte")
    if found:
        out.append(found)
    out.append("libpte.so.0")
    return out


def _open():
    errors = []
    for path in _candidates():
        try:
            return ctypes.CDLL(path), path
        except OSError as e:
            errors.append("%s: %s" % (path, e))
    raise ImportError(
        "pte: cannot load libpte.so (set PTE_LIBRARY to its path, or install pte with `make install`): "
        + "; ".join(errors)
    )


lib, library_path = _open()

_P = ctypes.c_void_p
_S = ctypes.c_char_p
_ERR = ctypes.POINTER(ErrorInfo)
_META = ctypes.POINTER(MethodMeta)
_SIGS = {
    "pte_status_name": (_S, [ctypes.c_int]),
    "pte_dtype_name": (_S, [ctypes.c_int]),
    "pte_dtype_size": (c_size_t, [ctypes.c_int]),
    "pte_tag_name": (_S, [ctypes.c_int]),
    "pte_module_register_all": (ctypes.c_int, [_ERR]),
    "pte_module_open": (ctypes.c_int, [_S, ctypes.POINTER(ModuleOptions), ctypes.POINTER(_P), _ERR]),
    "pte_module_destroy": (None, [_P]),
    "pte_module_num_methods": (c_size_t, [_P]),
    "pte_module_method_name": (_S, [_P, c_size_t]),
    "pte_module_program": (_P, [_P]),
    "pte_module_method_meta": (ctypes.c_int, [_P, _S, _META, _ERR]),
    "pte_module_load_method": (ctypes.c_int, [_P, _S, _ERR]),
    "pte_module_set_input": (
        ctypes.c_int,
        [_P, _S, c_size_t, ctypes.c_int, ctypes.POINTER(ctypes.c_int32), ctypes.c_int32, _P, c_size_t, _ERR],
    ),
    "pte_module_set_input_value": (ctypes.c_int, [_P, _S, c_size_t, ctypes.POINTER(EValue), _ERR]),
    "pte_module_execute": (ctypes.c_int, [_P, _S, _ERR]),
    "pte_module_num_outputs": (c_size_t, [_P, _S]),
    "pte_module_output": (ctypes.POINTER(EValue), [_P, _S, c_size_t]),
    "pte_module_output_copy": (ctypes.c_int, [_P, _S, c_size_t, _P, c_size_t, _ERR]),
    "pte_method_meta_num_inputs": (c_size_t, [_META]),
    "pte_method_meta_num_outputs": (c_size_t, [_META]),
    "pte_method_meta_input_tag": (ctypes.c_int, [_META, c_size_t, ctypes.POINTER(ctypes.c_int)]),
    "pte_method_meta_output_tag": (ctypes.c_int, [_META, c_size_t, ctypes.POINTER(ctypes.c_int)]),
    "pte_method_meta_input_tensor_info": (ctypes.c_int, [_META, c_size_t, ctypes.POINTER(TensorInfo)]),
    "pte_method_meta_output_tensor_info": (ctypes.c_int, [_META, c_size_t, ctypes.POINTER(TensorInfo)]),
    "pte_method_meta_num_planned_buffers": (c_size_t, [_META]),
    "pte_method_meta_planned_buffer_size": (ctypes.c_int, [_META, c_size_t, ctypes.POINTER(ctypes.c_uint64)]),
    "pte_method_meta_num_instructions": (c_size_t, [_META]),
    "pte_method_meta_num_delegates": (c_size_t, [_META]),
    "pte_method_meta_delegate_id": (_S, [_META, c_size_t]),
    "pte_program_get_header": (ctypes.POINTER(ProgramHeader), [_P]),
    "pte_program_num_segments": (c_size_t, [_P]),
    "pte_program_segment": (ctypes.c_int, [_P, c_size_t, ctypes.POINTER(ctypes.c_uint64), ctypes.POINTER(ctypes.c_uint64)]),
    "pte_prepare_file": (ctypes.c_int, [_S, _S, _P, _P, _ERR]),
    "pte_program_named_data_map": (_P, [_P]),
    "pte_named_data_map_num_keys": (ctypes.c_int, [_P, ctypes.POINTER(ctypes.c_uint32)]),
    "pte_named_data_map_get_key": (ctypes.c_int, [_P, ctypes.c_uint32, ctypes.POINTER(ctypes.c_char_p)]),
    "pte_named_data_map_get_tensor_layout": (ctypes.c_int, [_P, _S, ctypes.POINTER(TensorLayout)]),
    "pte_file_loader_open": (ctypes.c_int, [_P, _S, c_size_t, _ERR]),
    "pte_file_loader_close": (None, [_P]),
    "pte_ptd_load": (ctypes.c_int, [_P, _P, _ERR]),
    "pte_ptd_destroy": (None, [_P]),
    "pte_ptd_num_segments": (c_size_t, [_P]),
    "pte_ptd_segment": (ctypes.c_int, [_P, c_size_t, ctypes.POINTER(ctypes.c_uint64), ctypes.POINTER(ctypes.c_uint64)]),
}
for _name, (_res, _args) in _SIGS.items():
    _fn = getattr(lib, _name)  # AttributeError here: libpte.so does not export a symbol the bindings need
    _fn.restype = _res
    _fn.argtypes = _args
