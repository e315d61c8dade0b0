"""Checks on the whole columns of a read and on its top-level keys: events that cannot be placed on
the timeline (ts missing, NaN or out of range: times are int64 ns) are dropped and counted in a
warning; ids out of range on GPU events are a TraceError; header values of the wrong type are
dropped with a warning."""
from __future__ import annotations

from decimal import Decimal

import numpy as np
import pandas as pd

from ...errors import TraceError
from ...model import categorical_from
from ..messages import distinct
from .fields import GPU_CATS, INT32_MAX, TIME_LIMIT_NS, TS_BAD, TS_MISSING


def validate(path: str, c: dict) -> dict:
    """Drop events that cannot be placed on the timeline (counted in c["warnings"]); TraceError
    for ids out of range on GPU events."""
    ts, dur = c["ts"], c["dur"]
    missing = ts == TS_MISSING
    # Kineto times are microseconds since the epoch or its base time: never negative
    bad_ts = ~missing & ((ts == TS_BAD) | (ts < 0) | (ts > TIME_LIMIT_NS))
    bad_dur = ~missing & ~bad_ts & ((dur == TS_BAD) | (dur > TIME_LIMIT_NS) | (dur < -TIME_LIMIT_NS))
    drop = missing | bad_ts | bad_dur
    warnings = c["warnings"]
    if drop.any():
        first = int(c["idx"][np.flatnonzero(drop)[0]])
        why = [f"{k:,} {w}" for k, w in ((int(missing.sum()), "without ts"),
                                          (int(bad_ts.sum()), "with ts NaN, infinite or out of range"),
                                          (int(bad_dur.sum()), "with dur NaN, infinite or out of range")) if k]
        warnings.append(f"dropped {int(drop.sum()):,} events that cannot be placed on the timeline "
                        f"({', '.join(why)}; first is traceEvents[{first}])")
        c = _take_rows(c, ~drop)
    neg = c["dur"] < 0
    # what integrity.py reads: events lost here and durations repaired
    c["integrity"] = {"dropped_rows": {"traceEvents": int(drop.sum())} if drop.any() else {},
                      "negative_durations": int(neg.sum())}
    if neg.any():
        warnings.append(f"{int(neg.sum()):,} events have a negative dur, taken as 0 "
                        f"(first is traceEvents[{int(c['idx'][np.flatnonzero(neg)[0]])}])")
    # ids the model stores as int32, on the GPU events that carry them
    cats = c["cat"].categories
    gpu = np.isin(c["cat"].codes, [cats.get_loc(k) for k in GPU_CATS if k in cats])
    dev = np.where(c["dev"] < 0, c["pid"], c["dev"])
    _in_range(path, c, "args.device (or pid)", dev, gpu, 0, INT32_MAX)
    kern = np.isin(c["cat"].codes, [cats.get_loc("kernel")] if "kernel" in cats else [])
    for k in ("grid", "block"):
        for i in range(3):
            _in_range(path, c, f"args.{k}[{i}]", c[k][i], kern, 0, INT32_MAX)
    return c


def _in_range(path: str, c: dict, field: str, v: np.ndarray, rows: np.ndarray, lo: int, hi: int) -> None:
    out = rows & ((v < lo) | (v > hi))
    if out.any():
        j = int(np.flatnonzero(out)[0])
        raise TraceError(f"{path}: traceEvents[{int(c['idx'][j])}].{field} = {int(v[j])} is outside {lo}..{hi} "
                         f"({int(out.sum()):,} such events)")


def _take_rows(c: dict, keep: np.ndarray) -> dict:
    out = {}
    for k, v in c.items():
        if k in ("flows", "warnings", "integrity"):
            out[k] = v
        elif isinstance(v, list):
            out[k] = [a[keep] for a in v]
        elif isinstance(v, pd.Categorical):
            out[k] = categorical_from(np.asarray(v.codes)[keep], np.asarray(v.categories, dtype=object))
        else:
            out[k] = v[keep]
    return out


def check_header(h, warnings: list) -> dict:
    """The top-level keys the reader uses, with wrong types dropped (and said so)."""
    if not isinstance(h, dict):
        return {}
    h = dict(h)
    props = h.get("deviceProperties")
    if props is not None:
        h["deviceProperties"] = _devices(props, warnings)
    dist = h.get("distributedInfo")
    if dist is not None:
        h["distributedInfo"] = _distributed(dist, warnings)
    return h


MESSAGE_KEYS = ("WARNING", "ERROR")  # Kineto's own log lines, written as top-level lists
MESSAGES_KEEP = 20  # distinct messages kept, each cut to 300 characters


def profiler_messages(h: dict) -> list[str]:
    """Kineto's warning and error log lines (top-level `WARNING` / `ERROR` lists), distinct, in
    order: where the profiler says it dropped records. Entries that are not text are skipped: this
    is evidence about the capture, never a reason to refuse the file."""
    return distinct((m for key in MESSAGE_KEYS if isinstance(h.get(key), list) for m in h[key]), MESSAGES_KEEP)


def _devices(props, warnings: list) -> list:
    """deviceProperties: the entries with an integer id and a string name."""
    if not isinstance(props, list):
        warnings.append(f"deviceProperties is {_what(props)}, not a list: GPU names unknown")
        return []
    good = []
    for i, p in enumerate(props):
        pid = p.get("id", i) if isinstance(p, dict) else None
        if not isinstance(p, dict) or not _small_int(pid) or not isinstance(p.get("name", ""), str):
            warnings.append(f"deviceProperties[{i}] is not a device entry (an object with an integer id "
                            "and a string name): ignored")
            continue
        good.append({"id": int(pid), "name": p.get("name", "")})
    return good


def _distributed(dist, warnings: list) -> dict:
    """distributedInfo with rank and world_size as ints (numeric text read), dropped when not
    small non-negative integers."""
    if not isinstance(dist, dict):
        warnings.append(f"distributedInfo is {_what(dist)}, not an object: rank unknown")
        return {}
    dist = dict(dist)
    for key in ("rank", "world_size"):
        v = dist.get(key)
        if v is not None and not _small_int(v, text_ok=True):
            warnings.append(f"distributedInfo.{key} ({str(v)[:40]}) is not a small non-negative integer: "
                            "ignored")
            dist.pop(key)
        elif v is not None:
            dist[key] = int(v)
    if dist.get("world_size") is not None and dist.get("rank") is not None and \
            not 0 <= dist["rank"] < max(dist["world_size"], 1):
        warnings.append(f"distributedInfo.rank {dist['rank']} is not below world_size {dist['world_size']}")
    return dist


def _small_int(v, text_ok: bool = False) -> bool:
    if isinstance(v, str) and text_ok and v.isdigit() and v.isascii():
        v = int(v)
    return isinstance(v, int) and not isinstance(v, bool) and 0 <= v <= INT32_MAX


def _what(v) -> str:
    if isinstance(v, bool):
        return "a boolean"
    if isinstance(v, (int, Decimal, float)):
        return "a number"
    if isinstance(v, str):
        return "a string"
    if isinstance(v, list):
        return "a list"
    if isinstance(v, dict):
        return "an object"
    return "null" if v is None else type(v).__name__
