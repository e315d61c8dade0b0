"""NCCL's NVTX ranges (traceattrib.ingest.nccl_nvtx): payload blobs decoded a group at a time and
kernels annotated column-wise must give what a row-by-row reading gives (the reference functions
below, the code before it was vectorized), on generated inputs; and on a real TP=2 capture."""
from __future__ import annotations

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from traceattrib import collectives
from traceattrib.ingest import nccl_nvtx, read

from conftest import FIXTURES

HEADER = 32


def ref_decode(data, schemas) -> dict[str, int]:
    """One payload blob's named integer fields, byte by byte (raises ValueError on bad hex)."""
    raw = bytes.fromhex(data) if isinstance(data, str) else bytes(data)
    if len(raw) < HEADER:
        return {}
    dom, sch, size, off = (int.from_bytes(raw[i:i + 8], "little") for i in range(0, HEADER, 8))
    payload = raw[off:off + size]
    out = {}
    for name, pos, n in schemas.get((dom, sch), []):
        if pos + n <= len(payload):
            for key in nccl_nvtx.FIELDS:
                if key in name:
                    out[key] = int.from_bytes(payload[pos:pos + n], "little", signed=False)
    return out


def ref_annotate(kernels, launches, ranges, world_size):
    """annotate_kernels row group by row group, with a pandas merge for the launch join."""
    if not len(ranges) or not len(kernels) or not len(launches):
        return kernels
    coll = ranges[~ranges["name"].str.contains("Group|CommInit|CommDestroy|CommFinalize|CommAbort|CommSplit",
                                               case=False, regex=True)]
    if not len(coll):
        return kernels
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
        j = np.searchsorted(rs, t, side="right") - 1
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
    dt = np.where(size > 0, dt, "Byte")
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


# --- payload blobs ---------------------------------------------------------------------------------

_NAMES = ["nccl communicator id", "message size [bytes]", "no. of ranks", "rank", "reduction op"]
_entry = st.tuples(st.sampled_from(_NAMES), st.integers(0, 40), st.sampled_from([4, 8]))
_schemas = st.dictionaries(st.tuples(st.integers(0, 2), st.integers(0, 2)), st.lists(_entry, max_size=5), max_size=6)


@st.composite
def _blob(draw):
    if draw(st.integers(0, 9)) == 0:
        return draw(st.sampled_from([None, 17, "zz", b"short"]))
    payload = draw(st.binary(max_size=40))
    head = [draw(st.integers(0, 2)), draw(st.integers(0, 2)),
            draw(st.one_of(st.just(len(payload)), st.integers(0, 60), st.just(2 ** 64 - 1))),
            draw(st.one_of(st.just(HEADER), st.integers(0, 80), st.just(2 ** 63)))]
    raw = b"".join(x.to_bytes(8, "little") for x in head) + payload
    return raw.hex() if draw(st.booleans()) else raw


@settings(max_examples=300, deadline=None)
@given(blobs=st.lists(_blob(), max_size=30), schemas=_schemas)
def test_payloads_decode_as_blob_by_blob(blobs, schemas):
    fields, readable = nccl_nvtx.decode_payloads(tuple(blobs), schemas)
    for i, d in enumerate(blobs):
        if not isinstance(d, (bytes, str)):
            assert readable[i] and not any(fields[k][1][i] for k in nccl_nvtx.FIELDS)
            continue
        try:
            want = ref_decode(d, schemas)
        except ValueError:
            assert not readable[i]
            continue
        assert readable[i]
        got = {k: int(fields[k][0][i]) for k in nccl_nvtx.FIELDS if fields[k][1][i]}
        assert got == want


def test_a_negative_schema_offset_reads_nothing():
    blob = b"".join(x.to_bytes(8, "little") for x in (1, 1, 8, HEADER)) + (5).to_bytes(8, "little")
    fields, _ = nccl_nvtx.decode_payloads((blob,), {(1, 1): [("message size", -8, 8), ("no. of ranks", 0, 4)]})
    assert not fields["message size"][1][0] and fields["no. of ranks"][1][0] and fields["no. of ranks"][0][0] == 5


# --- kernels annotated from their launch call's range ----------------------------------------------

_RANGE_NAMES = ["ncclAllReduce", "ncclAllGather", "ncclReduceScatter", "ncclGroupStart", "NCCLBroadcast", "ncclSend"]
_KERNEL_NAMES = ["ncclDevKernel_AllReduce_Sum_bf16_RING_LL", "ncclDevKernel_AllGather_RING_LL",
                 "ncclKernel_ReduceScatter_RING_LL_Sum_float", "gemm_bf16", "elementwise"]


@st.composite
def _tables(draw):
    n_r = draw(st.integers(0, 12))
    r_rows = []
    for _ in range(n_r):
        s = draw(st.integers(0, 200))
        r_rows.append((s, s + draw(st.integers(0, 60)), draw(st.integers(1, 2)), draw(st.integers(1, 2)),
                       draw(st.sampled_from(_RANGE_NAMES)), draw(st.sampled_from([-1, 0xabc, 2 ** 40 + 3])),
                       draw(st.sampled_from([-1, 0, 4096, 3 * 2 ** 20])), draw(st.sampled_from([-1, 2, 4]))))
    r_rows.sort(key=lambda r: (r[0], r[1]))
    ranges = pd.DataFrame(r_rows, columns=["start_ns", "end_ns", "pid", "tid", "name", "comm_id", "bytes", "nranks"])
    ranges = ranges.astype({c: np.int64 for c in ranges.columns if c != "name"}).astype({"name": object})
    n_l = draw(st.integers(0, 15))
    launches = pd.DataFrame({"pid": [draw(st.integers(1, 2)) for _ in range(n_l)],
                             "correlation": [draw(st.integers(0, 8)) for _ in range(n_l)],  # repeats: first wins
                             "tid": [draw(st.integers(1, 2)) for _ in range(n_l)],
                             "start_ns": [draw(st.integers(0, 260)) for _ in range(n_l)]}, dtype=np.int64)
    n_k = draw(st.integers(0, 15))
    done = [draw(st.sampled_from(["", "", "", "allreduce"])) for _ in range(n_k)]
    kernels = pd.DataFrame({
        "name": pd.Categorical([draw(st.sampled_from(_KERNEL_NAMES)) for _ in range(n_k)]),
        "pid": np.array([draw(st.integers(1, 2)) for _ in range(n_k)], np.int64),
        "correlation": np.array([draw(st.integers(0, 8)) for _ in range(n_k)], np.int64),
        "comm_collective": pd.Categorical(done), "comm_in_nelems": np.full(n_k, -1, np.int64),
        "comm_out_nelems": np.full(n_k, -1, np.int64), "comm_dtype": pd.Categorical([""] * n_k),
        "comm_group": pd.Categorical([""] * n_k), "comm_group_size": np.full(n_k, -1, np.int32)})
    return kernels, launches, ranges, draw(st.sampled_from([None, 2, 8]))


@settings(max_examples=300, deadline=None)
@given(t=_tables())
def test_annotation_matches_the_row_by_row_join(t):
    kernels, launches, ranges, world = t
    got = nccl_nvtx.annotate_kernels(kernels, launches, ranges, world)
    pd.testing.assert_frame_equal(got, ref_annotate(kernels, launches, ranges, world))


def test_real_tp2_capture_annotates_as_row_by_row(monkeypatch):
    """The TP=2 nsys capture: every NCCL kernel gets its collective, as the row-by-row join says."""
    import traceattrib.ingest.nsys as nsys
    seen = {}
    real = nccl_nvtx.annotate_kernels

    def spy(*a, **k):
        seen["args"] = (a, k)
        return real(*a, **k)

    monkeypatch.setattr(nsys.nccl_nvtx, "annotate_kernels", spy)
    tr = read(str(FIXTURES / "tp2_eager_nsys.sqlite"))
    a, k = seen["args"]
    pd.testing.assert_frame_equal(real(*a, **k), ref_annotate(*a, **k))
    nccl = tr.kernels["name"].astype(str).str.startswith("nccl")
    assert nccl.sum() > 0 and (tr.kernels.loc[nccl, "comm_collective"].astype(str) != "").all()
