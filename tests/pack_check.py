#!/usr/bin/env python3
"""Independent checker of `cgslot pack` output; shares no code with it.

usage: pack_check.py INPUT.csv OUTPUT.csv [HEIGHT [LOWER_BOUND]]

Checks that OUTPUT holds INPUT's rows, in order, each with an offset
column; that every offset is a multiple of the buffer's alignment; that no
two buffers whose lifetimes [lower, upper) intersect share a byte; and,
when given, that the height (largest offset + size) and the lower bound
(largest sum of sizes live at one time) are the claimed ones.  Exits 0
when all hold, 1 with the first violation otherwise.
"""
import bisect
import csv
import sys


def load(path):
    with open(path, newline="") as f:
        rows = [r for r in csv.reader(f) if r]
    return rows[0], rows[1:]


def fail(msg):
    print("pack_check: " + msg, file=sys.stderr)
    sys.exit(1)


def main():
    if len(sys.argv) not in (3, 4, 5):
        fail("usage: pack_check.py INPUT.csv OUTPUT.csv [HEIGHT [LOWER_BOUND]]")
    ihead, irows = load(sys.argv[1])
    ohead, orows = load(sys.argv[2])
    if ohead != ihead + ["offset"]:
        fail("output header %r is not the input's plus 'offset'" % ohead)
    if len(orows) != len(irows):
        fail("%d output rows for %d input rows" % (len(orows), len(irows)))
    col = {name: i for i, name in enumerate(ihead)}
    bufs = []
    for k, (ir, orow) in enumerate(zip(irows, orows)):
        if orow[:-1] != ir:
            fail("row %d differs from the input: %r" % (k + 1, orow))
        lo, up, size = int(ir[col["lower"]]), int(ir[col["upper"]]), int(ir[col["size"]])
        align = int(ir[col["alignment"]]) if "alignment" in col else 1
        off = int(orow[-1])
        if off < 0 or off % align:
            fail("buffer %s: offset %d is not a non-negative multiple of %d" % (ir[col["id"]], off, align))
        bufs.append((lo, up, size, off, ir[col["id"]]))
    # Sweep over time; the live buffers (of nonzero size) are kept sorted
    # by offset, and a newcomer must not overlap its neighbours there.
    events = []
    for k, (lo, up, size, off, _) in enumerate(bufs):
        if size > 0:
            events.append((lo, 1, k))
            events.append((up, 0, k))
    events.sort()
    live = []  # sorted (offset, k)
    load_now = best = 0
    for _, start, k in events:
        lo, up, size, off, name = bufs[k]
        if not start:
            live.remove((off, k))
            load_now -= size
            continue
        load_now += size
        best = max(best, load_now)
        i = bisect.bisect_left(live, (off, k))
        if i > 0:
            poff, pk = live[i - 1]
            if poff + bufs[pk][2] > off:
                fail("buffers %s and %s are live together and overlap" % (bufs[pk][4], name))
        if i < len(live):
            noff, nk = live[i]
            if off + size > noff:
                fail("buffers %s and %s are live together and overlap" % (name, bufs[nk][4]))
        live.insert(i, (off, k))
    height = max((off + size for _, _, size, off, _ in bufs), default=0)
    if len(sys.argv) >= 4 and int(sys.argv[3]) != height:
        fail("claimed height %s, the offsets give %d" % (sys.argv[3], height))
    if len(sys.argv) == 5 and int(sys.argv[4]) != best:
        fail("claimed lower bound %s, the sizes give %d" % (sys.argv[4], best))
    print("ok: %d buffers, height %d, lower bound %d" % (len(bufs), height, best))


main()
