#!/usr/bin/env python3
"""The ring search chooses what planning every ring in full would choose.

  search_prune.py [COUNT [SEED]]     (default 12 pipelines, seed 1)

A search (`cgslot plan --max-slots N`) plans every ring with first-fit
first and plans in full only the rings that could still be chosen;
`--explore-slots` plans every ring in full and marks the ring it would
take.  For COUNT random pipelines (tools/gen-schedule, seeded), with one
shared ring, a ring per rank, and a ring per rank with slot maps, the
search's bytes and graphs per rank must equal the explored choice's, and
the search's output must be byte-identical on one thread and on three,
and every explored ring's floor must lie between the bound and its bytes.
Prints how many rings the comparison covered, so a generator that stops
producing searches is noticed.
"""
import json
import os
import random
import subprocess
import sys
import tempfile

CGSLOT = os.environ.get("CGSLOT", "cgslot")
GEN = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(
    __file__))), "tools", "gen-schedule")


def run(args):
    p = subprocess.run([CGSLOT] + args, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit("cgslot %s failed (%d):\n%s" % (" ".join(args), p.returncode,
                                                p.stderr))
    return p.stdout


def explored_choice(text):
    """{rank: (graphs, bytes)} of the rows --explore-slots marks '*'.
    Every ring's floor lies between the lower bound and, without a map,
    the ring's bytes (a floor above the bytes would be a wrong bound)."""
    chosen, rings = {}, 0
    for line in text.splitlines()[2:]:
        f = line.split()
        rings += 1
        ratio, floor = float(f[4]), float(f[5])
        if floor < 1.0 or (floor > ratio and "map" not in f):
            sys.exit("ring %s of rank %s: floor %.3f outside [1, %.3f]:\n%s"
                     % (f[1], f[0], floor, ratio, line))
        if f[-1] == "*":
            chosen[int(f[0])] = (int(f[2]), int(f[3]))
    return chosen, rings


def main():
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 12
    rng = random.Random(int(sys.argv[2]) if len(sys.argv) > 2 else 1)
    rings = 0
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(count):
            pp = rng.randint(2, 6)
            vpp = rng.choice([1, 2, 3])
            group = pp if rng.random() < 0.6 else rng.randint(1, pp)
            max_mb = group * rng.choice([1, 2, 3, 4, 6])
            path = os.path.join(tmp, "s%d.yaml" % i)
            args = [GEN, "--pp", str(pp), "--vpp", str(vpp),
                    "--layers", str(rng.randint(1, 3)), "--group", str(group),
                    "--max-microbatches", str(max_mb),
                    "--variants", str(rng.randint(2, 4)), "-o", path]
            if rng.random() < 0.5:
                args.append("--uniform")
            subprocess.run(args, check=True)
            for mode in ([], ["--per-rank-slots"],
                         ["--per-rank-slots", "--slot-maps"]):
                # a ring up to twice the smallest, and one past it
                smallest = json.loads(run(["plan", "--format", "json",
                                           path]))["slots"]
                top = ["--max-slots",
                       str(rng.randint(smallest, 2 * smallest + 1))]
                search = run(["plan", "--format", "json", "-j1"] + top +
                             mode + [path])
                if run(["plan", "--format", "json", "-j3"] + top + mode +
                       [path]) != search:
                    sys.exit("%s %s: the search differs on 1 and 3 threads"
                             % (" ".join(args), " ".join(mode)))
                chosen, n = explored_choice(run(
                    ["plan", "--explore-slots"] + top + mode + [path]))
                rings += n
                got = {r["rank"]: (r["graphs"], r["bytes"])
                       for r in json.loads(search)["ranks"]}
                if got != chosen:
                    sys.exit("%s %s %s: the search took %s, planning every "
                             "ring in full takes %s" % (
                                 " ".join(args), " ".join(top),
                                 " ".join(mode), got, chosen))
    print("%d pipelines, %d rings: the search chose as every ring planned "
          "in full would" % (count, rings))


if __name__ == "__main__":
    main()
