#!/usr/bin/env python3
"""The Python binding without a GPU (suite 'unit').

Environment (set by tests/meson.build): CGS_SOURCE_ROOT, CGSLOT (the CLI),
CGSLOT_LIBRARY (the libcgslot just built), CGS_PYTHON_ABI (tests/
python_abi.c, the C layout of the structs).  Checks the ctypes layout
against the C compiler's, the declarations against the exported symbols,
every lookup against `cgslot dump --format json`, the refusals (bad
arguments, unreachable counts, a graph handed twice, replay before every
graph is adopted, views that do not fit), and `python3 -m cgslot
report|dump` against the CLI on every manifest under testdata/, byte for
byte with the same exit code.
"""

import ctypes
import glob
import json
import os
import subprocess
import sys
import tempfile
import unittest

ROOT = os.environ.get("CGS_SOURCE_ROOT",
                      os.path.dirname(os.path.dirname(os.path.abspath(
                          __file__))))
PKG = os.path.join(ROOT, "tools", "python")
sys.path.insert(0, PKG)
CLI = os.environ.get("CGSLOT", "cgslot")

import cgslot  # noqa: E402
from cgslot import _native  # noqa: E402

_TMP = tempfile.TemporaryDirectory(prefix="cgs-python-")
TMP = _TMP.name


def tearDownModule():
    _TMP.cleanup()
EXAMPLES = ["pp4-vpp4-l3-4var", "qwen-pp4-vpp2-dcp"]


def compile_example(name):
    out = os.path.join(TMP, name + ".cgslot")
    if not os.path.exists(out):
        subprocess.run([CLI, "compile", os.path.join(
                            ROOT, "testdata", "examples", name + ".yaml"),
                        "-o", out],
                       check=True, stdout=subprocess.DEVNULL)
    return out


def dump_json(path):
    r = subprocess.run([CLI, "dump", "--format", "json", path], check=True,
                       stdout=subprocess.PIPE)
    return json.loads(r.stdout)


class Layout(unittest.TestCase):
    def test_structs_match_the_c_layout(self):
        helper = os.environ.get("CGS_PYTHON_ABI")
        if not helper:
            self.skipTest("CGS_PYTHON_ABI not set")
        out = subprocess.run([helper], check=True, stdout=subprocess.PIPE,
                             text=True).stdout.split("\n")
        types = {"cgs_error": _native.Error,
                 "cgs_runtime_info": _native.RuntimeInfo,
                 "cgs_graph_desc": _native.GraphDesc,
                 "cgs_runtime_stats": _native.RuntimeStats}
        seen = set()
        for line in filter(None, out):
            struct, field, off, size = line.split()
            if struct == "version":
                # the binding accepts the header's version
                self.assertGreaterEqual(int(off), _native.ABI_MIN)
                continue
            t = types[struct]
            if field == "-":
                self.assertEqual(ctypes.sizeof(t), int(size), struct)
                continue
            d = getattr(t, field)
            self.assertEqual((d.offset, d.size), (int(off), int(size)),
                             "%s.%s" % (struct, field))
            seen.add((struct, field))
        for name, t in types.items():
            for field, _ in t._fields_:
                self.assertIn((name, field), seen,
                              "%s.%s is not in the C struct" % (name, field))

    def test_declared_functions_are_exported(self):
        with open(os.path.join(ROOT, "src", "runtime", "libcgslot.map")) as f:
            exported = {w.strip().rstrip(";") for w in f
                        if w.strip().startswith("cgs_")}
        lib = _native.load()
        declared = set(_native.SIGNATURES)
        for name in declared:
            self.assertIn(name, exported)
            self.assertTrue(hasattr(lib, name), name)
        # Record callbacks cannot drive a PyTorch capture (its allocator
        # must own the capture); graphs come in through adopt().
        self.assertEqual(exported - declared, {"cgs_runtime_capture"})

    def test_version(self):
        n, s = cgslot.library_version()
        self.assertGreaterEqual(n, 200)
        self.assertEqual("%d.%d.%d" % (n // 10000, n // 100 % 100, n % 100),
                         s)


class Import(unittest.TestCase):
    def run_py(self, code, **env):
        e = dict(os.environ, PYTHONPATH=PKG, **env)
        return subprocess.run([sys.executable, "-c", code], env=e,
                              stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True)

    def test_import_needs_only_the_standard_library(self):
        r = self.run_py(
            "import sys\n"
            "before = set(sys.modules)\n"
            "import cgslot, cgslot.__main__\n"
            "cgslot.library_path()\n"
            "new = {m.split('.')[0] for m in set(sys.modules) - before}\n"
            "print(sorted(new - set(sys.stdlib_module_names) - {'cgslot'}))")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout.strip(), "[]")

    def test_missing_library_is_named(self):
        r = self.run_py("import cgslot\ncgslot.Runtime('x')",
                        CGSLOT_LIBRARY="/nonexistent/libcgslot.so.0")
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("LibraryNotFound", r.stderr)
        self.assertIn("/nonexistent/libcgslot.so.0", r.stderr)


class Lookups(unittest.TestCase):
    def test_against_the_dump(self):
        # the examples, a manifest with rings per rank, one whose ranks
        # carry slot maps (format 2) and one with maps per chunk (2.1)
        paths = [compile_example(name) for name in EXAMPLES] + [
            os.path.join(ROOT, "testdata", "manifest", *p, "manifest.cgslot")
            for p in (("golden", "per-rank"), ("slot-map", "rotate"),
                      ("slot-map", "chunk"))]
        for path in paths:
            d = dump_json(path)
            for rank_doc in d["ranks"]:
                rank = rank_doc["rank"]
                with cgslot.Runtime(path, rank=rank, device=0) as rt:
                    self.check_rank(rt, d, rank_doc)

    def check_rank(self, rt, d, rd):
        info = rt.info
        for k in ("pp", "vpp", "group", "max_microbatches",
                  "alignment", "layers_total"):
            self.assertEqual(info[k], d[k], k)
        # the rank's own ring (format 2), not the largest
        self.assertEqual(info["slots"], rd["slots"])
        self.assertEqual(info["rank"], rd["rank"])
        self.assertEqual(info["n_variants"], len(d["variants"]))
        self.assertEqual(info["n_saved"], len(rd["saved_frames"]))
        self.assertEqual(info["n_graphs"],
                         2 * len(rd["saved_frames"]) * len(d["variants"]))
        self.assertEqual(info["n_arenas"], len(rd["arenas"]))
        self.assertEqual(info["arena_bytes"], rd["report"]["bytes"])
        self.assertEqual(rt.reachable,
                         [o["microbatches"] for o in rd["orders"]])
        self.assertEqual([rt.chunk_layers(c) for c in range(info["vpp"])],
                         d["layers"])
        S = info["slots"]
        sm = rd["slot_map"]
        for i, n in enumerate(rt.reachable):
            for c in range(info["vpp"]):
                # null, a row per count, or {"per_chunk": [count][chunk]}
                want = ([k % S for k in range(n)] if sm is None
                        else sm["per_chunk"][i][c] if isinstance(sm, dict)
                        else sm[i])
                self.assertEqual([rt.slot(n, c, k) for k in range(n)], want)
        self.assertEqual(rt.graph_count(), len(rd["capture"]))
        for i in (0, 1, len(rd["capture"]) // 2, len(rd["capture"]) - 1):
            g = rt.graph_desc(i)
            self.assertEqual(g.index, rd["capture"][i])
            self.assertEqual(g.addr, (0, 0, 0, 0))   # before allocate
        base = [0]
        for c in range(info["vpp"]):
            base.append(base[-1] + d["layers"][c])
        roles = ["input", "output", "saved", "user_grad"]
        for v in range(info["n_variants"]):
            for c in range(info["vpp"]):
                for s in {0, S - 1}:
                    for l in {0, d["layers"][c] - 1}:
                        f = base[c] * S + s * d["layers"][c] + l
                        fr = rd["saved_frames"][f]
                        ug = rd["user_grad_frames"][c * S + s]
                        lay = rd["layouts"][v]["frames"][f]
                        for r, role in enumerate(roles):
                            got = rt.locate(v, c, l, r, slot=s)
                            frame = ug if role == "user_grad" else fr
                            self.assertEqual(
                                tuple(got),
                                (frame["arena"],
                                 frame["offset"] + lay[role][0],
                                 lay[role][1]), (v, c, s, l, role))
                            # a microbatch of the largest count in slot s
                            n = rt.reachable[-1]
                            row = [rt.slot(n, c, k) for k in range(n)]
                            if s in row:
                                self.assertEqual(
                                    rt.locate(v, c, l, r, microbatches=n,
                                              microbatch=row.index(s)),
                                    got)
        for n in rt.reachable:
            variants = [k % info["n_variants"] for k in range(n)]
            seq = rt.sequence(n, variants)
            self.assertEqual(len(seq), rt.launch_count(n))
            self.assertEqual(len(seq), 2 * n * info["layers_total"])
        self.assertEqual(rt.stats(), {"graphs_captured": 0,
                                      "graphs_adopted": 0,
                                      "capture_ns": 0,
                                      "instantiate_ns": 0})


class Refusals(unittest.TestCase):
    def setUp(self):
        self.rt = cgslot.Runtime(compile_example(EXAMPLES[1]), rank=0,
                                 device=0)
        self.info = self.rt.info

    def tearDown(self):
        self.rt.close()

    def code(self, fn, *a, **kw):
        with self.assertRaises(cgslot.CgslotError) as cm:
            fn(*a, **kw)
        self.assertTrue(cm.exception.message)
        return cm.exception.code

    def test_open(self):
        self.assertEqual(self.code(cgslot.Runtime, "/nonexistent"),
                         _native.CGS_E_IO)
        e = self.code(cgslot.Runtime, compile_example(EXAMPLES[1]), rank=99)
        self.assertEqual(e, _native.CGS_E_RANK)
        self.assertEqual(self.code(cgslot.Runtime, compile_example(
            EXAMPLES[1]), device=-1), _native.CGS_E_ARG)
        with open(compile_example(EXAMPLES[1]), "rb") as f:
            data = bytearray(f.read())
        data[-1] ^= 1
        with self.assertRaises(cgslot.CgslotError) as cm:
            cgslot.Runtime(buffer=bytes(data), name="flipped.cgslot")
        self.assertEqual(cm.exception.code, _native.CGS_E_CHECKSUM)
        self.assertEqual(cm.exception.file, "flipped.cgslot")

    def test_indices(self):
        rt, i = self.rt, self.info
        A = _native.CGS_E_ARG
        self.assertEqual(self.code(rt.locate, i["n_variants"], 0, 0, 0,
                                   slot=0), A)
        self.assertEqual(self.code(rt.locate, 0, i["vpp"], 0, 0, slot=0), A)
        self.assertEqual(self.code(rt.locate, 0, 0, rt.chunk_layers(0), 0,
                                   slot=0), A)
        self.assertEqual(self.code(rt.locate, 0, 0, 0, 0, slot=i["slots"]),
                         A)
        self.assertEqual(self.code(rt.locate, 0, 0, 0, 4, slot=0), A)
        self.assertEqual(self.code(rt.chunk_layers, i["vpp"]), A)
        self.assertEqual(self.code(rt.graph_desc, i["n_graphs"]), A)
        n = rt.reachable[-1]
        self.assertEqual(self.code(rt.slot, n, 0, n), A)
        self.assertEqual(self.code(rt.slot, n, i["vpp"], 0), A)

    def test_counts(self):
        rt, U = self.rt, _native.CGS_E_UNREACHABLE
        L = self.info["max_microbatches"]
        for n in (L + 1, rt.reachable[0] + 1, 0):
            self.assertEqual(self.code(rt.slot, n, 0, 0), U)
            self.assertEqual(self.code(rt.locate, 0, 0, 0, 0,
                                       microbatches=n, microbatch=0), U)
            self.assertEqual(self.code(rt.sequence, n, [0] * n), U)
        self.assertEqual(rt.launch_count(L + 1), 0)
        n = rt.reachable[0]
        self.assertEqual(self.code(rt.sequence, n, [0] * (n - 1)),
                         _native.CGS_E_ARG)
        self.assertEqual(self.code(rt.sequence, n,
                                   [self.info["n_variants"]] * n),
                         _native.CGS_E_ARG)

    def test_graphs_once_and_all_before_replay(self):
        rt = self.rt
        n = rt.reachable[0]
        self.assertEqual(self.code(rt.replay, n, [0] * n),
                         _native.CGS_E_NOGRAPH)
        # Borrowed fake executables: adopt makes no CUDA call, and a
        # borrowed executable is never destroyed by the runtime.
        fake = 0x1000
        rt.adopt(0, fake)
        self.assertEqual(rt.graph_exec(0), fake)
        self.assertEqual(self.code(rt.adopt, 0, fake + 8),
                         _native.CGS_E_STATE)
        self.assertEqual(rt.graph_exec(0), fake)
        self.assertEqual(self.code(rt.adopt, self.info["n_graphs"], fake),
                         _native.CGS_E_ARG)
        for g in range(1, self.info["n_graphs"] - 1):
            rt.adopt(g, fake + 8 * g)
        with self.assertRaises(cgslot.CgslotError) as cm:
            rt.replay(n, [0] * n)
        self.assertEqual(cm.exception.code, _native.CGS_E_NOGRAPH)
        self.assertIn("graph %d" % (self.info["n_graphs"] - 1),
                      cm.exception.message)
        self.assertEqual(rt.stats()["graphs_adopted"],
                         self.info["n_graphs"] - 1)

    def test_views_must_fit(self):
        try:
            import torch
        except ImportError:
            self.skipTest("no PyTorch")
        rt = self.rt
        nb = rt.locate(0, 0, 0, cgslot.SAVED, slot=0).bytes
        with self.assertRaises(cgslot.CgslotError) as cm:
            rt.tensor(0, 0, 0, cgslot.SAVED, slot=0, dtype=torch.float32,
                      shape=(nb // 4 + 1,))
        self.assertEqual(cm.exception.code, _native.CGS_E_ARG)
        self.assertIn("has %d bytes" % nb, cm.exception.message)
        with self.assertRaises(cgslot.CgslotError) as cm:
            rt.tensor(0, 0, 0, cgslot.SAVED, slot=0, dtype=torch.bfloat16,
                      shape=(4,), offset=nb - 6)
        self.assertEqual(cm.exception.code, _native.CGS_E_ARG)
        with self.assertRaises(cgslot.CgslotError) as cm:
            rt.tensor(0, 0, 0, cgslot.SAVED, slot=0, dtype=torch.float32,
                      shape=(2,), offset=2)
        self.assertEqual(cm.exception.code, _native.CGS_E_ARG)
        # What fits gets as far as the arenas, which need allocate().
        self.assertEqual(self.code(rt.tensor, 0, 0, 0, cgslot.SAVED, slot=0,
                                   dtype=torch.float32, shape=(nb // 4,)),
                         _native.CGS_E_STATE)

    def test_closed(self):
        self.rt.close()
        self.assertEqual(self.code(self.rt.locate, 0, 0, 0, 0, slot=0),
                         _native.CGS_E_STATE)


class ReportDump(unittest.TestCase):
    FORMATS = [("report", None), ("report", "json"), ("dump", None),
               ("dump", "json"), ("dump", "te-plan")]

    def manifests(self):
        out = [compile_example(n) for n in EXAMPLES]
        out += sorted(glob.glob(os.path.join(ROOT, "testdata", "manifest",
                                             "*", "*", "manifest.cgslot")))
        return out + ["/nonexistent.cgslot", TMP]

    def cli(self, args):
        r = subprocess.run([CLI] + args, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE)
        return r.stdout, r.stderr, r.returncode

    @staticmethod
    def python(args):
        # In this process: an interpreter start per case would take most
        # of the test's time on a small machine.  test_module runs one
        # through `python3 -m cgslot`.
        import contextlib
        import io

        import cgslot.__main__ as entry
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            rc = entry.main(args)
        return out.getvalue().encode(), err.getvalue().encode(), rc

    def test_same_as_the_cli(self):
        checked = 0
        for path in self.manifests():
            valid = self.cli(["report", path])[2] == 0
            for cmd, fmt in self.FORMATS if valid else self.FORMATS[:1]:
                args = [cmd] + (["--format", fmt] if fmt else []) + [path]
                self.assertEqual(self.python(args), self.cli(args),
                                 " ".join(args))
                checked += 1
        self.assertGreater(checked, 40)

    def test_module(self):
        path = compile_example(EXAMPLES[1])
        for args in (["dump", "--format", "json", path],
                     ["report", "/nonexistent.cgslot"]):
            r = subprocess.run([sys.executable, "-m", "cgslot"] + args,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               env=dict(os.environ, PYTHONPATH=PKG))
            self.assertEqual((r.stdout, r.stderr, r.returncode),
                             self.cli(args))


if __name__ == "__main__":
    unittest.main(verbosity=2)
