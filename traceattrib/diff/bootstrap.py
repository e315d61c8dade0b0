"""Bootstrap intervals over steps, and over runs then steps: numpy only, vectorized, seeded.

The unit resampled is a step: one step index of one run, with every rank's row of that step
together (ranks of one step are not independent draws). A side of one run is resampled as its
steps with replacement. A side of several runs is resampled hierarchically (a cluster bootstrap):
its runs with replacement, then each drawn run's steps with replacement, so the interval holds
run-to-run noise as well as step-to-step noise; with few runs (2-3) it still tends to be narrow,
which is why the spread between runs is reported beside it. Each resample's statistics are those
of the pooled steps: the median and p90 (the observed value above, numpy's 'higher') of the
rank-step spans, and means per rank-step of the other columns. The interval of a change is the
2.5th and 97.5th percentiles of after / before - 1 over pairs of independent resamples.

No loop runs over steps or resamples in Python: resamples are drawn as index arrays and reduced
to each unit's multiplicity, a block of resamples at a time so that memory stays near ELEMENTS
values whatever the step count (5,000 steps of 8 ranks: about 2.5 s for 2,000 resamples).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .types import CONFIDENCE, RESAMPLES

ELEMENTS = 1 << 22  # values (resamples x span values) handled per block of resamples


@dataclass
class Sample:
    """A side's steady steps of one kind as resampling units, sorted by run.

    run: [N] the run of each unit; span: [N, R] each rank's span (NaN where a rank lacks the
    step); sums: [N, M] per unit, the sum over its ranks of each column; count: [N] its ranks."""

    run: np.ndarray
    span: np.ndarray
    sums: np.ndarray
    count: np.ndarray
    runs: int

    @property
    def units(self) -> int:
        return len(self.run)

    def run_units(self) -> np.ndarray:
        """Units per run."""
        return np.bincount(self.run, minlength=self.runs)


@dataclass
class Stats:
    """Statistics of the pooled steps: scalars for the sample itself, [B] arrays over resamples."""

    median: np.ndarray
    p90: np.ndarray
    means: np.ndarray  # [M] or [B, M]


def order_stats(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Median and p90 ('higher') of each row of `values` [B, L], NaN entries left out (each row
    holds at least one value)."""
    s = np.sort(values, axis=1)  # NaN last
    n = (~np.isnan(values)).sum(axis=1)
    lo, hi = (n - 1) // 2, n // 2
    k = np.ceil((n - 1) * 0.9).astype(np.int64)  # as np.percentile(x, 90, method='higher') (stats.p90)
    med = (np.take_along_axis(s, lo[:, None], 1)[:, 0] + np.take_along_axis(s, hi[:, None], 1)[:, 0]) / 2
    return med, np.take_along_axis(s, k[:, None], 1)[:, 0]


def point(sample: Sample) -> Stats:
    """The statistics of the sample itself (every unit once)."""
    med, p = order_stats(sample.span.reshape(1, -1))
    return Stats(median=med[0], p90=p[0], means=sample.sums.sum(axis=0) / sample.count.sum())


def _draw(rng: np.random.Generator, sample: Sample, b: int) -> np.ndarray:
    """[b, L] unit indices of b resamples, -1 in unused slots: runs with replacement (when there
    are several), then each drawn run's units with replacement."""
    n = sample.run_units()
    start = np.concatenate([[0], np.cumsum(n)[:-1]])
    if sample.runs == 1:
        return rng.integers(0, n[0], (b, n[0]))
    runs = rng.integers(0, sample.runs, (b, sample.runs))
    width = int(n.max())
    nr = n[runs][:, :, None]
    idx = start[runs][:, :, None] + np.floor(rng.random((b, sample.runs, width)) * nr).astype(np.int64)
    idx = np.where(np.arange(width) < nr, idx, -1)
    return idx.reshape(b, -1)


def resample(sample: Sample, rng: np.random.Generator, resamples: int = RESAMPLES) -> Stats:
    """Statistics of `resamples` bootstrap resamples of the sample.

    A resample is its units' multiplicities w [N] (bincount of the drawn indices): its means are
    w @ sums / w @ count, and its order statistics come from the span values sorted once, each
    weighted by its unit's multiplicity (the k-th smallest is where the running count of the
    sorted values passes k): no resample is sorted, and the result is exactly that of sorting it."""
    n_units = sample.units
    flat = sample.span.ravel()
    known = np.flatnonzero(~np.isnan(flat))
    order = np.argsort(flat[known], kind="stable")
    values = flat[known][order]
    unit_of = (known // sample.span.shape[1])[order]
    count = sample.count.astype(np.float64)
    width = int(sample.run_units().max()) * sample.runs
    block = max(1, ELEMENTS // max(len(values), n_units, width, 1))
    med, p90, means = [], [], []
    for first in range(0, resamples, block):
        b = min(block, resamples - first)
        idx = _draw(rng, sample, b)
        rows = np.broadcast_to(np.arange(b)[:, None], idx.shape)
        drawn = idx >= 0
        w = np.bincount(rows[drawn] * n_units + idx[drawn], minlength=b * n_units).reshape(b, n_units)
        running = np.cumsum(np.take(w.astype(np.int32), unit_of, axis=1), axis=1, dtype=np.int32)
        total = running[:, -1]
        med.append((_kth(values, running, (total - 1) // 2) + _kth(values, running, total // 2)) / 2)
        p90.append(_kth(values, running, np.ceil((total - 1) * 0.9).astype(np.int64)))
        wf = w.astype(np.float64)
        means.append((wf @ sample.sums) / (wf @ count)[:, None])
    return Stats(median=np.concatenate(med), p90=np.concatenate(p90), means=np.concatenate(means))


def _kth(values: np.ndarray, running: np.ndarray, k: np.ndarray) -> np.ndarray:
    """The k-th smallest (0-based) of each resample: the first sorted value whose running count
    (`running`, one row per resample) passes k."""
    return values[(running <= k[:, None]).sum(axis=1)]


def median_se(sample: Sample, rng: np.random.Generator, resamples: int = RESAMPLES) -> np.ndarray:
    """Per run: the bootstrap standard error of its median step span over its own steps, relative
    to that median (NaN for a run of fewer than two steps)."""
    out = np.full(sample.runs, np.nan)
    for r in range(sample.runs):  # a loop over runs, each resampled at once
        sel = sample.run == r
        if sel.sum() < 2:
            continue
        one = Sample(run=np.zeros(int(sel.sum()), np.int64), span=sample.span[sel], sums=sample.sums[sel][:, :0],
                     count=sample.count[sel], runs=1)
        med = resample(one, rng, resamples).median
        centre = point(one).median
        out[r] = med.std(ddof=1) / centre if centre > 0 else np.nan
    return out


def run_medians(sample: Sample) -> np.ndarray:
    """The median step span of each run."""
    return np.array([order_stats(sample.span[sample.run == r].reshape(1, -1))[0][0] for r in range(sample.runs)])


def interval(x: np.ndarray, confidence: float = CONFIDENCE) -> list[float] | None:
    """The central percentile interval of x, None when it is not finite."""
    tail = 100 * (1 - confidence) / 2
    lo, hi = np.percentile(x, [tail, 100 - tail])
    return [float(lo), float(hi)] if np.isfinite(lo) and np.isfinite(hi) else None
