"""Vectorized helpers over int64 nanosecond intervals: sorted unique points, nesting depth,
exact per-group sums."""
from __future__ import annotations

import numpy as np


def sorted_unique(x: np.ndarray) -> np.ndarray:
    """np.unique for int64 arrays by sorting (numpy 2's hash-based unique is several times slower
    on millions of timestamps)."""
    x = np.sort(np.asarray(x), kind="stable")
    if x.size < 2:
        return x
    keep = np.empty(x.size, bool)
    keep[0] = True
    np.not_equal(x[1:], x[:-1], out=keep[1:])
    return x[keep]


def unique_inverse(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Sorted distinct values of int64 `x` and, per element, the index of its value among them
    (np.unique(x, return_inverse=True) by one stable sort: timsort is fast on the nearly sorted
    start and end columns traces hold)."""
    x = np.asarray(x)
    order = np.argsort(x, kind="stable")
    xs = x[order]
    new = np.empty(x.size, bool)
    if x.size:
        new[0] = True
        np.not_equal(xs[1:], xs[:-1], out=new[1:])
    inv = np.empty(x.size, np.int64)
    inv[order] = np.cumsum(new) - 1
    return xs[new], inv


def group_sums(group: np.ndarray, v: np.ndarray, n: int) -> np.ndarray:
    """Sum of int64 `v` per group 0..n-1, exact (int64; bincount would add in float64)."""
    out = np.zeros(n, np.int64)
    if group.size > 1 and (group[1:] >= group[:-1]).all():  # rows in group order: add up runs
        first = np.flatnonzero(np.r_[True, group[1:] != group[:-1]])
        out[group[first]] = np.add.reduceat(v, first)
    else:
        np.add.at(out, group, v)
    return out


def nesting_depth(starts: np.ndarray, ends: np.ndarray, groups: np.ndarray | None = None) -> np.ndarray:
    """Depth of each interval among the intervals of its group that enclose it; 0 = outermost.

    Push/pop ranges and CPU ops nest properly per thread; for intervals that merely overlap,
    the count of earlier intervals still open at its start is returned.
    """
    s = np.asarray(starts, dtype=np.int64)
    e = np.asarray(ends, dtype=np.int64)
    n = s.size
    depth = np.zeros(n, np.int32)
    if n == 0:
        return depth
    g = np.zeros(n, np.int64) if groups is None else np.asarray(groups)
    # one pass per group (threads), vectorized inside the group
    for key in np.unique(g):
        idx = np.flatnonzero(g == key)
        gs, ge = s[idx], e[idx]
        order = np.lexsort((-ge, gs))  # by start, the longer (enclosing) first
        opened = np.arange(idx.size)
        closed = np.searchsorted(np.sort(ge), gs[order], side="right")
        d = np.empty(idx.size, np.int32)
        d[order] = (opened - closed).astype(np.int32)
        depth[idx] = d
    return depth
