"""Reader for Nsight Systems SQLite exports (`nsys export --type sqlite`), nsys 2021.2 to 2026.2.

Tables and optional columns are found by probing the file, never by version number: exports
differ in which tables exist (META_DATA_EXPORT vs EXPORT_META_DATA vs none, TARGET_INFO_GPU vs
TARGET_INFO_CUDA_GPU), in kernel columns (graphId, mangledName, greenContextId come and go) and in
NVTX columns (textId, domainId). The file is opened read-only and immutable: nothing is written.
"""
from __future__ import annotations

import os
import sqlite3
import threading
from concurrent.futures import ThreadPoolExecutor
from urllib.parse import quote

import numpy as np
import pandas as pd
from pandas.api.types import union_categoricals

from ..errors import TraceError
from ..model import (CPU_OP_COLUMNS, GRAPH_COLUMNS, KERNEL_COLUMNS, LAUNCH_COLUMNS, MEMOP_COLUMNS, RANGE_COLUMNS,
                     Trace, conform, empty)
from ..intervals import nesting_depth
from . import nccl_nvtx

KERNEL_TABLE = "CUPTI_ACTIVITY_KIND_KERNEL"
MEMCPY_TABLE = "CUPTI_ACTIVITY_KIND_MEMCPY"
MEMSET_TABLE = "CUPTI_ACTIVITY_KIND_MEMSET"
RUNTIME_TABLE = "CUPTI_ACTIVITY_KIND_RUNTIME"
DRIVER_TABLE = "CUPTI_ACTIVITY_KIND_DRIVER"
GRAPH_TABLE = "CUPTI_ACTIVITY_KIND_GRAPH_TRACE"
NVTX_TABLE = "NVTX_EVENTS"
OSRT_TABLE = "OSRT_API"  # OS runtime calls (poll, futex, sem_wait, ...) when captured with -t osrt
CUDA_TABLES = (KERNEL_TABLE, MEMCPY_TABLE, MEMSET_TABLE, RUNTIME_TABLE, DRIVER_TABLE, GRAPH_TABLE)

# CUpti_ActivityMemcpyKind, stable across CUPTI versions; names as `nsys stats` prints them.
COPY_KINDS = {0: "memcpy_unknown", 1: "memcpy_htod", 2: "memcpy_dtoh", 3: "memcpy_htoa",
              4: "memcpy_atoh", 5: "memcpy_atoa", 6: "memcpy_atod", 7: "memcpy_dtoa",
              8: "memcpy_dtod", 9: "memcpy_htoh", 10: "memcpy_ptop", 11: "memcpy_remote"}

# NVTX event types in NVTX_EVENTS.eventType
NVTX_PUSHPOP, NVTX_STARTEND, NVTX_DOMAIN_CREATE = 59, 60, 75

SQLITE_MAGIC = b"SQLite format 3\x00"

# columns each table is read for (the keys `_Db.prefetch` and `_Db.select` share)
KERNEL_WANT = ["start", "end", "deviceId", "streamId", "correlationId", "globalPid", "demangledName",
               "shortName", "gridX", "gridY", "gridZ", "blockX", "blockY", "blockZ", "graphId", "graphNodeId"]
MEMOP_WANT = ["start", "end", "deviceId", "streamId", "correlationId", "globalPid", "bytes", "graphNodeId"]
MEMCPY_WANT = MEMOP_WANT + ["copyKind"]
LAUNCH_WANT = ["start", "end", "globalTid", "correlationId", "nameId"]
NVTX_WANT = ["start", "end", "eventType", "text", "textId", "globalTid", "domainId"]
OSRT_WANT = ["start", "end", "globalTid", "nameId"]
GRAPH_WANT = ["start", "end", "deviceId", "streamId", "correlationId", "globalPid", "graphId", "graphExecId"]


def connect(path: str) -> sqlite3.Connection:
    """Open read-only; `immutable=1` also keeps SQLite from creating journal or lock files."""
    uri = f"file:{quote(os.path.abspath(path))}?mode=ro&immutable=1"
    try:
        con = sqlite3.connect(uri, uri=True)
        con.execute("select count(*) from sqlite_master").fetchone()
    except sqlite3.DatabaseError as e:
        raise TraceError(f"{path}: not a readable SQLite file ({e})") from None
    return con


class _Db:
    """Probed view of one export: which tables and columns exist.

    Integer columns are fetched without one Python object per value: worker threads (each with
    its own read-only connection; sqlite3 releases the GIL while a statement runs) aggregate
    rowid ranges of a table with group_concat, and pyarrow parses the text into int64 arrays.
    `prefetch` queues that work so the large tables load in parallel while earlier ones are built.
    """

    CHUNK_ROWS = 1 << 18  # rowids per group_concat query

    def __init__(self, con: sqlite3.Connection, path: str):
        self.con, self.path = con, path
        self.tables = {r[0] for r in con.execute("select name from sqlite_master where type='table'")}
        self._cols: dict[str, list[str]] = {}
        self._info: dict[str, dict[str, tuple[str, bool]]] = {}
        self._pending: dict[tuple[str, tuple[str, ...]], list] = {}
        self._pool = None
        self._local = threading.local()
        self._conns: list[sqlite3.Connection] = []
        self._lock = threading.Lock()

    def has(self, table: str) -> bool:
        return table in self.tables

    def cols(self, table: str) -> list[str]:
        if table not in self._cols:
            info = list(self.con.execute(f"pragma table_info('{table}')"))
            self._cols[table] = [r[1] for r in info]
            self._info[table] = {r[1]: (str(r[2] or ""), bool(r[3])) for r in info}
        return self._cols[table]

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None
        for c in self._conns:
            c.close()
        self._conns.clear()

    # -- fast integer columns ------------------------------------------------------------------

    def _int_cols(self, table: str, have: list[str]) -> list[str]:
        """Columns with INTEGER affinity (SQLite's rule: the declared type contains "INT")."""
        self.cols(table)
        return [c for c in have if "INT" in self._info[table][c][0].upper()]

    def _worker_con(self) -> sqlite3.Connection:
        con = getattr(self._local, "con", None)
        if con is None:
            con = sqlite3.connect(f"file:{quote(os.path.abspath(self.path))}?mode=ro&immutable=1", uri=True,
                                  check_same_thread=False)
            con.text_factory = bytes
            self._local.con = con
            with self._lock:
                self._conns.append(con)
        return con

    def prefetch(self, table: str, wanted: list[str]) -> None:
        """Start loading the integer columns of `table` in the background (no-op when absent)."""
        key = (table, tuple(wanted))
        if key in self._pending or not self.has(table):
            return
        have = [c for c in wanted if c in self.cols(table)]
        ints = self._int_cols(table, have)
        if not ints or {c.lower() for c in self.cols(table)} & {"rowid", "oid", "_rowid_"}:
            return  # (a column named like the rowid would shadow it in the range queries)
        try:
            # two statements: SQLite answers a lone min() or max() of the rowid from the b-tree,
            # but both in one statement scan the whole table
            lo = self.con.execute(f"select min(rowid) from {table}").fetchone()[0]
            hi = self.con.execute(f"select max(rowid) from {table}").fetchone()[0]
        except sqlite3.DatabaseError:
            return  # e.g. a WITHOUT ROWID table: the plain path reads it
        if self._pool is None:
            self._pool = ThreadPoolExecutor(max_workers=max(1, min(4, os.cpu_count() or 1)),
                                            thread_name_prefix="traceattrib-sqlite")
        futures = []
        if lo is not None:
            for a in range(lo, hi + 1, self.CHUNK_ROWS):
                futures.append(self._pool.submit(self._fetch_chunk, table, ints, a, min(a + self.CHUNK_ROWS, hi + 1)))
        self._pending[key] = [ints, futures]

    def _fetch_chunk(self, table: str, ints: list[str], a: int, b: int):
        """One rowid range [a, b) of integer columns; None where a column is not all integers."""
        import pyarrow as pa
        import pyarrow.csv as pcsv

        info = self._info[table]
        # the separator is a literal newline: char(10) would be evaluated once per row
        agg = ", ".join(f"group_concat({c}, '\n')" if info[c][1] else f"group_concat(ifnull({c}, ''), '\n')"
                        for c in ints)
        row = self._worker_con().execute(
            f"select count(*), {agg} from {table} where rowid >= {a} and rowid < {b}").fetchone()
        n, texts = row[0], row[1:]
        out = {}
        for c, text in zip(ints, texts):
            if n == 0:
                out[c] = np.empty(0, np.int64)
                continue
            if text is None:  # a NOT NULL column cannot aggregate to NULL over n > 0 rows
                out[c] = None
                continue
            try:
                col = pcsv.read_csv(
                    pa.py_buffer(text + b"\n"),
                    read_options=pcsv.ReadOptions(column_names=["v"], use_threads=False, block_size=1 << 26),
                    parse_options=pcsv.ParseOptions(ignore_empty_lines=False, quote_char=False),
                    convert_options=pcsv.ConvertOptions(column_types={"v": pa.int64()}, null_values=[""],
                                                        strings_can_be_null=False)).column(0)
            except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
                out[c] = None  # REAL or TEXT values: read this column the plain way
                continue
            if len(col) != n:
                out[c] = None
                continue
            # like _to_array: int64 without NULLs, float64 with NaN for NULLs
            out[c] = col.to_numpy(zero_copy_only=False) if col.null_count else \
                col.combine_chunks().to_numpy(zero_copy_only=False).astype(np.int64, copy=False)
        return out

    def _collect(self, key) -> dict[str, np.ndarray | None]:
        ints, futures = self._pending.pop(key)
        parts = [f.result() for f in futures]
        out = {}
        for c in ints:
            arrs = [p[c] for p in parts]
            if any(a is None for a in arrs):
                out[c] = None
            elif not arrs:
                out[c] = np.empty(0, np.int64)
            else:
                out[c] = np.concatenate(arrs) if len(arrs) > 1 else arrs[0]
        return out

    # ------------------------------------------------------------------------------------------

    def select(self, table: str, wanted: list[str], where: str = "") -> dict[str, np.ndarray]:
        """Columns of `table` as numpy arrays; columns the table lacks come back as None."""
        have = [c for c in wanted if c in self.cols(table)]
        if not have:
            return {c: None for c in wanted}
        out: dict[str, np.ndarray] = {c: None for c in wanted}
        fast: dict[str, np.ndarray | None] = {}
        if not where:
            self.prefetch(table, wanted)
            key = (table, tuple(wanted))
            if key in self._pending:
                try:
                    fast = self._collect(key)
                except sqlite3.DatabaseError as e:
                    raise TraceError(f"{self.path}: cannot read table {table} ({e})") from None
        for c, a in fast.items():
            if a is not None:
                out[c] = a
        rest = [c for c in have if fast.get(c) is None]
        if not rest:
            return out
        sql = f"select {', '.join(rest)} from {table} {where}"
        try:
            rows = self.con.execute(sql).fetchall()
        except sqlite3.DatabaseError as e:
            raise TraceError(f"{self.path}: cannot read table {table} ({e})") from None
        if rows:
            cols = list(zip(*rows))
        else:
            cols = [() for _ in rest]
        for c, vals in zip(rest, cols):
            out[c] = _to_array(vals)
        return out

    def strings(self) -> dict[int, str]:
        if not self.has("StringIds"):
            return {}
        return dict(self.con.execute("select id, value from StringIds"))


def _to_array(vals: tuple) -> np.ndarray:
    """int64 array when every value is an int, else float (NULLs -> nan) or object."""
    try:
        return np.fromiter(vals, dtype=np.int64, count=len(vals))
    except (TypeError, ValueError):
        pass
    try:
        return np.array([np.nan if v is None else v for v in vals], dtype=np.float64)
    except (TypeError, ValueError):
        return np.array(vals, dtype=object)


def _ids_to_category(ids: np.ndarray, strings: dict[int, str]) -> pd.Categorical:
    """Map StringIds ids (or literal strings in very old exports) to a categorical."""
    if ids is None:
        return None
    if ids.dtype == object:  # literal text stored in the column
        return pd.Categorical(pd.Series(ids).fillna("").astype(str))
    if ids.dtype.kind == "f":
        ids = np.nan_to_num(ids, nan=-1).astype(np.int64)
    uniq, inv = _unique_inverse(ids.astype(np.int64, copy=False))
    cats = [strings.get(int(i), "" if i < 0 else f"<string {int(i)}>") for i in uniq]
    # distinct ids can hold equal text; from_codes needs unique categories
    cat_index = pd.Index(cats)
    if cat_index.is_unique:
        return pd.Categorical.from_codes(inv, categories=cat_index)
    return pd.Categorical(np.asarray(cats, dtype=object)[inv])


def _unique_inverse(ids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """np.unique(ids, return_inverse=True) in O(n) when the ids are small (string ids are)."""
    if ids.size and ids.min() >= -1 and ids.max() < max(4 * ids.size, 1 << 16):
        shifted = ids + 1
        present = np.bincount(shifted)
        used = np.flatnonzero(present)
        remap = np.zeros(present.size, dtype=np.int64)
        remap[used] = np.arange(used.size)
        return used - 1, remap[shifted]
    uniq, inv = np.unique(ids, return_inverse=True)
    return uniq, inv.reshape(-1)


def _pid(global_id: np.ndarray) -> np.ndarray:
    # globalPid / globalTid = (vmId << 48) | (pid << 24) | tid
    return (global_id.astype(np.int64) >> 24) & 0xFFFFFF


def _tid(global_tid: np.ndarray) -> np.ndarray:
    return global_tid.astype(np.int64) & 0xFFFFFF


def _nullable(a: np.ndarray | None, n: int) -> pd.arrays.IntegerArray:
    """Nullable Int64 array; NULLs (nan after fetching) become <NA>."""
    if a is None:
        return pd.array(np.zeros(n, np.int64), dtype="Int64").__class__(np.zeros(n, np.int64), np.ones(n, bool))
    if a.dtype.kind == "f":
        mask = np.isnan(a)
        return pd.arrays.IntegerArray(np.where(mask, 0, a).astype(np.int64), mask)
    return pd.arrays.IntegerArray(a.astype(np.int64, copy=False), np.zeros(len(a), bool))


def _int(a: np.ndarray | None, n: int, fill: int = 0) -> np.ndarray:
    if a is None:
        return np.full(n, fill, dtype=np.int64)
    if a.dtype.kind == "f":
        return np.nan_to_num(a, nan=fill).astype(np.int64)
    return a.astype(np.int64, copy=False)


def read(path: str, require_gpu: bool = True, progress=None) -> Trace:
    """Load an Nsight Systems SQLite export into a Trace.

    require_gpu: raise TraceError when the export holds no CUDA activity at all (captured
    without `-t cuda`); `traceattrib info` passes False to describe such files anyway.
    """
    con = connect(path)
    db = None
    try:
        db = _Db(con, path)
        nsys_markers = {"StringIds", "TARGET_INFO_GPU", "ThreadNames", "ProcessStreams"}
        if not (db.tables & nsys_markers) and not any(db.has(t) for t in CUDA_TABLES + (NVTX_TABLE,)):
            raise TraceError(f"{path}: SQLite file is not an Nsight Systems export "
                             "(no StringIds/TARGET_INFO/CUPTI tables)")
        if require_gpu and not any(db.has(t) for t in (KERNEL_TABLE, MEMCPY_TABLE, MEMSET_TABLE, GRAPH_TABLE)):
            what = "CUDA API calls but no GPU activity" if db.has(RUNTIME_TABLE) else "no CUDA activity"
            raise TraceError(f"{path}: Nsight Systems export with {what}; "
                             "profile with `nsys profile -t cuda,nvtx` while the GPU runs work")
        # the big tables load in worker threads while the main thread builds the earlier ones
        # (in the order the builders below consume them)
        for table, want in ((KERNEL_TABLE, KERNEL_WANT), (MEMCPY_TABLE, MEMCPY_WANT), (MEMSET_TABLE, MEMOP_WANT),
                            (RUNTIME_TABLE, LAUNCH_WANT), (DRIVER_TABLE, LAUNCH_WANT), (NVTX_TABLE, NVTX_WANT),
                            (GRAPH_TABLE, GRAPH_WANT), (OSRT_TABLE, OSRT_WANT)):
            db.prefetch(table, want)
        step = progress or (lambda f, w="": None)
        step(0.02, "strings")
        strings = db.strings()
        # fractions: rough shares of load time on large exports (kernels and API calls dominate)
        step(0.05, "kernels")
        kernels = _kernels(db, strings)
        step(0.40, "memory ops")
        memops = _memops(db)
        step(0.45, "API calls")
        launches = _launches(db, strings)
        step(0.85, "NVTX ranges")
        ranges = _nvtx(db, strings)
        step(0.95, "graphs")
        graphs = _graphs(db)
        cpu_ops = _osrt(db, strings)
        meta = _meta(db, kernels)
    finally:
        if db is not None:
            db.close()
        con.close()
    _assign_ranks([kernels, memops, launches, ranges, graphs, cpu_ops], meta)
    # NCCL's NVTX ranges and payloads: the collective (and bytes) of each NCCL kernel
    kernels = nccl_nvtx.annotate_kernels(kernels, launches, nccl_nvtx.read(path), meta.get("world_size"))
    notes = meta.setdefault("notes", [])
    if len(graphs) and not len(kernels[kernels["graph_id"].notna()]):
        notes.append("CUDA graphs were traced as whole-graph executions only (nsys default): kernels "
                     "inside graphs are not in the trace, so graph replays cannot be split into buckets; "
                     "re-capture with `nsys profile --cuda-graph-trace=node` for a per-kernel breakdown")
    return Trace(kernels=kernels, memops=memops, launches=launches, ranges=ranges, graphs=graphs,
                 cpu_ops=cpu_ops, meta=meta)


def _kernels(db: _Db, strings: dict[int, str]) -> pd.DataFrame:
    if not db.has(KERNEL_TABLE):
        return empty(KERNEL_COLUMNS)
    c = db.select(KERNEL_TABLE, KERNEL_WANT)
    n = len(c["start"]) if c["start"] is not None else 0
    if n == 0:
        return empty(KERNEL_COLUMNS)
    name_ids = c["demangledName"] if c["demangledName"] is not None else c["shortName"]
    df = pd.DataFrame({
        "start_ns": _int(c["start"], n), "end_ns": _int(c["end"], n),
        "name": _ids_to_category(name_ids, strings),
        "short_name": _ids_to_category(c["shortName"] if c["shortName"] is not None else name_ids, strings),
        "device": _int(c["deviceId"], n).astype(np.int32),
        "stream": _int(c["streamId"], n),
        "correlation": _int(c["correlationId"], n),
        "pid": _pid(_int(c["globalPid"], n)),
        "grid_x": _int(c["gridX"], n), "grid_y": _int(c["gridY"], n), "grid_z": _int(c["gridZ"], n),
        "block_x": _int(c["blockX"], n), "block_y": _int(c["blockY"], n), "block_z": _int(c["blockZ"], n),
        "graph_id": _nullable(c["graphId"], n),
        "graph_node_id": _nullable(c["graphNodeId"], n),
    }, copy=False)
    # Older exports have graphNodeId but no graphId: a node id still marks a graph kernel.
    if c["graphId"] is None and c["graphNodeId"] is not None:
        df["graph_id"] = df["graph_node_id"].where(df["graph_node_id"].isna(), 0)
    return conform(df, KERNEL_COLUMNS)


def _memops(db: _Db) -> pd.DataFrame:
    parts = []
    if db.has(MEMCPY_TABLE):
        c = db.select(MEMCPY_TABLE, MEMCPY_WANT)
        n = len(c["start"]) if c["start"] is not None else 0
        if n:
            kinds = _int(c["copyKind"], n)
            parts.append(pd.DataFrame({
                "start_ns": _int(c["start"], n), "end_ns": _int(c["end"], n),
                "kind": pd.Categorical([COPY_KINDS.get(int(k), f"memcpy_{int(k)}") for k in np.unique(kinds)])
                .take(np.searchsorted(np.unique(kinds), kinds)) if n else [],
                "bytes": _int(c["bytes"], n), "device": _int(c["deviceId"], n), "stream": _int(c["streamId"], n),
                "correlation": _int(c["correlationId"], n), "pid": _pid(_int(c["globalPid"], n)),
                "graph_node_id": _nullable(c["graphNodeId"], n)}, copy=False))
    if db.has(MEMSET_TABLE):
        c = db.select(MEMSET_TABLE, MEMOP_WANT)
        n = len(c["start"]) if c["start"] is not None else 0
        if n:
            parts.append(pd.DataFrame({
                "start_ns": _int(c["start"], n), "end_ns": _int(c["end"], n), "kind": "memset",
                "bytes": _int(c["bytes"], n), "device": _int(c["deviceId"], n), "stream": _int(c["streamId"], n),
                "correlation": _int(c["correlationId"], n), "pid": _pid(_int(c["globalPid"], n)),
                "graph_node_id": _nullable(c["graphNodeId"], n)}, copy=False))
    if not parts:
        return empty(MEMOP_COLUMNS)
    df = pd.concat([p.astype({"kind": str}) for p in parts], ignore_index=True)
    return conform(df, MEMOP_COLUMNS)


def _launches(db: _Db, strings: dict[int, str]) -> pd.DataFrame:
    parts, names = [], []
    for table in (RUNTIME_TABLE, DRIVER_TABLE):
        if not db.has(table):
            continue
        c = db.select(table, LAUNCH_WANT)
        n = len(c["start"]) if c["start"] is not None else 0
        if not n:
            continue
        gt = _int(c["globalTid"], n)
        parts.append(pd.DataFrame({
            "start_ns": _int(c["start"], n), "end_ns": _int(c["end"], n),
            "pid": _pid(gt), "tid": _tid(gt), "correlation": _int(c["correlationId"], n)}, copy=False))
        names.append(_ids_to_category(c["nameId"], strings) if c["nameId"] is not None else
                     pd.Categorical.from_codes(np.zeros(n, np.int8), categories=pd.Index([""])))
    if not parts:
        return empty(LAUNCH_COLUMNS)
    df = pd.concat(parts, ignore_index=True) if len(parts) > 1 else parts[0]
    # the names as text, categorized: every category is used, so the sorted union is the same
    # categorical as `.astype(str)` of each part then `.astype("category")` of the whole
    df["name"] = union_categoricals(names, sort_categories=True) if len(names) > 1 else \
        names[0].reorder_categories(names[0].categories.sort_values())
    return conform(df, LAUNCH_COLUMNS)


def _nvtx(db: _Db, strings: dict[int, str]) -> pd.DataFrame:
    if not db.has(NVTX_TABLE):
        return empty(RANGE_COLUMNS)
    cols = db.cols(NVTX_TABLE)
    c = db.select(NVTX_TABLE, NVTX_WANT)
    n = len(c["start"]) if c["start"] is not None else 0
    if not n:
        return empty(RANGE_COLUMNS)
    et = _int(c["eventType"], n)
    text = c["text"] if c["text"] is not None else np.full(n, None, dtype=object)
    text = np.asarray(text, dtype=object)
    if c["textId"] is not None:
        tid_ = c["textId"]
        has_id = ~np.isnan(tid_.astype(float)) if tid_.dtype.kind == "f" else np.ones(n, bool)
        need = np.flatnonzero(has_id & pd.isna(text))
        if need.size:  # look each distinct registered string up once
            uniq, inv = np.unique(tid_[need].astype(np.int64), return_inverse=True)
            text[need] = np.array([strings.get(int(i), "") for i in uniq], dtype=object)[inv.reshape(-1)]
    dom = _int(c["domainId"], n) if "domainId" in cols else np.zeros(n, np.int64)
    # Domain names are the text of the domain-create events.
    dmask = et == NVTX_DOMAIN_CREATE
    domain_names = {int(d): (t or "") for d, t in zip(dom[dmask], text[dmask])}
    end = c["end"]
    is_range = np.isin(et, (NVTX_PUSHPOP, NVTX_STARTEND))
    if end is not None and end.dtype.kind == "f":
        complete = ~np.isnan(end)
    else:
        complete = np.ones(n, bool) if end is not None else np.zeros(n, bool)
    keep = np.flatnonzero(is_range & complete)
    if not keep.size:
        return empty(RANGE_COLUMNS)
    gt = _int(c["globalTid"], n)[keep]
    names = pd.Series(text[keep]).fillna("").astype(str)
    df = pd.DataFrame({
        "start_ns": _int(c["start"], n)[keep], "end_ns": _int(end, n)[keep],
        "name": pd.Categorical(names),
        "domain": _domain_names(dom[keep], domain_names),
        "source": "nvtx",
        "pid": _pid(gt), "tid": _tid(gt),
    }, copy=False)
    df["depth"] = nesting_depth(df["start_ns"].to_numpy(), df["end_ns"].to_numpy(), df["tid"].to_numpy())
    return conform(df, RANGE_COLUMNS)


def _osrt(db: _Db, strings: dict[int, str]) -> pd.DataFrame:
    """OS runtime calls as cpu_ops of kind 'osrt' (empty unless captured with `-t osrt`)."""
    if not db.has(OSRT_TABLE):
        return empty(CPU_OP_COLUMNS)
    c = db.select(OSRT_TABLE, OSRT_WANT)
    n = len(c["start"]) if c["start"] is not None else 0
    if not n or c["nameId"] is None:
        return empty(CPU_OP_COLUMNS)
    gt = _int(c["globalTid"], n)
    df = pd.DataFrame({"start_ns": _int(c["start"], n), "end_ns": _int(c["end"], n),
                       "name": _ids_to_category(c["nameId"], strings), "kind": "osrt",
                       "pid": _pid(gt), "tid": _tid(gt)}, copy=False)
    df["depth"] = nesting_depth(df["start_ns"].to_numpy(), df["end_ns"].to_numpy(), gt)
    return conform(df, CPU_OP_COLUMNS)


def _domain_names(dom: np.ndarray, names: dict[int, str]) -> pd.Categorical:
    """Domain id per range -> its name, one lookup per distinct id ('' for the default domain)."""
    uniq, inv = np.unique(dom, return_inverse=True)
    return pd.Categorical(np.array([names.get(int(d), "") for d in uniq], dtype=object)[inv.reshape(-1)])


def _graphs(db: _Db) -> pd.DataFrame:
    if not db.has(GRAPH_TABLE):
        return empty(GRAPH_COLUMNS)
    c = db.select(GRAPH_TABLE, GRAPH_WANT)
    n = len(c["start"]) if c["start"] is not None else 0
    if not n:
        return empty(GRAPH_COLUMNS)
    df = pd.DataFrame({
        "start_ns": _int(c["start"], n), "end_ns": _int(c["end"], n), "device": _int(c["deviceId"], n),
        "stream": _int(c["streamId"], n), "correlation": _int(c["correlationId"], n),
        "pid": _pid(_int(c["globalPid"], n)), "graph_id": _nullable(c["graphId"], n),
        "graph_exec_id": _nullable(c["graphExecId"], n)}, copy=False)
    return conform(df, GRAPH_COLUMNS)


def _meta(db: _Db, kernels: pd.DataFrame) -> dict:
    meta: dict = {"format": "nsys", "profiler": "Nsight Systems"}
    for t in ("META_DATA_EXPORT", "EXPORT_META_DATA"):
        if db.has(t):
            kv = dict(db.con.execute(f"select name, value from {t}").fetchall())
            meta["profiler_version"] = kv.get("EXPORT_PRODUCT_VERSION")
            meta["schema_version"] = kv.get("EXPORT_SCHEMA_VERSION")
            break
    else:
        meta["profiler_version"] = None
        meta["schema_version"] = None
    gpus: dict[int, str] = {}
    if db.has("TARGET_INFO_GPU"):
        cols = db.cols("TARGET_INFO_GPU")
        idc = "id" if "id" in cols else ("deviceId" if "deviceId" in cols else None)
        if idc and "name" in cols:
            gpus = {int(i): str(nm).strip() for i, nm in db.con.execute(f"select {idc}, name from TARGET_INFO_GPU")
                    if i is not None}
    if not gpus and db.has("TARGET_INFO_CUDA_GPU"):
        cols = db.cols("TARGET_INFO_CUDA_GPU")
        if "deviceId" in cols and "name" in cols:
            gpus = {int(i): str(nm).strip() for i, nm in db.con.execute("select deviceId, name from TARGET_INFO_CUDA_GPU")}
    used = sorted(int(d) for d in kernels["device"].unique()) if len(kernels) else sorted(gpus)
    meta["devices"] = used
    meta["gpus"] = [gpus.get(d, f"device {d}") for d in used]
    return meta


def _assign_ranks(tables: list[pd.DataFrame], meta: dict) -> None:
    """nsys does not know ranks: each process that ran GPU work is taken as one rank, in pid order."""
    pids = sorted({int(p) for t in tables[:2] for p in t["pid"].unique()}) if any(len(t) for t in tables[:2]) else []
    rank_of = {p: i for i, p in enumerate(pids)}
    for t in tables:
        if len(t):
            t["rank"] = t["pid"].map(rank_of).fillna(-1).astype(np.int32).to_numpy()
    meta["ranks"] = list(range(len(pids)))
    meta["world_size"] = len(pids) if pids else None
    meta["rank_pids"] = pids
    if len(pids) > 1:
        meta.setdefault("notes", []).append(
            f"{len(pids)} processes ran GPU work; each is taken as one rank, numbered in pid order")
