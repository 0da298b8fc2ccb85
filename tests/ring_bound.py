#!/usr/bin/env python3
"""The quality bench's proof that a ring is too short for the bound holds.

tools/bench's ring_to_reach_bound reads one capture order and says how
many slots some chunk needs, under any slot map, for saved frames of one
size to come within one frame of the lower bound.  This test checks it
on orders worked out by hand, and against the planner: on small uniform
pipelines, no ring the planner tries below that count (with slot maps)
may come within 2% of the bound where 2% is less than a frame.  A proof
that claimed too much would fail here.
"""
import json
import os
import subprocess
import sys
import tempfile

import benchlib
from benchlib import ROOT, bench, expect

def order(pp, vpp, group, n, rank):
    p = subprocess.run([bench.CGSLOT, "orders", "--pp", str(pp), "--vpp",
                        str(vpp), "--group", str(group), "--microbatches",
                        str(n), "--rank", str(rank)],
                       capture_output=True, text=True, check=True)
    return [int(e) for e in p.stdout.split()]


# By hand.  The last stage of a plain pipeline runs 1 -1 1 -1 ...: one
# microbatch in flight, but each forward must reuse the frames the last
# backward freed while that slot's gradient is still being sent: two slots.
expect("P 2, rank 1, N 3", bench.ring_to_reach_bound([1, -1, 1, -1, 1, -1]),
       (1, 2))
# Rank 0 of that pipeline, 1 1 -1 1 -1 -1: the third forward takes the
# first microbatch's frames, and the second microbatch is still live.
expect("P 2, rank 0, N 3", bench.ring_to_reach_bound([1, 1, -1, 1, -1, -1]),
       (2, 2))
# Warm-up only, no backward at the peak: one slot a chunk.
expect("no steady state", bench.ring_to_reach_bound([1, 2, -2, -1]), (2, 1))
# P 2, M 4, G 2, rank 0: 9 in flight at the peak; each of the 9 frame
# sets passes through every chunk (9 and the 8 forwards of a round share
# no factor), so every chunk needs 9 slots.
expect("P 2, M 4, rank 0", bench.ring_to_reach_bound(order(2, 4, 2, 64, 0)),
       (9, 9))
# rank 1: 7 in flight, and its last chunk runs forward, backward,
# forward...: each frame set it takes needs two of its slots.
expect("P 2, M 4, rank 1", bench.ring_to_reach_bound(order(2, 4, 2, 64, 1)),
       (7, 14))

# Against the planner: every ring to 2S with slot maps, per rank.
checked = 0
with tempfile.TemporaryDirectory() as tmp:
    for pp, vpp, group, max_mb in ((4, 4, 4, 24), (2, 4, 2, 16),
                                   (3, 4, 3, 18), (3, 2, 3, 12)):
        path = os.path.join(tmp, "p.yaml")
        subprocess.run([os.path.join(ROOT, "tools", "gen-schedule"), "--pp",
                        str(pp), "--vpp", str(vpp), "--layers", "1",
                        "--group", str(group), "--max-microbatches",
                        str(max_mb), "--variants", "2", "--uniform", "-o",
                        path], check=True)
        plan = json.loads(subprocess.run(
            [bench.CGSLOT, "plan", "--format", "json", path],
            capture_output=True, text=True, check=True).stdout)
        smallest, trials, _ = bench.explore(path, ["--slot-maps"])
        orders = bench.orders_of(path)
        for r in plan["ranks"]:
            peak, need = bench.rank_ring_to_reach_bound(orders[r["rank"]])
            lb = r["lower_bound_bytes"]
            frame = r["saved"]["lower_bound_bytes"] // peak
            if frame <= 0.02 * lb:
                continue
            for slots, row in trials[r["rank"]].items():
                checked += 1
                if slots < need and row[1] <= 1.02 * lb:
                    print("FAIL: P %d M %d L %d rank %d: a ring of %d comes "
                          "within 2%% (%d bytes, bound %d) where the proof "
                          "says %d slots are needed" % (
                              pp, vpp, max_mb, r["rank"], slots, row[1], lb,
                              need))
                    benchlib.failures += 1
print("%d planned rings checked against the proof, %d failures" %
      (checked, benchlib.failures))
if checked == 0:
    sys.exit("no ring was checked")
sys.exit(1 if benchlib.failures else 0)
