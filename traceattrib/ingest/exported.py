"""Reader of traceattrib's own trace-event export (render/perfetto.py), `.json` or `.json.gz`.

A JSON trace whose otherData holds the MARKER key is one of ours. Its GPU-op slices (args.gpu_op
kernel | memop | graph) come back as the model's kernels, memops and graphs, with the evidence
classification, communication and step kinds read (name, launching op chain and input types,
collective arguments, grid, graph ids); its steps track comes back as given_steps, the steps the
trace states (steps/sources.py `from_given` takes them). Times are the file's microseconds
(three decimals: exact ns) plus otherData's origin, ranks from otherData's pid -> rank map. The
tracks traceattrib computed (idle gaps, collectives, counters) are its own output, not evidence,
and are not read. There is no CPU side: idle time is unexplained and layers are found by position.

The events are streamed in pieces (kineto.stream: any JSON layout) and parsed by pyarrow with an
explicit schema; a piece pyarrow refuses is parsed by the stdlib.
"""
from __future__ import annotations

import gzip
import io
import json
import os
import zlib

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.json as pj

from ..errors import TraceError
from ..model import (
    CPU_OP_COLUMNS,
    GIVEN_STEP_COLUMNS,
    GRAPH_COLUMNS,
    KERNEL_COLUMNS,
    LAUNCH_COLUMNS,
    MEMOP_COLUMNS,
    RANGE_COLUMNS,
    Trace,
    conform,
    empty,
    unnamed_gpu,
)

MARKER = b'"traceattrib_export"'  # render/perfetto.py MARKER, as it appears in the file
MARKER_KEY = "traceattrib_export"
VERSION = 1
HEAD_BYTES = 1 << 16  # where the marker must be: otherData is written before the events
TIME_LIMIT_US = float(1 << 52) / 1000  # larger ts / dur are no times of ours (and lose ns in a double)

_I, _S, _F = pa.int64(), pa.string(), pa.float64()
ARGS = [("gpu_op", _S), ("device", _I), ("stream", _I), ("correlation", _I), ("grid", pa.list_(_I)),
        ("block", pa.list_(_I)), ("graph_id", _I), ("graph_node_id", _I), ("graph_exec_id", _I),
        ("launched_by", _S), ("input_types", _S), ("collective", _S), ("in_nelems", _I), ("out_nelems", _I),
        ("dtype", _S), ("group_size", _I), ("group", _S), ("bytes", _I), ("step", _I),
        ("index", _I), ("kind", _S), ("tokens", _I), ("layers", _I), ("name", _S)]  # the last five: a step's
SCHEMA = pa.schema([("ts", _F), ("dur", _F), ("ph", _S), ("pid", _I), ("name", _S), ("cat", _S),
                    ("args", pa.struct(ARGS))])
NOTE = ("a traceattrib export: GPU ops and the steps it states, no CPU side (idle time is unexplained, "
        "layers are found by kernel position)")


def is_export(path: str) -> bool:
    """Whether a JSON trace file is traceattrib's export (its marker near the start)."""
    try:
        with (gzip.open(path, "rb") if _gz(path) else open(path, "rb")) as f:
            head = f.read(HEAD_BYTES)
    except (OSError, EOFError, zlib.error):
        return False
    events = head.find(b'"traceEvents"')
    at = head.find(MARKER)
    return at >= 0 and (events < 0 or at < events)


def _gz(path: str) -> bool:
    with open(path, "rb") as f:
        return f.read(2) == b"\x1f\x8b"


def read(path: str, require_gpu: bool = True, progress=None) -> Trace:
    """Load one export (see the module docstring)."""
    from .kineto import stream
    from .kineto.columns import Columns

    step = progress or (lambda f, w="": None)
    try:
        f = gzip.open(path, "rb") if _gz(path) else open(path, "rb", buffering=0)
    except OSError as e:
        raise TraceError(f"{path}: cannot read ({e.strerror or e})") from None
    pieces: list[pa.Table] = []
    try:
        with f:
            s = stream.Stream(path, f)
            acc = Columns(path)
            top_list, header = stream.open_events(s)
            about = _about(path, header)
            while True:
                s.more()
                i = s.skip_ws()
                if i < 0:
                    raise TraceError(f"{path}: traceEvents array is not closed (truncated file?)")
                if s.eof:
                    _, piece = stream.last_piece(s, acc, top_list)
                    pieces.append(_table(path, piece))
                    break
                if s.buf[i] == ord("]"):
                    while s.more():
                        pass
                    continue
                piece = stream.next_piece(s, acc)
                if piece is not None:
                    pieces.append(_table(path, piece))
                    step(0.8 * min(s.at(s.pos) / max(os.path.getsize(path), 1), 1.0), "parsing")
    except (EOFError, gzip.BadGzipFile, zlib.error) as e:
        raise TraceError(f"{path}: corrupt or truncated gzip file ({e})") from None
    except OSError as e:
        raise TraceError(f"{path}: cannot read ({e.strerror or e})") from None
    step(0.9, "building tables")
    return _build(path, about, pa.concat_tables(pieces) if pieces else SCHEMA.empty_table(), require_gpu)


def _about(path: str, header: dict) -> dict:
    """otherData's marker entry, checked."""
    other = header.get("otherData")
    about = other.get(MARKER_KEY) if isinstance(other, dict) else None
    if not isinstance(about, dict):
        raise TraceError(f"{path}: not a traceattrib export (no otherData.{MARKER_KEY} before traceEvents)")
    if about.get("version") != VERSION:
        raise TraceError(f"{path}: a traceattrib export of version {about.get('version')!r}; this traceattrib "
                         f"reads version {VERSION}")
    ranks = about.get("ranks")
    origin = about.get("origin_ns")
    if not isinstance(origin, int) or isinstance(origin, bool) or abs(origin) >= 1 << 62 or \
            not isinstance(ranks, dict) or not ranks or \
            not all(isinstance(k, str) and k.isdigit() and isinstance(v, int) and not isinstance(v, bool)
                    and 0 <= v < 1 << 31 for k, v in ranks.items()):
        raise TraceError(f"{path}: traceattrib export with a malformed otherData.{MARKER_KEY} (origin_ns, ranks)")
    if not isinstance(about.get("trace"), dict):
        about["trace"] = {}
    return about


def _table(path: str, piece) -> pa.Table:
    """One piece's events as a table of SCHEMA (pyarrow; the stdlib where pyarrow refuses)."""
    from .kineto.stream import Parsed

    if not isinstance(piece, Parsed):
        try:
            return pj.read_json(io.BytesIO(piece.data), read_options=pj.ReadOptions(block_size=max(len(piece.data), 1)),
                                parse_options=pj.ParseOptions(explicit_schema=SCHEMA, unexpected_field_behavior="ignore"))
        except (pa.ArrowInvalid, pa.ArrowTypeError):
            try:
                piece = json.loads(piece.data.decode("utf-8", "replace").replace("\n", ",").join("[]")
                                   if piece.data else "[]")
            except ValueError as e:
                raise TraceError(f"{path}: malformed JSON in traceEvents ({e})") from None
    rows = [_row(e) for e in piece if isinstance(e, dict)]
    try:
        return pa.Table.from_pylist(rows, schema=SCHEMA)
    except (pa.ArrowInvalid, pa.ArrowTypeError, TypeError, OverflowError) as e:
        raise TraceError(f"{path}: an event of the traceattrib export has a value of the wrong type ({e})") from None


def _row(e: dict) -> dict:
    """An event parsed by the stdlib as SCHEMA's fields (Decimal numbers as floats)."""
    out = {k: _num(e.get(k)) for k in ("ts", "dur")}
    out.update({k: e.get(k) for k in ("ph", "pid", "name", "cat")})
    a = e.get("args")
    out["args"] = {k: a.get(k) for k, _ in ARGS} if isinstance(a, dict) else None
    return out


def _num(v):
    from decimal import Decimal

    return float(v) if isinstance(v, Decimal) else v


def _ns(path: str, us: pa.ChunkedArray, origin: int, what: str) -> np.ndarray:
    """Microseconds (three decimals) as int64 ns plus the origin; TraceError on a missing or odd value."""
    x = us.to_numpy(zero_copy_only=False).astype(np.float64)
    bad = ~np.isfinite(x) | (np.abs(x) > TIME_LIMIT_US)
    if bad.any():
        raise TraceError(f"{path}: {int(bad.sum())} {what} of the traceattrib export have no readable time")
    return np.round(x * 1000).astype(np.int64) + origin


def _build(path: str, about: dict, t: pa.Table, require_gpu: bool) -> Trace:
    rank_of = {int(k): int(v) for k, v in about["ranks"].items()}
    c = _Columns(path, t.flatten(), int(about["origin_ns"]), rank_of)  # args.gpu_op, args.grid, ... as columns
    ph, cat = (c.flat.column(n).to_numpy(zero_copy_only=False) for n in ("ph", "cat"))
    gpu_op = c.flat.column("args.gpu_op").to_numpy(zero_copy_only=False)
    x = ph == "X"
    sel = {k: np.flatnonzero(x & (gpu_op == k)) for k in ("kernel", "memop", "graph")}
    sel["step"] = np.flatnonzero(x & (cat == "step"))
    if require_gpu and not (sel["kernel"].size or sel["memop"].size):
        raise TraceError(f"{path}: traceattrib export with no GPU activity")
    tables = {"kernels": _kernel_table(c, sel["kernel"]), "memops": _memop_table(c, sel["memop"]),
              "graphs": _graph_table(c, sel["graph"]), "given_steps": _step_table(c, sel["step"])}
    return Trace(**tables, launches=empty(LAUNCH_COLUMNS), ranges=empty(RANGE_COLUMNS),
                 cpu_ops=empty(CPU_OP_COLUMNS), meta=_meta(about, tables, rank_of))


class _Columns:
    """The export's events as flat columns, read for chosen rows (times in ns on the trace's clock)."""

    def __init__(self, path: str, flat: pa.Table, origin_ns: int, rank_of: dict[int, int]):
        self.path, self.flat, self.origin_ns = path, flat, origin_ns
        self.known = np.array(sorted(rank_of), np.int64)
        self.rank_by_pid = np.array([rank_of[int(p)] for p in self.known], np.int32)

    def col(self, name: str, rows: np.ndarray) -> pa.ChunkedArray:
        return self.flat.column(name).take(pa.array(rows))

    def ints(self, name: str, rows: np.ndarray, fill: int) -> np.ndarray:
        return self.col(name, rows).fill_null(fill).to_numpy(zero_copy_only=False).astype(np.int64)

    def texts(self, name: str, rows: np.ndarray) -> pd.Categorical:
        return self.col(name, rows).fill_null("").dictionary_encode().combine_chunks().to_pandas().astype("category")

    def nullable(self, name: str, rows: np.ndarray) -> pd.arrays.IntegerArray:
        return _nullable(self.col(name, rows))

    def times(self, rows: np.ndarray, what: str) -> tuple[np.ndarray, np.ndarray]:
        """(start_ns, end_ns) of the rows."""
        start = _ns(self.path, self.col("ts", rows), self.origin_ns, what)
        dur = _ns(self.path, self.col("dur", rows), 0, what)
        if (dur < 0).any():
            raise TraceError(f"{self.path}: {int((dur < 0).sum())} {what} of the traceattrib export end before they start")
        return start, start + dur

    def ranks(self, rows: np.ndarray, what: str) -> np.ndarray:
        """The rank of each row's process (otherData's map); TraceError for a process it does not name."""
        pid = self.ints("pid", rows, -1)
        k = np.clip(np.searchsorted(self.known, pid), 0, self.known.size - 1)
        if not (self.known[k] == pid).all():
            raise TraceError(f"{self.path}: {what} of the traceattrib export in a process otherData does not name")
        return self.rank_by_pid[k]

    def placed(self, rows: np.ndarray, what: str) -> dict:
        """The columns every GPU-op table has: times, device, stream, correlation, pid, rank, given step."""
        s, e = self.times(rows, what)
        return {"start_ns": s, "end_ns": e, "device": self.ints("args.device", rows, 0),
                "stream": self.ints("args.stream", rows, 0), "correlation": self.ints("args.correlation", rows, 0),
                "pid": self.ints("pid", rows, 0), "rank": self.ranks(rows, what),
                "given_step": self.ints("args.step", rows, -1)}


def _kernel_table(c: _Columns, r: np.ndarray) -> pd.DataFrame:
    from .kineto.names import _short_names

    name = c.texts("name", r)
    grid = [_axis(c.col("args.grid", r), j) for j in range(3)]
    block = [_axis(c.col("args.block", r), j) for j in range(3)]
    return conform(pd.DataFrame({
        **c.placed(r, "kernels"), "name": name, "short_name": _short_names(pd.Categorical(name)),
        "grid_x": grid[0], "grid_y": grid[1], "grid_z": grid[2],
        "block_x": block[0], "block_y": block[1], "block_z": block[2],
        "graph_id": c.nullable("args.graph_id", r), "graph_node_id": c.nullable("args.graph_node_id", r),
        "op": c.texts("args.launched_by", r), "op_input_types": c.texts("args.input_types", r),
        "comm_collective": c.texts("args.collective", r), "comm_in_nelems": c.ints("args.in_nelems", r, -1),
        "comm_out_nelems": c.ints("args.out_nelems", r, -1), "comm_dtype": c.texts("args.dtype", r),
        "comm_group_size": c.ints("args.group_size", r, -1), "comm_group": c.texts("args.group", r)}), KERNEL_COLUMNS)


def _memop_table(c: _Columns, r: np.ndarray) -> pd.DataFrame:
    return conform(pd.DataFrame({
        **c.placed(r, "memory operations"), "kind": c.texts("name", r), "bytes": c.ints("args.bytes", r, 0),
        "graph_node_id": c.nullable("args.graph_node_id", r), "op": c.texts("args.launched_by", r)}), MEMOP_COLUMNS)


def _graph_table(c: _Columns, r: np.ndarray) -> pd.DataFrame:
    return conform(pd.DataFrame({
        **c.placed(r, "CUDA graphs"), "graph_id": c.nullable("args.graph_id", r),
        "graph_exec_id": c.nullable("args.graph_exec_id", r)}), GRAPH_COLUMNS)


def _step_table(c: _Columns, r: np.ndarray) -> pd.DataFrame:
    s, e = c.times(r, "steps")
    return conform(pd.DataFrame({
        "start_ns": s, "end_ns": e, "name": c.texts("args.name", r), "kind": c.texts("args.kind", r),
        "tokens": c.ints("args.tokens", r, -1), "layers": c.ints("args.layers", r, -1),
        "index": c.ints("args.index", r, -1), "rank": c.ranks(r, "steps")}), GIVEN_STEP_COLUMNS)


def _meta(about: dict, tables: dict[str, pd.DataFrame], rank_of: dict[int, int]) -> dict:
    info = about["trace"]
    used = sorted({int(d) for n in ("kernels", "memops", "graphs") for d in pd.unique(tables[n]["device"])})
    rank_ids = sorted(set(rank_of.values()))
    meta = {
        "format": "traceattrib", "profiler": _text(info.get("profiler")) or "traceattrib export",
        "profiler_version": _text(info.get("profiler_version")), "schema_version": info.get("schema_version")
        if isinstance(info.get("schema_version"), (int, str)) else None,
        "devices": used, "gpus": [g for g in info.get("gpus") or [] if isinstance(g, str)] or
        [unnamed_gpu(d) for d in used], "ranks": rank_ids,
        "world_size": info.get("world_size") if isinstance(info.get("world_size"), int) else None,
        "exported_from": _text(about.get("source")) or "", "notes": [NOTE],
    }
    if len(rank_ids) == 1:
        meta["rank"] = rank_ids[0]
    return meta


def _text(v) -> str | None:
    return v if isinstance(v, str) else None


def _axis(lists: pa.ChunkedArray, j: int) -> np.ndarray:
    """Element j of each list (grid / block), 0 where missing."""
    out = np.zeros(len(lists), np.int64)
    at = 0
    for chunk in lists.chunks:
        n = len(chunk)
        if n:
            size = chunk.value_lengths().fill_null(0).to_numpy(zero_copy_only=False)
            ok = size > j
            offs = chunk.offsets.to_numpy()[:-1]
            vals = chunk.values.fill_null(0).to_numpy(zero_copy_only=False)
            out[at:at + n][ok] = vals[offs[ok] + j]
        at += n
    return out


def _nullable(v: pa.ChunkedArray) -> pd.arrays.IntegerArray:
    x = v.to_numpy(zero_copy_only=False)
    miss = pd.isna(x)
    return pd.arrays.IntegerArray(np.where(miss, 0, x).astype(np.int64), miss)
