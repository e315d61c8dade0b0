"""The CPU-side tables grouped by launching thread: a code per (rank, pid, tid) that made API
calls, each thread's calls in time order, which CPU ops and ranges are on it, and the step windows
of its rank. Times are int64 ns."""
from __future__ import annotations

import numpy as np
import pandas as pd

from ..intervals import pack_keys, row_keys
from .codes import CPU, OSRT, PY, SAMPLE
from .rules import IdleRules


def thread_codes(launches: pd.DataFrame) -> tuple[np.ndarray, pd.DataFrame]:
    """A code per launch row for its (rank, pid, tid), and the distinct threads (rank, pid, tid),
    one row per code."""
    cols = [launches[c].to_numpy() for c in ("rank", "pid", "tid")]
    if len(launches) and all(c.min() == c.max() for c in cols):  # one launching thread (the usual case)
        codes, first = np.zeros(len(launches), np.int64), np.zeros(1, np.int64)
    else:
        cols = [np.asarray(c, np.int64) for c in cols]
        key = row_keys(cols)
        codes = pd.factorize(key)[0].astype(np.int64)
        # codes number threads in order of appearance: a thread's first row is the first code
        # above all codes before it
        first = np.flatnonzero(codes > np.maximum.accumulate(np.r_[np.int64(-1), codes[:-1]]))
    threads = pd.DataFrame({c: v[first].astype(np.int64) for c, v in zip(("rank", "pid", "tid"), cols)})
    return codes, threads


class Threads:
    """The CPU-side tables, grouped so each thread's calls, ops and ranges are found at once.

    sync: per launch row, 0 or the label source of a synchronizing call (sweep.sync_calls)."""

    def __init__(self, launches, cpu_ops, ranges, table, tcode, threads, sync, rules: IdleRules):
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
        by_cat = np.array([{"python_function": PY, "osrt": OSRT, "sample": SAMPLE}.get(str(k), CPU)
                           for k in kinds.categories] + [CPU], np.int64)
        self.c_src = by_cat[kinds.codes]  # code -1 (missing kind) reads the last entry: a CPU op
        skip = np.zeros(len(self.c_name.categories), bool)
        cats = pd.Series(self.c_name.categories.astype(str))
        for p in rules.skip_frames:
            skip |= cats.str.contains(p).to_numpy(bool)
        self.c_skip = skip  # per CPU-op name: a Python frame of rules/idle.toml's skip_frames

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

    def rank(self, t: int) -> int:
        return int(self.threads["rank"].iloc[t])

    def calls(self, t: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Thread t's API calls sorted by start (ties in row order): launch rows, starts, ends and
        sync codes (ns). Made once per thread: call it for every thread before reading from two
        threads at once."""
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

    def cpu_rows(self, t: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Thread t's cpu_ops rows with their starts and ends (ns)."""
        crow = np.flatnonzero(self.c_thread == t)
        return crow, self.cpu_ops["start_ns"].to_numpy(np.int64)[crow], self.cpu_ops["end_ns"].to_numpy(np.int64)[crow]

    def range_rows(self, t: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Thread t's ranges rows with their starts and ends (ns)."""
        rrow = np.flatnonzero(self.r_thread == t)
        return rrow, self.ranges["start_ns"].to_numpy(np.int64)[rrow], self.ranges["end_ns"].to_numpy(np.int64)[rrow]

    def _steps_of_rank(self, rank: int) -> tuple[np.ndarray, np.ndarray]:
        t = self.table[self.table["rank"].to_numpy() == rank]
        s = t["cpu_start_ns"].to_numpy(np.int64)
        e = t["cpu_end_ns"].to_numpy(np.int64)
        o = np.argsort(s, kind="stable")
        s, e = s[o], e[o]
        # smallest end among steps starting at or after each position
        suffix_min = np.minimum.accumulate(e[::-1])[::-1] if e.size else e
        return s, suffix_min

    def contains_step(self, rank: int, s: np.ndarray, e: np.ndarray) -> np.ndarray:
        """Which intervals [s, e) contain a whole step window of the rank (the loop, the step
        itself): they say nothing about what the thread did at one instant."""
        step_s, step_min_end = self._steps_of_rank(rank)
        if not step_s.size:
            return np.zeros(s.size, bool)
        j = np.searchsorted(step_s, s, "left")
        return (j < step_s.size) & (step_min_end[np.minimum(j, step_s.size - 1)] <= e)
