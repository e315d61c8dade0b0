"""Per-rank analysis results (analysis.RankResult) as bytes for the cache, and back: data only.

The layout is msgpack (msgspec) of typed fields, each table an Arrow IPC stream. Decoding checks
every field's type and every table's columns against what analyze_rank makes, so an entry that
is anything else raises Invalid (it is then rebuilt) instead of reaching the merge.
"""
from __future__ import annotations

from typing import Any

import msgspec

from .notes import from_data, to_data

FORMAT = "traceattrib-results"
VERSION = 9  # 2: steps hold graph_kernels; 3: layer and module times (inside_* tables); 4: MoE grouped GEMMs in sol,
# layers named from shapes; 5: gap_detail; 6: steps hold kind_against and outside_ns; 7: integrity checks;
# 8: module times per layer summed per step kind and warm-up; 9: the steps' why says whether the trace trains
# tables of a RankResult that are stored, and the columns each must have (name -> dtype kind:
# "i" integer, "n" number, "b" bool, "s" text); a table with no rows may have no columns at all
_NEEDED: dict[str, dict[str, str]] = {
    "steps": {"rank": "i", "index": "i", "name": "s", "kind": "s", "warmup": "b", "outlier": "b", "start_ns": "i",
              "end_ns": "i", "span_ns": "i", "busy_ns": "i", "idle_ns": "i", "overlap_ns": "i", "graph_kernels": "i",
              "integrity": "s"},
    "collectives": {"rank": "i", "step": "i", "collective": "s", "count": "i", "total_ns": "i", "mean_ns": "n"},
    "instances": {"rank": "i", "step_row": "i", "step": "i", "step_kind": "s", "warmup": "b", "collective": "s",
                  "group": "s", "seq": "i", "start_ns": "i", "end_ns": "i", "bytes": "i", "bytes_source": "s",
                  "group_size": "i"},
    "kernel_totals": {"kind": "s", "warmup": "b", "bucket": "s", "name": "s", "total_ns": "i", "count": "i"},
    "idle_labels": {"rank": "i", "step": "i", "cause": "s", "source": "s", "what": "s", "ns": "i"},
    "shown": {"rank": "i", "step": "i", "why": "s"},
    "inside_layers": {"rank": "i", "step": "i", "layer": "i", "type": "i", "time_ns": "i"},
    "inside_modules": {"rank": "i", "kind": "s", "warmup": "b", "layer": "i", "module": "s", "time_ns": "i",
                       "count": "i"},
    "inside_steps": {"rank": "i", "step": "i", "module": "s", "time_ns": "i", "exposed_ns": "i", "count": "i"},
    "inside_sources": {"rank": "i", "step": "i", "source": "s", "reference": "s"},
    "integrity": {"rank": "i", "check": "s", "status": "s", "count": "i", "checked": "i", "detail": "s"},
    "detail": {"rank": "i", "step": "i", "op": "s", "start_ns": "i", "end_ns": "i", "device": "i", "stream": "i",
               "bucket": "s", "name": "s"},
    "gap_detail": {"rank": "i", "step": "i", "start_ns": "i", "end_ns": "i", "launch_ns": "i", "sync_ns": "i",
                   "host_ns": "i", "unexplained_ns": "i", "queued": "b", "cause": "s", "what": "s", "source": "s"},
}
_OPTIONAL = {"idle_labels", "shown", "detail", "gap_detail", "integrity", "inside_layers", "inside_modules",
             "inside_steps", "inside_sources"}
_INSIDE = ("layers", "modules", "steps", "sources")


class Invalid(Exception):
    """The bytes are not results this module wrote."""


class _Rank(msgspec.Struct, forbid_unknown_fields=True):
    rank: int
    evidence: str
    why: dict[str, Any] | None  # notes.to_data
    buckets: list[str]
    notes: list[dict[str, Any]]
    has_launches: bool
    regex_unmatched: bool
    tables: dict[str, bytes]
    layer_types: list[str] = []


class _Results(msgspec.Struct, forbid_unknown_fields=True):
    format: str
    version: int
    meta: dict[str, Any]
    ranks: list[_Rank]


def encode(meta: dict, results: list) -> bytes:
    """msgpack of (meta, per-rank results); kernels/memops (keep_ops) are not stored."""
    ranks = []
    for r in results:
        tabs = {n: _to_arrow(getattr(r, n)) for n in _NEEDED if not n.startswith("inside_") and getattr(r, n) is not None}
        if r.inside is not None:
            tabs.update({f"inside_{n}": _to_arrow(getattr(r.inside, n)) for n in _INSIDE})
        ranks.append(_Rank(rank=int(r.rank), evidence=r.evidence, why=None if r.why is None else to_data(r.why),
                           buckets=list(r.buckets), notes=[to_data(n) for n in r.notes],
                           has_launches=bool(r.has_launches),
                           regex_unmatched=bool(r.regex_unmatched), tables=tabs,
                           layer_types=list(r.inside.types) if r.inside is not None else []))
    return msgspec.msgpack.encode(_Results(format=FORMAT, version=VERSION, meta=meta, ranks=ranks))


def decode(blob: bytes) -> tuple[dict, list]:
    """(meta, list of analysis.RankResult) from `encode`'s bytes; raises Invalid otherwise."""
    import pyarrow as pa

    from .analysis import RankResult

    try:
        got = msgspec.msgpack.decode(blob, type=_Results)
    except msgspec.DecodeError as e:  # ValidationError included
        raise Invalid(str(e)) from None
    if got.format != FORMAT or got.version != VERSION:
        raise Invalid("another format")
    out = []
    for r in got.ranks:
        if set(r.tables) - set(_NEEDED) or (set(_NEEDED) - _OPTIONAL) - set(r.tables):
            raise Invalid("unexpected tables")
        try:
            tabs = {n: _from_arrow(b, _NEEDED[n]) for n, b in r.tables.items()}
        except (pa.ArrowException, ValueError, TypeError) as e:
            raise Invalid(str(e)) from None
        if len(tabs["steps"].columns):
            _check(tabs["steps"], {c: "i" for b in r.buckets for c in (f"{b}_time_ns", f"{b}_exposed_ns", f"{b}_count")})
        try:
            why = None if r.why is None else from_data(r.why)
            notes = [from_data(n) for n in r.notes]
        except ValueError as e:
            raise Invalid(str(e)) from None
        inside = None
        if all(f"inside_{n}" in tabs for n in _INSIDE):
            from .layers import Times

            inside = Times(**{n: tabs[f"inside_{n}"] for n in _INSIDE}, types=list(r.layer_types))
        out.append(RankResult(rank=r.rank, evidence=r.evidence, why=why, buckets=tuple(r.buckets), notes=notes,
                              has_launches=r.has_launches, regex_unmatched=r.regex_unmatched,
                              idle_labels=tabs.get("idle_labels"), shown=tabs.get("shown"), detail=tabs.get("detail"),
                              gap_detail=tabs.get("gap_detail"), integrity=tabs.get("integrity"),
                              inside=inside, **{n: tabs[n] for n in _NEEDED if n not in _OPTIONAL}))
    return got.meta, out


def _to_arrow(df) -> bytes:
    import pyarrow as pa

    table = pa.Table.from_pandas(df, preserve_index=False)
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, table.schema) as w:
        w.write_table(table)
    return sink.getvalue().to_pybytes()


def _from_arrow(data: bytes, needed: dict[str, str]):
    import pyarrow as pa

    df = pa.ipc.open_stream(pa.py_buffer(data)).read_all().to_pandas()
    if len(df.columns) or len(df):
        _check(df, needed)
    return df


_KINDS = {"i": "iu", "n": "iuf", "b": "b"}


def _check(df, needed: dict[str, str]) -> None:
    """Raise Invalid unless `df` has every needed column, with values of its kind when it has rows."""
    import pandas as pd

    for c, kind in needed.items():
        if c not in df.columns:
            raise Invalid(f"no column {c}")
        if not len(df):
            continue
        dt = df[c].dtype
        ok = (dt.kind in _KINDS[kind]) if kind in _KINDS else \
            (dt.kind in "OSU" or isinstance(dt, (pd.StringDtype, pd.CategoricalDtype)))
        if not ok:
            raise Invalid(f"column {c} holds {dt}")
