"""Per-step attribution: bucket times from interval unions, exposed time, idle, speedup bounds.

For every step (times in int64 ns):
  span    = last GPU op end - first GPU op start
  busy    = |union of all its GPU ops|           idle = span - busy
  time[b] = |union of bucket b's ops|
  exposed[b] = |time when bucket b runs and no other bucket does|
  overlap = busy - sum(exposed)  (time when two or more buckets run at once)
so that  sum(exposed) + overlap + idle == span  exactly, per step.

Removing bucket b can shorten the step by at most exposed[b] (overlapped time stays covered by the
other bucket; idle time is not b's), hence the bound span / (span - exposed[b]); making b k times
faster saves at most exposed[b] * (1 - 1/k).
"""
from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
from msgspec import UNSET

from . import collectives
from .classify import BUCKETS
from .intervals import group_sums, running_max
from .notes import Note, note
from .report import AllReduceCheck, Collectives, CollectiveSummary, KindAttribution, WhatIf
from .stats import p90, ratio_bound

if TYPE_CHECKING:  # step finding is needed only to analyze, not to merge results (a cached report)
    from .steps import Steps

GRAPH_BUCKET = "graph"  # whole-graph executions with no per-kernel rows: cannot be split
CHUNK_OPS = 500_000  # ops per run of whole steps (step_runs): bounds the unions' sorted copies
ALL_BUCKETS = tuple(BUCKETS) + (GRAPH_BUCKET,)

@dataclass
class Breakdown:
    """Per-step table plus communication detail.

    steps: one row per step: rank, index, name, kind, warmup, outlier, start_ns, end_ns, span_ns,
           busy_ns, idle_ns, overlap_ns, and for each bucket b: b_time_ns, b_exposed_ns, b_count.
    collectives: rank, step (index), collective, count, total_ns, mean_ns.
    """

    steps: pd.DataFrame
    collectives: pd.DataFrame
    buckets: tuple[str, ...]
    notes: list[Note] = field(default_factory=list)


def op_buckets(steps: Steps, kernel_buckets: pd.Series, memop_buckets: pd.Series) -> np.ndarray:
    """Bucket index (into ALL_BUCKETS) of every op in steps.ops."""
    ops = steps.ops
    codes = np.full(len(ops), ALL_BUCKETS.index("other"), np.int64)
    lut = {b: i for i, b in enumerate(ALL_BUCKETS)}
    for kind, series in (("kernel", kernel_buckets), ("memop", memop_buckets)):
        m = (ops["kind"] == kind).to_numpy()
        if m.any():
            cat = pd.Categorical(series)  # category codes, never one string per row
            to_all = np.array([lut[c] for c in cat.categories], np.int64)
            codes[m] = to_all[cat.codes[ops["src"].to_numpy()[m]]]
    codes[(ops["kind"] == "graph").to_numpy()] = lut[GRAPH_BUCKET]
    return codes


def breakdown(steps: Steps, bucket_codes: np.ndarray, comm_names: pd.Series | None = None,
              chunk_ops: int = CHUNK_OPS) -> Breakdown:
    """Attribute every step's span to buckets from interval unions (running maxima of sorted ends).

    comm_names: per kernel (aligned with the kernels table), the text collectives are recognized
    from (name, optionally with the op chain); a categorical keeps this one regex per distinct name.
    chunk_ops: ops per run of whole steps (step_runs; the figures do not depend on it).
    """
    tab = steps.table
    ops = steps.ops
    nb = len(ALL_BUCKETS)
    nsteps = len(tab)
    span = (tab["end_ns"] - tab["start_ns"]).to_numpy(np.int64)
    step = ops["step"].to_numpy(np.int64)
    runs = list(step_runs(step, nsteps, chunk_ops))
    busy, ((time, exposed),) = _unions(ops["start_ns"].to_numpy(np.int64), ops["end_ns"].to_numpy(np.int64),
                                       [(bucket_codes, nb)], step, tab["start_ns"].to_numpy(np.int64), span, runs)
    count = step_code_counts(step, bucket_codes, nb, nsteps, runs).reshape(nsteps, nb)
    del runs
    cols = {"span_ns": span, "busy_ns": busy, "idle_ns": span - busy, "overlap_ns": busy - exposed.sum(axis=1)}
    for j, name in enumerate(ALL_BUCKETS):
        cols.update({f"{name}_time_ns": time[:, j], f"{name}_exposed_ns": exposed[:, j], f"{name}_count": count[:, j]})
    # one frame of the new columns joined on: inserting 31 columns one at a time costs 10 ms
    tab = pd.concat([tab.drop(columns=list(cols), errors="ignore"), pd.DataFrame(cols, index=tab.index)], axis=1)
    notes: list[Note] = []
    present = tuple(bk for j, bk in enumerate(ALL_BUCKETS) if bk != GRAPH_BUCKET or count[:, j].any())
    if GRAPH_BUCKET in present:
        notes.append(note("graph_bucket"))
    colls = _collectives(steps, bucket_codes, comm_names)
    return Breakdown(steps=tab, collectives=colls, buckets=present, notes=notes)


def step_runs(step: np.ndarray, nsteps: int, chunk_ops: int = CHUNK_OPS) -> Iterator[tuple[int, int, np.ndarray]]:
    """(lo, hi, rows): runs of whole steps lo..hi-1 of about chunk_ops ops each, with the rows of
    their ops (ascending; ops with step < 0 in none). Steps lie apart, so each step's unions need
    only its own ops, and a run's sorted copies and segments stay small on a long trace."""
    m = step >= 0
    per_step = np.bincount(step[m], minlength=nsteps)
    total = int(per_step.sum())
    if total <= chunk_ops:
        yield 0, nsteps, np.flatnonzero(m)
        return
    bounds = np.unique(np.r_[0, np.searchsorted(np.cumsum(per_step), np.arange(chunk_ops, total, chunk_ops)), nsteps])
    # each op's run as a small key (ops outside steps after the last run), with no temporary of
    # int64 per op beyond one: numpy sorts 16-bit keys by radix, in linear time
    key = np.int16 if bounds.size < 2 ** 15 else np.int64
    run_of = np.repeat(np.arange(bounds.size - 1, dtype=key), np.diff(bounds))
    op_run = run_of[np.where(m, step, 0)]
    op_run[~m] = bounds.size - 1
    order = np.argsort(op_run, kind="stable")
    del op_run
    at = np.r_[0, np.cumsum(np.add.reduceat(per_step, bounds[:-1]))]  # where each run's rows begin
    for c in range(bounds.size - 1):
        yield int(bounds[c]), int(bounds[c + 1]), order[at[c]:at[c + 1]]


def category_unions_many(start_ns: np.ndarray, end_ns: np.ndarray, codings: list[tuple[np.ndarray, int]],
                         step: np.ndarray, step_start_ns: np.ndarray, step_span_ns: np.ndarray,
                         chunk_ops: int = CHUNK_OPS,
                         runs: list[tuple[int, int, np.ndarray]] | None = None) -> list[tuple[np.ndarray, np.ndarray]]:
    """Per coding (code, ncodes) of the same ops, per step and category (nsteps x ncodes, ns): the
    union of the category's ops and the time when it alone runs, for ops [start_ns, end_ns) of
    category `code` (0..ncodes-1) in step `step` (row into step_start_ns / step_span_ns; ops with
    step < 0 are left out). What breakdown does for buckets, for any grouping of ops (layers,
    modules); the ops are laid out and merged into the segments of their union once for all codings,
    about chunk_ops ops (whole steps) at a time (step_runs; `runs`: those already made)."""
    step = np.asarray(step, np.int64)
    runs = runs if runs is not None else step_runs(step, len(step_start_ns), chunk_ops)
    return _unions(start_ns, end_ns, codings, step, step_start_ns, step_span_ns, runs)[1]


def _unions(start_ns, end_ns, codings: list[tuple[np.ndarray, int]], step: np.ndarray, step_start_ns,
            step_span_ns, runs) -> tuple[np.ndarray, list[tuple[np.ndarray, np.ndarray]]]:
    """(busy ns per step, category_unions_many's (time, exposed) per coding), each run of `runs`
    (step_runs of `step`) laid end to end on a synthetic timeline (_segments_of): one pass per union
    serves all steps of a run exactly."""
    nsteps = len(step_start_ns)
    # converted once here, not once per run
    start_ns, end_ns = np.asarray(start_ns, np.int64), np.asarray(end_ns, np.int64)
    codings = [(np.asarray(code), ncodes) for code, ncodes in codings]
    busy = np.zeros(nsteps, np.int64)
    out = [(np.zeros((nsteps, n), np.int64), np.zeros((nsteps, n), np.int64)) for _, n in codings]
    for lo, hi, rows in runs:
        seg = _segments_of(start_ns, end_ns, rows, step, step_start_ns, step_span_ns, lo, hi)
        busy[lo:hi] = seg.busy
        for (time, exposed), (code, ncodes) in zip(out, codings):
            time[lo:hi], exposed[lo:hi] = seg.times(code[rows].astype(np.int64), ncodes)
    return busy, out


def step_code_counts(step: np.ndarray, code: np.ndarray, ncodes: int, nsteps: int,
                     runs: list[tuple[int, int, np.ndarray]]) -> np.ndarray:
    """Ops per step and code (step * ncodes + code, flat), for the ops of `runs` (step_runs of
    `step`); counted a run of whole steps at a time, so the keys of a long trace are never all made
    at once."""
    out = np.zeros(nsteps * ncodes, np.int64)
    for lo, hi, rows in runs:
        key = step[rows] - lo
        key *= ncodes
        key += code[rows]
        out[lo * ncodes:hi * ncodes] = np.bincount(key, minlength=(hi - lo) * ncodes)
    return out


def _segments_of(start_ns, end_ns, rows: np.ndarray, step: np.ndarray, step_start_ns, step_span_ns,
                 lo: int, hi: int) -> _Segments:
    """The ops `rows`, all in steps lo..hi-1, merged into the segments of their union (steps
    0..hi-lo-1): each step rebased to its own start, then offset past the steps before it."""
    sid = step[rows] - lo
    offset = np.zeros(hi - lo + 1, np.int64)
    offset[1:] = np.cumsum(np.asarray(step_span_ns, np.int64)[lo:hi] + 1)
    shift = (offset[:-1] - np.asarray(step_start_ns, np.int64)[lo:hi])[sid]
    return _Segments(start_ns[rows] + shift, end_ns[rows] + shift, sid, hi - lo)


def bucket_unions(s: np.ndarray, e: np.ndarray, b: np.ndarray, step: np.ndarray, nsteps: int,
                  nb: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Busy time per step (ns), and per step and bucket (nsteps x nb) the union of the bucket's
    intervals and the time when it alone runs, for the intervals [s, e) with bucket b (0..nb-1) of
    step `step`; steps lie apart (no interval of one step reaches an interval of another, as on the
    synthetic timeline of breakdown). An interval that ends before it starts is empty.

    One pass merges all intervals into the segments of their union (busy). A segment whose
    intervals are all of one bucket is that bucket's time and exposed time whole; only the
    segments where buckets meet (few, in traces: a step's kernels mostly run one after another)
    are swept bucket by bucket (_add_mixed). What breakdown makes of each run of steps, here for
    any intervals at once: the property tests hold the segments to the definition through it."""
    seg = _Segments(s, e, step, nsteps)
    return (seg.busy, *seg.times(b, nb))


class _Segments:
    """Intervals [s, e) of steps lying apart, sorted by start and merged into the segments of their
    union (busy ns per step); `times` then reads any grouping of the same intervals."""

    def __init__(self, s: np.ndarray, e: np.ndarray, step: np.ndarray, nsteps: int):
        self.nsteps = nsteps
        self.busy = np.zeros(nsteps, np.int64)
        self.order = None
        self.s = None
        if not s.size:
            return
        e = np.maximum(e, s)
        if (s[1:] < s[:-1]).any():
            self.order = np.argsort(s, kind="stable")
            s, e, step = s[self.order], e[self.order], step[self.order]
        self.s, self.e, self.step = s, e, step
        reach = np.maximum.accumulate(e)
        self.joins = s[1:] <= reach[:-1]  # an interval that starts within the reach of those before it
        self.first = np.flatnonzero(np.r_[True, ~self.joins])  # the first interval of each segment of the union
        self.seg_len = np.append(reach[self.first[1:] - 1], reach[-1]) - s[self.first]
        head = np.flatnonzero(np.r_[True, step[1:] != step[:-1]])  # (each also starts a segment)
        self.busy[step[head]] = _sums_from(self.seg_len, np.searchsorted(self.first, head))
        self.first_step = step[self.first]  # (read once per grouping)

    def times(self, b: np.ndarray, nb: int) -> tuple[np.ndarray, np.ndarray]:
        """Per step and group (nsteps x nb, ns): the union of the group's intervals and the time when
        it alone runs, for group b (0..nb-1, aligned with the intervals as given)."""
        nsteps = self.nsteps
        if self.s is None:
            return np.zeros((nsteps, nb), np.int64), np.zeros((nsteps, nb), np.int64)
        if self.order is not None:
            b = b[self.order]
        first, s, e, step = self.first, self.s, self.e, self.step
        # segments where an interval of another group joins
        meet = np.flatnonzero(self.joins & (b[1:] != b[:-1])) + 1
        mixed = np.zeros(first.size, bool)
        mixed[np.searchsorted(first, meet, "right") - 1] = True
        time = group_sums(self.first_step * nb + b[first], np.where(mixed, 0, self.seg_len), nsteps * nb).reshape(nsteps, nb)
        exposed = time.copy()
        if mixed.any():
            rows = np.flatnonzero(np.repeat(mixed, np.diff(np.r_[first, s.size])))
            _add_mixed(time, exposed, s[rows], e[rows], b[rows], step[rows])
        return time, exposed


def _add_mixed(time: np.ndarray, exposed: np.ndarray, s: np.ndarray, e: np.ndarray, b: np.ndarray,
               step: np.ndarray) -> None:
    """Adds bucket_unions' time and exposed time of intervals sorted by start, e >= s, into `time`
    and `exposed` (nsteps x nb, ns, C-contiguous; cells added one by one through a flat view: a
    second table as large as these for a few mixed segments would cost more than the sums): each
    bucket's union as disjoint segments (all buckets in one pass over the intervals, whatever
    their number), then one sorted sweep over every segment's bounds counts the buckets running
    (in place of a pass over all intervals per bucket for its union and another for the union of
    the others)."""
    nb = time.shape[1]
    # every bucket's union as disjoint segments in one pass: rows by bucket (stable: in time order
    # within each), a running reach per bucket; a segment lies in one step (steps lie apart)
    o = np.argsort(b, kind="stable")
    sb, eb, bb = s[o], e[o], b[o]
    new = np.r_[True, bb[1:] != bb[:-1]]
    reach = running_max(eb, np.cumsum(new) - 1)
    first = np.flatnonzero(new | np.r_[True, sb[1:] > reach[:-1]])
    ss, se, sj = sb[first], reach[np.r_[first[1:] - 1, sb.size - 1]], bb[first].astype(np.int64)
    step = step.astype(np.int64, copy=False)
    np.add.at(time.reshape(-1), step[o[first]] * nb + sj, se - ss)  # (a flat index: numpy's fast path)
    # the steps present and where each begins (steps follow each other in time)
    head = np.flatnonzero(np.r_[True, step[1:] != step[:-1]])
    present, step_start = step[head], s[head]
    # the segments' bounds, bucket by bucket and in time order within one, start and end
    # alternating; each running bucket adds nb + j to a running sum, so exactly one bucket runs
    # where the sum is in [nb, 2 nb)
    t = np.column_stack((ss, se)).ravel()
    ev_v = np.column_stack((nb + sj, -(nb + sj))).ravel()
    o = np.argsort(t, kind="stable")  # (bounds at one instant cut no time: any order among them would do)
    t = t[o]
    run = np.cumsum(ev_v[o])[:-1]  # the sum on [t[i], t[i+1])
    one = np.flatnonzero((run >= nb) & (run < 2 * nb))
    piece_step = np.repeat(present, np.diff(np.r_[np.searchsorted(t, step_start), t.size]))
    np.add.at(exposed.reshape(-1), piece_step[one] * nb + run[one] - nb, t[one + 1] - t[one])


def _sums_from(v: np.ndarray, at: np.ndarray) -> np.ndarray:
    """Sums of v[at[k]:at[k+1]] (the last to the end), at ascending."""
    total = np.zeros(v.size + 1, np.int64)
    np.cumsum(v, out=total[1:])
    return np.diff(total[np.r_[at, v.size]])


def _collectives(steps: Steps, bucket_codes: np.ndarray, comm_names: pd.Series | None) -> pd.DataFrame:
    cols = ["rank", "step", "collective", "count", "total_ns", "mean_ns"]
    ops = steps.ops
    comm = ALL_BUCKETS.index("communication")
    sel = np.flatnonzero((ops["step"].to_numpy() >= 0) & (bucket_codes == comm))
    if not sel.size or comm_names is None:
        return pd.DataFrame(columns=cols)
    o = ops.iloc[sel]
    names = pd.Categorical(comm_names)
    kind_of_cat = collective_kind(pd.Series(names.categories.astype(str)))
    kinds = kind_of_cat[names.codes[o["src"].to_numpy()]]
    df = pd.DataFrame({"step": o["step"].to_numpy(), "collective": kinds,
                       "dur": (o["end_ns"] - o["start_ns"]).to_numpy()})
    g = df.groupby(["step", "collective"]).agg(count=("dur", "size"), total_ns=("dur", "sum")).reset_index()
    g["mean_ns"] = g["total_ns"] / g["count"]
    g["rank"] = steps.table["rank"].to_numpy()[g["step"].to_numpy()]
    g["step"] = steps.table["index"].to_numpy()[g["step"].to_numpy()]
    return g[cols]


def collective_kind(names: pd.Series) -> np.ndarray:
    """Collective of each communication kernel from its name (and op chain where joined in); the
    kinds and their regexes are data: rules/collectives.toml."""
    return collectives.kind_of(names)


# --- bounds and summaries -----------------------------------------------------------------------

def bound_if_removed(span: np.ndarray, exposed: np.ndarray) -> np.ndarray:
    """Upper bound on the speedup from removing a bucket: span / (span - exposed)."""
    return ratio_bound(span, np.asarray(span, np.float64) - np.asarray(exposed, np.float64))


def bound_if_faster(span: np.ndarray, exposed: np.ndarray, k: float) -> np.ndarray:
    """Upper bound on the speedup from making a bucket k times faster."""
    return ratio_bound(span, np.asarray(span, np.float64) - np.asarray(exposed, np.float64) * (1.0 - 1.0 / k))


def section(all_k: pd.DataFrame, k: pd.DataFrame, buckets: tuple[str, ...],
            what_if: dict[str, float] | None = None) -> KindAttribution:
    """A kind's steps by bucket: `all_k` every step of the kind, `k` the summarized ones (steady:
    stats.kind_steps). Shares are ratios of sums over `k` (time / span); bounds are the median and
    p90 of the per-step bounds."""
    span = k["span_ns"].to_numpy(np.float64)
    tot = span.sum()
    per: dict[str, dict[str, float]] = {key: {} for key in (
        "mean_time_ns", "mean_exposed_ns", "mean_count", "bucket_share", "exposed_share", "median_time_ns",
        "median_exposed_ns", "median_count", "speedup_bound_if_removed", "speedup_bound_if_removed_p90")}
    for bk in buckets:
        t = k[f"{bk}_time_ns"].to_numpy(np.float64)
        x = k[f"{bk}_exposed_ns"].to_numpy(np.float64)
        per["bucket_share"][bk] = float(t.sum() / tot) if tot else 0.0
        per["exposed_share"][bk] = float(x.sum() / tot) if tot else 0.0
        per["median_time_ns"][bk] = float(np.median(t))
        per["median_exposed_ns"][bk] = float(np.median(x))
        per["median_count"][bk] = float(np.median(k[f"{bk}_count"]))
        per["mean_time_ns"][bk] = float(t.mean())
        per["mean_exposed_ns"][bk] = float(x.mean())
        per["mean_count"][bk] = float(k[f"{bk}_count"].mean())
        bound = bound_if_removed(span, x)
        per["speedup_bound_if_removed"][bk] = float(np.median(bound))
        per["speedup_bound_if_removed_p90"][bk] = p90(bound)
    ifs: dict[str, WhatIf] = {}
    for bk, factor in (what_if or {}).items():
        x = k[f"{bk}_exposed_ns"].to_numpy(np.float64) if f"{bk}_exposed_ns" in k else np.zeros(len(k))
        v = bound_if_faster(span, x, factor)
        ifs[f"{bk}={factor:g}"] = WhatIf(bucket=bk, factor=factor, speedup_bound=float(np.median(v)),
                                         speedup_bound_p90=p90(v))
    return KindAttribution(
        steps=int(len(all_k)), warmup_steps=int(all_k["warmup"].sum()), outlier_steps=int(all_k["outlier"].sum()),
        summarized_steps=int(len(k)), median_span_ns=float(np.median(span)), p90_span_ns=p90(span),
        mean_span_ns=float(span.mean()), median_busy_ns=float(k["busy_ns"].median()),
        median_idle_ns=float(k["idle_ns"].median()),
        # means per step add up exactly: sum(mean_exposed) + mean_overlap + mean_idle = mean_span
        mean_idle_ns=float(k["idle_ns"].mean()), mean_overlap_ns=float(k["overlap_ns"].mean()),
        mean_time_ns=per["mean_time_ns"], mean_exposed_ns=per["mean_exposed_ns"], mean_count=per["mean_count"],
        idle_share=float(k["idle_ns"].sum() / tot) if tot else 0.0,
        overlap_share=float(k["overlap_ns"].sum() / tot) if tot else 0.0,
        bucket_share=per["bucket_share"], exposed_share=per["exposed_share"], median_time_ns=per["median_time_ns"],
        median_exposed_ns=per["median_exposed_ns"], median_count=per["median_count"],
        speedup_bound_if_removed=per["speedup_bound_if_removed"],
        speedup_bound_if_removed_p90=per["speedup_bound_if_removed_p90"],
        what_if=ifs if what_if else UNSET)


def collective_counts(colls: pd.DataFrame, k: pd.DataFrame, layers: int | None = None) -> Collectives:
    """The collectives of the summarized steps `k` (rows of `colls`, the per-step collectives):
    calls per step (median over steps, 0 for a step without), mean call, time per step; with
    `layers`, the check of tensor parallelism's two all-reduces per layer."""
    c = colls
    out: dict[str, CollectiveSummary] = {}
    if len(c):  # only the steps summarized
        c = c.merge(k[["rank", "index"]].rename(columns={"index": "step"}), on=["rank", "step"])
    nsteps = max(len(k), 1)
    for coll, g in c.groupby("collective") if len(c) else []:
        per_step = g.groupby(["rank", "step"])["count"].sum()
        out[coll] = CollectiveSummary(
            per_step=float(per_step.reindex(pd.MultiIndex.from_arrays([k["rank"], k["index"]]), fill_value=0).median()),
            mean_ns=float(g["total_ns"].sum() / g["count"].sum()), total_per_step_ns=float(g["total_ns"].sum() / nsteps))
    check = None
    if layers:
        got = out["all_reduce"].per_step if "all_reduce" in out else 0.0
        check = AllReduceCheck(expected_all_reduce_per_step=2 * layers, all_reduce_difference=float(got - 2 * layers))
    return Collectives(by_collective=out, layers=check)
