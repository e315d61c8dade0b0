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
from ..intervals import pack_keys
from ..model import categorical_from

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
    start, end, gt, nm, data = zip(*rows)
    # rows that are not integers where integers belong are left out (optional evidence)
    keep = _is_int(start) & _is_int(end) & (_is_int(gt) | np.array([g is None for g in gt], bool))
    fields, decoded = decode_payloads(data, schemas)
    keep &= decoded
    if not keep.any():
        return _empty()
    g = _int_values(gt, keep)
    out = {"start_ns": _int_values(start, keep), "end_ns": _int_values(end, keep),
           "pid": (g >> 24) & 0xFFFFFF, "tid": g & 0xFFFFFF,
           "name": np.array([str(x or "") for x in nm], dtype=object)[keep]}
    for col, key in (("comm_id", "communicator id"), ("bytes", "message size"), ("nranks", "no. of ranks")):
        out[col] = _field_column(*fields[key], keep)
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


FIELDS = ("communicator id", "message size", "no. of ranks")  # payload entries read (by name part)


def _is_int(values: tuple) -> np.ndarray:
    """True where a fetched value is an integer (SQLite INTEGER)."""
    return np.array([type(v) is int for v in values], bool)


def _int_values(values: tuple, keep: np.ndarray) -> np.ndarray:
    """The kept values (integers there; None elsewhere reads 0) as int64."""
    a = np.array(values, dtype=object)[keep]
    a[a == None] = 0  # noqa: E711 - elementwise comparison with None
    return a.astype(np.int64)


def _field_column(values: np.ndarray, present: np.ndarray, keep: np.ndarray):
    """A decoded payload field of the kept rows, -1 where absent: int64, or Python ints where one
    is at or above 2**63 (an unsigned 64-bit communicator id)."""
    v, p = values[keep], present[keep]
    if not (p & (v >= np.uint64(1 << 63))).any():
        return np.where(p, v.astype(np.int64), -1)
    return [int(x) if q else -1 for x, q in zip(v.tolist(), p)]


def decode_payloads(data: tuple, schemas) -> tuple[dict[str, tuple[np.ndarray, np.ndarray]], np.ndarray]:
    """The FIELDS of each row's payload blob (bytes, or hex text), a whole group of blobs at a time.

    Returns ({field: (uint64 values, present)}, readable): a blob shorter than its header, or
    whose schema lacks a field, or whose field lies past its payload, leaves that field absent;
    hex text that does not decode makes its row unreadable. Blob layout: see the module docstring
    (four little-endian u64 header words, then the payload; entry offsets within the payload)."""
    n = len(data)
    vals = {k: np.zeros(n, np.uint64) for k in FIELDS}
    has = {k: np.zeros(n, bool) for k in FIELDS}
    readable = np.ones(n, bool)
    rows, blobs = [], []
    for i, d in enumerate(data):
        if isinstance(d, str):
            try:
                d = bytes.fromhex(d)
            except ValueError:
                readable[i] = False
                continue
        elif not isinstance(d, bytes):
            continue
        rows.append(i)
        blobs.append(d)
    if not blobs:
        return {k: (vals[k], has[k]) for k in FIELDS}, readable
    rows_a = np.array(rows, np.int64)
    lens = np.array([len(b) for b in blobs], np.int64)
    for length in np.unique(lens[lens >= _HEADER]).tolist():  # blobs of one length as one 2-D array
        at = np.flatnonzero(lens == length)
        buf = np.frombuffer(b"".join([blobs[j] for j in at]), np.uint8).reshape(at.size, length)
        head = np.ascontiguousarray(buf[:, :_HEADER]).view("<u8")  # domain, schema, size, offset
        off = np.minimum(head[:, 3], length).astype(np.int64)
        end = np.minimum(off + np.minimum(head[:, 2], length).astype(np.int64), length)  # payload[off:off + size]
        plen = end - off
        for dom, sch in {(int(a), int(b)) for a, b in head[:, :2].tolist()}:
            entries = schemas.get((dom, sch), [])
            mine = np.flatnonzero((head[:, 0] == np.uint64(dom)) & (head[:, 1] == np.uint64(sch)))
            for name, pos, size in entries:  # in entry order: a later entry of the same field wins
                if pos < 0:  # (a damaged schema: nothing to read there)
                    continue
                for key in FIELDS:
                    if key not in name:
                        continue
                    r = mine[pos + size <= plen[mine]]
                    if not r.size:
                        continue
                    cols = off[r, None] + pos + np.arange(size)
                    b = buf[r[:, None], cols].astype(np.uint64) << (np.uint64(8) * np.arange(size, dtype=np.uint64))
                    target = rows_a[at[r]]
                    vals[key][target] = np.bitwise_or.reduce(b, axis=1)
                    has[key][target] = True
    return {k: (vals[k], has[k]) for k in FIELDS}, readable


def annotate_kernels(kernels: pd.DataFrame, launches: pd.DataFrame, ranges: pd.DataFrame,
                     world_size: int | None) -> pd.DataFrame:
    """Fill the comm_* columns of NCCL kernels from the NCCL range around their launch.

    comm_collective: the range name without "nccl", lower case ("allreduce"); comm_group: the
    communicator id (hex) when the payload has it; comm_dtype from the kernel name; in/out element
    counts from the message size as c10d counts them (all-gather out and reduce-scatter in = n
    shards, n = the communicator's ranks, else the number of processes in the export);
    comm_group_size from the payload. Kernels already annotated, or launched outside NCCL ranges,
    are left as they are. A kernel's launch is the first API call with its (pid, correlation).
    Text work is done once per distinct name, range name and communicator (a million kernels and
    100k ranges: 0.2 s, not 5 s row by row)."""
    if not len(ranges) or not len(kernels) or not len(launches):
        return kernels
    coll = ranges[~ranges["name"].str.contains("Group|CommInit|CommDestroy|CommFinalize|CommAbort|CommSplit",
                                               case=False, regex=True)]
    if not len(coll):
        return kernels
    hit = _launch_ranges(kernels, launches, coll)  # per kernel: its range's row in `coll`, or -1
    hit[~_is_empty(kernels["comm_collective"])] = -1
    sel = np.flatnonzero(hit >= 0)
    if not sel.size:
        return kernels
    rows = hit[sel]
    # the range's collective and kind, once per distinct range name
    rcode, rnames = pd.factorize(coll["name"].astype(str).to_numpy(dtype=object))
    clean = pd.Series(rnames, dtype=object).str.replace(r"^nccl", "", regex=True, case=False).str.lower().to_numpy()
    coll_name = clean[rcode[rows]]
    kinds = collectives.kind_of(clean)[rcode[rows]] if len(clean) else np.array([], dtype=object)
    n = coll["nranks"].to_numpy()[rows]
    n_eff = np.where(n > 0, n, world_size or 1)
    # the dtype, once per distinct kernel name
    kcode, knames = _codes(kernels["name"])
    used, inv = np.unique(kcode[sel], return_inverse=True)
    dt_u = np.array([collectives.dtype_from_kernel(str(knames[c])) if c >= 0 else "" for c in used], dtype=object)
    size_u = collectives.dtype_bytes(dt_u)
    dt_u, size_u = np.where(size_u > 0, dt_u, "Byte"), np.where(size_u > 0, size_u, 1)  # no dtype: 1-byte elements
    dt, size = dt_u[inv.reshape(-1)], size_u[inv.reshape(-1)]
    nbytes = coll["bytes"].to_numpy()[rows]
    shard = np.where(nbytes >= 0, nbytes // size, -1)
    full = np.where(shard >= 0, shard * n_eff, -1)
    in_n = np.where(kinds == "reduce_scatter", full, shard)
    out_n = np.where(kinds == "all_gather", full, shard)
    comm = coll["comm_id"].to_numpy()[rows]
    gcode, gids = pd.factorize(comm)
    group = np.array([f"{c:#x}" if c >= 0 else "" for c in gids], dtype=object)[gcode] if len(gids) \
        else np.array([], dtype=object)
    out = kernels.copy(deep=False)  # whole columns are replaced below (copy-on-write keeps the input)
    for col, vals in (("comm_collective", coll_name), ("comm_dtype", dt), ("comm_group", group)):
        out[col] = _with_values(out[col], sel, vals)
    for col, vals, dtype in (("comm_in_nelems", in_n, np.int64), ("comm_out_nelems", out_n, np.int64),
                             ("comm_group_size", n, np.int32)):
        a = out[col].to_numpy().copy()
        a[sel] = vals
        out[col] = a.astype(dtype)
    return out


def _launch_ranges(kernels: pd.DataFrame, launches: pd.DataFrame, coll: pd.DataFrame) -> np.ndarray:
    """Per kernel, the row in `coll` of the latest NCCL range that started at or before its launch
    call and had not ended, on the call's thread; -1 for none. Only the calls inside a range are
    joined to the kernels (the others cannot give one)."""
    l_pid, l_tid = launches["pid"].to_numpy(np.int64), launches["tid"].to_numpy(np.int64)
    l_start = launches["start_ns"].to_numpy(np.int64)
    l_hit = np.full(len(launches), -1, np.int64)
    c_pid, c_tid = coll["pid"].to_numpy(np.int64), coll["tid"].to_numpy(np.int64)
    for pid, tid in {(int(a), int(b)) for a, b in zip(c_pid.tolist(), c_tid.tolist())}:
        r = np.flatnonzero((c_pid == pid) & (c_tid == tid))  # in start order, as `coll` is
        rs, re_ = coll["start_ns"].to_numpy(np.int64)[r], coll["end_ns"].to_numpy(np.int64)[r]
        mine = np.flatnonzero((l_pid == pid) & (l_tid == tid))
        t = l_start[mine]
        j = np.searchsorted(rs, t, side="right") - 1  # the latest range started at or before the call
        ok = (j >= 0) & (re_[np.maximum(j, 0)] >= t)
        l_hit[mine[ok]] = r[j[ok]]
    inside = np.flatnonzero(l_hit >= 0)
    hit = np.full(len(kernels), -1, np.int64)
    if not inside.size:
        return hit
    corr = launches["correlation"].to_numpy(np.int64)
    lkey, kkey = pack_keys([l_pid, corr], [kernels["pid"].to_numpy(np.int64), kernels["correlation"].to_numpy(np.int64)])
    # a (pid, correlation) seen on several calls: the first call counts, inside a range or not
    cand = np.flatnonzero(np.isin(lkey, lkey[inside]))
    _, at = np.unique(lkey[cand], return_index=True)
    first = cand[at]
    first = first[l_hit[first] >= 0]
    if not first.size:
        return hit
    order = np.argsort(lkey[first], kind="stable")
    keys = lkey[first][order]
    p = np.minimum(np.searchsorted(keys, kkey), keys.size - 1)
    found = keys[p] == kkey
    hit[found] = l_hit[first[order[p[found]]]]
    return hit


def _codes(col: pd.Series) -> tuple[np.ndarray, np.ndarray]:
    """(code per row, distinct values) of a text column (categorical: its own codes, -1 missing)."""
    if isinstance(col.dtype, pd.CategoricalDtype):
        return col.cat.codes.to_numpy(np.int64), np.asarray(col.cat.categories.astype(str), dtype=object)
    codes, uniq = pd.factorize(col.astype(str).to_numpy(dtype=object))
    return codes.astype(np.int64), np.asarray(uniq, dtype=object)


def _is_empty(col: pd.Series) -> np.ndarray:
    """Where a text column holds "" (as `.astype(str) == ""` would say; a missing value reads "nan")."""
    codes, uniq = _codes(col)
    empty = np.array([u == "" for u in uniq], bool)
    return np.where(codes >= 0, empty[np.maximum(codes, 0)] if uniq.size else False, False)


def _with_values(col: pd.Series, sel: np.ndarray, vals: np.ndarray) -> pd.Categorical:
    """The column's text with rows `sel` set to `vals`, as a categorical of the values present
    (sorted, as pd.Categorical of the strings makes; a missing value reads "nan", as `.astype(str)`)."""
    codes, uniq = _codes(col)
    vcode, vuniq = pd.factorize(np.asarray(vals, dtype=object))
    values = np.concatenate([uniq, np.array(["nan"], dtype=object), np.asarray(vuniq, dtype=object)])
    new = np.where(codes >= 0, codes, uniq.size)
    new[sel] = uniq.size + 1 + vcode
    return categorical_from(new, values)
