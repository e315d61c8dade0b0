"""Interval arithmetic on int64 nanosecond intervals, vectorized with numpy.

An interval set is a pair of sorted, disjoint arrays (starts, ends) with start < end.
"""
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


def union(starts: np.ndarray, ends: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Merge possibly overlapping intervals into a sorted disjoint set (touching ones merge)."""
    s = np.asarray(starts, dtype=np.int64)
    e = np.asarray(ends, dtype=np.int64)
    keep = e > s
    s, e = s[keep], e[keep]
    if s.size == 0:
        return s, e
    order = np.argsort(s, kind="stable")
    s, e = s[order], e[order]
    run_end = np.maximum.accumulate(e)
    # a new merged interval starts where the start lies beyond every earlier end
    new = np.empty(s.size, dtype=bool)
    new[0] = True
    new[1:] = s[1:] > run_end[:-1]
    idx = np.flatnonzero(new)
    out_s = s[idx]
    last = np.append(idx[1:], s.size) - 1
    out_e = run_end[last]
    return out_s, out_e


def total(starts: np.ndarray, ends: np.ndarray) -> int:
    """Length in ns of the union of the intervals."""
    s, e = union(starts, ends)
    return int((e - s).sum())


def intersect(a: tuple[np.ndarray, np.ndarray], b: tuple[np.ndarray, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """Intersection of two disjoint sorted interval sets."""
    return _boolean(a, b, lambda x, y: x & y)


def subtract(a: tuple[np.ndarray, np.ndarray], b: tuple[np.ndarray, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """Part of set `a` not covered by set `b`."""
    return _boolean(a, b, lambda x, y: x & ~y)


def clip(a: tuple[np.ndarray, np.ndarray], lo: int, hi: int) -> tuple[np.ndarray, np.ndarray]:
    """Restrict a disjoint sorted set to [lo, hi)."""
    s, e = a
    s = np.maximum(s, lo)
    e = np.minimum(e, hi)
    keep = e > s
    return s[keep], e[keep]


def length(a: tuple[np.ndarray, np.ndarray]) -> int:
    s, e = a
    return int((e - s).sum())


def _boolean(a, b, op) -> tuple[np.ndarray, np.ndarray]:
    # Sweep over all boundaries of both sets; membership of each elementary segment is
    # decided by counting how many starts/ends of each set lie at or before it.
    sa, ea = a
    sb, eb = b
    pts = sorted_unique(np.concatenate([sa, ea, sb, eb]))
    if pts.size < 2:
        return np.empty(0, np.int64), np.empty(0, np.int64)
    left = pts[:-1]
    in_a = (np.searchsorted(sa, left, side="right") - np.searchsorted(ea, left, side="right")) > 0
    in_b = (np.searchsorted(sb, left, side="right") - np.searchsorted(eb, left, side="right")) > 0
    m = op(in_a, in_b)
    if not m.any():
        return np.empty(0, np.int64), np.empty(0, np.int64)
    seg_s, seg_e = left[m], pts[1:][m]
    return union(seg_s, seg_e)


def coverage_count(starts: np.ndarray, ends: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Boundary points and, for each elementary segment [pts[i], pts[i+1]), how many intervals cover it."""
    s = np.asarray(starts, dtype=np.int64)
    e = np.asarray(ends, dtype=np.int64)
    pts = sorted_unique(np.concatenate([s, e]))
    if pts.size < 2:
        return pts, np.empty(0, np.int64)
    left = pts[:-1]
    cnt = np.searchsorted(np.sort(s), left, side="right") - np.searchsorted(np.sort(e), left, side="right")
    return pts, cnt


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
