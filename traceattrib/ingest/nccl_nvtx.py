"""NCCL's own NVTX ranges in Nsight Systems exports: which collective launched each NCCL kernel and,
where the export holds NCCL's payloads, how many bytes it moved.

NCCL (2.19+) wraps every API call in an NVTX range of domain "NCCL" ("ncclAllReduce",
"ncclAllGather", ...) with an extended payload: communicator id, "Message size [bytes]" (count x
type size; the per-rank shard for all-gather and reduce-scatter) and, on communicator init,
"No. of ranks". `nsys export` writes the payloads to NVTX_EVENTS.binaryData only with
`--include-blobs=true`; the schemas are in NVTX_PAYLOAD_SCHEMAS / NVTX_PAYLOAD_SCHEMA_ENTRIES.
Blob layout (little endian): domain id u64, schema id u64, payload size u64, payload offset u64,
then the payload; each schema entry gives its field's offset in the payload.

A kernel belongs to the innermost NCCL range that holds its launching API call on the same thread
(NCCL launches inside the call, in its implicit group end). Kernels launched by an explicit
ncclGroupEnd carry no collective of their own and stay unannotated.
"""
from __future__ import annotations

import os
import sqlite3
from urllib.parse import quote

import numpy as np
import pandas as pd

from .. import collectives

NCCL_DOMAIN = "NCCL"
RANGE_COLUMNS = ["start_ns", "end_ns", "pid", "tid", "name", "comm_id", "bytes", "nranks"]
_HEADER = 32


def _empty() -> pd.DataFrame:
    return pd.DataFrame({c: pd.Series([], dtype=object if c == "name" else np.int64) for c in RANGE_COLUMNS})


def read(path: str) -> pd.DataFrame:
    """`read_ranges` of the export at `path`, opened read-only on its own small connection (a few
    hundred rows per step; independent of how the reader fetches the big tables)."""
    uri = f"file:{quote(os.path.abspath(path))}?mode=ro&immutable=1"
    try:
        con = sqlite3.connect(uri, uri=True)
    except sqlite3.Error:
        return _empty()
    try:
        return read_ranges(con)
    except sqlite3.Error:  # optional evidence: an export whose NVTX tables cannot be read has none
        return _empty()
    finally:
        con.close()


def read_ranges(con: sqlite3.Connection) -> pd.DataFrame:
    """NCCL-domain NVTX ranges of an nsys export, one row each: start_ns, end_ns, pid, tid, name,
    comm_id, bytes (message size, -1 without payload), nranks (of the communicator, from its init
    range; -1 unknown). Empty when the export has no NCCL ranges."""
    tabs = {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    if "NVTX_EVENTS" not in tabs:
        return _empty()
    cols = {r[1] for r in con.execute("PRAGMA table_info(NVTX_EVENTS)")}
    if not {"start", "end", "eventType", "globalTid", "domainId", "text"} <= cols:
        return _empty()
    doms = [d for (d,) in con.execute("SELECT DISTINCT domainId FROM NVTX_EVENTS WHERE eventType = 75 AND text = ?",
                                      (NCCL_DOMAIN,))]
    if not doms:
        return _empty()
    name = "COALESCE(n.text, s.value)" if "textId" in cols else "n.text"
    join = "LEFT JOIN StringIds s ON s.id = n.textId" if "textId" in cols else ""
    blob = "n.binaryData" if "binaryData" in cols else "NULL"
    rows = con.execute(
        f"SELECT n.start, n.end, n.globalTid, {name}, {blob} FROM NVTX_EVENTS n {join} "
        f"WHERE n.eventType IN (59, 60) AND n.end IS NOT NULL AND n.domainId IN ({','.join('?' * len(doms))})",
        doms).fetchall()
    if not rows:
        return _empty()
    schemas = _schemas(con)
    out = {c: [] for c in RANGE_COLUMNS}
    for start, end, gt, nm, data in rows:
        try:  # rows that are not integers where integers belong are left out (optional evidence)
            fields = _decode(data, schemas) if isinstance(data, (bytes, str)) else {}
            row = (int(start), int(end), int(gt or 0))
        except (TypeError, ValueError):
            continue
        out["start_ns"].append(row[0])
        out["end_ns"].append(row[1])
        out["pid"].append((row[2] >> 24) & 0xFFFFFF)
        out["tid"].append(row[2] & 0xFFFFFF)
        out["name"].append(str(nm or ""))
        out["comm_id"].append(int(fields.get("communicator id", -1)))
        out["bytes"].append(int(fields.get("message size", -1)))
        out["nranks"].append(int(fields.get("no. of ranks", -1)))
    if not out["start_ns"]:
        return _empty()
    df = pd.DataFrame(out)
    # every range of a communicator gets its size from the communicator's init range
    sizes = df[(df["nranks"] > 0) & (df["comm_id"] >= 0)].drop_duplicates("comm_id").set_index("comm_id")["nranks"]
    if len(sizes):
        df["nranks"] = df["comm_id"].map(sizes).fillna(-1).astype(np.int64)
    return df.sort_values(["start_ns", "end_ns"], kind="stable", ignore_index=True)


def _schemas(con: sqlite3.Connection) -> dict[tuple[int, int], list[tuple[str, int, int]]]:
    """(domain id, schema id) -> [(lower-cased entry name, offset, size in bytes)]."""
    tabs = {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    if "NVTX_PAYLOAD_SCHEMA_ENTRIES" not in tabs:
        return {}
    rows = con.execute("SELECT DISTINCT domainId, schemaId, idx, name, type, offset "
                       "FROM NVTX_PAYLOAD_SCHEMA_ENTRIES ORDER BY domainId, schemaId, idx").fetchall()
    out: dict[tuple[int, int], list[tuple[str, int, int]]] = {}
    for dom, sch, _idx, nm, typ, off in rows:
        # NVTX payload entry types: 5 int / 6 unsigned int (4 bytes), 17 int64 / 18 uint64 / 22 size_t
        # (8 bytes); registered enums (ids >= 256, e.g. NCCL's reduction op) are 4 bytes
        size = 8 if typ in (7, 8, 9, 10, 17, 18, 22, 23) else 4
        try:
            out.setdefault((int(dom), int(sch)), []).append((str(nm or "").lower(), int(off or 0), size))
        except (TypeError, ValueError):
            continue
    return out


def _decode(data, schemas) -> dict[str, int]:
    """The named integer fields of one payload blob ({} when it cannot be read)."""
    raw = bytes.fromhex(data) if isinstance(data, str) else bytes(data)  # ValueError: not hex
    if len(raw) < _HEADER:
        return {}
    dom, sch, size, off = (int.from_bytes(raw[i:i + 8], "little") for i in range(0, _HEADER, 8))
    payload = raw[off:off + size]
    out = {}
    for name, pos, n in schemas.get((dom, sch), []):
        if pos + n <= len(payload):
            for key in ("communicator id", "message size", "no. of ranks"):
                if key in name:
                    out[key] = int.from_bytes(payload[pos:pos + n], "little", signed=False)
    return out


def annotate_kernels(kernels: pd.DataFrame, launches: pd.DataFrame, ranges: pd.DataFrame,
                     world_size: int | None) -> pd.DataFrame:
    """Fill the comm_* columns of NCCL kernels from the NCCL range around their launch.

    comm_collective: the range name without "nccl", lower case ("allreduce"); comm_group: the
    communicator id (hex) when the payload has it; comm_dtype from the kernel name; in/out element
    counts from the message size as c10d counts them (all-gather out and reduce-scatter in = n
    shards, n = the communicator's ranks, else the number of processes in the export);
    comm_group_size from the payload. Kernels already annotated, or launched outside NCCL ranges,
    are left as they are."""
    if not len(ranges) or not len(kernels) or not len(launches):
        return kernels
    coll = ranges[~ranges["name"].str.contains("Group|CommInit|CommDestroy|CommFinalize|CommAbort|CommSplit",
                                               case=False, regex=True)]
    if not len(coll):
        return kernels
    # the API call that launched each kernel: (pid, correlation) -> (tid, start)
    lk = launches[["pid", "correlation", "tid", "start_ns"]].drop_duplicates(["pid", "correlation"])
    k = kernels[["pid", "correlation"]].reset_index(drop=True).merge(lk, on=["pid", "correlation"], how="left")
    todo = np.flatnonzero(k["tid"].notna().to_numpy() & (kernels["comm_collective"].astype(str).to_numpy() == ""))
    if not todo.size:
        return kernels
    hit = np.full(len(kernels), -1, np.int64)
    ks = k.iloc[todo]
    for (pid, tid), g in ks.groupby(["pid", "tid"], sort=False):
        r = coll[(coll["pid"] == pid) & (coll["tid"] == tid)]
        if not len(r):
            continue
        rs, re_ = r["start_ns"].to_numpy(), r["end_ns"].to_numpy()
        t = g["start_ns"].to_numpy(np.int64)
        j = np.searchsorted(rs, t, side="right") - 1  # the latest range started at or before the call
        ok = (j >= 0) & (re_[np.maximum(j, 0)] >= t)
        hit[g.index.to_numpy()[ok]] = r.index.to_numpy()[j[ok]]
    sel = np.flatnonzero(hit >= 0)
    if not sel.size:
        return kernels
    src = coll.loc[hit[sel]]
    coll_name = src["name"].str.replace(r"^nccl", "", regex=True, case=False).str.lower().to_numpy()
    kinds = collectives.kind_of(coll_name)
    n = src["nranks"].to_numpy()
    n_eff = np.where(n > 0, n, world_size or 1)
    uniq, inv = np.unique(kernels["name"].astype(str).to_numpy()[sel], return_inverse=True)
    dt = np.array([collectives.dtype_from_kernel(x) for x in uniq], dtype=object)[inv.reshape(-1)]
    size = collectives.dtype_bytes(dt)
    dt = np.where(size > 0, dt, "Byte")  # no dtype in the name: count bytes as 1-byte elements
    size = np.where(size > 0, size, 1)
    nbytes = src["bytes"].to_numpy()
    shard = np.where(nbytes >= 0, nbytes // size, -1)
    full = np.where(shard >= 0, shard * n_eff, -1)
    in_n = np.where(kinds == "reduce_scatter", full, shard)
    out_n = np.where(kinds == "all_gather", full, shard)
    out = kernels.copy()
    for col, vals in (("comm_collective", coll_name), ("comm_dtype", dt),
                      ("comm_group", np.where(src["comm_id"].to_numpy() >= 0,
                                              [f"{c:#x}" for c in src["comm_id"].to_numpy()], ""))):
        s = out[col].astype(str).to_numpy().copy()
        s[sel] = vals
        out[col] = pd.Categorical(s)
    for col, vals, dtype in (("comm_in_nelems", in_n, np.int64), ("comm_out_nelems", out_n, np.int64),
                             ("comm_group_size", n, np.int32)):
        a = out[col].to_numpy().copy()
        a[sel] = vals
        out[col] = a.astype(dtype)
    return out
