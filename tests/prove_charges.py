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

import yaml

ROOT = os.environ.get("CGS_SOURCE_ROOT") or os.path.dirname(
    os.path.dirname(os.path.abspath(__file__)))
TOOL = os.path.join(ROOT, "tools", "prove-bound")
CGSLOT = os.environ.get("CGSLOT", "cgslot")
VALID = os.path.join(ROOT, "testdata", "valid")
CHARGES = os.path.join(VALID, "charges", "schedule.yaml")
LINE = re.compile(r"^rank (\d+), (.*?): every layout takes at least (\d+) "
                  r"bytes of saved arena \((charges [\d/]+ by chunk, at most "
                  r"\d+ on a byte|charges per slot, a linear program over "
                  r"\d+ sets)\), ([\d.]+) x the saved bound; (.*)$")
failures = 0


def fail(msg):
    global failures
    failures += 1
    print("FAIL: " + msg)


def run(schedule, *args, want=0):
    p = subprocess.run([sys.executable, TOOL, "--charges"] + list(args) +
                       [schedule], capture_output=True, text=True,
                       env=dict(os.environ, CGSLOT=CGSLOT))
    if p.returncode != want:
        print(p.stdout + p.stderr)
        fail("prove-bound --charges %s exited %d, not %d" % (
            " ".join(args), p.returncode, want))
    return p.stdout.splitlines()


def parsed(lines):
    out = {}
    for ln in lines:
        print(ln)
        m = LINE.match(ln)
        if not m:
            fail("not a floor line: " + ln)
            continue
        out[int(m.group(1))] = (int(m.group(3)), float(m.group(5)),
                                m.group(6), m.group(4))
    return out


def plan_saved(verdict):
    """The plan's saved arena over the floor, from the line's verdict."""
    if verdict.endswith("is at the floor"):
        return 1.0
    m = re.search(r"is ([\d.]+) x the floor$", verdict)
    return float(m.group(1)) if m else None


def with_slots(src, slots, tmp):
    """A copy of `src`, as JSON, with `slots` in its pipeline."""
    with open(src) as f:
        doc = yaml.safe_load(f)
    doc["pipeline"]["slots"] = slots
    path = os.path.join(tmp, "s%d.json" % len(os.listdir(tmp)))
    with open(path, "w") as f:
        json.dump(doc, f)
    return path


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
                x = plan_saved(verdict)
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
    print("%d failed" % failures)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
