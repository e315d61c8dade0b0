"""Steps to leave out of a kind's summary: warm-up (leading steps of a kind much slower than that
kind's median; never a prefill, which is slow by nature) and outliers (any other step whose span
is far from its kind's median, by median absolute deviation). A step that did twice the work of
its kind's median step or half of it (tokens, else launch grids) is slow or fast for that reason:
it is neither."""
from __future__ import annotations

import numpy as np
import pandas as pd

from ..notes import Note, note

SAME_WORK = 1.0  # log2: steps within 2x of their kind's median work are alike enough to compare spans


def flag(table: pd.DataFrame, work: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, list[Note]]:
    """(warmup, outlier) per step of `table` (rank, kind, start_ns, end_ns), and notes counting them.
    work: per step, log2 of its size against the typical step's (NaN unknown; None: all unknown)."""
    span = (table["end_ns"] - table["start_ns"]).to_numpy(np.float64)
    work = np.full(len(table), np.nan) if work is None else np.asarray(work, np.float64)
    warm = np.zeros(len(table), bool)
    out = np.zeros(len(table), bool)
    for (_rank, kind), grp in table.groupby(["rank", "kind"], sort=False):
        idx = grp.index.to_numpy()
        if idx.size < 4:
            continue
        s = span[idx]
        med = np.median(s)
        mad = np.median(np.abs(s - med)) or med * 0.01
        w = work[idx]
        other = np.zeros(idx.size, bool)
        if np.isfinite(w).any():
            other = np.abs(w - np.nanmedian(w)) >= SAME_WORK  # NaN compares False: unknown work is alike
        far = (np.abs(s - med) > max(6 * mad, 0.25 * med)) & ~other
        slow = s > med + max(6 * mad, 0.25 * med)
        if kind != "prefill":
            j = 0
            while j < idx.size and slow[j] and not other[j]:
                warm[idx[j]] = True
                j += 1
        out[idx] = far & ~warm[idx]
    notes = []
    if warm.any():
        notes.append(note("steps.warmup", counts=(int(warm.sum()),)))
    if out.any():
        notes.append(note("steps.outliers", counts=(int(out.sum()),)))
    return warm, out, notes
