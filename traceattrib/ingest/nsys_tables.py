"""The tables of an Nsight Systems SQLite export that traceattrib reads, and starting their reads.

No pandas here: `traceattrib report` starts the reads (ADBC's threads, see `_sqlite`) before it
imports the analysis modules, so the tables load while pandas and the rest import (about 0.7 s
of a report). `nsys.read` takes the started reads, or starts them itself.
"""
from __future__ import annotations

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


class Started:
    """An export opened read-only with its bulk tables loading (`pending`: table -> Pending).

    Whoever ends up with it closes it (`close()` is idempotent): `nsys.read` when it reads it,
    else the caller that started it."""

    def __init__(self, src: SqliteSource, pending: dict[str, Pending]):
        self.src, self.pending = src, pending
        self.closed = False

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            self.pending = {}
            self.src.close()  # waits for reads in flight: their connections close after them


def start(path: str, require_gpu: bool = True) -> Started:
    """Open `path` and start reading every bulk table it has (worker threads, rowid ranges).

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
        reads = []
        for table, spec, names in BULK_TABLES:
            if not src.has(table):
                continue
            if table in OPTIONAL_EVIDENCE and not set(spec[0]) <= set(src.columns(table)):
                continue  # optional evidence: a table of another shape is left out
            reads.append((table, columns(src, table, spec, names), {"either": tuple(names or ())}))
        if src.has(STRINGS_TABLE):
            # first in the queue: the names are needed to build the first table, which can then be
            # built while the later tables load
            reads.insert(0, (STRINGS_TABLE, columns(src, STRINGS_TABLE, STRINGS_COLS), {"text": ("value",)}))
        pending = {table: src.fetch(table, cols, **kw) for table, cols, kw in reads}
    except BaseException:
        src.close()
        raise
    return Started(src, pending)
