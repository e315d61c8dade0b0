"""Why the GPU was idle: every step's idle time split into causes, from what the CPU thread that
the GPU was waiting for did meanwhile.

The gaps of a step are the times inside its span (from the step's start, which may precede its first
op when the GPU waited for the host to begin it, to its last op's end) when none of its GPU ops
runs: the complement of the union attribute.py measures, so they sum to `idle_ns` exactly. Let N be the op that ends
a gap and [L, Le) the API call that launched it on thread T (the thread the GPU was waiting for):

  - Le <= gap start: N had been submitted before the GPU went idle; the GPU had work queued and
    did not start it (launch latency between queued ops, cross-stream dependencies): `launch`,
    also counted in `idle_launch_queued_ns` (CUDA graphs do not remove these bubbles);
  - otherwise the gap up to Le is split by what T was doing at each instant, and [Le, gap end)
    (launch latency) is `launch`:
      inside a synchronizing API call (stream/device/event synchronize, a copy call that waited
      for its copy, cudaFree)                      -> `sync`
      inside any other API call                                    -> `launch`
      inside a torch op that makes API calls (the launch path)     -> `launch`
      between two API calls less than `launch_run_gap` apart       -> `launch` (dispatching the next kernel)
      between two API calls further apart                          -> `host` (Python, scheduler, sampling)
      before T's first or after its last recorded call: `host` where a recorded CPU op, Python
      frame or range of T covers the time, else `unexplained`
  N without a launch call: T is the thread that launched most of the step's ops; a step none of
  whose ops has a launch call (kernel-only traces): `unexplained`.

Host and sync time is also named: host time by the innermost NVTX / record_function range, else
Python frame, else CPU op (torch) or OS-runtime call (nsys -t osrt) enclosing it on T, else the CPU
sample (nsys --sample) taken there (ranges and frames that contain a whole step are not names); sync time by the API call. Vocabulary and the
threshold live in rules/idle.toml. Times are int64 ns.
"""
from __future__ import annotations

import re
import tomllib
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from importlib import resources

import numpy as np
import pandas as pd

from .intervals import group_sums, pack_keys
from .notes import Note, note
from .report import IdleLabel, IdleSummary
from .stats import p90, ratio_bound

CAUSES = ("launch", "sync", "host", "unexplained")
LAUNCH, SYNC, HOST, UNEXPLAINED = range(4)
CAUSE_COLUMNS = tuple(f"idle_{c}_ns" for c in CAUSES)
QUEUED_COLUMN = "idle_launch_queued_ns"
LABEL_COLUMNS = ["rank", "step", "cause", "source", "what", "ns"]
TOP_LABELS = 8  # names kept per step and cause (the rest summed as OTHER)
UNNAMED = "(no annotation)"  # host time no range, frame or op encloses
OTHER = "(other)"

# label sources, in packed label codes (source << 40 | category code)
_SOURCES = ("none", "range", "python", "cpu_op", "osrt", "call", "call", "sample")
_NONE, _RANGE, _PY, _CPU, _OSRT, _CALL, _CALL_BLOCKING, _SAMPLE = range(8)
_INF = np.iinfo(np.int64).max


@dataclass(frozen=True)
class IdleRules:
    """rules/idle.toml, compiled."""

    launch_run_gap_ns: int
    sync_calls: tuple[re.Pattern, ...]
    memcpy_calls: re.Pattern
    skip_frames: tuple[re.Pattern, ...]


_RULES: IdleRules | None = None


def load_rules() -> IdleRules:
    """The packaged idle vocabulary (rules/idle.toml)."""
    global _RULES
    if _RULES is None:
        doc = tomllib.loads(resources.files("traceattrib").joinpath("rules", "idle.toml").read_text("utf-8"))
        _RULES = IdleRules(
            launch_run_gap_ns=int(round(float(doc["launch_run_gap_us"]) * 1000)),
            sync_calls=tuple(re.compile(p, re.I) for p in doc["sync_calls"]),
            memcpy_calls=re.compile(doc["memcpy_calls"], re.I),
            skip_frames=tuple(re.compile(p) for p in doc["skip_frames"]))
    return _RULES


@dataclass
class IdleCauses:
    """Idle causes per step.

    causes: one row per step, aligned with the steps table's rows: idle_launch_ns, idle_sync_ns,
            idle_host_ns, idle_unexplained_ns (summing to the step's idle_ns) and
            idle_launch_queued_ns (the part of launch with the next op already submitted).
    labels: what the CPU did during host and sync idle: rank, step (the step's index on its
            rank), cause ('host' | 'sync'), source ('range' | 'python' | 'cpu_op' | 'osrt' |
            'sample' | 'call' | 'none'), what (a name), ns; at most TOP_LABELS names per step and cause, the
            rest summed as '(other)'.
    """

    causes: pd.DataFrame
    labels: pd.DataFrame
    notes: list[Note] = field(default_factory=list)


def explain(ops: pd.DataFrame, table: pd.DataFrame, launches: pd.DataFrame, cpu_ops: pd.DataFrame,
            ranges: pd.DataFrame, rules: IdleRules | None = None) -> IdleCauses:
    """Split every step's idle time into causes.

    ops: steps.Steps.ops (start_ns, end_ns, rank, pid, correlation, kind, step); table: the
    steps table (rank, index, start_ns, cpu_start_ns, cpu_end_ns); launches, cpu_ops, ranges: the
    trace's tables (model.py).
    """
    rules = rules or load_rules()
    nsteps = len(table)
    sums = np.zeros((nsteps, len(CAUSES)), np.int64)
    queued = np.zeros(nsteps, np.int64)
    notes: list[Note] = []
    label_parts: list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = []
    step_all = ops["step"].to_numpy(np.int64) if len(ops) else np.zeros(0, np.int64)
    n_in_step = int(np.count_nonzero(step_all >= 0))
    if nsteps and n_in_step:
        # steps.gpu_ops made this join already; the same join for ops built elsewhere
        if "launch_row" in ops.columns:
            lrow = ops["launch_row"].to_numpy(np.int64)
        else:
            from .steps.ops import launch_rows  # (merging cached results needs no step finding)
            lrow = launch_rows(ops, launches)
        l_end = launches["end_ns"].to_numpy(np.int64)
        tcode, threads = _thread_codes(launches)
        sync = _sync_calls(launches, ops, lrow, rules)
        # gaps of every step: its ops sorted by (step, start, latest launch end first); ops in no
        # step (step -1) sort first
        s, e = ops["start_ns"].to_numpy(np.int64), ops["end_ns"].to_numpy(np.int64)
        le = np.where(lrow >= 0, l_end[np.maximum(lrow, 0)] if l_end.size else 0, _INF)
        if n_in_step < len(ops) or not _in_gap_order(step_all, s, le):
            o = np.lexsort((-le, s, step_all))[len(ops) - n_in_step:]
            step, s, e, lr, le = step_all[o], s[o], e[o], lrow[o], le[o]
        else:  # (steps.gpu_ops sorts ops by start: no sort and no copies)
            step, lr = step_all, lrow
        head = np.r_[True, step[1:] != step[:-1]]
        run_end = _group_cummax(e, head)
        prev = np.r_[np.int64(-1), run_end[:-1]]
        # a step's span may open before its first op (the GPU waited for the host to start it):
        # that leading gap ends at the first op too
        prev[head] = np.minimum(table["start_ns"].to_numpy(np.int64)[step[head]], s[head])
        # the gaps [prev, s) before the ops with s > prev; next op already submitted when the gap
        # began: a GPU-side bubble
        gap = s > prev
        q = gap & (lr >= 0) & (le <= prev)
        h = np.flatnonzero(head)  # (rows in step order: a step's sum is one reduceat run)
        queued[step[h]] = np.add.reduceat(np.where(q, s - prev, 0), h)
        sums[:, LAUNCH] += queued
        # otherwise: what T did until the launch call ended, then launch latency: `sync` while T
        # sits in a synchronizing call (a runtime may hold submitted work back until then: HIP's
        # hipMemcpyWithStream), else `launch`
        r = np.flatnonzero(gap & ~q)
        wa, wb, g1r, wstep, g_lr = prev[r], np.minimum(s[r], le[r]), s[r], step[r], lr[r]
        thr = np.full(r.size, -1, np.int64)
        has = g_lr >= 0
        thr[has] = tcode[g_lr[has]]
        if not has.all():  # no launch call: the step's main thread
            thr[~has] = _main_thread(step, lr, tcode, nsteps)[wstep[~has]]
        none = thr < 0
        _add(sums, wstep[none], UNEXPLAINED, wb[none] - wa[none])
        _add(sums, wstep, LAUNCH, g1r - wb)  # latency; its sync part is moved below
        ctx = _Context(launches, cpu_ops, ranges, table, tcode, threads, sync, rules)
        for t in np.flatnonzero(np.bincount(thr[~none])):
            sel = np.flatnonzero(thr == t)
            sel = sel[np.argsort(wa[sel], kind="stable")]  # sorted searches run faster
            parts = [_pieces(ctx, int(t), wa[sel], wb[sel])]
            qi, label, length = ctx.sync_pieces(int(t), wb[sel], g1r[sel])
            _add(sums, wstep[sel][qi], LAUNCH, -length)
            parts.append((qi, np.full(qi.size, SYNC), label, length))
            for qi, cause, label, length in parts:
                st_ = wstep[sel][qi]
                _add(sums, st_, cause, length)
                lab = (cause == HOST) | (cause == SYNC)
                label_parts.append((st_[lab], cause[lab], label[lab], length[lab]))
        labels = _labels(label_parts, table, ctx)
    else:
        labels = pd.DataFrame(columns=LABEL_COLUMNS)
    causes = pd.DataFrame({c: sums[:, i] for i, c in enumerate(CAUSE_COLUMNS)})
    causes[QUEUED_COLUMN] = queued
    if nsteps and n_in_step:
        notes = explain_notes(causes, labels, bool(len(launches)))
    return IdleCauses(causes=causes, labels=labels, notes=notes)


def _pieces(ctx: _Context, t: int, qa: np.ndarray, qb: np.ndarray):
    """ctx.pieces over the windows (sorted by qa), their two halves in two threads when there are
    at least 2 * HALF_WINDOWS: each half's sweep takes the calls around its own windows only, as
    `_near_windows` does for all of them, so the pieces are the same (0.35 -> 0.28 s on 1M kernels)."""
    n = qa.size
    if n < 2 * HALF_WINDOWS:
        return ctx.pieces(t, qa, qb)
    ctx.calls(t)  # cached before the threads read it
    k = n // 2
    with ThreadPoolExecutor(1, thread_name_prefix="traceattrib-idle-half") as pool:
        later = pool.submit(ctx.pieces, t, qa[k:], qb[k:])
        first = ctx.pieces(t, qa[:k], qb[:k])
        second = later.result()
    return (np.concatenate([first[0], second[0] + k]),
            *(np.concatenate([a, b]) for a, b in zip(first[1:], second[1:])))


def explain_notes(causes: pd.DataFrame, labels: pd.DataFrame | None, has_launches: bool) -> list[Note]:
    """What to know about the idle split, from its totals: causes holds CAUSE_COLUMNS per step (the
    steps table does), labels as IdleCauses.labels. A function of sums, so that a merge of per-rank
    results (traceattrib.analysis.merge) says what one pass over every rank would."""
    notes: list[Note] = []
    sums = causes[list(CAUSE_COLUMNS)].to_numpy(np.int64)
    if not has_launches:
        notes.append(note("idle.kernel_only"))
    elif sums[:, UNEXPLAINED].sum() > 0.05 * max(sums.sum(), 1):
        notes.append(note("idle.unexplained", sums[:, UNEXPLAINED].sum() / sums.sum()))
    host = sums[:, HOST].sum()
    unnamed = int(labels.loc[(labels["cause"] == "host") & (labels["what"] == UNNAMED), "ns"].sum()) \
        if labels is not None and len(labels) else 0
    if host > 0.05 * max(sums.sum(), 1) and unnamed > host / 2:
        notes.append(note("idle.unnamed_host", unnamed / host))
    return notes


def _in_gap_order(step: np.ndarray, s: np.ndarray, le: np.ndarray) -> bool:
    """Whether rows are in the order of np.lexsort((-le, s, step)) already (a stable sort: rows
    with equal keys stay as they are)."""
    same_step, same_s = step[1:] == step[:-1], s[1:] == s[:-1]
    return bool(((step[1:] > step[:-1]) | (same_step & ((s[1:] > s[:-1]) | (same_s & (le[1:] <= le[:-1]))))).all())


def _group_cummax(x: np.ndarray, head: np.ndarray) -> np.ndarray:
    """Running max of x within groups of consecutive rows, each starting where head is True."""
    run = np.maximum.accumulate(x) if x.size else x
    h = np.flatnonzero(head)[1:]
    # where every group's first value reaches all values before it (steps that follow each other
    # in time), the running max over all rows is the one within each group
    if (x[h] >= run[h - 1]).all():
        return run
    return pd.Series(x).groupby(np.cumsum(head)).cummax().to_numpy(np.int64)


def _add(sums: np.ndarray, step: np.ndarray, cause, ns: np.ndarray) -> None:
    """sums[step, cause] += ns, repeated (step, cause) pairs summed."""
    sums += group_sums(step * sums.shape[1] + cause, ns, sums.size).reshape(sums.shape)


# --- joins and thread identities ---------------------------------------------------------------

def _thread_codes(launches: pd.DataFrame) -> tuple[np.ndarray, pd.DataFrame]:
    """A code per launch row for its (rank, pid, tid), and the distinct threads (rank, pid, tid),
    one row per code."""
    cols = [launches[c].to_numpy() for c in ("rank", "pid", "tid")]
    if len(launches) and all(c.min() == c.max() for c in cols):  # one launching thread (the usual case)
        codes, first = np.zeros(len(launches), np.int64), np.zeros(1, np.int64)
    else:
        cols = [np.asarray(c, np.int64) for c in cols]
        key, _ = pack_keys(cols, [c[:0] for c in cols])
        codes = pd.factorize(key)[0].astype(np.int64)
        # codes number threads in order of appearance: a thread's first row is the first code
        # above all codes before it
        first = np.flatnonzero(codes > np.maximum.accumulate(np.r_[np.int64(-1), codes[:-1]]))
    threads = pd.DataFrame({c: v[first].astype(np.int64) for c, v in zip(("rank", "pid", "tid"), cols)})
    return codes, threads


def _main_thread(step: np.ndarray, lr: np.ndarray, tcode: np.ndarray, nsteps: int) -> np.ndarray:
    """Per step, the thread that launched most of its ops (-1: none has a launch call); ties go to
    the lower thread code."""
    out = np.full(nsteps, -1, np.int64)
    m = lr >= 0
    if not m.any():
        return out
    st, t = step[m], tcode[lr[m]]
    nt = int(t.max()) + 1
    if nsteps * nt <= 4 * st.size + (1 << 20):  # a dense (step, thread) count table fits
        n = np.bincount(st * nt + t, minlength=nsteps * nt).reshape(nsteps, nt)
        has = n.any(axis=1)
        out[has] = n[has].argmax(axis=1)  # the first maximum: the lowest code
        return out
    key, n = np.unique(st * nt + t, return_counts=True)
    o = np.lexsort((key % nt, -n, key // nt))
    key = key[o]
    head = np.r_[True, key[1:] // nt != key[:-1] // nt]
    out[key[head] // nt] = key[head] % nt
    return out


def _sync_calls(launches: pd.DataFrame, ops: pd.DataFrame, lrow: np.ndarray, rules: IdleRules) -> np.ndarray:
    """Code per launch row (int8): 0 not synchronizing, _CALL synchronizing by name, _CALL_BLOCKING an
    asynchronous copy call still running halfway through its copy (it waited for the copy)."""
    if not len(launches):
        return np.zeros(0, np.int8)
    cat = pd.Categorical(launches["name"])
    names = [str(n) for n in cat.categories]
    by_name = [i for i, n in enumerate(names) if any(p.search(n) for p in rules.sync_calls)]
    codes = cat.codes
    # a comparison per synchronizing name: a lookup by (int8) code would cast millions of codes
    out = np.where(np.isin(codes, by_name), np.int8(_CALL), np.int8(0))
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
        out[r] = _CALL_BLOCKING
    return out


# --- one launching thread: its CPU state over time, and names ------------------------------------

class _Context:
    """The CPU-side tables, grouped so each thread's calls, ops and ranges are found at once."""

    def __init__(self, launches, cpu_ops, ranges, table, tcode, threads, sync, rules: IdleRules):
        self.rules = rules
        self.l_start = launches["start_ns"].to_numpy(np.int64)
        self.l_end = launches["end_ns"].to_numpy(np.int64)
        self.l_name = pd.Categorical(launches["name"])
        self.sync = sync
        if len(threads) == 1:
            self.l_by_thread = [np.arange(tcode.size)]
        else:
            order = np.argsort(tcode, kind="stable")
            self.l_by_thread = np.split(order, np.flatnonzero(np.diff(tcode[order])) + 1) if order.size else []
        self._calls: dict[int, tuple[np.ndarray, ...]] = {}
        self.threads = threads
        self.table = table
        self.cpu_ops = cpu_ops
        self.ranges = ranges
        self.c_thread = self._rows_thread(cpu_ops)
        self.r_thread = self._rows_thread(ranges)
        self.c_name = pd.Categorical(cpu_ops["name"]) if len(cpu_ops) else pd.Categorical([])
        self.r_name = pd.Categorical(ranges["name"]) if len(ranges) else pd.Categorical([])
        # label source per cpu_ops row: Python frame, OS-runtime call or (torch) CPU op
        kinds = pd.Categorical(cpu_ops["kind"]) if len(cpu_ops) else pd.Categorical([])
        by_cat = np.array([{"python_function": _PY, "osrt": _OSRT, "sample": _SAMPLE}.get(str(k), _CPU) for k in kinds.categories] + [_CPU],
                          np.int64)
        self.c_src = by_cat[kinds.codes]  # code -1 (missing kind) reads the last entry: a CPU op
        skip = np.zeros(len(self.c_name.categories), bool)
        cats = pd.Series(self.c_name.categories.astype(str))
        for p in rules.skip_frames:
            skip |= cats.str.contains(p).to_numpy(bool)
        self.c_skip = skip

    def _rows_thread(self, tab: pd.DataFrame) -> np.ndarray:
        """Thread code of each row of `tab` (-1: a thread that made no API call)."""
        out = np.full(len(tab), -1, np.int64)
        if not len(tab) or not len(self.threads):
            return out
        cols = ("rank", "pid", "tid")
        tk, rk = pack_keys([self.threads[c].to_numpy(np.int64) for c in cols], [tab[c].to_numpy(np.int64) for c in cols])
        if tk.size == 1:  # one launching thread
            return np.where(rk == tk[0], 0, -1)
        order = np.argsort(tk)
        pos = np.minimum(np.searchsorted(tk[order], rk), tk.size - 1)
        return np.where(tk[order][pos] == rk, order[pos], -1)

    def _steps_of_rank(self, rank: int) -> tuple[np.ndarray, np.ndarray]:
        t = self.table[self.table["rank"].to_numpy() == rank]
        s = t["cpu_start_ns"].to_numpy(np.int64)
        e = t["cpu_end_ns"].to_numpy(np.int64)
        o = np.argsort(s, kind="stable")
        s, e = s[o], e[o]
        # smallest end among steps starting at or after each position
        suffix_min = np.minimum.accumulate(e[::-1])[::-1] if e.size else e
        return s, suffix_min

    def calls(self, t: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Thread t's API calls sorted by start (ties in row order): launch rows, starts, ends and
        sync codes (ns)."""
        if t not in self._calls:
            rows = self.l_by_thread[t]
            if rows.size == self.l_start.size:  # the only thread: all rows, in order (no gathers)
                cs, ce, sy = self.l_start, self.l_end, self.sync
            else:
                cs, ce, sy = self.l_start[rows], self.l_end[rows], self.sync[rows]
            if (cs[1:] < cs[:-1]).any():  # launches are usually sorted by start already
                o = np.argsort(cs, kind="stable")
                rows, cs, ce, sy = rows[o], cs[o], ce[o], sy[o]
            self._calls[t] = rows, cs, ce, sy
        return self._calls[t]

    def pieces(self, t: int, qa: np.ndarray, qb: np.ndarray):
        """Split the windows [qa, qb) by thread t's state: (window index, cause, label, ns) per piece."""
        rules = self.rules
        rows, cs, ce, sy = self.calls(t)
        ss = cs  # all its call starts
        rank = int(self.threads["rank"].iloc[t])
        first_call, last_end = int(cs[0]), int(ce.max())
        near = _near_windows(cs, ce, qa, qb)
        if near is not None:  # the sweep needs only the calls around the windows
            near = np.flatnonzero(near)
            rows, cs, ce, sy = rows[near], cs[near], ce[near], sy[near]
        # torch ops on this thread that make API calls: the launch path
        crow = np.flatnonzero(self.c_thread == t)
        cos, coe = (self.cpu_ops["start_ns"].to_numpy(np.int64)[crow], self.cpu_ops["end_ns"].to_numpy(np.int64)[crow])
        src = self.c_src[crow]
        j = np.minimum(_search_many(ss, cos), ss.size - 1)  # the first call starting at or after
        lp = (src == _CPU) & (ss[j] >= cos) & (ss[j] < coe)
        lps, lpe = _merged(cos[lp], coe[lp])  # (only whether one is open matters)
        lo = min(int(qa.min()), int(cs.min()))
        hi = max(int(qb.max()), int(ce.max()))
        acs, ace = self._activity(t, rank, crow, cos, coe, first_call, last_end)
        pts1, state1 = _sweep(cs, ce, sy > 0, lps, lpe, acs, ace, lo, hi, rules.launch_run_gap_ns)
        # names: candidates on this thread that overlap host time
        host = state1 == HOST
        hs, he = pts1[:-1][host], pts1[1:][host]
        cand = self._candidates(t, rank, crow, cos, coe, src, hs, he)
        pts, state = pts1, state1
        if cand[0].size:  # cut the segments where candidates start or end
            extra = np.concatenate([cand[0], cand[1]])
            allp = np.concatenate([pts1, extra[(extra > pts1[0]) & (extra < pts1[-1])]])
            o = np.argsort(allp, kind="stable")  # a point of pts1 first among equal points
            seg = np.cumsum(o < pts1.size) - 1  # the segment of pts1 holding each point
            allp = allp[o]
            new = np.r_[True, allp[1:] != allp[:-1]]
            pts, state = allp[new], state1[seg[new][:-1]]
        left = pts[:-1]
        label = np.full(left.size, _NONE << 40, np.int64)
        h = state == HOST
        if h.any() and cand[0].size:
            label[h] = _innermost_by_class(left[h], *cand)
        sm = state == SYNC
        if sm.any():
            label[sm] = self._sync_label(rows, cs, ce, sy, left[sm])
        # the windows cut by the segments
        k0 = np.searchsorted(pts, qa, "right") - 1
        k1 = np.searchsorted(pts, qb, "left")
        n = np.maximum(k1 - k0, 0)
        qi = np.repeat(np.arange(qa.size), n)
        at = np.cumsum(n) - n  # each window's first piece
        kk = np.arange(qi.size) + np.repeat(k0 - at, n)
        # segments inside a window are whole: only its first starts at qa and its last ends at qb
        a, z = pts[kk], pts[1:][kk]
        w = np.flatnonzero(n)
        a[at[w]], z[at[w] + n[w] - 1] = qa[w], qb[w]
        return qi, state[kk], label[kk], z - a

    def _contains_step(self, rank: int, s: np.ndarray, e: np.ndarray) -> np.ndarray:
        """Which intervals [s, e) contain a whole step window of the rank (the loop, the step
        itself): they say nothing about what the thread did at one instant."""
        step_s, step_min_end = self._steps_of_rank(rank)
        if not step_s.size:
            return np.zeros(s.size, bool)
        j = np.searchsorted(step_s, s, "left")
        return (j < step_s.size) & (step_min_end[np.minimum(j, step_s.size - 1)] <= e)

    def _activity(self, t, rank, crow, cos, coe, first_call: int, last_call_end: int):
        """Recorded CPU work of thread t before its first or after its last API call (CPU ops,
        Python frames, OS calls, ranges; not those containing a whole step), merged: there the
        thread was busy on the host although no call brackets the time."""
        rrow = np.flatnonzero(self.r_thread == t)
        # int64 throughout: an empty list here would make float64 of epoch-ns times (-21 ns at 1.7e18)
        s = np.concatenate([cos, self.ranges["start_ns"].to_numpy(np.int64)[rrow]]).astype(np.int64)
        e = np.concatenate([coe, self.ranges["end_ns"].to_numpy(np.int64)[rrow]]).astype(np.int64)
        keep = np.flatnonzero((s < first_call) | (e > last_call_end))
        keep = keep[~self._contains_step(rank, s[keep], e[keep])]
        return _merged(s[keep], e[keep])

    def _candidates(self, t, rank, crow, cos, coe, src, hs, he):
        """Name candidates on thread t overlapping host segments [hs, he): starts, ends, depth,
        class (0 range, 1 Python frame, 2 CPU op / OS call, 3 Python frame of skip_frames, 4 CPU sample) and
        packed label code."""
        if not hs.size:
            return (np.zeros(0, np.int64),) * 5

        def on_host(s, e):  # which of the intervals [s, e) overlap host time
            k = _search_many(he, s, "right")
            return np.flatnonzero((k < he.size) & (hs[np.minimum(k, hs.size - 1)] < e))

        parts = []
        if crow.size:
            codes = self.c_name.codes[crow].astype(np.int64)
            i = on_host(cos, coe)
            i = i[codes[i] >= 0]
            codes, src = codes[i], src[i]
            py = src == _PY
            skip = py & self.c_skip[codes]
            # skipped frames, then CPU samples (nsys --sample): names of last resort
            cls = np.where(skip, 3, np.where(py, 1, np.where(src == _SAMPLE, 4, 2)))
            parts.append((cos[i], coe[i], self.cpu_ops["depth"].to_numpy(np.int64)[crow[i]], cls, (src << 40) | codes))
        rrow = np.flatnonzero(self.r_thread == t)
        if rrow.size:
            r = self.ranges
            rs, re_ = r["start_ns"].to_numpy(np.int64)[rrow], r["end_ns"].to_numpy(np.int64)[rrow]
            i = on_host(rs, re_)
            rrow = rrow[i]
            codes = self.r_name.codes[rrow].astype(np.int64)
            parts.append((rs[i], re_[i], r["depth"].to_numpy(np.int64)[rrow], np.zeros(rrow.size, np.int64),
                          (np.int64(_RANGE) << 40) | codes))
        if not parts:
            return (np.zeros(0, np.int64),) * 5
        s, e, d, c, code = (np.concatenate(x) for x in zip(*parts))
        keep = ~self._contains_step(rank, s, e)  # (not those containing a whole step)
        return s[keep], e[keep], d[keep], c[keep], code[keep]

    def _sync_unions(self, rows, cs, ce, sy):
        """The thread's synchronizing calls merged where they overlap: starts, ends and the
        label of the first call of each (the outer runtime call before a nested driver call)."""
        m = sy > 0
        s, e, codes = cs[m], ce[m], self.l_name.codes[rows[m]].astype(np.int64)
        src = np.where(sy[m] == _CALL_BLOCKING, _CALL_BLOCKING, _CALL)
        o = np.lexsort((-e, s))
        s, e, codes, src = s[o], e[o], codes[o], src[o]
        run = np.maximum.accumulate(e) if e.size else e
        first = np.flatnonzero(np.r_[True, s[1:] >= run[:-1]]) if s.size else np.zeros(0, np.int64)
        ends = run[np.r_[first[1:] - 1, s.size - 1]] if s.size else e
        return s[first], ends, (src[first] << 40) | codes[first]

    def _sync_label(self, rows, cs, ce, sy, x):
        us, _, lab = self._sync_unions(rows, cs, ce, sy)
        return lab[np.maximum(np.searchsorted(us, x, "right") - 1, 0)]

    def sync_pieces(self, t: int, a: np.ndarray, b: np.ndarray):
        """Where the windows [a, b) (sorted by a) lie inside thread t's synchronizing calls:
        (window index, label, ns) per piece."""
        rows, cs, ce, sy = self.calls(t)
        if not (sy > 0).any() or not a.size:
            return np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0, np.int64)
        us, ue, lab = self._sync_unions(rows, cs, ce, sy)
        k0 = np.searchsorted(ue, a, "right")  # first union ending after a
        k1 = np.searchsorted(us, b, "left")   # unions starting before b
        n = np.maximum(k1 - k0, 0)
        qi = np.repeat(np.arange(a.size), n)
        kk = k0[qi] + (np.arange(qi.size) - np.repeat(np.cumsum(n) - n, n))
        length = np.minimum(b[qi], ue[kk]) - np.maximum(a[qi], us[kk])
        keep = length > 0
        return qi[keep], lab[kk[keep]], length[keep]

    def label_text(self, packed: np.ndarray) -> tuple[list[str], list[str]]:
        src = packed >> 40
        code = packed & ((1 << 40) - 1)
        what, source = [], []
        for s, c in zip(src.tolist(), code.tolist()):
            if s == _RANGE:
                w = str(self.r_name.categories[c])
            elif s in (_PY, _CPU, _OSRT, _SAMPLE):
                # builtins carry the object's address: "<built-in method record of Event object at 0x7f..>"
                w = re.sub(r" at 0x[0-9a-fA-F]+>$", ">", str(self.c_name.categories[c]))
            elif s in (_CALL, _CALL_BLOCKING):
                w = re.sub(r"_v\d+$", "", str(self.l_name.categories[c]))
                if s == _CALL_BLOCKING:
                    w += " (blocking copy)"
            else:
                w = UNNAMED
            what.append(w)
            source.append(_SOURCES[s])
        return what, source


# filter a thread's calls before the sweep only where that pays: many calls per window, most dropped
NEAR_MIN_CALLS_PER_WINDOW = 4
NEAR_MAX_KEEP = 0.8
# a thread with at least twice this many gap windows has them swept in two halves by two threads
# (`_pieces`; below that the second thread costs more than it saves)
HALF_WINDOWS = 1 << 15


def _merged(s: np.ndarray, e: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The union of the intervals [s, e) as disjoint intervals, sorted (ns)."""
    if not s.size or ((s[1:] > e[:-1]).all() and (e >= s).all()):  # (disjoint and in order already: the gaps)
        return s, e
    o = np.argsort(s, kind="stable")
    s, e = s[o], np.maximum.accumulate(e[o])
    first = np.flatnonzero(np.r_[True, s[1:] > e[:-1]])
    return s[first], e[np.r_[first[1:] - 1, s.size - 1]]


def _search_many(a: np.ndarray, v: np.ndarray, side: str = "left") -> np.ndarray:
    """np.searchsorted(a, v, side) (a sorted); when v is sorted and longer, by placing each value
    of a among v and counting: fewer binary searches."""
    if v.size <= a.size or (v[1:] < v[:-1]).any():
        return np.searchsorted(a, v, side)
    other = "right" if side == "left" else "left"
    return np.cumsum(np.bincount(np.searchsorted(v, a, other), minlength=v.size + 1))[:v.size]


def _near_windows(cs: np.ndarray, ce: np.ndarray, qa: np.ndarray, qb: np.ndarray) -> np.ndarray | None:
    """The calls [cs, ce) (sorted by cs) a sweep over the windows [qa, qb) needs (None:
    all, when that is most): those touching a window, and around each merged window the call
    ending last before it and the one starting first after it (what bounds the stretch with no
    call). The rest of a thread's calls change nothing inside the windows."""
    if cs.size < NEAR_MIN_CALLS_PER_WINDOW * qa.size or not qa.size:
        return None
    us, ue = _merged(qa, qb)
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


def _sweep(cs, ce, sync, lps, lpe, acs, ace, lo: int, hi: int, gap_ns: int) -> tuple[np.ndarray, np.ndarray]:
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
    change = np.flatnonzero(t[1:] != t[:-1])  # the last event at each distinct time but the last
    pts = np.append(t[change], t[-1])
    # segments [pts[i], pts[i+1]) are read at the last event of pts[i], change[i]: there the
    # running sums hold every event at or before pts[i]
    # open calls and launch-path ops, sync calls, and activity on each segment: one running sum of
    # the three counts packed in 15-bit fields (each count stays >= 0 and far below 2^15 for
    # nested calls and ops, so the fields decode exactly)
    f = 15
    lut = np.array([1, 1 + (1 << f), -1, -1 - (1 << f), 1, -1, 0, 1 << 2 * f, -(1 << 2 * f)], np.int64)
    packed = np.cumsum(lut[kind])[change]
    mask = (1 << f) - 1
    busy, in_sync, active = (packed & mask) > 0, (packed & (mask << f)) > 0, packed >= 1 << 2 * f
    lowest, highest = np.iinfo(np.int64).min, np.iinfo(np.int64).max
    # the end of the last call that ended at or before each point, the start of the first call
    # starting at or after the next point: the stretch with no call around a segment
    prev_end = np.maximum.accumulate(np.where((kind == 2) | (kind == 3), t, lowest))[change]
    next_start = np.minimum.accumulate(np.where(kind <= 1, t, highest)[::-1])[::-1][change + 1]
    bounded = (prev_end > lowest) & (next_start < highest)
    short = next_start - prev_end < gap_ns  # (wraps where not bounded: not read there)
    state = np.where(bounded, np.where(short, LAUNCH, HOST), np.where(active, HOST, UNEXPLAINED))
    return pts, np.where(in_sync, SYNC, np.where(busy, LAUNCH, state)).astype(np.int64)


def _innermost_by_class(x, s, e, depth, cls, code) -> np.ndarray:
    """Packed label of the innermost candidate covering each point, classes in priority order
    (ranges, Python frames, CPU ops, then Python frames of skip_frames); intervals at one nesting
    depth are disjoint, so one sorted search per depth level finds the candidate there."""
    out = np.full(x.size, _NONE << 40, np.int64)
    todo = np.ones(x.size, bool)
    for c in (0, 1, 2, 3, 4):
        mc = cls == c
        if not mc.any() or not todo.any():
            continue
        best = np.full(x.size, -1, np.int64)
        for d in np.unique(depth[mc]):
            m = mc & (depth == d)
            o = np.argsort(s[m], kind="stable")
            sd, ed, cd = s[m][o], e[m][o], code[m][o]
            k = np.searchsorted(sd, x, "right") - 1
            hit = (k >= 0) & (ed[np.maximum(k, 0)] > x)
            best = np.where(hit, cd[np.maximum(k, 0)], best)
        got = todo & (best >= 0)
        out[got] = best[got]
        todo &= ~got
    return out


def _labels(parts, table: pd.DataFrame, ctx: _Context) -> pd.DataFrame:
    """Per step and cause, the time by name: the TOP_LABELS largest, the rest as '(other)'."""
    if not parts:
        return pd.DataFrame(columns=LABEL_COLUMNS)
    step, cause, label, ns = (np.concatenate(x) for x in zip(*parts))
    keep = ns > 0
    if not keep.any():
        return pd.DataFrame(columns=LABEL_COLUMNS)
    # (a few hundred rows: numpy, not a pandas groupby, which costs more than the work)
    row, cause, label, ns = step[keep], cause[keep], label[keep], ns[keep]
    o = np.lexsort((label, cause, row))
    row, cause, label, ns = row[o], cause[o], label[o], ns[o]
    first = np.flatnonzero(np.r_[True, (row[1:] != row[:-1]) | (cause[1:] != cause[:-1]) | (label[1:] != label[:-1])])
    row, cause, label, ns = row[first], cause[first], label[first], np.add.reduceat(ns, first)
    # per step and cause, the largest first (ties by label)
    o = np.lexsort((label, -ns, cause, row))
    row, cause, label, ns = row[o], cause[o], label[o], ns[o]
    head = np.flatnonzero(np.r_[True, (row[1:] != row[:-1]) | (cause[1:] != cause[:-1])])
    pos = np.arange(row.size) - np.repeat(head, np.diff(np.r_[head, row.size]))
    top = pos < TOP_LABELS
    what, source = ctx.label_text(label[top])
    rest = np.flatnonzero(pos == TOP_LABELS)  # the first of each rest, the rest following in order
    rest_ns = np.add.reduceat(ns[~top], np.flatnonzero(pos[~top] == TOP_LABELS)) if rest.size else ns[:0]
    rows = np.r_[row[top], row[rest]]
    return pd.DataFrame({"rank": table["rank"].to_numpy()[rows], "step": table["index"].to_numpy()[rows]
                         if "index" in table else rows,
                         "cause": np.asarray(CAUSES, dtype=object)[np.r_[cause[top], cause[rest]]],
                         "source": np.array(source + ["none"] * rest.size, dtype=object),
                         "what": np.array(what + [OTHER] * rest.size, dtype=object),
                         "ns": np.r_[ns[top], rest_ns]})[LABEL_COLUMNS]


# --- summaries -----------------------------------------------------------------------------------

def has_causes(steps: pd.DataFrame) -> bool:
    return all(c in steps.columns for c in CAUSE_COLUMNS)


def section(k: pd.DataFrame, labels: pd.DataFrame | None) -> IdleSummary:
    """Idle causes over a kind's summarized steps (the rows of the steps table `k`): shares of
    the span (ratio of sums), mean per step, the no-idle bound and one bound per cause (median and
    p90 of per-step bounds), and what the CPU did in host and sync idle."""
    span = k["span_ns"].to_numpy(np.float64)
    busy = k["busy_ns"].to_numpy(np.float64)
    tot = span.sum()
    per: dict[str, dict[str, float]] = {key: {} for key in (
        "idle_causes_share", "mean_idle_causes_ns", "median_idle_causes_ns", "speedup_bound_if_no_idle_cause",
        "speedup_bound_if_no_idle_cause_p90")}
    no_idle = ratio_bound(span, busy)
    for c, col in zip(CAUSES, CAUSE_COLUMNS):
        x = k[col].to_numpy(np.float64)
        per["idle_causes_share"][c] = float(x.sum() / tot) if tot else 0.0
        per["mean_idle_causes_ns"][c] = float(x.mean()) if len(k) else 0.0
        per["median_idle_causes_ns"][c] = float(np.median(x)) if len(k) else 0.0
        b = ratio_bound(span, span - x)
        per["speedup_bound_if_no_idle_cause"][c] = float(np.median(b)) if len(k) else float("nan")
        per["speedup_bound_if_no_idle_cause_p90"][c] = p90(b)
    qx = k[QUEUED_COLUMN].to_numpy(np.float64) if QUEUED_COLUMN in k else np.zeros(len(k))
    return IdleSummary(
        **per, speedup_bound_if_no_idle=float(np.median(no_idle)) if len(k) else float("nan"),
        speedup_bound_if_no_idle_p90=p90(no_idle), idle_launch_queued_share=float(qx.sum() / tot) if tot else 0.0,
        mean_idle_launch_queued_ns=float(qx.mean()) if len(k) else 0.0,
        top_host_gaps=_top(k, labels, "host"), top_sync_calls=_top(k, labels, "sync"))


def _top(k: pd.DataFrame, labels: pd.DataFrame | None, cause: str, n: int = 5) -> list[IdleLabel]:
    """What the CPU did in the kind's `cause` idle time: name, source, mean ns per step, share of
    that cause's idle time."""
    if labels is None or not len(labels) or not len(k):
        return []
    lab = labels[labels["cause"] == cause]
    lab = lab.merge(k[["rank", "index"]].rename(columns={"index": "step"}), on=["rank", "step"])
    if not len(lab):
        return []
    total = float(k[f"idle_{cause}_ns"].sum())
    g = lab.groupby(["what", "source"], sort=False)["ns"].sum().reset_index()
    g = g.sort_values(["ns", "what"], ascending=[False, True], kind="stable").head(n)
    return [IdleLabel(what=str(r.what), source=str(r.source), mean_ns=float(r.ns / len(k)),
                      share=float(r.ns / total) if total else 0.0) for r in g.itertuples()]
