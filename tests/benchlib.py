"""What the tests of tools/bench share: the tool loaded as a module (its
cgslot from $CGSLOT) and a count of failed checks."""
import os
from importlib.machinery import SourceFileLoader

ROOT = os.environ.get("CGS_SOURCE_ROOT") or os.path.dirname(
    os.path.dirname(os.path.abspath(__file__)))
bench = SourceFileLoader("bench", os.path.join(ROOT, "tools", "bench")) \
    .load_module()
bench.CGSLOT = os.environ.get("CGSLOT", "cgslot")

failures = 0


def expect(what, got, want):
    """One check: got must equal want."""
    global failures
    if got != want:
        print("FAIL: %s: %s, expected %s" % (what, got, want))
        failures += 1
