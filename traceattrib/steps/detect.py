"""Steps from the kernel stream alone, at the level of the whole model.

Per rank, kernels in start order. A kernel that runs once per forward pass (the embedding lookup,
the lm_head GEMM, sampling) recurs at a regular distance (in kernels) that is the model's period;
per-layer kernels recur at a smaller distance. Candidate periods are the modal distances of names
that recur regularly (at least MIN_REGULAR of their gaps equal the mode), tried from the largest:
the anchor is the name with that period that occurs most. One step per anchor occurrence; between
two occurrences the boundary is the widest GPU idle gap (the host samples, schedules and prepares
the next iteration there), which also absorbs a prefill with a different kernel count.

A period is a forward when it splits the stream into at least MIN_COUNT steps, each holding every
layer (3 in 4 of its attention kernels run twice or more: a layer, or a group of a hybrid model's
layers, does not), and the steps do not look like the layer groups of one forward (names that run
once in the whole stream, the embedding before the first layer and the lm_head after the last, sit
in the first and last step only while the boundaries have no GPU gap that stands out). Of the
periods that pass, the smallest is the forward: a larger one is a rhythm of several forwards (a
prefill every 25 decode steps). Without attention kernels to count layers, the largest that
passes. `ratio` (median boundary gap over the median of each step's widest inner gap) says how
clearly the boundaries stand out: the chooser lets detection overrule other evidence only when it
is at least DISTINCT.

`detection` makes one Candidate of these steps (ops assigned by their GPU start) and keeps each
rank's anchors, which check every other candidate (chooser.py). It reads only the GPU-op table and
the attention mask. All times int64 ns; positions are indices into the rank's kernels sorted by start.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..gpuops import rank_rows
from ..notes import note
from .arrays import bin_of, pair_counts
from .candidate import WINDOW_COLUMNS, Candidate

MIN_COUNT = 3        # occurrences a name needs to define a period
MIN_REGULAR = 0.6    # share of its gaps equal to the modal gap
DISTINCT = 1.5       # boundary gap / widest inner gap (medians over steps): boundaries stand out
CLEAR = 3.0          # ... stand out clearly (a host sync and scheduling between forwards)
MAX_TRIES = 8        # candidate periods tried, largest first


@dataclass(frozen=True)
class Detection:
    """One rank's detected steps: kernel positions where steps start (`starts`) and end (`stops`,
    exclusive), the anchor name code and its positions, the period in kernels, and why."""

    starts: np.ndarray
    stops: np.ndarray
    anchor_code: int
    anchor_pos: np.ndarray
    period: int
    ratio: float  # boundary gap / inner gap (medians)


@dataclass(frozen=True)
class Detected:
    """Detection over every rank: its candidate (None when no rank has steps) and, per rank, its
    Detection with `anchor_pos` as rows of the GPU-op table."""

    candidate: Candidate | None
    ranks: dict[int, Detection]


def detection(ops: pd.DataFrame, attention: np.ndarray | None) -> Detected:
    """Steps from each rank's kernel stream; ops are assigned by their GPU start: every op of the
    rank from one step's first kernel to the next step's belongs to it. ops: the GPU-op table
    (gpuops.gpu_ops); attention: per op, True for attention kernels (None: not classified)."""
    step = np.full(len(ops), -1, np.int64)
    cols: list[dict] = []
    found: dict[int, Detection] = {}
    kern = (ops["kind"] == "kernel").to_numpy()
    start, end = ops["start_ns"].to_numpy(np.int64), ops["end_ns"].to_numpy(np.int64)
    first = 0
    for rank, idx in rank_rows(ops):
        ki = idx[kern[idx]]
        if not (start[ki][1:] >= start[ki][:-1]).all():
            ki = ki[np.argsort(start[ki], kind="stable")]
        st, en = start[ki], end[ki]
        det = split(ops["name_code"].to_numpy()[ki], st, en, None if attention is None else attention[ki])
        if det is None:
            continue
        found[int(rank)] = dataclasses.replace(det, anchor_pos=ki[det.anchor_pos])  # positions -> op rows
        t0 = st[det.starts]
        _, t1 = seg_argmax(en, det.starts, det.stops)
        cols.append({"rank": np.full(t0.size, rank), "name": np.array([f"detected_{j}" for j in range(t0.size)], object),
                     "pid": np.full(t0.size, int(ops["pid"].to_numpy()[ki[0]]), np.int64),
                     "cpu_start_ns": t0, "cpu_end_ns": t1, "gpu_side": np.ones(t0.size, bool)})
        q = start[idx]
        j = bin_of(t0, q)
        ok = (j >= 0) & ((j < t0.size - 1) | (q < t1[-1]))
        step[idx[ok]] = first + j[ok]
        first += t0.size
    if not cols:
        return Detected(None, found)
    tab = pd.DataFrame({c: np.concatenate([d[c] for d in cols]) for c in WINDOW_COLUMNS})
    tab["own_start_ns"], tab["own_end_ns"] = tab["cpu_start_ns"], tab["cpu_end_ns"]
    return Detected(Candidate("detected", note("label.detected"), tab, step), found)


def regular_names(codes: np.ndarray, modes: int = 1) -> pd.DataFrame:
    """Names that recur regularly: code, period (modal gap in positions), share, count; largest period
    first. modes=2: a name's two most common gaps count together when within a factor of 2 of each
    other and each seen twice or more (a period that changed as the batch did: a request joined),
    the period the larger."""
    return _regular(_gap_counts(codes), modes)


def _gap_counts(codes: np.ndarray) -> pd.DataFrame | None:
    """How often each name recurs at each distance (code, gap, k, tot: the name's gaps), sorted by
    code, then count and gap descending; None when no name recurs."""
    if codes.size < 2:
        return None
    # positions by code, in order within each code: a stable sort (radix for 16-bit codes)
    small = codes.astype(np.int16) if -2 ** 15 <= codes.min() and codes.max() < 2 ** 15 else codes
    pp = np.argsort(small, kind="stable")
    nc = codes[pp]
    same = nc[1:] == nc[:-1]
    if not same.any():
        return None
    per = pair_counts(nc[1:][same], np.diff(pp)[same], ("code", "gap", "k"))
    tot = per.groupby("code")["k"].transform("sum")
    return per.assign(tot=tot).sort_values(["code", "k", "gap"], ascending=[True, False, False])


def _regular(per: pd.DataFrame | None, modes: int) -> pd.DataFrame:
    """regular_names from _gap_counts' table."""
    if per is None:
        return pd.DataFrame(columns=["code", "period", "share", "count"])
    first = ~per["code"].duplicated()
    best = per[first]
    k, gap = best["k"].to_numpy(), best["gap"].to_numpy()
    if modes == 2:
        second = per[~first].drop_duplicates("code").set_index("code").reindex(best["code"].to_numpy())
        g2, k2 = second["gap"].to_numpy(), second["k"].fillna(0).to_numpy(np.int64)
        # two regimes, each seen twice or more (one odd gap is noise, not a forward that grew);
        # NaN (no second gap) is never near
        near = (g2 <= 2 * gap) & (gap <= 2 * g2) & (k2 >= 2)
        k, gap = np.where(near, k + k2, k), np.where(near, np.fmax(gap, g2), gap).astype(np.int64)
    out = pd.DataFrame({"code": best["code"].to_numpy(), "period": gap,
                        "share": k / best["tot"].to_numpy(), "count": best["tot"].to_numpy() + 1})
    out = out[(out["count"] >= MIN_COUNT) & (out["share"] >= MIN_REGULAR)]
    return out.sort_values(["period", "share", "count"], ascending=[False, False, False], ignore_index=True)


def idle_before(start: np.ndarray, end: np.ndarray) -> np.ndarray:
    """GPU idle time before each kernel (start minus the latest end of all earlier kernels), ns."""
    if not start.size:
        return start
    run = np.maximum.accumulate(end)
    return np.r_[0, np.maximum(start[1:] - run[:-1], 0)]


def seg_argmax(values: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per segment [lo, hi) (non-empty, disjoint, in order): position and value of the maximum
    (the first on ties). O(hi[-1] - lo[0]), no sort."""
    base = int(lo[0])
    v = values[base:int(hi[-1])]
    # reduce over the pieces [lo_0, hi_0), [hi_0, lo_1), [lo_1, hi_1), ...: the segments' maxima
    # are the even ones; a hit in a piece between segments lies before the next segment's start
    bounds = np.c_[lo, hi].ravel()[:-1] - base
    mx = np.maximum.reduceat(v, bounds)
    hit = np.flatnonzero(v == np.repeat(mx, np.diff(np.r_[bounds, v.size])))
    pos = hit[np.searchsorted(hit, lo - base)] + base
    return pos, values[pos]


def split(codes: np.ndarray, start: np.ndarray, end: np.ndarray,
          attention: np.ndarray | None = None) -> Detection | None:
    """Detect steps in one rank's kernel stream (codes/start/end sorted by start), or None.

    attention: per kernel, True for attention kernels (None: unknown). With attention kernels the
    smallest period whose steps hold every layer is the forward (larger ones are rhythms of several
    forwards, e.g. a prefill every 25 steps); without, the largest period that passes."""
    n = codes.size
    if n < 2 * MIN_COUNT:
        return None
    gap = idle_before(start, end)
    once = np.flatnonzero(np.bincount(codes - codes.min(), minlength=1)[codes - codes.min()] == 1)
    layered = attention is not None and attention.any()
    per = _gap_counts(codes)
    reg = _regular(per, 1)
    found = _periods(reg, codes, gap, once, attention if layered else None)
    if layered and (not found or max(d.ratio for d in found) < DISTINCT):
        # a forward whose kernel count changed mid-trace (a request joined): its anchors recur at two
        # periods, and a period of one regime's layers may pass with boundaries that do not stand out;
        # only where attention kernels show every step holds every layer (a CNN's convolutions at
        # two distances are no forwards)
        two = _regular(per, 2)
        more = _periods(two[~two["code"].isin(reg["code"])], codes, gap, once, attention)
        more = [d for d in more if d.ratio >= DISTINCT] if found else more
        found = more or found
    if not found:
        return None
    return found[-1] if layered else found[0]


def _periods(reg: pd.DataFrame, codes: np.ndarray, gap: np.ndarray, once: np.ndarray,
             attention: np.ndarray | None) -> list[Detection]:
    """The detections the candidate periods of `reg` make, largest period first (with attention
    kernels every period that passes, else the first)."""
    n, found = codes.size, []
    for period in reg["period"].drop_duplicates()[:MAX_TRIES]:
        if period < 2:
            break
        anchor = int(reg.loc[reg["period"] == period, "code"].iloc[0])
        a = np.flatnonzero(codes == anchor)
        det = _split_at(a, gap, n)
        if det is None:
            continue
        starts, stops, ratio = det
        if starts.size < MIN_COUNT:
            continue
        if ratio < DISTINCT and _edges_only(once, starts):
            continue  # layer groups of a single forward
        if attention is not None and not _every_layer(starts, codes, attention):
            continue
        found.append(Detection(starts, stops, anchor, a, int(period), float(ratio)))
        if attention is None:
            break
    return found


def _every_layer(starts: np.ndarray, codes: np.ndarray, attention: np.ndarray) -> bool:
    """True when the median step runs at least 3 in 4 of its attention kernels twice or more: a
    step holds every layer (a layer, or a group of a hybrid model's layers, does not)."""
    pos = np.flatnonzero(attention)
    unit = np.searchsorted(starts, pos, side="right") - 1
    ok = unit >= 0
    calls = pair_counts(unit[ok], codes[pos][ok], ("u", "c", "n"))
    # per step, the share of its attention kernels called twice or more (0 without any)
    u = calls["u"].to_numpy()
    names = np.bincount(u, minlength=starts.size)
    share = np.bincount(u, weights=calls["n"].to_numpy() >= 2, minlength=starts.size) / np.maximum(names, 1)
    return float(np.median(share)) >= 0.75


def _mode(x: np.ndarray) -> int:
    """Most common value (the smallest on ties)."""
    u, c = np.unique(x, return_counts=True)
    return int(u[np.argmax(c)])


def _edges_only(once: np.ndarray, starts: np.ndarray) -> bool:
    """True when the kernels that run once in the stream lie in the first and last step only."""
    if not once.size or starts.size < 3:
        return False
    # (kernels before the first step, another phase left out, count as the first step's)
    unit = set(np.unique(np.maximum(np.searchsorted(starts, once, side="right") - 1, 0)).tolist())
    return {0, starts.size - 1} <= unit and not (unit - {0, starts.size - 1})


def _split_at(a: np.ndarray, gap: np.ndarray, n: int):
    """Steps around anchor positions `a`: (starts, stops, boundary/inner gap ratio) or None.

    Between consecutive anchors the boundary is the widest idle gap before a kernel in
    (a_i, a_i+1]; where the anchors are one period apart (identical forwards) it is put at the
    offset after the anchor most of them chose, so a stray host hiccup inside one forward does not
    move its boundary. When those gaps do not clearly stand out (ratio < CLEAR) and the trace's
    end (a profiled loop ends with a whole forward) puts the boundary elsewhere, the end wins: the
    kernels after the last anchor are the tail every forward has after its anchor. More than two
    periods of kernels (periods counted in kernels) after the last anchor or before the first are
    another phase of the program: the last (first) step ends (begins) where the pattern's boundary
    would be, and they are in none."""
    if a.size < MIN_COUNT:
        return None
    bpos, _ = seg_argmax(gap, a[:-1] + 1, a[1:] + 1)
    d = np.diff(a)
    period = _mode(d)
    regular = d == period
    if regular.sum() >= 2:
        bpos[regular] = a[:-1][regular] + _mode((bpos - a[:-1])[regular])
    ratio = _ratio(gap, bpos, a, n)
    tail = n - a[-1]
    o_gap = _mode(bpos[regular] - a[:-1][regular])  # (period is the modal gap: some gaps are regular)
    first, last, offset = 0, n, o_gap  # offset: of the boundaries after their anchors, in kernels
    if ratio < CLEAR and 1 <= tail <= d.min() and abs(tail - o_gap) > 0.1 * period:
        bpos = a[:-1] + tail
        offset = tail
    elif ratio >= CLEAR:
        # a profile that starts or ends inside a forward: cut at a gap like the boundaries
        typical = float(np.median(gap[bpos]))
        p0, g0 = seg_argmax(gap, np.array([0]), np.array([a[0] + 1]))
        if a[0] > 0 and g0[0] >= 0.5 * typical > 0:
            first = int(p0[0])
        if tail > 1:
            p1, g1 = seg_argmax(gap, np.array([a[-1] + 1]), np.array([min(n, a[-1] + 1 + period)]))
            if g1[0] >= 0.5 * typical > 0:
                last = int(p1[0])
    # more than two periods of kernels after the last anchor (or before the first): another phase
    # of the program, not part of a step; the step ends (begins) where the pattern's next
    # (previous) boundary would be, and those kernels are in no step. A boundary found at a gap
    # after the last anchor stands; one found before the first may lie inside the other phase.
    if last == n and tail - 1 > 2 * period:
        last = int(a[-1] + offset)
    if a[0] > 2 * period:
        first = max(first, int(a[0] + offset - period))
    starts, stops = np.r_[first, bpos], np.r_[bpos, last]
    keep = stops > starts
    return starts[keep], stops[keep], ratio


def _ratio(gap: np.ndarray, bpos: np.ndarray, a: np.ndarray, n: int) -> float:
    """Median boundary gap over the median of each step's widest inner gap (its first kernel excluded)."""
    starts, stops = np.r_[0, bpos], np.r_[bpos, n]
    has = stops - starts > 1
    inner = np.zeros(starts.size)
    if has.any():
        _, v = seg_argmax(gap, starts[has] + 1, stops[has])
        inner[has] = v
    typical = float(np.median(gap[bpos])) if bpos.size else 0.0
    inner_med = float(np.median(inner)) if inner.size else 0.0
    return typical / inner_med if inner_med > 0 else (np.inf if typical > 0 else 0.0)
