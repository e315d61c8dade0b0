"""Evidence sources for steps. Each is a pure function of the trace's tables that returns
candidate steps (a window table and the step of every GPU op) and what it found; none writes
into shared tables. The chooser in `__init__` cross-checks and picks one. Times int64 ns.
"""
from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ..gpuops import rank_rows
from ..model import Trace
from ..notes import Note, note
from . import detect
from .arrays import bin_of, name_in, name_matches
from .kinds import name_evidence
from .vocab import Vocab
from .windows import WINDOW_COLUMNS, assign, drop_nested, select_ranges, windows_from_ranges


@dataclass
class Candidate:
    """Steps one source proposes.

    source: 'regex' | 'annotations' | 'python_frames' | 'cuda_graphs' | 'detected' | 'whole_trace'
    label: what was found, for the report (a note: "label.annotations", ...)
    table: one row per step: rank, name, pid, cpu_start_ns, cpu_end_ns, gpu_side (+ own_*_ns)
    step: per op (rows of the ops table), the table row it belongs to, -1 outside
    forward: 'one' when the source means one forward per step, 'any' when a step may hold several
    """

    source: str
    label: Note
    table: pd.DataFrame
    step: np.ndarray
    forward: str = "one"
    notes: list[Note] = field(default_factory=list)


def from_regex(trace: Trace, ops: pd.DataFrame, pat: re.Pattern, syncs: pd.DataFrame) -> Candidate | None:
    rng = select_ranges(trace.ranges, pat)
    if not len(rng):
        return None
    step, tab = assign(windows_from_ranges(rng), ops, syncs)
    return Candidate("regex", note("label.regex", pat.pattern), tab, step)


def from_annotations(trace: Trace, ops: pd.DataFrame, vocab: Vocab, syncs: pd.DataFrame) -> Iterator[Candidate]:
    """One candidate per vocabulary family with members, in the vocabulary's order, each made when
    asked for. Ranges whose counts say no forward ran (vLLM's execute_context_0(0)_generation_0(0))
    are left out."""
    for fam in vocab.families:
        rng = select_ranges(trace.ranges, fam.regex, vocab.exclude)
        if not len(rng):
            continue
        kinds = name_evidence(rng["name"], vocab)["kind"].to_numpy()
        idle = kinds == "none"
        rng = rng[~idle]
        if not len(rng):
            continue
        step, tab = assign(windows_from_ranges(rng), ops, syncs)
        names = list(dict.fromkeys(rng.sort_values("start_ns")["name"].astype(str).tolist()))
        cand = Candidate("annotations", note("label.annotations", fam.framework, tuple(names[:2]), len(names) > 2),
                         tab, step, forward=fam.forward)
        if idle.any():
            cand.notes.append(note("steps.idle_ranges", counts=(int(idle.sum()),)))
        yield cand


def from_frames(trace: Trace, ops: pd.DataFrame, vocab: Vocab, syncs: pd.DataFrame) -> Candidate | None:
    """Python frames (with_stack) of the model runner's call that encloses one forward."""
    c = trace.cpu_ops
    if not len(c) or not vocab.frames:
        return None
    py = c[name_in(c["kind"], ["python_function"])]
    if not len(py):
        return None
    hit = np.zeros(len(py), bool)
    names = []
    for name, pat in vocab.frames:
        m = name_matches(py["name"], pat)
        if m.any():
            names.append(name)
        hit |= m
    if not hit.any():
        return None
    sel = drop_nested(py[hit])
    win = pd.DataFrame({"rank": sel["rank"].to_numpy(), "name": sel["name"].astype(str).to_numpy(),
                        "pid": sel["pid"].to_numpy(), "cpu_start_ns": sel["start_ns"].to_numpy(),
                        "cpu_end_ns": sel["end_ns"].to_numpy(), "gpu_side": False}) \
        .sort_values(["rank", "cpu_start_ns"], kind="stable", ignore_index=True)
    step, tab = assign(win, ops, syncs)
    return Candidate("python_frames", note("label.frames", tuple(names)), tab, step)


def from_graphs(trace: Trace, ops: pd.DataFrame, vocab: Vocab, syncs: pd.DataFrame) -> Candidate | None:
    """CUDA-graph launches grouped into forwards by the repeating cycle of the graphs they replay.

    A graph's identity is what it ran (its kernels' names, or the graph exec id of whole-graph
    rows). The cycle length is the distance between recurrences of the rarest recurring graph
    (one piecewise forward replays each piece once: L+1 launches; a full graph: 1); a cycle starts
    after the widest host gap between launches (sampling and scheduling happen there)."""
    la = trace.launches
    if not len(la):
        return None
    g = la[name_matches(la["name"], vocab.graph_launch)]
    if len(g) < 2:
        return None
    g = g.sort_values(["rank", "start_ns"], kind="stable", ignore_index=True)
    sig = _launch_signatures(trace, ops, g)
    rows, notes = [], []
    dropped = 0
    for rank, idx in g.groupby("rank", sort=True).indices.items():
        idx = np.sort(idx)
        p = _cycle(sig[idx])
        st = g["start_ns"].to_numpy(np.int64)[idx]
        en = g["end_ns"].to_numpy(np.int64)[idx]
        phase = 0
        if p > 1:
            phase = _phase(st, en, p, g["pid"].to_numpy()[idx[0]], rank, syncs)
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
    step, tab = assign(win[WINDOW_COLUMNS], ops, syncs)
    if dropped:
        notes.append(note("steps.partial_cycles", counts=(dropped,)))
    return Candidate("cuda_graphs", note("label.graphs", tuple(int(p) for p in per)), tab, step, notes=notes)


def _launch_signatures(trace: Trace, ops: pd.DataFrame, g: pd.DataFrame) -> np.ndarray:
    """A code per graph launch for what it replayed: its kernels' name codes (count, sum, min, max)
    or, for whole-graph rows, the graph exec id."""
    key = ["rank", "pid", "correlation"]
    k = ops[(ops["kind"] == "kernel").to_numpy()][key + ["name_code"]]
    agg = k.groupby(key)["name_code"].agg(["size", "sum", "min", "max"]).reset_index()
    gr = ops[(ops["kind"] == "graph").to_numpy()]
    if len(gr):
        ex = trace.graphs["graph_exec_id"].fillna(trace.graphs["graph_id"]).fillna(-1).astype(np.int64).to_numpy()
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


def detected(trace: Trace, ops: pd.DataFrame, attention: np.ndarray | None = None
             ) -> tuple[Candidate | None, dict[int, detect.Detection]]:
    """Steps from each rank's kernel stream (see detect.py); ops are assigned by their GPU start.
    attention: per op, True for attention kernels (None: not classified)."""
    step = np.full(len(ops), -1, np.int64)
    cols: list[dict] = []
    found: dict[int, detect.Detection] = {}
    kern = (ops["kind"] == "kernel").to_numpy()
    start, end = ops["start_ns"].to_numpy(np.int64), ops["end_ns"].to_numpy(np.int64)
    first = 0
    for rank, idx in rank_rows(ops):
        ki = idx[kern[idx]]
        if not (start[ki][1:] >= start[ki][:-1]).all():
            ki = ki[np.argsort(start[ki], kind="stable")]
        st, en = start[ki], end[ki]
        det = detect.split(ops["name_code"].to_numpy()[ki], st, en, None if attention is None else attention[ki])
        if det is None:
            continue
        found[int(rank)] = det
        det.anchor_pos = ki[det.anchor_pos]  # positions -> op rows
        t0 = st[det.starts]
        _, t1 = detect.seg_argmax(en, det.starts, det.stops)
        cols.append({"rank": np.full(t0.size, rank), "name": np.array([f"detected_{j}" for j in range(t0.size)], object),
                     "pid": np.full(t0.size, int(ops["pid"].to_numpy()[ki[0]]), np.int64),
                     "cpu_start_ns": t0, "cpu_end_ns": t1, "gpu_side": np.ones(t0.size, bool)})
        # every op of the rank from one step's first kernel to the next step's belongs to it
        q = start[idx]
        j = bin_of(t0, q)
        ok = (j >= 0) & ((j < t0.size - 1) | (q < t1[-1]))
        step[idx[ok]] = first + j[ok]
        first += t0.size
    if not cols:
        return None, found
    tab = pd.DataFrame({c: np.concatenate([d[c] for d in cols]) for c in WINDOW_COLUMNS})
    tab["own_start_ns"], tab["own_end_ns"] = tab["cpu_start_ns"], tab["cpu_end_ns"]
    return Candidate("detected", note("label.detected"), tab, step), found


def whole_trace(ops: pd.DataFrame) -> Candidate:
    rows = []
    step = np.full(len(ops), -1, np.int64)
    for rank, grp in ops.groupby("rank", sort=True):
        rows.append({"rank": rank, "name": "whole_trace", "pid": int(grp["pid"].iloc[0]),
                     "cpu_start_ns": int(grp["start_ns"].min()), "cpu_end_ns": int(grp["end_ns"].max()),
                     "gpu_side": True})
        step[grp.index.to_numpy()] = len(rows) - 1
    tab = pd.DataFrame(rows, columns=WINDOW_COLUMNS)
    tab["own_start_ns"], tab["own_end_ns"] = tab["cpu_start_ns"], tab["cpu_end_ns"]
    return Candidate("whole_trace", note("label.whole"), tab, step, forward="any")


def add_eager_forwards(c: Candidate, ops: pd.DataFrame, syncs: pd.DataFrame, attention: np.ndarray | None) -> Candidate:
    """Forwards that ran eagerly beside graph replays (a prefill longer than any captured size):
    blocks of unassigned kernels between two synchronizing calls that hold as many kernels and
    attention calls as half a typical step at least. They become steps named eager_forward_N."""
    step = c.step
    kern = (ops["kind"] == "kernel").to_numpy()
    launch = ops["launch_start_ns"].to_numpy(np.int64)
    t = np.where(launch >= 0, launch, ops["start_ns"].to_numpy(np.int64))
    tab = c.table
    new_rows, new_sets = [], []
    for rank, idx in ops.groupby("rank", sort=True).indices.items():
        idx = np.sort(idx)
        mine = idx[step[idx] >= 0]
        if not mine.size:
            continue
        k_med = np.median(np.bincount(step[mine][kern[mine]]))
        lay_med = _calls(step[mine], ops["name_code"].to_numpy()[mine],
                         attention[mine] if attention is not None else None)
        left = idx[(step[idx] < 0) & kern[idx]]
        if not left.size:
            continue
        pid = int(ops["pid"].to_numpy()[left[0]])
        m = (syncs["rank"].to_numpy() == rank) & (syncs["pid"].to_numpy() == pid) if len(syncs) else np.zeros(0, bool)
        se = syncs["end_ns"].to_numpy(np.int64)[m] if len(syncs) else np.empty(0, np.int64)
        block = np.searchsorted(se, t[left], side="right")
        for b in np.unique(block):
            rows = left[block == b]
            if rows.size < 0.5 * k_med:
                continue
            lay = _calls(np.zeros(rows.size, np.int64), ops["name_code"].to_numpy()[rows],
                         attention[rows] if attention is not None else None)
            if lay_med > 0 and lay < 0.5 * lay_med:
                continue
            new_rows.append({"rank": rank, "name": "eager_forward", "pid": pid, "cpu_start_ns": int(t[rows].min()),
                             "cpu_end_ns": int(t[rows].max()), "gpu_side": False,
                             "own_start_ns": int(t[rows].min()), "own_end_ns": int(t[rows].max()) + 1})
            new_sets.append(rows)
    if not new_rows:
        return c
    # also take the block's memory ops and other unassigned ops launched inside its window
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
    notes = c.notes + [note("steps.eager_beside_graphs", counts=(len(new_rows),))]
    return Candidate(c.source, c.label, full, new_step, c.forward, notes)


def _calls(step: np.ndarray, codes: np.ndarray, attention: np.ndarray | None) -> float:
    """Median over steps of the most repeated attention kernel's count (layers), 0 when unknown."""
    if attention is None or not attention.any():
        return 0.0
    d = pd.DataFrame({"s": step[attention], "c": codes[attention]})
    return float(d.value_counts().groupby(level="s").max().median())
