"""`cgslot report` and `cgslot dump` in Python, byte for byte.

libcgslot validates the file first (structure, checksum, cross-references:
the reader the CLI uses, so a bad manifest gets the CLI's message and exit
code); the sections are then read here, following cgslot-manifest(5), and
printed the way src/cli/cmd_dump.c and src/cli/report.c print them.  The
runtime API exposes what a training process needs, not the colouring,
bounds and section table these commands show, hence this reader.
tests/test_python.py compares both commands with the CLI on every
manifest under testdata/, so the two cannot drift apart unnoticed.
"""

import json
import struct

SECTION_NAMES = ["", "meta", "strings", "variants", "ranks", "reachable",
                 "orders", "arenas", "saved_frames", "user_grad_frames",
                 "saved_roles", "user_grad_layers", "capture", "slot_maps",
                 "chunk_slot_maps", "nested", "joint"]
HEADER_BYTES = 32
TOC_ENTRY_BYTES = 24
FLAG_OPTIONAL = 1


def _u32(b, o):
    return struct.unpack_from("<I", b, o)[0]


def _u64(b, o):
    return struct.unpack_from("<Q", b, o)[0]


class Manifest:
    """The sections of a manifest that libcgslot has validated."""

    def __init__(self, data):
        self.data = data
        self.major, self.minor = struct.unpack_from("<HH", data, 8)
        self.toc = []
        for i in range(_u32(data, 16)):
            e = HEADER_BYTES + i * TOC_ENTRY_BYTES
            sid, flags, off, nb = struct.unpack_from("<IIQQ", data, e)
            self.toc.append((sid, flags, off, nb))
        self.crc = _u32(data, len(data) - 4)
        sec = {sid: data[off:off + nb] for sid, _, off, nb in self.toc}
        self.sec = sec
        m = sec[1]
        (self.schedule_hash, self.alignment, self.pp, self.vpp, self.group,
         self.max_microbatches, self.slots, self.layers_total,
         self.n_variants, self.n_ranks, name, producer,
         self.entry_bytes) = struct.unpack_from("<QQ11I", m, 0)
        self.layers = list(struct.unpack_from("<%dI" % self.vpp, m, 64))
        self.name = self.string(name)
        self.producer = self.string(producer)
        self.variants = [(self.string(_u32(sec[3], 8 * v)),
                          _u32(sec[3], 8 * v + 4))
                         for v in range(self.n_variants)]
        # the largest ring's counts (format 2: each rank has its own ring)
        self.n_saved = self.slots * self.layers_total
        self.n_user_grad = self.vpp * self.slots
        self.n_graphs = self.n_variants * self.n_saved * 2
        self.rank_bytes = 136 if self.major == 1 else 168
        self.base = [sum(self.layers[:c]) for c in range(self.vpp + 1)]
        self._saved_first = self._ug_first = 0
        self.ranks = [self._rank(ri) for ri in range(self.n_ranks)]
        self.per_rank = any(r["slots"] != self.slots for r in self.ranks)

    def string(self, off):
        s = self.sec[2]
        return s[off:s.index(b"\0", off)].decode("utf-8")

    @staticmethod
    def _stats(b, o):
        frames, colours, clb, _, nb, lb = struct.unpack_from("<4IQQ", b, o)
        return {"frames": frames, "colours": colours,
                "colour_lower_bound": clb, "bytes": nb,
                "lower_bound_bytes": lb}

    def _frames(self, sid, first, n):
        b = self.sec[sid]
        out = []
        for i in range(first, first + n):
            c, s, l, col, ar, _, off, nb = struct.unpack_from("<6IQQ", b,
                                                               40 * i)
            out.append({"chunk": c, "slot": s, "layer": l, "colour": col,
                        "arena": ar, "offset": off, "bytes": nb})
        return out

    def _rank(self, ri):
        b = self.sec[4]
        o = self.rank_bytes * ri
        rid, n_reach, n_arenas, n_cap = struct.unpack_from("<4I", b, o)
        reach_first, arena_first, cap_first = struct.unpack_from("<3Q", b,
                                                                  o + 16)
        S, flags, map_first = self.slots, 0, 0
        if self.major >= 2:
            S, flags = struct.unpack_from("<II", b, o + 136)
            map_first = _u64(b, o + 160)
        r = {"rank": rid, "saved": self._stats(b, o + 40),
             "user_grad": self._stats(b, o + 72), "slots": S,
             "n_saved": S * self.layers_total, "n_user_grad": self.vpp * S,
             # flags bit 0: a row per count (section 13); bit 1 (2.1):
             # a row per count and chunk (section 14), [count][chunk][k]
             "slot_map": [] if flags & 3 else None,
             "per_chunk": bool(flags & 2)}
        n_saved = r["n_saved"]
        (r["bytes"], r["lower_bound_bytes"], r["bytes_without_sharing"],
         r["bytes_colour_arenas"]) = struct.unpack_from("<4Q", b, o + 104)
        fmt = {1: "b", 2: "h", 4: "i"}[self.entry_bytes]
        r["reachable"], r["orders"] = [], []
        for i in range(reach_first, reach_first + n_reach):
            n, _, first = struct.unpack_from("<IIQ", self.sec[5], 16 * i)
            length = 2 * n * self.vpp
            r["reachable"].append(n)
            r["orders"].append(list(struct.unpack_from(
                "<%d%s" % (length, fmt), self.sec[6],
                first * self.entry_bytes)))
            if r["per_chunk"]:
                r["slot_map"].append([list(struct.unpack_from(
                    "<%dI" % n, self.sec[14], 4 * (map_first + c * n)))
                    for c in range(self.vpp)])
                map_first += n * self.vpp
            elif r["slot_map"] is not None:
                r["slot_map"].append(list(struct.unpack_from(
                    "<%dI" % n, self.sec[13], 4 * map_first)))
                map_first += n
        r["arenas"] = []
        for i in range(arena_first, arena_first + n_arenas):
            role, _, nb, al = struct.unpack_from("<IIQQ", self.sec[7], 24 * i)
            r["arenas"].append({"role": role, "bytes": nb, "alignment": al})
        r["saved_frames"] = self._frames(8, self._saved_first, n_saved)
        r["user_grad_frames"] = self._frames(9, self._ug_first,
                                             r["n_user_grad"])
        self._saved_first += n_saved
        self._ug_first += r["n_user_grad"]
        # user-grad frames in a saved arena (format 2.2 on)
        r["nested"] = sum(1 for f in r["user_grad_frames"]
                          if r["arenas"][f["arena"]]["role"] == 0)
        # packed with the saved frames as one (format 2.3 on)
        r["joint"] = 16 in self.sec and bool(_u32(self.sec[16], 8 * ri) & 1)
        r["layouts"] = []
        for v in range(self.n_variants):
            rows = []
            for f in range(n_saved):
                if self.major == 1:
                    k = (ri * self.n_variants + v) * n_saved + f
                else:  # format 2: once per (variant, chunk, layer)
                    fr = r["saved_frames"][f]
                    k = ((ri * self.n_variants + v) * self.layers_total +
                         self.base[fr["chunk"]] + fr["layer"])
                roles = struct.unpack_from("<6Q", self.sec[10], 48 * k)
                ug = struct.unpack_from("<QQ", self.sec[11], 16 * k)
                rows.append([roles[0:2], roles[2:4], roles[4:6], ug])
            r["layouts"].append(rows)
        r["capture"] = list(struct.unpack_from("<%dI" % n_cap, self.sec[12],
                                               4 * cap_first))
        return r

    @staticmethod
    def graph_split(r, g):
        n = r["n_saved"]
        return g // 2 // n, g // 2 % n, g % 2


def _arena_role(role):
    return "saved" if role == 0 else "user_grad"


def _json_str(s):
    # The reader admits no control characters: only quotes and
    # backslashes are escaped, as cmd_dump.c does.
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


# ---- dump: text --------------------------------------------------------

def dump_text(m, w):
    w("manifest    format %u.%u, %u bytes, crc32c %08x\n" %
      (m.major, m.minor, len(m.data), m.crc))
    w("producer    cgslot %s\n" % m.producer)
    w("schedule    %s, hash %016x\n" % (m.name or "(unnamed)",
                                        m.schedule_hash))
    w("pipeline    pp %u, vpp %u, group %u, max_microbatches %u\n" %
      (m.pp, m.vpp, m.group, m.max_microbatches))
    w("layers     " + "".join(" %u" % n for n in m.layers) +
      " (%u per rank)\n" % m.layers_total)
    if m.per_rank:
        w("ring        per rank, the largest %u slots; up to %u saved frames, "
          "%u user-grad frames, %u graphs\n" %
          (m.slots, m.n_saved, m.n_user_grad, m.n_graphs))
    else:
        w("ring        %u slots; per rank %u saved frames, %u user-grad "
          "frames, %u graphs\n" %
          (m.slots, m.n_saved, m.n_user_grad, m.n_graphs))
    w("alignment   %u\n" % m.alignment)
    w("\nvariants\n")
    for v, (name, cp) in enumerate(m.variants):
        w("  %u  %s  cp %u\n" % (v, name, cp))
    w("\nsections\n  %4s  %-17s %5s %10s %10s\n" % ("id", "name", "flags",
                                                   "offset", "bytes"))
    for sid, flags, off, nb in m.toc:
        w("  %4u  %-17s %5u %10u %10u\n" % (sid, _section_name(sid), flags,
                                             off, nb))
    for r in m.ranks:
        _text_rank(m, r, w)


def _section_name(sid):
    return SECTION_NAMES[sid] if 1 <= sid < len(SECTION_NAMES) else "unknown"


def _text_frame(i, f, w):
    w("    %-6u %5u %4u %5u %6u %5u %14u %12u\n" %
      (i, f["chunk"], f["slot"], f["layer"], f["colour"], f["arena"],
       f["offset"], f["bytes"]))


def _text_rank(m, r, w):
    S = r["slots"]
    w("\nrank %u\n  ring        %u slots; %u saved frames, %u user-grad "
      "frames, %u graphs; %s\n" %
      (r["rank"], S, r["n_saved"], r["n_user_grad"],
       r["n_saved"] * 2 * m.n_variants,
       "slot k mod S" if r["slot_map"] is None
       else "slots from the slot map per count and chunk" if r["per_chunk"]
       else "slots from the slot map"))
    for n, row in zip(r["reachable"], r["slot_map"] or []):
        if r["per_chunk"]:
            for c, chunk_row in enumerate(row):
                w("  slots N=%u chunk %u:" % (n, c) +
                  "".join(" %u" % x for x in chunk_row) + "\n")
        else:
            w("  slots N=%u:" % n + "".join(" %u" % x for x in row) + "\n")
    w("  reachable  ")
    w("".join(" %u" % n for n in r["reachable"]) + "\n")
    for n, order in zip(r["reachable"], r["orders"]):
        w("  order N=%u:" % n + "".join(" %d" % e for e in order) + "\n")
    w("  report\n")
    for key, label in (("saved", "saved frames    "),
                       ("user_grad", "user-grad frames")):
        s = r[key]
        w("    %s %u, colours %u (lower bound %u), bytes %u (lower bound "
          "%u)\n" % (label, s["frames"], s["colours"],
                     s["colour_lower_bound"], s["bytes"],
                     s["lower_bound_bytes"]))
    w("    bytes %u, lower bound %u, without sharing %u, colour arenas %u\n"
      % (r["bytes"], r["lower_bound_bytes"], r["bytes_without_sharing"],
         r["bytes_colour_arenas"]))
    w("  arenas\n")
    for i, a in enumerate(r["arenas"]):
        w("    %u  %-9s %14u bytes, alignment %u\n" %
          (i, _arena_role(a["role"]), a["bytes"], a["alignment"]))
    head = "    %-6s %5s %4s %5s %6s %5s %14s %12s\n"
    w("  saved frames\n" + head % ("f", "chunk", "slot", "layer", "colour",
                                   "arena", "offset", "bytes"))
    for i, f in enumerate(r["saved_frames"]):
        _text_frame(i, f, w)
    w("  user-grad frames\n" + head % ("u", "chunk", "slot", "layer",
                                       "colour", "arena", "offset", "bytes"))
    for i, f in enumerate(r["user_grad_frames"]):
        _text_frame(i, f, w)
    for v, rows in enumerate(r["layouts"]):
        w("  layout of variant %s (offset+bytes within the frame)\n"
          "    %-6s %23s %23s %23s %23s\n" %
          (m.variants[v][0], "f", "input", "output", "saved", "user-grad"))
        for f, ranges in enumerate(rows):
            w("    %-6u" % f + "".join(" %11u+%-11u" % x for x in ranges) +
              "\n")
    w("  capture (graph = (variant * %u + frame) * 2 + direction)\n" %
      r["n_saved"])
    for i, g in enumerate(r["capture"]):
        v, f, d = m.graph_split(r, g)
        fr = r["saved_frames"][f]
        w("    %-6u graph %-7u %s chunk %u slot %u layer %u %s\n" %
          (i, g, m.variants[v][0], fr["chunk"], fr["slot"], fr["layer"],
           "backward" if d else "forward"))


# ---- dump: JSON --------------------------------------------------------

def _json_frame(f, last, w):
    w('        {"chunk": %u, "slot": %u, "layer": %u, "colour": %u, '
      '"arena": %u, "offset": %u, "bytes": %u}%s\n' %
      (f["chunk"], f["slot"], f["layer"], f["colour"], f["arena"],
       f["offset"], f["bytes"], "" if last else ","))


def _json_rows(rows):
    return "[" + ", ".join("[" + ", ".join("%u" % x for x in row) + "]"
                           for row in rows) + "]"


def _json_rank(m, r, last, w):
    if r["slot_map"] is None:
        slot_map = "null"
    elif r["per_chunk"]:
        slot_map = ('{"per_chunk": [' +
                    ", ".join(_json_rows(rows) for rows in r["slot_map"]) +
                    "]}")
    else:
        slot_map = _json_rows(r["slot_map"])
    w('    {\n      "rank": %u,\n      "slots": %u,\n      "slot_map": %s,\n'
      '      "orders": [\n' % (r["rank"], r["slots"], slot_map))
    n = len(r["reachable"])
    for i, (mb, order) in enumerate(zip(r["reachable"], r["orders"])):
        w('        {"microbatches": %u, "entries": [%s]}%s\n' %
          (mb, ", ".join("%d" % e for e in order), "," if i + 1 < n else ""))
    w('      ],\n      "report": {\n')
    for key in ("saved", "user_grad"):
        s = r[key]
        w('        "%s": {"frames": %u, "colours": %u, "colour_lower_bound": '
          '%u, "bytes": %u, "lower_bound_bytes": %u},\n' %
          (key, s["frames"], s["colours"], s["colour_lower_bound"],
           s["bytes"], s["lower_bound_bytes"]))
    w('        "bytes": %u,\n        "lower_bound_bytes": %u,\n'
      '        "bytes_without_sharing": %u,\n'
      '        "bytes_colour_arenas": %u\n      },\n' %
      (r["bytes"], r["lower_bound_bytes"], r["bytes_without_sharing"],
       r["bytes_colour_arenas"]))
    w('      "arenas": [\n')
    na = len(r["arenas"])
    for i, a in enumerate(r["arenas"]):
        w('        {"id": %u, "role": "%s", "bytes": %u, "alignment": %u}%s\n'
          % (i, _arena_role(a["role"]), a["bytes"], a["alignment"],
             "," if i + 1 < na else ""))
    w('      ],\n      "saved_frames": [\n')
    for i, f in enumerate(r["saved_frames"]):
        _json_frame(f, i + 1 == r["n_saved"], w)
    w('      ],\n      "user_grad_frames": [\n')
    for i, f in enumerate(r["user_grad_frames"]):
        _json_frame(f, i + 1 == r["n_user_grad"], w)
    w('      ],\n      "layouts": [\n')
    for v, rows in enumerate(r["layouts"]):
        w('        {"variant": %s, "frames": [\n' % _json_str(m.variants[v][0]))
        for f, x in enumerate(rows):
            w('          {"input": [%u, %u], "output": [%u, %u], '
              '"saved": [%u, %u], "user_grad": [%u, %u]}%s\n' %
              (x[0] + x[1] + x[2] + x[3] +
               ("," if f + 1 < r["n_saved"] else "",)))
        w("        ]}%s\n" % ("," if v + 1 < m.n_variants else ""))
    w('      ],\n      "capture": [%s]\n    }%s\n' %
      (", ".join("%u" % g for g in r["capture"]), "" if last else ","))


def dump_json(m, w):
    w('{\n  "format": {"major": %u, "minor": %u},\n' % (m.major, m.minor))
    w('  "bytes": %u,\n  "crc32c": "%08x",\n  "producer": %s' %
      (len(m.data), m.crc, _json_str(m.producer)))
    w(',\n  "schedule_hash": "%016x",\n  "name": %s' %
      (m.schedule_hash, _json_str(m.name)))
    w(',\n  "pp": %u,\n  "vpp": %u,\n  "group": %u,\n  "max_microbatches": '
      '%u,\n  "slots": %u,\n  "alignment": %u,\n  "layers": [%s' %
      (m.pp, m.vpp, m.group, m.max_microbatches, m.slots, m.alignment,
       ", ".join("%u" % n for n in m.layers)))
    w('],\n  "layers_total": %u,\n  "saved_frames_per_rank": %u,\n'
      '  "user_grad_frames_per_rank": %u,\n  "graphs_per_rank": %u,\n'
      '  "sections": [\n' % (m.layers_total, m.n_saved, m.n_user_grad,
                             m.n_graphs))
    for i, (sid, flags, off, nb) in enumerate(m.toc):
        w('    {"id": %u, "name": "%s", "optional": %s, "offset": %u, '
          '"bytes": %u}%s\n' %
          (sid, _section_name(sid),
           "true" if flags & FLAG_OPTIONAL else "false", off, nb,
           "," if i + 1 < len(m.toc) else ""))
    w('  ],\n  "variants": [\n')
    for i, (name, cp) in enumerate(m.variants):
        w('    {"name": %s, "cp": %u}%s\n' %
          (_json_str(name), cp, "," if i + 1 < m.n_variants else ""))
    w('  ],\n  "ranks": [\n')
    for i, r in enumerate(m.ranks):
        _json_rank(m, r, i + 1 == m.n_ranks, w)
    w("  ]\n}\n")


def dump_te_plan(m, w):
    w('{\n  "slots": %u,\n  "ranks": [' % m.slots)
    for i, r in enumerate(m.ranks):
        first = True
        S = r["slots"]
        w('%s\n    {\n      "rank": %u,' % ("," if i else "", r["rank"]))
        if m.per_rank:
            w('\n      "slots": %u,' % S)
        w('\n      "plan": [')
        for v in range(m.n_variants):
            base = 0
            for c in range(m.vpp):
                for s in range(S):
                    for l in range(m.layers[c]):
                        f = base * S + s * m.layers[c] + l
                        w('%s\n        [%u, %u, %u, %u, %u, %u, %u]' %
                          ("" if first else ",",
                           r["saved_frames"][f]["colour"], s, v * S + s, c,
                           l, v * m.layers_total + base + l,
                           r["user_grad_frames"][c * S + s]["colour"]))
                        first = False
                base += m.layers[c]
        w("\n      ]\n    }")
    w("\n  ]\n}\n")


# ---- report --------------------------------------------------------------

def _fmt_bytes(b):
    units = ["KiB", "MiB", "GiB", "TiB", "PiB"]
    v, u = float(b), -1
    while v >= 1024.0 and u < 4:
        v /= 1024.0
        u += 1
    if u < 0:
        return "%u B" % b
    return "%u B (%.1f %s)" % (b, v, units[u])


def _fmt_saving(ref, b):
    d = abs(ref - b)
    pct = 100.0 * d / ref if ref else 0.0
    return "%s %s (%.1f%%)" % ("saves" if ref >= b else "costs",
                               _fmt_bytes(d), pct)


def _print_reachable(reach):
    n = len(reach)
    step = reach[1] - reach[0] if n > 1 else 0
    prog = n > 3 and all(reach[i] - reach[i - 1] == step
                         for i in range(2, n))
    if prog:
        return "%u, %u, ..., %u" % (reach[0], reach[1], reach[-1])
    return ", ".join("%u" % x for x in reach)


def report_text(m, w):
    w("schedule %s: pp %u, vpp %u, group %u, max microbatches %u, %u layers "
      "per rank (%s by chunk), alignment %u\n" %
      (m.name or "(unnamed)", m.pp, m.vpp, m.group, m.max_microbatches,
       m.layers_total, " ".join("%u" % n for n in m.layers), m.alignment))
    w("variants:" + "".join(" %s (cp %u)" % v for v in m.variants))
    if m.per_rank:
        w("\nring: per rank," + ",".join(" rank %u %u slots" %
                                         (r["rank"], r["slots"])
                                         for r in m.ranks) + "\n")
    else:
        w("\nring: %u slots shared by every rank\n" % m.slots)
    total = without = colour = 0
    for r in m.ranks:
        w("\nrank %u: %u microbatch counts (%s), %u graphs%s\n" %
          (r["rank"], len(r["reachable"]), _print_reachable(r["reachable"]),
           len(r["capture"]), "" if r["slot_map"] is None else
           ", slots from a slot map per count and chunk" if r["per_chunk"]
           else ", slots from a slot map per count"))
        for key in ("saved", "user_grad"):
            s = r[key]
            nested = r["nested"] if key == "user_grad" else 0
            w("  %-10s %6u frames, %4u colours (clique bound %u%s), %s, "
              "lower bound %s%s\n" %
              (key, s["frames"], s["colours"], s["colour_lower_bound"],
               ", optimal" if s["colours"] == s["colour_lower_bound"] else "",
               _fmt_bytes(s["bytes"]), _fmt_bytes(s["lower_bound_bytes"]),
               "; %u frame%s nested in the saved arena%s" %
               (nested, "" if nested == 1 else "s",
                ", packed with its frames" if r["joint"] else "")
               if nested else ""))
        w("  arenas    ")
        for i, a in enumerate(r["arenas"]):
            w("%s#%u %s %s" % (", " if i else " ", i, _arena_role(a["role"]),
                               _fmt_bytes(a["bytes"])))
        lb = r["lower_bound_bytes"]
        w("\n  total      %s = %.3f x lower bound %s\n" %
          (_fmt_bytes(r["bytes"]), r["bytes"] / lb if lb else 1.0,
           _fmt_bytes(lb)))
        w("  sharing    every variant in its own arenas would take %s; "
          "sharing %s\n" % (_fmt_bytes(r["bytes_without_sharing"]),
                            _fmt_saving(r["bytes_without_sharing"],
                                        r["bytes"])))
        w("  upstream   one arena per colour would take %s; this plan %s\n" %
          (_fmt_bytes(r["bytes_colour_arenas"]),
           _fmt_saving(r["bytes_colour_arenas"], r["bytes"])))
        total += r["bytes"]
        without += r["bytes_without_sharing"]
        colour += r["bytes_colour_arenas"]
    if m.n_ranks > 1:
        w("\nall %u ranks: %s; without sharing %s; upstream %s\n" %
          (m.n_ranks, _fmt_bytes(total), _fmt_bytes(without),
           _fmt_bytes(colour)))


def _rank_json(m, r, role):
    out = {"rank": r["rank"]}
    if m.per_rank:
        out["slots"] = r["slots"]
    if r["slot_map"] is not None:
        out["slot_map"] = True
    if r["per_chunk"]:
        out["slot_map_per_chunk"] = True
    out.update({
        "reachable": r["reachable"],
        "graphs": len(r["capture"]), "saved": role(r["saved"]),
        "user_grad": dict(role(r["user_grad"]),
                          **({"nested": r["nested"]} if r["nested"] else {}),
                          **({"joint": True} if r["joint"] else {})),
        "bytes": r["bytes"],
        "lower_bound_bytes": r["lower_bound_bytes"],
        "bytes_without_sharing": r["bytes_without_sharing"],
        "bytes_colour_arenas": r["bytes_colour_arenas"],
        "arenas": [{"id": i, "role": _arena_role(a["role"]),
                    "bytes": a["bytes"]}
                   for i, a in enumerate(r["arenas"])],
    })
    return out


def report_json(m, w):
    def role(s):
        return {k: s[k] for k in ("frames", "colours", "colour_lower_bound",
                                  "bytes", "lower_bound_bytes")}

    doc = {
        "schedule": m.name, "slots": m.slots,
        "max_microbatches": m.max_microbatches, "pp": m.pp, "vpp": m.vpp,
        "group": m.group, "layers": m.layers, "alignment": m.alignment,
        "variants": [{"name": n, "cp": cp} for n, cp in m.variants],
        "ranks": [_rank_json(m, r, role) for r in m.ranks],
    }
    # jansson's JSON_INDENT(2) layout, which json.dumps(indent=2) shares.
    w(json.dumps(doc, indent=2, ensure_ascii=False) + "\n")
