"""What the launching thread was doing: which of its API calls synchronize, and its state over
time (LAUNCH, SYNC, HOST, UNEXPLAINED) by one sorted sweep of its calls, launch-path torch ops and
recorded CPU work. Times are int64 ns."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..intervals import concat_ranges
from .codes import CALL, CALL_BLOCKING, CPU, HOST, LAUNCH, SYNC, UNEXPLAINED
from .rules import IdleRules
from .threads import Threads

# filter a thread's calls before the sweep only where that pays: many calls per window, most dropped
NEAR_MIN_CALLS_PER_WINDOW = 4
NEAR_MAX_KEEP = 0.8


def sync_calls(launches: pd.DataFrame, ops: pd.DataFrame, lrow: np.ndarray, rules: IdleRules) -> np.ndarray:
    """Code per launch row (int8): 0 not synchronizing, CALL synchronizing by name, CALL_BLOCKING an
    asynchronous copy call still running halfway through its copy (it waited for the copy)."""
    if not len(launches):
        return np.zeros(0, np.int8)
    cat = pd.Categorical(launches["name"])
    names = [str(n) for n in cat.categories]
    by_name = [i for i, n in enumerate(names) if any(p.search(n) for p in rules.sync_calls)]
    codes = cat.codes
    # a comparison per synchronizing name: a lookup by (int8) code would cast millions of codes
    out = np.where(np.isin(codes, by_name), np.int8(CALL), np.int8(0))
    is_copy = np.array([rules.memcpy_calls.search(n) is not None for n in names], bool)
    m = (ops["kind"] == "memop").to_numpy() & (lrow >= 0)
    if m.any():
        r = lrow[m]
        # the call returned only after half its copy had run on the GPU (a staged pageable copy
        # returns as its last chunk is submitted; a non-blocking one before the copy starts)
        s, e = ops["start_ns"].to_numpy(np.int64)[m], ops["end_ns"].to_numpy(np.int64)[m]
        blocking = launches["end_ns"].to_numpy(np.int64)[r] >= s + (e - s) // 2
        blocking &= is_copy[np.maximum(codes[r], 0)] & (codes[r] >= 0)
        r = r[blocking & (out[r] == 0)]
        out[r] = CALL_BLOCKING
    return out


def merged(s: np.ndarray, e: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The union of the intervals [s, e) as disjoint intervals, sorted (ns)."""
    if not s.size or ((s[1:] > e[:-1]).all() and (e >= s).all()):  # (disjoint and in order already: the gaps)
        return s, e
    o = np.argsort(s, kind="stable")
    s, e = s[o], np.maximum.accumulate(e[o])
    first = np.flatnonzero(np.r_[True, s[1:] > e[:-1]])
    return s[first], e[np.r_[first[1:] - 1, s.size - 1]]


def search_many(a: np.ndarray, v: np.ndarray, side: str = "left") -> np.ndarray:
    """np.searchsorted(a, v, side) (a sorted); when v is sorted and longer, by placing each value
    of a among v and counting: fewer binary searches."""
    if v.size <= a.size or (v[1:] < v[:-1]).any():
        return np.searchsorted(a, v, side)
    other = "right" if side == "left" else "left"
    return np.cumsum(np.bincount(np.searchsorted(v, a, other), minlength=v.size + 1))[:v.size]


def near_windows(cs: np.ndarray, ce: np.ndarray, qa: np.ndarray, qb: np.ndarray) -> np.ndarray | None:
    """The calls [cs, ce) (sorted by cs) a sweep over the windows [qa, qb) needs (None:
    all, when that is most): those touching a window, and around each merged window the call
    ending last before it and the one starting first after it (what bounds the stretch with no
    call). The rest of a thread's calls change nothing inside the windows."""
    if cs.size < NEAR_MIN_CALLS_PER_WINDOW * qa.size or not qa.size:
        return None
    us, ue = merged(qa, qb)
    # the calls starting in (ue[j-1], ue[j]] are those whose first union ending at or after their
    # start is j: they touch it when they end at or after its start (searching the few union
    # ends among the calls, not every call among the unions)
    p = np.searchsorted(cs, ue, "right")
    keep = np.zeros(cs.size, bool)
    keep[:p[-1]] = ce[:p[-1]] >= np.repeat(us, np.diff(p, prepend=0))
    if (ce[1:] >= ce[:-1]).all():  # calls that do not nest end in start order too
        before = np.searchsorted(ce, us, "right") - 1
    else:
        oe = np.argsort(ce, kind="stable")
        before = np.searchsorted(ce[oe], us, "right") - 1
        before = np.where(before >= 0, oe[np.maximum(before, 0)], -1)
    keep[before[before >= 0]] = True
    # the first call starting at or after each union's end: at p, or before it where calls start
    # exactly there
    after = p.copy()
    tie = np.flatnonzero((p > 0) & (cs[np.maximum(p - 1, 0)] == ue))
    after[tie] = np.searchsorted(cs, ue[tie], "left")
    keep[after[after < cs.size]] = True
    return keep if keep.sum() < NEAR_MAX_KEEP * cs.size else None


def sweep(cs, ce, sync, lps, lpe, acs, ace, lo: int, hi: int, gap_ns: int) -> tuple[np.ndarray, np.ndarray]:
    """One thread's state over time, by one sorted sweep of its call and launch-path op bounds.

    cs/ce: its API calls, sync: True for synchronizing calls; lps/lpe: its launch-path torch ops;
    acs/ace: its recorded CPU work outside its first..last call (disjoint); [lo, hi]: the range to
    cover. Returns the distinct points and the state (LAUNCH, SYNC, HOST, UNEXPLAINED) on each
    [pts[i], pts[i+1]).
    """
    m, a = lps.size, acs.size
    # event types: 0 call start, 1 sync call start, 2 call end, 3 sync call end, 4 op start,
    # 5 op end, 6 the range bounds, 7 activity start, 8 activity end
    sync = sync.astype(np.int8)
    kind = np.concatenate([sync, 2 + sync, np.full(m, 4, np.int8), np.full(m, 5, np.int8), [6, 6],
                           np.full(a, 7, np.int8), np.full(a, 8, np.int8)]).astype(np.int8)
    times = np.concatenate([cs, ce, lps, lpe, [lo, hi], acs, ace])
    o = np.argsort(times, kind="stable")
    t, kind = times[o], kind[o]  # the only two gathers; everything else runs in time order
    del times, o  # (each as long as the events: a sweep over 8M calls holds 16M)
    change = np.flatnonzero(t[1:] != t[:-1])  # the last event at each distinct time but the last
    pts = np.append(t[change], t[-1])
    # segments [pts[i], pts[i+1]) are read at the last event of pts[i], change[i]: there the
    # running sums hold every event at or before pts[i]
    # open calls and launch-path ops, sync calls, and activity on each segment: one running sum of
    # the three counts packed in 15-bit fields (each count stays >= 0 and far below 2^15 for
    # nested calls and ops, so the fields decode exactly)
    f = 15
    lut = np.array([1, 1 + (1 << f), -1, -1 - (1 << f), 1, -1, 0, 1 << 2 * f, -(1 << 2 * f)], np.int64)
    packed = lut[kind]
    packed = np.cumsum(packed, out=packed)[change]
    mask = (1 << f) - 1
    busy, in_sync, active = (packed & mask) > 0, (packed & (mask << f)) > 0, packed >= 1 << 2 * f
    lowest, highest = np.iinfo(np.int64).min, np.iinfo(np.int64).max
    # the end of the last call that ended at or before each point, the start of the first call
    # starting at or after the next point: the stretch with no call around a segment
    # (accumulated in place: one array as long as the events at a time, not two)
    ends = np.where((kind == 2) | (kind == 3), t, lowest)
    prev_end = np.maximum.accumulate(ends, out=ends)[change]
    starts = np.where(kind <= 1, t, highest)[::-1]
    next_start = np.minimum.accumulate(starts, out=starts)[::-1][change + 1]
    del ends, starts
    bounded = (prev_end > lowest) & (next_start < highest)
    short = next_start - prev_end < gap_ns  # (wraps where not bounded: not read there)
    state = np.where(bounded, np.where(short, LAUNCH, HOST), np.where(active, HOST, UNEXPLAINED))
    return pts, np.where(in_sync, SYNC, np.where(busy, LAUNCH, state)).astype(np.int64)


def activity(cos: np.ndarray, coe: np.ndarray, rs: np.ndarray, re_: np.ndarray, first_call: int,
             last_call_end: int, contains_step) -> tuple[np.ndarray, np.ndarray]:
    """Recorded CPU work of a thread ([cos, coe) its CPU ops, Python frames and OS calls, [rs,
    re_) its ranges) before its first or after its last API call, merged; not what
    `contains_step(s, e)` says contains a whole step. There the thread was busy on the host
    although no call brackets the time."""
    # int64 throughout: an empty list here would make float64 of epoch-ns times (-21 ns at 1.7e18)
    s = np.concatenate([cos, rs]).astype(np.int64)
    e = np.concatenate([coe, re_]).astype(np.int64)
    keep = np.flatnonzero((s < first_call) | (e > last_call_end))
    keep = keep[~contains_step(s[keep], e[keep])]
    return merged(s[keep], e[keep])


@dataclass
class ThreadState:
    """One thread's state over the points `pts` (state[i] on [pts[i], pts[i+1])), and the tables
    naming it reads: its calls the sweep used (launch rows, starts, ends, sync codes) and its CPU
    ops (rows, starts, ends, label source)."""

    pts: np.ndarray
    state: np.ndarray
    rank: int
    rows: np.ndarray
    cs: np.ndarray
    ce: np.ndarray
    sy: np.ndarray
    crow: np.ndarray
    cos: np.ndarray
    coe: np.ndarray
    src: np.ndarray


def thread_state(th: Threads, t: int, qa: np.ndarray, qb: np.ndarray, rules: IdleRules) -> ThreadState:
    """Thread t's state over a range covering the windows [qa, qb) (sorted by qa) and its calls."""
    rows, cs, ce, sy = th.calls(t)
    ss = cs  # all its call starts
    rank = th.rank(t)
    first_call, last_end = int(cs[0]), int(ce.max())
    near = near_windows(cs, ce, qa, qb)
    if near is not None:  # the sweep needs only the calls around the windows
        near = np.flatnonzero(near)
        rows, cs, ce, sy = rows[near], cs[near], ce[near], sy[near]
    # torch ops on this thread that make API calls: the launch path
    crow, cos, coe = th.cpu_rows(t)
    src = th.c_src[crow]
    j = np.minimum(search_many(ss, cos), ss.size - 1)  # the first call starting at or after
    lp = (src == CPU) & (ss[j] >= cos) & (ss[j] < coe)
    lps, lpe = merged(cos[lp], coe[lp])  # (only whether one is open matters)
    lo = min(int(qa.min()), int(cs.min()))
    hi = max(int(qb.max()), int(ce.max()))
    _, rs, re_ = th.range_rows(t)
    acs, ace = activity(cos, coe, rs, re_, first_call, last_end, lambda s, e: th.contains_step(rank, s, e))
    pts, state = sweep(cs, ce, sy > 0, lps, lpe, acs, ace, lo, hi, rules.launch_run_gap_ns)
    return ThreadState(pts, state, rank, rows, cs, ce, sy, crow, cos, coe, src)


def sync_unions(th: Threads, rows, cs, ce, sy):
    """A thread's synchronizing calls merged where they overlap: starts, ends and the packed label
    of the first call of each (the outer runtime call before a nested driver call)."""
    m = sy > 0
    s, e, codes = cs[m], ce[m], th.l_name.codes[rows[m]].astype(np.int64)
    src = np.where(sy[m] == CALL_BLOCKING, CALL_BLOCKING, CALL)
    o = np.lexsort((-e, s))
    s, e, codes, src = s[o], e[o], codes[o], src[o]
    run = np.maximum.accumulate(e) if e.size else e
    first = np.flatnonzero(np.r_[True, s[1:] >= run[:-1]]) if s.size else np.zeros(0, np.int64)
    ends = run[np.r_[first[1:] - 1, s.size - 1]] if s.size else e
    return s[first], ends, (src[first] << 40) | codes[first]


def sync_pieces(th: Threads, t: int, a: np.ndarray, b: np.ndarray):
    """Where the windows [a, b) (sorted by a) lie inside thread t's synchronizing calls:
    (window index, label, ns) per piece."""
    rows, cs, ce, sy = th.calls(t)
    if not (sy > 0).any() or not a.size:
        return np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0, np.int64)
    us, ue, lab = sync_unions(th, rows, cs, ce, sy)
    k0 = np.searchsorted(ue, a, "right")  # first union ending after a
    k1 = np.searchsorted(us, b, "left")   # unions starting before b
    n = np.maximum(k1 - k0, 0)
    qi = np.repeat(np.arange(a.size), n)
    kk = concat_ranges(k0, n)
    length = np.minimum(b[qi], ue[kk]) - np.maximum(a[qi], us[kk])
    keep = length > 0
    return qi[keep], lab[kk[keep]], length[keep]
