"""Kineto JSON -> columns of the kept events (one numpy array or categorical per field).

Two paths produce the same columns:
- the streaming pyarrow path for Kineto's own layout (one event per indented block): the file, or
  its gzip stream, is read in CHUNK_BYTES pieces cut at event separators and each piece is parsed
  by pyarrow against an explicit schema, so memory holds one piece plus the kept columns;
- the exact path for any other JSON layout: stdlib json over chunks cut by a vectorized scan.
Timestamps are microseconds printed with three decimals; both paths turn them into integer ns
from their decimal text (epoch-scale values are beyond exact float64 recovery).
"""
from __future__ import annotations

import gzip
import json
import os
import re
import zlib

import numpy as np
import pandas as pd

from ...errors import TraceError
from .jsonscan import ScanError, event_bounds, find_events_array
from .names import _cat_from, _categorical, _types_text

GPU_CATS = {"kernel", "gpu_memcpy", "gpu_memset"}

LAUNCH_CATS = {"cuda_runtime", "cuda_driver"}

RANGE_CATS = {"user_annotation", "gpu_user_annotation"}

OP_CATS = {"cpu_op", "python_function"}

KEEP_CATS = GPU_CATS | LAUNCH_CATS | RANGE_CATS | OP_CATS

class _Ns(int):
    """An integer ns value parsed from a decimal microsecond literal (marks 'already ns')."""
    __slots__ = ()

def _float_us_to_ns(text: str) -> _Ns:
    """Exact decimal microseconds -> integer ns (rounded half away from zero beyond 3 decimals)."""
    if "e" in text or "E" in text:
        return _Ns(round(float(text) * 1000))
    neg = text.startswith("-")
    if neg:
        text = text[1:]
    whole, _, frac = text.partition(".")
    ns = int(whole or "0") * 1000 + int((frac + "000")[:3])
    if len(frac) > 3 and frac[3] >= "5":
        ns += 1
    return _Ns(-ns if neg else ns)

def _ns(v) -> int:
    """ts/dur field -> ns: decimals were converted at parse time; integers are whole us."""
    if v.__class__ is _Ns:
        return v
    if v is None:
        return 0
    if isinstance(v, int):
        return v * 1000
    if isinstance(v, str):
        return _float_us_to_ns(v)
    return round(float(v) * 1000)

def read_bytes(path: str) -> bytes:
    try:
        if path.endswith(".gz"):
            with gzip.open(path, "rb") as f:
                return f.read()
        with open(path, "rb") as f:
            return f.read()
    except (EOFError, gzip.BadGzipFile, zlib.error) as e:
        raise TraceError(f"{path}: corrupt or truncated gzip file ({e})") from None
    except OSError as e:
        raise TraceError(f"{path}: cannot read ({e.strerror or e})") from None

def _loads(b: bytes):
    return json.loads(b, parse_float=_float_us_to_ns)

# Kineto writes one event per indented block; these separators occur only between events
# (a JSON string cannot hold a raw newline), which lets the fast path split without scanning.
_PRETTY_SEP = b"\n  },\n  {"

_PRETTY_END = b"\n  }\n  ]"

# float64 holds a 3-decimal microsecond value exactly enough to recover its ns below 2**43 us
_EXACT_FLOAT_US = float(2 ** 43)

_TS_DECIMAL = re.compile(rb'"ts": ([1-9][0-9]*)\.([0-9]{3})(?=[^0-9])')

def _int_col(vals: list, fill: int = -1) -> np.ndarray:
    """Ints from a list that may hold None or non-numeric strings (those become `fill`)."""
    try:
        return np.array([fill if v is None else v for v in vals], dtype=np.int64)
    except (TypeError, ValueError, OverflowError):
        return pd.to_numeric(pd.Series(vals, dtype=object), errors="coerce").fillna(fill).astype(np.int64).to_numpy()

def _dims_text(v) -> str:
    """A CPU op's "Input Dims" as compact JSON ("[[1,4096],[4096,4096]]"), "" when absent."""
    if not isinstance(v, list):
        return ""
    return json.dumps(v, separators=(",", ":"))


def _str_or_none(v) -> str | None:
    return None if v is None else str(v)


def _dims(vals: list, i: int) -> np.ndarray:
    return np.array([v[i] if isinstance(v, list) and len(v) > i else 0 for v in vals], dtype=np.int64)

class _Cols:
    """Column lists for the events we keep, filled chunk by chunk (exact fallback path)."""

    def __init__(self) -> None:
        self.cat, self.name, self.pid, self.tid, self.ts, self.dur = [], [], [], [], [], []
        self.ext, self.corr, self.dev, self.stream, self.grid, self.block = [], [], [], [], [], []
        self.graph, self.nbytes, self.intypes, self.dims = [], [], [], []
        self.coll, self.in_nel, self.out_nel, self.cdtype, self.gsize, self.pg = [], [], [], [], [], []
        self.f_pid, self.f_tid, self.f_ts, self.f_id = [], [], [], []

    def add(self, events: list) -> None:
        for e in events:
            cat = e.get("cat")
            ph = e.get("ph")
            if ph == "f" and cat == "ac2g":
                self.f_pid.append(e.get("pid"))
                self.f_tid.append(e.get("tid"))
                self.f_ts.append(_ns(e.get("ts")))
                self.f_id.append(e.get("id"))
                continue
            if ph != "X" or cat not in KEEP_CATS:
                continue
            a = e.get("args") or {}
            self.cat.append(cat)
            self.name.append(e.get("name", ""))
            self.pid.append(e.get("pid"))
            self.tid.append(e.get("tid"))
            self.ts.append(_ns(e.get("ts")))
            self.dur.append(_ns(e.get("dur", 0)))
            self.ext.append(a.get("External id"))
            self.corr.append(a.get("correlation"))
            self.dev.append(a.get("device"))
            self.stream.append(a.get("stream"))
            self.grid.append(a.get("grid"))
            self.block.append(a.get("block"))
            self.graph.append(a.get("graph id", a.get("graph_id")))
            self.nbytes.append(a.get("bytes"))
            self.intypes.append(_types_text(a.get("Input type")))
            self.dims.append(_dims_text(a.get("Input Dims")))
            self.coll.append(_str_or_none(a.get("Collective name")))
            self.in_nel.append(a.get("In msg nelems"))
            self.out_nel.append(a.get("Out msg nelems"))
            self.cdtype.append(_str_or_none(a.get("dtype")))
            self.gsize.append(a.get("Group size"))
            self.pg.append(_str_or_none(a.get("Process Group Name")))

    def arrays(self) -> dict:
        g, b = self.grid, self.block
        return {
            "cat": _categorical(self.cat), "name": _categorical(self.name),
            "pid": _int_col(self.pid), "tid": _int_col(self.tid),
            "ts": np.array(self.ts, dtype=np.int64), "dur": np.array(self.dur, dtype=np.int64),
            "corr": _int_col(self.corr), "dev": _int_col(self.dev), "stream": _int_col(self.stream),
            "grid": [_dims(g, i) for i in range(3)], "block": [_dims(b, i) for i in range(3)],
            "graph": _int_col(self.graph), "bytes": _int_col(self.nbytes, 0),
            "intypes": _categorical(self.intypes), "ext": _int_col(self.ext),
            "dims": _categorical(self.dims), "coll": _categorical(self.coll),
            "in_nel": _int_col(self.in_nel), "out_nel": _int_col(self.out_nel),
            "cdtype": _categorical(self.cdtype), "gsize": _int_col(self.gsize), "pg": _categorical(self.pg),
            "flows": {"pid": _int_col(self.f_pid), "tid": _int_col(self.f_tid),
                      "ts": np.array(self.f_ts, dtype=np.int64), "id": _int_col(self.f_id)},
        }


def read_columns(path: str, step=None) -> tuple[dict, dict]:
    """(header, columns) of one trace: the streaming path when the layout allows, else the exact one."""
    res = _read_stream(path, step)
    return _read_whole(path, step) if res is None else res


def _read_whole(path: str, step=None) -> tuple[dict, dict]:
    buf = read_bytes(path)
    if not buf[:64].lstrip()[:1] == b"{":
        raise TraceError(f"{path}: not a torch.profiler JSON trace (does not start with a JSON object)")
    try:
        open_at = find_events_array(buf)
    except ScanError:
        raise TraceError(f"{path}: not a torch.profiler trace (no traceEvents array)") from None
    try:
        close_at, spans = event_bounds(buf, open_at)
    except ScanError as e:
        raise TraceError(f"{path}: not a readable torch.profiler trace ({e})") from None
    header = _header(path, buf, open_at, close_at)
    return header, _read_exact(path, buf, spans, step)

def _header(path: str, buf: bytes, open_at: int, close_at: int) -> dict:
    try:
        return _loads(buf[:open_at] + b"[]" + buf[close_at + 1:])
    except ValueError as e:
        raise TraceError(f"{path}: malformed JSON outside traceEvents ({e})") from None

def _read_exact(path: str, buf: bytes, spans: list[tuple[int, int]], step=None) -> dict:
    """Chunked stdlib-json path: any valid JSON layout, exact decimal timestamps."""
    cols = _Cols()
    for i, (a, b) in enumerate(spans):
        if step:
            step(0.9 * i / max(len(spans), 1), "parsing (exact path)")
        try:
            events = _loads(b"[" + buf[a:b] + b"]")
        except ValueError as e:
            raise TraceError(f"{path}: malformed JSON in traceEvents ({e})") from None
        cols.add(events)
        del events
    return cols.arrays()

_ARGS = [("External id", "int64"), ("correlation", "int64"), ("device", "int64"), ("stream", "int64"),
         ("grid", "list"), ("block", "list"), ("bytes", "int64"), ("graph id", "int64"),
         ("Input type", "liststr"), ("Collective name", "str"), ("In msg nelems", "int64"),
         ("Out msg nelems", "int64"), ("dtype", "str"), ("Group size", "int64"), ("Process Group Name", "str")]
# "Input Dims" nest to any depth (TensorList inputs), which no fixed arrow type holds: the fast
# path takes its text per External id with one regex over the piece (args sit on one line in
# Kineto's layout, "External id" first), and `_FastCols.arrays` puts it on the ops.
_DIMS = re.compile(rb'"External id": (-?[0-9]+),[^\n]*?"Input Dims": (\[[\[\]0-9, -]*\])')

CHUNK_BYTES = 32 << 20  # decompressed bytes parsed per pyarrow call (streaming path)

def _fill(f, buf: bytearray, start: int) -> int:
    """Read into buf[start:] until it is full or the stream ends; bytes read."""
    mv = memoryview(buf)
    got = start
    while got < len(buf):
        n = f.readinto(mv[got:])
        if not n:
            break
        got += n
    mv.release()
    return got - start

def _read_stream(path: str, step=None) -> tuple[dict, dict] | None:
    """(header, columns) through the streaming pyarrow path, or None when the file is not in
    Kineto's layout (the caller then takes the exact path, which also reports malformed files)."""
    try:
        f = gzip.open(path, "rb") if path.endswith(".gz") else open(path, "rb", buffering=0)
    except OSError as e:
        raise TraceError(f"{path}: cannot read ({e.strerror or e})") from None
    try:
        with f:
            return _stream_events(path, f, _position(f, path, step))
    except (EOFError, gzip.BadGzipFile, zlib.error) as e:
        raise TraceError(f"{path}: corrupt or truncated gzip file ({e})") from None
    except OSError as e:
        raise TraceError(f"{path}: cannot read ({e.strerror or e})") from None

def _position(f, path: str, step):
    """A callback reporting how far into the file (compressed bytes for .gz) the stream is."""
    if step is None:
        return None
    raw = getattr(f, "fileobj", f)  # GzipFile reads from the compressed file object
    try:
        size = max(os.path.getsize(path), 1)
    except OSError:
        return None

    def report() -> None:
        try:
            step(0.9 * min(raw.tell() / size, 1.0), "parsing")
        except (OSError, ValueError):
            pass
    return report

def _stream_events(path: str, f, report=None) -> tuple[dict, dict] | None:
    buf = bytearray(CHUNK_BYTES)
    filled = _fill(f, buf, 0)
    eof = filled < len(buf)
    if buf[:min(filled, 64)].lstrip()[:1] != b"{":
        return None
    try:
        open_at = find_events_array(buf)  # the zero bytes past `filled` cannot match
    except ScanError:
        return None
    if open_at >= filled:
        return None
    first = buf.find(b"{", open_at, filled)
    if first < 0 or buf[open_at + 1:first].strip():
        return None
    prefix = bytes(buf[:open_at])
    acc = _FastCols()
    pos = first
    while True:
        end = buf.find(_PRETTY_END, pos, filled)
        if end >= 0:
            stop = end + 4  # just past the last event's closing brace
        else:
            cut = buf.rfind(_PRETTY_SEP, pos, filled)
            if eof or cut < 0:  # not Kineto's layout, truncated, or one event larger than a chunk
                return None
            stop = cut + 4
        if not acc.add(buf, pos, stop):
            return None
        if report:
            report()
        if end >= 0:
            break
        nxt = cut + len(_PRETTY_SEP) - 1  # the next event's opening brace
        rest = filled - nxt
        buf[:rest] = buf[nxt:filled]
        filled = rest + _fill(f, buf, rest)
        eof = filled < len(buf)
        pos = 0
    suffix = bytes(buf[end + len(_PRETTY_END):filled]) + f.read()
    del buf
    try:
        header = _loads(prefix + b"[]" + suffix)
    except ValueError as e:
        raise TraceError(f"{path}: malformed JSON outside traceEvents ({e})") from None
    return header, acc.arrays()

def _read_fast(buf: bytes, open_at: int, close_at: int) -> dict | None:
    """The pyarrow path over a document already in memory (Kineto's layout); None when the
    events do not fit it. `read` streams instead; this serves tests and callers holding bytes."""
    first = buf.find(b"{", open_at)
    end = buf.rfind(_PRETTY_END, open_at, close_at + 1)
    if first < 0 or end < first:
        return None
    acc = _FastCols()
    body = bytearray(buf[first:end + 4])
    for a, b in _pieces(body):
        if not acc.add(body, a, b):
            return None
    return acc.arrays()

def _pieces(body: bytearray) -> list[tuple[int, int]]:
    """Spans of about CHUNK_BYTES cut at event separators."""
    out, a = [], 0
    while a < len(body):
        cut = body.rfind(_PRETTY_SEP, a, a + CHUNK_BYTES) if len(body) - a > CHUNK_BYTES else -1
        if cut < 0:
            out.append((a, len(body)))
            break
        out.append((a, cut + 4))
        a = cut + len(_PRETTY_SEP) - 1
    return out

_SCHEMA = None

def _schema():
    global _SCHEMA
    if _SCHEMA is None:
        import pyarrow as pa
        i64, f64, s = pa.int64(), pa.float64(), pa.string()
        argt = {"int64": i64, "list": pa.list_(i64), "liststr": pa.list_(s), "str": s}
        _SCHEMA = pa.schema([("ph", s), ("cat", s), ("name", s), ("pid", i64), ("tid", i64), ("ts", f64),
                             ("ts_ns", i64), ("dur", f64), ("id", i64),
                             ("args", pa.struct([(k, argt[t]) for k, t in _ARGS]))])
    return _SCHEMA

def _uncomma(seg: np.ndarray) -> None:
    """In place: the comma of every event separator "\\n  },\\n  {" becomes a space, so pyarrow
    sees a stream of objects (a raw newline cannot occur inside a JSON string, so every match is a
    separator). Same length: no copy of the piece."""
    p = np.flatnonzero(seg == 0x7D)  # '}'
    p = p[(p >= 3) & (p + 5 < seg.size)]
    ok = ((seg[p + 1] == 0x2C) & (seg[p + 2] == 0x0A) & (seg[p + 3] == 0x20) & (seg[p + 4] == 0x20)
          & (seg[p + 5] == 0x7B) & (seg[p - 1] == 0x20) & (seg[p - 2] == 0x20) & (seg[p - 3] == 0x0A))
    seg[p[ok] + 1] = 0x20

def _rename_in_place(buf: bytearray, a: int, b: int, old: bytes, new: bytes) -> None:
    i = buf.find(old, a, b)
    while i >= 0:
        buf[i:i + len(old)] = new
        i = buf.find(old, i + len(old), b)

class _Strings:
    """Global dictionary for one string column, fed piece by piece (per-piece arrow dictionaries)."""

    def __init__(self) -> None:
        self.index: dict[str, int] = {}
        self.codes: list[np.ndarray] = []

    def add(self, arr) -> None:
        import pyarrow as pa
        import pyarrow.compute as pc
        if isinstance(arr, pa.ChunkedArray):
            arr = arr.combine_chunks()
        d = pc.dictionary_encode(arr)
        local = d.dictionary.to_pylist()
        idx = self.index
        m = np.fromiter((idx.setdefault(s, len(idx)) for s in local), dtype=np.int32, count=len(local))
        m = np.append(m, np.int32(-1))  # null -> missing
        self.codes.append(m[d.indices.fill_null(len(local)).to_numpy(zero_copy_only=False)])

    def categorical(self) -> pd.Categorical:
        codes = np.concatenate(self.codes) if self.codes else np.empty(0, np.int32)
        return _cat_from(codes, np.array(list(self.index), dtype=object))


class _FastCols:
    """Kept columns accumulated piece by piece on the pyarrow path."""

    NUM = ("pid", "tid", "ts", "dur", "corr", "dev", "stream", "graph", "bytes", "ext", "in_nel", "out_nel",
           "gsize", "grid0", "grid1", "grid2", "block0", "block1", "block2")

    def __init__(self) -> None:
        self.num: dict[str, list[np.ndarray]] = {k: [] for k in self.NUM}
        self.flows: dict[str, list[np.ndarray]] = {k: [] for k in ("pid", "tid", "ts", "id")}
        self.cat, self.name, self.intypes = _Strings(), _Strings(), _Strings()
        self.coll, self.cdtype, self.pg = _Strings(), _Strings(), _Strings()
        self.dims_ext: list[bytes] = []   # External id -> Input Dims text, from _DIMS
        self.dims_text: list[bytes] = []
        self.exact_ts: bool | None = None

    def add(self, buf: bytearray, a: int, b: int) -> bool:
        """Parse buf[a:b] (whole events in Kineto's layout; modified in place). False when pyarrow
        cannot read it as such."""
        import pyarrow as pa
        import pyarrow.compute as pc
        import pyarrow.json as pj

        if b <= a:
            return True
        _uncomma(np.frombuffer(buf, dtype=np.uint8, count=b - a, offset=a))
        # string-valued pid/tid (Kineto's "Spans"/"Traces" rows) are renamed out of the way so the
        # numeric columns stay typed (same length, in place)
        _rename_in_place(buf, a, b, b'"pid": "', b'"pi_": "')
        _rename_in_place(buf, a, b, b'"tid": "', b'"ti_": "')
        if self.exact_ts is None:
            m = _TS_DECIMAL.search(buf, a, b)
            if m is not None:
                self.exact_ts = float(m.group(1)) >= _EXACT_FLOAT_US
        mv = memoryview(buf)[a:b]
        for ext, dims in _DIMS.findall(mv):
            self.dims_ext.append(ext)
            self.dims_text.append(dims)
        try:
            # epoch-scale timestamps (beyond exact float recovery) are rewritten as integer ns
            data = _TS_DECIMAL.sub(rb'"ts_ns": \1\2', bytes(mv)) if self.exact_ts else mv
            tab = pj.read_json(pa.BufferReader(pa.py_buffer(data)),
                               read_options=pj.ReadOptions(block_size=1 << 24),
                               parse_options=pj.ParseOptions(explicit_schema=_schema(), newlines_in_values=True,
                                                             unexpected_field_behavior="ignore"))
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
            return False
        finally:
            data = None
            mv.release()
        ph, cat = tab.column("ph"), tab.column("cat")
        keep_mask = pc.and_(pc.equal(ph, "X"), pc.is_in(cat, pa.array(sorted(KEEP_CATS))))
        flow_mask = pc.and_(pc.equal(ph, "f"), pc.equal(cat, "ac2g"))
        fl = tab.filter(pc.fill_null(flow_mask, False))
        t = tab.filter(pc.fill_null(keep_mask, False)).combine_chunks()
        del tab

        exact_ts = bool(self.exact_ts)

        def ts_ns(tt) -> np.ndarray:
            f = tt.column("ts").to_numpy(zero_copy_only=False)
            f = np.nan_to_num(f, nan=0.0)
            whole = np.floor(f)
            ns = whole.astype(np.int64) * 1000 + np.rint((f - whole) * 1000).astype(np.int64)
            if exact_ts:
                exact = tt.column("ts_ns")
                ns = np.where(pc.is_valid(exact).to_numpy(zero_copy_only=False),
                              exact.fill_null(0).to_numpy(zero_copy_only=False), ns)
            return ns

        def ints(col, fill=-1) -> np.ndarray:
            return col.fill_null(fill).to_numpy(zero_copy_only=False).astype(np.int64)

        args = t.column("args")
        if isinstance(args, pa.ChunkedArray):
            args = args.combine_chunks()

        def dim(k, i):
            lst = args.field(k)
            return ints(pc.list_element(lst, i), 0) if len(lst) else np.empty(0, np.int64)

        intypes = args.field("Input type")
        joined = pc.binary_join(intypes, ",") if len(intypes) else pa.array([], pa.string())
        num = self.num
        num["pid"].append(ints(t.column("pid")))
        num["tid"].append(ints(t.column("tid")))
        num["ts"].append(ts_ns(t))
        num["dur"].append(np.rint(np.nan_to_num(t.column("dur").to_numpy(zero_copy_only=False)) * 1000)
                          .astype(np.int64))
        num["corr"].append(ints(args.field("correlation")))
        num["dev"].append(ints(args.field("device")))
        num["stream"].append(ints(args.field("stream")))
        num["graph"].append(ints(args.field("graph id")))
        num["bytes"].append(ints(args.field("bytes"), 0))
        num["ext"].append(ints(args.field("External id")))
        num["in_nel"].append(ints(args.field("In msg nelems")))
        num["out_nel"].append(ints(args.field("Out msg nelems")))
        num["gsize"].append(ints(args.field("Group size")))
        self.coll.add(args.field("Collective name"))
        self.cdtype.add(args.field("dtype"))
        self.pg.add(args.field("Process Group Name"))
        for i in range(3):
            num[f"grid{i}"].append(dim("grid", i))
            num[f"block{i}"].append(dim("block", i))
        self.cat.add(t.column("cat"))
        self.name.add(t.column("name").fill_null(""))
        self.intypes.add(joined.fill_null(""))
        self.flows["pid"].append(ints(fl.column("pid")))
        self.flows["tid"].append(ints(fl.column("tid")))
        self.flows["ts"].append(ts_ns(fl))
        self.flows["id"].append(ints(fl.column("id")))
        return True

    def _dims(self, ext: np.ndarray, cats: pd.Categorical) -> pd.Categorical:
        """Input Dims text of each kept event from the External id -> dims pairs the regex found
        (only CPU events carry dims; a kernel shares its op's External id but has none)."""
        n = ext.size
        if not self.dims_ext:
            return _cat_from(np.zeros(n, np.int64), np.array([""], dtype=object))
        keys = np.array(self.dims_ext, dtype=object).astype(np.int64)
        codes, uniq = pd.factorize(np.array(self.dims_text, dtype=object))
        text = np.array([u.replace(b" ", b"").decode() for u in uniq] + [""], dtype=object)
        order = np.argsort(keys, kind="stable")
        sk = keys[order]
        pos = np.minimum(np.searchsorted(sk, ext), sk.size - 1)
        hit = (sk[pos] == ext) & np.isin(np.asarray(cats.codes), [cats.categories.get_loc(c) for c in
                                                                  ("cpu_op", "user_annotation", "python_function")
                                                                  if c in cats.categories])
        out = np.full(n, uniq.size, np.int64)
        out[hit] = codes[order[pos[hit]]]
        return _cat_from(out, text)

    def arrays(self) -> dict:
        def cat(parts):
            return np.concatenate(parts) if parts else np.empty(0, np.int64)

        n = {k: cat(v) for k, v in self.num.items()}
        return {
            "cat": self.cat.categorical(), "name": self.name.categorical(),
            "pid": n["pid"], "tid": n["tid"], "ts": n["ts"], "dur": n["dur"],
            "corr": n["corr"], "dev": n["dev"], "stream": n["stream"],
            "grid": [n[f"grid{i}"] for i in range(3)], "block": [n[f"block{i}"] for i in range(3)],
            "graph": n["graph"], "bytes": n["bytes"],
            "intypes": self.intypes.categorical(), "ext": n["ext"],
            "dims": self._dims(n["ext"], self.cat.categorical()),
            "coll": self.coll.categorical(), "in_nel": n["in_nel"], "out_nel": n["out_nel"],
            "cdtype": self.cdtype.categorical(), "gsize": n["gsize"], "pg": self.pg.categorical(),
            "flows": {k: cat(v) for k, v in self.flows.items()},
        }
