"""A report as a Chrome trace-event file: the JSON that Perfetto (ui.perfetto.dev, or a
self-hosted copy), chrome://tracing and Speedscope open.

One process per rank (pid rank + 1), on the clocks the communication analysis aligned the ranks
to (CommResult.offsets_ns subtracted), with these tracks (threads):

  steps           one slice per step, named as the step; args: the JSON report's step (kind,
                  span, busy, idle, exposed time and bound per bucket, idle causes, ...); beside
                  it counters "exposed (ms) <bucket>", "overlapped (ms)", "idle (ms) <cause>"
                  set at each step's start
  GPU idle        one slice per idle gap (idle.IdleCauses.gaps), named by its largest cause and
                  what the CPU was doing; args: its ns per cause, queued, what and where the
                  name came from
  collectives     one slice per collective call (comm instances): bytes, bus bandwidth, wait and
                  transfer; flow arrows join the same call on every rank; beneath, a track with
                  its wait and its transfer side by side
  GPU d stream s  one slice per GPU op, category its bucket; args: bucket, rule, step, layer,
                  module, and what the reader needs to read the file back (ingest/exported.py)

What the importers need, and this writer does: `ts` is the first key of every event (Perfetto
reads the keys before it with a parser that takes no \\u escapes and no arrays); ts and dur are
in us with three decimals (ns exact), counted from the first event (otherData says from when:
browsers lose ns on epoch-sized numbers); pid and tid are positive integers and tids are unique
in the file (Perfetto names threads by tid alone); slices of one track nest or follow each
other (Perfetto drops partial overlaps): overlapping slices of a track go to extra lanes,
"GPU 0 stream 7 (2)"; no displayTimeUnit (Perfetto has read it as the unit of ts); otherData is
the only key before traceEvents (an unknown top-level key ends Perfetto's import there), and it
holds the marker ingest/exported.py recognises the file by.

The renderer reads the report and its per-op tables (Report.kernels / memops / graphs / gaps,
comm.instances) and computes nothing the analyses did not: slices are laid out, not measured.
Events are formatted column by column with pyarrow compute and written CHUNK at a time (gzip
when the path ends in .gz): no Python object per op, and the file is never held whole.
"""
from __future__ import annotations

import gzip
import json
import os
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from .. import __version__, idle
from ..analysis import Report
from ..intervals import running_max
from ..layers import NO_STEP
from .jsonout import step_list, trace_info
from .text import IDLE_LABEL as IDLE_WORDS

MARKER = "traceattrib_export"  # otherData key that says the file is ours (and how to read it back)
VERSION = 1
CHUNK = 1 << 16  # events formatted at a time
MAX_LANES = 16  # lanes per track; what still overlaps after them stays in the last (said in the counts)
TID_BASE = 100_000  # tid = pid * TID_BASE + track number: unique over the file
STEPS, IDLE, COLLECTIVES, PARTS = "steps", "GPU idle", "collectives", "collective wait / transfer"


@dataclass
class Tracks:
    """Processes and tracks: pid per rank, tid per (rank, track name), in order of creation."""

    pids: dict[int, int] = field(default_factory=dict)
    tids: dict[tuple[int, str], int] = field(default_factory=dict)
    names: list[tuple[int, int, str]] = field(default_factory=list)  # (pid, tid, name) in sort order

    def pid(self, rank: int) -> int:
        if rank not in self.pids:
            self.pids[rank] = len(self.pids) + 1 if rank < 0 else rank + 1
        return self.pids[rank]

    def tid(self, rank: int, name: str) -> int:
        key = (rank, name)
        if key not in self.tids:
            pid = self.pid(rank)
            n = sum(1 for r, _ in self.tids if r == rank) + 1
            if n >= TID_BASE:
                raise ValueError(f"more than {TID_BASE - 1} tracks on rank {rank}")
            self.tids[key] = pid * TID_BASE + n
            self.names.append((pid, self.tids[key], name))
        return self.tids[key]


@dataclass
class Counts:
    """Events written per kind, and slices that overlap in their track's last lane."""

    events: dict[str, int] = field(default_factory=dict)
    overlapping: int = 0

    def add(self, kind: str, n: int) -> None:
        self.events[kind] = self.events.get(kind, 0) + int(n)


def write(rep: Report, path: str) -> Counts:
    """Write the report's trace-event file to `path` (gzip when it ends in .gz). The report must
    hold the per-op tables (analysis.analyze(trace)); ValueError otherwise."""
    if rep.kernels is None or rep.memops is None or rep.gaps is None:
        raise ValueError("the trace-event export needs the per-op tables of analysis.analyze(trace)")
    shift = {int(r): int(round(v)) for r, v in (rep.comm.offsets_ns.items() if rep.comm is not None else ())}
    origin = _origin(rep, shift)
    tracks = Tracks()
    for r in sorted(set(int(x) for x in rep.steps["rank"]) | _op_ranks(rep)):
        tracks.pid(r)
        tracks.tid(r, STEPS)
    counts = Counts()
    other = {MARKER: {"format": "traceattrib-trace-events", "version": VERSION, "traceattrib": __version__,
                      "origin_ns": origin, "ranks": {str(p): r for r, p in tracks.pids.items()},
                      "clock_offsets_ns": {str(r): s for r, s in shift.items()},
                      "source": os.path.basename(str(rep.meta.get("path") or "").rstrip("/")),
                      "trace": dict(trace_info(rep.meta), path=None), "buckets": list(rep.buckets)}}
    opener = gzip.open if path.endswith(".gz") else open
    # events are formatted before the metadata naming their tracks is known: written to the
    # file in that order, the names last (the importers take events in any order)
    with opener(path, "wb") as f:
        head = '{"otherData":' + json.dumps(other, ensure_ascii=True, allow_nan=False) + ',"traceEvents":[\n'
        f.write(head.encode())
        # the first event, written with no separator before it: every later event starts with ",\n"
        f.write(_dumps({"ts": 0, "ph": "M", "pid": tracks.pid(min(tracks.pids)), "name": "process_name",
                        "args": {"name": _process_name(rep, min(tracks.pids))}}).encode())
        _steps(rep, tracks, shift, origin, f, counts)
        _gaps(rep, tracks, shift, origin, f, counts)
        _collectives(rep, tracks, shift, origin, f, counts)
        _ops(rep, tracks, shift, origin, f, counts)
        _metadata(rep, tracks, f, counts)
        f.write(b"\n]}\n")
    return counts


# --- layout ---------------------------------------------------------------------------------------

def _op_ranks(rep: Report) -> set[int]:
    return {int(x) for t in (rep.kernels, rep.memops, rep.graphs) if t is not None and len(t)
            for x in pd.unique(t["rank"])}


def _shift(rank: np.ndarray, shift: dict[int, int]) -> np.ndarray:
    """Per row, its rank's clock offset (ns, subtracted to put the rank on the aligned clock)."""
    if not shift or not rank.size:
        return np.zeros(rank.size, np.int64)
    ranks = np.array(sorted(shift), np.int64)
    vals = np.array([shift[r] for r in sorted(shift)], np.int64)
    k = np.clip(np.searchsorted(ranks, rank), 0, ranks.size - 1)
    return np.where(ranks[k] == rank, vals[k], 0)


def _origin(rep: Report, shift: dict[int, int]) -> int:
    """The earliest aligned time of any step or op: the file's time 0."""
    lows = []
    for t in (rep.steps, rep.kernels, rep.memops, rep.graphs):
        if t is not None and len(t):
            r = t["rank"].to_numpy(np.int64)
            lows.append(int((t["start_ns"].to_numpy(np.int64) - _shift(r, shift)).min()))
    return min(lows) if lows else 0


def lanes(key: np.ndarray, start: np.ndarray, end: np.ndarray) -> tuple[np.ndarray, int]:
    """A lane per slice such that slices of one (key, lane) do not overlap (touching is fine), and
    how many still overlap in the last lane. Rounds of one vectorized pass: a slice stays in the
    lane when it starts at or after every earlier slice of its key still unplaced ends; the rest
    move to the next lane."""
    n = start.size
    lane = np.full(n, MAX_LANES - 1, np.int64)
    todo = np.arange(n)
    for k in range(MAX_LANES - 1):
        if not todo.size:
            break
        o = todo[np.lexsort((-end[todo], start[todo], key[todo]))]
        g, s, e = key[o], start[o], end[o]
        head = np.r_[True, g[1:] != g[:-1]]
        run = running_max(e, np.cumsum(head) - 1)
        prev = np.r_[np.int64(0), run[:-1]]
        take = head | (s >= prev)
        lane[o[take]] = k
        todo = o[~take]
    if not todo.size:
        return lane, 0
    o = todo[np.lexsort((start[todo], key[todo]))]
    g, s, e = key[o], start[o], end[o]
    same = g[1:] == g[:-1]
    return lane, int((same & (s[1:] < np.maximum.accumulate(e)[:-1])).sum())


def groups(*cols: np.ndarray, sort: bool = False) -> tuple[np.ndarray, list[tuple]]:
    """Per row, the index of its tuple of values in `cols` among the distinct tuples, and those
    tuples (in order of first appearance, or sorted): codes of each column packed into one int64
    key (a MultiIndex would build a Python tuple per row)."""
    arrays = [np.asarray(c) for c in cols]
    key = np.zeros(len(arrays[0]), np.int64)
    for c in arrays:
        codes, uniq = pd.factorize(c, sort=sort)
        key = key * max(len(uniq), 1) + codes  # (few distinct values per column: no overflow)
    inv, _ = pd.factorize(key, sort=sort)
    _, first = np.unique(inv, return_index=True)  # the first row of each tuple
    return inv.astype(np.int64), list(zip(*(c[first].tolist() for c in arrays)))


def _lane_tids(tracks: Tracks, rank: np.ndarray, names: np.ndarray, lane: np.ndarray) -> np.ndarray:
    """tid per row for track `names` of its rank, lane > 0 as "<name> (lane + 1)"."""
    out = np.zeros(rank.size, np.int64)
    if not rank.size:
        return out
    codes, uniq = groups(rank, names, lane)
    tid = np.zeros(len(uniq), np.int64)
    for i in sorted(range(len(uniq)), key=lambda j: (int(uniq[j][0]), str(uniq[j][1]), int(uniq[j][2]))):
        r, n, ln = uniq[i]  # (one per track: a handful)
        tid[i] = tracks.tid(int(r), str(n) if ln == 0 else f"{n} ({ln + 1})")
    out[:] = tid[codes]
    return out


# --- text columns ---------------------------------------------------------------------------------

def _dumps(obj: dict[str, Any]) -> str:
    """One event, "ts" its first key (see the module docstring), ASCII only."""
    return _text({"ts": obj["ts"], **{k: v for k, v in obj.items() if k != "ts"}})


def _plain(x):
    if isinstance(x, np.generic):
        return x.item()
    raise TypeError(type(x).__name__)


def _us(ns: np.ndarray) -> pa.Array:
    """ns >= 0 as microseconds with three decimals ("12.345"): exact, in JSON number syntax."""
    q, r = np.divmod(np.asarray(ns, np.int64), 1000)
    return pc.binary_join_element_wise(pa.array(q).cast(pa.string()),
                                       pc.utf8_lpad(pa.array(r).cast(pa.string()), 3, "0"), ".")


def _ints(x: np.ndarray) -> pa.Array:
    return pa.array(np.asarray(x, np.int64)).cast(pa.string())


def _floats(x: np.ndarray, digits: int = 6) -> pa.Array:
    """Numbers rounded to `digits` decimals; null where not finite."""
    x = np.asarray(x, np.float64)
    ok = np.isfinite(x)
    s = pa.array(np.round(np.where(ok, x, 0.0), digits)).cast(pa.string())
    return pc.if_else(pa.array(ok), s, pa.scalar("null"))


class Texts:
    """A text column as JSON strings, each distinct value encoded once: `take(rows)` gathers them."""

    def __init__(self, values):
        codes, uniq = pd.factorize(pd.Series(values, dtype=object).fillna("").astype(str).to_numpy(object),
                                   use_na_sentinel=False)
        self.codes = codes.astype(np.int64)
        self.encoded = pa.array([json.dumps(u, ensure_ascii=True) for u in uniq], pa.string())
        self.empty = np.array([u == "" for u in uniq], bool)[self.codes] if len(uniq) else np.zeros(0, bool)

    def take(self, rows: np.ndarray) -> pa.Array:
        return pc.take(self.encoded, pa.array(self.codes[rows]))


def _when(mask: np.ndarray, *parts) -> pa.Array:
    """The parts joined where mask holds, "" elsewhere."""
    joined = pc.binary_join_element_wise(*parts, "")
    return pc.if_else(pa.array(np.asarray(mask, bool)), joined, pa.scalar(""))


def _emit(f, parts: list, counts: Counts, kind: str) -> None:
    """Write one chunk: the element-wise join of `parts` (arrays and strings), each event after
    ",\\n"."""
    arr = pc.binary_join_element_wise(",\n", *parts, "")
    if isinstance(arr, pa.ChunkedArray):
        arr = arr.combine_chunks()
    n = len(arr)
    if not n:
        return
    offsets = np.frombuffer(arr.buffers()[1], np.int32, count=n + 1, offset=arr.offset * 4)
    f.write(memoryview(arr.buffers()[2])[offsets[0]:offsets[-1]])
    counts.add(kind, n)


def _chunks(n: int):
    for a in range(0, n, CHUNK):
        yield np.arange(a, min(a + CHUNK, n))


def _placed(tab: pd.DataFrame, tracks: Tracks, shift: dict[int, int], origin: int, track: str,
            counts: Counts) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(rank, start, end on the aligned clock from `origin`, lane, tid, pid) of every row of a
    per-rank table drawn on the track named `track`: overlapping rows go to extra lanes."""
    rank = tab["rank"].to_numpy(np.int64)
    start = tab["start_ns"].to_numpy(np.int64) - _shift(rank, shift) - origin
    end = tab["end_ns"].to_numpy(np.int64) - _shift(rank, shift) - origin
    lane, bad = lanes(rank, start, end)
    counts.overlapping += bad
    tid = _lane_tids(tracks, rank, np.full(rank.size, track, object), lane)
    return rank, start, end, lane, tid, _pids(tracks, rank)


def _pids(tracks: Tracks, rank: np.ndarray) -> np.ndarray:
    """Each row's process id (one per rank)."""
    ranks = np.unique(rank)
    return np.array([tracks.pid(int(r)) for r in ranks], np.int64)[np.searchsorted(ranks, rank)]


# --- tracks ---------------------------------------------------------------------------------------

def _steps(rep: Report, tracks: Tracks, shift: dict[int, int], origin: int, f, counts: Counts) -> None:
    """The steps track (one slice per step, args the JSON report's step but for its unaligned
    start and end) and the per-step counters."""
    st = rep.steps
    if not len(st):
        return
    rank, start, end, _, tid, _ = _placed(st, tracks, shift, origin, STEPS, counts)
    counters = _counter_columns(rep)
    lines: list[str] = []
    docs = step_list(rep)
    for i, d in enumerate(docs):
        pid = tracks.pid(int(rank[i]))
        at = f'{{"ts":{_json_us(start[i])},'
        where = f'"pid":{pid},"tid":{int(tid[i])}'
        args = {k: v for k, v in d.items() if k not in ("start_ns", "end_ns")}
        lines.append(at + f'"dur":{_json_us(end[i] - start[i])},"ph":"X",{where},"name":'
                     + _text(d["name"]) + ',"cat":"step","args":' + _text(args) + "}")
        for name, values in counters:
            lines.append(at + f'"ph":"C",{where},"name":{_text(name)},"args":'
                         + _text({k: round(float(v[i]) / 1e6, 6) for k, v in values.items()}) + "}")
        nxt = i + 1
        if nxt == len(docs) or rank[nxt] != rank[i] or start[nxt] > end[i]:  # back to 0 until the next step
            for name, values in counters:
                lines.append(f'{{"ts":{_json_us(end[i])},"ph":"C",{where},"name":{_text(name)},"args":'
                             + _text(dict.fromkeys(values, 0)) + "}")
        if len(lines) >= 4096 or nxt == len(docs):
            f.write("".join(",\n" + x for x in lines).encode())
            counts.add("steps and counters", len(lines))
            lines.clear()


def _counter_columns(rep: Report) -> list[tuple[str, dict[str, np.ndarray]]]:
    """Per step: exposed time per bucket, overlapped time and idle time (by cause when known): the
    step's span split as the JSON report splits it (ns)."""
    st = rep.steps
    exposed = {b: st[f"{b}_exposed_ns"].to_numpy(np.int64) for b in rep.buckets}
    out = [("exposed (ms)", exposed), ("overlapped (ms)", {"time": st["overlap_ns"].to_numpy(np.int64)})]
    if idle.has_causes(st):
        out.append(("idle (ms)", {c: st[col].to_numpy(np.int64) for c, col in zip(idle.CAUSES, idle.CAUSE_COLUMNS)}))
    else:
        out.append(("idle (ms)", {"all": st["idle_ns"].to_numpy(np.int64)}))
    return out


def _json_us(ns) -> str:
    """ns >= 0 as microseconds with three decimals (exact)."""
    q, r = divmod(int(ns), 1000)
    return f"{q}.{r:03d}"


def _text(x: Any) -> str:
    return json.dumps(x, ensure_ascii=True, allow_nan=False, separators=(",", ":"), default=_plain)


def _gaps(rep: Report, tracks: Tracks, shift: dict[int, int], origin: int, f, counts: Counts) -> None:
    """The GPU idle track: every gap, named by its largest cause and what the CPU was doing."""
    g = rep.gaps
    if g is None or not len(g):
        return
    rank, start, end, _, tid, pid = _placed(g, tracks, shift, origin, IDLE, counts)
    cause = g["cause"].astype(str).to_numpy(object)
    what = g["what"].astype(str).to_numpy(object)
    queued = g["queued"].to_numpy(bool)
    # a name per distinct (cause, queued, what): few, however many gaps
    codes, uniq = groups(cause, queued, what)
    label = np.array([f"idle: {IDLE_WORDS.get(c, c)}" + (", next op queued" if q else "") + (f" · {w}" if w else "")
                      for c, q, w in uniq], object)
    name, causes, whats = Texts(label[codes]), Texts(cause), Texts(what)
    source = Texts(g["source"].astype(str).to_numpy(object))
    parts_ns = {c: g[f"{c}_ns"].to_numpy(np.int64) for c in idle.CAUSES}
    step = g["step"].to_numpy(np.int64)
    for rows in _chunks(len(g)):
        args = ['{"cause":', causes.take(rows), ',"step":', _ints(step[rows])]
        for c in idle.CAUSES:
            args += [f',"{c}_ns":', _ints(parts_ns[c][rows])]
        args += [',"queued":', pc.if_else(pa.array(queued[rows]), pa.scalar("true"), pa.scalar("false")),
                 _when(~whats.empty[rows], ',"what":', whats.take(rows), ',"source":', source.take(rows)), "}"]
        _emit(f, ['{"ts":', _us(start[rows]), ',"dur":', _us(end[rows] - start[rows]), ',"ph":"X","pid":',
                  _ints(pid[rows]), ',"tid":', _ints(tid[rows]), ',"name":', name.take(rows), ',"cat":"idle","args":',
                  *args, "}"], counts, "idle gaps")


def _collectives(rep: Report, tracks: Tracks, shift: dict[int, int], origin: int, f, counts: Counts) -> None:
    """The collectives track (one slice per call, flows joining a call's ranks) and beneath it
    each call's wait and transfer."""
    inst = rep.comm.instances if rep.comm is not None else None
    if inst is None or not len(inst):
        return
    rank, start, end, lane, tid, pid = _placed(inst, tracks, shift, origin, COLLECTIVES, counts)
    ptid = _lane_tids(tracks, rank, np.full(rank.size, PARTS, object), lane)
    # flows: a matched call's slices in time order, each linked to the next
    match = inst["match"].to_numpy(np.int64) if "match" in inst else np.full(len(inst), -1, np.int64)
    ok = match >= 0
    o = np.lexsort((start, match))
    first = np.zeros(len(inst), bool)
    last = np.zeros(len(inst), bool)
    if ok.any():
        m = match[o]
        first[o] = np.r_[True, m[1:] != m[:-1]]
        last[o] = np.r_[m[1:] != m[:-1], True]
    flow_out = ok & ~last
    flow_in = ok & ~first
    coll = Texts(inst["collective"].astype(str).to_numpy(object))
    group = Texts(inst["group"].astype(str).to_numpy(object))
    bsrc = Texts(inst["bytes_source"].astype(str).to_numpy(object))
    nbytes = inst["bytes"].to_numpy(np.int64)
    wait = inst["wait_ns"].to_numpy(np.int64) if "wait_ns" in inst else np.zeros(len(inst), np.int64)
    transfer = inst["transfer_ns"].to_numpy(np.int64) if "transfer_ns" in inst else end - start
    matched = inst["matched"].to_numpy(bool) if "matched" in inst else np.zeros(len(inst), bool)
    bw = {c: inst[c].to_numpy(np.float64) if c in inst else np.full(len(inst), np.nan)
          for c in ("algbw_GBps", "busbw_GBps", "link_fraction")}
    step = inst["step"].to_numpy(np.int64)
    for rows in _chunks(len(inst)):
        t0, t1 = start[rows], end[rows]
        flow = [_when(ok[rows], ',"bind_id":', _ints(match[rows]),
                      pc.if_else(pa.array(flow_in[rows]), pa.scalar(',"flow_in":true'), pa.scalar("")),
                      pc.if_else(pa.array(flow_out[rows]), pa.scalar(',"flow_out":true'), pa.scalar("")))]
        args = ['{"collective":', coll.take(rows), ',"group":', group.take(rows), ',"seq":',
                _ints(inst["seq"].to_numpy(np.int64)[rows]), ',"step":', _ints(step[rows]),
                _when(nbytes[rows] >= 0, ',"bytes":', _ints(nbytes[rows])), ',"bytes_source":', bsrc.take(rows),
                ',"group_size":', _ints(inst["group_size"].to_numpy(np.int64)[rows]),
                ',"wait_ns":', _ints(wait[rows]), ',"transfer_ns":', _ints(transfer[rows]),
                ',"matched":', pc.if_else(pa.array(matched[rows]), pa.scalar("true"), pa.scalar("false"))]
        for c, v in bw.items():
            args += [_when(np.isfinite(v[rows]), f',"{c}":', _floats(v[rows]))]
        _emit(f, ['{"ts":', _us(t0), ',"dur":', _us(t1 - t0), ',"ph":"X","pid":', _ints(pid[rows]), ',"tid":',
                  _ints(tid[rows]), ',"name":', coll.take(rows), ',"cat":"collective"', *flow, ',"args":', *args,
                  "}}"], counts, "collectives")
        # the wait, then the transfer, side by side on the track beneath
        w = wait[rows]
        has = w > 0
        if has.any():
            r = rows[has]
            _emit(f, ['{"ts":', _us(start[r]), ',"dur":', _us(wait[r]), ',"ph":"X","pid":', _ints(pid[r]), ',"tid":',
                      _ints(ptid[r]), ',"name":"wait","cat":"collective","args":{"collective":', coll.take(r),
                      ',"seq":', _ints(inst["seq"].to_numpy(np.int64)[r]), "}}"], counts, "collective parts")
        _emit(f, ['{"ts":', _us(t0 + w), ',"dur":', _us(transfer[rows]), ',"ph":"X","pid":', _ints(pid[rows]),
                  ',"tid":', _ints(ptid[rows]), ',"name":"transfer","cat":"collective","args":{"collective":',
                  coll.take(rows), ',"seq":', _ints(inst["seq"].to_numpy(np.int64)[rows]), "}}"],
              counts, "collective parts")


def _ops(rep: Report, tracks: Tracks, shift: dict[int, int], origin: int, f, counts: Counts) -> None:
    """Every GPU op on its stream's track (lanes where ops of a stream overlap)."""
    tabs = [(kind, t) for kind, t in (("kernel", rep.kernels), ("memop", rep.memops), ("graph", rep.graphs))
            if t is not None and len(t)]
    if not tabs:
        return
    # lanes over every op of a stream, whatever its kind
    cat = {c: np.concatenate([t[c].to_numpy(np.int64) for _, t in tabs]) for c in ("rank", "device", "stream")}
    s_all = np.concatenate([t["start_ns"].to_numpy(np.int64) for _, t in tabs])
    e_all = np.concatenate([t["end_ns"].to_numpy(np.int64) for _, t in tabs])
    s_all = s_all - _shift(cat["rank"], shift) - origin
    e_all = np.maximum(e_all - _shift(cat["rank"], shift) - origin, s_all)
    codes, uniq = groups(cat["rank"], cat["device"], cat["stream"], sort=True)
    lane, bad = lanes(codes.astype(np.int64), s_all, e_all)
    counts.overlapping += bad
    names = np.array([f"GPU {d} stream {s}" for _, d, s in uniq], object)[codes]
    tid = _lane_tids(tracks, cat["rank"], names, lane)
    pid_all = _pids(tracks, cat["rank"])
    index = rep.steps["index"].to_numpy(np.int64) if len(rep.steps) else np.zeros(0, np.int64)
    at = 0
    for kind, t in tabs:
        n = len(t)
        sl = slice(at, at + n)
        at += n
        start, end, tids, pids = s_all[sl], e_all[sl], tid[sl], pid_all[sl]
        row = t["step"].to_numpy(np.int64)
        in_step = row >= 0
        step = np.where(in_step, index[np.maximum(row, 0)] if index.size else -1, -1)
        layer = t["layer"].to_numpy(np.int64) if "layer" in t else np.full(n, NO_STEP, np.int64)
        bucket, rule = Texts(t["bucket"].to_numpy(object)), Texts(t["rule"].to_numpy(object))
        module = Texts(t["module"].to_numpy(object) if "module" in t else np.full(n, "", object))
        corr = t["correlation"].to_numpy(np.int64)
        if kind == "kernel":
            name = Texts(t["name"])
        elif kind == "memop":
            name = Texts(t["kind"])
        else:
            name = Texts(np.full(n, "CUDA graph", object))
        extra = _kind_args(kind, t)
        for rows in _chunks(n):
            parts = ['{"ts":', _us(start[rows]), ',"dur":', _us(end[rows] - start[rows]), ',"ph":"X","pid":',
                     _ints(pids[rows]), ',"tid":', _ints(tids[rows]), ',"name":', name.take(rows), ',"cat":',
                     bucket.take(rows), f',"args":{{"gpu_op":"{kind}","bucket":', bucket.take(rows), ',"rule":',
                     rule.take(rows),
                     _when(in_step[rows], ',"step":', _ints(step[rows]), ',"layer":', _ints(layer[rows])),
                     _when(in_step[rows] & ~module.empty[rows], ',"module":', module.take(rows)),
                     ',"device":', _ints(t["device"].to_numpy(np.int64)[rows]),
                     ',"stream":', _ints(t["stream"].to_numpy(np.int64)[rows]), ',"correlation":', _ints(corr[rows]),
                     *(p(rows) for p in extra), "}}"]
            _emit(f, parts, counts, f"{kind}s")


def _kind_args(kind: str, t: pd.DataFrame) -> list:
    """Per-chunk makers of the args a kind of op adds (the evidence ingest/exported.py reads back)."""
    n = len(t)
    out = []

    def opt_int(col: str, key: str):
        v = t[col]
        miss = v.isna().to_numpy(bool)
        x = v.fillna(0).to_numpy(np.int64)
        return lambda rows: _when(~miss[rows], f',"{key}":', _ints(x[rows]))

    def opt_text(col: str, key: str):
        tx = Texts(t[col])
        return lambda rows: _when(~tx.empty[rows], f',"{key}":', tx.take(rows))

    if kind == "kernel":
        grid = [t[f"grid_{a}"].to_numpy(np.int64) for a in "xyz"]
        block = [t[f"block_{a}"].to_numpy(np.int64) for a in "xyz"]
        out.append(lambda rows: pc.binary_join_element_wise(
            ',"grid":[', _ints(grid[0][rows]), ",", _ints(grid[1][rows]), ",", _ints(grid[2][rows]), '],"block":[',
            _ints(block[0][rows]), ",", _ints(block[1][rows]), ",", _ints(block[2][rows]), "]", ""))
        out += [opt_int("graph_id", "graph_id"), opt_int("graph_node_id", "graph_node_id"),
                opt_text("op", "launched_by"), opt_text("op_input_types", "input_types")]
        coll = Texts(t["comm_collective"])
        cols = {c: t[c].to_numpy(np.int64) for c in ("comm_in_nelems", "comm_out_nelems", "comm_group_size")}
        dtype, group = Texts(t["comm_dtype"]), Texts(t["comm_group"])
        out.append(lambda rows: _when(
            ~coll.empty[rows], ',"collective":', coll.take(rows), ',"in_nelems":', _ints(cols["comm_in_nelems"][rows]),
            ',"out_nelems":', _ints(cols["comm_out_nelems"][rows]), ',"dtype":', dtype.take(rows),
            ',"group_size":', _ints(cols["comm_group_size"][rows]), ',"group":', group.take(rows)))
    elif kind == "memop":
        nbytes = t["bytes"].to_numpy(np.int64)
        out += [lambda rows: pc.binary_join_element_wise(',"bytes":', _ints(nbytes[rows]), ""),
                opt_int("graph_node_id", "graph_node_id"), opt_text("op", "launched_by")]
    else:
        out += [opt_int("graph_id", "graph_id"), opt_int("graph_exec_id", "graph_exec_id")]
    del n
    return out


def _process_name(rep: Report, rank: int) -> str:
    gpus = rep.meta.get("gpus") or []
    ranks = rep.meta.get("ranks") or []
    gpu = gpus[ranks.index(rank)] if rank in ranks and ranks.index(rank) < len(gpus) and len(gpus) == len(ranks) \
        else (gpus[0] if len(set(gpus)) == 1 else "")
    return f"rank {rank}" + (f" · {gpu}" if gpu else "")


def _metadata(rep: Report, tracks: Tracks, f, counts: Counts) -> None:
    """Process and thread names and their order."""
    lines = []
    for rank, pid in sorted(tracks.pids.items()):
        if rank != min(tracks.pids):  # (the first process's name opened the file)
            lines.append({"ts": 0, "ph": "M", "pid": pid, "name": "process_name",
                          "args": {"name": _process_name(rep, rank)}})
        lines.append({"ts": 0, "ph": "M", "pid": pid, "name": "process_sort_index", "args": {"sort_index": rank}})
    for i, (pid, tid, name) in enumerate(tracks.names):
        lines.append({"ts": 0, "ph": "M", "pid": pid, "tid": tid, "name": "thread_name", "args": {"name": name}})
        lines.append({"ts": 0, "ph": "M", "pid": pid, "tid": tid, "name": "thread_sort_index",
                      "args": {"sort_index": _sort_index(name, i)}})
    f.write("".join(",\n" + _dumps(x) for x in lines).encode())
    counts.add("metadata", len(lines))


def _sort_index(name: str, i: int) -> int:
    """Steps, idle, collectives first, then the streams in the order they were met."""
    for j, top in enumerate((STEPS, IDLE, COLLECTIVES, PARTS)):
        if name == top or name.startswith(top + " ("):
            return j * 1000 + i
    return 10_000 + i
