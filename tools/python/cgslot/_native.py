"""ctypes declarations of libcgslot (include/cgslot/cgslot.h) and its loading.

Only the standard library is used here.  The library is looked up, in
order, at $CGSLOT_LIBRARY, in the package's own folder (a copy installed
beside this file), and through the system's loader (ldconfig's cache and
LD_LIBRARY_PATH).  ABI 0.2 (cgs_version() >= 200, same major) is bound:
its structs start with a `size` field the caller sets to the size it
knows, so a later minor that grows them still fills what this binding
reads.  A 0.1 library (no cgs_version) is refused with a message.
"""

import ctypes
import ctypes.util
import os
import threading

ABI_MIN = 200  # CGSLOT_VERSION_NUMBER of the first ABI this binding speaks

ROLES = 4
ERROR_FILE_MAX = 256
ERROR_MESSAGE_MAX = 512

STATUS_NAMES = {
    0: "CGS_OK", -1: "CGS_E_NOMEM", -2: "CGS_E_IO", -3: "CGS_E_SYNTAX",
    -4: "CGS_E_INVALID", -5: "CGS_E_LIMIT", -6: "CGS_E_ORDER",
    -7: "CGS_E_PLAN", -8: "CGS_E_FORMAT", -9: "CGS_E_VERSION",
    -10: "CGS_E_CHECKSUM", -11: "CGS_E_VERIFY", -12: "CGS_E_ARG",
    -13: "CGS_E_CUDA", -14: "CGS_E_CUDA_FATAL", -15: "CGS_E_STATE",
    -16: "CGS_E_UNREACHABLE", -17: "CGS_E_NOGRAPH", -18: "CGS_E_RANK",
    -19: "CGS_E_MISMATCH", -20: "CGS_E_NODEVICE",
}
for _code, _name in STATUS_NAMES.items():
    globals()[_name] = _code


class Error(ctypes.Structure):
    _fields_ = [
        ("code", ctypes.c_int),
        ("file", ctypes.c_char * ERROR_FILE_MAX),
        ("line", ctypes.c_uint),
        ("column", ctypes.c_uint),
        ("message", ctypes.c_char * ERROR_MESSAGE_MAX),
        ("cuda_error", ctypes.c_int),
    ]


class RuntimeInfo(ctypes.Structure):
    _fields_ = [
        ("size", ctypes.c_uint32),
        ("rank", ctypes.c_uint32),
        ("device", ctypes.c_int),
        ("pp", ctypes.c_uint32),
        ("vpp", ctypes.c_uint32),
        ("group", ctypes.c_uint32),
        ("max_microbatches", ctypes.c_uint32),
        ("slots", ctypes.c_uint32),
        ("n_variants", ctypes.c_uint32),
        ("layers_total", ctypes.c_uint32),
        ("n_saved", ctypes.c_uint32),
        ("n_graphs", ctypes.c_uint32),
        ("n_reachable", ctypes.c_uint32),
        ("n_arenas", ctypes.c_uint32),
        ("arena_bytes", ctypes.c_uint64),
        ("alignment", ctypes.c_uint64),
    ]


class GraphDesc(ctypes.Structure):
    _fields_ = [
        ("size", ctypes.c_uint32),
        ("index", ctypes.c_uint32),
        ("variant", ctypes.c_uint32),
        ("chunk", ctypes.c_uint32),
        ("slot", ctypes.c_uint32),
        ("layer", ctypes.c_uint32),
        ("direction", ctypes.c_uint32),
        ("frame", ctypes.c_uint32),
        ("user_grad_frame", ctypes.c_uint32),
        ("reserved", ctypes.c_uint32),
        ("addr", ctypes.c_void_p * ROLES),
        ("bytes", ctypes.c_uint64 * ROLES),
    ]


class RuntimeStats(ctypes.Structure):
    _fields_ = [
        ("size", ctypes.c_uint32),
        ("graphs_captured", ctypes.c_uint32),
        ("graphs_adopted", ctypes.c_uint32),
        ("reserved", ctypes.c_uint32),
        ("capture_ns", ctypes.c_uint64),
        ("instantiate_ns", ctypes.c_uint64),
    ]


_p = ctypes.c_void_p
_u32 = ctypes.c_uint32
_u64 = ctypes.c_uint64
_perr = ctypes.POINTER(Error)
_pu32 = ctypes.POINTER(ctypes.c_uint32)
_pu64 = ctypes.POINTER(ctypes.c_uint64)
_int = ctypes.c_int

# name: (restype, argtypes)
SIGNATURES = {
    "cgs_version": (ctypes.c_uint, []),
    "cgs_version_string": (ctypes.c_char_p, []),
    "cgs_status_name": (ctypes.c_char_p, [_int]),
    "cgs_runtime_open": (_int, [ctypes.c_char_p, _u32, _int,
                                ctypes.POINTER(_p), _perr]),
    "cgs_runtime_open_buffer": (_int, [ctypes.c_char_p, ctypes.c_size_t,
                                       ctypes.c_char_p, _u32, _int,
                                       ctypes.POINTER(_p), _perr]),
    "cgs_runtime_destroy": (None, [ctypes.POINTER(_p)]),
    "cgs_runtime_info": (_int, [_p, ctypes.POINTER(RuntimeInfo), _perr]),
    "cgs_runtime_reachable": (_int, [_p, _u32, _pu32, _perr]),
    "cgs_runtime_chunk_layers": (_int, [_p, _u32, _pu32, _perr]),
    "cgs_runtime_slot": (_int, [_p, _u32, _u32, _u32, _pu32, _perr]),
    "cgs_runtime_allocate": (_int, [_p, _pu64, _perr]),
    "cgs_runtime_arena": (_int, [_p, _u32, ctypes.POINTER(_p), _pu64, _perr]),
    "cgs_runtime_locate": (_int, [_p, _u32, _u32, _u32, _u32, _u32, _int,
                                  _pu32, _pu64, _pu64, _perr]),
    "cgs_runtime_slot_locate": (_int, [_p, _u32, _u32, _u32, _u32, _int,
                                       _pu32, _pu64, _pu64, _perr]),
    "cgs_runtime_address": (_int, [_p, _u32, _u32, _u32, _u32, _u32, _int,
                                   ctypes.POINTER(_p), _pu64, _perr]),
    "cgs_runtime_graph_count": (_u32, [_p]),
    "cgs_runtime_graph_desc": (_int, [_p, _u32, ctypes.POINTER(GraphDesc),
                                      _perr]),
    "cgs_runtime_adopt": (_int, [_p, _u32, _p, ctypes.c_uint, _perr]),
    "cgs_runtime_graph_exec": (_p, [_p, _u32]),
    "cgs_runtime_stats": (_int, [_p, ctypes.POINTER(RuntimeStats), _perr]),
    "cgs_runtime_launch_count": (_u64, [_p, _u32]),
    "cgs_runtime_sequence": (_int, [_p, _u32, _pu32, _pu32, _u64, _perr]),
    "cgs_runtime_replay": (_int, [_p, _u32, _pu32, _p, _perr]),
}


_lock = threading.Lock()
_lib = None
_lib_path = None


class LibraryNotFound(OSError):
    """libcgslot could not be loaded from any of the places searched."""


def _candidates():
    env = os.environ.get("CGSLOT_LIBRARY")
    if env:
        # An explicit choice is the only one tried: a wrong path must not
        # silently fall back to another copy.
        return [("CGSLOT_LIBRARY", env)]
    here = os.path.dirname(os.path.abspath(__file__))
    out = []
    for name in ("libcgslot.so.0", "libcgslot.so"):
        p = os.path.join(here, name)
        if os.path.exists(p):
            out.append(("the package", p))
    found = ctypes.util.find_library("cgslot")
    out.append(("the system", found or "libcgslot.so.0"))
    return out


def _declare(lib, table):
    for name, (res, args) in table.items():
        fn = getattr(lib, name)
        fn.restype = res
        fn.argtypes = args


def load():
    """The loaded libcgslot (a ctypes.CDLL), loading it on first use."""
    global _lib, _lib_path
    with _lock:
        if _lib is not None:
            return _lib
        tried = []
        for where, path in _candidates():
            try:
                lib = ctypes.CDLL(path)
            except OSError as e:
                tried.append("%s (%s): %s" % (path, where, e))
                continue
            if not hasattr(lib, "cgs_version"):
                raise LibraryNotFound(
                    "%s (%s) is libcgslot 0.1, which has no cgs_version(); "
                    "this binding needs 0.2 or a later 0.x" % (path, where))
            lib.cgs_version.restype = ctypes.c_uint
            v = lib.cgs_version()
            if v < ABI_MIN or v // 10000 != ABI_MIN // 10000:
                raise LibraryNotFound(
                    "%s (%s) is libcgslot version number %u; this binding "
                    "needs %u.%u or a later minor of major %u" %
                    (path, where, v, ABI_MIN // 10000, ABI_MIN // 100 % 100,
                     ABI_MIN // 10000))
            _declare(lib, SIGNATURES)
            _lib, _lib_path = lib, path
            return lib
        raise LibraryNotFound(
            "cannot load libcgslot; set CGSLOT_LIBRARY to its path. Tried: " +
            "; ".join(tried))


def loaded_path():
    """Where the library came from (after load())."""
    return _lib_path
