"""The columnar trace model every reader produces and every later stage consumes.

All times are int64 nanoseconds on one timeline per trace (the profiler's own clock; for torch
traces, microseconds converted to ns). Tables are pandas DataFrames with the columns below; a
reader may leave optional columns out only where listed. Rows are sorted by `start_ns`.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

# Column -> dtype. Strings are pandas "string" (pyarrow-backed where available) or category.
KERNEL_COLUMNS: dict[str, str] = {
    "start_ns": "int64",
    "end_ns": "int64",
    "name": "category",        # full demangled name
    "short_name": "category",  # name without arguments/templates (nsys shortName, or derived)
    "device": "int32",
    "stream": "int64",
    "correlation": "int64",    # links the kernel to the API call that launched it
    "pid": "int64",
    "rank": "int32",
    "grid_x": "int32", "grid_y": "int32", "grid_z": "int32",
    "block_x": "int32", "block_y": "int32", "block_z": "int32",
    "graph_id": "Int64",       # CUDA graph the kernel ran in (nullable)
    "graph_node_id": "Int64",
    "op": "category",          # torch only: launching CPU op chain, outermost first, " > " joined
    "op_input_types": "category",  # torch only: input dtypes of the innermost launching op
    "op_id": "int64",          # torch only: External id of the innermost launching op (cpu_ops.ext_id), -1 none
    # communication kernels (torch: the kernel's own args, else the enclosing record_param_comms op)
    "comm_collective": "category",  # NCCL/c10d collective name ("allreduce", "allgather", ...), "" unknown
    "comm_in_nelems": "int64",      # elements in / out of the collective on this rank, -1 unknown
    "comm_out_nelems": "int64",
    "comm_dtype": "category",       # element type as the profiler names it ("BFloat16", "Float")
    "comm_group_size": "int32",     # ranks in the process group, -1 unknown
    "comm_group": "category",       # process group name
    "given_step": "int32",          # the step (its index on its rank) the trace states the op belongs to; -1 none or not stated
}

# Kernel columns that no analysis reads; the exports (Parquet tables, the trace-event file) and the
# Python API's tables show them. A reader asked for a lean read leaves them out (conform then fills
# 0 and "", which mean unknown) and says so in meta["lean"].
EXPORT_ONLY_KERNEL_COLUMNS = ("short_name", "block_x", "block_y", "block_z")

MEMOP_COLUMNS: dict[str, str] = {
    "start_ns": "int64",
    "end_ns": "int64",
    "kind": "category",        # memcpy_htod, memcpy_dtoh, memcpy_dtod, memcpy_htoh, memcpy_ptop, memset, ...
    "bytes": "int64",
    "device": "int32",
    "stream": "int64",
    "correlation": "int64",
    "pid": "int64",
    "rank": "int32",
    "graph_node_id": "Int64",
    "op": "category",
    "given_step": "int32",     # the step (its index on its rank) the trace states the op belongs to; -1 none or not stated
}

LAUNCH_COLUMNS: dict[str, str] = {
    "start_ns": "int64",
    "end_ns": "int64",
    "name": "category",        # e.g. cudaLaunchKernel, cudaGraphLaunch, cuLaunchKernelEx
    "pid": "int64",
    "tid": "int64",
    "correlation": "int64",
    "rank": "int32",
}

RANGE_COLUMNS: dict[str, str] = {
    "start_ns": "int64",
    "end_ns": "int64",
    "name": "category",
    "domain": "category",      # NVTX domain ("" for the default domain); "torch" for torch annotations
    "source": "category",      # nvtx | user_annotation | gpu_user_annotation | profiler_step
    "pid": "int64",
    "tid": "int64",
    "depth": "int32",          # nesting depth on its thread, 0 = outermost
    "rank": "int32",
}

CPU_OP_COLUMNS: dict[str, str] = {
    "start_ns": "int64",
    "end_ns": "int64",
    "name": "category",        # aten::linear, "vllm/v1/worker/gpu_model_runner.py(1234): execute_model", poll
    "kind": "category",        # cpu_op | python_function (torch); osrt (nsys OS runtime calls), sample (nsys CPU samples)
    "pid": "int64",
    "tid": "int64",
    "rank": "int32",
    "depth": "int32",          # nesting depth among the thread's cpu_ops, 0 = outermost
    "ext_id": "int64",         # torch External id (kernels.op_id points here), -1 none
    "input_dims": "category",  # torch record_shapes: "[[1,4096],[4096,4096]]" (compact JSON), "" none
    "input_types": "category",  # torch record_shapes: "c10::BFloat16,c10::BFloat16", "" none
}

GRAPH_COLUMNS: dict[str, str] = {
    "start_ns": "int64",
    "end_ns": "int64",
    "graph_id": "Int64",
    "graph_exec_id": "Int64",
    "device": "int32",
    "stream": "int64",
    "correlation": "int64",
    "pid": "int64",
    "rank": "int32",
    "given_step": "int32",     # the step (its index on its rank) the trace states the op belongs to; -1 none or not stated
}

# steps the trace itself states, on the GPU timeline: traceattrib's own trace-event export writes
# them (render/perfetto.py) and reads them back (ingest/exported.py), each op's given_step naming
# its step; empty for profilers' traces
GIVEN_STEP_COLUMNS: dict[str, str] = {
    "start_ns": "int64",       # the step's start (it may open before its first op)
    "end_ns": "int64",         # its last op's end
    "name": "category",
    "kind": "category",        # prefill | decode | mixed | unknown
    "tokens": "int64",         # -1 unknown
    "layers": "int64",         # -1 unknown
    "index": "int64",          # its index on its rank
    "rank": "int32",
}

TABLES: dict[str, dict[str, str]] = {
    "kernels": KERNEL_COLUMNS,
    "memops": MEMOP_COLUMNS,
    "launches": LAUNCH_COLUMNS,
    "ranges": RANGE_COLUMNS,
    "graphs": GRAPH_COLUMNS,
    "cpu_ops": CPU_OP_COLUMNS,
    "given_steps": GIVEN_STEP_COLUMNS,
}


# integer columns whose "unknown" is -1, not 0
_MINUS_ONE = {"op_id", "ext_id", "comm_in_nelems", "comm_out_nelems", "comm_group_size", "tokens", "layers", "given_step"}


def categorical_from(codes: np.ndarray, values: np.ndarray) -> pd.Categorical:
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


def empty(columns: dict[str, str]) -> pd.DataFrame:
    """An empty table with the given schema."""
    return pd.DataFrame({c: pd.Series([], dtype=t) for c, t in columns.items()})


def conform(df: pd.DataFrame, columns: dict[str, str]) -> pd.DataFrame:
    """Return `df` with exactly the schema's columns and dtypes, sorted by start_ns.

    Missing columns are filled with nulls (nullable dtypes), -1 (ids and counts that can be
    unknown) or zeros; extra columns are dropped.
    """
    n = len(df)
    plain = isinstance(df.index, pd.RangeIndex) and df.index.start == 0 and df.index.step == 1
    out = {}
    for c, t in columns.items():
        if c in df.columns:
            s = df[c]
            if str(s.dtype) != t:
                s = s.astype(t)
            # the column itself, not its values: pandas then shares it copy-on-write (a write
            # copies it) instead of copying every column into one 2-D block per dtype (0.3 s of
            # a million-kernel load)
            out[c] = s if plain else s.reset_index(drop=True)
        elif t == "category":  # from codes: a list of a million "" takes a second to categorize
            out[c] = pd.Categorical.from_codes(np.zeros(n, np.int8), categories=[""]) if n else pd.Categorical([])
        elif t == "Int64":
            out[c] = pd.arrays.IntegerArray(np.zeros(n, np.int64), np.ones(n, bool))
        else:
            fill = -1 if c in _MINUS_ONE else 0
            out[c] = constant(fill, n, t) if n >= COMPACT_ROWS else np.full(n, fill, dtype=t)
    res = pd.DataFrame(out, copy=False)
    if n and not res["start_ns"].is_monotonic_increasing:
        res = res.sort_values(["start_ns", "end_ns"], kind="stable", ignore_index=True)
    return compact(res)


# Tables of at least this many rows keep a column that holds one value throughout as one value:
# an eager single-GPU Nsight Systems export's kernels carry about 66 of their 123 bytes per row in
# such columns (process, device, rank, graph ids, and the torch-only columns it lacks).
COMPACT_ROWS = 4096


class _Owner(np.ndarray):
    """The one element behind a `constant` column. Its `holder`, a second pandas holder of the
    column, lives as long as any array viewing it (a reference cycle the collector frees with
    them): pandas then copies the column before a write into it (copy-on-write) instead of
    writing into the read-only view (pandas-dev/pandas#62144)."""

    holder = None


def constant(value, n: int, dtype) -> np.ndarray:
    """`value` n times, as a read-only zero-stride view of one element (8 bytes, not 8 per row)."""
    one = _Owner(shape=(1,), dtype=dtype)
    one[0] = value
    return np.broadcast_to(one, (n,))


def one_value(a: np.ndarray) -> np.ndarray:
    """`a` as a `constant` where it holds one value throughout and has COMPACT_ROWS rows or more;
    else `a` itself (a constant already included)."""
    n = a.size
    # three samples first: most columns that vary are told at once, without a pass
    if n >= COMPACT_ROWS and a.strides != (0,) and a[0] == a[-1] == a[n // 2] and not (a != a[0]).any():
        return constant(a[0], n, a.dtype)
    return a


def compact(df: pd.DataFrame) -> pd.DataFrame:
    """`df` with each integer or boolean column of one value throughout held as a `constant`; the same
    values, dtypes and index. Tables under COMPACT_ROWS rows as they are. The table and frames
    made from it stay writable: a write copies the column first."""
    n = len(df)
    if n < COMPACT_ROWS:
        return df
    out, changed = {}, False
    for c in df.columns:
        col = df[c]
        out[c] = col
        if isinstance(col.dtype, np.dtype) and col.dtype.kind in "iub":
            a = col.to_numpy()
            one = one_value(a)
            if one is not a:
                out[c], changed = one, True
    res = pd.DataFrame(out, index=df.index, copy=False) if changed else df
    for c in res.columns:
        if isinstance(res[c].dtype, np.dtype):
            owner = _owner(res[c].to_numpy())
            if owner is not None and owner.holder is None:
                owner.holder = res[c]
    return res


def _owner(a: np.ndarray) -> _Owner | None:
    """The `_Owner` under a `constant` view, None for any other array."""
    if a.strides != (0,):
        return None
    while a is not None and not isinstance(a, _Owner):
        a = a.base
    return a


def compact_trace(trace: Trace) -> Trace:
    """The trace with every table `compact`."""
    import dataclasses

    tabs = {name: compact(t) for name, t in trace.tables().items()}
    return dataclasses.replace(trace, **tabs)


def unnamed_gpu(device: int) -> str:
    """What meta["gpus"] holds for a device whose trace does not name its GPU."""
    return f"device {device}"


def is_unnamed_gpu(name: str) -> bool:
    """Whether a meta["gpus"] entry is unnamed_gpu's placeholder rather than a GPU's name."""
    return re.fullmatch(r"device -?\d+", name) is not None


def named_gpus(gpus: list[str]) -> list[str]:
    """The entries of meta["gpus"] that name a GPU (not empty, not unnamed_gpu's placeholder), in order."""
    return [g for g in gpus if g and not is_unnamed_gpu(g)]


def gpu_names(names: dict[int, str], used: list[int]) -> list[str]:
    """The GPU of each device in `used` from a trace's table of device id -> name: its entry's name;
    where no entry has its id and every named entry names one model, that model (unnamed_gpu
    otherwise). torch.profiler's deviceProperties lists the process's visible devices by their
    index among them, while ROCm traces give a kernel's device by its index on the node (a process
    on GPU 9 of a node of MI300X shows device 9 and one entry, id 0): a process runs kernels only on
    its visible devices, so one model among them is the model of any device it used."""
    models = {n for n in names.values() if n}
    only = models.pop() if len(models) == 1 else ""
    return [names.get(d) or (only if d not in names else "") or unnamed_gpu(d) for d in used]


@dataclass
class Trace:
    """One loaded trace: columnar tables plus metadata.

    meta keys: path, format ('nsys' | 'torch'), profiler_version, schema_version, gpus (list of
    names), devices (list of ids), rank / world_size (when known), ranks (list), notes (list of
    strings saying what evidence is missing or approximate).
    """

    kernels: pd.DataFrame
    memops: pd.DataFrame
    launches: pd.DataFrame
    ranges: pd.DataFrame
    graphs: pd.DataFrame
    cpu_ops: pd.DataFrame = field(default_factory=lambda: empty(CPU_OP_COLUMNS))
    meta: dict[str, Any] = field(default_factory=dict)
    given_steps: pd.DataFrame = field(default_factory=lambda: empty(GIVEN_STEP_COLUMNS))

    def tables(self) -> dict[str, pd.DataFrame]:
        return {name: getattr(self, name) for name in TABLES}

    def span_ns(self) -> tuple[int, int]:
        """(first start, last end) over GPU work, or over everything when there is none."""
        starts, ends = [], []
        for t in (self.kernels, self.memops, self.graphs):
            if len(t):
                starts.append(int(t["start_ns"].min()))
                ends.append(int(t["end_ns"].max()))
        if not starts:
            for t in (self.launches, self.ranges):
                if len(t):
                    starts.append(int(t["start_ns"].min()))
                    ends.append(int(t["end_ns"].max()))
        if not starts:
            return (0, 0)
        return (min(starts), max(ends))
