"""CPU-side step windows -> the GPU ops they own.

A GPU op belongs to a step when the API call that launched it lies inside the step's window on
the same rank and process (CUDA-graph replays and queued kernels that run long after their
launch stay with the step that issued them). Windows are first widened to the iteration they
belong to: frameworks annotate the forward, but the iteration goes on until the host has the
sampled tokens (vLLM runs `sample_tokens` after `execute_model`), so the work launched between two
windows goes to the earlier one up to the end of the last synchronizing call in between (where
the host waits for that iteration's results), and to the later one after it. All times int64 ns.
"""
from __future__ import annotations

import re

import numpy as np
import pandas as pd

from .arrays import bin_of, name_in, name_matches


def select_ranges(ranges: pd.DataFrame, pattern: re.Pattern, exclude: re.Pattern | None = None) -> pd.DataFrame:
    """Outermost ranges whose name matches `pattern` (CPU-side copies preferred: Kineto's
    gpu_user_annotation projections are only used when a trace has no CPU side)."""
    if not len(ranges):
        return ranges
    hit = name_matches(ranges["name"], pattern)
    if exclude is not None:
        hit &= ~name_matches(ranges["name"], exclude)
    cpu_side = ~name_in(ranges["source"], ["gpu_user_annotation"])
    sel = ranges[hit & cpu_side]
    if not len(sel):
        sel = ranges[hit]
    return drop_nested(sel)


def drop_nested(sel: pd.DataFrame) -> pd.DataFrame:
    """Keep intervals not contained in another selected interval of the same rank and process."""
    if len(sel) < 2:
        return sel
    sel = sel.sort_values(["rank", "pid", "start_ns", "end_ns"], ascending=[True, True, True, False],
                          kind="stable")
    grp = (sel["rank"].astype(np.int64).to_numpy() << 32) ^ sel["pid"].to_numpy().astype(np.int64)
    end = sel["end_ns"].to_numpy()
    run_end = pd.Series(end).groupby(grp).cummax().to_numpy()
    prev_end = pd.Series(run_end).groupby(grp).shift(1).fillna(-1).astype(np.int64).to_numpy()
    inside = (sel["start_ns"].to_numpy() < prev_end) & (end <= prev_end)
    return sel[~inside]


def windows_from_ranges(rng: pd.DataFrame) -> pd.DataFrame:
    """The window table (candidate.WINDOW_COLUMNS) of selected ranges, sorted by rank and start."""
    rng = rng.sort_values(["rank", "start_ns"], kind="stable")
    return pd.DataFrame({
        "rank": rng["rank"].to_numpy(), "name": rng["name"].astype(str).to_numpy(),
        "pid": rng["pid"].to_numpy(), "cpu_start_ns": rng["start_ns"].to_numpy(),
        "cpu_end_ns": rng["end_ns"].to_numpy(),
        "gpu_side": name_in(rng["source"], ["gpu_user_annotation"])})


def assign(win: pd.DataFrame, ops: pd.DataFrame, syncs: pd.DataFrame | None = None,
           extend: bool = True) -> tuple[np.ndarray, pd.DataFrame]:
    """Step row (into `win`) of every op, -1 outside; and `win` with `own_start_ns` / `own_end_ns`,
    the widened CPU bounds that were used (see the module docstring).

    win: candidate.WINDOW_COLUMNS, one row per step. Windows of one rank and process must not overlap."""
    win = win.reset_index(drop=True).copy()
    win["own_start_ns"] = win["cpu_start_ns"].to_numpy(np.int64)
    win["own_end_ns"] = win["cpu_end_ns"].to_numpy(np.int64)
    step = np.full(len(ops), -1, np.int64)
    if not len(ops) or not len(win):
        return step, win
    launch = ops["launch_start_ns"].to_numpy(np.int64)
    t = np.where(launch >= 0, launch, ops["start_ns"].to_numpy(np.int64))
    orank, opid = ops["rank"].to_numpy(), ops["pid"].to_numpy()
    for (rank, pid, gside), grp in win.groupby(["rank", "pid", "gpu_side"], sort=False):
        grp = grp.sort_values("cpu_start_ns", kind="stable")
        rows = grp.index.to_numpy()
        s = grp["cpu_start_ns"].to_numpy(np.int64)
        e = np.maximum(grp["cpu_end_ns"].to_numpy(np.int64), s)
        lo, hi = s.copy(), e.copy()
        if extend and not gside and syncs is not None:
            lo, hi = _widen(s, e, _ends(syncs, rank, pid))
        win.loc[rows, "own_start_ns"] = lo
        win.loc[rows, "own_end_ns"] = hi
        om = orank == rank
        if gside:
            q = ops["start_ns"].to_numpy(np.int64)[om]
        else:
            # same process; ops with no launch call fall back to their own GPU time, unless they
            # were launched before the trace began (then no CPU window of it holds them)
            om &= (opid == pid) | (launch < 0)
            if "before_trace" in ops.columns:
                om &= ~ops["before_trace"].to_numpy(bool)
            q = t[om]
        k = bin_of(lo, q)
        ok = (k >= 0) & (q < hi[np.maximum(k, 0)])
        idx = np.flatnonzero(om)
        step[idx[ok]] = rows[k[ok]]
    return step, win


def _ends(syncs: pd.DataFrame, rank, pid) -> np.ndarray:
    if not len(syncs):
        return np.empty(0, np.int64)
    m = (syncs["rank"].to_numpy() == rank) & (syncs["pid"].to_numpy() == pid)
    return syncs["end_ns"].to_numpy(np.int64)[m]


def _widen(s: np.ndarray, e: np.ndarray, sync_end: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Widen sorted, non-overlapping windows [s, e) to cover the iteration each belongs to.

    Between windows k and k+1 the boundary is the end of the last synchronizing call that ends in
    [e_k, s_k+1] (the host got iteration k's results there), else s_k+1 (all of the gap to k). The
    last window extends to the end of the first synchronizing call after it, when that comes within
    the widest gap between windows seen before (or the window's own length, for a single window)."""
    n = s.size
    lo, hi = s.copy(), e.copy()
    if n > 1 and not sync_end.size:
        hi[:-1] = np.maximum(s[1:], e[:-1])
        lo[1:] = hi[:-1]
    elif n > 1:
        nxt = s[1:]
        j = np.searchsorted(sync_end, nxt, side="right") - 1
        have = (j >= 0) & (sync_end[np.maximum(j, 0)] >= e[:-1])
        bound = np.where(have, sync_end[np.maximum(j, 0)], nxt)
        bound = np.clip(bound, e[:-1], nxt)
        hi[:-1] = bound
        lo[1:] = bound
    if sync_end.size:
        reach = int((hi[:-1] - e[:-1]).max()) if n > 1 else int(e[-1] - s[-1])
        j = np.searchsorted(sync_end, e[-1], side="left")
        if j < sync_end.size and sync_end[j] - e[-1] <= reach:
            hi[-1] = sync_end[j]
    return lo, hi
