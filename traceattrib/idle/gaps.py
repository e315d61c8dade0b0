"""The gaps of each step: the times inside its span when none of its GPU ops runs, each cut at
the end of the API call that launched the op ending it. Before that end the launching thread's
state splits the gap (sweep.py); after it, the gap is launch latency. Times are int64 ns."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..intervals import running_max
from .codes import INF


@dataclass
class Gaps:
    """The gaps of every step that the launching thread's state splits, in step order: windows
    [a, b) up to the launch call's end, the next op's start g1 ([b, g1) is launch latency), the
    step row, the launching thread's code (-1: none); per step the queued launch time (gaps
    whose next op was submitted before they began, a GPU-side bubble); and those queued gaps
    themselves, [qa, qb) of step row qstep, in step order."""

    a: np.ndarray
    b: np.ndarray
    g1: np.ndarray
    step: np.ndarray
    thread: np.ndarray
    queued: np.ndarray
    qa: np.ndarray
    qb: np.ndarray
    qstep: np.ndarray


def find(ops: pd.DataFrame, table: pd.DataFrame, lrow: np.ndarray, l_end: np.ndarray, tcode: np.ndarray,
         n_in_step: int) -> Gaps:
    """The gaps of every step of `table` from its ops (steps.Steps.ops, `step` -1 outside steps;
    lrow: each op's launch row, -1 none), the launch calls' ends and their thread codes."""
    nsteps = len(table)
    step_all = ops["step"].to_numpy(np.int64)
    # ops sorted by (step, start, latest launch end first); ops in no step (step -1) sort first
    s, e = ops["start_ns"].to_numpy(np.int64), ops["end_ns"].to_numpy(np.int64)
    le = np.where(lrow >= 0, l_end[np.maximum(lrow, 0)] if l_end.size else 0, INF)
    if n_in_step < len(ops) or not in_gap_order(step_all, s, le):
        o = np.lexsort((-le, s, step_all))[len(ops) - n_in_step:]
        step, s, e, lr, le = step_all[o], s[o], e[o], lrow[o], le[o]
    else:  # (gpuops.gpu_ops sorts ops by start: no sort and no copies)
        step, lr = step_all, lrow
    head = np.r_[True, step[1:] != step[:-1]]
    run_end = running_max(e, np.cumsum(head) - 1)
    prev = np.r_[np.int64(-1), run_end[:-1]]
    # a step's span may open before its first op (the GPU waited for the host to start it):
    # that leading gap ends at the first op too
    prev[head] = np.minimum(table["start_ns"].to_numpy(np.int64)[step[head]], s[head])
    # the gaps [prev, s) before the ops with s > prev; next op already submitted when the gap
    # began: a GPU-side bubble
    gap = s > prev
    q = gap & (lr >= 0) & (le <= prev)
    h = np.flatnonzero(head)  # (rows in step order: a step's sum is one reduceat run)
    queued = np.zeros(nsteps, np.int64)
    queued[step[h]] = np.add.reduceat(np.where(q, s - prev, 0), h)
    qr = np.flatnonzero(q)
    # otherwise: what T did until the launch call ended, then launch latency
    r = np.flatnonzero(gap & ~q)
    wa, wb, g1r, wstep, g_lr = prev[r], np.minimum(s[r], le[r]), s[r], step[r], lr[r]
    thr = np.full(r.size, -1, np.int64)
    has = g_lr >= 0
    thr[has] = tcode[g_lr[has]]
    if not has.all():  # no launch call: the step's main thread
        thr[~has] = main_thread(step, lr, tcode, nsteps)[wstep[~has]]
    return Gaps(wa, wb, g1r, wstep, thr, queued, prev[qr], s[qr], step[qr])


def in_gap_order(step: np.ndarray, s: np.ndarray, le: np.ndarray) -> bool:
    """Whether rows are in the order of np.lexsort((-le, s, step)) already (a stable sort: rows
    with equal keys stay as they are)."""
    same_step, same_s = step[1:] == step[:-1], s[1:] == s[:-1]
    return bool(((step[1:] > step[:-1]) | (same_step & ((s[1:] > s[:-1]) | (same_s & (le[1:] <= le[:-1]))))).all())


def main_thread(step: np.ndarray, lr: np.ndarray, tcode: np.ndarray, nsteps: int) -> np.ndarray:
    """Per step, the thread that launched most of its ops (-1: none has a launch call); ties go to
    the lower thread code."""
    out = np.full(nsteps, -1, np.int64)
    m = lr >= 0
    if not m.any():
        return out
    st, t = step[m], tcode[lr[m]]
    nt = int(t.max()) + 1
    if nsteps * nt <= 4 * st.size + (1 << 20):  # a dense (step, thread) count table fits
        n = np.bincount(st * nt + t, minlength=nsteps * nt).reshape(nsteps, nt)
        has = n.any(axis=1)
        out[has] = n[has].argmax(axis=1)  # the first maximum: the lowest code
        return out
    key, n = np.unique(st * nt + t, return_counts=True)
    o = np.lexsort((key % nt, -n, key // nt))
    key = key[o]
    head = np.r_[True, key[1:] // nt != key[:-1] // nt]
    out[key[head] // nt] = key[head] % nt
    return out
