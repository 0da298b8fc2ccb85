#!/usr/bin/env python3
"""Plan quality on the bundled schedules, as thresholds that may only improve.

For every bundled example (testdata/examples/*.yaml) and golden schedule
(testdata/manifest/golden/*/schedule.yaml), `cgslot plan --format json`
must give, on every planned rank:
  - bytes <= upstream's (one arena per colour, bytes_colour_arenas);
  - bytes >= the lower bound (no plan can beat it: a smaller figure means
    the plan or the bound is wrong);
  - bytes / lower bound <= the ratio recorded in
    testdata/quality/ratios.txt, the figure when the check was written
    or last tightened (rounded up in the 4th decimal).
A better planner passes; `plan_quality.py --update` then records the new,
lower ratios (it never raises one).  A schedule or rank without a recorded
ratio fails, so new examples get one.

Run by meson (suite format) with $CGSLOT and $CGS_SOURCE_ROOT.
"""

import glob
import json
import math
import os
import subprocess
import sys

THRESHOLDS = "testdata/quality/ratios.txt"


def schedules():
    return sorted(glob.glob("testdata/examples/*.yaml")) + \
        sorted(glob.glob("testdata/manifest/golden/*/schedule.yaml"))


def read_thresholds():
    table = {}
    with open(THRESHOLDS) as f:
        for line in f:
            line = line.split("#", 1)[0].strip()
            if line:
                path, rank, ratio = line.split()
                table[(path, int(rank))] = float(ratio)
    return table


def ceil4(x):
    return math.ceil(x * 10000 - 1e-9) / 10000


def main(argv):
    update = "--update" in argv[1:]
    cgslot = os.environ.get("CGSLOT")
    root = os.environ.get("CGS_SOURCE_ROOT")
    if not cgslot or not root:
        print("CGSLOT and CGS_SOURCE_ROOT must be set (run through meson test)")
        return 2
    os.chdir(root)
    table = read_thresholds()
    failures = checked = 0
    measured = {}
    for path in schedules():
        r = subprocess.run([cgslot, "plan", "--format", "json", path],
                           capture_output=True, text=True, timeout=600)
        if r.returncode != 0:
            print(f"FAIL: cgslot plan {path} exited {r.returncode}: "
                  f"{r.stderr.strip()}")
            failures += 1
            continue
        for rank in json.loads(r.stdout)["ranks"]:
            rid, got = rank["rank"], rank["bytes"]
            bound, upstream = rank["lower_bound_bytes"], rank["bytes_colour_arenas"]
            where = f"{path} rank {rid}"
            checked += 1
            ratio = got / bound if bound else 1.0
            measured[(path, rid)] = ratio
            if got > upstream:
                failures += 1
                print(f"FAIL: {where}: {got} bytes, above upstream's {upstream}")
            if got < bound:
                failures += 1
                print(f"FAIL: {where}: {got} bytes, below the lower bound "
                      f"{bound}: the plan or the bound is wrong")
            limit = table.get((path, rid))
            if limit is None:
                if not update:
                    failures += 1
                    print(f"FAIL: {where}: no ratio recorded in {THRESHOLDS} "
                          f"(today {ratio:.4f}; plan_quality.py --update "
                          f"records it)")
            elif ratio > limit + 1e-12:
                failures += 1
                print(f"FAIL: {where}: {got} bytes are {ratio:.4f} x the "
                      f"lower bound {bound}; at most {limit:.4f} is accepted")
            print(f"{where}: {got} bytes, {ratio:.4f} x the lower bound, "
                  f"{got / upstream:.4f} x upstream")
    if update:
        with open(THRESHOLDS, "w") as f:
            f.write("# bytes / lower bound, at most, per bundled schedule and "
                    "rank (tests/plan_quality.py)\n")
            for (path, rid), ratio in sorted(measured.items()):
                limit = ceil4(ratio)
                old = table.get((path, rid))
                if old is not None and old < limit:
                    limit = old
                f.write(f"{path} {rid} {limit:.4f}\n")
        print(f"wrote {THRESHOLDS}")
    print(f"{checked} ranks checked, {failures} failures")
    return 1 if failures or checked == 0 else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
