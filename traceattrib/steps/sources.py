"""Step sources that read CPU-side windows: the user's `--steps` regex, annotation ranges of
every framework generation (rules/steps.toml), and Python frames of the model runner; the steps a
trace states itself (traceattrib's own export); and the whole trace as one step per rank when
nothing else holds. Each is a pure function of the context that returns a Candidate (or None when
the trace has no such evidence). Times int64 ns.
"""
from __future__ import annotations

import re
from collections.abc import Iterator

import numpy as np
import pandas as pd

from ..intervals import pack_keys
from ..notes import note
from ..report import KINDS
from .arrays import name_in, name_matches
from .candidate import WINDOW_COLUMNS, Candidate
from .inputs import Context
from .names import name_evidence
from .windows import assign, drop_nested, select_ranges, windows_from_ranges


def from_regex(ctx: Context, pat: re.Pattern) -> Candidate | None:
    """Ranges whose name matches the user's `--steps` regex."""
    rng = select_ranges(ctx.trace.ranges, pat)
    if not len(rng):
        return None
    step, tab = assign(windows_from_ranges(rng), ctx.ops, ctx.syncs)
    return Candidate("regex", note("label.regex", pat.pattern), tab, step)


def from_annotations(ctx: Context) -> Iterator[Candidate]:
    """One candidate per vocabulary family with members, in the vocabulary's order, each made when
    asked for. Ranges whose counts say no forward ran (vLLM's execute_context_0(0)_generation_0(0))
    are left out."""
    vocab = ctx.vocab
    for fam in vocab.families:
        rng = select_ranges(ctx.trace.ranges, fam.regex, vocab.exclude)
        if not len(rng):
            continue
        idle = name_evidence(rng["name"], vocab)["kind"].to_numpy() == "none"
        rng = rng[~idle]
        if not len(rng):
            continue
        step, tab = assign(windows_from_ranges(rng), ctx.ops, ctx.syncs)
        names = list(dict.fromkeys(rng.sort_values("start_ns")["name"].astype(str).tolist()))
        notes = (note("steps.idle_ranges", counts=(int(idle.sum()),)),) if idle.any() else ()
        yield Candidate("annotations", note("label.annotations", fam.framework, tuple(names[:2]), len(names) > 2),
                        tab, step, forward=fam.forward, notes=notes)


def from_frames(ctx: Context) -> Candidate | None:
    """Python frames (with_stack) of the model runner's call that encloses one forward."""
    c = ctx.trace.cpu_ops
    if not len(c) or not ctx.vocab.frames:
        return None
    py = c[name_in(c["kind"], ["python_function"])]
    if not len(py):
        return None
    hit = np.zeros(len(py), bool)
    names = []
    for name, pat in ctx.vocab.frames:
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
    step, tab = assign(win, ctx.ops, ctx.syncs)
    return Candidate("python_frames", note("label.frames", tuple(names)), tab, step)


GIVEN_COLUMNS = ["given_kind", "given_tokens", "given_layers"]  # what a given step says of itself, beside WINDOW_COLUMNS


def from_given(ctx: Context) -> Candidate | None:
    """The steps the trace states (model.GIVEN_STEP_COLUMNS: traceattrib's own export), each op in
    the step its given_step names (its index on the op's rank; the trace's say, not a guess from
    times, so overlapping steps keep their ops) and each step starting where it says (its window
    opens there, so the step table keeps a start before the first op). The table carries each
    step's stated kind, tokens and layers (GIVEN_COLUMNS) for `given_kinds`."""
    g = ctx.trace.given_steps
    if not len(g):
        return None
    g = g.sort_values(["rank", "index"], kind="stable", ignore_index=True)
    ops = ctx.ops
    tables = {"kernel": ctx.trace.kernels, "memop": ctx.trace.memops, "graph": ctx.trace.graphs}
    given = np.full(len(ops), -1, np.int64)
    kind, src = ops["kind"].astype(str).to_numpy(), ops["src"].to_numpy(np.int64)
    for k, tab in tables.items():
        m = kind == k
        if m.any():
            given[m] = tab["given_step"].to_numpy(np.int64)[src[m]]
    gk, ok = pack_keys([g["rank"].to_numpy(np.int64), g["index"].to_numpy(np.int64)],
                       [ops["rank"].to_numpy(np.int64), given])
    order = np.argsort(gk, kind="stable")
    at = np.clip(np.searchsorted(gk[order], ok), 0, max(gk.size - 1, 0))
    step = np.where((given >= 0) & (gk[order][at] == ok), order[at], -1).astype(np.int64)
    first = pd.DataFrame({"rank": ops["rank"].to_numpy(np.int64), "pid": ops["pid"].to_numpy(np.int64)}) \
        .drop_duplicates("rank").set_index("rank")["pid"]
    pid = first.reindex(g["rank"].to_numpy(np.int64)).fillna(0).to_numpy(np.int64)  # the rank's first op's
    tab = pd.DataFrame({"rank": g["rank"].to_numpy(), "name": g["name"].astype(str).to_numpy(), "pid": pid,
                        "cpu_start_ns": g["start_ns"].to_numpy(np.int64), "cpu_end_ns": g["end_ns"].to_numpy(np.int64),
                        "gpu_side": False})
    tab["own_start_ns"], tab["own_end_ns"] = tab["cpu_start_ns"], tab["cpu_end_ns"]
    tab["given_kind"] = g["kind"].astype(str).to_numpy()
    tab["given_tokens"] = g["tokens"].to_numpy(np.int64)
    tab["given_layers"] = g["layers"].to_numpy(np.int64)
    source = str(ctx.trace.meta.get("exported_from") or "")
    return Candidate("given", note("label.given", source), tab, step)


def given_kinds(table: pd.DataFrame, described: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """`kinds.describe`'s columns with each given step's stated kind (kind_evidence 'given'),
    tokens and layers where it states them (table: the step table of a `from_given` candidate)."""
    kind = table["given_kind"].to_numpy(object)
    known = np.isin(kind, list(KINDS))
    tok = table["given_tokens"].to_numpy(np.int64)
    lay = table["given_layers"].to_numpy(np.int64)
    return dict(described,
                kind=np.where(known, kind, described["kind"]),
                kind_evidence=np.where(known, "given", described["kind_evidence"]),
                tokens=np.where(tok >= 0, tok, described["tokens"]),
                layers=np.where(lay >= 0, lay, described["layers"]))


def whole_trace(ops: pd.DataFrame) -> Candidate:
    """One step per rank from its first op to its last."""
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
