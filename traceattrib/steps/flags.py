"""Steps to leave out of a kind's summary: warm-up (leading steps of a kind much slower than that
kind's median; never a prefill, which is slow by nature) and outliers (any other step whose span
is far from its kind's median, by median absolute deviation)."""
from __future__ import annotations

import numpy as np
import pandas as pd

from ..notes import Note, note


def flag(table: pd.DataFrame) -> tuple[np.ndarray, np.ndarray, list[Note]]:
    """(warmup, outlier) per step of `table` (rank, kind, start_ns, end_ns), and notes counting them."""
    span = (table["end_ns"] - table["start_ns"]).to_numpy(np.float64)
    warm = np.zeros(len(table), bool)
    out = np.zeros(len(table), bool)
    for (_rank, kind), grp in table.groupby(["rank", "kind"], sort=False):
        idx = grp.index.to_numpy()
        if idx.size < 4:
            continue
        s = span[idx]
        med = np.median(s)
        mad = np.median(np.abs(s - med)) or med * 0.01
        far = np.abs(s - med) > max(6 * mad, 0.25 * med)
        slow = s > med + max(6 * mad, 0.25 * med)
        if kind != "prefill":
            j = 0
            while j < idx.size and slow[j]:
                warm[idx[j]] = True
                j += 1
        out[idx] = far & ~warm[idx]
    notes = []
    if warm.any():
        notes.append(note("steps.warmup", counts=(int(warm.sum()),)))
    if out.any():
        notes.append(note("steps.outliers", counts=(int(out.sum()),)))
    return warm, out, notes
