"""Split a trace into steps, one forward pass of the model (one scheduler iteration) each, and
assign every GPU op to one.

Evidence sources (sources.py), each returning candidate steps and what it found:
  `--steps REGEX` ranges; annotation ranges of every framework generation (rules/steps.toml:
  vLLM, SGLang, TensorRT-LLM, generic names, ProfilerStep#N); Python frames of the model runner
  (with_stack); CUDA-graph launches grouped by their repeating cycle; detection from the kernel
  stream at the model level (detect.py); the whole trace.
The chooser cross-checks them against the kernel stream: detection's anchor is a kernel that runs
once per forward, so a candidate whose steps each hold one anchor holds one forward per step. It
takes, in the order above, the first candidate that passes (a user's --steps always wins), and
says which was used and why the others were not: ProfilerStep ranges around a whole `generate`
hold many forwards; piecewise CUDA-graph launches hold part of one.
All times int64 ns.
"""
from __future__ import annotations

import itertools
import re
from collections.abc import Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ..errors import TraceError
from ..gpuops import gpu_ops
from ..model import Trace
from ..notes import Note, note
from . import kinds, sources
from .detect import DISTINCT, Detection
from .kinds import word_kind
from .vocab import Vocab, default_vocab
from .windows import sync_ends

__all__ = ["Steps", "find_steps", "name_kind"]

STEP_COLUMNS = ["rank", "index", "name", "kind", "kind_evidence", "tokens", "layers", "start_ns", "end_ns",
                "cpu_start_ns", "cpu_end_ns", "n_ops", "warmup", "outlier"]


@dataclass
class Steps:
    """Steps and the op -> step assignment.

    table: one row per step (STEP_COLUMNS): rank, index, name, kind (prefill | decode | mixed |
           unknown), kind_evidence, tokens (-1 unknown), layers (-1 unknown), start_ns / end_ns
           (GPU window: first op start to last op end), cpu_start_ns / cpu_end_ns (the source's
           window), n_ops, warmup, outlier.
    ops:   GPU ops (kernels, memops, whole-graph executions) with `step` (-1 = outside steps).
    evidence: the source used: 'regex' | 'annotations' | 'python_frames' | 'cuda_graphs' |
           'detected' | 'whole_trace'.
    why:   what the source found and why it passed the cross-check (a note: "why.from", "why.whole").
    notes: what the user should know (thin evidence, inferred kinds, dropped warm-up, ...).
    """

    table: pd.DataFrame
    ops: pd.DataFrame
    evidence: str
    why: Note | None = None
    notes: list[Note] = field(default_factory=list)


def name_kind(name: str, vocab: Vocab | None = None) -> str:
    """prefill | decode | mixed | unknown from a step's name (kind words only)."""
    return word_kind(name, vocab or default_vocab())


def find_steps(trace: Trace, regex: str | None = None, kernel_buckets: pd.Series | None = None,
               layers: int | None = None, vocab: Vocab | None = None, ops: pd.DataFrame | None = None) -> Steps:
    """Find steps from the best evidence present and assign GPU ops to them.

    kernel_buckets: the classification of trace.kernels (aligned), used to count attention calls
    (layers per step) and attention variants (kinds); layers: the user's --layers, checked;
    ops: `gpu_ops(trace)` when already made (taken over: it becomes Steps.ops)."""
    vocab = vocab or default_vocab()
    ops = gpu_ops(trace) if ops is None else ops
    att = kinds.attention_mask(ops, kernel_buckets)
    cands: list[sources.Candidate] = []
    # detection (the check of every candidate) runs in a second thread while this one makes the
    # first candidate: both are mostly numpy, which releases the GIL (0.03-0.06 s less on 1M kernels)
    with ThreadPoolExecutor(1, thread_name_prefix="traceattrib-detect") as pool:
        detecting = pool.submit(sources.detected, trace, ops, att)
        syncs = sync_ends(trace.launches, vocab.sync)
        if regex:
            try:
                pat = re.compile(regex)
            except re.error as e:
                raise TraceError(f"{{steps_regex}}: invalid regular expression {regex!r} ({e})", "steps_regex") from None
            c = sources.from_regex(trace, ops, pat, syncs)
            if c is None:
                raise TraceError(f"{{steps_regex}} {regex!r} matches no range name in the trace", "steps_regex", "no_match")
            cands.append(c)
            annotated: Iterator[sources.Candidate] = sources.from_annotations(trace, ops, vocab, syncs)
        else:  # the chooser asks for the first annotation family's candidate first
            annotated = _ahead(sources.from_annotations(trace, ops, vocab, syncs))
        det_cand, dets = detecting.result()

    def later() -> Iterator[sources.Candidate]:
        # made only when the chooser gets to them: it stops at the first that passes
        yield from annotated
        for make in (sources.from_frames, sources.from_graphs):
            c = make(trace, ops, vocab, syncs)
            if c is not None:
                yield c
        if det_cand is not None:
            yield det_cand

    chosen, why, rejected = _choose(itertools.chain(cands, later()), ops, dets, training=kinds.is_training(trace))
    if chosen is None:
        chosen = sources.whole_trace(ops)
        why = note("why.whole")
    if chosen.source == "cuda_graphs":
        chosen = sources.add_eager_forwards(chosen, ops, syncs, att)
    ops["step"] = chosen.step
    notes = list(chosen.notes) + rejected
    if chosen.source == "detected":
        notes.append(note("steps.detected"))
    table = _finish(chosen, ops, trace, vocab, att, notes)
    if layers and len(table) and (table["layers"] > 0).any():
        got = int(np.median(table.loc[table["layers"] > 0, "layers"]))
        if got != layers:
            notes.append(note("steps.layers_mismatch", layers, got))
    return Steps(table=table, ops=ops, evidence=chosen.source, why=why, notes=notes)


def _ahead(it: Iterator[sources.Candidate]) -> Iterator[sources.Candidate]:
    """`it`, its first item made now."""
    first = next(it, None)
    return it if first is None else itertools.chain([first], it)


# --- the chooser ---------------------------------------------------------------------------------

def forwards_per_step(cand: sources.Candidate, dets: dict[int, Detection]) -> np.ndarray | None:
    """How many forward-pass anchors (detect.py) each candidate step holds; None without anchors."""
    if not dets:
        return None
    anchors = np.concatenate([d.anchor_pos for d in dets.values()])
    ranks = set(dets)
    s = cand.step[anchors]
    n = len(cand.table)
    counts = np.bincount(s[s >= 0], minlength=n)[:n]
    on = np.isin(cand.table["rank"].to_numpy(), list(ranks))
    return counts[on]


def _verdict(counts: np.ndarray | None) -> str:
    if counts is None or not counts.size:
        return "unchecked"
    if (counts == 1).mean() >= 0.75:
        return "one"
    med = float(np.median(counts))
    return "many" if med >= 2 else ("part" if med < 1 else "mixed")


def _choose(cands: Iterable[sources.Candidate], ops: pd.DataFrame, dets: dict[int, Detection], training: bool = False):
    """(chosen candidate, why, notes on the rejected ones).

    Detection's once-per-forward anchor checks every other candidate. Where its boundaries do not
    stand out from the GPU gaps inside its steps (ratio < DISTINCT), it is not trusted to overrule a
    framework's own one-forward annotations, only ranges that may hold several forwards
    (ProfilerStep#N). In a training trace a step is an iteration (forward and backward), which the
    anchor does not describe: annotations are taken as they are."""
    rejected: list[Note] = []
    strong = bool(dets) and min(d.ratio for d in dets.values()) >= DISTINCT
    for c in cands:
        counts = forwards_per_step(c, dets)
        v = _verdict(counts)
        if v not in ("one", "unchecked") and c.source != "detected" and (
                training and c.source == "annotations" or not strong and c.forward == "one"):
            v = "unchecked"
        n = len(c.table)
        if c.source == "regex" or v in ("one", "unchecked") or c.source == "detected":
            if c.source == "regex" and v not in ("one", "unchecked"):
                rejected.append(note("steps.regex_forwards", *_forwards(counts)))
            return c, note("why.from", c.label, v == "one"), rejected
        rejected.append(note("steps.rejected", c.label, *_forwards(counts), v, counts=(n,)))
    return None, None, rejected


def _forwards(counts: np.ndarray | None) -> tuple[float | None, float | None]:
    """(median, mean) forward passes per step; (None, None) when unchecked."""
    if counts is None or not counts.size:
        return None, None
    return float(np.median(counts)), float(counts.mean())


# --- finishing: GPU windows, kinds, tokens, layers, flags ------------------------------------------

def _host_start(table: pd.DataFrame, from_sync: bool = False, ops: pd.DataFrame | None = None) -> np.ndarray:
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


def _gpu_windows(ops: pd.DataFrame, nsteps: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per step: its first op's start, its last op's end (ns) and its op count (0: no op)."""
    step = ops["step"].to_numpy()
    inside = step >= 0
    s = step[inside]
    first = np.full(nsteps, np.iinfo(np.int64).max)
    np.minimum.at(first, s, ops["start_ns"].to_numpy(np.int64)[inside])
    last = np.full(nsteps, np.iinfo(np.int64).min)
    np.maximum.at(last, s, ops["end_ns"].to_numpy(np.int64)[inside])
    return first, last, np.bincount(s, minlength=nsteps).astype(np.int64)


def _finish(c: sources.Candidate, ops: pd.DataFrame, trace: Trace, vocab: Vocab,
            att: np.ndarray | None, notes: list[Note]) -> pd.DataFrame:
    """The step table (STEP_COLUMNS) of the chosen candidate; att: per op, True for attention kernels."""
    table = c.table.reset_index(drop=True)
    table["start_ns"], table["end_ns"], table["n_ops"] = _gpu_windows(ops, len(table))
    empty = table["n_ops"].to_numpy() == 0
    if empty.any():
        notes.append(note("steps.empty_ranges", counts=(int(empty.sum()),)))
        remap = np.full(len(table), -1, np.int64)
        remap[~empty] = np.arange(int((~empty).sum()))
        ops["step"] = np.where(ops["step"] >= 0, remap[np.maximum(ops["step"].to_numpy(), 0)], -1)
        table = table[~empty].reset_index(drop=True)
    for col in ("start_ns", "end_ns", "n_ops"):
        table[col] = table[col].astype(np.int64)
    table["start_ns"] = _host_start(table, from_sync=c.source == "cuda_graphs", ops=ops)
    if not len(table):
        raise TraceError(f"{trace.meta.get('path', 'trace')}: no GPU work inside any step")
    ev = kinds.name_evidence(table["name"], vocab)
    table["kind"] = np.where(ev["kind"].to_numpy() == "none", "unknown", ev["kind"].to_numpy())
    tok = ev["tokens"].to_numpy()
    shaped = kinds.tokens_from_shapes(trace, ops, len(table))
    table["tokens"] = np.where(tok > 0, tok, shaped)
    table["layers"] = kinds.layers_per_step(ops, len(table), att)
    kind, kev, knotes = kinds.infer_kinds(table, ops, trace, vocab, att)
    table["kind"], table["kind_evidence"] = kind, kev
    notes += knotes
    table["index"] = table.groupby("rank").cumcount()
    table["warmup"], table["outlier"] = kinds.flag(table)
    if table["warmup"].any():
        notes.append(note("steps.warmup", counts=(int(table["warmup"].sum()),)))
    if table["outlier"].any():
        notes.append(note("steps.outliers", counts=(int(table["outlier"].sum()),)))
    outside = int((ops["step"] < 0).sum())
    if outside:
        notes.append(note("steps.outside", counts=(outside,)))
    return table[STEP_COLUMNS]
