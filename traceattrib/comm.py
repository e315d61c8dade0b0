"""Communication the way users ask about it: bytes per collective, bandwidth against the link,
waiting versus transferring across ranks, job-level bounds and an interconnect what-if.

Everything here is a pure function over small tables (times int64 ns):

  instances   one row per communication kernel of every rank (`instances`, or built elsewhere with
              the same columns, INSTANCE_COLUMNS): rank, step row, collective kind, process group,
              order of issue in the group, start/end, bytes and where they came from;
  match       lines each instance up with the same call on the other ranks (same group, same
              order of issue), aligns the ranks' clocks and splits every rank's collective time into
              `wait` (before the last rank arrived) and `transfer` (after), wait + transfer = duration;
  job         the job's step (last end - first start over ranks, per step index) and what removing a
              bucket could win on the job: never more than its slowest rank allows;
  bandwidth   per collective kind and size class: algbw, busbw (nccl-tests definitions) and the
              fraction of the link's peak;
  fit/project latency + bytes / bandwidth per collective kind from the trace's own transfer times,
              and each step projected on another link.

NCCL kernels start when their stream reaches them and spin until every rank has arrived, so the
time before the last rank's kernel starts is waiting, not moving data. Bytes follow nccl-tests:
max(input, output elements) x element size (rules/collectives.toml).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import msgspec
import numpy as np
import pandas as pd
from msgspec import UNSET

from . import collectives as C
from .links import Link
from .notes import Note, note
from .report import (
    KINDS,
    CollectiveBandwidth,
    CollectiveComm,
    Collectives,
    CollectiveSummary,
    Finding,
    Fit,
    FitModel,
    FitPoint,
    JobProjection,
    JobSummary,
    Projection,
    RankComm,
    SizeClass,
    Straggler,
    WhatIfLink,
)
from .stats import p90, steady

INSTANCE_COLUMNS = ["rank", "step_row", "step", "step_kind", "warmup", "collective", "group", "seq",
                    "start_ns", "end_ns", "bytes", "bytes_source", "group_size"]
MATCH_COLUMNS = ["match", "matched", "start_aligned_ns", "end_aligned_ns", "wait_ns", "transfer_ns"]
CALL_BW_COLUMNS = ["algbw_GBps", "busbw_GBps", "link_fraction"]  # per call, NaN where unknown
STEP_COLLECTIVE_COLUMNS = ["rank", "step", "collective", "bytes", "comm_ns", "wait_ns", "transfer_ns", "matched"]
OVERLAP_SLACK_NS = 2_000  # clock noise allowed between ranks' timelines when checking that paired calls overlap



@dataclass
class Model:
    """What the tensor-parallel all-reduce moves when the trace does not say: hidden size x tokens of
    the step x element size. tokens: per step kind ('decode', 'prefill', ...); a kind not given
    takes each step's own token count where the steps table has one (`tokens`, from GEMM shapes)."""

    hidden_size: int
    dtype_bytes: int
    tokens: dict[str, int] = field(default_factory=dict)

    def allreduce_bytes(self, kind: str, step_tokens: int = -1) -> int:
        t = self.tokens.get(kind) or (step_tokens if step_tokens > 0 else None)
        return int(self.hidden_size) * int(t) * int(self.dtype_bytes) if t else -1


@dataclass
class CommResult:
    """What this module adds to a report.

    instances: INSTANCE_COLUMNS + MATCH_COLUMNS + CALL_BW_COLUMNS (one row per communication kernel);
    step_collectives: STEP_COLLECTIVE_COLUMNS, per rank, step index and collective kind;
    by_kind: per step kind, per collective: bytes and bandwidth;
    by_rank: per rank and kind: collective time, waiting and transferring (means per step);
    job: per step kind, the job-level figures; job_steps: per step index;
    link: the link the figures compare with; offsets_ns: clock offset per rank (subtracted);
    fit: per collective, latency and bandwidth fitted on the trace;
    what_if: per target link, the projection of every kind; notes.
    """

    instances: pd.DataFrame
    step_collectives: pd.DataFrame
    by_kind: dict[str, dict[str, CollectiveBandwidth]] = field(default_factory=dict)
    by_rank: dict[int, dict[str, RankComm]] = field(default_factory=dict)
    job: dict[str, JobSummary] = field(default_factory=dict)
    job_steps: pd.DataFrame | None = None
    link: Link | None = None
    offsets_ns: dict[int, float] = field(default_factory=dict)
    fit: dict[str, Fit] = field(default_factory=dict)
    what_if: dict[str, WhatIfLink] = field(default_factory=dict)
    notes: list[Note] = field(default_factory=list)


# --- instances and bytes ------------------------------------------------------------------------

def instances(kernels: pd.DataFrame, steps: pd.DataFrame, meta: dict, model: Model | None = None) -> pd.DataFrame:
    """One row per communication kernel (bucket 'communication') of every rank, INSTANCE_COLUMNS.

    kernels: the report's kernels (bucket, step = row into `steps`, -1 outside steps) with the
    comm_* columns of the model; steps: the per-step table (rank, index, kind, warmup).
    group: the process group (comm_group) of the kernel's stream, else 'stream<k>' (the rank's k-th
    communication stream: one NCCL communicator per stream); seq: order of issue within (rank, group).
    bytes (-1 unknown) and bytes_source: 'args' (torch), 'nvtx' (nsys), 'model', 'unknown'.
    """
    m = np.asarray(kernels["bucket"] == "communication", dtype=bool)
    cols = [c for c in ("start_ns", "end_ns", "rank", "step", "device", "stream", "name", "op", "comm_collective",
                        "comm_in_nelems", "comm_out_nelems", "comm_dtype", "comm_group", "comm_group_size")
            if c in kernels.columns]
    k = kernels.loc[m, cols]
    if not len(k):
        return pd.DataFrame({c: pd.Series([], dtype=object) for c in INSTANCE_COLUMNS})
    k = k.sort_values(["start_ns", "end_ns"], kind="stable")
    row = k["step"].to_numpy(np.int64)
    has = row >= 0
    srow = np.maximum(row, 0)
    idx = steps["index"].to_numpy(np.int64) if len(steps) else np.zeros(1, np.int64)
    skind = steps["kind"].astype(str).to_numpy() if len(steps) else np.array([""])
    swarm = steps["warmup"].to_numpy(bool) if len(steps) else np.zeros(1, bool)
    df = pd.DataFrame({
        "rank": k["rank"].to_numpy(np.int64), "step_row": row,
        "step": np.where(has, idx[srow], -1), "step_kind": np.where(has, skind[srow], ""),
        "warmup": np.where(has, swarm[srow], False),
        "collective": C.kind_of(C.text(k)),
        "start_ns": k["start_ns"].to_numpy(np.int64), "end_ns": k["end_ns"].to_numpy(np.int64),
    })
    # process group: per (rank, device, stream), the group name the profiler recorded, if any
    key = pd.DataFrame({"rank": df["rank"].to_numpy(), "dev": k["device"].to_numpy(),
                        "stream": k["stream"].to_numpy(), "g": k["comm_group"].astype(str).to_numpy()})
    streams = key.drop_duplicates(["rank", "dev", "stream"])[["rank", "dev", "stream"]].copy()
    streams["label"] = "stream" + streams.groupby("rank").cumcount().astype(str)
    named = key[key["g"] != ""].groupby(["rank", "dev", "stream"])["g"].agg(lambda s: s.value_counts().index[0])
    if len(named):
        streams = streams.merge(named.rename("named").reset_index(), on=["rank", "dev", "stream"], how="left")
        streams["label"] = streams["named"].fillna(streams["label"])
    df["group"] = key.merge(streams[["rank", "dev", "stream", "label"]], on=["rank", "dev", "stream"],
                            how="left")["label"].to_numpy()
    df["seq"] = df.groupby(["rank", "group"]).cumcount().to_numpy(np.int64)
    # bytes as nccl-tests counts them
    nel = np.maximum(k["comm_in_nelems"].to_numpy(np.int64), k["comm_out_nelems"].to_numpy(np.int64))
    size = C.dtype_bytes(k["comm_dtype"].astype(str).to_numpy())
    nbytes = np.where((nel >= 0) & (size > 0), nel * size, -1)
    fmt = meta.get("format")
    src = np.where(nbytes >= 0, "nvtx" if fmt == "nsys" else "args", "unknown").astype(object)
    if model is not None:
        fill = (nbytes < 0) & (df["collective"].to_numpy() == "all_reduce")
        if fill.any():
            tok = steps["tokens"].to_numpy(np.int64) if "tokens" in steps.columns and len(steps) else None
            stok = np.where(has, tok[srow], -1) if tok is not None else np.full(len(df), -1, np.int64)
            pairs = pd.DataFrame({"k": df["step_kind"], "t": stok})
            uniq = pairs.drop_duplicates()
            val = {(a, int(b)): model.allreduce_bytes(a, int(b)) for a, b in zip(uniq["k"], uniq["t"])}
            mb = np.array([val[(a, int(b))] for a, b in zip(uniq["k"], uniq["t"])], np.int64)
            mb = pairs.merge(uniq.assign(mb=mb), on=["k", "t"], how="left")["mb"].to_numpy(np.int64)
            fill &= mb >= 0
            nbytes[fill] = mb[fill]
            src[fill] = "model"
    df["bytes"] = nbytes
    df["bytes_source"] = src
    gs = k["comm_group_size"].to_numpy(np.int64)
    world = meta.get("world_size") or len(meta.get("ranks") or []) or 1
    df["group_size"] = np.where(gs > 0, gs, int(world))
    return df[INSTANCE_COLUMNS].reset_index(drop=True)


# --- matching across ranks ----------------------------------------------------------------------

def match(inst: pd.DataFrame, one_clock: bool) -> tuple[pd.DataFrame, dict[int, float], list[Note]]:
    """Line collectives up across ranks and split each rank's time into wait and transfer.

    An instance is matched when every rank that issues collectives in its group has one at the same
    order of issue, of the same kind and (where known) the same bytes. Clocks: with one_clock (one
    nsys capture of every process) the offsets are 0; otherwise (one torch.profiler file per rank)
    each rank's offset from the lowest rank is the median difference of matched end times, since a
    collective ends at nearly the same moment on every rank once the last one has arrived.
    For a matched instance, last = the latest aligned start over its ranks; wait = min(max(last -
    start, 0), duration), transfer = duration - wait. Unmatched: wait 0, transfer = duration.
    Returns (instances + MATCH_COLUMNS, offsets per rank, notes).
    """
    df = inst.copy()
    n = len(df)
    dur = (df["end_ns"] - df["start_ns"]).to_numpy(np.int64)
    df["match"] = np.full(n, -1, np.int64)
    df["matched"] = np.zeros(n, bool)
    df["start_aligned_ns"] = df["start_ns"].to_numpy(np.int64)
    df["end_aligned_ns"] = df["end_ns"].to_numpy(np.int64)
    df["wait_ns"] = np.zeros(n, np.int64)
    df["transfer_ns"] = dur
    ranks = sorted(int(r) for r in pd.unique(df["rank"])) if n else []
    notes: list[Note] = []
    if len(ranks) < 2:
        return df, {r: 0.0 for r in ranks}, notes
    members = df.groupby("group")["rank"].agg(lambda s: frozenset(int(x) for x in s))
    key = df.groupby(["group", "seq"], sort=False).ngroup().to_numpy()
    df["match"] = key
    g = df.groupby(key)
    present = g["rank"].transform("nunique").to_numpy()
    want = df["group"].map({gname: len(v) for gname, v in members.items()}).to_numpy()
    same_kind = g["collective"].transform("nunique").to_numpy() == 1
    b = df["bytes"].where(df["bytes"] >= 0)
    same_bytes = (b.groupby(key).transform("nunique").to_numpy() <= 1)
    ok = (present == want) & (want >= 2) & same_kind & same_bytes
    bad = int(((present == want) & (want >= 2) & ~(same_kind & same_bytes)).sum())
    if bad:
        notes.append(note("comm.mismatch", counts=(bad,)))
    partial = int(((present < want)).sum())
    if partial:
        notes.append(note("comm.partial", counts=(partial,)))
    offsets = {r: 0.0 for r in ranks}
    ref = ranks[0]
    if not one_clock and ok.any():
        e = pd.DataFrame({"key": key[ok], "rank": df["rank"].to_numpy()[ok], "end": df["end_ns"].to_numpy()[ok]})
        base = e[e["rank"] == ref].set_index("key")["end"]
        for r in ranks[1:]:
            er = e[e["rank"] == r].set_index("key")["end"]
            common = er.index.intersection(base.index)
            if len(common):
                offsets[r] = float(np.median(er.loc[common].to_numpy() - base.loc[common].to_numpy()))
        unaligned = [r for r in ranks[1:] if not len(e[e["rank"] == r].set_index("key").index.intersection(base.index))]
        if unaligned:
            notes.append(note("comm.unaligned", tuple(unaligned), ref))
    off = df["rank"].map(offsets).to_numpy(np.float64).round().astype(np.int64)
    sa = df["start_ns"].to_numpy(np.int64) - off
    df["start_aligned_ns"] = sa
    df["end_aligned_ns"] = df["end_ns"].to_numpy(np.int64) - off
    last = pd.Series(sa).groupby(key).transform("max").to_numpy()
    # a collective cannot end on any rank before the last rank arrived: calls paired by position that
    # do not overlap (beyond clock noise) are not the same call
    first_end = pd.Series(df["end_aligned_ns"].to_numpy()).groupby(key).transform("min").to_numpy()
    apart = ok & (last > first_end + OVERLAP_SLACK_NS)
    if apart.any():
        notes.append(note("comm.apart", counts=(int(apart.sum()),)))
        ok = ok & ~apart
    wait = np.clip(last - sa, 0, dur)
    df["wait_ns"] = np.where(ok, wait, 0)
    df["transfer_ns"] = dur - df["wait_ns"].to_numpy()
    df["matched"] = ok
    df.loc[~ok, "match"] = -1
    return df, offsets, notes


def straggler(inst: pd.DataFrame) -> Straggler | None:
    """The rank that arrives last most often over matched calls of `inst` (one step kind), and how
    late: the median of (its start - the next-latest rank's start) over the calls it was last in,
    plus the median spread (last - first arrival) over all calls."""
    m = inst[inst["matched"]]
    if not len(m):
        return None
    order = m.sort_values(["match", "start_aligned_ns"], kind="stable")
    mk = order["match"].to_numpy()
    sa = order["start_aligned_ns"].to_numpy(np.float64)
    is_last = np.r_[mk[1:] != mk[:-1], True]
    is_first = np.r_[True, mk[1:] != mk[:-1]]
    prev = np.r_[sa[:1], sa[:-1]]  # the next-latest arrival (every matched call has 2+ ranks)
    last = order[is_last]
    calls = int(len(last))
    counts = last["rank"].value_counts()
    r = int(counts.index[0])
    mine = (last["rank"] == r).to_numpy()
    late = (sa[is_last] - prev[is_last])[mine]
    spread = sa[is_last] - sa[is_first]
    return Straggler(rank=r, last_count=int(counts.iloc[0]), calls=calls, last_share=float(counts.iloc[0] / calls),
                     late_by_median_ns=float(np.median(late)), arrival_spread_median_ns=float(np.median(spread)),
                     last_counts={int(k): int(v) for k, v in counts.items()})


def step_collectives(inst: pd.DataFrame) -> pd.DataFrame:
    """Per rank, step index and collective kind: bytes (sum; -1 when any call's bytes are unknown),
    comm_ns (sum of durations), wait_ns, transfer_ns (wait + transfer = comm_ns), matched calls."""
    s = inst[inst["step_row"] >= 0]
    if not len(s):
        return pd.DataFrame({c: pd.Series([], dtype=np.int64) for c in STEP_COLLECTIVE_COLUMNS}) \
            .astype({"collective": object})
    s = s.assign(comm_ns=s["end_ns"] - s["start_ns"], unknown=(s["bytes"] < 0).astype(np.int64),
                 b=s["bytes"].clip(lower=0))
    g = s.groupby(["rank", "step", "collective"], sort=True).agg(
        bytes=("b", "sum"), unknown=("unknown", "sum"), comm_ns=("comm_ns", "sum"), wait_ns=("wait_ns", "sum"),
        transfer_ns=("transfer_ns", "sum"), matched=("matched", "sum")).reset_index()
    g["bytes"] = np.where(g["unknown"] > 0, -1, g["bytes"])
    return g[STEP_COLLECTIVE_COLUMNS]


# --- bandwidth ----------------------------------------------------------------------------------

def _size_classes(b: np.ndarray) -> np.ndarray:
    """Size class of every call: its exact size when a collective has few distinct sizes (LLM
    decode: one per tensor shape), else the power-of-two bin [2^k, 2^(k+1)) it falls in."""
    u = np.unique(b[b > 0])
    if u.size <= 12:
        return b.astype(np.int64)
    return np.where(b > 0, 2 ** np.floor(np.log2(np.maximum(b, 1))).astype(np.int64), -1)


def bandwidth(inst: pd.DataFrame, nsteps: int, link: Link | None, transfer_basis: bool) -> dict[str, CollectiveBandwidth]:
    """Per collective kind of the given calls (one step kind's steady steps, every rank):
    median_ns, bytes_per_call (median), bytes_per_step, algbw_GBps (= total bytes / total time of
    calls with known bytes), busbw_GBps (= algbw x busbw factor for n ranks), link_fraction (= busbw
    / the link's peak), bytes_source, time_basis, group_size and size_classes (the same per size).
    time is the transfer time (after the last rank arrived) when transfer_basis, else the kernel
    duration, which includes waiting for other ranks (one rank's trace)."""
    out: dict[str, CollectiveBandwidth] = {}
    table = C.by_kind()
    for coll, g in inst.groupby("collective", sort=True):
        dur = (g["end_ns"] - g["start_ns"]).to_numpy(np.float64)
        t = g["transfer_ns"].to_numpy(np.float64) if transfer_basis else dur
        b = g["bytes"].to_numpy(np.int64)
        known = b >= 0
        n = int(np.median(g["group_size"])) if len(g) else 1
        factor = table[coll].busbw(n) if coll in table else None
        srcs = sorted(set(g["bytes_source"][known])) or ["unknown"]
        classes = []
        if known.any():
            cls = _size_classes(b)
            for c in np.unique(cls[known]):
                sel = known & (cls == c)
                classes.append(SizeClass(
                    bytes_min=int(b[sel].min()), bytes_max=int(b[sel].max()), count=int(sel.sum()),
                    median_ns=float(np.median(dur[sel])),
                    median_transfer_ns=float(np.median(t[sel])) if transfer_basis else UNSET,
                    **_bw(b[sel], t[sel], factor, link, median=True)))
        out[coll] = CollectiveBandwidth(
            median_ns=float(np.median(dur)), group_size=n, time_basis="transfer" if transfer_basis else "duration",
            bytes_source=srcs[0] if len(srcs) == 1 else "mixed", bytes_known_share=float(known.mean()),
            median_transfer_ns=float(np.median(t)) if transfer_basis else UNSET,
            median_wait_ns=float(np.median(g["wait_ns"])) if transfer_basis else UNSET,
            **_bw(b[known], t[known], factor, link),
            bytes_per_step=float(b[known].sum() / max(nsteps, 1)) if known.all() and known.any() else None,
            size_classes=classes)
    return out


def call_bandwidth(inst: pd.DataFrame, link: Link | None, transfer_basis: bool) -> dict[str, np.ndarray]:
    """CALL_BW_COLUMNS of every call: its bytes over its time (the transfer time when
    transfer_basis, else its duration: the basis `bandwidth` uses), busbw with the busbw factor of
    its collective and group size, and busbw as a fraction of the link's peak; NaN where the bytes,
    the time, the factor or the link are unknown."""
    n = len(inst)
    if not n:
        return {c: np.zeros(0, np.float64) for c in CALL_BW_COLUMNS}
    b = inst["bytes"].to_numpy(np.float64)
    t = (inst["transfer_ns"] if transfer_basis else inst["end_ns"] - inst["start_ns"]).to_numpy(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        alg = np.where((b >= 0) & (t > 0), b / t, np.nan)  # bytes per ns = GB/s
    table = C.by_kind()
    factor = np.full(n, np.nan)
    pairs = inst[["collective", "group_size"]].drop_duplicates()
    for coll, gs in zip(pairs["collective"], pairs["group_size"]):
        if coll in table:
            m = (inst["collective"].to_numpy() == coll) & (inst["group_size"].to_numpy() == gs)
            factor[m] = table[coll].busbw(int(gs))
    bus = alg * factor
    peak = link.peak_GBps if link is not None and link.peak_GBps > 0 else np.nan
    return {"algbw_GBps": alg, "busbw_GBps": bus, "link_fraction": bus / peak}


def _bw(b: np.ndarray, t: np.ndarray, factor: float | None, link: Link | None, median: bool = False) -> dict:
    """bytes_per_call, algbw_GBps, busbw_GBps, link_fraction (None where not computable). median:
    one size class, so algbw = median bytes / median time; else total bytes / total time."""
    if not b.size:
        return {"bytes_per_call": None, "algbw_GBps": None, "busbw_GBps": None, "link_fraction": None}
    per_call = float(np.median(b))
    tt = float(np.median(t)) if median else float(t.sum())
    bb = per_call if median else float(b.sum())
    alg = bb / tt if tt > 0 else None  # bytes per ns = GB/s
    bus = alg * factor if alg is not None and factor is not None else None
    frac = bus / link.peak_GBps if bus is not None and link is not None and link.peak_GBps > 0 else None
    return {"bytes_per_call": per_call, "algbw_GBps": alg, "busbw_GBps": bus, "link_fraction": frac}


# --- job level ----------------------------------------------------------------------------------

def job_steps(steps: pd.DataFrame, buckets: tuple[str, ...], offsets: dict[int, float],
              wait: pd.DataFrame | None = None) -> pd.DataFrame:
    """Per step kind and index present on every rank: the job's step and its bounds.

    span_ns = last end - first start over ranks (clocks aligned); slowest_rank: the rank whose step
    ends last (the job's step ends with it), slowest_span_ns its span; start_spread_ns = last start -
    first start. Removing bucket b moves each rank's step end earlier by at most its exposed time
    (its start is when its work was launched, which removing GPU work does not move), so the job
    step is at least max_r(end_r - exposed_r[b]) - first start: bound_<b> = span_ns / that. For the
    slowest rank L that is at most (lag_L + span_L) / (lag_L + span_L - exposed_L[b]) <= its own
    bound span_L / (span_L - exposed_L[b]): the job bound never exceeds the slowest rank's.
    'communication_wait' uses exposed_r = min(wait_r, exposed communication_r): waiting cannot be
    removed without the late rank arriving earlier. warmup: any rank flags the step warm-up.
    """
    ranks = sorted(int(r) for r in steps["rank"].unique())
    cols = ["kind", "index", "ranks", "warmup", "start_ns", "span_ns", "slowest_rank", "slowest_span_ns",
            "start_spread_ns"]
    if len(ranks) < 2 or not len(steps):
        return pd.DataFrame(columns=cols)
    s = steps.copy()
    off = s["rank"].map(offsets).fillna(0).to_numpy(np.float64)
    s["sa"] = s["start_ns"].to_numpy(np.float64) - off
    s["ea"] = s["end_ns"].to_numpy(np.float64) - off
    x = {b: s[f"{b}_exposed_ns"].to_numpy(np.float64) for b in buckets}
    if wait is not None and len(wait) and "communication" in buckets:
        w = wait.groupby(["rank", "step"])["wait_ns"].sum()
        wi = pd.MultiIndex.from_arrays([s["rank"], s["index"]])
        x["communication_wait"] = np.minimum(w.reindex(wi, fill_value=0).to_numpy(np.float64), x["communication"])
    for b, v in x.items():
        s[f"_end_{b}"] = s["ea"].to_numpy() - v
    g = s.groupby(["kind", "index"], sort=True)
    agg = g.agg(ranks=("rank", "nunique"), warmup=("warmup", "any"), sa=("sa", "min"), ea=("ea", "max"),
                last_start=("sa", "max"))
    last = s.loc[g["ea"].idxmax().to_numpy()]
    agg["slowest_rank"] = last["rank"].to_numpy()
    agg["slowest_span_ns"] = last["span_ns"].to_numpy()
    ends = g[[f"_end_{b}" for b in x]].max()
    agg = agg[agg["ranks"] == len(ranks)]
    ends = ends.loc[agg.index]
    agg["start_ns"] = agg["sa"]
    agg["span_ns"] = agg["ea"] - agg["sa"]
    agg["start_spread_ns"] = agg["last_start"] - agg["sa"]
    for b in x:
        den = ends[f"_end_{b}"].to_numpy() - agg["sa"].to_numpy()
        agg[f"bound_{b}"] = np.where(den > 0, agg["span_ns"].to_numpy() / np.where(den > 0, den, 1), np.inf)
    out = agg.reset_index()
    return out[cols + [f"bound_{b}" for b in x]]


def job_summary(js: pd.DataFrame, kind: str, straggler: Straggler | None = None,
                clock_offsets_ns: dict[int, float] | None = None, clocks: Note | None = None) -> JobSummary | None:
    """The job's steps of one kind: steps, median/p90/mean span, slowest rank (ending last most
    often), its median span, start spread, bounds (median, p90 over steps); with the straggler and
    how the ranks' clocks were aligned."""
    k = js[js["kind"] == kind]
    if not len(k):
        return None
    ks = steady(k)
    span = ks["span_ns"].to_numpy(np.float64)
    bcols = [c for c in ks.columns if c.startswith("bound_")]
    slow = ks["slowest_rank"].value_counts()
    return JobSummary(
        steps=int(len(k)), summarized_steps=int(len(ks)), ranks=int(k["ranks"].iloc[0]),
        median_span_ns=float(np.median(span)), p90_span_ns=p90(span), mean_span_ns=float(span.mean()),
        slowest_rank=int(slow.index[0]), slowest_rank_share=float(slow.iloc[0] / len(ks)),
        median_slowest_span_ns=float(ks["slowest_span_ns"].median()),
        median_start_spread_ns=float(ks["start_spread_ns"].median()),
        speedup_bound_if_removed={c[6:]: float(np.median(ks[c])) for c in bcols},
        speedup_bound_if_removed_p90={c[6:]: p90(ks[c].to_numpy(np.float64)) for c in bcols},
        straggler=straggler, clock_offsets_ns=clock_offsets_ns or {}, clocks=clocks)


# --- interconnect what-if -----------------------------------------------------------------------

def fit(inst: pd.DataFrame, link: Link | None, transfer_basis: bool) -> dict[str, Fit]:
    """Per collective kind: time = latency + bus bytes / bus bandwidth, least squares over the size
    classes of steady in-step calls (bus bytes = bytes x busbw factor; time = the class's median
    transfer time, or with one rank's trace the 10th percentile of durations: the calls that waited
    least). With one size class the bytes are taken to move at the link's peak and the rest is
    latency (the least bandwidth-sensitive reading). Negative fits fall back the same way."""
    out: dict[str, Fit] = {}
    table = C.by_kind()
    s = inst[(inst["step_row"] >= 0) & (inst["bytes"] > 0)]
    if len(s) and (~s["warmup"]).any():
        s = s[~s["warmup"]]
    for coll, g in s.groupby("collective", sort=True):
        if coll not in table:
            continue
        n = int(np.median(g["group_size"]))
        factor = table[coll].busbw(n)
        b = g["bytes"].to_numpy(np.int64)
        t = g["transfer_ns"].to_numpy(np.float64) if transfer_basis else \
            (g["end_ns"] - g["start_ns"]).to_numpy(np.float64)
        cls = _size_classes(b)
        xs, ts, ns = [], [], []
        for c in np.unique(cls):
            sel = cls == c
            xs.append(float(np.median(b[sel])) * factor)
            ts.append(float(np.median(t[sel])) if transfer_basis else float(np.percentile(t[sel], 10)))
            ns.append(int(sel.sum()))
        x, y = np.array(xs), np.array(ts)
        method = note("fit.lsq")
        lat, bw = None, None
        if x.size >= 2 and np.ptp(x) > 0:
            slope, icpt = np.polyfit(x, y, 1, w=None)
            if slope > 0 and icpt >= 0:
                lat, bw = float(icpt), float(1.0 / slope)
        if lat is None:
            peak = link.peak_GBps if link is not None else None
            if peak:
                bw = float(peak)
                lat = float(max(np.min(y - x / bw), 0.0))
                method = note("fit.one_class") if x.size < 2 else note("fit.negative")
            else:
                bw = float(np.sum(x) / np.sum(y)) if np.sum(y) > 0 else None
                lat = 0.0
                method = note("fit.no_link")
        pred = lat + x / bw if bw else np.full_like(y, lat)
        out[coll] = Fit(latency_ns=lat, busbw_GBps=bw, group_size=n, method=method,
                        link_fraction=bw / link.peak_GBps if bw and link is not None and link.peak_GBps else None,
                        points=[FitPoint(bus_bytes=float(a), time_ns=float(tt), calls=c, fitted_ns=float(p))
                                for a, tt, c, p in zip(x, y, ns, pred)],
                        time_basis="transfer" if transfer_basis else "duration (10th percentile)")
    return out


def project(inst: pd.DataFrame, steps: pd.DataFrame, fits: dict[str, Fit], src: Link, dst: Link,
            offsets: dict[int, float], transfer_basis: bool) -> tuple[pd.DataFrame, dict[str, FitModel]]:
    """Each step on another link.

    Per collective kind: bus bandwidth scales with the links' peaks (the same fraction of peak is
    reached), latency moves by ring steps x (dst latency - src latency) (rules/collectives.toml
    ring_steps; unchanged when a latency is unknown). Per call: projected = latency' + bus bytes /
    busbw'; calls without bytes or without a fit keep their measured time. Per rank step: projected
    span = span + (projected - measured communication) x (exposed / total communication time of the
    step): the share of communication the step exposed is kept. Job: each rank's start kept, as in
    job_steps.
    Returns (per rank step: rank, index, kind, warmup, comm_ns, projected_comm_ns, span_ns,
    projected_span_ns; the per-kind-and-collective model used).
    """
    table = C.by_kind()
    used: dict[str, FitModel] = {}
    s = inst[inst["step_row"] >= 0].copy()
    t = s["transfer_ns"].to_numpy(np.float64) if transfer_basis else (s["end_ns"] - s["start_ns"]).to_numpy(np.float64)
    proj = t.copy()
    for coll, f in fits.items():
        if f.busbw_GBps is None:
            continue
        n = int(f.group_size)
        dlat = 0.0
        if src.latency_us is not None and dst.latency_us is not None:
            dlat = table[coll].steps(n) * (dst.latency_us - src.latency_us) * 1e3
        lat = max(f.latency_ns + dlat, 0.0)
        bw = f.busbw_GBps * dst.peak_GBps / src.peak_GBps
        used[coll] = FitModel(latency_ns=lat, busbw_GBps=bw)
        sel = (s["collective"].to_numpy() == coll) & (s["bytes"].to_numpy() > 0)
        proj[sel] = lat + s["bytes"].to_numpy(np.float64)[sel] * table[coll].busbw(n) / bw
    s["_t"], s["_p"] = t, proj
    per = s.groupby("step_row")[["_t", "_p"]].sum()
    st = steps.copy()
    st["comm_ns"] = per["_t"].reindex(range(len(st)), fill_value=0.0).to_numpy()
    st["projected_comm_ns"] = per["_p"].reindex(range(len(st)), fill_value=0.0).to_numpy()
    ct = st["communication_time_ns"].to_numpy(np.float64) if "communication_time_ns" in st else np.zeros(len(st))
    cx = st["communication_exposed_ns"].to_numpy(np.float64) if "communication_exposed_ns" in st else np.zeros(len(st))
    share = np.divide(cx, ct, out=np.zeros(len(st)), where=ct > 0)
    st["projected_span_ns"] = np.maximum(st["span_ns"].to_numpy(np.float64)
                                         + (st["projected_comm_ns"] - st["comm_ns"]).to_numpy() * share, 0.0)
    return st[["rank", "index", "kind", "warmup", "start_ns", "end_ns", "span_ns", "comm_ns", "projected_comm_ns",
               "projected_span_ns"]], used


def projection_summary(ps: pd.DataFrame, kind: str, offsets: dict[int, float]) -> Projection | None:
    """Per step kind: mean measured / projected communication per rank step, median span and
    projected span, speedup (median of span / projected span; < 1 means slower); with 2+ ranks the
    same for the job step (each rank's start kept)."""
    k = ps[ps["kind"] == kind]
    if not len(k):
        return None
    k = steady(k)
    sp = k["span_ns"].to_numpy(np.float64)
    pp = k["projected_span_ns"].to_numpy(np.float64)
    d = Projection(steps=int(len(k)), comm_ns=float(k["comm_ns"].mean()),
                   projected_comm_ns=float(k["projected_comm_ns"].mean()),
                   median_span_ns=float(np.median(sp)), projected_median_span_ns=float(np.median(pp)),
                   speedup=float(np.median(np.divide(sp, pp, out=np.full(len(sp), np.inf), where=pp > 0))))
    ranks = k["rank"].nunique()
    if ranks > 1:
        off = k["rank"].map(offsets).fillna(0).to_numpy(np.float64)
        sa = k["start_ns"].to_numpy(np.float64) - off
        j = k.assign(sa=sa, ea=k["end_ns"] - off, pe=sa + k["projected_span_ns"]).groupby("index").agg(
            n=("rank", "nunique"), sa=("sa", "min"), ea=("ea", "max"), pe=("pe", "max"))
        j = j[j["n"] == ranks]
        if len(j):  # each rank's start kept, as in job_steps
            span = (j["ea"] - j["sa"]).to_numpy(np.float64)
            pj = (j["pe"] - j["sa"]).to_numpy(np.float64)
            d.job = JobProjection(median_span_ns=float(np.median(span)), projected_median_span_ns=float(np.median(pj)),
                                  speedup=float(np.median(np.divide(span, pj, out=np.full(len(span), np.inf),
                                                                    where=pj > 0))))
    return d


# --- the whole analysis -------------------------------------------------------------------------

def analyze(kernels: pd.DataFrame, steps: pd.DataFrame, buckets: tuple[str, ...], meta: dict,
            link: Link | None = None, what_if_links: tuple[Link, ...] = (), model: Model | None = None) -> CommResult:
    """Bytes, bandwidth, wait/transfer, job figures and interconnect what-ifs for a report.

    kernels: the report's kernels (bucket, step row, comm_* columns); steps: the report's per-step
    table; link: the link to compare with (None: detected from the GPU names, see links.detect).
    """
    return analyze_instances(instances(kernels, steps, meta, model), steps, buckets, meta, link, what_if_links)


def analyze_instances(inst: pd.DataFrame, steps: pd.DataFrame, buckets: tuple[str, ...], meta: dict,
                      link: Link | None = None, what_if_links: tuple[Link, ...] = ()) -> CommResult:
    """`analyze` from the collective-instance table of every rank (INSTANCE_COLUMNS; `instances` of
    each rank concatenated, step_row pointing into `steps`): what a merge of per-rank results calls."""
    from . import links as L

    notes: list[Note] = []
    if link is None:
        link = L.detect(meta)
    one_clock = meta.get("format") in ("nsys", "traceattrib")  # (the export put its ranks on one clock)
    inst, offsets, mnotes = match(inst, one_clock)
    notes += mnotes
    ranks = sorted(int(r) for r in pd.unique(inst["rank"]))
    multi = len(sorted(int(r) for r in steps["rank"].unique())) > 1 if len(steps) else False
    transfer_basis = multi and len(inst) > 0 and bool(inst["matched"].mean() > 0.5)
    inst = inst.assign(**call_bandwidth(inst, link, transfer_basis))
    res = CommResult(instances=inst, step_collectives=step_collectives(inst), link=link, offsets_ns=offsets)
    # bandwidth per step kind over that kind's steady steps (the steps attribute.section uses)
    for kind in KINDS:
        rows = _steady_rows(steps, kind)
        if rows is None:
            continue
        sel = inst[np.isin(inst["step_row"].to_numpy(), rows)]
        if len(sel):
            res.by_kind[kind] = bandwidth(sel, len(rows), link, transfer_basis)
    # per rank: wait and transfer per step
    if multi:
        sc = res.step_collectives
        for r in ranks:  # ranks with collectives
            for kind in KINDS:
                rows = _steady_rows(steps[steps["rank"] == r], kind, steps)
                if rows is None:
                    continue
                idx = steps["index"].to_numpy()[rows]
                c = sc[(sc["rank"] == r) & np.isin(sc["step"].to_numpy(), idx)]
                nst = max(len(rows), 1)
                res.by_rank.setdefault(r, {})[kind] = RankComm(
                    comm_ns=float(c["comm_ns"].sum() / nst), comm_wait_ns=float(c["wait_ns"].sum() / nst),
                    comm_transfer_ns=float(c["transfer_ns"].sum() / nst),
                    comm_by_collective={coll: CollectiveComm(comm_ns=float(g["comm_ns"].sum() / nst),
                                                             wait_ns=float(g["wait_ns"].sum() / nst),
                                                             transfer_ns=float(g["transfer_ns"].sum() / nst))
                                        for coll, g in c.groupby("collective")})
        js = job_steps(steps, buckets, offsets, sc if transfer_basis else None)
        res.job_steps = js
        names = steps.groupby(["kind", "index"])["name"].nunique()
        differ = int((names.reindex(pd.MultiIndex.from_frame(js[["kind", "index"]])) > 1).sum()) if len(js) else 0
        if differ:
            notes.append(note("comm.job_names", counts=(differ,)))
        clocks = note("clocks.one" if one_clock else "clocks.aligned" if inst["matched"].any() else "clocks.own")
        offs = {int(r): float(offsets.get(r, 0.0)) for r in sorted(steps["rank"].unique())}
        for kind in KINDS:
            if not (js["kind"] == kind).any():
                continue
            d = job_summary(js, kind, straggler(_kind_calls(inst, kind)) if len(inst) else None, offs, clocks)
            if d is not None:
                res.job[kind] = d
    elif len(inst):
        notes.append(note("comm.one_rank"))
    if link is not None:
        res.fit = fit(inst, link, transfer_basis)
        for dst in what_if_links:
            ps, used = project(inst, steps, res.fit, link, dst, offsets, transfer_basis)
            projected = {kind: p for kind in KINDS if (p := projection_summary(ps, kind, offsets)) is not None}
            res.what_if[dst.name] = WhatIfLink(link=dst, from_link=link.name, model=used, by_kind=projected)
        if what_if_links and not transfer_basis and len(inst):
            notes.append(note("comm.what_if_one_rank"))
    elif what_if_links:
        notes.append(note("comm.what_if_no_link"))
    unknown = int((inst["bytes"] < 0).sum())
    if unknown:
        notes.append(note("comm.bytes_unknown", unknown, len(inst), unknown / len(inst), meta.get("format") == "nsys"))
    res.notes = notes
    return res


def _kind_calls(inst: pd.DataFrame, kind: str) -> pd.DataFrame:
    """The calls of one step kind whose matched call is in no rank's warm-up step (all of them when
    every step is warm-up), as the job figures count steps."""
    k = inst[inst["step_kind"] == kind]
    warm = k[k["warmup"] & (k["match"] >= 0)]["match"].unique()
    steady = k[~k["match"].isin(warm) & ~k["warmup"]]
    return steady if len(steady) else k


def _steady_rows(steps: pd.DataFrame, kind: str, full: pd.DataFrame | None = None) -> np.ndarray | None:
    """Row positions (into `full`, default `steps`) of the kind's steps that summaries use:
    warm-up steps left out unless all are warm-up. None when the kind has no steps."""
    k = steps[steps["kind"] == kind]
    if not len(k):
        return None
    pos = steady(k).index.to_numpy()
    base = full if full is not None else steps
    return base.index.get_indexer(pos)


def opportunities(res: CommResult, kind: str) -> list[Finding]:
    """Candidates for "what to fix first": "comm.wait", what the job could win if no rank waited in
    collectives (the late rank arriving on time); args: the rank that waits most, its wait per
    step, the kind, the straggler, the share of calls it arrives last in, the calls, how late."""
    j = res.job.get(kind)
    if not j or "communication_wait" not in j.speedup_bound_if_removed:
        return []
    st = j.straggler
    waits = {r: d[kind].comm_wait_ns for r, d in res.by_rank.items() if kind in d}
    if not st or not waits or max(waits.values()) <= 0:
        return []
    r_wait = max(waits, key=waits.get)
    return [Finding("comm.wait", j.speedup_bound_if_removed["communication_wait"],
                    (r_wait, waits[r_wait], kind, st.rank, st.last_share, st.calls, st.late_by_median_ns))]


def with_bandwidth(c: Collectives, bw: dict[str, CollectiveBandwidth] | None) -> Collectives:
    """A kind's collectives (attribute.collective_counts) with their bytes and bandwidth: a
    collective seen only by this module gets its bandwidth alone."""
    if not bw:
        return c
    out = dict(c.by_collective)
    for coll, b in bw.items():
        out[coll] = msgspec.structs.replace(out.get(coll, CollectiveSummary()), bandwidth=b)
    return msgspec.structs.replace(c, by_collective=out)


def step_table(colls: pd.DataFrame, res: CommResult) -> pd.DataFrame:
    """The per-step collectives (rank, step, collective, count, total_ns, mean_ns) with bytes
    (-1 unknown), wait_ns and transfer_ns."""
    sc = res.step_collectives
    if not (len(colls) and len(sc)):
        return colls
    c = colls.merge(sc[["rank", "step", "collective", "bytes", "wait_ns", "transfer_ns"]],
                    on=["rank", "step", "collective"], how="left")
    c["bytes"] = c["bytes"].fillna(-1).astype(np.int64)
    for col in ("wait_ns", "transfer_ns"):
        c[col] = c[col].fillna(0).astype(np.int64)
    return c


def summary_notes(res: CommResult, kind: str | None) -> list[Note]:
    """This module's notes for the report: its own, the straggler of the headline kind when one
    rank arrives last at most calls and another waits, and the link the figures compare with."""
    notes = list(res.notes)
    j = res.job.get(kind) if kind else None
    if j and j.straggler:
        st = j.straggler
        waits = {r: d[kind] for r, d in res.by_rank.items() if kind in d}
        w = max(waits, key=lambda r: waits[r].comm_wait_ns) if waits else None
        if st.last_share >= 0.5 and w is not None and waits[w].comm_wait_ns > 0:
            ww = waits[w]
            share = ww.comm_wait_ns / ww.comm_ns if ww.comm_ns else 0.0
            b = j.speedup_bound_if_removed
            notes.append(note("comm.straggler", st.rank, st.last_share, st.calls, kind, st.late_by_median_ns,
                              w, ww.comm_wait_ns, share, ww.comm_transfer_ns, b.get("communication", 1.0),
                              b.get("communication_wait", 1.0)))
    link = res.link
    if res.instances is not None and len(res.instances):
        notes.append(note("comm.link", link.label, link.peak_GBps, link.how) if link is not None and link.how != "--link"
                     else note("comm.link_given", link.label, link.peak_GBps) if link is not None
                     else note("comm.link_unknown"))
    return notes
