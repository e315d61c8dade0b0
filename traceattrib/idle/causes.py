"""Every step's idle time split into causes: a `Plan` finds the gaps and groups the CPU tables,
its `jobs` sweep each launching thread's gap windows (pieces of cause, name and ns), `take` sums
each job's pieces per step and gap as it ends, and `finish` adds the synchronizing calls and names
the top ones. `explain` runs the jobs one after another; a caller with a second thread may run the
two parts of a job beside each other (the pieces are the same). Times are int64 ns."""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial

import numpy as np
import pandas as pd

from ..intervals import group_sums
from ..notes import Note
from . import gaps as gaps_
from . import labels, sweep
from .codes import CAUSE_COLUMNS, CAUSES, GAP_COLUMNS, HOST, LABEL_COLUMNS, LAUNCH, QUEUED_COLUMN, SYNC, UNEXPLAINED
from .rules import IdleRules, load_rules
from .summary import explain_notes
from .threads import Threads, thread_codes

# a thread's gap windows are swept in parts, two at a time, which a caller may run beside each other,
# only where each part gets at least this many (below that a second thread costs more than it
# saves); each part's sweep takes the calls around its own windows only, so the pieces are the same
MIN_PART_WINDOWS = 1 << 15
# at most this many windows per part: a job's pieces are summed into the plan as it ends, so a long
# trace holds one job's sweeps at a time, and of the pieces before only the named host and sync ones
PART_WINDOWS = 1 << 18


@dataclass
class IdleCauses:
    """Idle causes per step.

    causes: one row per step, aligned with the steps table's rows: idle_launch_ns, idle_sync_ns,
            idle_host_ns, idle_unexplained_ns (summing to the step's idle_ns) and
            idle_launch_queued_ns (the part of launch with the next op already submitted).
    labels: what the CPU did during host and sync idle: rank, step (the step's index on its
            rank), cause ('host' | 'sync'), source ('range' | 'python' | 'cpu_op' | 'osrt' |
            'sample' | 'call' | 'none'), what (a name), ns; at most TOP_LABELS names per step and cause, the
            rest summed as '(other)'.
    gaps:   (a property; `gaps_of(rows)` those of some steps only, without building every gap's
            row) every gap (GAP_COLUMNS), by step row and start: step (row of the steps table),
            start_ns, end_ns, its time per cause (launch_ns, sync_ns, host_ns, unexplained_ns: they
            sum to the gap's length, and over a step's gaps to the step's idle causes), queued (the
            next op was submitted before the gap began: all of it is launch), cause (the largest
            part, the first of CAUSES on ties), what / source (the name of the largest named part
            of its host and sync time, "" none).
    """

    causes: pd.DataFrame
    labels: pd.DataFrame
    notes: list[Note] = field(default_factory=list)
    gaps_of: Callable[[np.ndarray | None], pd.DataFrame] = field(default=lambda rows=None: empty_gaps(), repr=False)

    @property
    def gaps(self) -> pd.DataFrame:
        return self.gaps_of(None)


@dataclass(frozen=True)
class Sweep:
    """One sweep of a launching thread's gap windows: thread t, windows sel[lo:hi] of the plan's
    gaps (sel: the thread's windows, sorted by start)."""

    t: int
    sel: np.ndarray
    lo: int
    hi: int


@dataclass
class Pieces:
    """A sweep's windows cut by the thread's state: per piece, its window (index into the
    thread's windows), cause, packed label and ns."""

    qi: np.ndarray
    cause: np.ndarray
    label: np.ndarray
    ns: np.ndarray


def explain(ops: pd.DataFrame, table: pd.DataFrame, launches: pd.DataFrame, cpu_ops: pd.DataFrame,
            ranges: pd.DataFrame, rules: IdleRules | None = None) -> IdleCauses:
    """Split every step's idle time into causes (the jobs one after another).

    ops: steps.Steps.ops (start_ns, end_ns, rank, pid, correlation, kind, step); table: the
    steps table (rank, index, start_ns, cpu_start_ns, cpu_end_ns); launches, cpu_ops, ranges: the
    trace's tables (model.py).
    """
    plan = Plan(ops, table, launches, cpu_ops, ranges, rules)
    for job in plan.jobs:
        plan.take(job, tuple(plan.run(s) for s in job))
    return plan.finish()


class Plan:
    """One split of idle time into causes, prepared: the gaps of every step, the CPU tables by
    thread, and `jobs`: per launching thread one sweep, or its windows in parts, two to a job, that
    may run at once (`run` only reads what the plan holds). Each job's pieces go to `take` as it
    ends, in `jobs` order; `finish` then adds the synchronizing calls and makes the tables."""

    def __init__(self, ops: pd.DataFrame, table: pd.DataFrame, launches: pd.DataFrame, cpu_ops: pd.DataFrame,
                 ranges: pd.DataFrame, rules: IdleRules | None = None):
        self.rules = rules or load_rules()
        self.table = table
        self.has_launches = bool(len(launches))
        nsteps = len(table)
        self.sums = np.zeros((nsteps, len(CAUSES)), np.int64)
        self.queued = np.zeros(nsteps, np.int64)
        self.jobs: list[tuple[Sweep, ...]] = []
        self.gaps: gaps_.Gaps | None = None
        self.gap_sums = np.zeros((0, len(CAUSES)), np.int64)  # per gap of `gaps` (not queued), ns per cause
        self.threads: Threads | None = None
        # per launching thread its windows (sorted by start); the named pieces of host and sync time
        # taken so far, as (step, cause, label, ns) and (gap, label, ns): the labels and gap tables
        # sort and sum them on their whole keys, so the order they come in does not matter
        self.sel: dict[int, np.ndarray] = {}
        self.label_parts: list[tuple[np.ndarray, ...]] = []
        self.gap_labels: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
        step_all = ops["step"].to_numpy(np.int64) if len(ops) else np.zeros(0, np.int64)
        n_in_step = int(np.count_nonzero(step_all >= 0))
        if not (nsteps and n_in_step):
            return
        # gpuops.gpu_ops made this join already; the same join for ops built elsewhere
        if "launch_row" in ops.columns:
            lrow = ops["launch_row"].to_numpy(np.int64)
        else:
            from ..gpuops import launch_rows
            lrow = launch_rows(ops, launches)
        tcode, threads = thread_codes(launches)
        sync = sweep.sync_calls(launches, ops, lrow, self.rules)
        g = self.gaps = gaps_.find(ops, table, lrow, launches["end_ns"].to_numpy(np.int64), tcode, n_in_step)
        self.sums[:, LAUNCH] += g.queued
        self.queued = g.queued
        none = g.thread < 0
        add(self.sums, g.step[none], UNEXPLAINED, g.b[none] - g.a[none])
        # latency after the launch call; its part inside synchronizing calls is moved to `sync` in
        # finish (a runtime may hold submitted work back until then: HIP's hipMemcpyWithStream)
        add(self.sums, g.step, LAUNCH, g.g1 - g.b)
        self.gap_sums = np.zeros((g.a.size, len(CAUSES)), np.int64)
        self.gap_sums[none, UNEXPLAINED] = (g.b - g.a)[none]
        self.gap_sums[:, LAUNCH] = g.g1 - g.b
        self.threads = Threads(launches, cpu_ops, ranges, table, tcode, threads, sync, self.rules)
        for t in np.flatnonzero(np.bincount(g.thread[~none])):
            sel = np.flatnonzero(g.thread == t)
            sel = sel[np.argsort(g.a[sel], kind="stable")]  # sorted searches run faster
            self.threads.calls(int(t))  # made here: parts run at once only read it
            self.sel[int(t)] = sel
            n = sel.size
            parts = 1 if n < 2 * MIN_PART_WINDOWS else max(2, -(-n // PART_WINDOWS))
            parts += parts % 2 if parts > 1 else 0  # whole pairs: every job has two to run at once
            bounds = [n * k // parts for k in range(parts + 1)]
            sweeps = [Sweep(int(t), sel, lo, hi) for lo, hi in zip(bounds[:-1], bounds[1:])]
            self.jobs += [tuple(sweeps[k:k + 2]) for k in range(0, len(sweeps), 2)]

    def run(self, s: Sweep) -> Pieces:
        """The pieces of one sweep (window indices among its thread's windows)."""
        w = s.sel[s.lo:s.hi]
        qi, cause, label, ns = pieces(self.threads, s.t, self.gaps.a[w], self.gaps.b[w], self.rules)
        return Pieces(qi + s.lo, cause, label, ns)

    def take(self, job: tuple[Sweep, ...], got: tuple[Pieces, ...]) -> None:
        """Sums the pieces of one job (one per sweep of `job`) into the plan."""
        for s, p in zip(job, got):
            self._fold(s.t, p.qi, p.cause, p.label, p.ns)

    def _fold(self, t: int, qi: np.ndarray, cause, label: np.ndarray, length: np.ndarray,
              moved_from: int | None = None) -> None:
        """Pieces of thread t's windows qi: their ns per step and gap and cause (taken from cause
        `moved_from`, when given); the named ones kept."""
        gap = self.sel[t][qi]
        st_ = self.gaps.step[gap]
        add(self.sums, st_, cause, length)
        add(self.gap_sums, gap, cause, length)
        if moved_from is not None:
            add(self.sums, st_, moved_from, -length)
            add(self.gap_sums, gap, moved_from, -length)
        lab = (cause == HOST) | (cause == SYNC)
        self.label_parts.append((st_[lab], cause[lab], label[lab], length[lab]))
        self.gap_labels.append((gap[lab], label[lab], length[lab]))

    def finish(self) -> IdleCauses:
        """The causes and labels, once every job's pieces are taken: each thread's time in
        synchronizing calls after a launch moves from launch to sync."""
        for t, sel in self.sel.items():
            qi, label, length = sweep.sync_pieces(self.threads, t, self.gaps.b[sel], self.gaps.g1[sel])
            self._fold(t, qi, np.full(qi.size, SYNC), label, length, moved_from=LAUNCH)
        if self.threads is not None:
            labels_tab = labels.table(self.label_parts, self.table, self.threads)
        else:
            labels_tab = pd.DataFrame(columns=LABEL_COLUMNS)
        causes = pd.DataFrame({c: self.sums[:, i] for i, c in enumerate(CAUSE_COLUMNS)})
        causes[QUEUED_COLUMN] = self.queued
        notes = explain_notes(causes, labels_tab, self.has_launches) if self.threads is not None else []
        return IdleCauses(causes=causes, labels=labels_tab, notes=notes, gaps_of=partial(self.gap_table, self.gap_labels))

    def gap_table(self, gap_labels: list[tuple[np.ndarray, np.ndarray, np.ndarray]],
                  rows: np.ndarray | None = None) -> pd.DataFrame:
        """The gaps (IdleCauses.gaps) of the steps `rows` (None: all) from the gaps, their sums per
        cause and the named pieces of their host and sync time (gap index, packed label, ns)."""
        g = self.gaps
        if g is None:
            return empty_gaps()
        n, m = g.a.size, g.qa.size
        step = np.r_[g.step, g.qstep].astype(np.int64)
        # a report shows the gaps of a few steps: only their rows are built (a row per gap of a
        # million-kernel trace costs 0.3 s)
        mine = np.flatnonzero(np.isin(step, rows)) if rows is not None else np.arange(n + m)
        sums = np.zeros((mine.size, len(CAUSES)), np.int64)
        ours = mine < n
        sums[ours] = self.gap_sums[mine[ours]]
        sums[~ours, LAUNCH] = (g.qb - g.qa)[mine[~ours] - n]
        step = step[mine]
        start, end = np.r_[g.a, g.qa][mine].astype(np.int64), np.r_[g.g1, g.qb][mine].astype(np.int64)
        what = np.full(n + m, -1, np.int64)  # index into the names below, -1 none
        names, sources = [], []
        if gap_labels:
            gi, lab, ns = (np.concatenate(x) for x in zip(*gap_labels))
            keep = ns > 0
            gi, lab, ns = gi[keep], lab[keep], ns[keep]
            if gi.size:
                # per (gap, label) the time, then per gap the label with the most (ties: the lower label)
                o = np.lexsort((lab, gi))
                gi, lab, ns = gi[o], lab[o], ns[o]
                first = np.flatnonzero(np.r_[True, (gi[1:] != gi[:-1]) | (lab[1:] != lab[:-1])])
                gi, lab, ns = gi[first], lab[first], np.add.reduceat(ns, first)
                o = np.lexsort((lab, -ns, gi))
                gi, lab = gi[o], lab[o]
                head = np.r_[True, gi[1:] != gi[:-1]]
                uniq, code = np.unique(lab[head], return_inverse=True)
                what[gi[head]] = code
                names, sources = labels.label_text(self.threads, uniq)
        order = np.lexsort((start, step))
        cause = np.argmax(sums, axis=1)  # the first maximum: CAUSES order on ties
        w = what[mine][order]
        return pd.DataFrame({
            "step": step[order], "start_ns": start[order], "end_ns": end[order],
            **{f"{c}_ns": sums[order, i] for i, c in enumerate(CAUSES)},
            "queued": (mine >= n)[order],
            "cause": pd.Categorical.from_codes(cause[order], list(CAUSES)),
            "what": _texts(w, names), "source": _texts(w, sources)})[GAP_COLUMNS]


def _texts(code: np.ndarray, texts: list[str]) -> pd.Categorical:
    """A categorical of texts[code] ("" where code is -1); equal texts share a category."""
    tc, cats = pd.factorize(np.asarray(texts, dtype=object))
    cats = list(cats)
    if "" not in cats:
        cats.append("")
    lut = np.r_[tc, cats.index("")].astype(np.int64)  # code -1 reads the last entry: ""
    return pd.Categorical.from_codes(lut[code], cats)


def empty_gaps() -> pd.DataFrame:
    """A gap table with no rows (IdleCauses.gaps)."""
    ints = {c: np.zeros(0, np.int64) for c in GAP_COLUMNS if c in ("step", "start_ns", "end_ns")
            or c.endswith("_ns")}
    return pd.DataFrame({**ints, "queued": np.zeros(0, bool), "cause": pd.Categorical([], list(CAUSES)),
                         "what": _texts(np.zeros(0, np.int64), []), "source": _texts(np.zeros(0, np.int64), [])}
                        )[GAP_COLUMNS]


def pieces(th: Threads, t: int, qa: np.ndarray, qb: np.ndarray, rules: IdleRules):
    """Split the windows [qa, qb) (sorted by qa) by thread t's state: (window index, cause, label,
    ns) per piece."""
    ts = sweep.thread_state(th, t, qa, qb, rules)
    pts, state, label = labels.name_segments(th, t, ts)
    # the windows cut by the segments
    k0 = np.searchsorted(pts, qa, "right") - 1
    k1 = np.searchsorted(pts, qb, "left")
    n = np.maximum(k1 - k0, 0)
    qi = np.repeat(np.arange(qa.size), n)
    at = np.cumsum(n) - n  # each window's first piece
    kk = np.arange(qi.size) + np.repeat(k0 - at, n)
    # segments inside a window are whole: only its first starts at qa and its last ends at qb
    a, z = pts[kk], pts[1:][kk]
    w = np.flatnonzero(n)
    a[at[w]], z[at[w] + n[w] - 1] = qa[w], qb[w]
    return qi, state[kk], label[kk], z - a


def add(sums: np.ndarray, step: np.ndarray, cause, ns: np.ndarray) -> None:
    """sums[step, cause] += ns, repeated (step, cause) pairs summed."""
    sums += group_sums(step * sums.shape[1] + cause, ns, sums.size).reshape(sums.shape)
