"""Small statistics every summary shares: which steps a summary counts, p90, speedup bounds,
medians per group."""
from __future__ import annotations

import numpy as np
import pandas as pd


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


def group_medians(group: np.ndarray, x: np.ndarray) -> tuple[np.ndarray, ...]:
    """Per distinct int64 group, ascending: (the group, the median of `x` over its rows as float64
    (the mean of the two middle values for an even count, as pandas' groupby median), their count,
    the least and the largest x as float64). NaN in x is not expected; of -0.0 and 0.0 either may be
    the least. Integer x whose (group, x) fit one 63-bit key are sorted as that key, one array."""
    group = np.asarray(group, np.int64)
    x = np.asarray(x)
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
