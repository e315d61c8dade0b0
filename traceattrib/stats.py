"""Small statistics every summary shares: which steps a summary counts, p90, speedup bounds,
medians per group."""
from __future__ import annotations

import numpy as np
import pandas as pd

from .intervals import code_order


def steady(steps: pd.DataFrame) -> pd.DataFrame:
    """The steps a summary counts: warm-up steps left out, unless every step is warm-up."""
    warm = steps["warmup"].to_numpy(bool)
    return steps[~warm] if (~warm).any() else steps


def kind_steps(steps: pd.DataFrame, kind: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(every step of `kind`, the steady ones) of a step table."""
    all_k = steps[steps["kind"] == kind]
    return all_k, steady(all_k) if len(all_k) else all_k


def p90(x: np.ndarray) -> float:
    """The 90th percentile as an observed value ('higher': no interpolation between an infinite
    and a finite bound); NaN when empty."""
    return float(np.percentile(x, 90, method="higher")) if len(x) else float("nan")


def ratio_bound(span: np.ndarray, rest: np.ndarray) -> np.ndarray:
    """span / rest, the speedup bound when only `rest` of the span would remain; inf where nothing
    would (rest <= 0)."""
    a = np.asarray(span, np.float64)
    b = np.asarray(rest, np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(b > 0, a / np.where(b > 0, b, 1), np.inf)


SELECT_ROWS = 1 << 16  # from this many rows, few groups are read by selection (group_medians)
SELECT_GROUPS = 4096
SELECT_GROUP_ROWS = 64  # and this many rows per group on average


def group_medians(group: np.ndarray, x: np.ndarray, select: bool | None = None) -> tuple[np.ndarray, ...]:
    """Per distinct int64 group, ascending: (the group, the median of `x` over its rows as float64
    (the mean of the two middle values for an even count, as pandas' groupby median), their count,
    the least and the largest x as float64). NaN in x is not expected; of -0.0 and 0.0 either may be
    the least. Integer x whose (group, x) fit one 63-bit key are sorted as that key, one array.
    Many rows of few groups (kernel names) are put in group order by a radix sort of the group
    codes and each group's middle values selected (np.partition) instead of sorting every value;
    select forces (True) or forbids (False) that way."""
    group = np.asarray(group, np.int64)
    x = np.asarray(x)
    if select is None:
        select = x.size >= SELECT_ROWS
    if select and x.size:
        g_lo, g_hi = int(group.min()), int(group.max())
        if g_hi - g_lo < 1 << 16:
            count = np.bincount(group - g_lo)
            groups = np.count_nonzero(count)
            # (a Python step per group: worth it only for groups of many rows)
            if groups <= SELECT_GROUPS and groups * SELECT_GROUP_ROWS <= x.size:
                return _selected(group - g_lo, x, count, g_lo)
    g = v = None
    if x.size and x.dtype.kind == "i":
        g_lo, x_lo = int(group.min()), int(x.min())
        g_bits, x_bits = (int(group.max()) - g_lo).bit_length(), (int(x.max()) - x_lo).bit_length()
        if g_bits + x_bits <= 63:  # rows of one key are alike: sorting the keys sorts the rows
            key = np.sort(((group - g_lo) << x_bits) | (x.astype(np.int64) - x_lo))
            g, v = (key >> x_bits) + g_lo, ((key & ((1 << x_bits) - 1)) + x_lo).astype(np.float64)
    if g is None:
        o = np.lexsort((x, group))
        g, v = group[o], x[o].astype(np.float64)
    first = np.flatnonzero(np.r_[True, g[1:] != g[:-1]]) if g.size else np.zeros(0, np.int64)
    n = np.diff(np.r_[first, g.size])
    med = (v[first + (n - 1) // 2] + v[first + n // 2]) / 2
    return g[first], med, n, v[first], v[first + n - 1]


def _selected(code: np.ndarray, x: np.ndarray, count: np.ndarray, g_lo: int) -> tuple[np.ndarray, ...]:
    """group_medians of groups code + g_lo (code in 0..65535, counted by `count`): rows in group
    order by a stable radix sort of the uint16 codes, then per group its two middle values, least
    and largest by selection."""
    v = x[code_order(code)]
    present = np.flatnonzero(count)
    n = count[present]
    start = np.concatenate(([0], np.cumsum(n)[:-1]))
    med, lo, hi = np.empty(present.size), np.empty(present.size), np.empty(present.size)
    for i, (a, m) in enumerate(zip(start.tolist(), n.tolist())):
        part = v[a:a + m]
        mid = sorted({(m - 1) // 2, m // 2})
        sel = np.partition(part, mid) if m > 2 else np.sort(part)
        med[i] = (np.float64(sel[(m - 1) // 2]) + np.float64(sel[m // 2])) / 2
        lo[i], hi[i] = part.min(), part.max()
    return present.astype(np.int64) + g_lo, med, n.astype(np.int64), lo, hi
