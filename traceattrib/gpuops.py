"""The GPU-op table: kernels, memory ops and whole-graph executions in one table, each with the
API call that launched it. Steps, attribution and idle causes read it. All times int64 ns."""
from __future__ import annotations

import numpy as np
import pandas as pd

from .intervals import pack_keys
from .model import Trace, compact, constant

OP_KINDS = ["kernel", "memop", "graph"]


def gpu_ops(trace: Trace) -> pd.DataFrame:
    """Kernels, memory ops and whole-graph executions in one table, with their launch call time.

    Columns: start_ns, end_ns, device, stream, rank, pid, correlation, kind ('kernel' | 'memop' |
    'graph'), src (row in its source table), name_code (kernel name category code, -1 for others),
    launch_row (row in trace.launches of the launch call, -1 when none was found; idle.py joins
    through it too), launch_start_ns (that call's start, -1 when none), before_trace (no launch
    call, and launched before the trace's first one: see launched_before_trace).
    """
    parts = [(kind, tab) for kind, tab in (("kernel", trace.kernels), ("memop", trace.memops), ("graph", trace.graphs))
             if len(tab)]
    if not parts:
        return pd.DataFrame(columns=["start_ns", "end_ns", "device", "stream", "rank", "pid", "correlation",
                                     "kind", "src", "launch_start_ns"])
    sizes = np.array([len(tab) for _, tab in parts], np.int64)
    at = np.r_[0, np.cumsum(sizes)]
    start = np.concatenate([tab["start_ns"].to_numpy() for _, tab in parts])
    rank = _column([tab["rank"].to_numpy() for _, tab in parts], None)
    # rows by rank and start (stable: kernels, then memops, then graphs)
    order = np.argsort(start, kind="stable") if rank.strides == (0,) else np.lexsort((start, rank))
    # each column is written once, in that order: row i of the parts goes to place[i]
    place = np.empty(order.size, np.int64)
    place[order] = np.arange(order.size)
    cols = {"start_ns": start[order]}
    for c in ("end_ns", "device", "stream", "rank", "pid", "correlation"):
        cols[c] = (rank if rank.strides == (0,) else rank[order]) if c == "rank" else \
            _column([tab[c].to_numpy() for _, tab in parts], (place, at))
    part = np.searchsorted(at[1:], order, side="right")
    cols["src"] = order - at[part]
    cols["kind"] = np.array([OP_KINDS.index(kind) for kind, _ in parts], np.int8)[part]
    codes = parts[0][1]["name"].cat.codes.to_numpy(np.int64) if parts[0][0] == "kernel" else None
    cols["name_code"] = np.full(order.size, -1, np.int64)
    if codes is not None:
        cols["name_code"][place[:codes.size]] = codes
    cols["kind"] = pd.Categorical.from_codes(cols["kind"], OP_KINDS)
    ops = pd.DataFrame(cols, copy=False)  # the columns are fresh arrays already (or constants)
    ops["launch_row"] = launch_rows(ops, trace.launches)
    row = ops["launch_row"].to_numpy()
    starts = trace.launches["start_ns"].to_numpy(np.int64)
    ops["launch_start_ns"] = np.where(row >= 0, starts[np.maximum(row, 0)] if starts.size else -1, -1)
    ops["before_trace"] = launched_before_trace(ops, trace.launches)
    return compact(ops)  # one rank's device, rank and process: one value each, mostly


def _column(values: list[np.ndarray], placing: tuple[np.ndarray, np.ndarray] | None) -> np.ndarray:
    """The parts' values of one column as one array: a constant when every part holds the same one
    value as a constant (model.compact), else each part's rows written at their places (placing:
    (place per row of the parts, where each part begins); None: concatenated)."""
    if all(v.strides == (0,) for v in values) and len({(v.dtype, v[0]) for v in values}) == 1:
        return constant(values[0][0], sum(v.size for v in values), values[0].dtype)
    if placing is None:
        return np.concatenate(values)
    place, at = placing
    out = np.empty(int(at[-1]), np.result_type(*values))
    for k, v in enumerate(values):
        out[place[at[k]:at[k + 1]]] = v
    return out


# The most entries of launch_rows' lookup table (int32: 64 MiB). Each of its pages costs a fault when
# first touched: at 4M kernels a table of 61M entries took 0.09-2.0 s and 0.24 GiB on top of the
# tables, the sorted search 0.15 s and nothing; at 1M kernels the table still wins (0.023 s against
# 0.039).
LOOKUP_MAX = 1 << 24


def launch_rows(ops: pd.DataFrame, launches: pd.DataFrame) -> np.ndarray:
    """Row in `launches` of the API call that launched each op (same rank, process and correlation
    id; the first row on duplicates), -1 if none.

    A sorted-key join: rank, pid and the correlation id packed into one int64 (intervals.pack_keys:
    the correlation id alone when all calls and ops are of one process)."""
    out = np.full(len(ops), -1, np.int64)
    if not len(launches) or not len(ops):
        return out
    # as stored: a constant column (one rank, one process) stays one element, not a million int64s
    cols = [(launches[c].to_numpy(), ops[c].to_numpy()) for c in ("rank", "pid", "correlation")]
    lk, ok = pack_keys([a for a, _ in cols], [b for _, b in cols])
    if (lk[1:] > lk[:-1]).all() and lk[0] >= 0 and ok.min() >= 0 and \
            max(lk[-1], ok.max()) < min(8 * (lk.size + ok.size) + (1 << 16), LOOKUP_MAX) and lk.size < 2 ** 31 - 1:
        # distinct keys in order, not too sparse (CUPTI numbers every API call of a process; the
        # exports here keep one in 2 to 5): a lookup table (int32, at most 32 bytes per row), no search
        # (row + 1, 0 for none: zeroed pages come from the system as they are touched, no fill pass)
        lut = np.zeros(max(lk[-1], ok.max()) + 1, np.int32)
        lut[lk] = np.arange(1, lk.size + 1, dtype=np.int32)
        out = lut[ok].astype(np.int64)
        out -= 1
        return out
    if (lk[1:] >= lk[:-1]).all():  # calls in correlation order already (one process, as recorded)
        order, sk = np.arange(lk.size), lk
    else:
        order = np.argsort(lk, kind="stable")  # stable: the first (earliest) call wins on duplicates
        sk = lk[order]
    pos = np.minimum(np.searchsorted(sk, ok, side="left"), sk.size - 1)
    hit = sk[pos] == ok
    out[hit] = order[pos[hit]]
    return out


def launched_before_trace(ops: pd.DataFrame, launches: pd.DataFrame) -> np.ndarray:
    """Ops with no launch call whose correlation id is below every launch call of their process:
    launched before the trace's CPU side began (torch.profiler records GPU work still running from
    the iteration before its window), so no step of the trace holds them."""
    out = np.zeros(len(ops), bool)
    if not len(launches) or not len(ops):
        return out
    corr = ops["correlation"].to_numpy(np.int64)
    miss = np.flatnonzero((ops["launch_row"].to_numpy() < 0) & (corr > 0))
    if not miss.size:  # the usual case: every op has its launch call (grouping millions of calls is costly)
        return out
    first = launches.groupby(["rank", "pid"])["correlation"].min()
    key = pd.MultiIndex.from_arrays([ops["rank"].to_numpy()[miss], ops["pid"].to_numpy()[miss]])
    lo = first.reindex(key).to_numpy(dtype=np.float64)  # NaN: a process with no launch calls
    out[miss] = corr[miss] < lo
    return out


def in_graph(ops: pd.DataFrame, kernels: pd.DataFrame) -> np.ndarray:
    """Per op of gpu_ops' table: True for what ran inside a CUDA graph (whole-graph executions and
    kernels with a graph id)."""
    out = (ops["kind"] == "graph").to_numpy(copy=True)  # compared on the categorical's codes: no string per op
    k = (ops["kind"] == "kernel").to_numpy()
    if k.any():
        out[k] = kernels["graph_id"].notna().to_numpy()[ops["src"].to_numpy()[k]]
    return out


def rank_rows(ops: pd.DataFrame) -> list[tuple[object, np.ndarray]]:
    """(rank, its rows in order) per rank, ranks ascending. gpu_ops' table is sorted by rank, so
    each rank's rows are one run (no grouping needed)."""
    r = ops["rank"].to_numpy()
    if not (r[1:] >= r[:-1]).all():
        return [(rank, np.sort(idx)) for rank, idx in ops.groupby("rank", sort=True).indices.items()]
    bounds = np.r_[0, np.flatnonzero(r[1:] != r[:-1]) + 1, r.size]
    return [(r[a], np.arange(a, b)) for a, b in zip(bounds[:-1], bounds[1:]) if b > a]
