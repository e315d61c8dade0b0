"""Columns of kept Kineto events -> the model's tables (kernels, memops, launches, ranges, cpu_ops)."""
from __future__ import annotations

import re
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pandas as pd

from ...errors import TraceError
from ...intervals import nesting_depth
from ...model import (
    CPU_OP_COLUMNS,
    GRAPH_COLUMNS,
    KERNEL_COLUMNS,
    LAUNCH_COLUMNS,
    MEMOP_COLUMNS,
    RANGE_COLUMNS,
    Trace,
    categorical_from,
    conform,
    empty,
)
from .link import _op_evidence
from .names import _is, _kineto_version, _memop_kind, _per_value, _short_names, _take

PROFILER_STEP = re.compile(r"^ProfilerStep#\d+$")

def build(path: str, header: dict, c: dict, require_gpu: bool) -> Trace:
    """The model's tables from `parse.read_columns`' columns `c`, which are consumed: the columns
    one table needs are dropped from `c` once taken, so the tables are built beside fewer of them
    (a lower peak)."""
    catv, namev = c["cat"], c["name"]
    c.pop("idx")
    start = c["ts"]
    end = start + np.maximum(c.pop("dur"), 0)
    pid, tid, corr = c["pid"], c["tid"], c["corr"].copy()
    # string columns are categoricals with sorted categories: tests run once per distinct value
    is_kernel = _is(catv, "kernel")
    is_mem = _is(catv, "gpu_memcpy", "gpu_memset")
    is_launch = _is(catv, "cuda_runtime", "cuda_driver")
    is_op = _is(catv, "cpu_op")
    is_py = _is(catv, "python_function")
    is_ann = _is(catv, "user_annotation")
    is_gann = _is(catv, "gpu_user_annotation")
    is_step = _per_value(namev, lambda s: PROFILER_STEP.match(s) is not None)

    dist = header.get("distributedInfo") or {}
    rank = int(dist.get("rank", 0) or 0)
    if require_gpu and not (is_kernel.any() or is_mem.any()):
        raise TraceError(f"{path}: torch.profiler trace with no GPU activity "
                         "(profile with activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA])")

    # GPU op correlation: args.correlation, else the ac2g flow end bound to the event
    gpu = is_kernel | is_mem
    missing = gpu & (corr < 0)
    fl = c.pop("flows")
    if missing.any() and fl["id"].size:
        flows = pd.DataFrame({"pid": fl["pid"], "tid": fl["tid"], "ts": fl["ts"], "fid": fl["id"]}) \
            .drop_duplicates(["pid", "tid", "ts"])
        q = pd.DataFrame({"pid": pid[missing], "tid": tid[missing], "ts": start[missing]})
        corr[missing] = q.merge(flows, how="left", on=["pid", "tid", "ts"])["fid"].fillna(-1).astype(np.int64).to_numpy()

    del fl
    li = np.flatnonzero(is_launch)
    gi = np.flatnonzero(gpu)
    ki = np.flatnonzero(is_kernel)
    kpos = np.searchsorted(gi, ki)
    mi = np.flatnonzero(is_mem)
    mpos = np.searchsorted(gi, mi)
    # columns only GPU ops have, taken for them now and dropped whole
    # Kineto puts the device in pid and the stream in tid of GPU events; args are preferred.
    dev, stream = c.pop("dev")[gi], c.pop("stream")[gi]
    dev = np.where(dev < 0, pid[gi], dev)
    stream = np.where(stream < 0, tid[gi], stream)
    kgraph = c.pop("graph")[ki]
    grid = [v[ki] for v in c.pop("grid")]
    block = [v[ki] for v in c.pop("block")]
    mbytes = c.pop("bytes")[mi]
    coll = c["coll"]
    has_coll = _per_value(coll, bool)  # a non-empty collective name in the event's args
    # the op chains (mostly numpy sorts and searches, which release the GIL) are found on a second
    # core while this thread builds the launch, range and CPU op tables and the GPU ops' other columns
    with ThreadPoolExecutor(1) as pool:
        evidence = pool.submit(_op_evidence, start, end, pid, tid, namev, c["intypes"],
                               is_op | (is_ann & _op_like(namev)), li, corr, gi, is_comm=has_coll)
        # each table is conformed as soon as it is built, so the unconformed copies do not pile up
        launches = conform(pd.DataFrame({"start_ns": start[li], "end_ns": end[li], "name": _take(namev, li),
                                         "pid": pid[li], "tid": tid[li], "correlation": corr[li], "rank": rank}),
                           LAUNCH_COLUMNS)

        ri = np.flatnonzero(is_ann | is_gann | (is_step & is_op))
        src = np.where(is_gann[ri], "gpu_user_annotation", np.where(is_step[ri], "profiler_step", "user_annotation"))
        rng = pd.DataFrame({"start_ns": start[ri], "end_ns": end[ri], "name": _take(namev, ri), "domain": "torch",
                            "source": src, "pid": pid[ri], "tid": tid[ri], "rank": rank})
        rng["depth"] = nesting_depth(start[ri], end[ri], (pid[ri] << 24) ^ tid[ri])
        rng = conform(rng, RANGE_COLUMNS)

        oi = np.flatnonzero(is_op | is_py)
        cpu_ops = pd.DataFrame({
            "start_ns": start[oi], "end_ns": end[oi], "name": _take(namev, oi),
            "kind": categorical_from(is_py[oi].astype(np.int8), np.array(["cpu_op", "python_function"], dtype=object)),
            "pid": pid[oi], "tid": tid[oi],
            "rank": rank, "ext_id": c["ext"][oi], "input_dims": _blank(_take(c["dims"], oi)),
            "input_types": _blank(_take(c["intypes"], oi))}, copy=False)  # columns are fresh: not copied again
        cpu_ops["depth"] = nesting_depth(start[oi], end[oi], (pid[oi] << 24) ^ tid[oi])
        cpu_ops = conform(cpu_ops, CPU_OP_COLUMNS)

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
        used = sorted(set(int(d) for d in np.unique(dev))) if gi.size else []

        kgraph = np.where(kgraph >= 0, kgraph, np.where(via_graph[kpos], 0, -1))
        kname = _take(namev, ki)
        kshort = _short_names(kname)
        mnames = _take(namev, mi)
        mkind = categorical_from(mnames.codes, np.array([_memop_kind(u) for u in mnames.categories], dtype=object))
        op_chain, op_types, op_row, comm_row = evidence.result()

    kern = conform(pd.DataFrame({
        "start_ns": start[ki], "end_ns": end[ki], "name": kname, "short_name": kshort,
        "device": dev[kpos], "stream": stream[kpos], "correlation": corr[ki], "pid": launch_pid[kpos],
        "grid_x": grid[0], "grid_y": grid[1], "grid_z": grid[2],
        "block_x": block[0], "block_y": block[1], "block_z": block[2],
        "graph_id": pd.arrays.IntegerArray(np.maximum(kgraph, 0), kgraph < 0),
        "op": _take(op_chain, kpos), "op_input_types": _take(op_types, kpos), "rank": rank,
        "op_id": np.where(op_row[kpos] >= 0, c["ext"][np.maximum(op_row[kpos], 0)], -1),
        **_comm_args(c, ki, np.where(has_coll[ki], ki, comm_row[kpos])),
    }), KERNEL_COLUMNS)

    mem = conform(pd.DataFrame({
        "start_ns": start[mi], "end_ns": end[mi], "kind": mkind,
        "bytes": mbytes, "device": dev[mpos], "stream": stream[mpos], "correlation": corr[mi],
        "pid": launch_pid[mpos], "op": _take(op_chain, mpos), "rank": rank}), MEMOP_COLUMNS)

    props = header.get("deviceProperties") or []
    names = {int(p.get("id", i)): p.get("name", "") for i, p in enumerate(props)}
    meta = {
        "format": "torch", "profiler": "torch.profiler",
        "profiler_version": _kineto_version(header), "schema_version": header.get("schemaVersion"),
        "devices": used, "gpus": [names.get(d) or f"device {d}" for d in used],
        "rank": rank, "ranks": [rank], "world_size": dist.get("world_size"),
        "distributed": {k: dist[k] for k in ("backend", "rank", "world_size", "nccl_version") if k in dist},
        "notes": list(c.get("warnings", [])),
        "integrity": {**c.get("integrity", {}), "overhead": _overhead(start, end, namev, _is(catv, "overhead"))},
    }
    if c.get("warnings"):
        meta["warnings"] = list(c["warnings"])
    return Trace(kernels=kern, memops=mem, launches=launches, ranges=rng, graphs=empty(GRAPH_COLUMNS),
                 cpu_ops=cpu_ops, meta=meta)

def _overhead(start: np.ndarray, end: np.ndarray, names: pd.Categorical, rows: np.ndarray) -> dict:
    """The profiler's overhead events: count and time per name (integrity.py reads them)."""
    if not rows.any():
        return {}
    codes = np.asarray(names.codes)[rows]
    dur = (end - start)[rows]
    out = {}
    for code in np.unique(codes):
        m = codes == code
        name = str(names.categories[code]) if code >= 0 else ""
        out[name] = {"count": int(m.sum()), "ns": int(dur[m].sum())}
    return out


def _op_like(names: pd.Categorical) -> np.ndarray:
    """user_annotations that name an operation (`nccl:all_reduce`, `vllm::all_reduce`), not a region."""
    return _per_value(names, lambda s: ":" in s and PROFILER_STEP.match(s) is None)


def _blank(values: pd.Categorical) -> pd.Categorical:
    """Missing values as "" (the model's "unknown" for text columns)."""
    codes = np.asarray(values.codes, np.int64)
    if (codes >= 0).all():
        return values
    cats = np.append(np.asarray(values.categories, dtype=object), "")
    return categorical_from(np.where(codes < 0, cats.size - 1, codes), cats)


def _comm_args(c: dict, rows: np.ndarray, src: np.ndarray) -> dict:
    """Collective args of kernels `rows`, read from event rows `src` (-1: none known)."""
    ok = src >= 0
    s = np.maximum(src, 0)

    def num(key: str) -> np.ndarray:
        return np.where(ok, c[key][s], -1) if rows.size else np.empty(0, np.int64)

    def text(key: str) -> pd.Categorical:
        v = c[key]
        codes = np.where(ok, np.asarray(v.codes, np.int64)[s], -1) if rows.size else np.empty(0, np.int64)
        return _blank(categorical_from(codes, np.asarray(v.categories, dtype=object)))

    return {"comm_collective": text("coll"), "comm_in_nelems": num("in_nel"), "comm_out_nelems": num("out_nel"),
            "comm_dtype": text("cdtype"), "comm_group_size": num("gsize"), "comm_group": text("pg")}
