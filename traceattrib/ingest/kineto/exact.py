"""The exact path: events parsed by the stdlib `json` with Decimal numbers -> the kept columns,
every kept field checked (times to int64 ns exactly; a value of the wrong type taken as unknown and
counted, the first one named). Taken for pieces DuckDB and pyarrow refuse."""
from __future__ import annotations

import json
import re
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation

import numpy as np

from .columns import Columns
from .fields import INT_ARGS, INT_FILL, KEEP_CATS, NUM, NUMERIC, STR_ARGS, STRS, TS_BAD, TS_MISSING
from .names import _types_text

_DIMS_TEXT = re.compile(r"[\[\]0-9,-]*")


class _Const:
    """NaN / Infinity literals (parse_constant) kept apart from real numbers."""
    __slots__ = ("text",)

    def __init__(self, text: str):
        self.text = text


def loads(data: bytes, acc: Columns | None = None, where: str = ""):
    """Stdlib JSON with exact numbers: Decimal for fractions, markers for NaN / Infinity. Bytes
    that are not UTF-8 are read as U+FFFD and counted in `acc` (the pyarrow path counts them per
    string; here, where pyarrow refused the piece, per invalid byte sequence)."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        text = data.decode("utf-8", "replace")
        if acc is not None:
            n = text.count("\ufffd") - data.count("\ufffd".encode())
            acc.issue("byte sequences in event names or args are not valid UTF-8 (shown with U+FFFD)", where, max(n, 1))
    return json.loads(text, parse_float=Decimal, parse_constant=_Const)


def add_events(acc: Columns, events: list, first: int, rows: np.ndarray | None = None) -> None:
    """Stdlib-parsed events (numbers as int or Decimal), with the pyarrow path's rules: a
    value of the wrong type is taken as unknown and counted (see `Columns.issue`). Event k is
    traceEvents[first + k], or traceEvents[first + rows[k]] when `rows` is given."""
    cols: dict[str, list] = {k: [] for k in NUM}
    strs: dict[str, list] = {k: [] for k in STRS}
    flows: dict[str, list] = {k: [] for k in ("pid", "tid", "ts", "id")}
    for k, e in enumerate(events):
        i = first + (k if rows is None else int(rows[k]))
        if not isinstance(e, dict):
            acc.issue("traceEvents entries are not JSON objects and were skipped", f"traceEvents[{i}]")
            continue
        cat, ph = e.get("cat"), e.get("ph")
        if not isinstance(cat, str) or not isinstance(ph, str):
            continue
        if ph == "f" and cat == "ac2g":
            _flow_end(acc, e, i, flows)
        elif ph == "X" and cat in KEEP_CATS:
            _kept_event(acc, e, i, cat, cols, strs)
    for k in NUM:
        acc.keep(k, np.array(cols[k], dtype=np.int64))
    for k in STRS:
        acc.str[k].add_list(strs[k])
    for k, v in flows.items():
        acc.flows[k].append(np.array(v, dtype=np.int64))


def _flow_end(acc: Columns, e: dict, i: int, flows: dict) -> None:
    flows["pid"].append(_label_id(acc, e, "pid", i))
    flows["tid"].append(_label_id(acc, e, "tid", i))
    flows["ts"].append(_time(e.get("ts"), TS_MISSING))
    flows["id"].append(_int(acc, e.get("id"), -1, i, "id"))


def _kept_event(acc: Columns, e: dict, i: int, cat: str, cols: dict, strs: dict) -> None:
    a = e.get("args")
    if a is None:
        a = {}
    elif not isinstance(a, dict):
        acc.issue("events have args that are not an object (ignored)", f"traceEvents[{i}].args")
        a = {}
    name = e.get("name", "")
    if name is None:
        name = ""
    elif not isinstance(name, str):
        acc.issue("event names are not strings (taken as empty)", f"traceEvents[{i}].name")
        name = ""
    cols["idx"].append(i)
    cols["pid"].append(_label_id(acc, e, "pid", i))
    cols["tid"].append(_label_id(acc, e, "tid", i))
    cols["ts"].append(_time(e.get("ts"), TS_MISSING))
    cols["dur"].append(_time(e.get("dur"), 0))
    for key, col in INT_ARGS:
        cols[col].append(_int(acc, a.get(key), INT_FILL.get(col, -1), i, f"args.{key}"))
    for key in ("grid", "block"):
        v = a.get(key)
        if v is not None and not isinstance(v, list):
            acc.issue("values in integer fields are not integers and were taken as unknown",
                      f"traceEvents[{i}].args.{key}")
            v = None
        for j in range(3):
            x = v[j] if v is not None and len(v) > j else None
            cols[f"{key}{j}"].append(_int(acc, x, 0, i, f"args.{key}[{j}]"))
    strs["cat"].append(cat)
    strs["name"].append(name)
    strs["intypes"].append(_types_text(a.get("Input type")))
    strs["dims"].append(_dims_text(a.get("Input Dims")))
    for key, col in STR_ARGS:
        v = a.get(key)
        strs[col].append(None if v is None else str(v))


def _int(acc: Columns, v, fill: int, i: int, field: str) -> int:
    """An integer field: an int within int64, or numeric text; anything else is `fill`, counted."""
    if v is None:
        return fill
    if isinstance(v, str) and re.fullmatch(NUMERIC, v):
        return int(v)
    if isinstance(v, int) and not isinstance(v, bool) and -(1 << 63) <= v < (1 << 63):
        return v
    acc.issue("values in integer fields are not integers and were taken as unknown", f"traceEvents[{i}].{field}")
    return fill


def _label_id(acc: Columns, e: dict, key: str, i: int) -> int:
    """pid/tid: an integer, or -1 for a text label (Kineto's "Spans" rows) or when absent."""
    v = e.get(key)
    if v is None or isinstance(v, str):
        return -1
    return _int(acc, v, -1, i, key)


def _time(v, missing: int) -> int:
    """ts/dur in microseconds -> ns, exactly (half away from zero past 3 decimals); numeric text
    is read as its number (pyarrow's decimal parser does the same). Anything else (NaN, infinities,
    values outside int64 ns, text, lists) is TS_BAD: such events are dropped later, counted."""
    if v is None:
        return missing
    if isinstance(v, bool) or not isinstance(v, (int, Decimal, str)):
        return TS_BAD
    if isinstance(v, int):
        ns = v * 1000
    else:
        try:
            d = Decimal(v.strip()) if isinstance(v, str) else v
            if not d.is_finite():
                return TS_BAD
            ns = int((d * 1000).to_integral_value(ROUND_HALF_UP))
        except (InvalidOperation, ValueError):
            return TS_BAD
    return ns if -(1 << 63) < ns < (1 << 63) else TS_BAD


def _dims_text(v) -> str:
    """A CPU op's "Input Dims" as compact JSON ("[[1,4096],[4096,4096]]"), "" when absent or
    not a nest of integer lists (the pyarrow path's regex takes only those)."""
    if not isinstance(v, list):
        return ""
    text = json.dumps(v, separators=(",", ":"), default=str)
    return text if _DIMS_TEXT.fullmatch(text) else ""
