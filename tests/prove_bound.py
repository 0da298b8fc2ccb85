#!/usr/bin/env python3
"""tools/prove-bound proves only what holds, and rules out no valid plan.

On testdata/valid/prove-bound (P 4, M 4, 2 layers, L 16, frames of one
size, a ring of 8):
  - ranks 0 and 1 are proven out of 5% of their bound on rings of at most
    8 slots, and the planner's own plans of them are indeed above 5% (a
    proof that a plan beat would be wrong);
  - within 25% the orders are satisfiable (the question can answer yes);
  - --check pins the compiled plan's slots and offsets in every order,
    with k mod S and with slot maps on rings to 16: every rank
    satisfiable (an encoding that ruled out a valid plan would fail
    here), and so with the longest order alone, and with a spare grain
    (--spare 1: the maps' plans sit at their bounds, so the hand-overs
    then ask for one colour shared where the plans share two: every
    rank has such hand-overs, and stays satisfiable).
On testdata/valid/placed-classes (frames of two sizes, 9 grains at the
bound): 9 grains are proven out of reach on rings of 4 (where the
planner takes 10) and not ruled out on rings of 6 (where it takes 9),
and --check admits its plan.  --check also pins each plan renamed as
the symmetry breaking says, with its clauses on.  With one layer a chunk
(colours only, slots counted): every rank proven out of 5% on its ring
of 8 and planned above it, 25% satisfiable, every plan admitted (k mod
S and slot maps).  Stopped by SIGTERM while a stand-in solver runs,
prove-bound exits 143 and takes the solver with it.  --grads (gradient
frames laid out too) on testdata/valid/prove-grads: see grads(); --window
(part of each order): see window_rules() and windows().
Skips (77) without cadical.  Run by meson (suite cli) with $CGSLOT and
$CGS_SOURCE_ROOT.
"""
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

ROOT = os.environ.get("CGS_SOURCE_ROOT") or os.path.dirname(
    os.path.dirname(os.path.abspath(__file__)))
TOOL = os.path.join(ROOT, "tools", "prove-bound")
SCHEDULE = os.path.join(ROOT, "testdata", "valid", "prove-bound",
                        "schedule.yaml")
CGSLOT = os.environ.get("CGSLOT", "cgslot")
failures = 0


def run(*args, schedule=SCHEDULE):
    p = subprocess.run([sys.executable, TOOL] + list(args) + [schedule],
                       capture_output=True, text=True,
                       env=dict(os.environ, CGSLOT=CGSLOT))
    if p.returncode not in (0, 1):
        print(p.stdout + p.stderr)
        raise SystemExit("prove-bound exited %d" % p.returncode)
    return p.stdout.splitlines()


def expect(lines, n, word):
    global failures
    got = [ln for ln in lines if (": " + word) in ln]
    for ln in lines:
        print(ln)
    if len(lines) != n or len(got) != n:
        print("FAIL: expected %d lines saying '%s'" % (n, word))
        failures += 1


def one_layer(text):
    """The same pipeline with one layer a chunk, where the tool asks for
    colours and only counts slots (text: the schedule, on rings to 16
    with maps): every rank proven out of 5% on its ring of 8, and
    planned above 5% there; 25% satisfiable; every plan, k mod S and on
    maps, admitted."""
    global failures
    with tempfile.TemporaryDirectory() as tmp:
        maps = os.path.join(tmp, "maps.yaml")
        ring = os.path.join(tmp, "ring.yaml")
        text = text.replace("layers_per_chunk: 2", "layers_per_chunk: 1")
        with open(maps, "w") as f:
            f.write(text)
        with open(ring, "w") as f:
            f.write(text.replace("slots: {max: 16, per_rank: true, ",
                                 "slots: {"))
        expect(run("--within", "5", schedule=ring), 4, "unsatisfiable")
        for path, need in ((ring, 0), (maps, 1)):
            plan = json.loads(subprocess.run(
                [CGSLOT, "plan", "-q", "--format", "json", path],
                capture_output=True, text=True, check=True).stdout)
            ratios = [r["bytes"] / r["lower_bound_bytes"]
                      for r in plan["ranks"]]
            on_maps = sum(1 for r in plan["ranks"] if r.get("slot_map"))
            print("one layer: planned at %s x the bounds, %d ranks on "
                  "slot maps" % (" ".join("%.4f" % x for x in ratios),
                                 on_maps))
            if path == ring and min(ratios) <= 1.05:
                print("FAIL: a plan within 5% of a bound proven out of "
                      "reach")
                failures += 1
            if on_maps < need:
                print("FAIL: no rank on a slot map to check")
                failures += 1
            expect(run("--check", schedule=path), 4, "satisfiable")
        expect(run("--within", "25", "--rank", "0", schedule=ring), 1,
               "satisfiable")


def grads():
    """--grads on testdata/valid/prove-grads (gradient frames one grain,
    saved frames 22): rank 0 within 19% is satisfiable without gradient
    frames (they may all nest) and unsatisfiable with them laid out too;
    the planner's plan (134 grains, 19.6%) is beyond it, and 20% is
    satisfiable.  --check --grads admits every plan, as written (rank 0's
    gradient frames in an arena of their own, rank 1's packed with its
    saved frames) and with the search to 8 per rank with maps (rings of
    6, both ranks at their bounds).  With a gradient frame live to the
    backward after next, --check fails; with it live at its own backward
    only, the proof does."""
    global failures
    sched = os.path.join(ROOT, "testdata", "valid", "prove-grads",
                         "schedule.yaml")
    expect(run("--within", "19", "--rank", "0", schedule=sched), 1,
           "satisfiable")
    expect(run("--grads", "--within", "19", "--rank", "0", schedule=sched),
           1, "unsatisfiable")
    expect(run("--grads", "--within", "20", "--rank", "0", schedule=sched),
           1, "satisfiable")
    r = json.loads(subprocess.run(
        [CGSLOT, "plan", "-q", "--format", "json", sched],
        capture_output=True, text=True, check=True).stdout)["ranks"][0]
    ratio = r["bytes"] / r["lower_bound_bytes"]
    print("--grads: rank 0 planned at %.4f x its bound" % ratio)
    if ratio <= 1.19:
        print("FAIL: a plan within 19% of a bound proven out of reach")
        failures += 1
    with open(sched) as f:
        text = f.read().replace("max_microbatches: 6",
                                "max_microbatches: 6\n  slots: {max: 8, "
                                "per_rank: true, map: true}")
    with tempfile.NamedTemporaryFile("w", suffix=".yaml") as t:
        t.write(text)
        t.flush()
        for path in (sched, t.name):
            expect(run("--grads", "--check", schedule=path), 2,
                   "satisfiable")


def stopped_by_signal():
    """Stopped by SIGTERM while its solver runs, prove-bound takes the
    solver with it.  A stand-in cadical that never answers, first on
    PATH, makes sure the solver is running when the signal comes."""
    global failures
    with tempfile.TemporaryDirectory() as tmp:
        fake = os.path.join(tmp, "cadical")
        with open(fake, "w") as f:
            f.write("#!/bin/sh\necho $$ > %s.pid\nexec sleep 600\n" % fake)
        os.chmod(fake, 0o755)
        env = dict(os.environ, CGSLOT=CGSLOT,
                   PATH=tmp + os.pathsep + os.environ.get("PATH", ""))
        p = subprocess.Popen([sys.executable, TOOL, "--rank", "0",
                              SCHEDULE], env=env, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
        solver = None
        for _ in range(1200):
            try:
                with open(fake + ".pid") as f:
                    solver = int(f.read())
                break
            except (OSError, ValueError):
                pass
            if p.poll() is not None:
                break
            time.sleep(0.05)
        if solver is None:
            p.kill()
            print("FAIL: the stand-in solver never started: %s"
                  % p.communicate()[1])
            failures += 1
            return
        p.send_signal(signal.SIGTERM)
        out, err = p.communicate(timeout=30)
        gone = False
        for _ in range(100):
            try:
                # gone, or a zombie no one has reaped yet
                with open("/proc/%d/stat" % solver) as f:
                    gone = f.read().rsplit(")", 1)[1].split()[0] == "Z"
            except OSError:
                gone = True
            if gone:
                break
            time.sleep(0.05)
        print("stopped by SIGTERM: exit %d, solver %s%s" % (
            p.returncode, "gone" if gone else "still running",
            (": " + err.strip()) if err.strip() else ""))
        if not gone:
            print("FAIL: the solver outlived prove-bound")
            os.kill(solver, signal.SIGKILL)
            failures += 1
        if p.returncode != 128 + signal.SIGTERM:
            print("FAIL: expected exit %d" % (128 + signal.SIGTERM))
            failures += 1


def window_rules():
    """The two rules that look along an order, on a window that left a
    backward out: chunk 0's microbatches n and m, whose backwards the
    window holds next to each other, are not two in a row in the order
    (chunk 1's e, begun past the window, ends between them), so they may
    share a slot; and n's gradient frame lives until e's backward, which
    the window does not know, so it is taken as live at n's backward
    only, never until m's."""
    global failures
    import importlib.machinery
    import importlib.util
    loader = importlib.machinery.SourceFileLoader("prove_bound_tool", TOOL)
    spec = importlib.util.spec_from_loader(loader.name, loader)
    tool = importlib.util.module_from_spec(spec)
    loader.exec_module(tool)
    n, e, m = (0, 0, 0, 4), (1, 0, 6, 7), (0, 1, 5, 8)
    part = tool.Window([n, m], 0, 5)
    got = {
        "in a row, whole order": tool.in_a_row([n, e, m]),
        "in a row, window": tool.in_a_row(part),
        "in a row, both ends known": tool.in_a_row([n, m]),
        "gradient end, whole order": tool.grad_end([n, e, m], [4, 7, 8], 4,
                                                   8),
        "gradient end, window": tool.grad_end(part, [4, 8], 4, 8),
    }
    want = {"in a row, whole order": [], "in a row, window": [],
            "in a row, both ends known": [(0, 1)],
            "gradient end, whole order": 7, "gradient end, window": 4}
    for k in want:
        print("%s: %s" % (k, got[k]))
        if got[k] != want[k]:
            print("FAIL: expected %s" % (want[k],))
            failures += 1


def windows(maps_text):
    """--window N: only the microbatches live near each order's widest
    instant.  On testdata/valid/prove-bound, rank 0 within 5% is proven
    out of reach with 64 events each side and not ruled out with 32 (a
    narrower question proves less).  --check with windows of 3, 8 and 20
    events admits every plan (k mod S as written, the maps to 16, with a
    spare grain so the hand-overs bind, and --grads on
    testdata/valid/prove-grads): a window that kept a rule of what lies
    outside it would rule some out."""
    expect(run("--within", "5", "--window", "64", "--rank", "0"), 1,
           "unsatisfiable")
    expect(run("--within", "5", "--window", "32", "--rank", "0"), 1,
           "satisfiable")
    grads_sched = os.path.join(ROOT, "testdata", "valid", "prove-grads",
                               "schedule.yaml")
    with tempfile.NamedTemporaryFile("w", suffix=".yaml") as t:
        t.write(maps_text)
        t.flush()
        for w in ("3", "8", "20"):
            expect(run("--check", "--window", w), 4, "satisfiable")
            expect(run("--check", "--spare", "1", "--window", w,
                       schedule=t.name), 4, "satisfiable")
            expect(run("--check", "--grads", "--window", w,
                       schedule=grads_sched), 2, "satisfiable")


def main():
    global failures
    if not shutil.which("cadical"):
        print("SKIP: cadical is not installed")
        return 77
    expect(run("--within", "5", "--rank", "0", "--rank", "1"), 2,
           "unsatisfiable")
    plan = json.loads(subprocess.run(
        [CGSLOT, "plan", "-q", "--format", "json", SCHEDULE],
        capture_output=True, text=True, check=True).stdout)
    for r in plan["ranks"][:2]:
        ratio = r["bytes"] / r["lower_bound_bytes"]
        print("rank %d planned at %.4f x its bound" % (r["rank"], ratio))
        if ratio <= 1.05:
            print("FAIL: a plan within 5% of a bound proven out of reach")
            failures += 1
    expect(run("--within", "25", "--rank", "0"), 1, "satisfiable")
    expect(run("--check"), 4, "satisfiable")
    with open(SCHEDULE) as f:
        text = f.read().replace(
            "slots: {map: true}", "slots: {max: 16, per_rank: true, "
            "map: true}")
    with tempfile.NamedTemporaryFile("w", suffix=".yaml") as t:
        t.write(text)
        t.flush()
        plan = json.loads(subprocess.run(
            [CGSLOT, "plan", "-q", "--format", "json", t.name],
            capture_output=True, text=True, check=True).stdout)
        maps = sum(1 for r in plan["ranks"] if r.get("slot_map"))
        print("%d ranks on slot maps" % maps)
        if maps == 0:
            print("FAIL: no rank on a slot map to check")
            failures += 1
        expect(run("--check", schedule=t.name), 4, "satisfiable")
        expect(run("--check", "--longest", schedule=t.name), 4,
               "satisfiable")
        # a spare colour: where the plan sits at its bound, each forward
        # after a tight backward must share one colour with it, not two
        # (the counted hand-overs), and the plan, which shares two, must
        # stay a solution
        lines = run("--check", "--spare", "1", schedule=t.name)
        expect(lines, 4, "satisfiable")
        hands = [int(ln.split(" hand-overs")[0].rsplit(" ", 1)[1])
                 for ln in lines if " hand-overs" in ln]
        print("hand-overs with a spare colour: %s" % hands)
        if len(hands) != 4 or not all(hands):
            print("FAIL: a rank without hand-overs to check")
            failures += 1
    one_layer(text)
    window_rules()
    windows(text)
    mixed = os.path.join(ROOT, "testdata", "valid", "placed-classes",
                         "schedule.yaml")
    expect(run("--within", "1", "--slots", "4", schedule=mixed), 1,
           "unsatisfiable")
    for ring, beyond in ((4, True), (6, False)):
        r = json.loads(subprocess.run(
            [CGSLOT, "plan", "-q", "--format", "json", "--max-slots",
             str(ring), mixed], capture_output=True, text=True,
            check=True).stdout)["ranks"][0]
        ratio = r["bytes"] / r["lower_bound_bytes"]
        print("rings to %d: planned at %.4f x the bound" % (ring, ratio))
        if (ratio > 1.01) != beyond:
            print("FAIL: the plan %s 1%%" % ("within" if beyond else
                                            "beyond"))
            failures += 1
    expect(run("--within", "1", "--slots", "6", schedule=mixed), 1,
           "satisfiable")
    expect(run("--check", schedule=mixed), 1, "satisfiable")
    grads()
    stopped_by_signal()
    print("%d failures" % failures)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
