#!/usr/bin/env python3
"""A second derivation of Megatron's capture orders, checked against cgslot.

Every planner, checker and the verifier get their orders from src/order, so
a slip there would pass every safety check.  This script derives the
schedule table and the order again, from the formulas of the project brief
alone (it shares no code with the C implementation), and compares them with
what `cgslot orders` prints:

  - for every P <= 8, M <= 4 and G in {P, P/2, P+2}: a schedule planning
    every rank, whose generated orders cover every reachable count N <= L
    (L = 3G with VPP, 12 without); `cgslot orders SCHEDULE` prints them all;
  - counts that are no multiple of G (the brief's P=2, M=2, G=3, N=5 kind),
    which a schedule never reaches, through `cgslot orders --pp ...`.

The derivation (BRIEF.md, "Megatron's derivation"), for P, rank r, M, G, N:
  w = min(N*M, P-r-1)                    when M == 1
  w = min(N*M, (P-r-1)*2 + (M-1)*G)      otherwise
  table: for g = 0, G, 2G, ... < N, h = min(g+G, N):
         (mb, c) for c in 0..M-1 for mb in g..h-1
  forward id of (mb, c) is c+1, backward id c-M
  order: forward[0..w), then forward[i], backward[i-w] for i in w..end,
         then the last w backward ids.

Run by meson (suite unit) with $CGSLOT; exits 1 on any difference.
"""

import os
import subprocess
import sys
import tempfile


def warmup(pp, rank, vpp, group, n):
    if vpp == 1:
        return min(n * vpp, pp - rank - 1)
    return min(n * vpp, (pp - rank - 1) * 2 + (vpp - 1) * group)


def schedule_table(vpp, group, n):
    table = []
    for start in range(0, n, group):
        end = n if start + group >= n else start + group
        for chunk in range(vpp):
            for mb in range(start, end):
                table.append((mb, chunk))
    return table


def megatron_order(pp, rank, vpp, group, n):
    table = schedule_table(vpp, group, n)
    forward = [chunk + 1 for _, chunk in table]
    backward = [chunk - vpp for _, chunk in table]
    w = warmup(pp, rank, vpp, group, n)
    order = forward[:w]
    for i in range(w, len(table)):
        order.append(forward[i])
        order.append(backward[i - w])
    order.extend(backward[len(table) - w:])
    return order


def check_examples():
    """The oracle itself against the orders the brief spells out."""
    examples = [
        ((4, 0, 2, 4, 8), "1 1 1 1 2 2 2 2 1 1 1 -2 1 -2 2 -2 2 -2 2 -1 "
                          "2 -1 -1 -1 -2 -2 -2 -2 -1 -1 -1 -1"),
        ((4, 3, 2, 4, 8), "1 1 1 1 2 -2 2 -2 2 -2 2 -2 1 -1 1 -1 1 -1 1 -1 "
                          "2 -2 2 -2 2 -2 2 -2 -1 -1 -1 -1"),
        ((2, 0, 2, 3, 5), "1 1 1 2 2 2 -2 1 -2 1 -2 2 -1 2 -1 -1 -2 -2 -1 -1"),
    ]
    for args, want in examples:
        got = " ".join(map(str, megatron_order(*args)))
        if got != want:
            print(f"FAIL: the oracle's own order for (P, r, M, G, N) = {args} "
                  f"is '{got}', the brief says '{want}'")
            return False
    return True


def reachable(vpp, group, limit):
    if vpp == 1 or group <= 1:
        return list(range(1, limit + 1))
    return list(range(group, limit + 1, group))


def configurations():
    for pp in range(1, 9):
        for vpp in range(1, 5):
            groups = sorted({pp, max(1, pp // 2), pp + 2})
            if vpp == 1:
                groups = [pp]  # G does not enter the order without VPP
            for group in groups:
                yield pp, vpp, group


def schedule_yaml(pp, vpp, group, limit):
    return (f"cgslot: 1\n"
            f"name: oracle-p{pp}-m{vpp}-g{group}\n"
            f"pipeline: {{pp: {pp}, vpp: {vpp}, layers_per_chunk: 1, "
            f"microbatch_group: {group}, max_microbatches: {limit}}}\n"
            f"variants:\n"
            f"  - {{name: a, cp: 1, bytes: {{input: 256, output: 256, "
            f"saved: 256, user_grad: 256}}}}\n")


def run(cgslot, args):
    r = subprocess.run([cgslot] + args, capture_output=True, text=True,
                       timeout=120)
    if r.returncode != 0:
        raise RuntimeError(f"cgslot {' '.join(args)} exited {r.returncode}: "
                           f"{r.stderr.strip()}")
    return r.stdout


def main():
    cgslot = os.environ.get("CGSLOT")
    if not cgslot:
        print("CGSLOT is not set (run through meson test)")
        return 2
    if not check_examples():
        return 1
    failures = compared = 0
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "schedule.yaml")
        for pp, vpp, group in configurations():
            limit = 3 * group if vpp > 1 else 12
            with open(path, "w") as f:
                f.write(schedule_yaml(pp, vpp, group, limit))
            lines = run(cgslot, ["orders", path]).splitlines()
            want = {}
            for rank in range(pp):
                for n in reachable(vpp, group, limit):
                    want[(rank, n)] = megatron_order(pp, rank, vpp, group, n)
            seen = set()
            for line in lines:
                prefix, _, body = line.partition(":")
                words = prefix.split()
                key = (int(words[1]), int(words[3]))
                seen.add(key)
                got = [int(x) for x in body.split()]
                compared += 1
                if key not in want:
                    failures += 1
                    print(f"FAIL: P={pp} M={vpp} G={group} L={limit}: cgslot "
                          f"prints an order for rank {key[0]}, N={key[1]}, "
                          f"which is not reachable")
                elif got != want[key]:
                    failures += 1
                    print(f"FAIL: P={pp} M={vpp} G={group} rank {key[0]} "
                          f"N={key[1]}:\n  cgslot: {body.strip()}\n  "
                          f"oracle: {' '.join(map(str, want[key]))}")
            for key in sorted(set(want) - seen):
                failures += 1
                print(f"FAIL: P={pp} M={vpp} G={group} L={limit}: no order "
                      f"for rank {key[0]}, N={key[1]}")
    # Counts off the group: one process per order, so a sample of them.
    for pp in (2, 3, 4, 8):
        for vpp in (2, 3, 4):
            group = pp + 2 if pp != 2 else 3
            for n in (group - 1, group + 1, 2 * group - 1):
                for rank in sorted({0, pp // 2, pp - 1}):
                    got = run(cgslot, ["orders", "--pp", str(pp), "--vpp",
                                       str(vpp), "--group", str(group),
                                       "--microbatches", str(n), "--rank",
                                       str(rank)]).split()
                    want = megatron_order(pp, rank, vpp, group, n)
                    compared += 1
                    if [int(x) for x in got] != want:
                        failures += 1
                        print(f"FAIL: P={pp} M={vpp} G={group} rank {rank} "
                              f"N={n}:\n  cgslot: {' '.join(got)}\n  "
                              f"oracle: {' '.join(map(str, want))}")
    print(f"{compared} orders compared, {failures} differ")
    return 1 if failures or compared == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
