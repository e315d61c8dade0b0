"""Split a trace into steps, one forward pass of the model (one scheduler iteration) each, and
assign every GPU op to one.

The stages, each reading only what the ones before made:
  context     inputs.py    what every source needs, computed once: the GPU-op table
                           (traceattrib.gpuops), attention kernels, sync call ends, vocabulary
  candidates  sources.py   `--steps REGEX` ranges; the steps the trace states (traceattrib's own
                           export); annotation ranges of every framework generation
                           (rules/steps.toml: vLLM, SGLang, TensorRT-LLM, generic names,
                           ProfilerStep#N); Python frames of the model runner (with_stack)
              graphs.py    CUDA-graph launches grouped by their repeating cycle
              detect.py    detection from the kernel stream at the model level
  choose      chooser.py   the first candidate, in the order above, whose steps each hold one of
                           detection's once-per-forward anchors (a user's --steps and the steps a
                           trace states always win), else the whole trace
  table       table.py     the step table and the op -> step assignment, as new frames and arrays
  kinds       kinds.py     kind, tokens and layers per step, from what the GPU did (physical.py:
                           shapes, launch grids) first, names (names.py) and kernel variants second
  flags       flags.py     warm-up and outlier steps
`find_steps` runs them in one thread. Detection reads only the GPU-op table and the attention
mask, so analysis.analyze_rank runs it beside the context and the first candidate; then `place`
(choose, table) and `finish` (kinds, flags), the idle causes beside `finish`: they read only the
placed steps' windows. `find` is `place` then `finish`.
All times int64 ns.
"""
from __future__ import annotations

import itertools
import re
from collections.abc import Iterator
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ..errors import TraceError
from ..gpuops import gpu_ops
from ..model import Trace
from ..notes import Note, note
from . import flags, graphs, kinds, sources
from .arrays import name_matches
from .candidate import Candidate
from .chooser import choose
from .detect import Detected, detection
from .inputs import Context, attention_mask, bucket_mask, context, trained_ranks
from .names import word_kind
from .table import step_table
from .vocab import Vocab, default_vocab

__all__ = ["MODEL_BUCKETS", "Candidate", "Context", "Detected", "Steps", "attention_mask", "bucket_mask", "candidates",
           "context", "detection", "find", "find_steps", "finish", "name_kind", "place", "Placed"]

MODEL_BUCKETS = ("linear", "attention")  # kernels that say a step is a model's forward

STEP_COLUMNS = ["rank", "index", "name", "kind", "kind_evidence", "kind_against", "tokens", "layers", "start_ns",
                "end_ns", "cpu_start_ns", "cpu_end_ns", "outside_ns", "n_ops", "warmup", "outlier"]


@dataclass
class Steps:
    """Steps and the op -> step assignment.

    table: one row per step (STEP_COLUMNS): rank, index, name, kind (prefill | decode | mixed |
           unknown), kind_evidence (the sources that agreed, the deciding one first, ", "-joined),
           kind_against ("source=kind" of those that did not), tokens (-1 unknown), layers (-1
           unknown), start_ns / end_ns
           (GPU window: first op start to last op end), cpu_start_ns / cpu_end_ns (the source's
           window), outside_ns (the span outside what the step's range holds, when ranges were
           widened to the iteration: table.outside_ranges; -1 when steps are not from ranges),
           n_ops, warmup, outlier.
    ops:   the GPU-op table (gpuops.gpu_ops: kernels, memops, whole-graph executions) with `step`,
           the row in `table` of each op (-1 = outside steps); a new frame, the input is unchanged.
    evidence: the source used: 'regex' | 'given' | 'annotations' | 'python_frames' | 'cuda_graphs' |
           'detected' | 'whole_trace'.
    why:   what the source found and why it passed the cross-check (a note: "why.from", "why.whole").
    notes: what the user should know (thin evidence, inferred kinds, dropped warm-up, ...).
    attention: per row of `ops`, True for attention kernels (None: kernels not classified).
    """

    table: pd.DataFrame
    ops: pd.DataFrame
    evidence: str
    why: Note | None = None
    notes: list[Note] = field(default_factory=list)
    attention: np.ndarray | None = None


def name_kind(name: str, vocab: Vocab | None = None) -> str:
    """prefill | decode | mixed | unknown from a step's name (kind words only)."""
    return word_kind(name, vocab or default_vocab())


def find_steps(trace: Trace, regex: str | None = None, kernel_buckets: pd.Series | None = None,
               layers: int | None = None, vocab: Vocab | None = None, ops: pd.DataFrame | None = None) -> Steps:
    """Find steps from the best evidence present and assign GPU ops to them, in this thread.

    kernel_buckets: the classification of trace.kernels (aligned), used to count attention calls
    (layers per step) and attention variants (kinds); layers: the user's --layers, checked;
    ops: `gpuops.gpu_ops(trace)` when already made (read, never written)."""
    ops = gpu_ops(trace) if ops is None else ops
    attention = attention_mask(ops, kernel_buckets)
    ctx = context(trace, ops, attention, vocab, model=bucket_mask(ops, kernel_buckets, MODEL_BUCKETS))
    cands = candidates(ctx, regex)
    return find(ctx, cands, detection(ops, attention), layers)


def _captures(table: pd.DataFrame, ctx: Context) -> Note | None:
    """A note when steps hold the start of a stream capture (the kernels launched while capturing
    are recorded into a graph, not run: such a step is graph capture, not a forward pass):
    counts (steps, capture calls in them)."""
    la = ctx.trace.launches
    if not len(table) or not len(la):
        return None
    t = la["start_ns"].to_numpy(np.int64)[name_matches(la["name"], ctx.vocab.graph_capture)]
    if not t.size:
        return None
    order = np.argsort(table["start_ns"].to_numpy(np.int64), kind="stable")
    s, e = table["start_ns"].to_numpy(np.int64)[order], table["end_ns"].to_numpy(np.int64)[order]
    row = np.searchsorted(s, t, side="right") - 1  # the last step starting at or before the call
    inside = (row >= 0) & (t < e[np.maximum(row, 0)])
    if not inside.any():
        return None
    return note("steps.graph_capture", counts=(np.unique(row[inside]).size, int(inside.sum())))


def candidates(ctx: Context, regex: str | None = None) -> Iterator[Candidate]:
    """The sources' candidates in order of preference: the --steps regex's, each annotation
    family's, Python frames', CUDA-graph cycles' (detection's comes from `detection`). The first
    is made now, the rest when the chooser asks (it stops at the first that passes). TraceError
    when the regex is invalid or matches no range."""
    it = _candidates(ctx, regex)
    first = next(it, None)
    return iter(()) if first is None else itertools.chain([first], it)


def _candidates(ctx: Context, regex: str | None) -> Iterator[Candidate]:
    if regex:
        try:
            pat = re.compile(regex)
        except re.error as e:
            raise TraceError(f"{{steps_regex}}: invalid regular expression {regex!r} ({e})", "steps_regex") from None
        c = sources.from_regex(ctx, pat)
        if c is None:
            raise TraceError(f"{{steps_regex}} {regex!r} matches no range name in the trace", "steps_regex", "no_match")
        yield c
    c = sources.from_given(ctx)
    if c is not None:
        yield c
    yield from sources.from_annotations(ctx)
    for make in (sources.from_frames, graphs.from_graphs):
        c = make(ctx)
        if c is not None:
            yield c


@dataclass
class Placed:
    """Steps chosen and placed, their kinds not yet worked out (`find`'s first half).

    table: the step table of table.step_table (rank, index, name, start_ns, end_ns, cpu_start_ns,
    cpu_end_ns, outside_ns, n_ops: the rows and windows of the final table); ops: the GPU-op
    table with `step`, as Steps.ops; chosen: the candidate; why and notes so far."""

    table: pd.DataFrame
    ops: pd.DataFrame
    chosen: Candidate
    why: Note | None
    notes: list[Note]


def find(ctx: Context, cands: Iterator[Candidate], detected: Detected, layers: int | None = None) -> Steps:
    """Steps from the first of `cands` (then detection's candidate) that passes the cross-check
    against detection's anchors, else the whole trace; layers: the user's --layers, checked."""
    return finish(ctx, place(ctx, cands, detected), layers)


def place(ctx: Context, cands: Iterator[Candidate], detected: Detected) -> Placed:
    """The chosen candidate's step table and op -> step assignment (no kinds yet): what the
    analyses that read only step windows (idle causes) need."""
    tail = [detected.candidate] if detected.candidate is not None else []
    trained = trained_ranks(ctx.trace) if ctx.training else set()
    chosen, why, rejected = choose(itertools.chain(cands, tail), detected.ranks, ctx.training, trained)
    if chosen is None:
        chosen, why = sources.whole_trace(ctx.ops), note("why.whole")
    if chosen.source == "cuda_graphs":
        chosen = graphs.add_eager_forwards(chosen, ctx)
    notes = list(chosen.notes) + rejected
    if chosen.source == "detected":
        notes.append(note("steps.detected"))
    table, step, table_notes = step_table(chosen, ctx)
    return Placed(table=table, ops=ctx.ops.assign(step=step), chosen=chosen, why=why, notes=notes + table_notes)


def finish(ctx: Context, placed: Placed, layers: int | None = None) -> Steps:
    """The placed steps with their kinds, tokens, layers and flags (the final table, STEP_COLUMNS)
    and what the reader should know; layers: the user's --layers, checked."""
    table, chosen, notes = placed.table, placed.chosen, list(placed.notes)
    step = placed.ops["step"].to_numpy()
    described, kind_notes = kinds.describe(table, step, ctx)
    if chosen.source == "given":  # the kinds the trace states, not inferred: nothing to say about inferring
        described, kind_notes = sources.given_kinds(table, described), []
    work = described.pop("work")
    table = table.assign(**described)
    warmup, outlier, flag_notes = flags.flag(table, work)
    table = table.assign(warmup=warmup, outlier=outlier)[STEP_COLUMNS]
    notes += kind_notes + flag_notes
    captured = _captures(table, ctx)
    if captured is not None:
        notes.append(captured)
    outside = int((step < 0).sum())
    if outside:
        notes.append(note("steps.outside", counts=(outside,)))
    if layers and len(table) and (table["layers"] > 0).any():
        got = int(np.median(table.loc[table["layers"] > 0, "layers"]))
        if got != layers:
            notes.append(note("steps.layers_mismatch", layers, got))
    return Steps(table=table, ops=placed.ops, evidence=chosen.source, why=placed.why, notes=notes,
                 attention=ctx.attention)
