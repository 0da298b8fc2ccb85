#!/usr/bin/env python3
"""Real bf16 transformer layers captured per CP variant inside cgslot's arenas.

One pipeline rank (rank 0 of pp 4, 2 virtual chunks of --layers layers)
runs a dynamic-CP schedule: each microbatch picks one of three variants,
which differ in the sequence shard length a GPU holds, so activations and
autograd-saved tensors differ in shape per variant.  The demo

 1. measures every role's bytes per variant on the layers themselves (the
    layer input, its output, what autograd saves, the input gradient),
 2. writes the schedule and compiles it with `cgslot compile` (or checks a
    manifest compiled elsewhere against the sizes measured here),
 3. captures forward and backward of every graph of the manifest's capture
    sequence with torch.cuda.CUDAGraph: static input and output in the
    frame's ranges, autograd-saved tensors copied into the frame's saved
    range by saved_tensors_hooks, input gradients in the user-gradient
    frame, weight gradients added into one fp32 main_grad per parameter
    right after each backward; temporaries come from one shared PyTorch
    pool that holds nothing across graphs,
 4. hands every graph to libcgslot (raw_cuda_graph_exec) and replays
    iterations of the real pipeline order with a random variant per
    microbatch through cgs_runtime_replay, comparing surrogate losses,
    input gradients and every parameter's gradient with eager execution,
 5. does the same with PyTorch's own pools: one per variant, one per
    (variant, chunk, slot), and one shared pool captured largest variant
    first, and prints memory and time,
 6. records the caching allocator's events during every capture and
    counts, per replayed iteration, the pool blocks whose memory the
    replay order hands to one graph while another still needs it
    (pool_reuse.py): PyTorch lets graphs share a pool only when they
    replay in the order they were captured, and a dynamic schedule
    replays them in others.

Pipeline stand-ins: the rank receives each chunk's input and output
gradient from its neighbours; here they come from per-variant banks indexed
on the device by the microbatch counters of the chunk, so a whole
iteration replays without host work.  The loss of microbatch k is the
surrogate sum(out * dy) of each chunk, whose gradient is the received dy.

Run on a GPU (see --help); --dry-run executes the same placement logic
eagerly on the CPU with host arenas (no graphs), for development.  On a
GPU machine with a runtime-only build and a cgslot CLI built elsewhere:

    meson setup b -Druntime_only=true && ninja -C b
    CGSLOT_LIBRARY=$PWD/b/src/libcgslot.so.0 python3 \
        tools/python/examples/dcp_layers.py --cgslot CLI --workdir OUT

The exit status is 0 when every cgslot iteration matches eager execution
within the stated tolerance.
"""

import argparse
import gc
import json
import math
import os
import random
import statistics
import subprocess
import sys
import time
import weakref

import torch
import torch.nn as nn
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, HERE)
import cgslot  # noqa: E402
import pool_reuse  # noqa: E402

DTYPE = torch.bfloat16
SUB_ALIGN = 256       # alignment of each saved tensor inside the saved range
PP, VPP, GROUP = 4, 2, 4


# ---- the model -------------------------------------------------------

def _attention(q, k, v):
    if hasattr(F, "scaled_dot_product_attention"):
        return F.scaled_dot_product_attention(q, k, v, is_causal=True)
    # PyTorch < 2.0 (CPU development only).
    s = (q @ k.transpose(-1, -2)) / math.sqrt(q.shape[-1])
    mask = torch.ones(s.shape[-2:], dtype=torch.bool).triu(1)
    return torch.softmax(s.float().masked_fill(mask, float("-inf")),
                         -1).to(q.dtype) @ v


class Block(nn.Module):
    """Pre-LayerNorm transformer layer: causal attention and a GELU MLP
    over x of shape [tokens, hidden]."""

    def __init__(self, hidden, heads, ffn):
        super().__init__()
        self.heads = heads
        self.ln1 = nn.LayerNorm(hidden)
        self.qkv = nn.Linear(hidden, 3 * hidden)
        self.proj = nn.Linear(hidden, hidden)
        self.ln2 = nn.LayerNorm(hidden)
        self.fc1 = nn.Linear(hidden, ffn)
        self.fc2 = nn.Linear(ffn, hidden)

    def forward(self, x):
        t, h = x.shape
        hd = h // self.heads
        qkv = self.qkv(self.ln1(x)).view(t, 3, self.heads, hd)
        q, k, v = (qkv[:, i].transpose(0, 1).unsqueeze(0) for i in range(3))
        a = _attention(q, k, v).squeeze(0).transpose(0, 1).reshape(t, h)
        x = x + self.proj(a)
        return x + self.fc2(F.gelu(self.fc1(self.ln2(x)), approximate="tanh"))


class StoreTo(torch.autograd.Function):
    """Copy y into a static buffer and continue autograd from there, so a
    layer's output lives in the frame and the temporary y can be freed."""

    @staticmethod
    def forward(ctx, y, make_dst):
        dst = make_dst()
        dst.copy_(y)
        return dst

    @staticmethod
    def backward(ctx, g):
        return g, None


def dense_strides(t):
    """t's strides if it covers numel() elements without gaps or overlap
    (any dimension order), else None."""
    dims = sorted((st, sz) for sz, st in zip(t.shape, t.stride()) if sz > 1)
    want = 1
    for st, sz in dims:
        if st != want:
            return None
        want *= sz
    return t.stride()


def contiguous_strides(shape):
    out, acc = [], 1
    for d in reversed(shape):
        out.append(acc)
        acc *= max(d, 1)
    return tuple(reversed(out))


def storage_ptr(t):
    st = t.untyped_storage() if hasattr(t, "untyped_storage") else t.storage()
    return st.data_ptr()


def align(n, a=SUB_ALIGN):
    return (n + a - 1) // a * a


class SavedPolicy:
    """What a layer's forward keeps for backward and where.

    Weights stay where they are (they live anyway); tensors inside
    `in_place` ranges (the layer's input, which is in the plan already)
    stay; CPU and empty tensors stay; everything else is copied into the
    saved range, each tensor SUB_ALIGN-aligned, one copy per distinct
    tensor.  measure() and the capture use this same rule, so the bytes
    measured are the bytes the capture needs."""

    def __init__(self, param_storages):
        self.param_storages = param_storages

    def needs_copy(self, t, in_place):
        if t.device.type == "cpu" and in_place and in_place[0][2] != "cpu":
            return False
        if t.numel() == 0:
            return False
        if storage_ptr(t) in self.param_storages:
            return False
        p = t.data_ptr()
        return not any(lo <= p < hi for lo, hi, _ in in_place)

    @staticmethod
    def key(t):
        return (t.data_ptr(), tuple(t.shape), tuple(t.stride()), t.dtype)

    @staticmethod
    def seen_before(copies, t):
        """The entry of t if this very tensor was packed before in this
        forward.  The key alone could match a tensor that took the address
        of one freed since; a weak reference proves identity without
        keeping the original alive (PyTorch keeps one Python object per
        live tensor)."""
        hit = copies.get(SavedPolicy.key(t))
        return hit if hit is not None and hit[0]() is t else None

    def measure(self, block, x):
        """Bytes of the saved range block(x) needs."""
        copies, total = {}, 0
        in_place = [(x.data_ptr(), x.data_ptr() + x.numel() * x.element_size(),
                     x.device.type)]

        def pack(t):
            nonlocal total
            if (self.needs_copy(t, in_place) and
                    self.seen_before(copies, t) is None):
                copies[self.key(t)] = (weakref.ref(t), None)
                total += align(t.numel() * t.element_size())
            return t

        with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
            y = block(x)
        del y
        return max(total, 1)

    def hooks(self, saved_view, in_place):
        """(pack, unpack) copying into saved_view (a uint8 tensor)."""
        state = {"off": 0, "copies": {}}

        def pack(t):
            if not self.needs_copy(t, in_place):
                return t
            hit = self.seen_before(state["copies"], t)
            if hit is not None:
                return hit[1]
            n = t.numel() * t.element_size()
            off = state["off"]
            if off + n > saved_view.numel():
                raise RuntimeError(
                    "saved tensors need more than the %d bytes the manifest "
                    "gives this frame" % saved_view.numel())
            flat = saved_view[off:off + n].view(t.dtype)
            st = dense_strides(t)
            dst = (flat.as_strided(t.shape, st) if st is not None
                   else flat.view(t.shape))
            dst.copy_(t)
            state["off"] = off + align(n)
            # Only a weak reference: the original is freed as soon as the
            # forward drops it, as it would be without graphs.
            state["copies"][self.key(t)] = (weakref.ref(t), dst)
            return dst

        return pack, (lambda t: t), state


# ---- the plan --------------------------------------------------------

class Config:
    def __init__(self, a):
        self.hidden, self.heads, self.ffn = a.hidden, a.heads, 4 * a.hidden
        self.layers = a.layers
        self.tokens = [int(t) for t in a.tokens.split(",")]
        self.cps = [1 << i for i in range(len(self.tokens))]
        self.names = ["cp%d" % c for c in self.cps]
        self.max_mb = a.max_microbatches
        self.rank = a.rank
        self.slots = json.loads(a.slots) if a.slots != "auto" else "auto"


def measure_sizes(cfg, chunks, policy, device):
    """sizes[v][(c, l)] = {role: bytes}, measured on the layers."""
    sizes = []
    for t in cfg.tokens:
        per = {}
        for c, blocks in enumerate(chunks):
            for l, blk in enumerate(blocks):
                x = torch.randn(t, cfg.hidden, device=device,
                                dtype=DTYPE).requires_grad_()
                io = t * cfg.hidden * 2
                per[(c, l)] = {
                    # Layers after the first read the previous layer's
                    # output range; the format wants nonzero bytes, so
                    # their own input range is one byte, never used.
                    "input": io if l == 0 else 1,
                    "output": io,
                    "saved": policy.measure(blk, x),
                    "user_grad": io,
                }
        sizes.append(per)
    return sizes


def write_schedule(cfg, sizes, path):
    variants = []
    for v, name in enumerate(cfg.names):
        base = sizes[v][(0, 0)]
        over = []
        for (c, l), s in sorted(sizes[v].items()):
            diff = {r: b for r, b in s.items() if b != base[r]}
            if diff:
                over.append(dict(chunk=c, layer=l, **diff))
        ent = {"name": name, "cp": cfg.cps[v], "bytes": dict(base)}
        if over:
            ent["overrides"] = over
        variants.append(ent)
    sched = {
        "cgslot": 1,
        "name": "dcp-layers-h%d-l%d" % (cfg.hidden, cfg.layers),
        "pipeline": {"pp": PP, "vpp": VPP, "layers_per_chunk": cfg.layers,
                     "microbatch_group": GROUP,
                     "max_microbatches": cfg.max_mb, "ranks": [cfg.rank],
                     "slots": cfg.slots},
        "alignment": 256,
        "variants": variants,
    }
    with open(path, "w") as f:
        json.dump(sched, f, indent=1)
        f.write("\n")


def check_manifest(rt, cfg, sizes):
    """Every role's bytes in the manifest equal the sizes measured here."""
    roles = ["input", "output", "saved", "user_grad"]
    for v in range(len(cfg.tokens)):
        for (c, l), s in sizes[v].items():
            for r, name in enumerate(roles):
                got = rt.locate(v, c, l, r, slot=0).bytes
                if got != s[name]:
                    sys.exit("dcp_layers: the manifest gives %s of variant "
                             "%d chunk %d layer %d %d bytes, measured %d; "
                             "compile it from this run's schedule" %
                             (name, v, c, l, got, s[name]))


# ---- one pipeline step, three placements ------------------------------

class Banks:
    """Stand-ins for the pipeline's receives and sends: per variant and
    chunk, L entries indexed on the device by the chunk's counters."""

    def __init__(self, cfg, device):
        L = cfg.max_mb
        self.x = [[torch.empty(L, t, cfg.hidden, device=device, dtype=DTYPE)
                   for t in cfg.tokens] for _ in range(VPP)]
        self.dy = [[torch.empty(L, t, cfg.hidden, device=device, dtype=DTYPE)
                    for t in cfg.tokens] for _ in range(VPP)]
        self.dx = [[torch.zeros(L, t, cfg.hidden, device=device, dtype=DTYPE)
                    for t in cfg.tokens] for _ in range(VPP)]
        self.loss = [torch.zeros(L, device=device, dtype=torch.float32)
                     for _ in range(VPP)]
        self.fctr = [torch.zeros(1, device=device, dtype=torch.long)
                     for _ in range(VPP)]
        self.bctr = [torch.zeros(1, device=device, dtype=torch.long)
                     for _ in range(VPP)]

    def fill(self, seed):
        g = torch.Generator(device=self.x[0][0].device).manual_seed(seed)
        for c in range(VPP):
            for t in self.x[c] + self.dy[c]:
                t.normal_(generator=g)
            for t in self.dx[c]:
                t.zero_()
            self.loss[c].zero_()

    def reset(self):
        for t in self.fctr + self.bctr:
            t.zero_()

    def nbytes(self):
        n = 0
        for group in (self.x, self.dy, self.dx):
            for c in group:
                n += sum(t.numel() * t.element_size() for t in c)
        return n + sum(t.numel() * 4 for t in self.loss)


class Step:
    """Forward and backward of one layer of one frame, as recorded in a
    graph or run eagerly.  `arena` places inputs, outputs, saved tensors
    and input gradients in the manifest's frames (cgslot); without it they
    are ordinary PyTorch tensors kept in `state` (eager execution and the
    PyTorch-pool baselines)."""

    def __init__(self, cfg, chunks, banks, policy, arena=None):
        self.cfg, self.chunks, self.banks = cfg, chunks, banks
        self.policy, self.arena = policy, arena
        self.state = {}
        self.params = [[list(b.parameters()) for b in blocks]
                       for blocks in chunks]

    def view(self, v, c, l, s, role, shape, dtype=DTYPE, offset=0):
        return self.arena(v, c, l, s, role, shape, dtype, offset)

    def forward(self, v, c, s, l, retain):
        cfg, b = self.cfg, self.banks
        T, H = cfg.tokens[v], cfg.hidden
        last = l == len(self.chunks[c]) - 1
        if self.arena:
            if l == 0:
                x = self.view(v, c, 0, s, cgslot.INPUT, (T, H))
                x.copy_(b.x[c][v].index_select(0, b.fctr[c]).view(T, H))
            else:
                x = self.view(v, c, l - 1, s, cgslot.OUTPUT, (T, H))
            x.requires_grad_()
            saved = self.view(v, c, l, s, cgslot.SAVED,
                              (self.arena.bytes(v, c, l, s, cgslot.SAVED),),
                              torch.uint8)
            in_place = [(x.data_ptr(), x.data_ptr() + T * H * 2,
                         x.device.type)]
            pack, unpack, hstate = self.policy.hooks(saved, in_place)
            with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
                y = self.chunks[c][l](x)
            hstate["copies"].clear()
            out = StoreTo.apply(y, lambda: self.view(v, c, l, s,
                                                     cgslot.OUTPUT, (T, H)))
            del y
        else:
            if l == 0:
                x = b.x[c][v].index_select(0, b.fctr[c]).view(T, H).detach()
            else:
                x = self.state[(v, c, s, l - 1)]["out"].detach()
            x.requires_grad_()
            out = self.chunks[c][l](x)
        st = self.state.setdefault((v, c, s, l), {})
        st["x"], st["out"] = x, out
        if last:
            with torch.no_grad():
                dy = b.dy[c][v].index_select(0, b.fctr[c]).view(T, H)
                loss = (out.float() * dy.float()).sum().view(1)
                b.loss[c].index_copy_(0, b.fctr[c], loss)
                b.fctr[c].add_(1)

    def backward(self, v, c, s, l, retain):
        cfg, b = self.cfg, self.banks
        T, H = cfg.tokens[v], cfg.hidden
        last = l == len(self.chunks[c]) - 1
        st = self.state[(v, c, s, l)]
        if last:
            g = b.dy[c][v].index_select(0, b.bctr[c]).view(T, H)
        elif self.arena:
            g = self.view(v, c, l + 1, s, cgslot.USER_GRAD, (T, H))
        else:
            g = self.state[(v, c, s, l + 1)]["dx"]
        params = self.params[c][l]
        grads = torch.autograd.grad(st["out"], [st["x"]] + params, g,
                                    retain_graph=retain)
        with torch.no_grad():
            for p, gp in zip(params, grads[1:]):
                p.main_grad.add_(gp)
            if self.arena:
                dx = self.view(v, c, l, s, cgslot.USER_GRAD, (T, H))
                dx.copy_(grads[0])
            else:
                dx = grads[0]
            if l == 0:
                b.dx[c][v].index_copy_(0, b.bctr[c], dx.view(1, T, H))
                b.bctr[c].add_(1)
        del grads
        if self.arena:
            self.state.pop((v, c, s, l))
        elif retain:
            st["dx"] = dx       # captured: every static tensor stays
        else:
            # Eager: free what this backward consumed, as autograd would.
            st.pop("out")
            st.pop("x")
            self.state.pop((v, c, s, l + 1), None)
            if l > 0:
                st["dx"] = dx
            else:
                self.state.pop((v, c, s, l))


_DECODE = {}


def decode_table(rt):
    """decode() of every graph index, computed once per manifest."""
    key = (id(rt), rt.info["n_graphs"])
    if key not in _DECODE:
        _DECODE[key] = [decode(rt, g) for g in range(rt.info["n_graphs"])]
    return _DECODE[key]


def decode(rt, g):
    """(variant, chunk, slot, layer, direction) of graph index g."""
    info = rt.info
    d = g % 2
    f = g // 2 % info["n_saved"]
    v = g // 2 // info["n_saved"]
    S = info["slots"]
    base = 0
    for c in range(info["vpp"]):
        n = rt.chunk_layers(c)
        if f < base + S * n:
            s, l = divmod(f - base, n)
            return v, c, s, l, d
        base += S * n
    raise AssertionError(g)


def run_eager(step, rt, microbatches, variants):
    """One iteration, graph by graph in the runtime's launch order."""
    step.banks.reset()
    table = decode_table(rt)
    for g in rt.sequence(microbatches, variants):
        v, c, s, l, d = table[g]
        (step.backward if d else step.forward)(v, c, s, l, retain=False)
    assert not step.state, "eager state leaked: %r" % list(step.state)


# ---- capture -----------------------------------------------------------

class PoolTrace:
    """The caching allocator's alloc and free events during each capture,
    from PyTorch's memory history (a private API: where it is missing or
    differs, `ok` is False and `why` says why), for pool_reuse."""

    def __init__(self):
        self.events, self.spent, self._n, self.cache = {}, 0.0, 0, {}
        self.ok, self.why = False, ""
        try:
            torch.cuda.memory._record_memory_history(
                "all", context=None, stacks="python")
            self._trace()
            self.ok = True
        except Exception as e:      # noqa: BLE001 (private API)
            self.why = "%s: %s" % (type(e).__name__, e)

    def _trace(self):
        snap = torch.cuda.memory._snapshot()
        return snap["device_traces"][torch.cuda.current_device()]

    def mark(self):
        if self.ok:
            t0 = time.perf_counter()
            self._n = len(self._trace())
            self.spent += time.perf_counter() - t0

    def collect(self, g):
        if not self.ok:
            return
        t0 = time.perf_counter()
        ev = []
        for e in self._trace()[self._n:]:
            if e["action"] == "alloc":
                ev.append((pool_reuse.ALLOC, e["addr"], e["size"]))
            elif e["action"] == "free_requested":
                ev.append((pool_reuse.FREE, e["addr"], e["size"]))
        self.events[g] = ev
        self.spent += time.perf_counter() - t0

    def stop(self):
        if self.ok:
            torch.cuda.memory._record_memory_history(None)


def capture_all(step, descs, pool, trace=None):
    """Capture every graph of descs (in order) with PyTorch on the current
    stream; returns {g: torch.cuda.CUDAGraph} and the seconds spent (not
    counting the trace's own work)."""
    graphs = {}
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    spent0 = trace.spent if trace else 0.0
    for d in descs:
        fn = step.backward if d.direction else step.forward
        args = (d.variant, d.chunk, d.slot, d.layer)
        g = torch.cuda.CUDAGraph()
        if trace:
            trace.mark()
        g.capture_begin(pool=pool)
        try:
            fn(*args, retain=step.arena is None)
        finally:
            g.capture_end()
        if trace:
            trace.collect(d.index)
        graphs[d.index] = g
    torch.cuda.synchronize()
    spent = trace.spent - spent0 if trace else 0.0
    return graphs, time.perf_counter() - t0 - spent


def reader_of(rt):
    """consumer() for pool_reuse: the graph that last reads what a graph
    keeps.  A forward's input, output and saved tensors are read by the
    same layer's backward; a backward's input gradient by the backward of
    the layer below; the first layer's goes to the pipeline bank."""
    table = decode_table(rt)
    index = {t: g for g, t in enumerate(table)}

    def consumer(g):
        v, c, s, l, d = table[g]
        if not d:
            return index[(v, c, s, l, 1)]
        return index[(v, c, s, l - 1, 1)] if l > 0 else None
    return consumer


def predicted_clashes(rt, trace, pools, sequence):
    """Pairs of pool blocks live at once when `sequence` replays, summed
    over pools ({key: graph indices in capture order}); None without a
    trace."""
    if trace is None or not trace.ok:
        return None
    n = 0
    for gids in pools.values():
        key = tuple(gids)
        if key not in trace.cache:
            blocks = pool_reuse.blocks_of(trace.events, gids, reader_of(rt))
            trace.cache[key] = (set(gids), blocks,
                                pool_reuse.overlapping_pairs(blocks))
        mine, blocks, pairs = trace.cache[key]
        n += len(pool_reuse.conflicts(
            blocks, pairs, [g for g in sequence if g in mine]))
    return n


def pool_capture_order(descs, layers):
    """descs with each backward after the one of the layer above it.

    Captured into PyTorch pools, a backward reads the gradient the layer
    above left in Python state.  The capture sequence lists the graphs of
    slots the largest order never reaches (slot maps may leave some to
    smaller counts) in index order, lower layers first; those backwards
    wait here for the one above."""
    out, done, waiting = [], set(), {}

    def emit(d):
        out.append(d)
        if d.direction:
            key = (d.variant, d.chunk, d.slot, d.layer)
            done.add(key)
            for w in waiting.pop(key, []):
                emit(w)

    for d in descs:
        above = (d.variant, d.chunk, d.slot, d.layer + 1)
        if d.direction and d.layer + 1 < layers and above not in done:
            waiting.setdefault(above, []).append(d)
        else:
            emit(d)
    assert not waiting, "backwards never captured: %r" % waiting
    return out


def zero_main_grads(chunks):
    for blocks in chunks:
        for blk in blocks:
            for p in blk.parameters():
                p.main_grad.zero_()


def snapshot(chunks, banks, microbatches, variants):
    """Everything an iteration produced that eager must match."""
    out = {"loss": [banks.loss[c][:microbatches].clone()
                    for c in range(VPP)]}
    out["dx"] = [torch.cat([banks.dx[c][variants[k]][k].flatten()
                            for k in range(microbatches)]).float()
                 for c in range(VPP)]
    out["grad"] = [p.main_grad.clone() for blocks in chunks
                   for blk in blocks for p in blk.parameters()]
    return out


def rel_err(a, b):
    a, b = a.float(), b.float()
    den = b.norm().item()
    num = (a - b).norm().item()
    if math.isnan(num):
        return float("inf")
    return num / den if den > 0 else num


def compare(got, ref):
    """Largest relative error over losses, input grads and weight grads."""
    worst = {}
    for k in ("loss", "dx", "grad"):
        worst[k] = max(rel_err(a, b) for a, b in zip(got[k], ref[k]))
    return worst


T0 = time.perf_counter()


def log(msg):
    print("[%7.2f s] %s" % (time.perf_counter() - T0, msg), flush=True)


def gib(n):
    return n / 2**30


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--hidden", type=int, default=1024)
    ap.add_argument("--heads", type=int, default=8)
    ap.add_argument("--layers", type=int, default=2,
                    help="layers per chunk (2 chunks)")
    ap.add_argument("--tokens", default="4096,2560,1536",
                    help="sequence shard length per variant, cp1,cp2,cp4...")
    ap.add_argument("--max-microbatches", type=int, default=8)
    ap.add_argument("--iterations", type=int, default=6)
    ap.add_argument("--rank", type=int, default=0, choices=range(PP),
                    help="the pipeline rank whose orders run (of %d)" % PP)
    ap.add_argument("--slots", default="auto",
                    help='the schedule\'s slots: "auto", a ring, or JSON '
                         'such as \'{"map": true}\' (slot maps)')
    ap.add_argument("--timing-iterations", type=int, default=10)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--cgslot", default=os.environ.get("CGSLOT_CLI", "cgslot"),
                    help="the cgslot CLI that compiles the schedule")
    ap.add_argument("--manifest",
                    help="use this manifest instead of compiling; it must "
                         "match the sizes measured here")
    ap.add_argument("--workdir", default=".", help="where schedule and "
                    "manifest are written")
    ap.add_argument("--skip-baselines", action="store_true",
                    help="skip the PyTorch-pool baselines")
    ap.add_argument("--no-pool-trace", dest="pool_trace",
                    action="store_false",
                    help="do not record the allocator's events during "
                         "capture (they predict which replays reuse live "
                         "pool memory)")
    ap.add_argument("--strict-baselines", action="store_true",
                    help="exit 1 also when the per-slot pools are wrong "
                         "on an iteration, a baseline is wrong where no "
                         "clash was predicted, or cgslot's workspace pool "
                         "clashes")
    ap.add_argument("--dry-run", action="store_true",
                    help="CPU: run the cgslot placement eagerly over host "
                         "arenas (no graphs) and compare with eager")
    a = ap.parse_args()
    if a.strict_baselines and (a.skip_baselines or a.dry_run or
                               not a.pool_trace):
        ap.error("--strict-baselines needs the baselines and the pool trace "
                 "on a GPU")
    cfg = Config(a)
    dry = a.dry_run
    device = torch.device("cpu" if dry else "cuda:0")
    if not dry:
        # One side stream for everything: eager work, captures and
        # replays.  Autograd remembers the stream a parameter was first
        # used on, and a capture must never wait on the legacy stream.
        torch.cuda.set_stream(torch.cuda.Stream())
    torch.manual_seed(a.seed)
    rng = random.Random(a.seed)

    chunks = [[Block(cfg.hidden, cfg.heads, cfg.ffn).to(device, DTYPE)
               for _ in range(cfg.layers)] for _ in range(VPP)]
    params = [p for blocks in chunks for b in blocks for p in b.parameters()]
    for p in params:
        p.main_grad = torch.zeros(p.shape, device=device, dtype=torch.float32)
    policy = SavedPolicy({storage_ptr(p) for p in params})

    # 1-2: sizes, schedule, manifest
    sizes = measure_sizes(cfg, chunks, policy, device)
    os.makedirs(a.workdir, exist_ok=True)
    sched = os.path.join(a.workdir, "dcp_layers.json")
    write_schedule(cfg, sizes, sched)
    if a.manifest:
        manifest = a.manifest
    else:
        manifest = os.path.join(a.workdir, "dcp_layers.cgsm")
        r = subprocess.run([a.cgslot, "compile", sched, "-o", manifest],
                           capture_output=True, text=True)
        if r.returncode:
            sys.exit("dcp_layers: %s compile failed (%d):\n%s%s" %
                     (a.cgslot, r.returncode, r.stdout, r.stderr))
        print(r.stdout, end="")
    rt = cgslot.Runtime(manifest, rank=cfg.rank, device=0)
    check_manifest(rt, cfg, sizes)
    info = rt.info
    print("manifest %s: %d slots, %d graphs, arenas %.3f GiB; libcgslot %s"
          % (manifest, info["slots"], info["n_graphs"],
             gib(info["arena_bytes"]), cgslot.library_version()[1]))
    for v, name in enumerate(cfg.names):
        s = sizes[v][(0, 0)]
        print("  variant %-4s tokens %5d: input %d, output %d, saved %d, "
              "user_grad %d bytes per layer" %
              (name, cfg.tokens[v], s["input"], s["output"], s["saved"],
               s["user_grad"]))

    banks = Banks(cfg, device)
    nv = len(cfg.tokens)
    reach = rt.reachable
    plan = []
    for it in range(a.iterations):
        n = reach[-1] if it % 3 != 1 else reach[0]
        plan.append((n, [rng.randrange(nv) for _ in range(n)],
                     1000 + it))
    largest = max(range(nv), key=lambda v: cfg.tokens[v])

    def sync():
        if not dry:
            torch.cuda.synchronize()

    # 3: eager reference and eager peak
    eager = Step(cfg, chunks, banks, policy)
    for v in range(nv):   # warm-up: kernels, cuBLAS handles
        banks.fill(0)
        run_eager(eager, rt, reach[0], [v] * reach[0])
    log("eager reference of %d iterations" % len(plan))
    refs = []
    for n, variants, seed in plan:
        banks.fill(seed)
        zero_main_grads(chunks)
        run_eager(eager, rt, n, variants)
        refs.append(snapshot(chunks, banks, n, variants))
    sync()
    gc.collect()
    if not dry:
        torch.cuda.empty_cache()
    base_alloc = torch.cuda.memory_allocated() if not dry else 0
    if not dry:
        torch.cuda.reset_peak_memory_stats()
    n_max = reach[-1]
    log("eager peak at %d microbatches of %s" % (n_max, cfg.names[largest]))
    banks.fill(7)
    run_eager(eager, rt, n_max, [largest] * n_max)
    sync()
    eager_peak = torch.cuda.max_memory_allocated() if not dry else 0

    class Arena:
        """Frame views: libcgslot's arenas, or host copies in a dry run."""

        def __init__(self, rt):
            self.rt = rt
            self.host = None
            if dry:
                end = [0] * rt.info["n_arenas"]
                for v in range(nv):
                    for c in range(VPP):
                        for l in range(cfg.layers):
                            for s in range(rt.info["slots"]):
                                for role in range(4):
                                    r = rt.locate(v, c, l, role, slot=s)
                                    end[r.arena] = max(end[r.arena],
                                                       r.offset + r.bytes)
                self.host = [torch.full((n,), 0xA5, dtype=torch.uint8)
                             for n in end]

        def bytes(self, v, c, l, s, role):
            return self.rt.locate(v, c, l, role, slot=s).bytes

        def __call__(self, v, c, l, s, role, shape, dtype, offset):
            if not dry:
                return self.rt.tensor(v, c, l, role, slot=s, dtype=dtype,
                                      shape=shape, offset=offset)
            r = self.rt.locate(v, c, l, role, slot=s)
            n = 1
            for d in shape:
                n *= d
            item = torch.empty((), dtype=dtype).element_size()
            assert offset + n * item <= r.bytes
            # A base tensor over the host arena (as Runtime.tensor makes
            # on the GPU), not a view: writes by other frames must not
            # look like in-place changes of this one to autograd.
            u8 = self.host[r.arena]
            t = torch.empty(0, dtype=dtype)
            t.set_(u8.untyped_storage(), (r.offset + offset) // item,
                   tuple(shape), contiguous_strides(shape))
            return t

    results = {}

    # 4: cgslot
    def run_cgslot():
        gc.collect()
        if not dry:
            torch.cuda.empty_cache()
        res0 = torch.cuda.memory_reserved() if not dry else 0
        used0 = (torch.cuda.mem_get_info()[1] - torch.cuda.mem_get_info()[0]
                 if not dry else 0)
        if not dry:
            rt.allocate()
            for i in range(info["n_arenas"]):
                rt.arena_tensor(i)
        step = Step(cfg, chunks, banks, policy, arena=Arena(rt))
        pool = None if dry else torch.cuda.graph_pool_handle()
        descs = rt.capture_sequence()
        errs = []
        if dry:
            # Eager over host arenas, in launch order (no graphs).
            for (n, variants, seed), ref in zip(plan, refs):
                banks.fill(seed)
                zero_main_grads(chunks)
                banks.reset()
                for g in rt.sequence(n, variants):
                    v, c, s, l, d = decode(rt, g)
                    (step.backward if d else step.forward)(v, c, s, l,
                                                           retain=False)
                errs.append(compare(snapshot(chunks, banks, n, variants), ref))
            return errs
        banks.fill(0)
        log("capturing %d graphs into cgslot's arenas" % len(descs))
        trace = PoolTrace() if a.pool_trace else None
        graphs, secs = capture_all(step, descs, pool, trace)
        if trace:
            trace.stop()
        log("captured in %.2f s" % secs)
        t0 = time.perf_counter()
        for g, tg in graphs.items():
            rt.adopt(g, tg)
        adopt_s = time.perf_counter() - t0
        step.state.clear()
        gc.collect()
        sync()
        res1 = torch.cuda.memory_reserved()
        used1 = torch.cuda.mem_get_info()[1] - torch.cuda.mem_get_info()[0]
        log("adopted; replaying %d iterations through libcgslot" % len(plan))
        clashes = []
        for (n, variants, seed), ref in zip(plan, refs):
            banks.fill(seed)
            zero_main_grads(chunks)
            banks.reset()
            rt.replay(n, variants, stream=torch.cuda.current_stream())
            sync()
            errs.append(compare(snapshot(chunks, banks, n, variants), ref))
            clashes.append(predicted_clashes(
                rt, trace, {None: [d.index for d in descs]},
                rt.sequence(n, variants)))
        # timing: the largest count, fresh random variants each time
        times_g, times_e = [], []
        for i in range(a.timing_iterations):
            variants = [rng.randrange(nv) for _ in range(n_max)]
            banks.reset()
            e0, e1 = (torch.cuda.Event(enable_timing=True) for _ in range(2))
            e0.record()
            rt.replay(n_max, variants, stream=torch.cuda.current_stream())
            e1.record()
            sync()
            times_g.append(e0.elapsed_time(e1))
            e0.record()
            run_eager(eager, rt, n_max, variants)
            e1.record()
            sync()
            times_e.append(e0.elapsed_time(e1))
        results["cgslot"] = dict(
            graphs=len(graphs), capture_s=secs, adopt_s=adopt_s,
            pool=res1 - res0, device=used1 - used0, errs=errs,
            clashes=clashes, trace=trace,
            arena=info["arena_bytes"], replay_ms=statistics.median(times_g),
            eager_ms=statistics.median(times_e), stats=rt.stats())
        del graphs
        return errs

    errs = run_cgslot()
    if dry:
        worst = max(max(e.values()) for e in errs)
        print("dry run: cgslot placement vs eager over %d iterations, "
              "largest relative error %.3g" % (len(errs), worst))
        for (n, variants, _), e in zip(plan, errs):
            print("  N=%d variants %s: %s" % (n, variants, e))
        sys.exit(0 if worst <= 1e-6 else 1)
    rt.close()
    gc.collect()
    torch.cuda.empty_cache()

    # 5: PyTorch pools: one per variant; one per slot; one shared
    rt2 = cgslot.Runtime(manifest, rank=cfg.rank, device=0)
    descs = rt2.capture_sequence()

    def pool_groups(kind):
        """[(pool key, descs in capture order)] of a PyTorch-pool
        baseline, largest variant first.  per-variant: one pool per
        variant, its graphs in the capture sequence's order; per-slot: one
        pool per (variant, chunk, slot), its forwards up the layers, then
        its backwards down, which is the order every microbatch in that
        slot replays them in; shared: one pool for everything."""
        out = []
        for v in sorted(range(nv), key=lambda v: -cfg.tokens[v]):
            mine = [d for d in descs if d.variant == v]
            if kind != "per-slot":
                out.append((v if kind == "per-variant" else None,
                            pool_capture_order(mine, cfg.layers)))
                continue
            groups = {}
            for d in mine:
                groups.setdefault((v, d.chunk, d.slot), []).append(d)
            for key in sorted(groups):
                out.append((key, sorted(groups[key], key=lambda d: (
                    d.direction, -d.layer if d.direction else d.layer))))
        return out

    def run_pools(kind):
        gc.collect()
        torch.cuda.empty_cache()
        res0 = torch.cuda.memory_reserved()
        used0 = torch.cuda.mem_get_info()[1] - torch.cuda.mem_get_info()[0]
        log("capturing with PyTorch pools: %s" % kind)
        handles, order = {}, {}
        graphs, secs = {}, 0.0
        keep, step = [], None
        trace = PoolTrace() if a.pool_trace else None
        for key, ds in pool_groups(kind):
            v = ds[0].variant
            if step is None or step.variant != v:
                if kind == "shared":
                    step = None         # the next variant reuses the pool
                    gc.collect()
                step = Step(cfg, chunks, banks, policy)
                step.variant = v
                if kind != "shared":
                    keep.append(step)   # every static tensor stays
                banks.fill(0)
            if key not in handles:
                handles[key] = torch.cuda.graph_pool_handle()
            gs, s_ = capture_all(step, ds, handles[key], trace)
            order.setdefault(key, []).extend(d.index for d in ds)
            graphs.update(gs)
            secs += s_
        step = None
        gc.collect()
        if trace:
            trace.stop()
        torch.cuda.synchronize()
        res1 = torch.cuda.memory_reserved()
        used1 = torch.cuda.mem_get_info()[1] - torch.cuda.mem_get_info()[0]
        errs, clashes = [], []
        for (n, variants, seed), ref in zip(plan, refs):
            banks.fill(seed)
            zero_main_grads(chunks)
            banks.reset()
            seq = rt2.sequence(n, variants)
            for g in seq:
                graphs[g].replay()
            torch.cuda.synchronize()
            errs.append(compare(snapshot(chunks, banks, n, variants), ref))
            clashes.append(predicted_clashes(rt2, trace, order, seq))
        results[kind] = dict(graphs=len(graphs), capture_s=secs,
                             pool=res1 - res0, device=used1 - used0,
                             errs=errs, clashes=clashes, trace=trace,
                             pools=len(handles))
        del graphs, keep
        gc.collect()
        torch.cuda.empty_cache()

    if not a.skip_baselines:
        run_pools("per-variant")
        run_pools("per-slot")
        run_pools("shared")

    # 6: the table
    tol = 2e-2
    plan_bytes = info["arena_bytes"]
    w = sum(p.numel() * p.element_size() for p in params)
    mg = sum(p.main_grad.numel() * 4 for p in params)
    print()
    print("GPU %s, torch %s, hidden %d, heads %d, %d chunks x %d layers, "
          "rank %d of pp %d, L %d, variants %s (tokens %s)" %
          (torch.cuda.get_device_name(0), torch.__version__, cfg.hidden,
           cfg.heads, VPP, cfg.layers, cfg.rank, PP, cfg.max_mb,
           ",".join(cfg.names), ",".join(map(str, cfg.tokens))))
    print("iterations compared: %s" %
          "; ".join("N=%d %s" % (n, "".join(str(v) for v in vs))
                    for n, vs, _ in plan))
    print("common to all: weights %.3f GiB, fp32 main_grad %.3f GiB, "
          "pipeline banks %.3f GiB, no optimizer state" %
          (gib(w), gib(mg), gib(banks.nbytes())))
    print()
    hdr = "%-34s %10s %10s %8s %10s  %s"
    print(hdr % ("graph memory (beyond the common)", "GiB", "x plan",
                 "graphs", "capture s", "largest rel. error vs eager"))
    eager_act = eager_peak - base_alloc
    labels = (("per-variant", "one PyTorch pool per variant"),
              ("per-slot", "one pool per variant, chunk, slot"),
              ("shared", "one shared pool, largest first"),
              ("cgslot", "cgslot arenas + workspace pool"))
    for kind, label in labels:
        r = results.get(kind)
        if not r:
            continue
        mem = r["pool"] + (r["arena"] if kind == "cgslot" else 0)
        worst = max(max(e.values()) for e in r["errs"])
        print(hdr % (label, "%.3f" % gib(mem), "%.2f" % (mem / plan_bytes),
                     r["graphs"], "%.1f" % r["capture_s"],
                     "%s %s" % ("%.3g" % worst if worst != float("inf")
                                else "NaN", "ok" if worst <= tol
                                else "WRONG")))
    c = results["cgslot"]
    print(hdr % ("  of which cgslot arenas (plan)", "%.3f" % gib(plan_bytes),
                 "1.00", "", "", ""))
    print(hdr % ("  of which workspace pool", "%.3f" % gib(c["pool"]),
                 "%.2f" % (c["pool"] / plan_bytes), "", "", ""))
    print(hdr % ("eager peak, all at %s" % cfg.names[largest],
                 "%.3f" % gib(eager_act), "%.2f" % (eager_act / plan_bytes),
                 "", "", "(max_memory_allocated beyond the common)"))
    cg_total = base_alloc + plan_bytes + c["pool"]
    print()
    print("process peak: cgslot %.3f GiB vs eager %.3f GiB (%.1f%%)" %
          (gib(cg_total), gib(eager_peak),
           100.0 * (cg_total - eager_peak) / eager_peak))
    print("device memory taken by each run (cudaMemGetInfo delta): %s" %
          ", ".join("%s %.3f GiB" % (k, gib(r["device"]))
                    for k, r in results.items()))
    print("capture+instantiate: %d graphs in %.2f s (%.1f ms each), adopt "
          "%.1f ms total" % (c["graphs"], c["capture_s"],
                             1e3 * c["capture_s"] / c["graphs"],
                             1e3 * c["adopt_s"]))
    print("iteration N=%d, random variants: replay %.2f ms, eager %.2f ms "
          "(median of %d; %.2fx)" % (n_max, c["replay_ms"], c["eager_ms"],
                                     a.timing_iterations,
                                     c["eager_ms"] / c["replay_ms"]))
    print("tolerance: relative L2 error <= %g (bf16 activations, fp32 "
          "main_grad)" % tol)
    print("clashes: pairs of pool blocks whose addresses overlap and that "
          "a replay keeps live at once, from the allocator's events during "
          "capture (tools/python/examples/pool_reuse.py)")
    for kind, label in labels:
        r = results.get(kind)
        if not r:
            continue
        tr = r["trace"]
        if tr is not None and not tr.ok:
            print("  %s: no allocator trace (%s)" % (kind, tr.why))
        for (n, vs, _), e, k in zip(plan, r["errs"], r["clashes"]):
            print("  %-11s N=%d %s: loss %.2e dx %.2e grad %.2e%s" %
                  (kind, n, "".join(map(str, vs)), e["loss"], e["dx"],
                   e["grad"], "" if k is None else ", clashes %d" % k))
        wrong = [max(e.values()) > tol for e in r["errs"]]
        if r["clashes"] and r["clashes"][0] is not None:
            hit = [k > 0 for k in r["clashes"]]
            print("  %-11s %s%d of %d iterations wrong, %d with clashes; "
                  "wrong without clashes %d, clashes but right %d" %
                  (kind, "%d pools, " % r["pools"] if "pools" in r else "",
                   sum(wrong), len(wrong), sum(hit),
                   sum(w and not h for w, h in zip(wrong, hit)),
                   sum(h and not w for w, h in zip(wrong, hit))))
    bad = max(max(e.values()) for e in c["errs"]) > tol
    if a.strict_baselines:
        for kind, r in results.items():
            if r["trace"] is None or not r["trace"].ok:
                print("strict: %s: no allocator trace" % kind)
                bad = True
            for (n, vs, _), e, k in zip(plan, r["errs"], r["clashes"]):
                wrong = max(e.values()) > tol
                why = None
                if kind in ("cgslot", "per-slot") and (wrong or k):
                    why = "wrong" if wrong else "%d clashes" % k
                elif wrong and k == 0:
                    why = "wrong where no clash was predicted"
                if why:
                    print("strict: %s N=%d %s: %s" %
                          (kind, n, "".join(map(str, vs)), why))
                    bad = True
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
