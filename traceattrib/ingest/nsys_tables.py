"""The tables of an Nsight Systems SQLite export that traceattrib reads, and starting their reads.

No pandas here: `traceattrib report` starts the reads (ADBC's threads, see `_sqlite`) before it
imports the analysis modules, so the tables load while pandas and the rest import (about 0.7 s
of a report). `nsys.read` takes the started reads, or starts them itself.
"""
from __future__ import annotations

from typing import NamedTuple

from ..errors import TraceError
from ._sqlite import Pending, SqliteSource

KERNEL_TABLE = "CUPTI_ACTIVITY_KIND_KERNEL"
MEMCPY_TABLE = "CUPTI_ACTIVITY_KIND_MEMCPY"
MEMSET_TABLE = "CUPTI_ACTIVITY_KIND_MEMSET"
RUNTIME_TABLE = "CUPTI_ACTIVITY_KIND_RUNTIME"
DRIVER_TABLE = "CUPTI_ACTIVITY_KIND_DRIVER"
GRAPH_TABLE = "CUPTI_ACTIVITY_KIND_GRAPH_TRACE"
NVTX_TABLE = "NVTX_EVENTS"
OSRT_TABLE = "OSRT_API"  # OS runtime calls (poll, futex, sem_wait, ...) when captured with -t osrt
SAMPLE_TABLE = "COMPOSITE_EVENTS"  # CPU IP/backtrace samples (nsys profile --sample=process-tree)
CALLCHAIN_TABLE = "SAMPLING_CALLCHAINS"  # their call stacks, one row per frame
CUDA_TABLES = (KERNEL_TABLE, MEMCPY_TABLE, MEMSET_TABLE, RUNTIME_TABLE, DRIVER_TABLE, GRAPH_TABLE)
GPU_TABLES = (KERNEL_TABLE, MEMCPY_TABLE, MEMSET_TABLE, GRAPH_TABLE)

# Columns each table is read for: (required, optional). Every export from nsys 2021.2 on has the
# required ones; a missing one (dropped or renamed) is a TraceError, a missing optional one a
# default. Name columns hold StringIds ids (or, in the oldest exports, the text itself).
KERNEL_COLS = (["start", "end", "deviceId", "streamId", "correlationId", "globalPid"],
               ["gridX", "gridY", "gridZ", "blockX", "blockY", "blockZ", "graphId", "graphNodeId"])
KERNEL_NAMES = ["demangledName", "shortName"]  # at least one
# the export's columns behind model.EXPORT_ONLY_KERNEL_COLUMNS, left out of a lean read (shortName
# only where demangledName names the kernels)
KERNEL_EXPORT_ONLY = ("blockX", "blockY", "blockZ", "shortName")
MEMOP_COLS = (["start", "end", "deviceId", "streamId", "correlationId", "globalPid", "bytes"], ["graphNodeId"])
MEMCPY_COLS = (MEMOP_COLS[0] + ["copyKind"], MEMOP_COLS[1])
LAUNCH_COLS = (["start", "end", "globalTid", "correlationId", "nameId"], [])
NVTX_COLS = (["start", "eventType"], ["end", "textId", "globalTid", "domainId"])
GRAPH_COLS = (["start", "end", "deviceId", "streamId", "correlationId", "globalPid"], ["graphId", "graphExecId"])
OSRT_COLS = (["start", "end", "globalTid", "nameId"], [])
SAMPLE_COLS = (["id", "start", "globalTid"], [])
CALLCHAIN_COLS = (["id", "symbol", "module", "stackDepth"], [])
STRINGS_TABLE = "StringIds"
STRINGS_COLS = (["id", "value"], [])

# what is read at the start, in the order the reader consumes it: (table, columns, name columns)
BULK_TABLES = ((KERNEL_TABLE, KERNEL_COLS, KERNEL_NAMES), (MEMCPY_TABLE, MEMCPY_COLS, None),
               (MEMSET_TABLE, MEMOP_COLS, None), (RUNTIME_TABLE, LAUNCH_COLS, None),
               (DRIVER_TABLE, LAUNCH_COLS, None), (GRAPH_TABLE, GRAPH_COLS, None),
               (OSRT_TABLE, OSRT_COLS, None), (SAMPLE_TABLE, SAMPLE_COLS, None),
               (CALLCHAIN_TABLE, CALLCHAIN_COLS, None))
OPTIONAL_EVIDENCE = (OSRT_TABLE, SAMPLE_TABLE, CALLCHAIN_TABLE)


def columns(src: SqliteSource, table: str, spec: tuple[list[str], list[str]],
            names: list[str] | None = None) -> list[str]:
    """The columns to read from `table`; TraceError naming the first required one it lacks."""
    have = src.columns(table)
    required, optional = spec
    for c in required:
        if c not in have:
            raise TraceError(f"{src.path}: table {table} has no column {c} "
                             f"(it has: {', '.join(have) or 'no columns'})")
    cols = required + [c for c in optional if c in have]
    if names is not None:
        got = [c for c in names if c in have]
        if not got:
            raise TraceError(f"{src.path}: table {table} has no name column ({' or '.join(names)})")
        cols += got
    return cols


# An export with more kernel rows than this and more than one process that ran GPU work is read
# one process at a time (a rank's tables in memory, never the whole file's): about 0.6 KB of
# peak memory per kernel of the rank analyzed.
PIECE_KERNELS = 4_000_000
PID_MASK = 0xFFFFFF  # globalPid / globalTid = (vmId << 48) | (pid << 24) | tid
# Times beyond this many ns (146 years) are not real: rejecting them also keeps end - start and
# every later sum of spans inside int64.
TIME_LIMIT_NS = 1 << 62


def unplaceable(required: tuple[str, ...] = ()) -> str:
    """The SQL condition of rows that cannot be placed on the timeline (as nsys.bad_rows): a NULL
    start, end or `required` column, end < start, a time below 0 or beyond TIME_LIMIT_NS."""
    return " or ".join([f'"{x}" is null' for x in ("start", "end") + tuple(required)] + ['"end" < "start"'] +
                       [f'"{x}" {op} {v}' for x in ("start", "end") for op, v in (("<", 0), (">", TIME_LIMIT_NS))])
# the tables with a process column, and which one (the sampled call stacks join their samples)
PROCESS_COLUMN = {KERNEL_TABLE: "globalPid", MEMCPY_TABLE: "globalPid", MEMSET_TABLE: "globalPid",
                  GRAPH_TABLE: "globalPid", RUNTIME_TABLE: "globalTid", DRIVER_TABLE: "globalTid",
                  OSRT_TABLE: "globalTid", SAMPLE_TABLE: "globalTid", NVTX_TABLE: "globalTid"}


class Process(NamedTuple):
    """One process of an export read on its own: its pid, every GPU process's pid (sorted: the
    ranks are numbered in this order, as when the whole file is read) and the devices the whole
    file's kernels ran on (None: it has none)."""
    pid: int
    pids: tuple[int, ...]
    devices: tuple[int, ...] | None


def process_where(table: str, pid: int) -> str:
    """The SQL condition that keeps `table`'s rows of process `pid` (as the reader derives pids)."""
    if table == CALLCHAIN_TABLE:
        return f'"id" in (select "id" from "{SAMPLE_TABLE}" where {process_where(SAMPLE_TABLE, pid)})'
    return f'((coalesce("{PROCESS_COLUMN[table]}", 0) >> 24) & {PID_MASK}) = {int(pid)}'


def gpu_processes(src: SqliteSource) -> list[Process]:
    """The processes with kernels, memory ops or whole-graph executions that can be placed on the
    timeline, in pid order (the reader's ranks, `nsys._assign_ranks`). One pass over each table."""
    pids: set[int] = set()
    devices: set[int] = set()
    for table in GPU_TABLES:
        if not src.has(table) or "globalPid" not in src.columns(table):
            continue
        has_dev = "deviceId" in src.columns(table)
        # a NULL process is read as 0, as the reader does
        dev = '"deviceId"' if table == KERNEL_TABLE and has_dev else "null"
        rows = src.rows(f'select distinct (coalesce("globalPid", 0) >> 24) & {PID_MASK}, {dev} from "{table}" '
                        f'where not ({unplaceable(("deviceId",) if has_dev else ())})', table)
        pids.update(int(p) for p, _ in rows if isinstance(p, int))
        devices.update(int(d) for _, d in rows if isinstance(d, int))
    every = tuple(sorted(pids))
    used = tuple(sorted(devices)) if devices else None
    return [Process(p, every, used) for p in every]


def pieces(src: SqliteSource, above: int | None = PIECE_KERNELS) -> list[Process] | None:
    """The GPU processes to read one at a time: when the export has more than `above` kernel rows
    (None: any size) and more than one GPU process; else None (the file is read whole)."""
    if above is not None:
        if not src.has(KERNEL_TABLE):
            return None
        top = src.rows(f'select max(rowid) from "{KERNEL_TABLE}"', KERNEL_TABLE)[0][0] \
            if src.rowid_ok(KERNEL_TABLE) else src.count(KERNEL_TABLE)
        if not isinstance(top, int) or top <= above:
            return None
    procs = gpu_processes(src)
    return procs if len(procs) > 1 else None


def processes(path: str, above: int | None = PIECE_KERNELS) -> list[Process] | None:
    """`pieces` of the export at `path` (opened read-only, closed again)."""
    src = SqliteSource(path)
    try:
        return pieces(src, above)
    finally:
        src.close()


def _lean(cols: list[str]) -> list[str]:
    """The kernel columns to read without those only the exports show (shortName is kept where it
    is the kernels' only name)."""
    named = "demangledName" in cols
    return [c for c in cols if c not in KERNEL_EXPORT_ONLY or (c == "shortName" and not named)]


class Started:
    """An export opened read-only with its bulk tables loading (`pending`: table -> Pending), or,
    when `processes` is set, with nothing begun: the export is to be read one process at a time.

    Whoever ends up with it closes it (`close()` is idempotent): `nsys.read` when it reads it,
    else the caller that started it."""

    def __init__(self, src: SqliteSource, pending: dict[str, Pending], processes: list[Process] | None = None,
                 lean: bool = False):
        self.src, self.pending = src, pending
        self.processes = processes
        self.lean = lean
        self.closed = False

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            self.pending = {}
            self.src.close()  # waits for reads in flight: their connections close after them


def start(path: str, require_gpu: bool = True, process: int | None = None,
          split_above: int | None = -1, lean: bool = False) -> Started:
    """Open `path` and start reading every bulk table it has (worker threads, rowid ranges);
    process: only that process's rows. split_above: when the export is to be read a process at a
    time (`pieces(src, split_above)`; -1: never), nothing is read and `Started.processes` lists them.
    lean: without the kernel columns only the exports show (KERNEL_EXPORT_ONLY: each integer column
    of a million kernels costs about 40 ms of reading).

    TraceError when it is not an Nsight Systems export, or (require_gpu) holds no GPU activity
    table, or a table lacks a required column."""
    src = SqliteSource(path)
    try:
        nsys_markers = {"StringIds", "TARGET_INFO_GPU", "ThreadNames", "ProcessStreams"}
        if not (src.tables & nsys_markers) and not any(src.has(t) for t in CUDA_TABLES + (NVTX_TABLE,)):
            raise TraceError(f"{path}: SQLite file is not an Nsight Systems export "
                             "(no StringIds/TARGET_INFO/CUPTI tables)")
        if require_gpu and not any(src.has(t) for t in GPU_TABLES):
            what = "CUDA API calls but no GPU activity" if src.has(RUNTIME_TABLE) else "no CUDA activity"
            raise TraceError(f"{path}: Nsight Systems export with {what}; "
                             "profile with `nsys profile -t cuda,nvtx` while the GPU runs work")
        if split_above != -1 and process is None:
            split = pieces(src, split_above)
            if split:
                return Started(src, {}, split, lean=lean)
        reads = []
        for table, spec, names in BULK_TABLES:
            if not src.has(table):
                continue
            if table in OPTIONAL_EVIDENCE and not set(spec[0]) <= set(src.columns(table)):
                continue  # optional evidence: a table of another shape is left out
            kw: dict = {"either": tuple(names or ())}
            if process is not None:
                kw["where"] = process_where(table, process)
            cols = columns(src, table, spec, names)
            if lean and table == KERNEL_TABLE:
                cols = _lean(cols)
            reads.append((table, cols, kw))
        if src.has(STRINGS_TABLE):
            # first in the queue: the names are needed to build the first table, which can then be
            # built while the later tables load
            reads.insert(0, (STRINGS_TABLE, columns(src, STRINGS_TABLE, STRINGS_COLS), {"text": ("value",)}))
        pending = {table: src.fetch(table, cols, **kw) for table, cols, kw in reads}
    except BaseException:
        src.close()
        raise
    return Started(src, pending, lean=lean)
