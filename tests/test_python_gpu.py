#!/usr/bin/env python3
"""The Python binding on a GPU with PyTorch (suite 'gpu'; exit 77 without
a GPU or PyTorch).

Allocates a small manifest's arenas, checks that tensor views are the
runtime's addresses with no copy, captures one torch.cuda.CUDAGraph per
graph of the capture sequence (each appends its own index to a device
log), hands them to the runtime, and checks that cgs_runtime_replay
launched exactly cgs_runtime_sequence's graphs in that order, for every
reachable count with random variants.  Environment as tests/test_python.py.
"""

import json
import os
import random
import subprocess
import sys
import tempfile
import unittest

ROOT = os.environ.get("CGS_SOURCE_ROOT",
                      os.path.dirname(os.path.dirname(os.path.abspath(
                          __file__))))
sys.path.insert(0, os.path.join(ROOT, "tools", "python"))
CLI = os.environ.get("CGSLOT", "cgslot")

import cgslot  # noqa: E402
from cgslot import _native  # noqa: E402

try:
    import torch
except ImportError:
    print("skipped: no PyTorch")
    sys.exit(77)
if not torch.cuda.is_available():
    print("skipped: no CUDA device")
    sys.exit(77)

SCHEDULE = {
    "cgslot": 1, "name": "python-gpu",
    "pipeline": {"pp": 2, "vpp": 2, "layers_per_chunk": 2,
                 "microbatch_group": 2, "max_microbatches": 6,
                 "slots": "auto"},
    "alignment": 256,
    "variants": [
        {"name": "cp1", "cp": 1, "bytes": {"input": 4096, "output": 4096,
                                           "saved": 20000, "user_grad": 4096}},
        {"name": "cp2", "cp": 2, "bytes": {"input": 2048, "output": 8192,
                                           "saved": 9000, "user_grad": 2048}},
    ],
}


_TMP = tempfile.TemporaryDirectory(prefix="cgs-python-gpu-")


def tearDownModule():
    _TMP.cleanup()


def compiled():
    d = _TMP.name
    src, out = os.path.join(d, "s.json"), os.path.join(d, "s.cgslot")
    with open(src, "w") as f:
        json.dump(SCHEDULE, f)
    subprocess.run([CLI, "compile", src, "-o", out], check=True,
                   stdout=subprocess.DEVNULL)
    return out


class Gpu(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.path = compiled()
        torch.cuda.set_stream(torch.cuda.Stream())

    def test_views_are_the_arenas(self):
        with cgslot.Runtime(self.path, rank=0, device=0) as rt:
            rt.allocate()
            info = rt.info
            for a in range(info["n_arenas"]):
                base, nb = rt.arena(a)
                t = rt.arena_tensor(a)
                self.assertEqual((t.data_ptr(), t.numel()), (base, nb))
            for v in range(info["n_variants"]):
                for s in range(info["slots"]):
                    r = rt.locate(v, 1, 1, cgslot.OUTPUT, slot=s)
                    t = rt.tensor(v, 1, 1, cgslot.OUTPUT, slot=s,
                                  dtype=torch.float32, shape=(r.bytes // 4,))
                    addr, nb = rt.address(v, 1, 1, cgslot.OUTPUT,
                                          microbatches=rt.reachable[-1],
                                          microbatch=s)
                    self.assertEqual((t.data_ptr(), t.numel() * 4),
                                     (addr, nb))
                    t.fill_(v * 100 + s)
                    raw = rt.arena_tensor(r.arena)[r.offset:r.offset + 4]
                    self.assertEqual(raw.view(torch.float32).item(),
                                     v * 100 + s)

    def test_adopted_torch_graphs_replay_in_sequence(self):
        rt = cgslot.Runtime(self.path, rank=0, device=0)
        rt.allocate()
        info = rt.info
        n_graphs = info["n_graphs"]
        longest = max(rt.launch_count(n) for n in rt.reachable)
        log = torch.full((longest,), -1, dtype=torch.int64, device="cuda")
        pos = torch.zeros(1, dtype=torch.int64, device="cuda")
        graphs = []
        torch.cuda.synchronize()
        descs = rt.capture_sequence()
        for i, d in enumerate(descs):
            g = torch.cuda.CUDAGraph()
            g.capture_begin()
            log.index_fill_(0, pos, d.index)
            pos.add_(1)
            g.capture_end()
            graphs.append(g)
            rt.adopt(d.index, g)
            if i == len(descs) // 2:
                with self.assertRaises(cgslot.CgslotError) as cm:
                    rt.replay(rt.reachable[0], [0] * rt.reachable[0])
                self.assertEqual(cm.exception.code, _native.CGS_E_NOGRAPH)
        with self.assertRaises(cgslot.CgslotError) as cm:
            rt.adopt(descs[0].index, graphs[0])
        self.assertEqual(cm.exception.code, _native.CGS_E_STATE)
        self.assertEqual(rt.stats()["graphs_adopted"], n_graphs)
        rng = random.Random(5)
        for n in rt.reachable:
            for _ in range(3):
                variants = [rng.randrange(info["n_variants"])
                            for _ in range(n)]
                want = rt.sequence(n, variants)
                log.fill_(-1)
                pos.zero_()
                rt.replay(n, variants, stream=torch.cuda.current_stream())
                torch.cuda.synchronize()
                got = log[:len(want)].tolist()
                self.assertEqual(got, want, (n, variants))
                self.assertEqual(pos.item(), len(want))
        with self.assertRaises(cgslot.CgslotError) as cm:
            rt.replay(info["max_microbatches"] + 1,
                      [0] * (info["max_microbatches"] + 1))
        self.assertEqual(cm.exception.code, _native.CGS_E_UNREACHABLE)
        rt.close()


if __name__ == "__main__":
    unittest.main(verbosity=2)
