"""Naming host and sync time: host time by the innermost NVTX / record_function range, else
Python frame, else CPU op (torch) or OS-runtime call (nsys -t osrt) enclosing it on the thread,
else the CPU sample (nsys --sample) taken there (ranges and frames that contain a whole step are
not names); sync time by the API call. Names are packed label codes (codes.py) until the top
names per step and cause are written out as text."""
from __future__ import annotations

import re

import numpy as np
import pandas as pd

from .codes import (
    CALL,
    CALL_BLOCKING,
    CAUSES,
    CPU,
    HOST,
    LABEL_COLUMNS,
    NONE,
    OSRT,
    OTHER,
    PY,
    RANGE,
    SAMPLE,
    SOURCES,
    SYNC,
    TOP_LABELS,
    UNNAMED,
)
from .sweep import ThreadState, search_many, sync_unions
from .threads import Threads


def name_segments(th: Threads, t: int, ts: ThreadState) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Thread t's state segments cut where name candidates start or end, each with its packed
    label (NONE for launch and unexplained time): (points, state, label) per segment."""
    host = ts.state == HOST
    hs, he = ts.pts[:-1][host], ts.pts[1:][host]
    cand = candidates(th, t, ts, hs, he)
    pts, state = ts.pts, ts.state
    if cand[0].size:  # cut the segments where candidates start or end
        extra = np.concatenate([cand[0], cand[1]])
        allp = np.concatenate([ts.pts, extra[(extra > ts.pts[0]) & (extra < ts.pts[-1])]])
        o = np.argsort(allp, kind="stable")  # a point of ts.pts first among equal points
        seg = np.cumsum(o < ts.pts.size) - 1  # the segment of ts.pts holding each point
        allp = allp[o]
        new = np.r_[True, allp[1:] != allp[:-1]]
        pts, state = allp[new], ts.state[seg[new][:-1]]
    left = pts[:-1]
    label = np.full(left.size, NONE << 40, np.int64)
    h = state == HOST
    if h.any() and cand[0].size:
        label[h] = innermost_by_class(left[h], *cand)
    sm = state == SYNC
    if sm.any():
        us, _, lab = sync_unions(th, ts.rows, ts.cs, ts.ce, ts.sy)
        label[sm] = lab[np.maximum(np.searchsorted(us, left[sm], "right") - 1, 0)]
    return pts, state, label


def candidates(th: Threads, t: int, ts: ThreadState, hs: np.ndarray, he: np.ndarray):
    """Name candidates on thread t overlapping host segments [hs, he): starts, ends, depth,
    class (0 range, 1 Python frame, 2 CPU op / OS call, 3 Python frame of skip_frames, 4 CPU sample) and
    packed label code."""
    if not hs.size:
        return (np.zeros(0, np.int64),) * 5

    def on_host(s, e):  # which of the intervals [s, e) overlap host time
        k = search_many(he, s, "right")
        return np.flatnonzero((k < he.size) & (hs[np.minimum(k, hs.size - 1)] < e))

    parts = []
    crow, cos, coe = ts.crow, ts.cos, ts.coe
    if crow.size:
        codes = th.c_name.codes[crow].astype(np.int64)
        i = on_host(cos, coe)
        i = i[codes[i] >= 0]
        codes, src = codes[i], ts.src[i]
        py = src == PY
        skip = py & th.c_skip[codes]
        # skipped frames, then CPU samples (nsys --sample): names of last resort
        cls = np.where(skip, 3, np.where(py, 1, np.where(src == SAMPLE, 4, 2)))
        parts.append((cos[i], coe[i], th.cpu_ops["depth"].to_numpy(np.int64)[crow[i]], cls, (src << 40) | codes))
    rrow, rs, re_ = th.range_rows(t)
    if rrow.size:
        i = on_host(rs, re_)
        rrow = rrow[i]
        codes = th.r_name.codes[rrow].astype(np.int64)
        parts.append((rs[i], re_[i], th.ranges["depth"].to_numpy(np.int64)[rrow], np.zeros(rrow.size, np.int64),
                      (np.int64(RANGE) << 40) | codes))
    if not parts:
        return (np.zeros(0, np.int64),) * 5
    s, e, d, c, code = (np.concatenate(x) for x in zip(*parts))
    keep = ~th.contains_step(ts.rank, s, e)  # (not those containing a whole step)
    return s[keep], e[keep], d[keep], c[keep], code[keep]


def innermost_by_class(x, s, e, depth, cls, code) -> np.ndarray:
    """Packed label of the innermost candidate covering each point, classes in priority order
    (ranges, Python frames, CPU ops, then Python frames of skip_frames); intervals at one nesting
    depth are disjoint, so one sorted search per depth level finds the candidate there."""
    out = np.full(x.size, NONE << 40, np.int64)
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


def label_text(th: Threads, packed: np.ndarray) -> tuple[list[str], list[str]]:
    """The name and source of each packed label code."""
    src = packed >> 40
    code = packed & ((1 << 40) - 1)
    what, source = [], []
    for s, c in zip(src.tolist(), code.tolist()):
        if s == RANGE:
            w = str(th.r_name.categories[c])
        elif s in (PY, CPU, OSRT, SAMPLE):
            # builtins carry the object's address: "<built-in method record of Event object at 0x7f..>"
            w = re.sub(r" at 0x[0-9a-fA-F]+>$", ">", str(th.c_name.categories[c]))
        elif s in (CALL, CALL_BLOCKING):
            w = re.sub(r"_v\d+$", "", str(th.l_name.categories[c]))
            if s == CALL_BLOCKING:
                w += " (blocking copy)"
        else:
            w = UNNAMED
        what.append(w)
        source.append(SOURCES[s])
    return what, source


def table(parts, steps: pd.DataFrame, th: Threads) -> pd.DataFrame:
    """Per step and cause, the time by name: the TOP_LABELS largest, the rest as '(other)'.
    parts: (step row, cause, packed label, ns) arrays; steps: the steps table (rank, index)."""
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
    what, source = label_text(th, label[top])
    rest = np.flatnonzero(pos == TOP_LABELS)  # the first of each rest, the rest following in order
    rest_ns = np.add.reduceat(ns[~top], np.flatnonzero(pos[~top] == TOP_LABELS)) if rest.size else ns[:0]
    rows = np.r_[row[top], row[rest]]
    return pd.DataFrame({"rank": steps["rank"].to_numpy()[rows], "step": steps["index"].to_numpy()[rows]
                         if "index" in steps else rows,
                         "cause": np.asarray(CAUSES, dtype=object)[np.r_[cause[top], cause[rest]]],
                         "source": np.array(source + ["none"] * rest.size, dtype=object),
                         "what": np.array(what + [OTHER] * rest.size, dtype=object),
                         "ns": np.r_[ns[top], rest_ns]})[LABEL_COLUMNS]
