"""Check a `cgslot plot` SVG against `cgslot dump --format json` of the
same manifest, without sharing code with the plot.

    plot_check.py PLOT.svg DUMP.json RANK N VARIANT[,VARIANT...]

Replays the rank's order for N microbatches from the dump, works out every
(variant, frame, role) range that is live, and asserts that the picture has
exactly one box for each, whose tooltip names it with the dump's offset and
bytes and the positions where it is live, and whose place matches them
(x from the positions, y from the stacked arena offset).  Prints what
differs and exits 1; exits 0 when everything matches.
"""
import json
import re
import sys
import xml.etree.ElementTree as ET

NS = "{http://www.w3.org/2000/svg}"
TIP = re.compile(
    r"variant (?P<v>.+?), chunk (?P<c>\d+), microbatch (?P<k>\d+), "
    r"slot (?P<s>\d+), layer (?P<l>\d+), role (?P<r>\w+): arena (?P<a>\d+) "
    r"offset (?P<o>\d+), (?P<b>\d+) bytes \([^)]*\); "
    r"live at positions (?P<x0>\d+)\.\.(?P<x1>\d+)$")


def expected_boxes(dump, rank, n, variants):
    r = next(x for x in dump["ranks"] if x["rank"] == rank)
    order = next(o for o in r["orders"] if o["microbatches"] == n)["entries"]
    S, M, layers = dump["slots"], dump["vpp"], dump["layers"]
    base = [sum(layers[:c]) for c in range(M)]
    fwd, bwd = [0] * M, [0] * M
    start, end = {}, {}
    grad = {}
    last = None
    for pos, e in enumerate(order):
        c = abs(e) - 1
        if e > 0:
            start[(c, fwd[c])] = pos
            fwd[c] += 1
        else:
            end[(c, bwd[c])] = pos
            if last is not None:
                grad[last] = (grad[last][0], pos)
            last = (c, bwd[c])
            grad[last] = (pos, None)
            bwd[c] += 1
    grad[last] = (grad[last][0], len(order) - 1)
    lay = {x["variant"]: x["frames"] for x in r["layouts"]}
    boxes = {}
    for (c, k), p0 in start.items():
        s = k % S
        u = r["user_grad_frames"][c * S + s]
        for l in range(layers[c]):
            f = base[c] * S + s * layers[c] + l
            fr = r["saved_frames"][f]
            for v in variants:
                rng = lay[v][f]
                for role in ("input", "output", "saved"):
                    off, nb = rng[role]
                    boxes[(v, c, k, s, l, role)] = (
                        fr["arena"], fr["offset"] + off, nb, p0, end[(c, k)])
                off, nb = rng["user_grad"]
                g0, g1 = grad[(c, k)]
                boxes[(v, c, k, s, l, "user_grad")] = (
                    u["arena"], u["offset"] + off, nb, g0, g1)
    return boxes, r, len(order)


def main():
    svg_path, dump_path, rank, n, variants = sys.argv[1:6]
    rank, n = int(rank), int(n)
    variants = variants.split(",")
    dump = json.load(open(dump_path))
    want, r, length = expected_boxes(dump, rank, n, variants)
    root = ET.parse(svg_path).getroot()
    bad = []
    frame = root.find(f".//{NS}rect[@class='frame']")
    x0, y0 = float(frame.get("x")), float(frame.get("y"))
    w, h = float(frame.get("width")), float(frame.get("height"))
    arena_base, acc = {}, 0
    for a in r["arenas"]:
        arena_base[a["id"]] = acc
        acc += a["bytes"]
    total = max(acc, r["report"]["lower_bound_bytes"])
    got = {}
    for rect in root.iter(f"{NS}rect"):
        if rect.get("class") != "b":
            continue
        tip = rect.find(f"{NS}title").text
        m = TIP.match(tip)
        if not m:
            bad.append(f"a tooltip does not name its range: {tip!r}")
            continue
        g = m.groupdict()
        key = (g["v"], int(g["c"]), int(g["k"]), int(g["s"]), int(g["l"]),
               g["r"])
        if key in got:
            bad.append(f"two boxes for {key}")
        got[key] = (int(g["a"]), int(g["o"]), int(g["b"]), int(g["x0"]),
                    int(g["x1"]))
        a, off, nb, p0, p1 = got[key]
        x = x0 + p0 * w / length
        y = y0 + (arena_base[a] + off) * h / total
        if abs(float(rect.get("x")) - x) > 0.11 or \
           abs(float(rect.get("y")) - y) > 0.011:
            bad.append(f"{key}: drawn at ({rect.get('x')}, {rect.get('y')}), "
                       f"expected ({x:.1f}, {y:.2f})")
    for key in sorted(set(want) - set(got)):
        bad.append(f"no box for live range {key}")
    for key in sorted(set(got) - set(want)):
        bad.append(f"a box for {key}, which is not live")
    for key in sorted(set(want) & set(got)):
        if want[key] != got[key]:
            bad.append(f"{key}: tooltip says {got[key]}, dump says {want[key]}")
    for line in bad[:20]:
        print(line)
    if bad:
        print(f"{len(bad)} difference(s) in {len(want)} expected boxes")
        return 1
    print(f"{len(got)} boxes match the dump")
    return 0


if __name__ == "__main__":
    sys.exit(main())
