#!/usr/bin/env python3
"""tools/prove-bound --charges never bounds above a valid layout, and
proves what testdata/valid/charges says it does.

  - Soundness: on every rank of the charges, prove-bound and
    placed-classes schedules, compiled as they are, with k mod S on
    rings of 8, 11 and 16, and with the ring search and slot maps to 16,
    the floor is at most the plan's own saved arena (a floor above a
    plan that `cgslot verify` accepts would be wrong).
  - Strength: on the charges schedule at its smallest ring every rank
    is proven out of 2% for its slots, at the plan's own saved arena:
    ranks 0 and 1 by one charge per chunk (1.0593 and 1.2018 times the
    saved bound), ranks 2 and 3 only by the linear program's charges per
    slot (1.1429 and 1.6000, where one per chunk gives 1.0738 and
    1.1436); with --slots 8 (k mod 8 without the plan) the same.
  - --charges with --check is refused (exit 2), and so are k mod 3,
    shorter than the ring liveness needs, and --slots 0.
Skips (77) without networkx or glpsol.  Run by meson (suite cli) with
$CGSLOT and $CGS_SOURCE_ROOT.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

from floors import (CGSLOT, TOOL, VALID, Checks, plan_over_floor,
                    with_slots)

CHARGES = os.path.join(VALID, "charges", "schedule.yaml")
LINE = re.compile(r"^rank (\d+), (.*?): every layout takes at least (\d+) "
                  r"bytes of saved arena \((charges [\d/]+ by chunk, at most "
                  r"\d+ on a byte|charges per slot, a linear program over "
                  r"\d+ sets)\), ([\d.]+) x the saved bound; (.*)$")
checks = Checks("--charges")
fail = checks.fail


def run(schedule, *args, want=0):
    return checks.run(schedule, *args, want=want).stdout.splitlines()


def parsed(lines):
    return checks.parsed(lines, LINE, lambda m: (
        int(m.group(3)), float(m.group(5)), m.group(6), m.group(4)))


def main():
    try:
        import networkx  # noqa: F401
    except ImportError:
        print("SKIP: no networkx (apt-get install python3-networkx)")
        return 77
    if not shutil.which("glpsol"):
        print("SKIP: no glpsol (apt-get install glpk-utils)")
        return 77
    with tempfile.TemporaryDirectory() as tmp:
        cases = []
        for name in ("charges", "prove-bound", "placed-classes"):
            src = os.path.join(VALID, name, "schedule.yaml")
            cases.append((name, src))
            for slots in (8, 11, 16,
                          {"max": 16, "per_rank": True, "map": True}):
                cases.append(("%s, slots %s" % (name, json.dumps(slots)),
                              with_slots(src, slots, tmp)))
        for name, path in cases:
            print("-- " + name)
            for r, (_, _, verdict, _) in parsed(run(path)).items():
                x = plan_over_floor(verdict)
                if x is None or x < 1.0:
                    fail("%s rank %d: the floor is above the plan's own "
                         "saved arena" % (name, r))
    for args in ((), ("--slots", "8")):
        print("-- charges " + " ".join(args))
        got = parsed(run(CHARGES, *args))
        # ranks 0 and 1 by one charge per chunk, 2 and 3 by the linear
        # program's charges per slot (per chunk, at most 1.0738 and
        # 1.1436): every floor the plan's own saved arena
        for r, mib, ratio, how in ((0, 15008, 1.0593, "by chunk"),
                                   (1, 15008, 1.2018, "by chunk"),
                                   (2, 11648, 1.1429, "linear program"),
                                   (3, 11648, 1.6000, "linear program")):
            floor, x, verdict, charges = got.get(r, (0, 0.0, "", ""))
            if floor != mib << 20 or abs(x - ratio) > 1e-4 or \
                    how not in charges or \
                    "no layout of these slots comes within 2%" not in verdict:
                fail("charges rank %d: expected %d MiB, %.4f x the bound "
                     "(charges %s) and no layout within 2%%" % (
                         r, mib, ratio, how))
            if not args and not verdict.endswith("at the floor"):
                fail("charges rank %d: the plan is not at the floor" % r)
    print("-- --charges with --check")
    run(CHARGES, "--check", want=2)
    print("-- a ring shorter than liveness, and no ring")
    p = subprocess.run([sys.executable, TOOL, "--charges", "--slots", "3",
                        CHARGES], capture_output=True, text=True,
                       env=dict(os.environ, CGSLOT=CGSLOT))
    print(p.stderr.strip())
    if p.returncode != 2 or "shorter than liveness" not in p.stderr or \
            p.stdout:
        fail("--slots 3 (rank 0 keeps more of a chunk live) exited %d"
             % p.returncode)
    run(CHARGES, "--slots", "0", want=2)
    print("%d failed" % checks.failures)
    return 1 if checks.failures else 0


if __name__ == "__main__":
    sys.exit(main())
