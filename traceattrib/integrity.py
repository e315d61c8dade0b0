"""Can a trace's numbers be trusted? Columnar checks of what the profiler recorded.

Per rank (`rank_checks`, from one rank's tables, its GPU-op table and its steps):
  stream_overlap  GPU ops that start before the op before them on their stream ended, beyond the
                  profiler's timestamp noise: records lost or misordered (kernels inside CUDA graphs
                  left out: a graph's branches run concurrently on its stream)
  durations       GPU ops of zero or negative duration (those the reader repaired included), longer
                  than any real op, or kernels orders of magnitude longer than the same kernel's
                  median (communication kernels left out: they wait for the other ranks)
  drops           rows the reader dropped as unplaceable, the profiler's own messages that records
                  were lost (nsys diagnostics, Kineto's WARNING/ERROR log lines and overhead events)
  unlaunched      GPU ops inside steps whose launch call is not in the trace
  lost_ops        kernel and graph launch calls within the steps that ran no GPU op (launches
                  recorded into a graph during stream capture left out)
Across ranks (`clock_check`, from the matched collectives of the merge): ranks' clocks that
cannot be put on one timeline.

Each check says ok, failed or skipped (nothing to check it on), how many records failed it of
how many it looked at, and which steps hold them. `section` composes the report's
`report.Integrity` and its notes. Limits and regexes: rules/integrity.toml. Times in ns.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

import numpy as np
import pandas as pd

from . import vocab
from .gpuops import in_graph
from .intervals import group_time_order, pack_keys, row_keys, running_max
from .model import Trace
from .notes import Note, note
from .report import AffectedStep, Integrity, IntegrityCheck
from .stats import group_medians

CHECKS = ("stream_overlap", "durations", "drops", "unlaunched", "lost_ops", "clocks")
OK, FAILED, SKIPPED = "ok", "failed", "skipped"
CHECK_COLUMNS = ["rank", "check", "status", "count", "checked", "detail"]
DETAIL_SEP = "\n"  # between the texts of a check's detail column
DETAIL_KEEP = 3  # profiler messages quoted per check


@dataclass(frozen=True)
class Limits:
    """rules/integrity.toml, compiled."""

    overlap_slack_ns: int
    duration_max_ns: int
    duration_ratio_max: float
    duration_min_calls: int
    launch_calls: re.Pattern
    capture_begin: re.Pattern
    capture_end: re.Pattern
    drop_messages: re.Pattern
    drop_unsure: re.Pattern
    clock_residual_max_ns: float


@cache
def limits() -> Limits:
    f = vocab.load("integrity", vocab.IntegrityFile)
    rx = lambda p: re.compile(p, re.IGNORECASE)  # noqa: E731
    return Limits(f.overlap_slack_ns, int(f.duration_max_s * 1e9), f.duration_ratio_max, f.duration_min_calls,
                  rx(f.launch_calls), rx(f.capture_begin), rx(f.capture_end), rx(f.drop_messages),
                  rx(f.drop_unsure), f.clock_residual_max_us * 1e3)


@dataclass
class RankChecks:
    """One rank's checks: `table` (CHECK_COLUMNS, one row per check but clocks) and, per row of its
    step table, the checks that failed on it, comma-joined ("" none): `flags`."""

    table: pd.DataFrame
    flags: np.ndarray


def rank_checks(trace: Trace, ops: pd.DataFrame, steps: pd.DataFrame, kernel_bucket, rank: int,
                lim: Limits | None = None) -> RankChecks:
    """Every per-rank check on one rank. ops: the GPU-op table with `step` (steps.Steps.ops);
    steps: the rank's step table (start_ns, end_ns); kernel_bucket: each kernel's bucket."""
    lim = lim or limits()
    n = len(steps)
    hit = np.zeros((n, len(CHECKS)), bool)
    rows = []
    step = ops["step"].to_numpy(np.int64) if "step" in ops else np.full(len(ops), -1, np.int64)

    def add(check: str, status: str, bad: np.ndarray | None, checked: int, count: int | None = None,
            detail: list[str] = (), every_step: bool = False) -> None:
        cnt = int(count if count is not None else (bad.sum() if bad is not None else 0))
        if status == OK and cnt:
            status = FAILED
        if status == FAILED:
            j = CHECKS.index(check)
            if every_step:
                hit[:, j] = True
            elif bad is not None:
                s = step[bad] if bad.dtype == bool else bad
                s = s[(s >= 0) & (s < n)]
                hit[s, j] = True
        rows.append((rank, check, status, cnt, int(checked), DETAIL_SEP.join(detail)))

    graph = in_graph(ops, trace.kernels)
    bad = stream_overlap(ops, graph, lim.overlap_slack_ns)
    add("stream_overlap", OK if (~graph).any() else SKIPPED, bad, int((~graph).sum()))
    bad = durations(ops, kernel_bucket, lim)
    repaired = int((trace.meta.get("integrity") or {}).get("negative_durations") or 0)
    add("durations", OK if len(ops) else SKIPPED, bad, len(ops), int(bad.sum()) + repaired,
        [f"{repaired} negative durations taken as 0 by the reader"] if repaired else [])
    count, checked, detail = drops(trace.meta, lim)
    add("drops", OK, None, checked, count, detail, every_step=True)
    if len(trace.launches):
        bad = unlaunched(ops) & (step >= 0)
        add("unlaunched", OK, bad, int((step >= 0).sum()))
        lost, launch_step, checked = lost_ops(trace.launches, ops, steps, lim)
        add("lost_ops", OK, launch_step[lost], checked, int(lost.sum()))
    else:
        add("unlaunched", SKIPPED, None, 0)
        add("lost_ops", SKIPPED, None, 0)
    return RankChecks(pd.DataFrame(rows, columns=CHECK_COLUMNS), _flag_texts(hit))


def _flag_texts(hit: np.ndarray) -> np.ndarray:
    """Per step (row of `hit`, steps x CHECKS), the names of its failed checks joined by commas
    ("" none): each distinct pattern of failures joined once, not once per step."""
    if not len(hit):
        return np.empty(0, object)
    pattern = hit.astype(np.int64) @ (1 << np.arange(hit.shape[1], dtype=np.int64))
    seen, at = np.unique(pattern, return_inverse=True)
    text = np.array([",".join(c for j, c in enumerate(CHECKS) if p >> j & 1) for p in seen.tolist()], dtype=object)
    return text[at.reshape(-1)]


def stream_overlap(ops: pd.DataFrame, skip: np.ndarray, slack_ns: int) -> np.ndarray:
    """Ops (not `skip`) that start more than slack_ns before an earlier op on their stream (same
    device and stream) ended."""
    out = np.zeros(len(ops), bool)
    every = not skip.any()  # no graph kernels: the columns as they are, not a copy of every row
    idx = None if every else np.flatnonzero(~skip)
    if (len(ops) if every else idx.size) < 2:
        return out
    def col(c: str) -> np.ndarray:
        v = ops[c].to_numpy(np.int64)
        return v if every else v[idx]
    s, e = col("start_ns"), col("end_ns")
    stream = row_keys([col("device"), col("stream")])
    order = group_time_order(stream, s, e)
    s, e, stream = s[order], e[order], stream[order]
    group = np.r_[0, np.cumsum(stream[1:] != stream[:-1])]
    prev_end = _earlier_max(e, group)  # the latest end among the earlier ops of the stream
    first = np.r_[True, group[1:] != group[:-1]]
    bad = ~first & (prev_end - s > slack_ns)
    out[order[bad] if every else idx[order[bad]]] = True
    return out


def _earlier_max(x: np.ndarray, group: np.ndarray) -> np.ndarray:
    """Per row, the largest x among the rows before it in its group (rows in group order; the
    first row of a group gets its own x, which the caller ignores)."""
    return np.r_[x[:1], running_max(x, group)[:-1]]


def durations(ops: pd.DataFrame, kernel_bucket, lim: Limits) -> np.ndarray:
    """Ops of zero or negative duration, longer than the limit, or (kernels outside communication)
    more than duration_ratio_max times the median of the same kernel."""
    if not len(ops):
        return np.zeros(0, bool)
    d = ops["end_ns"].to_numpy(np.int64) - ops["start_ns"].to_numpy(np.int64)
    bad = (d <= 0) | (d > lim.duration_max_ns)
    k = np.flatnonzero((ops["kind"] == "kernel").to_numpy())
    if k.size:
        comm = np.zeros(k.size, bool)
        if kernel_bucket is not None:
            cat = pd.Categorical(kernel_bucket)
            if "communication" in cat.categories:
                code = cat.categories.get_loc("communication")
                comm = np.asarray(cat.codes)[ops["src"].to_numpy()[k]] == code
        keep = k[~comm]
        dk = d[keep]
        if keep.size and _may_exceed(dk, lim.duration_ratio_max):
            med, cnt = _group_median(ops["name_code"].to_numpy(np.int64)[keep], dk)
            far = (cnt >= lim.duration_min_calls) & (med > 0) & (dk > lim.duration_ratio_max * med)
            bad[keep[far]] = True
    return bad


def _may_exceed(d: np.ndarray, ratio: float) -> bool:
    """Whether some duration in `d` (ns) could exceed `ratio` times a positive median of its kernel's.
    With no negative duration such a median is at least half the least positive one (the mean of two
    middle values, one of them positive), so without a duration above ratio times that, none does and
    the medians of every kernel name (a selection over a million rows) are not needed."""
    if (d < 0).any():  # (a median between a negative and a positive duration can be any small value)
        return True
    pos = d[d > 0]
    return bool(pos.size) and float(pos.max()) > ratio * float(pos.min()) / 2


def _group_median(group: np.ndarray, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per row: the median of int64 `x` over the rows of its group (float64, as pandas' median) and
    the group's row count (stats.group_medians, looked up per row)."""
    if not x.size:
        return np.empty(0), np.empty(0, np.int64)
    g, med, n, _, _ = group_medians(group, x)
    if g[-1] - g[0] <= 4 * group.size:  # name codes: a table over their range, no search per row
        table = np.zeros(int(g[-1] - g[0]) + 1, np.int64)
        table[g - g[0]] = np.arange(g.size)
        at = table[group - g[0]]
    else:
        at = np.searchsorted(g, group)
    return med[at], n[at]


def drops(meta: dict, lim: Limits) -> tuple[int, int, list[str]]:
    """(records the profiler or the reader lost, messages and events looked at, what was said):
    rows the reader dropped, profiler messages saying records were lost (not those saying they
    might have been), overhead events named for lost records, and the profiler's message table
    when it cannot be read (a damaged page: nothing shows that no records were lost)."""
    ev = meta.get("integrity") or {}
    rows = {str(k): int(v) for k, v in (ev.get("dropped_rows") or {}).items() if int(v) > 0}
    msgs = [str(m) for m in ev.get("profiler_messages") or []]
    said = [m for m in msgs if lim.drop_messages.search(m) and not lim.drop_unsure.search(m)]
    over = {str(k): int((v or {}).get("count", 0)) for k, v in (ev.get("overhead") or {}).items()}
    lost_events = {k: c for k, c in over.items() if lim.drop_messages.search(k)}
    unreadable = [str(u) for u in ev.get("unreadable") or []]
    detail = [f"{v} {k} rows dropped by the reader" for k, v in rows.items()] + said[:DETAIL_KEEP] + \
        [f"{c} '{k}' events" for k, c in lost_events.items()] + unreadable
    count = sum(rows.values()) + len(said) + sum(lost_events.values()) + len(unreadable)
    return count, len(msgs) + sum(over.values()) + sum(rows.values()), detail


def unlaunched(ops: pd.DataFrame) -> np.ndarray:
    """Ops whose launch call is not in the trace (a known correlation id; not launched before the
    trace's first call)."""
    if not len(ops):
        return np.zeros(0, bool)
    return (ops["launch_row"].to_numpy() < 0) & ~ops["before_trace"].to_numpy(bool) & \
        (ops["correlation"].to_numpy(np.int64) > 0)


def lost_ops(launches: pd.DataFrame, ops: pd.DataFrame, steps: pd.DataFrame,
             lim: Limits) -> tuple[np.ndarray, np.ndarray, int]:
    """(lost: per launch call, a kernel or graph launch that ran no GPU op; for a lost call, the
    step row it belongs to, -1 otherwise; calls looked at). Looked at: launch calls (not inside a stream capture on their
    thread) from the first step's start to the call of the last GPU op that ran."""
    n = len(launches)
    lost = np.zeros(n, bool)
    where = np.full(n, -1, np.int64)
    if not n or not len(ops) or not len(steps):
        return lost, where, 0
    cats = launches["name"].cat.categories
    codes = launches["name"].cat.codes.to_numpy()
    def per(rx) -> np.ndarray:
        hit = np.array([bool(rx.search(str(c))) for c in cats] + [False])
        return hit[codes] if hit.any() else np.zeros(n, bool)

    is_launch = per(lim.launch_calls)
    start = launches["start_ns"].to_numpy(np.int64)
    # up to the call of the last op that ran: the GPU runs work long after the call that queued it,
    # so calls after that one may belong to ops past the capture's end
    ran = ops["launch_start_ns"].to_numpy(np.int64)
    lo, hi = int(steps["start_ns"].min()), int(ran.max()) if (ran >= 0).any() else int(ops["start_ns"].max())
    look = is_launch & (start >= lo) & (start < hi) & (launches["correlation"].to_numpy(np.int64) > 0)
    begin = per(lim.capture_begin)
    if begin.any():
        look &= ~_captured(launches, begin, per(lim.capture_end))
    if not look.any():
        return lost, where, 0
    # a call some op names as its launch ran that op; only the others are looked up by key (the
    # same process and correlation id: a duplicate call of a launched one is not lost either)
    maybe = look.copy()
    if "launch_row" in ops.columns:
        row = ops["launch_row"].to_numpy(np.int64)
        maybe[row[row >= 0]] = False
    idx = np.flatnonzero(maybe)
    if idx.size:
        cols = ("pid", "correlation")
        lk, ok = pack_keys([launches[c].to_numpy(np.int64)[idx] for c in cols],
                           [ops[c].to_numpy(np.int64) for c in cols])
        lost[idx] = ~np.isin(lk, ok)
    # the step a lost call's work belongs to: the first step that had not ended when it was made
    idx = np.flatnonzero(lost)
    if idx.size:
        ends = steps["end_ns"].to_numpy(np.int64)
        order = np.argsort(ends, kind="stable")
        pos = np.searchsorted(ends[order], start[idx])
        where[idx] = np.where(pos < ends.size, order[np.minimum(pos, ends.size - 1)], -1)
    return lost, where, int(look.sum())


def _captured(launches: pd.DataFrame, begin: np.ndarray, end: np.ndarray) -> np.ndarray:
    """Calls made between a stream-capture begin and its end on the same thread."""
    out = np.zeros(len(launches), bool)
    if not begin.any():
        return out
    cols = [launches[c].to_numpy(np.int64) for c in ("pid", "tid")]
    thread = row_keys(cols)
    start = launches["start_ns"].to_numpy(np.int64)
    order = np.lexsort((start, thread))
    delta = np.where(begin, 1, np.where(end, -1, 0))[order]
    th = thread[order]
    depth = pd.Series(delta).groupby(th).cumsum().to_numpy()
    # inside: an open capture, counting the begin call itself but not the end call
    out[order] = (depth > 0) & ~begin[order]
    return out


# --- across ranks -------------------------------------------------------------------------------

def clock_check(instances: pd.DataFrame, steps: pd.DataFrame, one_clock: bool,
                lim: Limits | None = None) -> tuple[pd.DataFrame, np.ndarray]:
    """(the clocks row of CHECK_COLUMNS, bool per row of the report's step table: affected).

    Skipped with one clock (one nsys capture of every process), fewer than 2 ranks, or no
    collective on 2+ ranks. Failed when collectives ran on 2+ ranks but none matched across them
    (nothing to align the clocks on), or when, aligned, a matched collective's end spreads over
    its ranks by more than the limit (median over the matched calls; the calls beyond it are
    counted, their steps affected)."""
    lim = lim or limits()
    hit = np.zeros(len(steps), bool)
    ranks = sorted(int(r) for r in pd.unique(instances["rank"])) if len(instances) else []

    def row(status: str, count: int = 0, checked: int = 0, detail: str = "") -> pd.DataFrame:
        return pd.DataFrame([(-1, "clocks", status, int(count), int(checked), detail)], columns=CHECK_COLUMNS)

    if one_clock or len(ranks) < 2 or "end_aligned_ns" not in instances:
        return row(SKIPPED), hit
    # calls paired by order of issue in their group, on 2+ ranks (comm.match pairs them so; the
    # ones it then leaves unmatched because they do not overlap are what drifting clocks look like)
    key = instances.groupby(["group", "seq"], sort=False).ngroup().to_numpy()
    rank = instances["rank"].to_numpy()
    multi = pd.Series(rank).groupby(key).transform("nunique").to_numpy() >= 2
    step_row = instances["step_row"].to_numpy(np.int64)
    if not multi.any():
        s = step_row[step_row >= 0]
        hit[s[s < hit.size]] = True
        return row(FAILED, len(instances), len(instances), "no collective matched across ranks"), hit
    end = pd.Series(instances["end_aligned_ns"].to_numpy(np.float64)[multi]).groupby(key[multi])
    per_call = (end.max() - end.min()).to_numpy()
    spread = (end.transform("max") - end.transform("min")).to_numpy()
    median = float(np.median(per_call))
    status = FAILED if median > lim.clock_residual_max_ns else OK
    if status == FAILED:
        s = step_row[multi][spread > lim.clock_residual_max_ns]
        hit[s[(s >= 0) & (s < hit.size)]] = True
    return row(status, int((per_call > lim.clock_residual_max_ns).sum()) if status == FAILED else 0,
               per_call.size, f"median end spread {median / 1e3:.1f} us"), hit


# --- the report's section -------------------------------------------------------------------------

def with_flag(flags: np.ndarray, hit: np.ndarray, check: str) -> np.ndarray:
    """Step flags (comma-joined failed checks) with `check` added where `hit`."""
    out = np.asarray(flags, dtype=object).copy()
    for i in np.flatnonzero(hit):
        out[i] = f"{out[i]},{check}" if out[i] else check
    return out


def section(checks: pd.DataFrame, tab: pd.DataFrame) -> tuple[Integrity, list[Note]]:
    """The report's integrity section and a note per failed check, from every rank's checks (and
    the clocks row) and the step table's `integrity` column."""
    out, notes = [], []
    flags = tab["integrity"].astype(str).to_numpy() if "integrity" in tab and len(tab) else np.empty(0, object)
    # steps counted per distinct flag text (most steps share one, usually "")
    texts, per_text = np.unique(flags, return_counts=True) if flags.size else ([], [])
    for check in CHECKS:
        c = checks[checks["check"] == check]
        if not len(c):
            continue
        st = c["status"].astype(str).to_numpy()
        status = FAILED if (st == FAILED).any() else OK if (st == OK).any() else SKIPPED
        failed_ranks = sorted(int(r) for r in c.loc[st == FAILED, "rank"] if int(r) >= 0)
        detail = list(dict.fromkeys(x for d in c["detail"].astype(str) for x in d.split(DETAIL_SEP) if x))
        steps = int(sum(n for f, n in zip(texts, per_text) if check in f.split(",")))
        item = IntegrityCheck(check=check, status=status, count=int(c["count"].sum()),
                              checked=int(c["checked"].sum()), ranks=failed_ranks, steps=steps,
                              detail=detail[:DETAIL_KEEP * 3])
        out.append(item)
        if status == FAILED:
            notes.append(note(f"integrity.{check}", tuple(failed_ranks), tuple(item.detail),
                              counts=(item.count, item.checked, steps)))
    affected = [AffectedStep(rank=int(r), index=int(i), checks=f.split(","))
                for r, i, f in zip(tab["rank"].to_numpy(), tab["index"].to_numpy(), flags) if f] if len(flags) else []
    return Integrity(checks=out, affected_steps=affected, steps=len(tab),
                     trusted=not any(c.status == FAILED for c in out)), notes
