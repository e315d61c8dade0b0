"""Steps from CUDA-graph launches: launches grouped into forwards by the repeating cycle of the
graphs they replay; and, once graph cycles are chosen, the forwards that ran eagerly beside them
(a prefill longer than any captured size). Pure functions of the context. Times int64 ns.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from ..notes import note
from .arrays import name_matches
from .candidate import WINDOW_COLUMNS, Candidate
from .inputs import Context
from .windows import assign


def from_graphs(ctx: Context) -> Candidate | None:
    """CUDA-graph launches grouped into forwards by the repeating cycle of the graphs they replay.

    A graph's identity is what it ran (its kernels' names, or the graph exec id of whole-graph
    rows). The cycle length is the distance between recurrences of the rarest recurring graph
    (one piecewise forward replays each piece once: L+1 launches; a full graph: 1); a cycle starts
    after the widest host gap between launches (sampling and scheduling happen there)."""
    la = ctx.trace.launches
    if not len(la):
        return None
    g = la[name_matches(la["name"], ctx.vocab.graph_launch)]
    if len(g) < 2:
        return None
    g = g.sort_values(["rank", "start_ns"], kind="stable", ignore_index=True)
    sig = _launch_signatures(ctx, g)
    rows = []
    dropped = 0
    for rank, idx in g.groupby("rank", sort=True).indices.items():
        idx = np.sort(idx)
        p = _cycle(sig[idx])
        st = g["start_ns"].to_numpy(np.int64)[idx]
        en = g["end_ns"].to_numpy(np.int64)[idx]
        phase = 0
        if p > 1:
            phase = _phase(st, en, p, g["pid"].to_numpy()[idx[0]], rank, ctx.syncs)
        cyc = np.floor_divide(np.arange(idx.size) - phase, p)
        grp = pd.DataFrame({"c": cyc, "s": st, "e": en, "pid": g["pid"].to_numpy()[idx]}).groupby("c") \
            .agg(s=("s", "min"), e=("e", "max"), n=("s", "size"), pid=("pid", "first"))
        full = grp[grp["n"] == p]
        dropped += int(len(grp) - len(full))
        for j, r in enumerate(full.itertuples()):
            rows.append({"rank": rank, "name": f"graph_cycle_{j}", "pid": int(r.pid), "cpu_start_ns": int(r.s),
                         "cpu_end_ns": int(r.e), "gpu_side": False, "launches": p})
    if not rows:
        return None
    win = pd.DataFrame(rows)
    per = sorted(set(win["launches"]))
    step, tab = assign(win[WINDOW_COLUMNS], ctx.ops, ctx.syncs)
    notes = (note("steps.partial_cycles", counts=(dropped,)),) if dropped else ()
    return Candidate("cuda_graphs", note("label.graphs", tuple(int(p) for p in per)), tab, step, notes=notes)


def _launch_signatures(ctx: Context, g: pd.DataFrame) -> np.ndarray:
    """A code per graph launch for what it replayed: its kernels' name codes (count, sum, min, max)
    or, for whole-graph rows, the graph exec id."""
    key = ["rank", "pid", "correlation"]
    ops, graphs = ctx.ops, ctx.trace.graphs
    k = ops[(ops["kind"] == "kernel").to_numpy()][key + ["name_code"]]
    agg = k.groupby(key)["name_code"].agg(["size", "sum", "min", "max"]).reset_index()
    gr = ops[(ops["kind"] == "graph").to_numpy()]
    if len(gr):
        ex = graphs["graph_exec_id"].fillna(graphs["graph_id"]).fillna(-1).astype(np.int64).to_numpy()
        gg = pd.DataFrame({c: gr[c].to_numpy() for c in key}).assign(size=1, sum=ex[gr["src"].to_numpy()],
                                                                      min=-2, max=-2)
        agg = pd.concat([agg, gg.groupby(key).first().reset_index()], ignore_index=True).drop_duplicates(key)
    m = g[key].merge(agg, on=key, how="left").fillna(-1)
    codes, _ = pd.factorize(pd.MultiIndex.from_frame(m[["size", "sum", "min", "max"]].astype(np.int64)))
    return codes


def _phase(st: np.ndarray, en: np.ndarray, p: int, pid, rank, syncs: pd.DataFrame) -> int:
    """Which launch of the cycle starts a forward: the one the host most often synchronized before
    (the previous iteration's sampled tokens came back there), else the one after the widest gap."""
    n = st.size
    score = np.zeros(n)
    if len(syncs):
        m = (syncs["rank"].to_numpy() == rank) & (syncs["pid"].to_numpy() == pid)
        se = syncs["end_ns"].to_numpy(np.int64)[m]
        if se.size:
            # a sync ending between launch i-1's end and launch i's start
            before = np.searchsorted(se, st, side="right") - np.searchsorted(se, np.r_[st[0], en[:-1]], side="left")
            score = (before > 0).astype(float)
            score[0] = 0.0
    if not score.any():
        score = np.r_[0, st[1:] - en[:-1]].astype(float)
    med = [float(np.mean(score[o::p][1:] if o == 0 else score[o::p])) if score[o::p].size > (o == 0) else 0.0
           for o in range(p)]
    return int(np.argmax(med))


def _cycle(sig: np.ndarray) -> int:
    """Launches per forward: the modal distance between recurrences of the rarest graph that recurs."""
    if sig.size < 2:
        return 1
    vals, counts = np.unique(sig, return_counts=True)
    rec = counts >= (3 if sig.size >= 6 else 2)
    if not rec.any() or vals.size == 1:
        return 1
    rare = vals[rec][np.argmin(counts[rec])]
    d = np.diff(np.flatnonzero(sig == rare))
    u, c = np.unique(d, return_counts=True)
    return int(u[np.argmax(c)])


def add_eager_forwards(c: Candidate, ctx: Context) -> Candidate:
    """Graph cycles `c` and the forwards that ran eagerly beside the replays (a prefill longer than
    any captured size): blocks of unassigned kernels between two synchronizing calls that hold as
    many kernels and attention calls as half a typical step at least, each a step named
    eager_forward with the memory ops and other unassigned ops launched inside its window."""
    ops = ctx.ops
    launch = ops["launch_start_ns"].to_numpy(np.int64)
    t = np.where(launch >= 0, launch, ops["start_ns"].to_numpy(np.int64))  # launch time, else GPU start
    kern = (ops["kind"] == "kernel").to_numpy()
    new_rows, new_sets = [], []
    for rank, idx in ops.groupby("rank", sort=True).indices.items():
        rows, sets = _eager_blocks(ctx, c.step, t, kern, rank, np.sort(idx))
        new_rows += rows
        new_sets += sets
    if not new_rows:
        return c
    tab, step = c.table, c.step
    full = pd.concat([tab, pd.DataFrame(new_rows)], ignore_index=True)
    new_step = step.copy()
    for j, rows in enumerate(new_sets):
        r = len(tab) + j
        lo, hi = new_rows[j]["cpu_start_ns"], new_rows[j]["cpu_end_ns"]
        extra = np.flatnonzero((step < 0) & (ops["rank"].to_numpy() == new_rows[j]["rank"]) & (t >= lo) & (t <= hi))
        new_step[extra] = r
        new_step[rows] = r
    order = np.lexsort((full["cpu_start_ns"].to_numpy(), full["rank"].to_numpy()))
    remap = np.empty(len(full), np.int64)
    remap[order] = np.arange(len(full))
    full = full.iloc[order].reset_index(drop=True)
    new_step = np.where(new_step >= 0, remap[np.maximum(new_step, 0)], -1)
    notes = c.notes + (note("steps.eager_beside_graphs", counts=(len(new_rows),)),)
    return Candidate(c.source, c.label, full, new_step, c.forward, notes)


def _eager_blocks(ctx: Context, step: np.ndarray, t: np.ndarray, kern: np.ndarray, rank, idx: np.ndarray
                  ) -> tuple[list[dict], list[np.ndarray]]:
    """One rank's eager forwards: their window rows and their kernels (op rows). idx: the rank's
    op rows in order; t: per op, its launch time (ns); kern: per op, True for kernels."""
    ops, syncs, attention = ctx.ops, ctx.syncs, ctx.attention
    codes = ops["name_code"].to_numpy()
    mine = idx[step[idx] >= 0]
    if not mine.size:
        return [], []
    per_step = np.bincount(step[mine][kern[mine]])
    k_med = float(np.median(per_step)) if per_step.size else 0.0  # steps of graph replays alone: no size to hold blocks to
    lay_med = _calls(step[mine], codes[mine], attention[mine] if attention is not None else None)
    left = idx[(step[idx] < 0) & kern[idx]]
    if not left.size:
        return [], []
    pid = int(ops["pid"].to_numpy()[left[0]])
    m = (syncs["rank"].to_numpy() == rank) & (syncs["pid"].to_numpy() == pid) if len(syncs) else np.zeros(0, bool)
    se = syncs["end_ns"].to_numpy(np.int64)[m] if len(syncs) else np.empty(0, np.int64)
    block = np.searchsorted(se, t[left], side="right")
    new_rows, new_sets = [], []
    for b in np.unique(block):
        rows = left[block == b]
        if rows.size < 0.5 * k_med:
            continue
        lay = _calls(np.zeros(rows.size, np.int64), codes[rows], attention[rows] if attention is not None else None)
        if lay_med > 0 and lay < 0.5 * lay_med:
            continue
        new_rows.append({"rank": rank, "name": "eager_forward", "pid": pid, "cpu_start_ns": int(t[rows].min()),
                         "cpu_end_ns": int(t[rows].max()), "gpu_side": False,
                         "own_start_ns": int(t[rows].min()), "own_end_ns": int(t[rows].max()) + 1})
        new_sets.append(rows)
    return new_rows, new_sets


def _calls(step: np.ndarray, codes: np.ndarray, attention: np.ndarray | None) -> float:
    """Median over steps of the most repeated attention kernel's count (layers), 0 when unknown."""
    if attention is None or not attention.any():
        return 0.0
    d = pd.DataFrame({"s": step[attention], "c": codes[attention]})
    return float(d.value_counts().groupby(level="s").max().median())
