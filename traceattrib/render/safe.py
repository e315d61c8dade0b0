"""Terminal-safe text: names from a trace never reach a terminal raw.

Kernel, range and GPU names come from the profiled program and can hold anything: newlines that
would split a table row, ANSI escape sequences that recolour or clear the terminal, lone
surrogates that cannot be encoded. `clean` is the one function every text and Markdown output goes
through (JSON needs none: `json.dumps` escapes control characters itself). It is applied at the
render edge, to the Report, Trace or dict a renderer receives, so analysis keeps the original names.
"""
from __future__ import annotations

import dataclasses
import re
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pandas only for tables: warnings and names are cleaned without it
    import pandas as pd

# C0 and C1 controls, DEL, lone surrogates, and the Unicode bidi overrides/isolates that can make
# a terminal line read differently from its bytes
_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\ud800-\udfff\u200e\u200f\u202a-\u202e\u2066-\u2069]")
_UNSAFE_KEEP_NL = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\ud800-\udfff\u200e\u200f\u202a-\u202e\u2066-\u2069]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape(m: re.Match) -> str:
    ch = m.group(0)
    if ch in _NAMED:
        return _NAMED[ch]
    o = ord(ch)
    return f"\\x{o:02x}" if o < 0x100 else f"\\u{o:04x}"


def clean(s: Any, keep_newlines: bool = False) -> str:
    """`s` as one printable line: control characters become visible escapes (`\\n`, `\\x1b`,
    `\\u202e`); bytes are decoded as UTF-8 with replacement. keep_newlines: leave "\\n" alone
    (for whole rendered documents, whose line breaks are their own)."""
    if isinstance(s, (bytes, bytearray, memoryview)):
        s = bytes(s).decode("utf-8", errors="replace")
    elif not isinstance(s, str):
        s = str(s)
    pat = _UNSAFE_KEEP_NL if keep_newlines else _UNSAFE
    return pat.sub(_escape, s) if pat.search(s) else s


def error_line(e: BaseException, names: dict[str, str] | None = None) -> str:
    """An error as the one line a front end shows: a TraceError's message with its parameters
    called by the front end's names (errors.TraceError.text), anything else its str(); only
    the first line, cleaned."""
    from ..errors import TraceError

    text = (e.text(names) if isinstance(e, TraceError) else str(e)).strip()
    return clean(text.splitlines()[0] if text else "")


def clean_obj(x: Any) -> Any:
    """`clean` applied to every string (keys included) of nested dicts, lists, tuples and typed
    values (msgspec Structs: a report's sections, notes)."""
    if isinstance(x, (str, bytes, bytearray)):
        return clean(x)
    if isinstance(x, dict):
        return {clean_obj(k): clean_obj(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return type(x)(clean_obj(v) for v in x)
    if hasattr(x, "__struct_fields__"):
        import msgspec

        return msgspec.structs.replace(x, **{f: clean_obj(getattr(x, f)) for f in x.__struct_fields__})
    return x


def clean_frame(df: pd.DataFrame | None) -> pd.DataFrame | None:
    """A copy of `df` whose string columns are cleaned; categoricals only touch their categories
    (one call per distinct value, whatever the row count). Unchanged frames (and None: a report
    merged from per-rank results holds no kernel table) are returned as is."""
    import pandas as pd

    if df is None:
        return None
    out = None
    for c in df.columns:
        s = df[c]
        if isinstance(s.dtype, pd.CategoricalDtype):
            cats = s.cat.categories
            vals = [_clean_value(v) for v in cats]
            if vals == list(cats):
                continue
            if pd.Index(vals).is_unique:
                s = s.cat.rename_categories(vals)
            else:  # two names that differ only in unsafe characters: merge them
                s = s.astype(object).map(_clean_value).astype("category")
        elif s.dtype == object or pd.api.types.is_string_dtype(s.dtype):
            values = _distinct(s)
            if _all_safe(values):
                continue
            mapped = _cleaned(s, values)
            if mapped.equals(s):
                continue
            s = mapped
        else:
            continue
        if out is None:
            out = df.copy(deep=False)
        out[c] = s
    return df if out is None else out


def _distinct(s: pd.Series):
    """The distinct values of a string column as an object array (every value when some cannot be
    hashed): a million rows of a few hundred names are checked as those names."""
    import numpy as np

    try:
        return np.asarray(s.unique(), dtype=object)
    except TypeError:
        return s.to_numpy(dtype=object)


def _clean_value(v: Any) -> Any:
    """`clean` of a str or bytes value; any other value (a number, a missing value) as it is."""
    return clean(v) if isinstance(v, (str, bytes)) else v


def _cleaned(s: pd.Series, values) -> pd.Series:
    """`s` with `clean` applied to its strings and bytes: each distinct value cleaned once and the
    rows that change replaced (a hostile name repeated a million times is cleaned once); every
    row through `clean` when some values cannot be hashed."""
    try:
        changed = {v: c for v in values if isinstance(v, (str, bytes)) and (c := clean(v)) != v}
        rows = s.isin(list(changed)).to_numpy(bool)
    except TypeError:
        return s.map(_clean_value)
    out = s.copy()
    out[rows] = s[rows].map(changed)
    return out


def _all_safe(values) -> bool:
    """True when `clean` would leave every value as it is: no bytes, and no unsafe character in
    any string (one search over all of them joined by a safe space, not one call per row)."""
    if any(isinstance(v, (bytes, bytearray, memoryview)) for v in values):
        return False
    return _UNSAFE.search(" ".join([v for v in values if isinstance(v, str)])) is None


def clean_report(rep):
    """The Report with every string a text or Markdown renderer may print cleaned."""
    return dataclasses.replace(
        rep, meta=clean_obj(rep.meta), notes=clean_obj(list(rep.notes)), steps=clean_frame(rep.steps),
        kernels=clean_frame(rep.kernels), memops=clean_frame(rep.memops), summary=clean_obj(rep.summary),
        collectives=clean_frame(rep.collectives), kernel_totals=clean_frame(getattr(rep, "kernel_totals", None)),
        idle_labels=clean_frame(rep.idle_labels), detail=clean_frame(rep.detail),
        gap_detail=clean_frame(rep.gap_detail))


def clean_trace(trace):
    """The Trace with every string a text renderer may print cleaned."""
    return dataclasses.replace(trace, meta=clean_obj(trace.meta),
                               **{name: clean_frame(t) for name, t in trace.tables().items()})
