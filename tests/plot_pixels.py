"""Assert from a browser's screenshot that a `cgslot plot` picture is drawn.

    plot_pixels.py SCREENSHOT.png PLOT.svg

The screenshot was taken at the SVG's own width and height.  Checks that
the page is not blank, has many colours, shows the boxes in every chunk's
colour, and that the legend lies inside the page: its box (read from the
SVG) is within the screenshot, and there the pixels show its background,
every chunk's swatch and dark text.  Standard library only: the PNG is
decoded here.  Exits 1 naming what failed.
"""
import struct
import sys
import xml.etree.ElementTree as ET
import zlib

NS = "{http://www.w3.org/2000/svg}"


def read_png(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, idat, head = 8, b"", None
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        pos += 12 + n
        if kind == b"IHDR":
            head = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        elif kind == b"IEND":
            break
    w, h, depth, ctype, _, _, interlace = head
    channels = {2: 3, 6: 4}.get(ctype)
    if depth != 8 or channels is None or interlace:
        raise ValueError(f"unsupported PNG: depth {depth}, colour type "
                         f"{ctype}, interlace {interlace}")
    raw = zlib.decompress(idat)
    stride = w * channels
    rows, prev = [], bytearray(stride)
    for y in range(h):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - channels] if i >= channels else 0
            b = prev[i]
            c = prev[i - channels] if i >= channels else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pred = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                line[i] = (line[i] + pred) & 255
        rows.append([tuple(line[x * channels:x * channels + 3])
                     for x in range(w)])
        prev = line
    return w, h, rows


def near(p, q, tol=4):
    return all(abs(a - b) <= tol for a, b in zip(p, q))


def hex_rgb(s):
    return tuple(int(s[i:i + 2], 16) for i in (1, 3, 5))


def main():
    png, svg = sys.argv[1:3]
    w, h, rows = read_png(png)
    root = ET.parse(svg).getroot()
    sw, sh = int(root.get("width")), int(root.get("height"))
    bad = []
    if (w, h) != (sw, sh):
        bad.append(f"screenshot is {w}x{h}, the SVG {sw}x{sh}")
    counts = {}
    for row in rows:
        for p in row:
            counts[p] = counts.get(p, 0) + 1
    white = sum(n for p, n in counts.items() if near(p, (255, 255, 255), 2))
    if white > 0.9 * w * h:
        bad.append(f"the page is blank: {white} of {w * h} pixels are white")
    if len(counts) < 16:
        bad.append(f"only {len(counts)} colours on the page")
    # Every chunk's colour: on its legend swatch and on many boxes.
    swatches = [(hex_rgb(r.get("fill")), r.get("class").split())
                for r in root.iter(f"{NS}rect")
                if "swatch" in (r.get("class") or "").split()]
    chunks = [c for c, cls in swatches if "chunk" in cls]
    swatches = [c for c, cls in swatches]
    if not chunks:
        bad.append("the legend names no chunk colours")
    for c in chunks:
        n = sum(k for p, k in counts.items() if near(p, c))
        if n < 2000:
            bad.append(f"colour {c} covers {n} pixels; boxes are missing")
    box = root.find(f".//{NS}rect[@id='legend-box']")
    lx, ly = int(box.get("x")), int(box.get("y"))
    lw, lh = int(box.get("width")), int(box.get("height"))
    if lx < 0 or ly < 0 or lx + lw > w or ly + lh > h:
        bad.append(f"the legend ({lx},{ly} {lw}x{lh}) is not inside the "
                   f"{w}x{h} page")
    else:
        region = [rows[y][x] for y in range(ly, ly + lh)
                  for x in range(lx, lx + lw)]
        bg = sum(1 for p in region if near(p, (0xfa, 0xfa, 0xfa), 1))
        if bg < 0.5 * lw * lh:
            bad.append(f"the legend's background covers {bg} of "
                       f"{lw * lh} pixels of its box")
        for c in swatches:
            n = sum(1 for p in region if near(p, c))
            if n < 100:
                bad.append(f"legend swatch {c} shows {n} pixels")
        dark = sum(1 for p in region if max(p) < 90)
        if dark < 200:
            bad.append(f"the legend has {dark} dark pixels: no text")
    for line in bad:
        print(line)
    if not bad:
        print(f"{w}x{h} page, {len(counts)} colours, {white} white pixels, "
              f"legend at {lx},{ly} {lw}x{lh}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
