"""The step table of the chosen candidate and the op -> step assignment, as new frames and
arrays (the candidate and the GPU-op table are only read): each step's GPU window (first op
start to last op end, the start moved back over the GPU idle time the host spent preparing it),
its op count and its index in its rank; steps that hold no GPU work are left out. Times int64 ns.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from ..errors import TraceError
from ..notes import Note, note
from .candidate import Candidate
from .inputs import Context


def step_table(c: Candidate, ctx: Context) -> tuple[pd.DataFrame, np.ndarray, list[Note]]:
    """(table, step, notes): the candidate's window table with start_ns, end_ns, n_ops and index;
    per op (rows of ctx.ops), its row in the table (-1 outside). TraceError when no step holds
    GPU work."""
    table = c.table.reset_index(drop=True)
    step = c.step
    notes: list[Note] = []
    start, end, n_ops = gpu_windows(step, ctx.ops, len(table))
    empty = n_ops == 0
    if empty.any():
        notes.append(note("steps.empty_ranges", counts=(int(empty.sum()),)))
        remap = np.full(len(table), -1, np.int64)
        remap[~empty] = np.arange(int((~empty).sum()))
        step = np.where(step >= 0, remap[np.maximum(step, 0)], -1)
        table, start, end, n_ops = table[~empty].reset_index(drop=True), start[~empty], end[~empty], n_ops[~empty]
    table = table.assign(start_ns=start.astype(np.int64), end_ns=end.astype(np.int64), n_ops=n_ops.astype(np.int64))
    table["start_ns"] = host_start(table, from_sync=c.source == "cuda_graphs", ops=ctx.ops)
    table["outside_ns"] = outside_ranges(table, step, ctx.ops, c.source)
    if not len(table):
        raise TraceError(f"{ctx.trace.meta.get('path', 'trace')}: no GPU work inside any step")
    table["index"] = table.groupby("rank").cumcount()
    return table, step, notes


RANGE_SOURCES = ("regex", "annotations", "python_frames")  # steps from ranges on the host


def outside_ranges(table: pd.DataFrame, step: np.ndarray, ops: pd.DataFrame, source: str) -> np.ndarray:
    """Per step: how much of its span (ns) lies outside what its range holds, when the steps come
    from host ranges that were widened to the whole iteration (windows.py): the span before the
    range opened and after the last op launched inside the range ended (sampling, host work up to
    the next forward). 0 for a step that holds only its range's work; -1 when the steps do not
    come from ranges (CUDA graphs, detection, the whole trace). step: per op, its row (-1 outside)."""
    n = len(table)
    if source not in RANGE_SOURCES:
        return np.full(n, -1, np.int64)
    start, end = table["start_ns"].to_numpy(np.int64), table["end_ns"].to_numpy(np.int64)
    cs, ce = table["cpu_start_ns"].to_numpy(np.int64), table["cpu_end_ns"].to_numpy(np.int64)
    inside = step >= 0
    s = step[inside]
    launch = ops["launch_start_ns"].to_numpy(np.int64)[inside]
    t = np.where(launch >= 0, launch, ops["start_ns"].to_numpy(np.int64)[inside])
    own = (t >= cs[s]) & (t <= ce[s])
    own_end = np.full(n, np.iinfo(np.int64).min)
    np.maximum.at(own_end, s[own], ops["end_ns"].to_numpy(np.int64)[inside][own])
    lo = np.clip(cs, start, end)
    hi = np.clip(own_end, lo, end)
    out = (end - start) - (hi - lo)
    return np.where(table["gpu_side"].to_numpy(bool), 0, out).astype(np.int64)


def gpu_windows(step: np.ndarray, ops: pd.DataFrame, nsteps: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per step: its first op's start, its last op's end (ns) and its op count (0: no op).
    step: per op, its step (-1 outside)."""
    inside = step >= 0
    s = step[inside]
    first = np.full(nsteps, np.iinfo(np.int64).max)
    np.minimum.at(first, s, ops["start_ns"].to_numpy(np.int64)[inside])
    last = np.full(nsteps, np.iinfo(np.int64).min)
    np.maximum.at(last, s, ops["end_ns"].to_numpy(np.int64)[inside])
    return first, last, np.bincount(s, minlength=nsteps).astype(np.int64)


def host_start(table: pd.DataFrame, from_sync: bool = False, ops: pd.DataFrame | None = None) -> np.ndarray:
    """Where each step starts on the GPU timeline. The GPU idle time before a step's first op is
    the step's own (the host was preparing it), down to where the previous step's work ended: a
    step found from a CPU window starts when that window opened on the host, if the GPU was idle
    then; a step found on the GPU side starts where the previous step ended. The first step of a
    rank found on the GPU side starts at its first op. Work launched before the trace began
    (ops' before_trace) counts as a previous step's: the GPU was not idle while it ran."""
    start = table["start_ns"].to_numpy(np.int64).copy()
    prev_end = table.groupby("rank")["end_ns"].shift(1).fillna(-1).astype(np.int64).to_numpy().copy()
    if ops is not None and "before_trace" in ops.columns and ops["before_trace"].any():
        pre = ops[ops["before_trace"].to_numpy(bool)]
        for rank, g in pre.groupby("rank"):
            pe = np.sort(g["end_ns"].to_numpy(np.int64))
            m = table["rank"].to_numpy() == rank
            k = np.searchsorted(pe, start[m], side="right") - 1  # the last such op ending by the step's first op
            prev_end[m] = np.maximum(prev_end[m], np.where(k >= 0, pe[np.maximum(k, 0)], -1))
    cpu = ~table["gpu_side"].to_numpy(bool)
    opened = table["own_start_ns" if from_sync else "cpu_start_ns"].to_numpy(np.int64)
    host = np.where(cpu, opened, prev_end)
    begin = np.maximum(host, prev_end)
    ok = (begin >= 0) & (begin < start)
    return np.where(ok, begin, start)
