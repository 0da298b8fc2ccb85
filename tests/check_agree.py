#!/usr/bin/env python3
"""`cgslot check` and `cgslot compile` agree on random schedules.

  check_agree.py [COUNT [SEED]]     (default 60 schedules, seed 1)

Writes COUNT random schedules (JSON, seeded) near the edges that once let
check pass what compile refused: a pipeline.slots below liveness, names
with control characters, sizes whose per-rank totals wrap, explicit orders
(some malformed), overrides, odd groups and alignments.  Runs one `check`
over all of them and one `compile` per schedule, and fails unless each
schedule either passes both (compile writing a manifest) or fails both
with the same message and nothing written.  Prints how many passed, so a
generator that stops producing valid schedules is noticed.
"""
import json
import os
import random
import subprocess
import sys
import tempfile

CGSLOT = os.environ.get("CGSLOT", "cgslot")

SIZES = ["1KiB", "64MiB", "1.5GiB", 1, 512, 3000, "8388608TiB",
         4611686018427387904, "1TiB", 2 ** 63, "16TiB"]
NAMES = ["cp", "long seq", "ü-cp", "x"]
BAD_NAMES = ["tab\there", "ctl\u0001", "del\u007f"]


def name(r):
    return r.choice(BAD_NAMES) if r.random() < 0.04 else r.choice(NAMES)


def megatron(pp, vpp, group, n, rank):
    """Megatron's capture order (the brief's formulas), to perturb."""
    total = n * vpp
    if vpp == 1:
        w = min(total, pp - rank - 1)
    else:
        w = min(total, (pp - rank - 1) * 2 + (vpp - 1) * group)
    table = []
    for g in range(0, n, group):
        h = n if g + group >= n else g + group
        table += [c for c in range(vpp) for _ in range(g, h)]
    fwd = [c + 1 for c in table]
    bwd = [c - vpp for c in table]
    order = fwd[:w]
    for i in range(w, total):
        order += [fwd[i], bwd[i - w]]
    return order + bwd[total - w:]


def roles(r):
    return {k: r.choice(SIZES[:6]) if r.random() < 0.93 else r.choice(SIZES)
            for k in ("input", "output", "saved", "user_grad")}


def schedule(r):
    pp = r.randint(1, 5)
    vpp = r.choice([1, 1, 2, 3])
    group = r.choice([pp, pp, 1, 2, pp + 1])
    step = group if vpp > 1 and group > 1 else 1
    lmax = step * r.randint(1, 4)
    pipe = {"pp": pp, "vpp": vpp,
            "layers_per_chunk": r.choice([1, 2, 3, [1] * vpp]),
            "microbatch_group": group, "max_microbatches": lmax}
    if r.random() < 0.4:
        pipe["slots"] = r.randint(1, lmax + 2)
    if r.random() < 0.3:
        pipe["ranks"] = sorted(r.sample(range(pp), r.randint(1, pp)))
    doc = {"cgslot": 1, "pipeline": pipe,
           "alignment": r.choice([1, 256, 512, "1MiB"]), "variants": []}
    if r.random() < 0.3:
        doc["name"] = name(r)
    for v in range(r.randint(1, 3)):
        var = {"name": name(r) + str(v), "cp": 1 << v,
               "bytes": roles(r)}
        if r.random() < 0.3:
            over = {k: val for k, val in roles(r).items() if r.random() < 0.5}
            over = over or {"saved": "2GiB"}
            if r.random() < 0.5:
                over["rank"] = r.randrange(pp)
            var["overrides"] = [over]
        doc["variants"].append(var)
    if r.random() < 0.25:
        ranks = pipe.get("ranks", list(range(pp)))
        rank = r.choice(ranks)
        n = r.randint(1, lmax)
        order = megatron(pp, vpp, group, n, rank)
        if r.random() < 0.5:  # swap two entries: may break draining
            i, j = r.randrange(len(order)), r.randrange(len(order))
            order[i], order[j] = order[j], order[i]
        doc["orders"] = [{"rank": rank, "microbatches": n, "order": order}]
    return doc


def main(argv):
    count = int(argv[1]) if len(argv) > 1 else 60
    seed = int(argv[2]) if len(argv) > 2 else 1
    r = random.Random(seed)
    bad = passed = 0
    with tempfile.TemporaryDirectory() as tmp:
        paths = []
        for i in range(count):
            p = os.path.join(tmp, "s%04d.json" % i)
            with open(p, "w") as f:
                json.dump(schedule(r), f)
            paths.append(p)
        chk = subprocess.run([CGSLOT, "check"] + paths, capture_output=True,
                             text=True)
        errors = {}
        for line in chk.stderr.splitlines():
            for p in paths:
                if line.startswith("cgslot: " + p + ":"):
                    errors[p] = line + "\n"
        for p in paths:
            out = p + ".cgslot"
            comp = subprocess.run([CGSLOT, "compile", "--quiet", p, "-o", out],
                                  capture_output=True, text=True)
            wrote = os.path.exists(out)
            if comp.returncode == 0 and p not in errors and wrote:
                passed += 1
                continue
            if (comp.returncode == 1 and errors.get(p) == comp.stderr
                    and not wrote):
                continue
            bad += 1
            print("DISAGREE %s (seed %d):\n  check:   %s  compile: exit %d %s"
                  % (os.path.basename(p), seed, errors.get(p, "ok\n"),
                     comp.returncode, comp.stderr or "(no message)\n"))
            print("  " + open(p).read())
    print("%d schedules (seed %d): %d pass both, %d fail both, %d disagree"
          % (count, seed, passed, count - passed - bad, bad))
    if passed < count // 5 or passed == count:
        print("the generator no longer mixes valid and invalid schedules")
        return 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
