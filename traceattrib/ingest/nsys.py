"""Reader for Nsight Systems SQLite exports (`nsys export --type sqlite`), nsys 2021.2 to 2026.2.

Tables and optional columns are found by probing the file, never by version number: exports
differ in which tables exist (META_DATA_EXPORT vs EXPORT_META_DATA vs none, TARGET_INFO_GPU vs
TARGET_INFO_CUDA_GPU), in kernel columns (graphId, mangledName, greenContextId come and go) and in
NVTX columns (textId, domainId). Columns are read as Arrow through `_sqlite.SqliteSource`
(read-only; nothing is written beside the file).

Every value is checked where it is read, on whole columns: a column the reader needs but the
table lacks, or a non-integer value in an integer column, is a TraceError naming the table,
column and row; rows that cannot be placed on the timeline (NULL times, end < start, times
below 0 or beyond 2**62 ns) are dropped and counted in a warning (meta["warnings"], also in the notes).
"""
from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
from pandas.api.types import union_categoricals

from ..errors import TraceError
from ..intervals import nesting_depth, unique_inverse
from ..model import (
    CPU_OP_COLUMNS,
    GRAPH_COLUMNS,
    KERNEL_COLUMNS,
    LAUNCH_COLUMNS,
    MEMOP_COLUMNS,
    RANGE_COLUMNS,
    Trace,
    conform,
    empty,
    gpu_names,
    one_value,
)
from . import nccl_nvtx
from ._sqlite import Columns, SqliteSource
from .messages import distinct
from .nsys_tables import (
    CALLCHAIN_TABLE,
    DRIVER_TABLE,
    GRAPH_TABLE,
    KERNEL_TABLE,
    MEMCPY_TABLE,
    MEMSET_TABLE,
    NVTX_COLS,
    NVTX_TABLE,
    OSRT_TABLE,
    PID_MASK,
    PROCESS_COLUMN,
    RUNTIME_TABLE,
    SAMPLE_TABLE,
    STRINGS_TABLE,
    TIME_LIMIT_NS,
    Process,
    Started,
    columns,
    process_where,
    start,
    unplaceable,
)

# CUpti_ActivityMemcpyKind, stable across CUPTI versions; names as `nsys stats` prints them.
COPY_KINDS = {0: "memcpy_unknown", 1: "memcpy_htod", 2: "memcpy_dtoh", 3: "memcpy_htoa",
              4: "memcpy_atoh", 5: "memcpy_atoa", 6: "memcpy_atod", 7: "memcpy_dtoa",
              8: "memcpy_dtod", 9: "memcpy_htoh", 10: "memcpy_ptop", 11: "memcpy_remote"}

# NVTX event types in NVTX_EVENTS.eventType
NVTX_PUSHPOP, NVTX_STARTEND, NVTX_DOMAIN_CREATE = 59, 60, 75


INT32_MAX = (1 << 31) - 1


class _Reader:
    """One export being read: its source, its reads begun (by table, nsys_tables.start), its
    string table, and the warnings collected."""

    def __init__(self, src: SqliteSource, started: dict, pid: int | None = None):
        self.src = src
        self.started = started
        self.pid = pid  # only this process's rows are read (None: every row)
        self.path = src.path
        self.warnings: list[str] = []
        self.dropped: dict[str, int] = {}  # table -> rows dropped as unplaceable (integrity.py reads it)
        self._strings: tuple[np.ndarray, pa.Array] | None = None

    # -- validation -----------------------------------------------------------------------------

    def timeline_rows(self, table: str, c: Columns, required: tuple[str, ...] = (),
                      among: str = "") -> np.ndarray | None:
        """Rows that can be placed on the timeline, or None when all can.

        Dropped (and counted in a warning): NULL start or end (or NULL in a `required` column),
        end < start, and times below 0 or beyond TIME_LIMIT_NS."""
        bad, counts = bad_rows(c, required)
        if not counts[0]:
            return None
        self.dropped[table] = self.dropped.get(table, 0) + counts[0]
        self.warnings.append(self.drop_warning(table, c.n, counts, required, among))
        return ~bad

    def utf8_warning(self, n: int) -> None:
        self.warnings.append(f"{NVTX_TABLE}: {n:,} texts are not valid UTF-8 (shown with U+FFFD)")

    def drop_warning(self, table: str, n: int, counts: tuple[int, int, int, int], required: tuple[str, ...],
                     among: str) -> str:
        """The warning for rows timeline_rows drops: counts = (dropped, NULL, end < start, out of range)."""
        nbad, null, backwards, huge = counts
        why = [f"{k} {what}" for k, what in ((null, "with a NULL time or device"),
                                             (backwards, "with end < start"),
                                             (huge, "with a time below 0 or beyond 2**62 ns")) if k]
        return (f"{table}: dropped {nbad:,} of {n:,} rows that cannot be placed on the timeline "
                f"({', '.join(why)}{self._first_rowid(table, required, among)})")

    def _first_rowid(self, table: str, required: tuple[str, ...], among: str) -> str:
        """'; first at rowid N' for the first row timeline_rows drops (found by SQL, only when some are)."""
        if not self.src.rowid_ok(table):
            return ""
        cond = unplaceable(required)
        if self.pid is not None and table in PROCESS_COLUMN:
            among = " and ".join(f"({x})" for x in (among, process_where(table, self.pid)) if x)
        sql = f'select min(rowid) from "{table}" where ({cond})' + (f" and ({among})" if among else "")
        first = self.src.rows(sql, table)[0][0]
        return f"; first at rowid {first}" if first is not None else ""

    def in_range(self, table: str, col: str, a: np.ndarray, lo: int, hi: int) -> None:
        """TraceError when a value of column `col` lies outside [lo, hi]."""
        if not a.size:
            return
        out = (a < lo) | (a > hi)
        if out.any():
            i = int(np.flatnonzero(out)[0])
            raise TraceError(f"{self.path}: table {table}, column {col}: {int(out.sum()):,} value(s) outside "
                             f"{lo}..{hi} (row {i}: {int(a[i])})")

    # -- strings --------------------------------------------------------------------------------

    def strings(self) -> tuple[np.ndarray, pa.Array]:
        """StringIds as (sorted ids, their texts)."""
        if self._strings is None:
            if not self.src.has(STRINGS_TABLE):
                self._strings = (np.empty(0, np.int64), pa.array([], pa.string()))
            else:
                p = self.started[STRINGS_TABLE]  # nsys_tables.start reads it first
                c = p.result()
                if p.bad_utf8:
                    self.warnings.append(f"StringIds: {p.bad_utf8:,} strings are not valid UTF-8 "
                                         "(shown with U+FFFD)")
                ids = c.int("id", -1)
                order = np.argsort(ids, kind="stable")
                values = c.text("value").combine_chunks()
                if values.null_count:
                    self.warnings.append(f"StringIds: {values.null_count:,} strings are NULL (shown as empty names)")
                    values = pc.fill_null(values, "")
                self._strings = (ids[order], values.take(pa.array(order)))
        return self._strings

    def lookup(self, uniq: np.ndarray) -> np.ndarray:
        """Texts (object array) of distinct string ids; '<string N>' for an id StringIds lacks."""
        ids, values = self.strings()
        out = np.empty(uniq.size, dtype=object)
        if ids.size:
            pos = np.minimum(np.searchsorted(ids, uniq), ids.size - 1)
            hit = ids[pos] == uniq
        else:
            pos, hit = np.zeros(uniq.size, np.int64), np.zeros(uniq.size, bool)
        if hit.any():
            texts = values.take(pa.array(pos[hit])).fill_null("")
            out[hit] = np.asarray(texts.to_numpy(zero_copy_only=False), dtype=object)
        for i in np.flatnonzero(~hit):  # only ids that StringIds lacks: few or none
            out[i] = f"<string {int(uniq[i])}>" if uniq[i] >= 0 else ""
        return out

    def names(self, c: Columns, col: str, sort: bool = False) -> pd.Categorical:
        """A name column (StringIds ids, or text in the oldest exports) as a categorical; sort: its
        categories in text order (the codes made so, not recoded after: 34M API calls' recode took
        0.3 GB)."""
        if c.is_text(col):
            return pd.Categorical(np.asarray(c.text(col).fill_null("").to_numpy(zero_copy_only=False), dtype=object))
        ids = c.int(col, -1)
        uniq, inv = unique_inverse(ids, narrow=True)  # codes as small as categorical codes are
        cats = self.lookup(uniq)
        cat_index = pd.Index(cats)
        if cat_index.is_unique:
            if sort and not cat_index.is_monotonic_increasing:
                order = cat_index.argsort()
                rank = np.empty(order.size, inv.dtype)
                rank[order] = np.arange(order.size)
                return pd.Categorical.from_codes(rank[inv], categories=cat_index[order])
            return pd.Categorical.from_codes(inv, categories=cat_index)
        # distinct ids can hold equal text; from_codes needs unique categories
        return pd.Categorical(cats[inv])


def bad_rows(c: Columns, required: tuple[str, ...] = ()) -> tuple[np.ndarray, tuple[int, int, int, int]]:
    """Rows that cannot be placed on the timeline (NULL start or end, or NULL in a `required`
    column; end < start; times below 0 or beyond TIME_LIMIT_NS) and the counts (dropped, NULL,
    end < start, out of range)."""
    s, e = c.int("start"), c.int("end")
    null = c.null("start") | c.null("end")
    for col in required:
        null |= c.null(col)
    backwards = ~null & (e < s)
    # nsys times count from the session's start: a negative one cannot be placed either
    huge = ~null & ((s < 0) | (s > TIME_LIMIT_NS) | (e < 0) | (e > TIME_LIMIT_NS))
    bad = null | backwards | huge
    return bad, (int(bad.sum()), int(null.sum()), int((backwards & ~huge).sum()), int(huge.sum()))


def _distinct_ints(v: np.ndarray) -> np.ndarray:
    """Distinct values of an int64 array; one comparison when all are equal (one process: usual)."""
    return v[:1] if (v == v[0]).all() else np.unique(v)


def _pid(global_id: np.ndarray) -> np.ndarray:
    """The process id in a globalPid/globalTid (int64; one new array, no temporaries: a 16M-kernel
    export has 34M API calls)."""
    out = np.right_shift(global_id, 24, dtype=np.int64)
    out &= PID_MASK
    return out


def _tid(global_tid: np.ndarray) -> np.ndarray:
    """The thread id in a globalTid (int64)."""
    return np.bitwise_and(global_tid, PID_MASK, dtype=np.int64)


def _nullable(c: Columns, col: str) -> pd.arrays.IntegerArray:
    """Nullable Int64 array; NULLs (and an absent column) become <NA>."""
    return pd.arrays.IntegerArray(c.int(col), c.null(col))


def _valid(r: _Reader, table: str, pending, required: tuple[str, ...] = ()) -> Columns:
    """The table's rows that can be placed on the timeline."""
    c = pending.result()
    keep = r.timeline_rows(table, c, required)
    return c if keep is None else c.take(keep)


def read(path: str, require_gpu: bool = True, progress=None, started: Started | None = None,
         process: Process | None = None, lean: bool = False) -> Trace:
    """Load an Nsight Systems SQLite export into a Trace.

    require_gpu: raise TraceError when the export holds no GPU activity at all (captured
    without `-t cuda`, or empty activity tables); `traceattrib info` passes False to describe
    such files anyway. started: the reads `nsys_tables.start(path)` began (closed here), else
    they start now. process: only that process's rows (SQL filters every table by it), ranked
    among `process.pids` as when the whole file is read; the meta is that process's too
    (`merge_process_metas` joins them). lean: without the kernel columns only the exports show
    (model.EXPORT_ONLY_KERNEL_COLUMNS; `started` says for itself).
    """
    # every table starts loading now (worker threads, rowid ranges); the builders below wait
    # for each in the order they consume them
    pid = process.pid if process is not None else None
    opened = started or start(path, require_gpu, process=pid, lean=lean)
    src, pend = opened.src, opened.pending
    # NCCL's NVTX ranges come on a connection of their own, in a second thread while the tables
    # are built (100k ranges take about 0.7 s, mostly sqlite3's rows); the file as read: a WAL
    # database's copy included, which lives until `opened.close()`
    pool = ThreadPoolExecutor(1, thread_name_prefix="traceattrib-nccl")
    try:
        reading_nccl = pool.submit(nccl_nvtx.read, src.read_path)
        r = _Reader(src, pend, pid)
        step = progress or (lambda f, w="": None)
        step(0.02, "strings")
        r.strings()
        # fractions: rough shares of load time on large exports (kernels and API calls dominate)
        step(0.05, "kernels")
        kernels = _kernels(r, pend.get(KERNEL_TABLE), opened.lean)
        step(0.40, "memory ops")
        memops = _memops(r, pend.get(MEMCPY_TABLE), pend.get(MEMSET_TABLE))
        step(0.45, "API calls")
        launches = _launches(r, [(t, pend[t]) for t in (RUNTIME_TABLE, DRIVER_TABLE) if t in pend])
        step(0.85, "NVTX ranges")
        ranges = _nvtx(r)
        step(0.95, "graphs")
        graphs = _graphs(r, pend.get(GRAPH_TABLE))
        cpu_ops = _osrt(r, pend.get(OSRT_TABLE))
        samples = _samples(r, pend.get(SAMPLE_TABLE), pend.get(CALLCHAIN_TABLE))
        if len(samples):
            cpu_ops = conform(pd.concat([cpu_ops, samples], ignore_index=True), CPU_OP_COLUMNS) if len(cpu_ops) \
                else samples
        # one process: the file's devices, as read whole (sol takes the GPU from them)
        meta = _meta(r, kernels) if process is None else \
            meta_of(r, list(process.devices) if process.devices is not None else None)
        messages, unreadable = _diagnostics(src)
        meta["integrity"] = {"dropped_rows": dict(r.dropped), "profiler_messages": messages}
        if opened.lean:
            meta["lean"] = True
        if unreadable:
            meta["integrity"]["unreadable"] = unreadable
        nccl = reading_nccl.result()
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
        opened.close()
    if require_gpu and not (len(kernels) or len(memops) or len(graphs)):
        raise no_gpu_activity(path, bool(r.warnings))
    _assign_ranks([kernels, memops, graphs], [launches, ranges, cpu_ops], meta,
                  list(process.pids) if process is not None else None)
    # NCCL's NVTX ranges and payloads: the collective (and bytes) of each NCCL kernel
    kernels = nccl_nvtx.annotate_kernels(kernels, launches, nccl, meta.get("world_size"))
    notes = meta.setdefault("notes", [])
    if len(graphs) and not len(kernels[kernels["graph_id"].notna()]):
        notes.append(GRAPH_NOTE)
    if r.warnings:
        meta["warnings"] = list(r.warnings)
        notes.extend(r.warnings)
    return Trace(kernels=kernels, memops=memops, launches=launches, ranges=ranges, graphs=graphs,
                 cpu_ops=cpu_ops, meta=meta)


def _kernels(r: _Reader, pending, lean: bool = False) -> pd.DataFrame:
    if pending is None:
        return empty(KERNEL_COLUMNS)
    c = _valid(r, KERNEL_TABLE, pending, ("deviceId",))
    if c.n == 0:
        return empty(KERNEL_COLUMNS)
    return conform(kernel_frame(r, c, lean), KERNEL_COLUMNS)


def kernel_frame(r: _Reader, c: Columns, lean: bool = False) -> pd.DataFrame:
    """Kernel rows (valid ones, not empty) as the model's columns, in their order (not conformed);
    lean: the short names are left out where the read left them out (block sizes not read are
    left out either way; not read, their values are not checked: a bad block size fails `export`,
    not `report`)."""
    dev = c.int("deviceId")
    r.in_range(KERNEL_TABLE, "deviceId", dev, 0, INT32_MAX)
    dims = {}
    for col, key in (("gridX", "grid_x"), ("gridY", "grid_y"), ("gridZ", "grid_z"),
                     ("blockX", "block_x"), ("blockY", "block_y"), ("blockZ", "block_z")):
        if col not in c:  # not in the export, or not read (lean): conform fills 0, unknown
            continue
        dims[key] = c.int(col)
        r.in_range(KERNEL_TABLE, col, dims[key], 0, INT32_MAX)
    name = r.names(c, "demangledName" if "demangledName" in c else "shortName")
    short = {"short_name": r.names(c, "shortName") if "shortName" in c else name} \
        if not lean or "shortName" in c else {}
    df = pd.DataFrame({
        "start_ns": c.int("start"), "end_ns": c.int("end"),
        "name": name, **short,
        "device": dev.astype(np.int32),
        "stream": c.int("streamId"),
        "correlation": c.int("correlationId"),
        "pid": one_value(_pid(c.int("globalPid"))),
        **dims,
        "graph_id": _nullable(c, "graphId"),
        "graph_node_id": _nullable(c, "graphNodeId"),
    }, copy=False)
    # Older exports have graphNodeId but no graphId: a node id still marks a graph kernel.
    if "graphId" not in c and "graphNodeId" in c:
        df["graph_id"] = df["graph_node_id"].where(df["graph_node_id"].isna(), 0)
    return df


def _memop_frame(r: _Reader, table: str, pending, kind) -> pd.DataFrame | None:
    c = _valid(r, table, pending, ("deviceId",))
    if not c.n:
        return None
    return memop_frame(r, table, c, kind)


def memop_frame(r: _Reader, table: str, c: Columns, kind) -> pd.DataFrame:
    """Memory-op rows (valid ones, not empty) of `table`; kind: "memset", or None for memcpy (the
    copy direction from copyKind)."""
    dev = c.int("deviceId")
    r.in_range(table, "deviceId", dev, 0, INT32_MAX)
    nbytes = c.int("bytes")
    r.in_range(table, "bytes", nbytes, 0, np.iinfo(np.int64).max)
    if kind is None:  # memcpy: the copy direction
        uk, inv = np.unique(c.int("copyKind"), return_inverse=True)
        kind = pd.Categorical.from_codes(inv.reshape(-1), categories=pd.Index(
            [COPY_KINDS.get(int(k), f"memcpy_{int(k)}") for k in uk]))
    return pd.DataFrame({
        "start_ns": c.int("start"), "end_ns": c.int("end"), "kind": kind,
        "bytes": nbytes, "device": dev, "stream": c.int("streamId"),
        "correlation": c.int("correlationId"), "pid": _pid(c.int("globalPid")),
        "graph_node_id": _nullable(c, "graphNodeId")}, copy=False)


def _memops(r: _Reader, memcpy, memset) -> pd.DataFrame:
    parts = []
    if memcpy is not None:
        parts.append(_memop_frame(r, MEMCPY_TABLE, memcpy, None))
    if memset is not None:
        parts.append(_memop_frame(r, MEMSET_TABLE, memset, "memset"))
    parts = [p for p in parts if p is not None]
    if not parts:
        return empty(MEMOP_COLUMNS)
    df = pd.concat([p.astype({"kind": str}) for p in parts], ignore_index=True)
    return conform(df, MEMOP_COLUMNS)


def _launches(r: _Reader, pendings: list) -> pd.DataFrame:
    parts, names = [], []
    for table, pending in pendings:
        c = _valid(r, table, pending)
        if not c.n:
            continue
        df = launch_frame(r, c)
        names.append(df.pop("name").array)
        parts.append(df)
    if not parts:
        return empty(LAUNCH_COLUMNS)
    df = pd.concat(parts, ignore_index=True) if len(parts) > 1 else parts[0]
    # the names as text, categorized: every category is used, so the sorted union is the same
    # categorical as `.astype(str)` of each part then `.astype("category")` of the whole (one part:
    # launch_frame's categories are in text order already)
    df["name"] = union_categoricals(names, sort_categories=True) if len(names) > 1 else names[0]
    return conform(df, LAUNCH_COLUMNS)


def launch_frame(r: _Reader, c: Columns) -> pd.DataFrame:
    """API-call rows (valid ones) of one table: times, pid, tid, correlation and name (categorical)."""
    gt = c.int("globalTid")
    # a pid of one value held as one value now (the rule conform's compact applies once the table is
    # whole): one process's 34M API calls would otherwise hold 0.27 GB of pids meanwhile
    return pd.DataFrame({"start_ns": c.int("start"), "end_ns": c.int("end"), "pid": one_value(_pid(gt)),
                         "tid": _tid(gt), "correlation": c.int("correlationId"),
                         "name": r.names(c, "nameId", sort=True)}, copy=False)


def _nvtx(r: _Reader) -> pd.DataFrame:
    if not r.src.has(NVTX_TABLE):
        return empty(RANGE_COLUMNS)
    # one process's ranges, and every domain's name (domain ids are looked up among all rows)
    where = f'({process_where(NVTX_TABLE, r.pid)}) or "eventType" = {NVTX_DOMAIN_CREATE}' if r.pid is not None else ""
    c, text = nvtx_rows(r, where)
    if not c.n:
        return empty(RANGE_COLUMNS)
    df = nvtx_frame(r, c, text, nvtx_domains(c, text))
    if df is None:
        return empty(RANGE_COLUMNS)
    # nesting per thread of each process: two processes can hold threads of the same number
    thread = (df["pid"].to_numpy(np.int64) << 24) | df["tid"].to_numpy(np.int64)
    df["depth"] = nesting_depth(df["start_ns"].to_numpy(), df["end_ns"].to_numpy(), thread)
    return conform(df, RANGE_COLUMNS)


def nvtx_rows(r: _Reader, where: str = "", span: tuple[int, int] | None = None,
              count_utf8: bool = True) -> tuple[Columns, np.ndarray]:
    """NVTX_EVENTS rows (`where`: an SQL condition; span: a rowid range [a, b)) and each row's
    text (object array; None where it has none), registered strings looked up."""
    src = r.src
    cols = columns(src, NVTX_TABLE, NVTX_COLS)
    has_text = "text" in src.columns(NVTX_TABLE)
    if src.rowid_ok(NVTX_TABLE):
        # text is read apart, only where set: most rows hold a textId (or nothing), and a column
        # that starts with NULLs would make ADBC guess the wrong type
        cond = [x for x in (where, f"rowid >= {span[0]} and rowid < {span[1]}" if span else "") if x]
        main = src.fetch(NVTX_TABLE, cols, with_rowid=True, where=" and ".join(f"({x})" for x in cond), span=span)
        texts = src.fetch(NVTX_TABLE, ["text"], text=("text",), with_rowid=True, span=span,
                          where=" and ".join(f"({x})" for x in cond + ['"text" is not null'])) if has_text else None
        c = main.result()
        text = np.full(c.n, None, dtype=object)
        if texts is not None:
            tt = texts.result()
            if texts.bad_utf8 and count_utf8:
                r.utf8_warning(texts.bad_utf8)
            if tt.n:
                pos = np.searchsorted(c.int("rowid"), tt.int("rowid"))
                text[pos] = tt.text("text").to_numpy(zero_copy_only=False)
    else:  # a WITHOUT ROWID table: one plain read
        p = src.fetch(NVTX_TABLE, cols + (["text"] if has_text else []), text=("text",), where=where)
        c = p.result()
        text = np.asarray(c.text("text").to_numpy(zero_copy_only=False), dtype=object) if has_text \
            else np.full(c.n, None, dtype=object)
    if c.n and "textId" in c:
        need = np.flatnonzero(~c.null("textId") & pd.isna(text))
        if need.size:  # look each distinct registered string up once
            uniq, inv = np.unique(c.int("textId")[need], return_inverse=True)
            text[need] = r.lookup(uniq)[inv.reshape(-1)]
    return c, text


def nvtx_domains(c: Columns, text: np.ndarray) -> dict[int, str]:
    """Domain id -> name: the text of the domain-create events among the rows."""
    dom = c.int("domainId")
    dmask = c.int("eventType") == NVTX_DOMAIN_CREATE
    return {int(d): (t or "") for d, t in zip(dom[dmask], text[dmask])}


def nvtx_frame(r: _Reader, c: Columns, text: np.ndarray, domain_names: dict[int, str]) -> pd.DataFrame | None:
    """The ranges among NVTX rows (push/pop and start/end events with an end, that can be placed
    on the timeline) as the model's columns but depth, in row order; None when there are none."""
    et = c.int("eventType")
    dom = c.int("domainId")
    # ranges only; a range still open when the capture stopped has no end
    sel = np.isin(et, (NVTX_PUSHPOP, NVTX_STARTEND)) & ~c.null("end")
    if not sel.any():
        return None
    keep = r.timeline_rows(NVTX_TABLE, c.take(sel), among=f'"eventType" in ({NVTX_PUSHPOP}, {NVTX_STARTEND}) '
                                                          'and "end" is not null')
    idx = np.flatnonzero(sel)
    if keep is not None:
        idx = idx[keep]
    if not idx.size:
        return None
    gt = c.int("globalTid")[idx]
    names = pd.Series(text[idx]).fillna("").astype(str)
    return pd.DataFrame({
        "start_ns": c.int("start")[idx], "end_ns": c.int("end")[idx],
        "name": pd.Categorical(names),
        "domain": _domain_names(dom[idx], domain_names),
        "source": "nvtx",
        "pid": _pid(gt), "tid": _tid(gt),
    }, copy=False)


def _osrt(r: _Reader, pending) -> pd.DataFrame:
    """OS runtime calls as cpu_ops of kind 'osrt' (empty unless captured with `-t osrt`)."""
    if pending is None:
        return empty(CPU_OP_COLUMNS)
    c = _valid(r, OSRT_TABLE, pending)
    if not c.n:
        return empty(CPU_OP_COLUMNS)
    df = osrt_frame(r, c)
    df["depth"] = nesting_depth(df["start_ns"].to_numpy(), df["end_ns"].to_numpy(), c.int("globalTid"))
    return conform(df, CPU_OP_COLUMNS)


def osrt_frame(r: _Reader, c: Columns) -> pd.DataFrame:
    """OS runtime call rows (valid ones) as cpu_ops columns but depth, in row order."""
    gt = c.int("globalTid")
    return pd.DataFrame({"start_ns": c.int("start"), "end_ns": c.int("end"),
                         "name": r.names(c, "nameId"), "kind": "osrt",
                         "pid": _pid(gt), "tid": _tid(gt)}, copy=False)


def _samples(r: _Reader, pend_events, pend_chains) -> pd.DataFrame:
    """CPU samples as cpu_ops of kind 'sample' (empty unless captured with `--sample=process-tree`).

    Each sample names the frame that says what the thread was doing: the innermost resolved frame
    outside the runtime libraries of rules/idle.toml's `sample_skip_modules` (libc, the kernel, the
    profiler's own injection), else the innermost resolved one, else the innermost. It covers
    [t, t + p) where p is its thread's median sampling interval, cut at the thread's next sample:
    a sample says the thread was running there, not for how long."""
    if pend_events is None or pend_chains is None:
        return empty(CPU_OP_COLUMNS)
    ev = pend_events.result()
    ch = pend_chains.result()
    if not ev.n or not ch.n:
        return empty(CPU_OP_COLUMNS)
    start = ev.int("start", -1)
    ok = ~ev.null("start") & ~ev.null("globalTid") & (start >= 0) & (start < TIME_LIMIT_NS)
    eid, start, gt = ev.int("id")[ok], start[ok], ev.int("globalTid")[ok]
    # one frame per sample: rank frames (skipped or unresolved ones after the others), innermost first
    cid, depth = ch.int("id"), ch.int("stackDepth")
    sym, mod = r.names(ch, "symbol"), r.names(ch, "module")
    sym_txt = pd.Series(sym.categories.astype(str))
    unresolved = sym_txt.str.match(r"^(?:0x[0-9a-fA-F]+|\[.*\]|Unknown|)$").to_numpy(bool)
    skip = pd.Series(mod.categories.astype(str)).str.contains(_sample_skip_modules()).to_numpy(bool)
    scodes, mcodes = sym.codes.astype(np.int64), mod.codes.astype(np.int64)
    bad_sym = np.where(scodes >= 0, unresolved[np.maximum(scodes, 0)], True)
    rank = np.where(bad_sym, 2, np.where(mcodes >= 0, skip[np.maximum(mcodes, 0)], False).astype(np.int64))
    o = np.lexsort((depth, rank, cid))
    first = o[np.r_[True, cid[o][1:] != cid[o][:-1]]]
    pos = np.searchsorted(cid[first], eid)
    hit = (pos < first.size) & (cid[first][np.minimum(pos, max(first.size - 1, 0))] == eid)
    if not hit.any():
        return empty(CPU_OP_COLUMNS)
    row = first[pos[hit]]
    start, gt = start[hit], gt[hit]
    # "symbol (module)"; an unresolved frame is named by its module alone, so its samples add up
    mod_base = pd.Series(mod.categories.astype(str)).str.replace(r"^.*/", "", regex=True).to_numpy(object)
    m_txt = np.where(mcodes[row] >= 0, mod_base[np.maximum(mcodes[row], 0)], "")
    s_txt = sym_txt.to_numpy(object)[np.maximum(scodes[row], 0)]
    label = np.where(bad_sym[row], np.where(m_txt != "", "[" + m_txt + "]", s_txt),
                     np.where(m_txt != "", s_txt + " (" + m_txt + ")", s_txt))
    # each sample's stretch: up to the next sample of its thread, at most the thread's median interval
    o = np.lexsort((start, gt))
    start, gt, label = start[o], gt[o], label[o]
    nxt = np.r_[start[1:], start[-1:]]
    same = np.r_[gt[1:] == gt[:-1], False]
    step = np.where(same, nxt - start, 0)
    med = pd.Series(np.where(same, step, np.nan)).groupby(gt).transform("median").to_numpy()
    period = np.where(np.isfinite(med), med, 1_000_000).astype(np.int64)  # a lone sample: 1 ms (nsys's default rate)
    end = start + np.where(same, np.minimum(step, period), period)
    keep = end > start
    df = pd.DataFrame({"start_ns": start[keep], "end_ns": end[keep], "name": pd.Categorical(label[keep]),
                       "kind": "sample", "pid": _pid(gt[keep]), "tid": _tid(gt[keep])}, copy=False)
    df["depth"] = 0  # disjoint per thread by construction
    return conform(df, CPU_OP_COLUMNS)


def _sample_skip_modules() -> str:
    """rules/idle.toml's sample_skip_modules as one regex (modules whose frames say little)."""
    from .. import vocab

    pats = vocab.load("idle", vocab.IdleFile).sample_skip_modules
    return "|".join(f"(?:{p})" for p in pats) or "(?!)"


def _domain_names(dom: np.ndarray, names: dict[int, str]) -> pd.Categorical:
    """Domain id per range -> its name, one lookup per distinct id ('' for the default domain)."""
    uniq, inv = np.unique(dom, return_inverse=True)
    return pd.Categorical(np.array([names.get(int(d), "") for d in uniq], dtype=object)[inv.reshape(-1)])


def _graphs(r: _Reader, pending) -> pd.DataFrame:
    if pending is None:
        return empty(GRAPH_COLUMNS)
    c = _valid(r, GRAPH_TABLE, pending, ("deviceId",))
    if not c.n:
        return empty(GRAPH_COLUMNS)
    return conform(graph_frame(r, c), GRAPH_COLUMNS)


def graph_frame(r: _Reader, c: Columns) -> pd.DataFrame:
    """Whole-graph execution rows (valid ones) as the model's columns, in row order."""
    dev = c.int("deviceId")
    r.in_range(GRAPH_TABLE, "deviceId", dev, 0, INT32_MAX)
    df = pd.DataFrame({
        "start_ns": c.int("start"), "end_ns": c.int("end"), "device": dev,
        "stream": c.int("streamId"), "correlation": c.int("correlationId"),
        "pid": _pid(c.int("globalPid")), "graph_id": _nullable(c, "graphId"),
        "graph_exec_id": _nullable(c, "graphExecId")}, copy=False)
    return df


def _str(v) -> str | None:
    """A metadata value as text: BLOBs and invalid UTF-8 decoded with U+FFFD, numbers as digits."""
    if v is None:
        return None
    if isinstance(v, bytes):
        return v.decode("utf-8", "replace")
    return str(v)


def _meta(r: _Reader, kernels: pd.DataFrame) -> dict:
    return meta_of(r, sorted(int(d) for d in kernels["device"].unique()) if len(kernels) else None)


def meta_of(r: _Reader, devices: list[int] | None) -> dict:
    """The export's meta: format, profiler and schema versions, the devices used (`devices`, the
    kernels' device ids; None: no kernels, every GPU of the target) and their names."""
    src = r.src
    meta: dict = {"format": "nsys", "profiler": "Nsight Systems"}
    for t in ("META_DATA_EXPORT", "EXPORT_META_DATA"):
        if src.has(t) and {"name", "value"} <= set(src.columns(t)):
            kv = {_str(k): _str(v) for k, v in src.rows(f'select "name", "value" from {t}', t)}
            meta["profiler_version"] = kv.get("EXPORT_PRODUCT_VERSION")
            meta["schema_version"] = kv.get("EXPORT_SCHEMA_VERSION")
            break
    else:
        meta["profiler_version"] = None
        meta["schema_version"] = None
    gpus: dict[int, str] = {}
    for t, idcols in (("TARGET_INFO_GPU", ("id", "deviceId")), ("TARGET_INFO_CUDA_GPU", ("deviceId",))):
        if gpus or not src.has(t):
            continue
        cols = src.columns(t)
        idc = next((c for c in idcols if c in cols), None)
        if idc and "name" in cols:
            gpus = {i: (_str(nm) or "").strip() for i, nm in src.rows(f'select "{idc}", "name" from {t}', t)
                    if isinstance(i, int) and 0 <= i <= INT32_MAX}
    used = devices if devices is not None else sorted(gpus)
    meta["devices"] = used
    meta["gpus"] = gpu_names(gpus, used)
    return meta


DIAGNOSTIC_TABLE = "DIAGNOSTIC_EVENT"
DIAGNOSTIC_KEEP = 20  # distinct warning/error messages kept in the meta, each cut to 300 characters


def _diagnostics(src: SqliteSource) -> tuple[list[str], list[str]]:
    """(the profiler's own warning and error messages (DIAGNOSTIC_EVENT severity 2-3), distinct, in
    time order: where nsys says it lost records; why they could not be read, [] when they could).
    A damaged table is not a reason to refuse the file, but neither is it evidence that nothing
    was lost: the drops check fails on it (integrity.py)."""
    t = DIAGNOSTIC_TABLE
    if not src.has(t) or not {"severity", "text"} <= set(src.columns(t)):
        return [], []
    order = ' order by "timestamp"' if "timestamp" in src.columns(t) else ""
    try:
        rows = src.rows(f'select "text" from "{t}" where "severity" in (2, 3){order} limit 10000', t)
    except TraceError as e:
        return [], [f"{t} cannot be read ({str(e).rsplit('(', 1)[-1].rstrip(')')})"]
    return distinct((_str(v) for (v,) in rows), DIAGNOSTIC_KEEP), []


def _assign_ranks(gpu: list[pd.DataFrame], cpu: list[pd.DataFrame], meta: dict,
                  pids: list[int] | None = None) -> None:
    """nsys does not know ranks: each process that ran GPU work (rows of the `gpu` tables: kernels,
    memory ops, whole-graph executions) is taken as one rank, in pid order, and every row of both
    lists gets its process's rank (pids: those processes, when the tables hold one process's rows)."""
    if pids is None:
        pids = sorted({int(p) for t in gpu if len(t) for p in _distinct_ints(t["pid"].to_numpy())})
    known = np.array(pids, np.int64)
    for t in gpu + cpu:
        if len(t):
            pid = t["pid"].to_numpy()
            if known.size == 1:  # one process (usual): one comparison, no search over millions of calls
                t["rank"] = np.where(pid == known[0], 0, -1).astype(np.int32)
                continue
            pos = np.minimum(np.searchsorted(known, pid), max(known.size - 1, 0))
            hit = known[pos] == pid if known.size else np.zeros(pid.size, bool)
            t["rank"] = np.where(hit, pos, -1).astype(np.int32)
    rank_meta(pids, meta)


def merge_process_metas(metas: list[dict]) -> dict:
    """The meta of a whole export from those of its processes read one at a time (`read` with a
    process, in pid order): the readers' warnings and notes (each once, in order) and the rows
    they dropped (summed); the rest is the file's and the same in each."""
    meta = dict(metas[0])
    for key in ("notes", "warnings"):
        said = list(dict.fromkeys(x for m in metas for x in m.get(key) or []))
        if said:
            meta[key] = said
        else:
            meta.pop(key, None)
    # the profiler's messages and unreadable tables are the file's, read once per process
    dropped: dict[str, int] = {}
    for m in metas:
        for k, v in (m.get("integrity") or {}).get("dropped_rows", {}).items():
            dropped[k] = dropped.get(k, 0) + int(v)
    meta["integrity"] = dict(metas[0].get("integrity") or {}, dropped_rows=dropped)
    return meta


def rank_meta(pids: list[int], meta: dict) -> None:
    """The ranks of an export whose processes `pids` (sorted) ran GPU work, into its meta."""
    meta["ranks"] = list(range(len(pids)))
    meta["world_size"] = len(pids) if pids else None
    meta["rank_pids"] = pids
    if len(pids) > 1:
        meta.setdefault("notes", []).append(
            f"{len(pids)} processes ran GPU work; each is taken as one rank, numbered in pid order")


GRAPH_NOTE = ("CUDA graphs were traced as whole-graph executions only (nsys default): kernels "
              "inside graphs are not in the trace, so graph replays cannot be split into buckets; "
              "re-capture with `nsys profile --cuda-graph-trace=node` for a per-kernel breakdown")


def no_gpu_activity(path: str, warned: bool) -> TraceError:
    dropped = "; every row was dropped as invalid" if warned else ""
    return TraceError(f"{path}: Nsight Systems export with no GPU activity (its kernel, memory and graph "
                      f"tables are empty{dropped}); profile with `nsys profile -t cuda,nvtx` while the GPU "
                      "runs work")
