"""Vectorized helpers over int64 nanosecond intervals: sorted unique points, nesting depth,
exact per-group sums and running maxima, and one int64 key per tuple of integer columns (for joins)."""
from __future__ import annotations

import numpy as np
import pandas as pd


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


def unique_inverse(x: np.ndarray, narrow: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Sorted distinct values of integer `x` and, per element, the index of its value among them:
    np.unique(x, return_inverse=True). Values within a range a few times the count (codes, ids,
    packed small keys) are counted into a table over the range, O(n) with no sort; others by one
    stable sort (timsort is fast on the nearly sorted start and end columns traces hold).
    narrow: the indices in the integer type pandas keeps categorical codes of that many categories
    in, not int64."""
    x = np.asarray(x)
    if x.size and x.dtype.kind in "iu":
        lo, hi = int(x.min()), int(x.max())
        bound = max(4 * x.size, 1 << 16)
        if hi - lo < bound:
            # non-negative signed values within the bound index the table as they are: no shifted copy
            # (an int64 as long as x: 0.27 GB for the API calls of a 16M-kernel export)
            if lo < 0 or hi >= bound or x.dtype.kind != "i":
                at = np.subtract(x, lo, dtype=np.int64)
            else:
                at, lo = x, 0
            used = np.flatnonzero(np.bincount(at))
            remap = np.zeros(hi - lo + 1, _index_type(used.size) if narrow else np.int64)
            remap[used] = np.arange(used.size)
            return (used + lo).astype(x.dtype), remap[at]
    order = np.argsort(x, kind="stable")
    xs = x[order]
    new = np.empty(x.size, bool)
    if x.size:
        new[0] = True
        np.not_equal(xs[1:], xs[:-1], out=new[1:])
    inv = np.empty(x.size, np.int64)
    inv[order] = np.cumsum(new) - 1
    return xs[new], (inv.astype(_index_type(int(new.sum()))) if narrow else inv)


def _index_type(n: int) -> type:
    """The integer type pandas keeps the codes of n categories in (int8 below 127 categories,
    int16 below 32767, ...): codes made so are not copied again by Categorical.from_codes."""
    for t in (np.int8, np.int16, np.int32):
        if n < np.iinfo(t).max:
            return t
    return np.int64


def in_time_order(start_ns: np.ndarray, end_ns: np.ndarray) -> bool:
    """Whether the rows are in (start, end) order, as np.lexsort((end_ns, start_ns)) puts them."""
    ds = np.diff(start_ns)
    return bool((ds >= 0).all() and ((ds > 0) | (np.diff(end_ns) >= 0)).all())


def group_time_order(group: np.ndarray, start_ns: np.ndarray, end_ns: np.ndarray) -> np.ndarray:
    """np.lexsort((end_ns, start_ns, group)): rows already in time order need only a stable sort by
    group, which numpy does by radix for codes of 16 bits (a few streams or threads)."""
    if group.size > 1 and in_time_order(start_ns, end_ns):
        if (group == group[0]).all():
            return np.arange(group.size)
        _, code = unique_inverse(group)
        return code_order(code)
    return np.lexsort((end_ns, start_ns, group))


def code_order(code: np.ndarray) -> np.ndarray:
    """np.argsort(code, kind="stable") of non-negative integer codes: by radix where they fit 16 bits
    (numpy sorts uint16 by radix, wider integers by merge sort)."""
    code = np.asarray(code)
    if code.size and int(code.max()) < 1 << 16:
        return np.argsort(code.astype(np.uint16), kind="stable")
    return np.argsort(code, kind="stable")


def concat_ranges(start: np.ndarray, length: np.ndarray) -> np.ndarray:
    """The integer ranges [start[i], start[i] + length[i]) one after another (lengths >= 0), as
    np.concatenate of the aranges without one array per range."""
    length = np.asarray(length, np.int64)
    total = int(length.sum())
    return np.repeat(np.asarray(start, np.int64) - (np.cumsum(length) - length), length) + np.arange(total)


def group_sums(group: np.ndarray, v: np.ndarray, n: int) -> np.ndarray:
    """Sum of int64 `v` per group 0..n-1, exact (int64; bincount would add in float64)."""
    out = np.zeros(n, np.int64)
    if group.size > 1 and (group[1:] >= group[:-1]).all():  # rows in group order: add up runs
        first = np.flatnonzero(np.r_[True, group[1:] != group[:-1]])
        out[group[first]] = np.add.reduceat(v, first)
    else:
        np.add.at(out, group, v)
    return out


def running_max(x: np.ndarray, group: np.ndarray) -> np.ndarray:
    """Per row, the largest int64 x among the rows of its group up to and including it: what
    np.maximum.accumulate gives run over each group alone. Rows in group order, groups numbered
    0, 1, ... ascending (group[-1] + 1 groups)."""
    x = np.asarray(x, np.int64)
    if not x.size:
        return x.copy()
    run = np.maximum.accumulate(x)
    h = np.flatnonzero(np.diff(group)) + 1  # each group's first row but the first group's
    # where every group's first value reaches all values before it (steps that follow each other in
    # time), the running max over all rows is the one within each group
    if (x[h] >= run[h - 1]).all():
        return run
    lo, span = int(x.min()), int(x.max()) - int(x.min()) + 1
    if (int(group[-1]) + 1) * span < 2 ** 62:  # each group lifted above every earlier one: one running max
        lift = np.asarray(group, np.int64) * span
        return np.maximum.accumulate(x - lo + lift) - lift + lo
    return pd.Series(x).groupby(np.asarray(group)).cummax().to_numpy(np.int64)


def nest_order(starts: np.ndarray, ends: np.ndarray,
               groups: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Intervals in nesting order: the stable order by (group, start, end descending), as
    np.lexsort((-ends, starts, groups)); in that order, an int64 key per interval, non-decreasing,
    equal exactly for the same group and start (ns shifted by group); and each one's nesting_depth.

    One stable argsort of the start keys (timsort: traces come nearly in time order); only runs of
    equal keys are sorted again by end (a lexsort also sorts all ends, which are not in order:
    several times slower)."""
    s = np.asarray(starts, dtype=np.int64)
    e = np.asarray(ends, dtype=np.int64)
    ks, ke = s, e
    g = None if groups is None else np.asarray(groups)
    if g is not None and s.size and not (g == g[0]).all():
        # shift each group's times past the previous group's, so one sort orders by (group, time)
        gid = unique_inverse(g)[1]  # groups numbered in their sorted order
        lo = min(int(s.min()), int(e.min()))
        width = max(int(s.max()), int(e.max())) - lo + 1  # Python ints: cannot overflow
        ks, ke = s - lo, e - lo
        if (int(gid.max()) + 1) * width > np.iinfo(np.int64).max:
            # times too far apart to shift: their ranks among all times (same order) instead
            r = unique_inverse(np.concatenate([s, e]))[1]
            ks, ke, width = r[:s.size], r[s.size:], 2 * s.size
        ks, ke = ks + gid * width, ke + gid * width
    order = np.argsort(ks, kind="stable")
    key = ks[order]
    tie = key[1:] == key[:-1]
    if tie.any():
        # equal group and start: the longer (enclosing) interval first, then input order
        run = np.cumsum(np.r_[True, ~tie])
        at = np.flatnonzero(np.r_[tie, False] | np.r_[False, tie])
        sub = order[at]
        order[at] = sub[np.lexsort((-e[sub], run[at]))]
    # intervals opened before it minus those of its group ended by its start (both counts include
    # every interval of the lower groups, which cancel)
    depth = (np.arange(order.size) - np.searchsorted(np.sort(ke), key, side="right")).astype(np.int32)
    return order, key, depth


def nesting_depth(starts: np.ndarray, ends: np.ndarray, groups: np.ndarray | None = None) -> np.ndarray:
    """Depth of each interval among the intervals of its group that enclose it; 0 = outermost.

    Push/pop ranges and CPU ops nest properly per thread; for intervals that merely overlap,
    the count of earlier intervals still open at its start is returned.
    """
    order, _, d = nest_order(starts, ends, groups)
    depth = np.empty(order.size, np.int32)
    depth[order] = d
    return depth


def pack_keys(a: list[np.ndarray], b: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """One int64 key per row for column tuples of two tables (equal tuples, equal keys): the
    columns' bits side by side when they fit in 63 bits, else codes of the distinct values.
    Columns of any integer dtype."""
    lows, bits = [], []
    for x, y in zip(a, b):
        ends = [int(f(v)) for v in (x, y) if v.size for f in (np.min, np.max)]
        lo = min(ends, default=0)
        lows.append(lo)
        bits.append(max(max(ends, default=0) - lo, 0).bit_length())
    if sum(bits) <= 63:
        def key(cols: list[np.ndarray]) -> np.ndarray:
            k = None
            for c, lo, nb in zip(cols, lows, bits):
                if not nb:  # a column constant over both tables (one rank, one process) adds no bits
                    continue
                if k is None:
                    k = np.subtract(c, lo, dtype=np.int64)
                else:
                    k <<= nb
                    k |= np.subtract(c, lo, dtype=np.int64)
            return k if k is not None else np.zeros(cols[0].size, np.int64)
        return key(a), key(b)
    cols = [np.concatenate([x, y]) for x, y in zip(a, b)]
    key = None
    for c in cols:
        codes, uniq = pd.factorize(c)
        codes = codes.astype(np.int64)
        if key is None:
            key = codes
        else:  # combine, re-factorizing first when the product would not fit in int64
            if int(key.max(initial=0)) + 1 > (2 ** 62) // max(len(uniq), 1):
                key = pd.factorize(key)[0].astype(np.int64)
            key = key * max(len(uniq), 1) + codes
    return key[:a[0].size], key[a[0].size:]


def row_keys(cols: list[np.ndarray]) -> np.ndarray:
    """One int64 key per row of one table's column tuple (equal tuples, equal keys): pack_keys
    with no second table."""
    return pack_keys(cols, [c[:0] for c in cols])[0]
