"""GPU ops in one table, with the time of the API call that launched each, and name matching
done once per distinct name. All times int64 ns."""
from __future__ import annotations

import re

import numpy as np
import pandas as pd

from ..model import Trace

OP_KINDS = ["kernel", "memop", "graph"]


def gpu_ops(trace: Trace) -> pd.DataFrame:
    """Kernels, memory ops and whole-graph executions in one table, with their launch call time.

    Columns: start_ns, end_ns, device, stream, rank, pid, correlation, kind ('kernel' | 'memop' |
    'graph'), src (row in its source table), name_code (kernel name category code, -1 for others),
    launch_row (row in trace.launches of the launch call, -1 when none was found; idle.py joins
    through it too), launch_start_ns (that call's start, -1 when none), before_trace (no launch
    call, and launched before the trace's first one: see launched_before_trace).
    """
    parts = []
    for kind, tab in (("kernel", trace.kernels), ("memop", trace.memops), ("graph", trace.graphs)):
        if len(tab):
            parts.append(pd.DataFrame({
                "start_ns": tab["start_ns"].to_numpy(), "end_ns": tab["end_ns"].to_numpy(),
                "device": tab["device"].to_numpy(), "stream": tab["stream"].to_numpy(),
                "rank": tab["rank"].to_numpy(), "pid": tab["pid"].to_numpy(),
                "correlation": tab["correlation"].to_numpy(), "src": np.arange(len(tab)),
                "kind": pd.Categorical.from_codes(np.full(len(tab), OP_KINDS.index(kind), np.int8), OP_KINDS),
                "name_code": tab["name"].cat.codes.to_numpy(np.int64) if kind == "kernel" else -1}))
    if not parts:
        return pd.DataFrame(columns=["start_ns", "end_ns", "device", "stream", "rank", "pid", "correlation",
                                     "kind", "src", "launch_start_ns"])
    ops = pd.concat(parts, ignore_index=True)
    ops["launch_row"] = launch_rows(ops, trace.launches)
    row = ops["launch_row"].to_numpy()
    starts = trace.launches["start_ns"].to_numpy(np.int64)
    ops["launch_start_ns"] = np.where(row >= 0, starts[np.maximum(row, 0)] if starts.size else -1, -1)
    ops["before_trace"] = launched_before_trace(ops, trace.launches)
    return ops.sort_values(["rank", "start_ns"], kind="stable", ignore_index=True)


def launch_rows(ops: pd.DataFrame, launches: pd.DataFrame) -> np.ndarray:
    """Row in `launches` of the API call that launched each op (same rank, process and correlation
    id; the first row on duplicates), -1 if none.

    A sorted-key join: rank, pid and the 32-bit correlation id packed into one int64."""
    out = np.full(len(ops), -1, np.int64)
    if not len(launches) or not len(ops):
        return out
    cols = [(launches[c].to_numpy(np.int64), ops[c].to_numpy(np.int64)) for c in ("rank", "pid", "correlation")]
    fits = all(a.min() >= 0 and b.min() >= 0 for a, b in cols) and \
        max(cols[0][0].max(), cols[0][1].max()) < 2 ** 7 and max(cols[1][0].max(), cols[1][1].max()) < 2 ** 24 and \
        max(cols[2][0].max(), cols[2][1].max()) < 2 ** 32
    if not fits:  # unusual ids: the general (slower) join
        key = launches[["rank", "pid", "correlation"]].assign(row=np.arange(len(launches))) \
            .drop_duplicates(["rank", "pid", "correlation"])
        m = ops[["rank", "pid", "correlation"]].merge(key, how="left", on=["rank", "pid", "correlation"])
        return m["row"].fillna(-1).astype(np.int64).to_numpy()
    lk = (cols[0][0] << 56) | (cols[1][0] << 32) | cols[2][0]
    ok = (cols[0][1] << 56) | (cols[1][1] << 32) | cols[2][1]
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
    first = launches.groupby(["rank", "pid"])["correlation"].min()
    key = pd.MultiIndex.from_arrays([ops["rank"].to_numpy(), ops["pid"].to_numpy()])
    lo = first.reindex(key).to_numpy(dtype=np.float64)  # NaN: a process with no launch calls
    corr = ops["correlation"].to_numpy(np.int64)
    return (ops["launch_row"].to_numpy() < 0) & (corr > 0) & (corr < lo)


def name_matches(names: pd.Series, pattern: re.Pattern | str) -> np.ndarray:
    """Boolean mask of names matching a regex, tested once per distinct name (names may be
    millions of rows, e.g. every CUDA API call)."""
    cat = pd.Categorical(names)
    pat = re.compile(pattern) if isinstance(pattern, str) else pattern
    cat_hit = np.fromiter((pat.search(str(c)) is not None for c in cat.categories), bool, len(cat.categories))
    if not cat_hit.size:
        return np.zeros(len(cat), bool)
    return np.where(cat.codes >= 0, cat_hit[np.maximum(cat.codes, 0)], False)
