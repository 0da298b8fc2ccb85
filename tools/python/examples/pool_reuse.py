"""Which replays of graphs captured into one PyTorch pool reuse live memory.

A CUDA graph bakes in the addresses its capture was given.  Graphs
captured one after another into the same PyTorch pool share memory: a
block freed during one capture (a temporary, or a tensor whose last user
was captured) may be handed to a later capture.  That is safe when the
graphs replay in the order they were captured; a dynamic pipeline
schedule replays them in another order on most iterations, and then a
graph can write into a block that another graph still has to read.

This module takes, per captured graph, the allocator's alloc and free
events during its capture (addresses and sizes, from PyTorch's memory
history) and a replay sequence, and counts the pairs of blocks whose
addresses overlap while both are live in that replay.  It needs no
PyTorch, so its logic is tested on the CPU (tests/pool_reuse.py).

A block's life in a replay: it starts when the graph that allocated it
runs and ends when the graph that freed it during capture runs next, or,
for a block never freed (a tensor kept for a later graph), when the
graph that reads it last runs next (`consumer`).  Two blocks whose
addresses overlap conflict when their lives overlap, except where one
ends in the very graph run in which the other starts (the capture of that
graph put the free before the allocation, and replay keeps that order).
"""

import bisect

ALLOC, FREE = "alloc", "free"


def blocks_of(events_by_graph, order, consumer):
    """Blocks from capture events.

    events_by_graph: {graph: [(ALLOC|FREE, addr, size), ...]} in capture
    order within each graph; order: the graphs in capture order;
    consumer(graph): the graph that reads what `graph` keeps, or None
    (nothing kept is read later).  Returns [(addr, end_addr, born, dies)]
    where born is the allocating graph and dies the graph whose next run
    ends the block.  A block freed outside every capture (a baseline that
    drops its Python references between captures) still holds what its
    consumer reads at replay, so it ends where a kept block ends."""
    open_, out = {}, []
    for g in order:
        for action, addr, size in events_by_graph.get(g, ()):
            if action == ALLOC:
                b = open_.pop(addr, None)
                if b is not None:         # freed between captures
                    out.append(_kept(b, consumer))
                open_[addr] = (addr, addr + size, g)
            elif action == FREE:
                # a block this pool's captures never allocated (before
                # tracing began, or another pool's) is not ours
                b = open_.pop(addr, None)
                if b is not None:
                    out.append(b + (g,))
            else:
                raise ValueError("unknown action %r" % (action,))
    out.extend(_kept(b, consumer) for b in open_.values())
    return out


def _kept(b, consumer):
    c = consumer(b[2])
    return b + (b[2] if c is None else c,)


def overlapping_pairs(blocks):
    """Index pairs (i, j), i < j, of blocks whose address ranges overlap,
    whose allocating graphs differ and of which at least one outlives its
    graph (two temporaries of different graphs never run at once)."""
    idx = sorted(range(len(blocks)), key=lambda i: blocks[i][0])
    pairs, active = [], []
    for i in idx:
        lo, hi, born, _ = blocks[i]
        active = [j for j in active if blocks[j][1] > lo]
        for j in active:
            if blocks[j][2] != born and (blocks[i][3] != born or
                                         blocks[j][3] != blocks[j][2]):
                pairs.append((min(i, j), max(i, j)))
        active.append(i)
    return pairs


def _lives(block, where, n):
    """[(start, end)] positions of the block's lives in a sequence of n
    graph runs; where: {graph: sorted positions}."""
    _, _, born, dies = block
    ends = where.get(dies, [])
    out = []
    for p in where.get(born, ()):
        if dies == born:
            out.append((p, p))
            continue
        k = bisect.bisect_left(ends, p)
        out.append((p, ends[k] if k < len(ends) else n))
    return out


def _clash(a, b):
    lo, hi = max(a[0], b[0]), min(a[1], b[1])
    if lo < hi:
        return True
    if lo > hi:
        return False
    # one shared run: a hand-over inside that graph, in capture order
    return not ((lo == a[1] and lo == b[0]) or (lo == b[1] and lo == a[0]))


def conflicts(blocks, pairs, sequence):
    """Pairs of `pairs` whose blocks are live at once in `sequence` (the
    graphs in replay order).  Returns a list of (i, j, position)."""
    where = {}
    for p, g in enumerate(sequence):
        where.setdefault(g, []).append(p)
    n = len(sequence)
    lives = {}
    out = []
    for i, j in pairs:
        for k in (i, j):
            if k not in lives:
                lives[k] = _lives(blocks[k], where, n)
        for a in lives[i]:
            hit = next((b for b in lives[j] if _clash(a, b)), None)
            if hit is not None:
                out.append((i, j, max(a[0], hit[0])))
                break
    return out
