#!/usr/bin/env python3
"""Manifest surgery for tests, written from cgslot-manifest(5) alone.

  manifest_edit.py crc FILE...        check each trailer's CRC-32C (exit 1 if bad)
  manifest_edit.py corrupt SRC DIR    write DIR/<case>/manifest.cgslot, one per
                                      corruption below, from the golden SRC
  manifest_edit.py future SRC OUT     write OUT: SRC (2.0 to 2.3) as minor 2.4,
                                      with the sections 2.3 requires and an
                                      extra optional section (a reader of 2.3
                                      loads it)
  manifest_edit.py decode FILE        print FILE decoded as 'cgslot dump --format
                                      json' prints it, by a second reader
  manifest_edit.py poke SRC OUT ID AT FMT VALUE
                                      write OUT: SRC with VALUE packed as FMT
                                      (struct, little-endian) at byte AT of
                                      section ID, the CRC-32C re-sealed

Its CRC-32C and table-of-contents parsing are independent of the C code,
so agreeing with it cross-checks both against the man page.
"""
import os
import struct
import sys


def _table():
    t = []
    for b in range(256):
        c = b
        for _ in range(8):
            c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
        t.append(c)
    return t


_T = _table()


def crc32c(data):
    c = 0xFFFFFFFF
    for b in data:
        c = (c >> 8) ^ _T[(c ^ b) & 0xFF]
    return c ^ 0xFFFFFFFF


def fix_crc(b):
    struct.pack_into("<I", b, len(b) - 4, crc32c(bytes(b[:-4])))


def sections(b):
    """{id: (offset, bytes)} from the table of contents."""
    n = struct.unpack_from("<I", b, 16)[0]
    out = {}
    for i in range(n):
        sid, _flags, off, size = struct.unpack_from("<IIQQ", b, 32 + 24 * i)
        out[sid] = (off, size)
    return out


def check_crc(paths):
    bad = 0
    for p in paths:
        b = open(p, "rb").read()
        want = struct.unpack_from("<I", b, len(b) - 4)[0]
        got = crc32c(b[:-4])
        if want != got or struct.unpack_from("<Q", b, 24)[0] != len(b):
            print(f"{p}: stored crc {want:08x}, computed {got:08x}")
            bad = 1
    return bad


RANK = 168  # a RANKS entry of format 2 (136 in format 1)


def corruptions(src):
    """(name, bytes) for each corrupt case, from a format 2 manifest; most
    keep a valid checksum so the structural checks behind it are what
    rejects them."""
    s = sections(src)
    meta, _ = s[1]
    ranks, _ = s[4]
    orders, _ = s[6]
    frames, _ = s[8]
    capture, _ = s[12]
    arenas, _ = s[7]
    cases = []

    def edit(name, fn, crc=True):
        b = bytearray(src)
        fn(b)
        if crc:
            fix_crc(b)
        cases.append((name, bytes(b)))

    edit("bad-magic", lambda b: b.__setitem__(slice(0, 8), b"CGSLOTXX"))
    edit("newer-major", lambda b: struct.pack_into("<H", b, 8, 3))
    # Noise after the magic: a corrupt header, not a newer format.
    edit("garbage-after-magic",
         lambda b: b.__setitem__(slice(8, 40),
                                 bytes((i * 73 + 0x91) & 0xFF for i in range(32))),
         crc=False)
    edit("checksum", lambda b: b.__setitem__(len(b) // 2, b[len(b) // 2] ^ 0x40),
         crc=False)
    cases.append(("truncated", bytes(src[: len(src) // 2])))
    cases.append(("empty", b""))
    edit("reserved-header", lambda b: struct.pack_into("<I", b, 20, 1))
    edit("section-misplaced",
         lambda b: struct.pack_into("<Q", b, 32 + 8, meta + 8))
    edit("slots-overflow",
         lambda b: struct.pack_into("<I", b, meta + 32, 0x80000000))
    edit("rank-out-of-range", lambda b: struct.pack_into("<I", b, ranks, 9))
    edit("order-bad-chunk", lambda b: b.__setitem__(orders, 7))
    edit("order-early-backward", lambda b: b.__setitem__(orders, 0xFF))
    edit("arena-out-of-range",
         lambda b: struct.pack_into("<I", b, frames + 16, 5))
    arena_bytes = struct.unpack_from("<Q", src, arenas + 8)[0]
    edit("offset-past-arena",
         lambda b: struct.pack_into("<Q", b, frames + 24, arena_bytes))
    edit("capture-out-of-range",
         lambda b: struct.pack_into("<I", b, capture, 0xFFFFFF))
    edit("capture-repeated",
         lambda b: b.__setitem__(slice(capture, capture + 4),
                                 src[capture + 4:capture + 8]))
    # Figures and meta fields the reader derives from the rest of the file
    # (cgslot-manifest(5), "Consistency"), each re-sealed with a fresh CRC.
    edit("meta-max-microbatches",
         lambda b: struct.pack_into("<I", b, meta + 28, 17))
    edit("meta-group", lambda b: struct.pack_into("<I", b, meta + 24, 3))
    edit("figures-saved-frames",
         lambda b: struct.pack_into("<I", b, ranks + 40, 7))
    edit("figures-colours",
         lambda b: struct.pack_into("<I", b, ranks + RANK + 44, 0xFFFFFFFF))
    total = struct.unpack_from("<Q", src, ranks + 104)[0]
    edit("figures-lower-bound",
         lambda b: struct.pack_into("<Q", b, ranks + 112, total + 1))
    edit("figures-upstream-bytes",
         lambda b: struct.pack_into("<Q", b, ranks + RANK + 128, 1))
    # Format 2's fields: each rank's ring, its flags, its first indices.
    edit("ring-zero", lambda b: struct.pack_into("<I", b, ranks + 136, 0))
    edit("ring-above-meta",
         lambda b: struct.pack_into("<I", b, ranks + RANK + 136, 99))
    edit("ring-not-largest",
         lambda b: struct.pack_into("<I", b, meta + 32, 9))
    edit("rank-flags-reserved",
         lambda b: struct.pack_into("<I", b, ranks + 140, 6))
    edit("rank-saved-first",
         lambda b: struct.pack_into("<Q", b, ranks + RANK + 144, 0))
    edit("rank-slot-map-first",
         lambda b: struct.pack_into("<Q", b, ranks + RANK + 160, 5))
    # a map announced on the last rank, none stored
    last = ranks + RANK * (len(src[ranks:ranks + s[4][1]]) // RANK - 1)
    edit("slot-map-missing",
         lambda b: struct.pack_into("<I", b, last + 140, 1))
    return cases


def future_minor(src):
    """src as minor 4, with an empty section 14 (chunk slot maps, required
    from 2.1 on) where src is 2.0, a section 15 of zero counts (nested
    user-grad frames, one entry of 8 bytes per rank, required from 2.2 on)
    and a section 16 of zero flags (joint packing, the same entries,
    required from 2.3 on) where src is older, and an optional section 4096
    appended: the table
    of contents grows by an entry per section added, so every payload
    moves by 24 bytes for each."""
    n = struct.unpack_from("<I", src, 16)[0]
    first = 32 + 24 * n
    body = src[first:len(src) - 8]
    payload = b"optional data from a newer writer"
    meta_off = struct.unpack_from("<Q", src, 32 + 8)[0]
    n_ranks = struct.unpack_from("<I", src, meta_off + 44)[0]
    added = [(14, 0, b"")] if n == 13 else []
    if n <= 14:
        added.append((15, 0, bytes(8 * n_ranks)))
    if n <= 15:
        added.append((16, 0, bytes(8 * n_ranks)))
    added.append((4096, 1, payload))
    shift = 24 * len(added)
    out = bytearray(src[:32])
    struct.pack_into("<H", out, 10, 4)
    struct.pack_into("<I", out, 16, n + len(added))
    for i in range(n):
        sid, flags, off, size = struct.unpack_from("<IIQQ", src, 32 + 24 * i)
        out += struct.pack("<IIQQ", sid, flags, off + shift, size)
    pos = first + shift + len(body)
    for sid, flags, data in added:
        out += struct.pack("<IIQQ", sid, flags, pos, len(data))
        pos += len(data) + (-len(data)) % 8
    out += body
    for sid, flags, data in added:
        out += data + bytes((-len(data)) % 8)
    out += bytes(8)
    struct.pack_into("<Q", out, 24, len(out))
    fix_crc(out)
    return bytes(out)


SECTION_NAMES = ["", "meta", "strings", "variants", "ranks", "reachable",
                 "orders", "arenas", "saved_frames", "user_grad_frames",
                 "saved_roles", "user_grad_layers", "capture", "slot_maps",
                 "chunk_slot_maps", "nested", "joint"]


def decode(b):
    """A second reader, from cgslot-manifest(5): the dump JSON structure."""
    assert b[:8] == b"CGSLOTMF", "magic"
    major, minor, hdr, n, res, size = struct.unpack_from("<HHIIIQ", b, 8)
    assert major in (1, 2) and hdr == 32 and res == 0 and size == len(b)
    rank_bytes = 136 if major == 1 else 168
    assert struct.unpack_from("<I", b, len(b) - 4)[0] == crc32c(b[:-4])
    toc, sec, pos = [], {}, 32 + 24 * n
    for i in range(n):
        sid, flags, off, nbytes = struct.unpack_from("<IIQQ", b, 32 + 24 * i)
        assert off == pos and flags in (0, 1)
        pos = (off + nbytes + 7) & ~7
        toc.append({"id": sid, "name": SECTION_NAMES[sid] if sid <= 16 else "unknown",
                    "optional": bool(flags & 1), "offset": off, "bytes": nbytes})
        sec[sid] = b[off:off + nbytes]
    assert pos == len(b) - 8
    meta, strs = sec[1], sec[2]

    def string(off):
        return strs[off:strs.index(b"\0", off)].decode("utf-8")

    (hsh, align, pp, vpp, group, lmax, slots, ltotal, nvar, nranks, name,
     producer, width, _res) = struct.unpack_from("<QQIIIIIIIIIIII", meta, 0)
    layers = list(struct.unpack_from(f"<{vpp}I", meta, 64))
    base = [sum(layers[:c]) for c in range(vpp + 1)]
    variants = [struct.unpack_from("<II", sec[3], 8 * v) for v in range(nvar)]
    fmt = {1: "b", 2: "h", 4: "i"}[width]

    def frame(data, i):
        c, s, l, col, ar, _r, off, nb = struct.unpack_from("<IIIIIIQQ", data, 40 * i)
        return {"chunk": c, "slot": s, "layer": l, "colour": col, "arena": ar,
                "offset": off, "bytes": nb}

    def stats(r, at):
        fr, col, lb, _r, nb, lbb = struct.unpack_from("<IIIIQQ", r, at)
        return {"frames": fr, "colours": col, "colour_lower_bound": lb,
                "bytes": nb, "lower_bound_bytes": lbb}

    ranks = []
    saved_first = ug_first = 0
    for ri in range(nranks):
        r = sec[4][rank_bytes * ri:rank_bytes * (ri + 1)]
        rid, nreach, nar, ncap, rfirst, afirst, cfirst = struct.unpack_from("<IIIIQQQ", r, 0)
        # format 2: the rank's own ring and optional slot map
        S, flags, map_first = slots, 0, 0
        if major >= 2:
            S, flags, sf_first, uf_first, map_first = struct.unpack_from("<IIQQQ", r, 136)
            assert (sf_first, uf_first) == (saved_first, ug_first)
        n_saved, n_ug = S * ltotal, vpp * S
        # bit 0: a row per count (section 13); bit 1 (2.1): a row per
        # count and chunk (section 14), printed as {"per_chunk": rows}
        assert flags in ((0, 1, 2) if (major, minor) >= (2, 1) else (0, 1))
        orders, slot_map = [], ([] if flags else None)
        for i in range(nreach):
            mb, _r, first = struct.unpack_from("<IIQ", sec[5], 16 * (rfirst + i))
            cnt = 2 * mb * vpp
            orders.append({"microbatches": mb, "entries": list(
                struct.unpack_from(f"<{cnt}{fmt}", sec[6], first * width))})
            if flags == 1:
                slot_map.append(list(struct.unpack_from(f"<{mb}I", sec[13], 4 * map_first)))
                map_first += mb
            elif flags == 2:
                slot_map.append([list(struct.unpack_from(f"<{mb}I", sec[14], 4 * (map_first + c * mb)))
                                 for c in range(vpp)])
                map_first += mb * vpp
        arenas = []
        for a in range(nar):
            role, _r, nb, al = struct.unpack_from("<IIQQ", sec[7], 24 * (afirst + a))
            arenas.append({"id": a, "role": ["saved", "user_grad"][role],
                           "bytes": nb, "alignment": al})
        saved = [frame(sec[8], saved_first + f) for f in range(n_saved)]
        layouts = []
        for v in range(nvar):
            frames = []
            for f in range(n_saved):
                if major == 1:
                    k = (ri * nvar + v) * n_saved + f
                else:  # once per (variant, chunk, layer)
                    k = (ri * nvar + v) * ltotal + base[saved[f]["chunk"]] + saved[f]["layer"]
                t = struct.unpack_from("<6Q", sec[10], 48 * k)
                u = struct.unpack_from("<2Q", sec[11], 16 * k)
                frames.append({"input": list(t[0:2]), "output": list(t[2:4]),
                               "saved": list(t[4:6]), "user_grad": list(u)})
            layouts.append({"variant": string(variants[v][0]), "frames": frames})
        totals = struct.unpack_from("<4Q", r, 104)
        ranks.append({
            "rank": rid, "slots": S, "orders": orders,
            "slot_map": {"per_chunk": slot_map} if flags == 2 else slot_map,
            "report": {"saved": stats(r, 40), "user_grad": stats(r, 72),
                       "bytes": totals[0], "lower_bound_bytes": totals[1],
                       "bytes_without_sharing": totals[2],
                       "bytes_colour_arenas": totals[3]},
            "arenas": arenas,
            "saved_frames": saved,
            "user_grad_frames": [frame(sec[9], ug_first + u) for u in range(n_ug)],
            "layouts": layouts,
            "capture": list(struct.unpack_from(f"<{ncap}I", sec[12], 4 * cfirst)),
        })
        # The index formulas of the man page name every frame.
        for c in range(vpp):
            for s in range(S):
                for l in range(layers[c]):
                    f = ranks[-1]["saved_frames"][base[c] * S + s * layers[c] + l]
                    assert (f["chunk"], f["slot"], f["layer"]) == (c, s, l)
        saved_first += n_saved
        ug_first += n_ug
    n_saved, n_ug = slots * ltotal, vpp * slots
    return {
        "format": {"major": major, "minor": minor}, "bytes": len(b),
        "crc32c": f"{struct.unpack_from('<I', b, len(b) - 4)[0]:08x}",
        "producer": string(producer), "schedule_hash": f"{hsh:016x}",
        "name": string(name), "pp": pp, "vpp": vpp, "group": group,
        "max_microbatches": lmax, "slots": slots, "alignment": align,
        "layers": layers, "layers_total": ltotal,
        "saved_frames_per_rank": n_saved, "user_grad_frames_per_rank": n_ug,
        "graphs_per_rank": nvar * n_saved * 2, "sections": toc,
        "variants": [{"name": string(o), "cp": cp} for o, cp in variants],
        "ranks": ranks,
    }


def main(argv):
    if len(argv) == 3 and argv[1] == "decode":
        import json
        json.dump(decode(open(argv[2], "rb").read()), sys.stdout)
        print()
        return 0
    if len(argv) == 4 and argv[1] == "future":
        with open(argv[3], "wb") as f:
            f.write(future_minor(open(argv[2], "rb").read()))
        return 0
    if len(argv) == 8 and argv[1] == "poke":
        b = bytearray(open(argv[2], "rb").read())
        off, _size = sections(b)[int(argv[4])]
        struct.pack_into("<" + argv[6], b, off + int(argv[5], 0),
                         int(argv[7], 0))
        fix_crc(b)
        with open(argv[3], "wb") as f:
            f.write(b)
        return 0
    if len(argv) >= 2 and argv[1] == "crc":
        return check_crc(argv[2:])
    if len(argv) == 4 and argv[1] == "corrupt":
        src = open(argv[2], "rb").read()
        for name, data in corruptions(src):
            d = os.path.join(argv[3], name)
            os.makedirs(d, exist_ok=True)
            with open(os.path.join(d, "manifest.cgslot"), "wb") as f:
                f.write(data)
        return 0
    sys.stderr.write(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
