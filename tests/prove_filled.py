#!/usr/bin/env python3
"""tools/prove-bound --filled never bounds above a valid plan, and proves
what testdata/valid/prove-bound and slot-map say it does.

  - Soundness: on every rank of the prove-bound, charges, slot-map,
    placed-classes and bundled example schedules, compiled as they are,
    with k mod S on rings of 8, 11 and 16, with slot maps on the
    smallest ring, and with the ring search and slot maps to 16 per
    rank, the floor on the plan's own ring is at most the plan's saved
    arena (a floor above a plan that `cgslot verify` accepts would be
    wrong).
  - Strength: on testdata/valid/prove-bound (ring 8, slot maps) every
    rank is proven out of 5% for any slot map on its ring, ranks 0 and
    2 at the plan's own saved arena (1.0526 and 1.0667 times the saved
    bound), ranks 1 and 3 at 1.0588 and 1.0769, and tools/bench's own
    count of the floor from the orders agrees; on slot-map, rank 1 at
    1.1111, its plan's own.
  - Where no chunk fills the ring (--slots 40) nothing is proven and the
    exit status is 0; a ring shorter than a chunk's microbatches in
    flight (--slots 3) and --filled with --charges are refused (exit 2).
Needs no solver.  Run by meson (suite cli) with $CGSLOT and
$CGS_SOURCE_ROOT.
"""
import importlib.machinery
import importlib.util
import json
import os
import re
import sys
import tempfile

from floors import CGSLOT, ROOT, VALID, Checks, plan_over_floor, with_slots

PROVE = os.path.join(VALID, "prove-bound", "schedule.yaml")
SLOT_MAP = os.path.join(VALID, "slot-map", "schedule.yaml")
EXAMPLE = os.path.join(ROOT, "testdata", "examples",
                       "qwen-pp4-vpp2-dcp.yaml")
LINE = re.compile(r"^rank (\d+), any slot map on (\d+) slots per chunk: "
                  r"(?:every layout takes at least (\d+) bytes of saved "
                  r"arena \(chunk \d+ fills them; \d+ microbatches of other "
                  r"chunks live after event \d+ of the order of \d+, each "
                  r"live when it is full\), ([\d.]+) x the saved bound; "
                  r"(.*)|no chunk fills them in any order: nothing proven)$")
checks = Checks("--filled")
fail = checks.fail
run = checks.run


def bench_module():
    """tools/bench, loaded as a module, running $CGSLOT."""
    path = os.path.join(ROOT, "tools", "bench")
    loader = importlib.machinery.SourceFileLoader("bench", path)
    spec = importlib.util.spec_from_loader("bench", loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    mod.CGSLOT = CGSLOT
    return mod


def parsed(lines):
    """rank: (floor bytes or None, ratio, verdict)"""
    return checks.parsed(lines, LINE, lambda m: (
        int(m.group(3)) if m.group(3) else None, float(m.group(4) or 0),
        m.group(5) or ""))


def main():
    proven = 0
    with tempfile.TemporaryDirectory() as tmp:
        cases = []
        for name in ("prove-bound", "charges", "slot-map",
                     "placed-classes", "example"):
            src = EXAMPLE if name == "example" else \
                os.path.join(VALID, name, "schedule.yaml")
            cases.append((name, src))
            for slots in (8, 11, 16, {"map": True},
                          {"max": 16, "per_rank": True, "map": True}):
                cases.append(("%s, slots %s" % (name, json.dumps(slots)),
                              with_slots(src, slots, tmp)))
        for name, path in cases:
            print("-- " + name)
            for r, (floor, _, verdict) in parsed(
                    run(path).stdout.splitlines()).items():
                if floor is None:
                    continue
                x = plan_over_floor(verdict)
                if x is None or x < 1.0:
                    fail("%s rank %d: the floor is above the plan's own "
                         "saved arena" % (name, r))
                if verdict.startswith("no plan"):
                    proven += 1
    # the soundness checks above must have met floors that prove
    # something, or they would check nothing
    print("%d plans of the soundness cases proven out of 2%% on their "
          "ring" % proven)
    if proven < 8:
        fail("only %d ranks of the soundness cases proven out of 2%%"
             % proven)
    print("-- prove-bound within 5%")
    got = parsed(run(PROVE, "--within", "5").stdout.splitlines())
    for r, ratio, own in ((0, 1.0526, True), (1, 1.0588, False),
                          (2, 1.0667, True), (3, 1.0769, False)):
        floor, x, verdict = got.get(r, (None, 0.0, ""))
        if abs(x - ratio) > 1e-4 or \
                not verdict.startswith("no plan on this ring comes "
                                       "within 5%") or \
                own != verdict.endswith("at the floor"):
            fail("prove-bound rank %d: expected %.4f x the saved bound, "
                 "out of 5%%%s" % (r, ratio, ", at the plan's own"
                                   if own else ""))
    # the quality bench's own count, from the orders alone, agrees: its
    # microbatches over the rank's peak in flight is the same ratio
    bench = bench_module()
    orders = bench.orders_of(PROVE)
    for r, (floor, x, _) in sorted(got.items()):
        n = bench.filled_ring_floor(orders[r], 8)
        peak = max(bench.ring_to_reach_bound(o)[0] for o in orders[r])
        if n is None or abs(n / peak - x) > 1e-4:
            fail("prove-bound rank %d: the bench's filled ring gives %s of "
                 "%d in flight, not %.4f" % (r, n, peak, x))
    print("-- slot-map rank 1")
    got = parsed(run(SLOT_MAP, "--rank", "1").stdout.splitlines())
    floor, x, verdict = got.get(1, (None, 0.0, ""))
    if abs(x - 1.1111) > 1e-4 or not verdict.endswith("at the floor") \
            or not verdict.startswith("no plan on this ring comes within 2%"):
        fail("slot-map rank 1: expected 1.1111 x the saved bound, out of "
             "2%, at the plan's own")
    print("-- a ring no chunk fills")
    got = parsed(run(PROVE, "--slots", "40").stdout.splitlines())
    if sorted(got) != [0, 1, 2, 3] or \
            any(v[0] is not None for v in got.values()):
        fail("--slots 40: expected 'nothing proven' on ranks 0-3")
    print("-- a ring shorter than liveness, and --charges beside it")
    p = run(PROVE, "--slots", "3", want=2)
    print(p.stderr.strip())
    if "shorter than liveness" not in p.stderr or p.stdout:
        fail("--slots 3: no message naming the short ring")
    run(PROVE, "--charges", want=2)
    print("%d failed" % checks.failures)
    return 1 if checks.failures else 0


if __name__ == "__main__":
    sys.exit(main())
