#!/usr/bin/env python3
"""tools/python/examples/pool_reuse.py (suite 'unit'): the count of blocks
of one PyTorch pool that a replay order makes live at once, on capture
events written by hand.

Four graphs of two microbatches, captured F0 B0 F1 B1 into one pool:
F0 keeps a block for B0 and frees a temporary; B0 takes that temporary's
memory for its own temporary; F1 keeps a block for B1 in the same memory.
In capture order nothing clashes; replayed F0 F1 B0 B1 (the second
microbatch's forward before the first one's backward, as a pipeline with
more microbatches in flight would run them), B0's temporary overwrites
what F1 keeps for B1."""

import os
import sys

sys.path.insert(0, os.path.join(os.environ.get("CGS_SOURCE_ROOT", "."),
                                "tools", "python", "examples"))
import pool_reuse as pr  # noqa: E402

failed = 0


def check(cond, what):
    global failed
    print("%s: %s" % ("ok" if cond else "FAIL", what))
    if not cond:
        failed += 1


F0, B0, F1, B1 = "F0", "B0", "F1", "B1"
order = [F0, B0, F1, B1]
events = {
    F0: [(pr.ALLOC, 0x1000, 0x100), (pr.ALLOC, 0x2000, 0x200),
         (pr.FREE, 0x2000, 0x200)],
    B0: [(pr.ALLOC, 0x2000, 0x80), (pr.FREE, 0x2000, 0x80)],
    F1: [(pr.ALLOC, 0x2100, 0x100), (pr.ALLOC, 0x2000, 0x100)],
}
consumer = {F0: B0, F1: B1, B0: None, B1: None}.get
blocks = pr.blocks_of(events, order, consumer)
check(len(blocks) == 5, "five blocks (%d)" % len(blocks))
kept = [b for b in blocks if b[2] == F1]
check(all(b[3] == B1 for b in kept), "F1's blocks live until B1")
pairs = pr.overlapping_pairs(blocks)
# F0's temporary (0x2000-0x2200) vs F1's two blocks, B0's temporary vs
# F1's block at 0x2000; the two temporaries never pair, nor F1's two
# blocks (one graph), nor F0's kept block (no overlap).
names = sorted(tuple(sorted((blocks[i][2], blocks[j][2]))) for i, j in pairs)
check(names == [(B0, F1), (F0, F1), (F0, F1)],
      "three pairs that could clash (%r)" % names)

check(pr.conflicts(blocks, pairs, order) == [],
      "capture order: no conflict")
check(pr.conflicts(blocks, pairs, order * 3) == [],
      "capture order repeated: no conflict")
bad = pr.conflicts(blocks, pairs, [F0, F1, B0, B1])
check(len(bad) == 1, "F0 F1 B0 B1: one conflict (%r)" % bad)
if bad:
    i, j, at = bad[0]
    check({blocks[i][2], blocks[j][2]} == {B0, F1} and at == 2,
          "it is B0's temporary in F1's block, at the third run")
# F1 B1 F0 B0: F0's temporary runs before F1 kept anything, and F0 keeps
# nothing at 0x2000: safe although not the capture order.
check(pr.conflicts(blocks, pairs, [F1, B1, F0, B0]) == [],
      "F1 B1 F0 B0: no conflict")

# A hand-over inside one graph: X frees a kept block and allocates over
# it; the next run of X may start where the block's last life ends.
ev2 = {"A": [(pr.ALLOC, 0, 64)],
       "X": [(pr.FREE, 0, 64), (pr.ALLOC, 0, 32)]}
b2 = pr.blocks_of(ev2, ["A", "X"], {"A": "X", "X": None}.get)
p2 = pr.overlapping_pairs(b2)
check(len(p2) == 1, "hand-over: one pair")
check(pr.conflicts(b2, p2, ["A", "X", "A", "X"]) == [],
      "hand-over in the freeing graph: no conflict")
check(len(pr.conflicts(b2, p2, ["X", "A", "X"])) == 0,
      "X's block dies in X, before A runs")
ev3 = {"A": [(pr.ALLOC, 0, 64)], "Y": [(pr.ALLOC, 16, 16)],
       "X": [(pr.FREE, 0, 64)]}
b3 = pr.blocks_of(ev3, ["A", "X", "Y"], {"Y": "Z"}.get)
p3 = pr.overlapping_pairs(b3)
check(len(pr.conflicts(b3, p3, ["A", "Y", "X", "Z"])) == 1,
      "Y allocated inside A's life (A freed in X, after Y): conflict")

# A block freed between captures (its Python reference dropped) and its
# address handed to a later capture: at replay it still holds what its
# consumer reads.
ev4 = {"A": [(pr.ALLOC, 0, 64)], "Y": [(pr.ALLOC, 0, 64)]}
b4 = pr.blocks_of(ev4, ["A", "X", "Y"], {"A": "X"}.get)
check(sorted(b[2:] for b in b4) == [("A", "X"), ("Y", "Y")],
      "freed between captures: A's block ends at its consumer X")
p4 = pr.overlapping_pairs(b4)
check(len(pr.conflicts(b4, p4, ["A", "Y", "X"])) == 1 and
      pr.conflicts(b4, p4, ["A", "X", "Y"]) == [],
      "freed between captures: clashes only where Y runs before X")

try:
    pr.blocks_of({"A": [("move", 0, 1)]}, ["A"], lambda g: None)
    check(False, "an unknown action is refused")
except ValueError:
    check(True, "an unknown action is refused")

print("%d failed" % failed)
sys.exit(1 if failed else 0)
