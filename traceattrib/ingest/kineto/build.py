"""Columns of kept Kineto events -> the model's tables (kernels, memops, launches, ranges, cpu_ops)."""
from __future__ import annotations

import re
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import pandas as pd

from ...errors import TraceError
from ...intervals import nesting_depth, row_keys
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
    gpu_names,
)
from .link import _op_evidence
from .names import _is, _kineto_version, _memop_kind, _per_value, _short_names, _take
from .validate import profiler_messages


@lru_cache(maxsize=1)
def _words() -> tuple[re.Pattern, re.Pattern]:
    """(ProfilerStep range names, CUDA/HIP graph launch calls), from rules/steps.toml."""
    from ... import vocab

    doc = vocab.load("steps", vocab.StepsFile)
    step = next(f.regex for f in doc.family if f.name == "profiler_step")
    return re.compile(step), re.compile(doc.graphs.launch)


@dataclass
class _Events:
    """The columns every table takes from: start and end (ns), pid, tid, correlation, names."""

    start: np.ndarray
    end: np.ndarray
    pid: np.ndarray
    tid: np.ndarray
    corr: np.ndarray
    names: pd.Categorical
    rank: int


def build(path: str, header: dict, c: dict, require_gpu: bool) -> Trace:
    """The model's tables from `parse.read_columns`' columns `c`, which are consumed: the columns
    one table needs are dropped from `c` once taken, so the tables are built beside fewer of them
    (a lower peak)."""
    catv, namev = c["cat"], c["name"]
    c.pop("idx")
    start = c["ts"]
    dist = header.get("distributedInfo") or {}
    ev = _Events(start=start, end=start + np.maximum(c.pop("dur"), 0), pid=c["pid"], tid=c["tid"],
                 corr=c.pop("corr"), names=namev, rank=int(dist.get("rank", 0) or 0))
    # string columns are categoricals with sorted categories: tests run once per distinct value
    is_kernel = _is(catv, "kernel")
    is_mem = _is(catv, "gpu_memcpy", "gpu_memset")
    is_op = _is(catv, "cpu_op")
    if require_gpu and not (is_kernel.any() or is_mem.any()):
        raise TraceError(f"{path}: torch.profiler trace with no GPU activity "
                         "(profile with activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA])")
    gpu = is_kernel | is_mem
    _flow_correlation(ev, gpu, c.pop("flows"))
    li, gi, ki, mi = (np.flatnonzero(m) for m in (_is(catv, "cuda_runtime", "cuda_driver"), gpu, is_kernel, is_mem))
    kpos, mpos = np.searchsorted(gi, ki), np.searchsorted(gi, mi)
    # columns only GPU ops have, taken for them now and dropped whole
    # Kineto puts the device in pid and the stream in tid of GPU events; args are preferred.
    dev, stream = c.pop("dev")[gi], c.pop("stream")[gi]
    dev = np.where(dev < 0, ev.pid[gi], dev)
    stream = np.where(stream < 0, ev.tid[gi], stream)
    kgraph = c.pop("graph")[ki]
    grid = [v[ki] for v in c.pop("grid")]
    block = [v[ki] for v in c.pop("block")]
    mbytes = c.pop("bytes")[mi]
    has_coll = _per_value(c["coll"], bool)  # a non-empty collective name in the event's args
    # the op chains (mostly numpy sorts and searches, which release the GIL) are found on a second
    # core while this thread builds the launch, range and CPU op tables and the GPU ops' other columns
    with ThreadPoolExecutor(1) as pool:
        is_ann = _is(catv, "user_annotation")
        evidence = pool.submit(_op_evidence, ev.start, ev.end, ev.pid, ev.tid, namev, c["intypes"],
                               is_op | (is_ann & _op_like(namev)), li, ev.corr, gi, is_comm=has_coll)
        # each table is conformed as soon as it is built, so the unconformed copies do not pile up
        launches = _launch_table(ev, li)
        rng = _range_table(ev, is_ann, _is(catv, "gpu_user_annotation"), is_op)
        cpu_ops = _cpu_op_table(ev, c, is_op, _is(catv, "python_function"))
        launch_pid, via_graph = _launch_of_gpu_ops(ev, li, gi, is_op)
        used = sorted(set(int(d) for d in np.unique(dev))) if gi.size else []
        kgraph = np.where(kgraph >= 0, kgraph, np.where(via_graph[kpos], 0, -1))
        kname = _take(namev, ki)
        kshort = _short_names(kname)
        mnames = _take(namev, mi)
        mkind = categorical_from(mnames.codes, np.array([_memop_kind(u) for u in mnames.categories], dtype=object))
        op_chain, op_types, op_row, comm_row = evidence.result()
    kern = conform(pd.DataFrame({
        "start_ns": ev.start[ki], "end_ns": ev.end[ki], "name": kname, "short_name": kshort,
        "device": dev[kpos], "stream": stream[kpos], "correlation": ev.corr[ki], "pid": launch_pid[kpos],
        "grid_x": grid[0], "grid_y": grid[1], "grid_z": grid[2],
        "block_x": block[0], "block_y": block[1], "block_z": block[2],
        "graph_id": pd.arrays.IntegerArray(np.maximum(kgraph, 0), kgraph < 0),
        "op": _take(op_chain, kpos), "op_input_types": _take(op_types, kpos), "rank": ev.rank,
        "op_id": np.where(op_row[kpos] >= 0, c["ext"][np.maximum(op_row[kpos], 0)], -1),
        **_comm_args(c, ki, np.where(has_coll[ki], ki, comm_row[kpos])),
    }), KERNEL_COLUMNS)
    mem = conform(pd.DataFrame({
        "start_ns": ev.start[mi], "end_ns": ev.end[mi], "kind": mkind,
        "bytes": mbytes, "device": dev[mpos], "stream": stream[mpos], "correlation": ev.corr[mi],
        "pid": launch_pid[mpos], "op": _take(op_chain, mpos), "rank": ev.rank}), MEMOP_COLUMNS)
    return Trace(kernels=kern, memops=mem, launches=launches, ranges=rng, graphs=empty(GRAPH_COLUMNS),
                 cpu_ops=cpu_ops, meta=_meta(header, dist, used, ev.rank, c.get("warnings", []),
                           {**c.get("integrity", {}), "overhead": _overhead(ev, _is(catv, "overhead")),
                            "profiler_messages": profiler_messages(header)}))


def _flow_correlation(ev: _Events, gpu: np.ndarray, fl: dict) -> None:
    """GPU ops without args.correlation take the id of the ac2g flow that ends on them (in ev.corr)."""
    missing = gpu & (ev.corr < 0)
    if missing.any() and fl["id"].size:
        flows = pd.DataFrame({"pid": fl["pid"], "tid": fl["tid"], "ts": fl["ts"], "fid": fl["id"]}) \
            .drop_duplicates(["pid", "tid", "ts"])
        q = pd.DataFrame({"pid": ev.pid[missing], "tid": ev.tid[missing], "ts": ev.start[missing]})
        ev.corr[missing] = q.merge(flows, how="left", on=["pid", "tid", "ts"])["fid"].fillna(-1) \
            .astype(np.int64).to_numpy()


def _depth(ev: _Events, rows: np.ndarray) -> np.ndarray:
    """Nesting depth of the events `rows` on their (pid, tid)."""
    p, t = ev.pid[rows], ev.tid[rows]
    return nesting_depth(ev.start[rows], ev.end[rows], row_keys([p, t]))


def _launch_table(ev: _Events, li: np.ndarray) -> pd.DataFrame:
    return conform(pd.DataFrame({"start_ns": ev.start[li], "end_ns": ev.end[li], "name": _take(ev.names, li),
                                 "pid": ev.pid[li], "tid": ev.tid[li], "correlation": ev.corr[li], "rank": ev.rank}),
                   LAUNCH_COLUMNS)


def _range_table(ev: _Events, is_ann: np.ndarray, is_gann: np.ndarray, is_op: np.ndarray) -> pd.DataFrame:
    """User annotations (CPU and GPU) and ProfilerStep ranges."""
    is_step = _per_value(ev.names, lambda s: _words()[0].match(s) is not None)
    ri = np.flatnonzero(is_ann | is_gann | (is_step & is_op))
    src = np.where(is_gann[ri], "gpu_user_annotation", np.where(is_step[ri], "profiler_step", "user_annotation"))
    rng = pd.DataFrame({"start_ns": ev.start[ri], "end_ns": ev.end[ri], "name": _take(ev.names, ri),
                        "domain": "torch", "source": src, "pid": ev.pid[ri], "tid": ev.tid[ri], "rank": ev.rank})
    rng["depth"] = _depth(ev, ri)
    return conform(rng, RANGE_COLUMNS)


def _cpu_op_table(ev: _Events, c: dict, is_op: np.ndarray, is_py: np.ndarray) -> pd.DataFrame:
    oi = np.flatnonzero(is_op | is_py)
    cpu_ops = pd.DataFrame({
        "start_ns": ev.start[oi], "end_ns": ev.end[oi], "name": _take(ev.names, oi),
        "kind": categorical_from(is_py[oi].astype(np.int8), np.array(["cpu_op", "python_function"], dtype=object)),
        "pid": ev.pid[oi], "tid": ev.tid[oi],
        "rank": ev.rank, "ext_id": c["ext"][oi], "input_dims": _blank(_take(c["dims"], oi)),
        "input_types": _blank(_take(c["intypes"], oi))}, copy=False)  # columns are fresh: not copied again
    cpu_ops["depth"] = _depth(ev, oi)
    return conform(cpu_ops, CPU_OP_COLUMNS)


def _launch_of_gpu_ops(ev: _Events, li: np.ndarray, gi: np.ndarray, is_op: np.ndarray) -> tuple[np.ndarray,
                                                                                                 np.ndarray]:
    """Per GPU op, the pid of its launch call (the first launch event with its correlation id) and
    whether that call launched a CUDA graph (torch traces carry no graph id on graph kernels)."""
    default_pid = int(ev.pid[is_op][0]) if is_op.any() else 0
    launch_pid = np.full(gi.size, default_pid, np.int64)
    via_graph = np.zeros(gi.size, bool)
    if li.size and gi.size:
        ucorr, first = np.unique(ev.corr[li], return_index=True)
        at = np.minimum(np.searchsorted(ucorr, ev.corr[gi]), ucorr.size - 1)
        hit = ucorr[at] == ev.corr[gi]
        lj = li[first[at[hit]]]
        launch_pid[hit] = ev.pid[lj]
        via_graph[hit] = _per_value(ev.names, lambda s: _words()[1].match(s) is not None)[lj]
    return launch_pid, via_graph


def _meta(header: dict, dist: dict, used: list[int], rank: int, warnings: list, integrity: dict) -> dict:
    props = header.get("deviceProperties") or []
    names = {int(p.get("id", i)): p.get("name", "") for i, p in enumerate(props)}
    meta = {
        "format": "torch", "profiler": "torch.profiler",
        "profiler_version": _kineto_version(header), "schema_version": _schema_version(header.get("schemaVersion")),
        "devices": used, "gpus": gpu_names(names, used),
        "rank": rank, "ranks": [rank], "world_size": dist.get("world_size"),
        "distributed": {k: dist[k] for k in ("backend", "rank", "world_size", "nccl_version") if k in dist},
        "notes": list(warnings),
        "integrity": integrity,
    }
    if warnings:
        meta["warnings"] = list(warnings)
    return meta


def _schema_version(v) -> int | None:
    """The header's schemaVersion when it is one (a whole number, 0 or more), else None: the trace's
    header is input, and a report echoes only what it can vouch for."""
    return v if isinstance(v, int) and not isinstance(v, bool) and v >= 0 else None


def _overhead(ev: _Events, rows: np.ndarray) -> dict:
    """The profiler's overhead events: count and time per name (integrity.py reads them)."""
    if not rows.any():
        return {}
    names = ev.names
    codes = np.asarray(names.codes)[rows]
    dur = (ev.end - ev.start)[rows]
    out = {}
    for code in np.unique(codes):
        m = codes == code
        name = str(names.categories[code]) if code >= 0 else ""
        out[name] = {"count": int(m.sum()), "ns": int(dur[m].sum())}
    return out


def _op_like(names: pd.Categorical) -> np.ndarray:
    """user_annotations that name an operation (`nccl:all_reduce`, `vllm::all_reduce`), not a region."""
    return _per_value(names, lambda s: ":" in s and _words()[0].match(s) is None)


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
