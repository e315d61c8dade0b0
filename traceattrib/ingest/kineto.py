"""Reader for torch.profiler (Kineto) Chrome-trace JSON, `.json` or `.json.gz`.

Timestamps in these files are microseconds printed with three decimals (`"ts": 5110352181885.141`).
They are converted to integer ns from their decimal text, not through float: at epoch-scale values
(1.7e15 us) a float64 is 0.25 us coarse, which would shift kernels and invent overlaps.

Kernel -> CPU linkage: a GPU op's `correlation` (or, failing that, its ac2g flow id) names the
cuda_runtime/cuda_driver call that launched it; the innermost CPU op enclosing that call on its
thread is the launching op, and its ancestors give the op chain ("aten::to > aten::_to_copy >
aten::copy_"), used as classification evidence.
"""
from __future__ import annotations

import gzip
import json
import os
import re
import zlib

import numpy as np
import pandas as pd

from ..errors import TraceError
from ..intervals import nesting_depth
from ..model import (GRAPH_COLUMNS, KERNEL_COLUMNS, LAUNCH_COLUMNS, MEMOP_COLUMNS, RANGE_COLUMNS,
                     Trace, conform, empty)
from .jsonscan import ScanError, event_bounds, find_events_array

GPU_CATS = {"kernel", "gpu_memcpy", "gpu_memset"}
LAUNCH_CATS = {"cuda_runtime", "cuda_driver"}
RANGE_CATS = {"user_annotation", "gpu_user_annotation"}
OP_CATS = {"cpu_op"}
KEEP_CATS = GPU_CATS | LAUNCH_CATS | RANGE_CATS | OP_CATS
PROFILER_STEP = re.compile(r"^ProfilerStep#\d+$")


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


def _dims(vals: list, i: int) -> np.ndarray:
    return np.array([v[i] if isinstance(v, list) and len(v) > i else 0 for v in vals], dtype=np.int64)


class _Cols:
    """Column lists for the events we keep, filled chunk by chunk (exact fallback path)."""

    def __init__(self) -> None:
        self.cat, self.name, self.pid, self.tid, self.ts, self.dur = [], [], [], [], [], []
        self.ext, self.corr, self.dev, self.stream, self.grid, self.block = [], [], [], [], [], []
        self.graph, self.nbytes, self.intypes = [], [], []
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

    def arrays(self) -> dict:
        g, b = self.grid, self.block
        return {
            "cat": _categorical(self.cat), "name": _categorical(self.name),
            "pid": _int_col(self.pid), "tid": _int_col(self.tid),
            "ts": np.array(self.ts, dtype=np.int64), "dur": np.array(self.dur, dtype=np.int64),
            "corr": _int_col(self.corr), "dev": _int_col(self.dev), "stream": _int_col(self.stream),
            "grid": [_dims(g, i) for i in range(3)], "block": [_dims(b, i) for i in range(3)],
            "graph": _int_col(self.graph), "bytes": _int_col(self.nbytes, 0),
            "intypes": _categorical(self.intypes),
            "flows": {"pid": _int_col(self.f_pid), "tid": _int_col(self.f_tid),
                      "ts": np.array(self.f_ts, dtype=np.int64), "id": _int_col(self.f_id)},
        }


def read(path: str, require_gpu: bool = True, rank: int | None = None, progress=None) -> Trace:
    """Load one Kineto JSON trace. `rank` overrides distributedInfo.rank (directory loading).

    Kineto's own layout is streamed: the file (or its gzip stream) is read in CHUNK_BYTES pieces
    cut at event boundaries, each parsed by pyarrow and reduced to the columns kept, so memory
    holds one piece plus the kept columns, never the whole document. Any other layout, or a file
    pyarrow refuses, goes through the exact whole-file path.
    """
    step = progress or (lambda f, w="": None)
    res = _read_stream(path, step)
    if res is None:
        header, cols = _read_whole(path, step)
    else:
        header, cols = res
    step(0.9, "building tables")
    return _build(path, header, cols, require_gpu, rank)


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
         ("Input type", "liststr")]
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
        argt = {"int64": i64, "list": pa.list_(i64), "liststr": pa.list_(s)}
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
        self.codes.append(m[d.indices.to_numpy(zero_copy_only=False)] if len(local) else
                          np.zeros(len(d), np.int32))

    def categorical(self) -> pd.Categorical:
        codes = np.concatenate(self.codes) if self.codes else np.empty(0, np.int32)
        return _cat_from(codes, np.array(list(self.index), dtype=object))


class _FastCols:
    """Kept columns accumulated piece by piece on the pyarrow path."""

    NUM = ("pid", "tid", "ts", "dur", "corr", "dev", "stream", "graph", "bytes",
           "grid0", "grid1", "grid2", "block0", "block1", "block2")

    def __init__(self) -> None:
        self.num: dict[str, list[np.ndarray]] = {k: [] for k in self.NUM}
        self.flows: dict[str, list[np.ndarray]] = {k: [] for k in ("pid", "tid", "ts", "id")}
        self.cat, self.name, self.intypes = _Strings(), _Strings(), _Strings()
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
            "intypes": self.intypes.categorical(),
            "flows": {k: cat(v) for k, v in self.flows.items()},
        }


def _build(path: str, header: dict, c: dict, require_gpu: bool, rank: int | None) -> Trace:
    catv, namev = c["cat"], c["name"]
    start = c["ts"]
    end = start + np.maximum(c["dur"], 0)
    pid, tid, corr = c["pid"], c["tid"], c["corr"].copy()
    # string columns are categoricals with sorted categories: tests run once per distinct value
    is_kernel = _is(catv, "kernel")
    is_mem = _is(catv, "gpu_memcpy", "gpu_memset")
    is_launch = _is(catv, "cuda_runtime", "cuda_driver")
    is_op = _is(catv, "cpu_op")
    is_ann = _is(catv, "user_annotation")
    is_gann = _is(catv, "gpu_user_annotation")
    is_step = _per_value(namev, lambda s: PROFILER_STEP.match(s) is not None)

    dist = header.get("distributedInfo") or {}
    if rank is None:
        rank = int(dist.get("rank", 0) or 0)
    if require_gpu and not (is_kernel.any() or is_mem.any()):
        raise TraceError(f"{path}: torch.profiler trace with no GPU activity "
                         "(profile with activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA])")

    # GPU op correlation: args.correlation, else the ac2g flow end bound to the event
    gpu = is_kernel | is_mem
    missing = gpu & (corr < 0)
    fl = c["flows"]
    if missing.any() and fl["id"].size:
        flows = pd.DataFrame({"pid": fl["pid"], "tid": fl["tid"], "ts": fl["ts"], "fid": fl["id"]}) \
            .drop_duplicates(["pid", "tid", "ts"])
        q = pd.DataFrame({"pid": pid[missing], "tid": tid[missing], "ts": start[missing]})
        corr[missing] = q.merge(flows, how="left", on=["pid", "tid", "ts"])["fid"].fillna(-1).astype(np.int64).to_numpy()

    li = np.flatnonzero(is_launch)
    launches = pd.DataFrame({"start_ns": start[li], "end_ns": end[li], "name": _take(namev, li),
                             "pid": pid[li], "tid": tid[li], "correlation": corr[li], "rank": rank})

    gi = np.flatnonzero(gpu)
    op_chain, op_types = _op_evidence(start, end, pid, tid, namev, c["intypes"],
                                      is_op | (is_ann & _op_like(namev)), li, corr, gi)
    # each GPU op's launch call: the first launch event with its correlation id
    default_pid = int(pid[is_op][0]) if is_op.any() else 0
    launch_pid = np.full(gi.size, default_pid, np.int64)
    via_graph = np.zeros(gi.size, bool)
    if li.size and gi.size:
        ucorr, first = np.unique(corr[li], return_index=True)
        at = np.minimum(np.searchsorted(ucorr, corr[gi]), ucorr.size - 1)
        hit = ucorr[at] == corr[gi]
        lj = li[first[at[hit]]]
        launch_pid[hit] = pid[lj]
        # torch traces carry no graph id on graph kernels; their launch call says cudaGraphLaunch
        via_graph[hit] = _per_value(namev, lambda s: s.startswith(
            ("cudaGraphLaunch", "cuGraphLaunch", "hipGraphLaunch")))[lj]
    # Kineto puts the device in pid and the stream in tid of GPU events; args are preferred.
    dev = np.where(c["dev"] < 0, pid, c["dev"])
    stream = np.where(c["stream"] < 0, tid, c["stream"])
    graph = c["graph"]

    ki = np.flatnonzero(is_kernel)
    kpos = np.searchsorted(gi, ki)
    kgraph = np.where(graph[ki] >= 0, graph[ki], np.where(via_graph[kpos], 0, -1))
    kern = pd.DataFrame({
        "start_ns": start[ki], "end_ns": end[ki], "name": _take(namev, ki), "short_name": _short_names(_take(namev, ki)),
        "device": dev[ki], "stream": stream[ki], "correlation": corr[ki], "pid": launch_pid[kpos],
        "grid_x": c["grid"][0][ki], "grid_y": c["grid"][1][ki], "grid_z": c["grid"][2][ki],
        "block_x": c["block"][0][ki], "block_y": c["block"][1][ki], "block_z": c["block"][2][ki],
        "graph_id": pd.arrays.IntegerArray(np.maximum(kgraph, 0), kgraph < 0),
        "op": _take(op_chain, kpos), "op_input_types": _take(op_types, kpos), "rank": rank,
    })

    mi = np.flatnonzero(is_mem)
    mpos = np.searchsorted(gi, mi)
    mnames = _take(namev, mi)
    mem = pd.DataFrame({
        "start_ns": start[mi], "end_ns": end[mi],
        "kind": _cat_from(mnames.codes, np.array([_memop_kind(u) for u in mnames.categories], dtype=object)),
        "bytes": c["bytes"][mi], "device": dev[mi], "stream": stream[mi], "correlation": corr[mi],
        "pid": launch_pid[mpos], "op": _take(op_chain, mpos), "rank": rank})

    ri = np.flatnonzero(is_ann | is_gann | (is_step & is_op))
    src = np.where(is_gann[ri], "gpu_user_annotation", np.where(is_step[ri], "profiler_step", "user_annotation"))
    rng = pd.DataFrame({"start_ns": start[ri], "end_ns": end[ri], "name": _take(namev, ri), "domain": "torch",
                        "source": src, "pid": pid[ri], "tid": tid[ri], "rank": rank})
    rng["depth"] = nesting_depth(start[ri], end[ri], (pid[ri] << 24) ^ tid[ri])

    props = header.get("deviceProperties") or []
    used = sorted(set(int(d) for d in np.unique(dev[gi]))) if gi.size else []
    names = {int(p.get("id", i)): p.get("name", "") for i, p in enumerate(props)}
    meta = {
        "format": "torch", "profiler": "torch.profiler",
        "profiler_version": _kineto_version(header), "schema_version": header.get("schemaVersion"),
        "devices": used, "gpus": [names.get(d) or f"device {d}" for d in used],
        "rank": rank, "ranks": [rank], "world_size": dist.get("world_size"),
        "distributed": {k: dist[k] for k in ("backend", "rank", "world_size", "nccl_version") if k in dist},
        "notes": [],
    }
    return Trace(kernels=conform(kern, KERNEL_COLUMNS), memops=conform(mem, MEMOP_COLUMNS),
                 launches=conform(launches, LAUNCH_COLUMNS), ranges=conform(rng, RANGE_COLUMNS),
                 graphs=empty(GRAPH_COLUMNS), meta=meta)


def _kineto_version(h: dict) -> str | None:
    parts = []
    if "cupti_version" in h:
        parts.append(f"CUPTI {h['cupti_version']}")
    if "roctracer_version" in h:
        parts.append(f"roctracer {h['roctracer_version']}")
    if "cuda_runtime_version" in h:
        parts.append(f"CUDA runtime {h['cuda_runtime_version']}")
    if "hip_runtime_version" in h:
        parts.append(f"HIP runtime {h['hip_runtime_version']}")
    return ", ".join(parts) or None


def _op_like(names: pd.Categorical) -> np.ndarray:
    """user_annotations that name an operation (`nccl:all_reduce`, `vllm::all_reduce`), not a region."""
    return _per_value(names, lambda s: ":" in s and PROFILER_STEP.match(s) is None)


def _categorical(values: list) -> pd.Categorical:
    """A list of strings as a categorical with sorted categories (None -> missing)."""
    codes, uniq = pd.factorize(np.array(values, dtype=object))
    return _cat_from(codes, np.asarray(uniq, dtype=object))


def _cat_from(codes: np.ndarray, values: np.ndarray) -> pd.Categorical:
    """Categorical of values[codes] (code -1: missing) holding only the values used, sorted, like
    `.astype("category")` of the equivalent object array; equal values at distinct codes merge.
    O(rows) plus a sort of the distinct values."""
    if not codes.size:
        return pd.Categorical(np.array([], dtype=object))
    values = np.asarray(values, dtype=object)
    shifted = np.asarray(codes, dtype=np.int64) + 1  # 0: missing
    used = np.flatnonzero(np.bincount(shifted, minlength=values.size + 1)[1:])
    cats, to_cat = np.unique(values[used], return_inverse=True)
    remap = np.full(values.size + 1, -1, dtype=np.int64)
    remap[used + 1] = to_cat.reshape(-1)
    return pd.Categorical.from_codes(remap[shifted], categories=pd.Index(list(cats)))


def _take(values: pd.Categorical, idx: np.ndarray) -> pd.Categorical:
    """values[idx] keeping only the categories used (the categories of `values` are sorted)."""
    return _cat_from(values.codes[idx], np.asarray(values.categories, dtype=object))


def _is(values: pd.Categorical, *wanted: str) -> np.ndarray:
    cats = values.categories
    codes = [cats.get_loc(w) for w in wanted if w in cats]
    return np.isin(values.codes, codes) if codes else np.zeros(len(values), bool)


def _per_value(values: pd.Categorical, test) -> np.ndarray:
    """Boolean test run once per distinct value, spread over the rows (missing -> False)."""
    per = np.fromiter((bool(test(v)) for v in values.categories), dtype=bool, count=len(values.categories))
    return np.append(per, False)[values.codes]


def _op_evidence(start, end, pid, tid, names, intypes, is_op, launch_idx, corr, gpu_idx):
    """For each GPU op (gpu_idx order): the op chain string and input types of the innermost op."""
    n_gpu = gpu_idx.size
    oi = np.flatnonzero(is_op)
    if not n_gpu or not oi.size or not launch_idx.size:
        blank = _cat_from(np.zeros(n_gpu, np.int64), np.array([""], dtype=object))
        return blank, blank
    # the launch call of each GPU op
    lcorr = corr[launch_idx]
    lorder = np.argsort(lcorr, kind="stable")
    pos = np.searchsorted(lcorr[lorder], corr[gpu_idx])
    pos = np.minimum(pos, lorder.size - 1)
    found = lcorr[lorder][pos] == corr[gpu_idx]
    lidx = launch_idx[lorder][pos]
    # ops grouped by thread, sorted by (thread, start, -end): enclosing ops come first
    thread = (pid[oi] << 24) ^ tid[oi]
    order = np.lexsort((-end[oi], start[oi], thread))
    oi = oi[order]
    othread, ostart, oend = thread[order], start[oi], end[oi]
    depth = nesting_depth(ostart, oend, othread)
    parent = _parents(othread, ostart, depth)
    # innermost op enclosing each launch: last op starting at/before the launch on its thread,
    # walked up through parents until it contains the launch
    lth = (pid[lidx] << 24) ^ tid[lidx]
    lts = start[lidx]
    j = _last_at_or_before(othread, ostart, lth, lts)
    for _ in range(int(depth.max()) + 2 if depth.size else 1):
        bad = (j >= 0) & (oend[np.maximum(j, 0)] < lts)
        if not bad.any():
            break
        j = np.where(bad, parent[np.maximum(j, 0)], j)
    j = np.where(found & (j >= 0) & (othread[np.maximum(j, 0)] == lth), j, -1)
    # chains: unique innermost ops, then walk their ancestors (vectorized over depth levels)
    uj, inv = np.unique(j, return_inverse=True)
    inv = inv.reshape(-1)
    name_codes = np.asarray(names.codes)[oi]
    name_cats = np.asarray(names.categories, dtype=object)
    maxd = int(depth.max()) + 1 if depth.size else 1
    levels = np.full((uj.size, maxd), -1, dtype=np.int64)
    cur = uj.copy()
    for d in range(maxd):
        ok = cur >= 0
        levels[ok, d] = name_codes[cur[ok]]
        cur = np.where(ok, parent[np.maximum(cur, 0)], -1)
    # text once per distinct chain of names, not per launching op
    ulevels, lev_inv = np.unique(levels, axis=0, return_inverse=True)
    chain_text = np.array([" > ".join(name_cats[c] for c in row[::-1] if c >= 0) for row in ulevels],
                          dtype=object)
    chains = _cat_from(lev_inv.reshape(-1)[inv], chain_text)
    type_vals = np.append(np.asarray(intypes.categories, dtype=object), "")
    blank = type_vals.size - 1
    type_codes = np.where(uj >= 0, np.asarray(intypes.codes)[oi[np.maximum(uj, 0)]], blank)
    type_codes = np.where(type_codes < 0, blank, type_codes)
    types = _cat_from(type_codes[inv], type_vals)
    return chains, types


def _types_text(t) -> str:
    """A CPU op's "Input type" list as one comma-joined string."""
    if not isinstance(t, list):
        return ""
    return ",".join("" if x is None else str(x) for x in t)


def _parents(thread: np.ndarray, start: np.ndarray, depth: np.ndarray) -> np.ndarray:
    """Index of the enclosing op (sorted order) for ops sorted by (thread, start, -end)."""
    n = start.size
    parent = np.full(n, -1, dtype=np.int64)
    for d in range(1, int(depth.max()) + 1 if n else 0):
        child = np.flatnonzero(depth == d)
        cand = np.flatnonzero(depth == d - 1)
        if not child.size or not cand.size:
            continue
        # the last depth d-1 op at or before the child, on the same thread
        k = _last_at_or_before(thread[cand], start[cand], thread[child], start[child], stable_index=cand)
        parent[child] = k
    return parent


def _last_at_or_before(thread_sorted: np.ndarray, start_sorted: np.ndarray, q_thread: np.ndarray,
                       q_start: np.ndarray, stable_index: np.ndarray | None = None) -> np.ndarray:
    """For queries (thread, t): index of the last element with the same thread and start <= t, else -1.

    The elements must be sorted by (thread, start)."""
    if not start_sorted.size:
        return np.full(q_start.size, -1, np.int64)
    # rank threads jointly so (thread, start) pairs compare as one float-free composite
    _, t_codes = np.unique(np.concatenate([thread_sorted, q_thread]), return_inverse=True)
    t_codes = t_codes.reshape(-1)
    e_code, q_code = t_codes[:thread_sorted.size], t_codes[thread_sorted.size:]
    res = np.full(q_start.size, -1, np.int64)
    lo = np.searchsorted(e_code, q_code, side="left")
    hi = np.searchsorted(e_code, q_code, side="right")
    # within each thread's slice, binary search on start: do it per thread (few threads)
    for code in np.unique(q_code):
        qm = np.flatnonzero(q_code == code)
        a, b = int(lo[qm[0]]), int(hi[qm[0]])
        if b <= a:
            continue
        k = np.searchsorted(start_sorted[a:b], q_start[qm], side="right") - 1
        ok = k >= 0
        out = np.where(ok, a + k, -1)
        if stable_index is not None:
            out = np.where(ok, stable_index[np.maximum(out, 0)], -1)
        res[qm] = out
    return res


_PAREN = re.compile(r"\(.*$")


def _short(full: str) -> str:
    """Kernel name without return type, template arguments and parameters."""
    s = full
    if s.startswith("void "):
        s = s[5:]
    # drop template args / params: cut at the first '<' or '(' at depth 0
    out, depth = [], 0
    for ch in s:
        if ch in "<(":
            if depth == 0 and out:
                break
            depth += 1
        elif ch in ">)":
            depth -= 1
        elif depth == 0:
            out.append(ch)
    base = "".join(out).strip() or s
    return base.split("::")[-1] if "::" in base else base


def _short_names(full: pd.Categorical) -> pd.Categorical:
    """Short names computed once per distinct kernel name."""
    if not len(full):
        return pd.Categorical([])
    shorts = np.array([_short(u) for u in full.categories], dtype=object)
    return _cat_from(np.asarray(full.codes), shorts)


def _memop_kind(name: str) -> str:
    n = name.lower()
    if "memset" in n:
        return "memset"
    for k, v in (("htod", "memcpy_htod"), ("dtoh", "memcpy_dtoh"), ("dtod", "memcpy_dtod"),
                 ("htoh", "memcpy_htoh"), ("ptop", "memcpy_ptop"), ("peer", "memcpy_ptop")):
        if k in n:
            return v
    return "memcpy_unknown"
