"""cgslot: open a slot manifest from Python, hand it PyTorch's CUDA graphs
and replay training iterations through libcgslot.

    import cgslot
    rt = cgslot.Runtime("plan.cgsm", rank=0, device=0)
    rt.allocate()
    x = rt.tensor(variant=0, chunk=0, layer=0, slot=0,
                  role=cgslot.INPUT, dtype=torch.bfloat16, shape=(4096, 1024))
    ...capture torch.cuda.CUDAGraph objects against such views...
    rt.adopt(g, torch_graph)          # once for every graph of the manifest
    rt.replay(8, variants, stream=torch.cuda.current_stream())

The binding is ctypes over libcgslot (see libcgslot(3)); importing it needs
only the standard library, and PyTorch only for the tensor views and the
adoption of torch.cuda.CUDAGraph objects.  Every failure raises
CgslotError with the library's status code and message; nothing is
half-done on error.
"""

import ctypes

from . import _native
from ._native import LibraryNotFound

__all__ = [
    "Runtime", "CgslotError", "LibraryNotFound", "GraphDesc", "Range",
    "INPUT", "OUTPUT", "SAVED", "USER_GRAD", "FORWARD", "BACKWARD",
    "library_path", "library_version", "status_name",
]

INPUT, OUTPUT, SAVED, USER_GRAD = 0, 1, 2, 3
ROLE_NAMES = ("input", "output", "saved", "user_grad")
FORWARD, BACKWARD = 0, 1

_ADOPT_BORROW = 0
_ADOPT_OWN = 1


class CgslotError(Exception):
    """A libcgslot failure: code (negative CGS_E_*), name, message and,
    for CUDA failures, the raw cudaError_t in cuda_error."""

    def __init__(self, code, message, file="", line=0, column=0,
                 cuda_error=0):
        self.code = code
        self.name = status_name(code)
        self.message = message
        self.file = file
        self.line = line
        self.column = column
        self.cuda_error = cuda_error
        super().__init__("%s: %s" % (self.name, message))


def status_name(code):
    """The fixed name of a status code, e.g. 'CGS_E_ARG'."""
    return _native.STATUS_NAMES.get(code, "CGS_E_%d" % code)


def _raise(rc, err):
    if rc == 0:
        return
    e = err.code or rc
    raise CgslotError(e, err.message.decode("utf-8", "replace"),
                      err.file.decode("utf-8", "replace"), err.line,
                      err.column, err.cuda_error)


def _call(fn, *args):
    err = _native.Error()
    rc = fn(*args, ctypes.byref(err))
    _raise(rc, err)


def library_path():
    """The path libcgslot was loaded from (loading it if needed)."""
    _native.load()
    return _native.loaded_path()


def library_version():
    """(number, string) of the loaded library, e.g. (200, '0.2.0')."""
    lib = _native.load()
    return lib.cgs_version(), lib.cgs_version_string().decode()


class Range(tuple):
    """Where a role of a frame lives: (arena, offset, bytes)."""
    __slots__ = ()

    def __new__(cls, arena, offset, nbytes):
        return tuple.__new__(cls, (arena, offset, nbytes))

    arena = property(lambda self: self[0])
    offset = property(lambda self: self[1])
    bytes = property(lambda self: self[2])


class GraphDesc:
    """One graph of the capture sequence (cgs_graph_desc)."""
    __slots__ = ("index", "variant", "chunk", "slot", "layer", "direction",
                 "frame", "user_grad_frame", "addr", "bytes")

    def __init__(self, d):
        for k in self.__slots__[:-2]:
            setattr(self, k, getattr(d, k))
        self.addr = tuple(a or 0 for a in d.addr)
        self.bytes = tuple(d.bytes)

    def __repr__(self):
        return ("GraphDesc(index=%d, variant=%d, chunk=%d, slot=%d, "
                "layer=%d, %s)" % (self.index, self.variant, self.chunk,
                                   self.slot, self.layer,
                                   "backward" if self.direction else
                                   "forward"))


class _Handle:
    """Owns the C runtime; destroyed when the last reference goes.  Tensor
    views of the arenas hold one, so the arenas outlive every view."""

    def __init__(self, lib, ptr):
        self.lib = lib
        self.ptr = ptr

    def __del__(self):
        if self.ptr:
            p = ctypes.c_void_p(self.ptr)
            self.lib.cgs_runtime_destroy(ctypes.byref(p))
            self.ptr = None


class _ArenaMemory:
    """__cuda_array_interface__ of one arena as bytes; holds the handle."""

    def __init__(self, handle, base, nbytes):
        self._handle = handle
        self.__cuda_array_interface__ = {
            "shape": (nbytes,), "typestr": "|u1", "data": (base, False),
            "version": 2, "strides": None,
        }


def _pointer_of(obj):
    """An address from an int or a PyCapsule (without a name)."""
    if isinstance(obj, int):
        return obj
    get = ctypes.pythonapi.PyCapsule_GetPointer
    get.restype = ctypes.c_void_p
    get.argtypes = [ctypes.py_object, ctypes.c_char_p]
    return get(obj, None)


def _stream_handle(stream):
    if stream is None:
        return None
    if isinstance(stream, int):
        return stream or None
    h = getattr(stream, "cuda_stream", None)
    if h is None:
        raise TypeError("stream must be None, an int cudaStream_t or an "
                        "object with .cuda_stream (torch.cuda.Stream)")
    return h or None


class Runtime:
    """A manifest opened for one pipeline rank and CUDA device.

    Opening reads and validates the file and makes no CUDA call, so it
    works without a GPU; allocate() takes the arenas."""

    def __init__(self, path=None, rank=0, device=0, *, buffer=None,
                 name=None):
        lib = _native.load()
        self._lib = lib
        out = ctypes.c_void_p()
        err = _native.Error()
        if buffer is not None:
            data = bytes(buffer)
            rc = lib.cgs_runtime_open_buffer(
                data, len(data), None if name is None else name.encode(),
                rank, device, ctypes.byref(out), ctypes.byref(err))
        else:
            if path is None:
                raise TypeError("Runtime() needs a path or buffer=")
            rc = lib.cgs_runtime_open(str(path).encode(), rank, device,
                                      ctypes.byref(out), ctypes.byref(err))
        _raise(rc, err)
        self._h = _Handle(lib, out.value)
        self._rt = out.value
        self._info = self._read_info()
        self._graphs = {}         # g -> the torch graph kept alive (borrowed)
        self._complete = False    # every graph has an executable
        self._arena_bytes = {}    # a -> uint8 torch tensor over arena a
        self.device = device

    # ---- state -------------------------------------------------------

    def _ptr(self):
        if self._rt is None:
            raise CgslotError(_native.CGS_E_STATE, "the runtime is closed")
        return self._rt

    def close(self):
        """Let go of the runtime.  The library object (arenas, owned
        executables) is destroyed now, or when the last tensor view of its
        arenas is freed if views are still alive.  Make sure no replay is
        still running (for example torch.cuda.synchronize())."""
        if self._rt is None:
            return
        self._rt = None
        self._arena_bytes.clear()
        self._h = None
        self._graphs.clear()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _read_info(self):
        info = _native.RuntimeInfo()
        info.size = ctypes.sizeof(info)
        _call(self._lib.cgs_runtime_info, self._rt, ctypes.byref(info))
        return {k: getattr(info, k) for k, _ in info._fields_ if k != "size"}

    @property
    def info(self):
        """What the manifest plans for this rank, as a dict (keys as in
        struct cgs_runtime_info)."""
        self._ptr()
        return dict(self._info)

    def __getattr__(self, name):
        info = self.__dict__.get("_info")
        if info is not None and name in info:
            return info[name]
        raise AttributeError(name)

    # ---- lookups -----------------------------------------------------

    def _u32_lookup(self, fn, *args):
        out = ctypes.c_uint32()
        _call(fn, self._ptr(), *args, ctypes.byref(out))
        return out.value

    @property
    def reachable(self):
        """The reachable microbatch counts, ascending."""
        n = self._info["n_reachable"]
        return [self._u32_lookup(self._lib.cgs_runtime_reachable, i)
                for i in range(n)]

    def chunk_layers(self, chunk):
        """Layers of chunk `chunk` (0-based)."""
        return self._u32_lookup(self._lib.cgs_runtime_chunk_layers, chunk)

    def slot(self, microbatches, chunk, k):
        """Physical slot of microbatch k of chunk `chunk` in an iteration
        of `microbatches` microbatches."""
        return self._u32_lookup(self._lib.cgs_runtime_slot, microbatches,
                                chunk, k)

    def locate(self, variant, chunk, layer, role, *, microbatches=None,
               microbatch=None, slot=None):
        """Range(arena, offset, bytes) of a role of (variant, chunk, layer),
        by physical `slot`, or by `microbatch` of an iteration of
        `microbatches`."""
        arena, off, nb = ctypes.c_uint32(), ctypes.c_uint64(), \
            ctypes.c_uint64()
        outs = (ctypes.byref(arena), ctypes.byref(off), ctypes.byref(nb))
        role = int(role)
        if slot is not None:
            if microbatch is not None:
                raise TypeError("give slot= or microbatch=, not both")
            _call(self._lib.cgs_runtime_slot_locate, self._ptr(), variant,
                  chunk, layer, slot, role, *outs)
        elif microbatch is None or microbatches is None:
            raise TypeError("give slot=, or microbatches= and microbatch=")
        else:
            _call(self._lib.cgs_runtime_locate, self._ptr(), variant, chunk,
                  layer, microbatches, microbatch, role, *outs)
        return Range(arena.value, off.value, nb.value)

    # ---- memory ------------------------------------------------------

    def allocate(self):
        """Allocate every arena (one cudaMalloc each); returns the bytes."""
        nb = ctypes.c_uint64()
        _call(self._lib.cgs_runtime_allocate, self._ptr(), ctypes.byref(nb))
        return nb.value

    def arena(self, a):
        """(device address, bytes) of arena a, after allocate()."""
        base, nb = ctypes.c_void_p(), ctypes.c_uint64()
        _call(self._lib.cgs_runtime_arena, self._ptr(), a, ctypes.byref(base),
              ctypes.byref(nb))
        return base.value or 0, nb.value

    def address(self, variant, chunk, layer, role, *, microbatches=None,
                microbatch=None, slot=None):
        """(device address, bytes) of a role's range, after allocate()."""
        r = self.locate(variant, chunk, layer, role,
                        microbatches=microbatches, microbatch=microbatch,
                        slot=slot)
        base, _ = self.arena(r.arena)
        return base + r.offset, r.bytes

    def tensor(self, variant, chunk, layer, role, *, dtype, shape,
               offset=0, microbatches=None, microbatch=None, slot=None):
        """A torch.Tensor over a role's range, zero copy, of `dtype` and
        `shape` starting `offset` bytes into the range.  Refused when the
        bytes do not fit the range the manifest gives that variant."""
        import torch

        r = self.locate(variant, chunk, layer, role,
                        microbatches=microbatches, microbatch=microbatch,
                        slot=slot)
        return self._view(r, dtype, shape, offset, torch,
                          "%s range of variant %d chunk %d layer %d" %
                          (ROLE_NAMES[role], variant, chunk, layer))

    def _view(self, r, dtype, shape, offset, torch, what):
        shape = tuple(int(s) for s in shape)
        numel = 1
        for s in shape:
            if s < 0:
                raise CgslotError(_native.CGS_E_ARG,
                                  "negative dimension in shape %r" % (shape,))
            numel *= s
        item = torch.empty((), dtype=dtype).element_size()
        need = numel * item
        if r.bytes == 0:
            raise CgslotError(_native.CGS_E_ARG,
                              "the %s is empty: the manifest gives it no "
                              "bytes" % what)
        if offset < 0 or offset % item or offset + need > r.bytes:
            raise CgslotError(
                _native.CGS_E_ARG,
                "%s of shape %r at offset %d needs bytes %d..%d, but the %s "
                "has %d bytes%s" % (dtype, shape, offset, offset,
                                    offset + need, what, r.bytes,
                                    " (offset not a multiple of the element "
                                    "size)" if offset % item else ""))
        storage = self._arena_storage(r.arena, torch)
        start = r.offset + offset
        if start % item:
            raise CgslotError(_native.CGS_E_ARG,
                              "range offset %d is not aligned to %s" %
                              (start, dtype))
        t = torch.empty(0, dtype=dtype, device=storage.device)
        strides = []
        acc = 1
        for s in reversed(shape):
            strides.append(acc)
            acc *= max(s, 1)
        t.set_(storage.untyped_storage(), start // item, shape,
               tuple(reversed(strides)))
        return t

    def arena_tensor(self, a):
        """Arena a as a uint8 torch.Tensor (zero copy), after allocate().
        Make these before a graph capture begins: the first view of an
        arena queries the pointer's attributes from CUDA."""
        import torch

        return self._arena_storage(a, torch)

    def _arena_storage(self, a, torch):
        t = self._arena_bytes.get(a)
        if t is None:
            base, nb = self.arena(a)
            mem = _ArenaMemory(self._h, base, nb)
            t = torch.as_tensor(mem, device="cuda:%d" % self.device)
            if t.data_ptr() != base:
                raise CgslotError(_native.CGS_E_STATE,
                                  "PyTorch copied arena %d instead of "
                                  "viewing it" % a)
            self._arena_bytes[a] = t
        return t

    # ---- graphs ------------------------------------------------------

    def graph_count(self):
        return self._lib.cgs_runtime_graph_count(self._ptr())

    def graph_desc(self, i):
        """The i-th graph of the manifest's capture sequence."""
        d = _native.GraphDesc()
        d.size = ctypes.sizeof(d)
        _call(self._lib.cgs_runtime_graph_desc, self._ptr(), i,
              ctypes.byref(d))
        return GraphDesc(d)

    def capture_sequence(self):
        """Every GraphDesc, in the order the manifest captures them."""
        return [self.graph_desc(i) for i in range(self.graph_count())]

    def graph_exec(self, g):
        """The cudaGraphExec_t of graph g as an int, 0 when it has none."""
        return self._lib.cgs_runtime_graph_exec(self._ptr(), g) or 0

    def adopt(self, g, graph, *, own=False):
        """Use `graph` as graph g: a torch.cuda.CUDAGraph (its executable,
        from raw_cuda_graph_exec(); the object is kept alive here) or a raw
        cudaGraphExec_t int (own=True hands it to the runtime).  A graph
        already given an executable is refused."""
        if self.graph_exec(g):
            raise CgslotError(_native.CGS_E_STATE,
                              "graph %d already has an executable; each "
                              "graph is handed over once" % g)
        keep = None
        if isinstance(graph, int):
            exec_ = graph
        else:
            raw = getattr(graph, "raw_cuda_graph_exec", None)
            if raw is None:
                raise TypeError("adopt() takes a torch.cuda.CUDAGraph or an "
                                "int cudaGraphExec_t")
            if own:
                raise CgslotError(_native.CGS_E_ARG,
                                  "a torch graph owns its executable; adopt "
                                  "it borrowed (own=False)")
            exec_ = _pointer_of(raw())
            keep = graph
        _call(self._lib.cgs_runtime_adopt, self._ptr(), g,
              ctypes.c_void_p(exec_), _ADOPT_OWN if own else _ADOPT_BORROW)
        if keep is not None:
            self._graphs[g] = keep

    def stats(self):
        """Graphs captured/adopted and capture/instantiate times (ns)."""
        s = _native.RuntimeStats()
        s.size = ctypes.sizeof(s)
        _call(self._lib.cgs_runtime_stats, self._ptr(), ctypes.byref(s))
        return {k: getattr(s, k) for k, _ in s._fields_
                if k not in ("size", "reserved")}

    # ---- iterations --------------------------------------------------

    def launch_count(self, microbatches):
        return self._lib.cgs_runtime_launch_count(self._ptr(), microbatches)

    def _variants(self, microbatches, variants):
        variants = list(variants)
        if len(variants) != microbatches:
            raise CgslotError(_native.CGS_E_ARG,
                              "%d variants given for %d microbatches; give "
                              "one per microbatch" %
                              (len(variants), microbatches))
        return (ctypes.c_uint32 * max(microbatches, 1))(*variants)

    def sequence(self, microbatches, variants):
        """The graph indices one iteration launches, in order."""
        n = self.launch_count(microbatches)
        arr = self._variants(microbatches, variants)
        out = (ctypes.c_uint32 * max(n, 1))()
        _call(self._lib.cgs_runtime_sequence, self._ptr(), microbatches, arr,
              out, n)
        return list(out[:n])

    def _check_complete(self):
        if self._complete:
            return
        for g in range(self._info["n_graphs"]):
            if not self.graph_exec(g):
                raise CgslotError(
                    _native.CGS_E_NOGRAPH,
                    "graph %d has no executable: hand every graph of the "
                    "capture sequence to adopt() before replaying" % g)
        self._complete = True

    def replay(self, microbatches, variants, stream=None):
        """Queue one iteration of `microbatches` microbatches, microbatch k
        running variant variants[k], on `stream` (torch.cuda.Stream, an
        int cudaStream_t, or None for the legacy default stream)."""
        arr = self._variants(microbatches, variants)
        self._check_complete()
        _call(self._lib.cgs_runtime_replay, self._ptr(), microbatches, arr,
              ctypes.c_void_p(_stream_handle(stream)))
