"""pyarrow's JSON reader for one piece (entries one per line), against an explicit schema, with the
fixes that make it take values it would otherwise refuse, each decided from the piece's bytes.

`ts` and `dur` are read as decimal microseconds: decimal(22, 3), so microseconds with up to 3
decimals become integer ns exactly (`tables`), or decimal(38, 9) where a time has more decimals
(rounded to ns then). A piece is parsed in BLOCK_BYTES blocks on every core.
"""
from __future__ import annotations

import re
from typing import NamedTuple

import numpy as np

from .fields import INT_ARGS, STR_ARGS, TEXT_SUFFIX

BLOCK_BYTES = 2 << 20  # pyarrow block: a 10 MiB piece is parsed as 5 blocks on every core

_W = rb"[ \t\r\n]*"
# string-valued pid/tid (Kineto's "Spans"/"Traces" rows) are renamed out of the way, so the numeric
# columns stay typed (then, in later pieces, the common spellings first: a plain replace)
_LABEL_IDS = [(b'"pid": "', b'"pi_": "'), (b'"tid": "', b'"ti_": "')]
_LABEL_RE = re.compile(rb'"(pi|ti)d"(' + _W + rb":" + _W + rb'")')
# a number of 30 digits: pyarrow's reader takes it into decimal(38, 9) past that type's precision,
# and rounding it to ns then fails, so a piece holding one is not read wide (`_many_digits`)
_DIGITS = bytes(48 if 48 <= i <= 57 else 32 for i in range(256))  # each digit "0", any other byte " "
# "Input Dims" are read as lists of lists of ints; deeper nests (TensorList inputs) make a piece
# rename the key and take the dims text with a regex, placed by the match's offset
_DIMS = re.compile(rb'"Input[ _]Dims"' + _W + rb":" + _W + rb"(\[[\[\]0-9, \t\r\n-]*\])")

# What pyarrow refuses that a fix makes it take (`refusals`): text where a number belongs, a time
# with more than 3 decimals perhaps (or in exponent form: checked on the table), and Input Dims
# that are not a list of lists of numbers (each list perhaps null)
_TEXT_KEYS = ["pid", "tid"] + [k for k, _ in INT_ARGS]
_TEXT_VALUES: dict = {}  # keys -> regex of a text value at any of them
# (possessive digits: what follows them is never a digit, so giving some back never matches)
_FINE_TIME = re.compile(rb'"(?:ts|dur)"' + _W + rb":" + _W +
                        rb'"?[-+]?[0-9]*+(?:\.[0-9]{3}[0-9]*[1-9]|(?:\.[0-9]*+)?[eE])')
_NUM = rb"-?[0-9]+(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?"
_ITEM = rb"(?:" + _NUM + rb"|null)"
_INNER = rb"(?:null|\[" + _W + rb"(?:" + _ITEM + _W + rb"(?:," + _W + _ITEM + _W + rb")*)?\])"
_SHAPE = rb"(?:null|\[" + _W + rb"(?:" + _INNER + _W + rb"(?:," + _W + _INNER + _W + rb")*)?\])"
# (the blanks after the colon inside the lookahead: not backtracked into)
_ODD_DIMS = re.compile(rb'"Input Dims"' + _W + rb":(?!" + _W + _SHAPE + _W + rb"[,}])")

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


class Read(NamedTuple):
    """pyarrow's table of a piece; `wide`: times read with 9 decimals; `deep`: Input Dims renamed
    out of pyarrow's way (their text is then `deep_dims`)."""
    table: object
    wide: bool
    deep: bool


def read(data: bytes, lens: np.ndarray, hints: set) -> Read | None:
    """pyarrow's table of newline-separated events (event i is lens[i] bytes), or None when
    pyarrow refuses a value that no fix makes it take (the caller then takes the exact path).
    `data` is not changed: fixes apply to a copy. `hints` (kept per file) holds the fixes earlier
    pieces needed, applied to the next ones before parsing rather than after a refused parse."""
    # an event longer than a block may straddle two block boundaries, which pyarrow refuses:
    # such a piece is parsed as one block (the same table, on one core)
    block = BLOCK_BYTES if not lens.size or int(lens.max()) < BLOCK_BYTES else len(data) + 1
    data = _hinted(data, hints)
    deep = "deep" in hints
    tab = _parse(data, False, block)
    if tab is not None:
        return Read(tab, False, deep)
    found = refusals(data)
    wide = "ts" in found and not _many_digits(data)
    if "pid" in found or "tid" in found:
        hints.add("labels")
        data = _LABEL_RE.sub(rb'"\1_"\2', data)
    if "Input Dims" in found:
        hints.add("deep")
        deep = True
        data = data.replace(b'"Input Dims"', b'"Input_Dims"')
    for key, _ in INT_ARGS:
        if key in found:
            hints.add("text:" + key)
            data = _text_field(data, key)
    if not (wide or found - {"ts"}):
        return None
    tab = _parse(data, wide, block)
    if tab is not None and wide and not _fine_times(tab):  # the finer time was not a ts or dur
        return _narrow(data, block, deep)
    return None if tab is None else Read(tab, wide, deep)


def _hinted(data: bytes, hints: set) -> bytes:
    """The fixes earlier pieces needed: text pid/tid renamed (the common spellings: a plain
    replace), Input Dims renamed, integer args written as text moved to their text field."""
    if "labels" in hints:
        for old, new in _LABEL_IDS:
            data = data.replace(old, new)  # the same object when absent: no copy
    if "deep" in hints:
        data = data.replace(b'"Input Dims"', b'"Input_Dims"')
    for key, _ in INT_ARGS:
        if "text:" + key in hints:
            data = _text_field(data, key)
    return data


def _text_field(data: bytes, key: str) -> bytes:
    """Text values of integer arg `key` moved to its "<key> (text)" field (read as numbers there
    when numeric)."""
    k = key.encode()
    return re.sub(b'"' + re.escape(k) + rb'"(' + _W + rb":" + _W + rb'")', b'"' + k + TEXT_SUFFIX.encode() + rb'"\1',
                  data)


def refusals(data: bytes) -> set[str]:
    """What in these events pyarrow's schema refuses and a fix makes it take, found in the bytes:
    the keys that hold text where a number belongs ("pid", "tid", the integer args), "ts" for a
    time that may have more than 3 decimals (one in exponent form too: `read` checks on the
    table), "Input Dims" for dims that are not a list of lists of numbers. A nested key of the
    same name is found too; its fix changes nothing pyarrow reads."""
    found = set()
    keys = list(_TEXT_KEYS)
    at = 0
    while keys:  # one pass over the bytes: each search starts where the last found a key
        k = tuple(keys)
        if k not in _TEXT_VALUES:
            alt = b"|".join(re.escape(x.encode()) for x in k)
            _TEXT_VALUES[k] = re.compile(rb'"(' + alt + rb')"' + _W + rb":" + _W + rb'"')
        m = _TEXT_VALUES[k].search(data, at)
        if m is None:
            break
        found.add(m.group(1).decode())
        keys.remove(m.group(1).decode())
        at = m.start() + 1
    if _FINE_TIME.search(data):
        found.add("ts")
    if _ODD_DIMS.search(data):
        found.add("Input Dims")
    return found


def _many_digits(data: bytes) -> bool:
    """Whether 30 digits follow one another somewhere in `data`."""
    return b"0" * 30 in data.translate(_DIGITS)


def _parse(data: bytes, wide: bool, block: int):
    """pyarrow's table, or None when it refuses a value."""
    import pyarrow as pa
    import pyarrow.json as pj
    try:
        return pj.read_json(pa.BufferReader(pa.py_buffer(data)), read_options=pj.ReadOptions(block_size=block),
                            parse_options=pj.ParseOptions(explicit_schema=schema(wide), newlines_in_values=False,
                                                          unexpected_field_behavior="ignore"))
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        return None


def _fine_times(tab) -> bool:
    """Whether a ts or dur of a wide table has more than 3 decimals."""
    import pyarrow.compute as pc
    for name in ("ts", "dur"):
        col = tab.column(name)
        if pc.any(pc.not_equal(col, pc.round(col, 3, round_mode="half_towards_infinity"))).as_py():
            return True
    return False


def _narrow(data: bytes, block: int, deep: bool) -> Read | None:
    tab = _parse(data, False, block)
    return None if tab is None else Read(tab, False, deep)


def deep_dims(data: bytes, starts: np.ndarray) -> tuple[np.ndarray, list[bytes]]:
    """For a `deep` piece (event i at byte starts[i]): the event row of each "Input Dims" text
    (a nest of integer lists), found by its offset, and the texts."""
    found = [(m.start(), m.group(1)) for m in _DIMS.finditer(data)]
    if not found:
        return np.empty(0, np.int64), []
    pos = np.array([p for p, _ in found], dtype=np.int64)
    return np.searchsorted(starts, pos, side="right") - 1, [t for _, t in found]
