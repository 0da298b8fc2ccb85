#!/usr/bin/env python3
"""tools/bench --plans-against: the family's plans side by side.

Planned against itself every rank of a small pipeline of the family is
the same in every mode; against a cgslot whose reports claim one byte
more on every rank (a wrapper), this build takes fewer on each, and
against one that claims one byte less, more, each named on a line of its
own.  A comparison that missed a difference, or counted one the wrong
way, fails here.
"""
import io
import os
import stat
import sys
import tempfile

import benchlib
from benchlib import bench, expect

WRAPPER = """#!%s
import json, subprocess, sys
p = subprocess.run([%r] + sys.argv[1:], capture_output=True, text=True)
if p.returncode:
    sys.stderr.write(p.stderr)
    sys.exit(p.returncode)
d = json.loads(p.stdout)
for r in d["ranks"]:
    r["bytes"] += %d
print(json.dumps(d))
"""

def run(other, only):
    out = io.StringIO()
    count = bench.plans_against(other, only, out)
    return count, out.getvalue()


with tempfile.TemporaryDirectory() as tmp:
    only = ["q01"]     # P 2, M 1: two ranks, planned in a second
    count, text = run(bench.CGSLOT, only)
    for mode in bench.PLAN_MODES:
        expect("itself, %s" % mode, count[mode], [0, 0, 2])
    expect("itself: no rank named", [l for l in text.splitlines()
                                     if " rank " in l], [])
    for name, delta, want in (("more", 1, [2, 0, 0]),
                              ("less", -1, [0, 2, 0])):
        path = os.path.join(tmp, name)
        with open(path, "w") as f:
            f.write(WRAPPER % (sys.executable, bench.CGSLOT, delta))
        os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR)
        count, text = run(path, only)
        for mode in bench.PLAN_MODES:
            expect("one byte %s, %s" % (name, mode), count[mode], want)
        named = [l for l in text.splitlines() if " rank " in l]
        expect("one byte %s: ranks named" % name, len(named), 6)
        expect("one byte %s: MORE marks" % name,
               sum(l.endswith("MORE") for l in named), 6 if delta < 0 else 0)

print("%d failures" % benchlib.failures)
sys.exit(1 if benchlib.failures else 0)
