"""JSON (the stable contract documented in the README) and CSV (one row per step).

The JSON is the typed report as data (`plain`): a struct is an object with its fields in order, an
UNSET field is left out, the fields a struct names in `__inline__` put their own fields into its
object, a note is its sentence and a finding {"what", "bound", "evidence"}. `Document` and the
types under it describe the rest of the document: render/contract.py writes the README's contract
from them and checks reports against it.
"""
from __future__ import annotations

import json
import math
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import numpy as np
from msgspec import UNSET, Struct, UnsetType

from .. import __version__, idle
from ..analysis import Report

if TYPE_CHECKING:
    import pandas as pd
from ..notes import Note
from ..report import Finding, Summary
from .findings import as_dict
from .notes import text, texts

SCHEMA_VERSION = 1
STEP_ROWS = 2000  # steps rendered at a time


def plain(x: Any) -> Any:
    """A typed value as JSON-able data (see the module docstring); numbers stay as they are."""
    if isinstance(x, Note):
        return text(x)
    if isinstance(x, Finding):
        return as_dict(x)
    if hasattr(x, "__struct_fields__"):
        inline = getattr(type(x), "__inline__", ())
        out: dict[str, Any] = {}
        for f in x.__struct_fields__:
            v = getattr(x, f)
            if v is UNSET:
                continue
            if f in inline:
                if v is not None:
                    out.update(plain(v))
            else:
                out[f] = plain(v)
        return out
    if isinstance(x, dict):
        return {k: plain(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [plain(v) for v in x]
    if isinstance(x, np.generic):
        return x.item()
    return x


def summary_dict(s: Summary) -> dict[str, Any]:
    """The summary as schema_version 1 writes it (`evidence_why` "" when unknown)."""
    d = plain(s)
    if d.get("evidence_why") is None:
        d["evidence_why"] = ""
    return d


# --- the document around the summary (what render/contract.py writes the contract from) -----------

class TraceInfo(Struct):
    """The trace the report is about, from its reader."""

    path: str | None
    format: str | None  # nsys | torch | traceattrib (its own trace-event export)
    profiler: str | None
    profiler_version: str | None
    schema_version: Any
    gpus: list[str] | None
    devices: list[int] | None
    ranks: list[int] | None
    world_size: int | None


class StepBucket(Struct):
    time_ns: int
    exposed_ns: int
    count: int


class StepCollective(Struct):
    """One collective in one step: calls, mean call; bytes (total, null unknown), wait + transfer =
    the calls' time."""

    count: int
    mean_ns: float
    bytes: int | None | UnsetType = UNSET
    wait_ns: int | UnsetType = UNSET
    transfer_ns: int | UnsetType = UNSET


class StepSpeedOfLight(Struct):
    """The step's floor (sol.step_columns); null where unknown."""

    source: str | UnsetType = UNSET  # shapes | model | unknown
    weight_bytes: float | None | UnsetType = UNSET
    kv_bytes: float | None | UnsetType = UNSET
    bytes: float | None | UnsetType = UNSET
    activation_bytes: float | None | UnsetType = UNSET
    flops: float | None | UnsetType = UNSET
    dtype: str | UnsetType = UNSET
    gpu: str | UnsetType = UNSET
    peak_bw_Bps: float | None | UnsetType = UNSET
    peak_flops: float | None | UnsetType = UNSET
    min_step_ns: float | None | UnsetType = UNSET
    hbm_efficiency: float | None | UnsetType = UNSET
    mfu: float | None | UnsetType = UNSET
    linear_bw_Bps: float | None | UnsetType = UNSET
    attention_bw_Bps: float | None | UnsetType = UNSET
    linear_min_ns: float | None | UnsetType = UNSET


class Step(Struct):
    """One step: its window on the GPU timeline and its time by bucket (exposed + overlap + idle =
    span exactly)."""

    index: int
    rank: int
    name: str
    kind: str  # decode | prefill | mixed | unknown
    kind_evidence: str  # the sources that agreed on the kind, the deciding one first, ", "-joined ("" when unknown)
    kind_against: str  # "source=kind" of the sources that said another kind, ", "-joined ("" when none)
    tokens: int | None
    layers: int | None
    warmup: bool
    outlier: bool
    integrity: list[str]  # the integrity checks that failed on this step (summary.integrity), [] none
    start_ns: int
    end_ns: int
    span_ns: int
    outside_range_ns: int | None  # span outside what the step's range holds (null: steps not from ranges)
    busy_ns: int
    idle_ns: int
    overlap_ns: int
    buckets: dict[str, StepBucket]
    speedup_bound_if_removed: dict[str, float | None]  # null when the bucket is the whole span
    collectives: dict[str, StepCollective]
    speed_of_light: StepSpeedOfLight
    idle_causes_ns: dict[str, int] | UnsetType = UNSET  # sum to idle_ns exactly
    idle_launch_queued_ns: int | UnsetType = UNSET  # part of launch: the next op already queued
    layers_ns: list[int] | UnsetType = UNSET  # per layer (0, 1, ...): the union of its ops, when layers were found


class Document(Struct):
    """`traceattrib report --format json`."""

    traceattrib_version: str
    schema_version: int
    trace: TraceInfo
    evidence: str  # regex | given | annotations | python_frames | cuda_graphs | detected | whole_trace | none
    evidence_why: str  # what the source found, why it passed the cross-check
    buckets: list[str]
    notes: list[str]
    steps: list[Step]
    summary: Summary


def to_dict(rep: Report, with_steps: bool = True) -> dict[str, Any]:
    """The document `report --format json` writes (with_steps=False: without its `steps`)."""
    summary = summary_dict(rep.summary)
    doc = {"traceattrib_version": __version__, "schema_version": SCHEMA_VERSION, "trace": trace_info(rep.meta),
           "evidence": rep.evidence, "evidence_why": summary["evidence_why"],
           "buckets": list(rep.buckets), "notes": texts(rep.notes)}
    if with_steps:
        doc["steps"] = _steps(rep)
    doc["summary"] = summary
    return jsonable(doc)


def trace_info(meta: dict[str, Any]) -> dict[str, Any]:
    """The document's `trace`: what the reader says about the trace (TraceInfo)."""
    return {k: meta.get(k) for k in TraceInfo.__struct_fields__}


def step_list(rep: Report) -> list[dict[str, Any]]:
    """The document's `steps`, one object per step (Step) in the report's order, JSON-safe."""
    return jsonable(_steps(rep))


def _steps(rep: Report) -> list[dict[str, Any]]:
    return [s for part in _step_parts(rep) for s in part]


def _step_parts(rep: Report, rows: int = STEP_ROWS) -> Iterator[list[dict[str, Any]]]:
    """The document's steps, `rows` steps at a time (the per-step dicts of a report of hundreds of
    thousands of steps would hold several times the memory of its text)."""
    cols = rep.collectives
    layer_ns = _layers_ns(rep)
    by_step = _collectives_by_step(cols)
    causes = idle.has_causes(rep.steps)
    for lo in range(0, len(rep.steps), rows):
        yield _steps_of(rep.steps.iloc[lo:lo + rows], rep.buckets, by_step, layer_ns, causes)


def _steps_of(t, buckets, by_step: dict, layer_ns: dict, causes: bool) -> list[dict[str, Any]]:
    """One Step object per row of `t`, made column by column (each column to Python values once,
    not a dict per row looked up by name)."""
    from ..sol import STEP_COLUMNS

    def col(c: str, default=None) -> list:
        return t[c].tolist() if c in t.columns else [default] * len(t)

    index, rank, span = col("index"), col("rank"), col("span_ns")
    per_bucket = [(b, col(f"{b}_time_ns"), col(f"{b}_exposed_ns"), col(f"{b}_count")) for b in buckets]
    sol = [(c.removeprefix("sol_"), col(c)) for c in STEP_COLUMNS if c in t.columns]
    idle_cols = [(c, col(name)) for c, name in zip(idle.CAUSES, idle.CAUSE_COLUMNS)] if causes else []
    queued = col(idle.QUEUED_COLUMN) if causes else []
    rows = zip(range(len(t)), index, rank, col("name"), col("kind"), col("kind_evidence", ""),
               col("kind_against", ""), col("tokens"), col("layers"), col("warmup"), col("outlier"),
               col("integrity"), col("start_ns"), col("end_ns"), span, col("outside_ns"), col("busy_ns"),
               col("idle_ns"), col("overlap_ns"))
    out = []
    for (i, ix, rk, name, kind, evidence, against, tokens, layers, warmup, outlier, integrity, start, end, sp,
         outside, busy, idle_ns, overlap) in rows:
        key = (int(rk), int(ix))
        step = {
            "index": key[1], "rank": key[0], "name": str(name), "kind": kind,
            "kind_evidence": str(evidence), "kind_against": str(against),
            "tokens": _known(tokens), "layers": _known(layers),
            "warmup": bool(warmup), "outlier": bool(outlier),
            "integrity": [x for x in str(integrity or "").split(",") if x],
            "start_ns": int(start), "end_ns": int(end), "span_ns": int(sp),
            "outside_range_ns": _known(outside),
            "busy_ns": int(busy), "idle_ns": int(idle_ns), "overlap_ns": int(overlap),
            "buckets": {b: {"time_ns": int(tm[i]), "exposed_ns": int(ex[i]), "count": int(n[i])}
                        for b, tm, ex, n in per_bucket},
            "speedup_bound_if_removed": {b: _bound(sp, ex[i]) for b, _, ex, _ in per_bucket},
            "collectives": by_step.get(key, {}),
            "speed_of_light": {c: (v[i] if isinstance(v[i], str) else _num(v[i])) for c, v in sol},
        }
        if causes:
            step["idle_causes_ns"] = {c: int(v[i]) for c, v in idle_cols}
            step["idle_launch_queued_ns"] = int(queued[i])
        lay = layer_ns.get(key)
        if lay is not None:
            step["layers_ns"] = lay
        out.append(step)
    return out


def _layers_ns(rep: Report) -> dict[tuple[int, int], list[int]]:
    """Per step with layers: the time of layer 0, 1, ... (the union of its ops, ns)."""
    from ..layers import MIN_LAYERS

    t = rep.inside.layers if rep.inside is not None else None
    if t is None or not len(t):
        return {}
    t = t[t["layer"] >= 0]
    if not len(t):
        return {}
    rank, step = t["rank"].to_numpy(np.int64), t["step"].to_numpy(np.int64)
    layer, ns = t["layer"].to_numpy(np.int64), t["time_ns"].to_numpy(np.int64)
    order = np.lexsort((layer, step, rank))
    rank, step, layer, ns = rank[order], step[order], layer[order], ns[order]
    first = np.flatnonzero(np.r_[True, (rank[1:] != rank[:-1]) | (step[1:] != step[:-1])])
    rows = np.diff(np.r_[first, rank.size])
    keep = rows >= MIN_LAYERS
    member = np.repeat(keep, rows)  # the rows of the steps kept
    last = (np.r_[first[1:], rank.size] - 1)[keep]
    first, rows = first[keep], rows[keep]
    # every kept step's layers as one flat zero-filled vector (layer 0 to its last), cut per step
    at = np.r_[0, np.cumsum(layer[last] + 1)]
    flat = np.zeros(int(at[-1]), np.int64)
    flat[np.repeat(at[:-1], rows) + layer[member]] = ns[member]
    flat_list = flat.tolist()
    return {(int(rank[f]), int(step[f])): flat_list[at[i]:at[i + 1]] for i, f in enumerate(first.tolist())}


def _known(v):
    """A count the trace may not give (-1 in the tables) as int or null."""
    return None if v is None or v < 0 else int(v)


def _num(v):
    if v is None:
        return None
    f = float(v)
    return None if math.isnan(f) or math.isinf(f) else (int(f) if f.is_integer() and abs(f) < 2 ** 53 else f)


def _collectives_by_step(cols: pd.DataFrame) -> dict[tuple[int, int], dict[str, dict[str, Any]]]:
    """Per (rank, step index): each collective's count, mean_ns; with traceattrib.comm: bytes
    (total, null when unknown), wait_ns and transfer_ns (wait + transfer = the calls' total
    duration). Collectives of a step in the table's row order; made column by column."""
    out: dict[tuple[int, int], dict[str, dict[str, Any]]] = {}
    if not len(cols):
        return out
    comm = "bytes" in cols.columns
    rows = zip(cols["rank"].tolist(), cols["step"].tolist(), cols["collective"].tolist(), cols["count"].tolist(),
               cols["mean_ns"].tolist(), *((cols[c].tolist() for c in ("bytes", "wait_ns", "transfer_ns")) if comm
                                           else ()))
    for rank, step, name, count, mean, *more in rows:
        d = {"count": int(count), "mean_ns": float(mean)}
        if comm:
            b, wait, transfer = more
            d["bytes"] = int(b) if b >= 0 else None
            d["wait_ns"] = int(wait)
            d["transfer_ns"] = int(transfer)
        out.setdefault((int(rank), int(step)), {})[str(name)] = d
    return out


def _bound(span: int, exposed: int):
    return None if span - exposed <= 0 else span / (span - exposed)


def jsonable(x):
    """JSON-safe: numpy scalars to Python, inf/nan to null."""
    t = type(x)
    if t is int or t is str or t is bool or x is None:  # most values: checked first, by type
        return x
    if isinstance(x, dict):  # string keys as they are (a numpy string's own characters)
        return {k if isinstance(k, str) else str(k): jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [jsonable(v) for v in x]
    if isinstance(x, (np.integer,)):
        return int(x)
    if isinstance(x, (np.floating, float)):
        f = float(x)
        return None if math.isinf(f) or math.isnan(f) else f
    if isinstance(x, np.bool_):
        return bool(x)
    return x


def _dumps(x: Any) -> str:
    """json.dumps(jsonable(x)) for x whose dict keys are strings (a report's are): straight when x
    holds no NaN or infinity (numpy scalars converted on the way), else through jsonable."""
    try:
        return json.dumps(x, allow_nan=False, default=scalar)
    except (TypeError, ValueError):
        return json.dumps(jsonable(x))


def scalar(x: Any) -> Any:
    """A numpy scalar as jsonable makes it (json.dumps' fallback for types it cannot write)."""
    if isinstance(x, (np.integer, np.bool_, np.floating)):
        return jsonable(x)
    raise TypeError(type(x).__name__)


def render(rep: Report) -> str:
    """json.dumps(to_dict(rep), indent=1) and a newline, byte for byte, made a few thousand steps
    at a time: at most the text twice is held (its pieces and their join), not the whole document
    as Python objects beside it (2.2 GB for the 398 MB text of 190k steps)."""
    return "".join(_pieces(rep, STEP_ROWS))


_SLOT = "\x00steps\x00"  # stands for the steps in the document without them


def _pieces(rep: Report, rows: int) -> Iterator[str]:
    doc = to_dict(rep, with_steps=False)
    summary = doc.pop("summary")
    doc["steps"], doc["summary"] = _SLOT, summary
    # the line of a top-level key starts with one space, and a string never holds a line break:
    # this line is the slot's alone
    head, tail = indent(json.dumps(doc)).split(f'\n "steps": {json.dumps(_SLOT)},\n')
    yield head + '\n "steps": '
    n = 0
    for part in _step_parts(rep, rows):
        # the part as a list at depth 0 ("[\n {...}\n]"): its items one level deeper, brackets off
        inner = indent(_dumps(part))[2:-2].replace("\n", "\n ")
        yield ("[\n " if not n else ",\n ") + inner
        n += len(part)
    yield ("\n ]" if n else "[]") + ",\n" + tail + "\n"


def dump(d: Any) -> str:
    """json.dumps(d, indent=1), byte for byte."""
    return indent(json.dumps(d))


def indent(text: str) -> str:
    """Compact json.dumps text as json.dumps(..., indent=1) writes it, byte for byte: re-indented by
    msgspec, about 4x faster on reports of thousands of steps; by json itself when msgspec cannot
    read the text (NaN / Infinity, which json.dumps writes and JSON has not)."""
    import msgspec

    try:
        return msgspec.json.format(text, indent=1)
    except msgspec.DecodeError:
        return json.dumps(json.loads(text), indent=1)


def render_csv(rep: Report) -> str:
    cols = ["rank", "index", "name", "kind", "warmup", "outlier", "start_ns", "end_ns", "span_ns", "busy_ns",
            "idle_ns", "overlap_ns"]
    for b in rep.buckets:
        cols += [f"{b}_time_ns", f"{b}_exposed_ns", f"{b}_count"]
    from ..sol import STEP_COLUMNS  # speed-of-light columns (sol.py)
    cols += [c for c in ("tokens",) + STEP_COLUMNS if c in rep.steps.columns and c not in cols]
    if idle.has_causes(rep.steps):
        cols += list(idle.CAUSE_COLUMNS) + [idle.QUEUED_COLUMN]
    if "integrity" in rep.steps.columns:  # the failed integrity checks of the step, comma-joined
        cols.append("integrity")
    return rep.steps[cols].to_csv(index=False)
