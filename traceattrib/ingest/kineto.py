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
            "cat": np.array(self.cat, dtype=object), "name": np.array(self.name, dtype=object),
            "pid": _int_col(self.pid), "tid": _int_col(self.tid),
            "ts": np.array(self.ts, dtype=np.int64), "dur": np.array(self.dur, dtype=np.int64),
            "corr": _int_col(self.corr), "dev": _int_col(self.dev), "stream": _int_col(self.stream),
            "grid": [_dims(g, i) for i in range(3)], "block": [_dims(b, i) for i in range(3)],
            "graph": _int_col(self.graph), "bytes": _int_col(self.nbytes, 0),
            "intypes": np.array(self.intypes, dtype=object),
            "flows": {"pid": _int_col(self.f_pid), "tid": _int_col(self.f_tid),
                      "ts": np.array(self.f_ts, dtype=np.int64), "id": _int_col(self.f_id)},
        }


def read(path: str, require_gpu: bool = True, rank: int | None = None) -> Trace:
    """Load one Kineto JSON trace. `rank` overrides distributedInfo.rank (directory loading)."""
    buf = read_bytes(path)
    if not buf[:64].lstrip()[:1] == b"{":
        raise TraceError(f"{path}: not a torch.profiler JSON trace (does not start with a JSON object)")
    try:
        open_at = find_events_array(buf)
    except ScanError:
        raise TraceError(f"{path}: not a torch.profiler trace (no traceEvents array)") from None
    cols = header = None
    end_at = buf.rfind(_PRETTY_END)
    if end_at > open_at:
        close_at = end_at + len(_PRETTY_END) - 1
        header = _header(path, buf, open_at, close_at)
        cols = _read_fast(buf, open_at, close_at)
    if cols is None:
        try:
            close_at, spans = event_bounds(buf, open_at)
        except ScanError as e:
            raise TraceError(f"{path}: not a readable torch.profiler trace ({e})") from None
        header = _header(path, buf, open_at, close_at)
        cols = _read_exact(path, buf, spans)
    del buf
    return _build(path, header, cols, require_gpu, rank)


def _header(path: str, buf: bytes, open_at: int, close_at: int) -> dict:
    try:
        return _loads(buf[:open_at] + b"[]" + buf[close_at + 1:])
    except ValueError as e:
        raise TraceError(f"{path}: malformed JSON outside traceEvents ({e})") from None


def _read_exact(path: str, buf: bytes, spans: list[tuple[int, int]]) -> dict:
    """Chunked stdlib-json path: any valid JSON layout, exact decimal timestamps."""
    cols = _Cols()
    for a, b in spans:
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


def _read_fast(buf: bytes, open_at: int, close_at: int) -> dict | None:
    """pyarrow path for Kineto's own layout; None when the file does not fit it (caller falls back).

    Event separators become newlines so pyarrow sees a stream of objects; string-valued pid/tid
    (Kineto's "Spans"/"Traces" rows) are renamed out of the way so the numeric columns stay typed;
    timestamps too large for exact float recovery are rewritten as integer ns first.
    """
    import io

    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.json as pj

    first = buf.find(b"{", open_at)
    body = buf[first:close_at - 2]  # up to the last event's closing brace
    m = _TS_DECIMAL.search(body)
    exact_ts = m is not None and float(m.group(1)) >= _EXACT_FLOAT_US
    if exact_ts:
        body = _TS_DECIMAL.sub(rb'"ts_ns": \1\2', body)
    body = body.replace(_PRETTY_SEP, b"\n  }\n  {").replace(b'"pid": "', b'"pid_s": "').replace(b'"tid": "', b'"tid_s": "')
    i64, f64, s = pa.int64(), pa.float64(), pa.string()
    argt = {"int64": i64, "list": pa.list_(i64), "liststr": pa.list_(s)}
    schema = pa.schema([("ph", s), ("cat", s), ("name", s), ("pid", i64), ("tid", i64), ("ts", f64),
                        ("ts_ns", i64), ("dur", f64), ("id", i64),
                        ("args", pa.struct([(k, argt[t]) for k, t in _ARGS]))])
    try:
        tab = pj.read_json(io.BytesIO(body), read_options=pj.ReadOptions(block_size=1 << 24),
                           parse_options=pj.ParseOptions(explicit_schema=schema, newlines_in_values=True,
                                                         unexpected_field_behavior="ignore"))
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        return None
    del body
    ph, cat = tab.column("ph"), tab.column("cat")
    keep_mask = pc.and_(pc.equal(ph, "X"), pc.is_in(cat, pa.array(sorted(KEEP_CATS))))
    flow_mask = pc.and_(pc.equal(ph, "f"), pc.equal(cat, "ac2g"))
    fl = tab.filter(pc.fill_null(flow_mask, False))
    t = tab.filter(pc.fill_null(keep_mask, False))
    del tab

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

    args = t.column("args").combine_chunks()
    def arg(k):
        return args.field(k)
    def dim(k, i):
        lst = arg(k)
        return ints(pc.list_element(lst, i), 0) if len(lst) else np.empty(0, np.int64)
    intypes = arg("Input type")
    joined = pc.binary_join(intypes, ",") if len(intypes) else pa.array([], s)
    return {
        "cat": t.column("cat").to_numpy(zero_copy_only=False).astype(object),
        "name": t.column("name").fill_null("").to_numpy(zero_copy_only=False).astype(object),
        "pid": ints(t.column("pid")), "tid": ints(t.column("tid")),
        "ts": ts_ns(t), "dur": np.rint(np.nan_to_num(t.column("dur").to_numpy(zero_copy_only=False)) * 1000).astype(np.int64),
        "corr": ints(arg("correlation")), "dev": ints(arg("device")), "stream": ints(arg("stream")),
        "grid": [dim("grid", i) for i in range(3)], "block": [dim("block", i) for i in range(3)],
        "graph": ints(arg("graph id")), "bytes": ints(arg("bytes"), 0),
        "intypes": joined.fill_null("").to_numpy(zero_copy_only=False).astype(object),
        "flows": {"pid": ints(fl.column("pid")), "tid": ints(fl.column("tid")), "ts": ts_ns(fl),
                  "id": ints(fl.column("id"))},
    }


def _build(path: str, header: dict, c: dict, require_gpu: bool, rank: int | None) -> Trace:
    catv, namev = c["cat"], c["name"]
    start = c["ts"]
    end = start + np.maximum(c["dur"], 0)
    pid, tid, corr = c["pid"], c["tid"], c["corr"].copy()
    is_kernel = catv == "kernel"
    is_mem = (catv == "gpu_memcpy") | (catv == "gpu_memset")
    is_launch = (catv == "cuda_runtime") | (catv == "cuda_driver")
    is_op = catv == "cpu_op"
    is_ann = catv == "user_annotation"
    is_gann = catv == "gpu_user_annotation"
    is_step = pd.Series(namev, dtype=object).str.match(PROFILER_STEP.pattern).to_numpy(dtype=bool) \
        if namev.size else np.zeros(0, bool)

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
    launches = pd.DataFrame({"start_ns": start[li], "end_ns": end[li], "name": namev[li],
                             "pid": pid[li], "tid": tid[li], "correlation": corr[li], "rank": rank})

    gi = np.flatnonzero(gpu)
    op_chain, op_types = _op_evidence(start, end, pid, tid, namev, c["intypes"],
                                      is_op | (is_ann & _op_like(namev)), li, corr, gi)
    lk = launches.drop_duplicates("correlation").set_index("correlation") if len(launches) else None
    default_pid = int(pid[is_op][0]) if is_op.any() else 0
    launch_pid = pd.Series(corr[gi]).map(lk["pid"]).fillna(default_pid).astype(np.int64).to_numpy() \
        if lk is not None else np.full(gi.size, default_pid, np.int64)
    launch_name = pd.Series(corr[gi]).map(lk["name"]).fillna("").astype(str).to_numpy() \
        if lk is not None else np.full(gi.size, "", dtype=object)
    # Kineto puts the device in pid and the stream in tid of GPU events; args are preferred.
    dev = np.where(c["dev"] < 0, pid, c["dev"])
    stream = np.where(c["stream"] < 0, tid, c["stream"])
    graph = c["graph"]
    # torch traces carry no graph id on graph kernels; their launch call says cudaGraphLaunch
    via_graph = pd.Series(launch_name).str.startswith(("cudaGraphLaunch", "cuGraphLaunch", "hipGraphLaunch")).to_numpy(bool)

    ki = np.flatnonzero(is_kernel)
    kpos = np.searchsorted(gi, ki)
    kgraph = np.where(graph[ki] >= 0, graph[ki], np.where(via_graph[kpos], 0, -1))
    kern = pd.DataFrame({
        "start_ns": start[ki], "end_ns": end[ki], "name": namev[ki], "short_name": _short_names(namev[ki]),
        "device": dev[ki], "stream": stream[ki], "correlation": corr[ki], "pid": launch_pid[kpos],
        "grid_x": c["grid"][0][ki], "grid_y": c["grid"][1][ki], "grid_z": c["grid"][2][ki],
        "block_x": c["block"][0][ki], "block_y": c["block"][1][ki], "block_z": c["block"][2][ki],
        "graph_id": pd.arrays.IntegerArray(np.maximum(kgraph, 0), kgraph < 0),
        "op": op_chain[kpos], "op_input_types": op_types[kpos], "rank": rank,
    })

    mi = np.flatnonzero(is_mem)
    mpos = np.searchsorted(gi, mi)
    kinds, uniq = pd.factorize(namev[mi])
    mem = pd.DataFrame({
        "start_ns": start[mi], "end_ns": end[mi],
        "kind": np.array([_memop_kind(u) for u in uniq], dtype=object)[kinds] if mi.size else [],
        "bytes": c["bytes"][mi], "device": dev[mi], "stream": stream[mi], "correlation": corr[mi],
        "pid": launch_pid[mpos], "op": op_chain[mpos], "rank": rank})

    ri = np.flatnonzero(is_ann | is_gann | (is_step & is_op))
    src = np.where(is_step[ri], "profiler_step", np.where(is_gann[ri], "gpu_user_annotation", "user_annotation"))
    rng = pd.DataFrame({"start_ns": start[ri], "end_ns": end[ri], "name": namev[ri], "domain": "torch",
                        "source": src, "pid": pid[ri], "tid": tid[ri], "rank": rank})
    rng["depth"] = nesting_depth(start[ri], end[ri], (pid[ri] << 24) ^ tid[ri])

    props = header.get("deviceProperties") or []
    used = sorted(set(int(d) for d in np.unique(dev[gi]))) if gi.size else []
    names = {int(p.get("id", i)): p.get("name", "") for i, p in enumerate(props)}
    meta = {
        "format": "torch", "profiler": "torch.profiler (Kineto)",
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


def _op_like(names: np.ndarray) -> np.ndarray:
    """user_annotations that name an operation (`nccl:all_reduce`, `vllm::all_reduce`), not a region."""
    if not names.size:
        return np.zeros(0, bool)
    return pd.Series(names).str.contains(":", regex=False).to_numpy() & \
        ~pd.Series(names).str.match(PROFILER_STEP.pattern).to_numpy()


def _op_evidence(start, end, pid, tid, names, intypes, is_op, launch_idx, corr, gpu_idx):
    """For each GPU op (gpu_idx order): the op chain string and input types of the innermost op."""
    n_gpu = gpu_idx.size
    chains = np.full(n_gpu, "", dtype=object)
    types = np.full(n_gpu, "", dtype=object)
    oi = np.flatnonzero(is_op)
    if not n_gpu or not oi.size or not launch_idx.size:
        return chains, types
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
    name_codes, name_cats = pd.factorize(names[oi])
    maxd = int(depth.max()) + 1 if depth.size else 1
    levels = np.full((uj.size, maxd), -1, dtype=np.int64)
    cur = uj.copy()
    for d in range(maxd):
        ok = cur >= 0
        levels[ok, d] = name_codes[cur[ok]]
        cur = np.where(ok, parent[np.maximum(cur, 0)], -1)
    chain_text = []
    for row in levels:  # one per distinct launching op, not per event
        parts = [name_cats[c] for c in row[::-1] if c >= 0]
        chain_text.append(" > ".join(parts))
    chain_text = np.array(chain_text, dtype=object)
    type_text = np.array(["" if u < 0 else intypes[oi[u]] for u in uj], dtype=object)
    chains = chain_text[inv.reshape(-1)]
    types = type_text[inv.reshape(-1)]
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
    threads, t_codes = np.unique(np.concatenate([thread_sorted, q_thread]), return_inverse=True)
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


def _short_names(full: np.ndarray) -> pd.Categorical:
    """Short names computed once per distinct kernel name."""
    codes, uniq = pd.factorize(full)
    shorts = np.array([_short(u) for u in uniq], dtype=object)
    return pd.Categorical(shorts[codes]) if codes.size else pd.Categorical([])


def _memop_kind(name: str) -> str:
    n = name.lower()
    if "memset" in n:
        return "memset"
    for k, v in (("htod", "memcpy_htod"), ("dtoh", "memcpy_dtoh"), ("dtod", "memcpy_dtod"),
                 ("htoh", "memcpy_htoh"), ("ptop", "memcpy_ptop"), ("peer", "memcpy_ptop")):
        if k in n:
            return v
    return "memcpy_unknown"
