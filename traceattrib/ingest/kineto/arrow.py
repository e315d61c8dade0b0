"""pyarrow's JSON reader for one piece (entries one per line), against an explicit schema, with the
fixes that make it take values it would otherwise refuse.

`ts` and `dur` are read as decimal microseconds: decimal(22, 3), so microseconds with up to 3
decimals become integer ns exactly (`tables`), or decimal(38, 9) where a time has more decimals
(rounded to ns then). A piece is parsed in BLOCK_BYTES blocks on every core.
"""
from __future__ import annotations

import re

import numpy as np

from .fields import INT_ARGS, STR_ARGS, TEXT_SUFFIX

BLOCK_BYTES = 2 << 20  # pyarrow block: a 10 MiB piece is parsed as 5 blocks on every core

_W = rb"[ \t\r\n]*"
# string-valued pid/tid (Kineto's "Spans"/"Traces" rows) are renamed out of the way when pyarrow
# meets them, so the numeric columns stay typed (then, in later pieces, the common spellings first)
_LABEL_IDS = [(b'"pid": "', b'"pi_": "'), (b'"tid": "', b'"ti_": "')]
_LABEL_RE = re.compile(rb'"(pi|ti)d"(' + _W + rb":" + _W + rb'")')
_MANY_DIGITS = re.compile(rb"[0-9]{30}")
# "Input Dims" are read as lists of lists of ints; deeper nests (TensorList inputs) make a piece
# rename the key and take the dims text with a regex, placed by the match's offset
_DIMS = re.compile(rb'"Input[ _]Dims"' + _W + rb":" + _W + rb"(\[[\[\]0-9, \t\r\n-]*\])")

# integer args written as text are moved to a "<key> (text)" field when pyarrow meets them
_INT_KEYS = {k for k, _ in INT_ARGS}
_ARG_TYPE = re.compile(r"Column\(/args/([^)]*)\) changed from (number|string) to (number|string)")

_SCHEMAS: dict = {}


def schema(wide: bool = False):
    """pyarrow schema of the fields we read; `wide` times take up to 9 decimals (rounded later)."""
    if wide not in _SCHEMAS:
        import pyarrow as pa
        i64, s = pa.int64(), pa.string()
        t = pa.decimal128(38, 9) if wide else pa.decimal128(22, 3)
        args = [(k, i64) for k, _ in INT_ARGS] + [(k + TEXT_SUFFIX, s) for k, _ in INT_ARGS] + \
            [(k, s) for k, _ in STR_ARGS] + \
            [("grid", pa.list_(i64)), ("block", pa.list_(i64)), ("Input type", pa.list_(s)),
             ("Input Dims", pa.list_(pa.list_(i64)))]
        _SCHEMAS[wide] = pa.schema([("ph", s), ("cat", s), ("name", s), ("pid", i64), ("tid", i64), ("ts", t),
                                    ("dur", t), ("id", i64), ("args", pa.struct(args))])
    return _SCHEMAS[wide]


def read(data: bytes, hints: set | None = None):
    """(pyarrow table, wide, "", deep) of newline-separated events, or (None, False, pyarrow's
    message, False) when pyarrow refuses a value (the caller then takes the stdlib path). `data`
    is not changed: renames happen on a copy. `deep`: Input Dims were renamed out of pyarrow's way
    (nested deeper than lists of lists of ints). `hints` (kept per file) remembers which fixes
    earlier pieces needed, so the next pieces apply them before parsing, not after a failed parse."""
    import pyarrow as pa
    import pyarrow.json as pj

    hints = set() if hints is None else hints
    wide = deep = False
    if "labels" in hints:
        for old, new in _LABEL_IDS:
            data = data.replace(old, new)  # the same object when absent: no copy
    if "deep" in hints:
        deep = True
        data = data.replace(b'"Input Dims"', b'"Input_Dims"')
    renamed: set = set()
    msg = ""
    block = BLOCK_BYTES
    for _ in range(5 + len(INT_ARGS)):
        try:
            tab = pj.read_json(pa.BufferReader(pa.py_buffer(data)),
                               read_options=pj.ReadOptions(block_size=block),
                               parse_options=pj.ParseOptions(explicit_schema=schema(wide), newlines_in_values=False,
                                                             unexpected_field_behavior="ignore"))
            return tab, wide, "", deep
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError) as e:
            msg = str(e)
        m = _ARG_TYPE.search(msg)
        if "straddl" in msg and block <= len(data):
            block = len(data) + 1  # an event longer than a block: the piece as one block
        elif "requires scale" in msg and not wide and not _MANY_DIGITS.search(data):
            wide = True  # times with more than 3 decimals
        elif ("Column(/pid)" in msg or "Column(/tid)" in msg) and "string" in msg:
            hints.add("labels")
            data = _LABEL_RE.sub(rb'"\1_"\2', data)
        elif "/args/Input Dims" in msg and not deep:
            hints.add("deep")
            deep = True
            data = data.replace(b'"Input Dims"', b'"Input_Dims"')
        elif m and m.group(1) in _INT_KEYS and m.group(1) not in renamed:
            key = m.group(1).encode()
            renamed.add(m.group(1))
            data = re.sub(rb'"' + re.escape(key) + rb'"([ \t\r\n]*:[ \t\r\n]*")',
                          b'"' + key + TEXT_SUFFIX.encode() + rb'"\1', data)
        else:
            return None, False, msg, False
    return None, False, msg, False


def deep_dims(data: bytes, starts: np.ndarray) -> tuple[np.ndarray, list[bytes]]:
    """For a `deep` piece (event i at byte starts[i]): the event row of each "Input Dims" text
    (a nest of integer lists), found by its offset, and the texts."""
    found = [(m.start(), m.group(1)) for m in _DIMS.finditer(data)]
    if not found:
        return np.empty(0, np.int64), []
    pos = np.array([p for p, _ in found], dtype=np.int64)
    return np.searchsorted(starts, pos, side="right") - 1, [t for _, t in found]
