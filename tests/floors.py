"""What tests/prove_charges.py and tests/prove_filled.py share: running
tools/prove-bound in one of its floor modes, reading its verdicts, and
schedules rewritten with another `slots`."""
import json
import os
import re
import subprocess
import sys

import yaml

ROOT = os.environ.get("CGS_SOURCE_ROOT") or os.path.dirname(
    os.path.dirname(os.path.abspath(__file__)))
TOOL = os.path.join(ROOT, "tools", "prove-bound")
CGSLOT = os.environ.get("CGSLOT", "cgslot")
VALID = os.path.join(ROOT, "testdata", "valid")


class Checks:
    """Counts failed checks; `run` calls prove-bound with `mode`."""

    def __init__(self, mode):
        self.mode = mode
        self.failures = 0

    def fail(self, msg):
        self.failures += 1
        print("FAIL: " + msg)

    def run(self, schedule, *args, want=0):
        p = subprocess.run([sys.executable, TOOL, self.mode] + list(args) +
                           [schedule], capture_output=True, text=True,
                           env=dict(os.environ, CGSLOT=CGSLOT))
        if p.returncode != want:
            print(p.stdout + p.stderr)
            self.fail("prove-bound %s %s exited %d, not %d" % (
                self.mode, " ".join(args), p.returncode, want))
        return p

    def parsed(self, lines, line, fields):
        """{rank: fields(match)} over `lines`, each printed; a line that
        `line` does not match fails."""
        out = {}
        for ln in lines:
            print(ln)
            m = line.match(ln)
            if not m:
                self.fail("not a floor line: " + ln)
                continue
            out[int(m.group(1))] = fields(m)
        return out


def plan_over_floor(verdict):
    """The plan's saved arena over the floor, from a line's verdict; None
    where the verdict does not say."""
    if verdict.endswith("is at the floor"):
        return 1.0
    m = re.search(r"is ([\d.]+) x the floor$", verdict)
    return float(m.group(1)) if m else None


def with_slots(src, slots, tmp):
    """A copy of `src`, as JSON in `tmp`, with `slots` in its pipeline."""
    with open(src) as f:
        doc = yaml.safe_load(f)
    doc["pipeline"]["slots"] = slots
    path = os.path.join(tmp, "s%d.json" % len(os.listdir(tmp)))
    with open(path, "w") as f:
        json.dump(doc, f)
    return path
