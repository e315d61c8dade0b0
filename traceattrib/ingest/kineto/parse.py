"""Kineto JSON -> columns of the kept events (one numpy array or categorical per field).

One path for every valid JSON layout (Kineto's indented blocks, one line as `json.dump` writes it,
any indentation, keys in any order, `traceEvents` anywhere in the object, or a top-level list of
events), streamed in pieces of about CHUNK_BYTES so memory holds one piece plus the kept columns:

1. msgspec splits a piece into its events: the piece ends at the last `}` `,` `{` in the buffer,
   and decoding it as a JSON array of `msgspec.Raw` both checks that the cut is an event boundary
   (a cut inside a string or a nested object does not decode) and yields each event's bytes;
2. the events, one per line (their own raw newlines made spaces), are parsed by DuckDB (`duck`)
   in a worker thread while the main thread splits the next pieces (up to AHEAD are started) and
   converts finished ones; when the oldest is not parsed yet, the main thread parses a queued one
   itself (`_steal`). A piece holding a value DuckDB would read differently from pyarrow is
   handed over to
3. pyarrow's JSON reader, in BLOCK_BYTES blocks on every core, against an explicit schema.
   Both read `ts` and `dur` as decimal(22, 3), so microseconds with up to 3 decimals become
   integer ns exactly (epoch-scale values like 1.7e15 never pass through float64);
4. a piece pyarrow refuses (a value of the wrong type, NaN, a number out of range, more than 3
   decimals in a time) is read again by the stdlib `json` with Decimal numbers, which checks each
   kept event's fields and names the first bad one (`traceEvents[i].args.correlation: ...`).

Then every column is checked for range on whole arrays (`_validate`): events that cannot be placed
on the timeline are dropped and counted in a warning; out-of-range ids are a TraceError.
"""
from __future__ import annotations

import gzip
import json
import os
import re
import zlib
from collections import deque
from concurrent.futures import Future
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation

import msgspec
import numpy as np
import pandas as pd

from ...errors import TraceError
from ...model import categorical_from
from . import duck
from .names import _types_text

GPU_CATS = {"kernel", "gpu_memcpy", "gpu_memset"}

LAUNCH_CATS = {"cuda_runtime", "cuda_driver"}

RANGE_CATS = {"user_annotation", "gpu_user_annotation"}

OP_CATS = {"cpu_op", "python_function"}

KEEP_CATS = GPU_CATS | LAUNCH_CATS | RANGE_CATS | OP_CATS

BLOCK_BYTES = 2 << 20  # pyarrow block: a 10 MiB piece is parsed as 5 blocks on every core
AHEAD = 4  # pieces started before the oldest is finished (one parsed by the worker, three queued: the main
# thread takes one of them when it would wait; 3 and 4 measured within noise, 4 a little faster)
CHUNK_BYTES = 10 << 20  # decompressed bytes per piece (16 MiB loads a little faster but peaks 30-50 MiB higher)

# ts values that are not times: never a real ns value (both far below -2**62)
TS_MISSING = np.iinfo(np.int64).min
TS_BAD = TS_MISSING + 1
# |time| beyond this is not a time (146 years in ns); it also keeps every later sum inside int64
TIME_LIMIT_NS = 1 << 62
INT32_MAX = (1 << 31) - 1

_INT_ARGS = [("External id", "ext"), ("correlation", "corr"), ("device", "dev"), ("stream", "stream"),
             ("graph id", "graph"), ("bytes", "bytes"), ("In msg nelems", "in_nel"),
             ("Out msg nelems", "out_nel"), ("Group size", "gsize")]
_STR_ARGS = [("Collective name", "coll"), ("dtype", "cdtype"), ("Process Group Name", "pg")]
_DUCK_ARGS = tuple([k for k, _ in _INT_ARGS] + [k for k, _ in _STR_ARGS] + ["grid", "block", "Input type", "Input Dims"])
_DUCK_CATS = tuple(sorted(KEEP_CATS))
_INT_FILL = {"bytes": 0}  # absent -> -1 otherwise
# fields kept as int32 per piece when the piece's values fit (about 30 MB less on 600k events):
# readers of these columns only index them or compare them, never shift or add them
SMALL = ("dev", "stream", "graph", "in_nel", "out_nel", "gsize", "grid0", "grid1", "grid2", "block0", "block1",
         "block2")
NUM = ("idx", "pid", "tid", "ts", "dur", "corr", "dev", "stream", "graph", "bytes", "ext", "in_nel", "out_nel",
       "gsize", "grid0", "grid1", "grid2", "block0", "block1", "block2")
STRS = ("cat", "name", "intypes", "dims", "coll", "cdtype", "pg")

# the end of one event and the start of the next, in any layout
_CUT = re.compile(rb"\}[ \t\r\n]*,[ \t\r\n]*\{")
_WS = b" \t\r\n"
# "Input Dims" are read by pyarrow as lists of lists of ints; deeper nests (TensorList inputs)
# make a piece rename the key and take the dims text with a regex, placed by the match's offset
_DIMS = re.compile(rb'"Input[ _]Dims"[ \t\r\n]*:[ \t\r\n]*(\[[\[\]0-9, \t\r\n-]*\])')
_DIMS_TEXT = re.compile(r"[\[\]0-9,-]*")
# string-valued pid/tid (Kineto's "Spans"/"Traces" rows) are renamed out of the way when pyarrow
# meets them, so the numeric columns stay typed (then, in later pieces, the common spellings first)
_LABEL_IDS = [(b'"pid": "', b'"pi_": "'), (b'"tid": "', b'"ti_": "')]
_LABEL_RE = re.compile(rb'"(pi|ti)d"([ \t\r\n]*:[ \t\r\n]*")')
_MANY_DIGITS = re.compile(rb"[0-9]{30}")
# integer args written as text (ROCm traces write "bytes": "8192" on hipMemcpy calls) are moved
# to a "<key> (text)" field when pyarrow meets them, and read as numbers when they are numeric
TEXT_SUFFIX = " (text)"
_INT_KEYS = {k for k, _ in _INT_ARGS}
_NUMERIC = r"^-?[0-9]{1,18}$"
_ARG_TYPE = re.compile(r"Column\(/args/([^)]*)\) changed from (number|string) to (number|string)")

_RAW_LIST = msgspec.json.Decoder(list[msgspec.Raw])
_RAW_DICT = msgspec.json.Decoder(dict[str, msgspec.Raw])
_ANY = msgspec.json.Decoder()


def read_bytes(path: str) -> bytes:
    """The whole (decompressed) file."""
    try:
        if path.endswith(".gz"):
            with gzip.open(path, "rb") as f:
                return f.read()
        with open(path, "rb") as f:
            return f.read()
    except (EOFError, gzip.BadGzipFile, zlib.error) as e:
        raise TraceError(f"{path}: corrupt or truncated gzip file ({e})") from None
    except OSError as e:
        raise TraceError(f"{path}: cannot read ({e.strerror or e})") from None


# -- pyarrow --------------------------------------------------------------------------------------

_SCHEMAS: dict = {}


def _schema(wide: bool = False):
    """pyarrow schema of the fields we read; `wide` times take up to 9 decimals (rounded later)."""
    if wide not in _SCHEMAS:
        import pyarrow as pa
        i64, s = pa.int64(), pa.string()
        t = pa.decimal128(38, 9) if wide else pa.decimal128(22, 3)
        args = [(k, i64) for k, _ in _INT_ARGS] + [(k + TEXT_SUFFIX, s) for k, _ in _INT_ARGS] + \
            [(k, s) for k, _ in _STR_ARGS] + \
            [("grid", pa.list_(i64)), ("block", pa.list_(i64)), ("Input type", pa.list_(s)),
             ("Input Dims", pa.list_(pa.list_(i64)))]
        _SCHEMAS[wide] = pa.schema([("ph", s), ("cat", s), ("name", s), ("pid", i64), ("tid", i64), ("ts", t),
                                    ("dur", t), ("id", i64), ("args", pa.struct(args))])
    return _SCHEMAS[wide]


def _decimal_ns(col, wide: bool) -> tuple[np.ndarray, np.ndarray]:
    """Decimal microseconds -> (int64 ns, null mask); values outside int64 become TS_BAD.

    decimal128(22, 3) holds microseconds x 1000 as its unscaled integer: that integer is the ns
    value, read from the array's 128-bit buffer (low word, checked against the high word)."""
    import pyarrow as pa
    import pyarrow.compute as pc
    if wide:  # round half away from zero to 3 decimals, then the same unscaled read
        col = pc.cast(pc.round(col, 3, round_mode="half_towards_infinity"), pa.decimal128(38, 3))
    arr = col.combine_chunks() if isinstance(col, pa.ChunkedArray) else col
    n = len(arr)
    null = np.asarray(arr.is_null()) if arr.null_count else np.zeros(n, bool)
    if not n:
        return np.empty(0, np.int64), null
    words = np.frombuffer(arr.buffers()[1], dtype=np.int64, count=2 * (arr.offset + n))[2 * arr.offset:]
    lo, hi = words[0::2].copy(), words[1::2]
    bad = (hi != (lo >> 63)) & ~null
    lo[bad] = TS_BAD
    return lo, null


class _Strings:
    """Global dictionary for one string column, fed piece by piece."""

    def __init__(self) -> None:
        self.index: dict[str, int] = {}
        self.codes: list[np.ndarray] = []
        self.bad_utf8 = 0

    def add_arrow(self, arr, sel: np.ndarray | None = None, blank: bool = False) -> None:
        """The rows of `arr` (those where `sel` is true, when given), a string or dictionary array;
        nulls are missing, or "" when `blank`."""
        import pyarrow as pa
        import pyarrow.compute as pc
        if isinstance(arr, pa.ChunkedArray):
            arr = arr.chunk(0) if arr.num_chunks == 1 else arr.combine_chunks()
        d = arr if pa.types.is_dictionary(arr.type) else pc.dictionary_encode(arr)
        local = d.dictionary
        codes = d.indices.fill_null(len(local)).to_numpy(zero_copy_only=False)
        if sel is not None:  # rows picked on the codes: no copy of the strings
            codes = codes[sel]
        try:
            local.validate(full=True)
            vals = local.to_pylist()
        except pa.ArrowInvalid:  # bytes that are not UTF-8: decoded with U+FFFD, counted
            raw = local.view(pa.binary()).to_pylist()
            vals = [v.decode("utf-8", "replace") for v in raw]
            bad = np.array([v.encode() != r for v, r in zip(vals, raw)] + [False])
            self.bad_utf8 += int(bad[codes].sum())
        self._add(vals, codes, blank)

    def add_list(self, values: list) -> None:
        codes, uniq = pd.factorize(np.array(values, dtype=object))
        vals = [_clean(v) for v in uniq]
        self.bad_utf8 += sum(int((codes == i).sum()) for i, (a, b) in enumerate(zip(uniq, vals)) if a != b)
        self._add(vals, np.where(codes < 0, len(vals), codes))

    def _add(self, vals: list, codes: np.ndarray, blank: bool = False) -> None:
        """Values `vals` at `codes` (code len(vals): null, missing or "" when `blank`)."""
        idx = self.index
        m = np.fromiter((idx.setdefault(s, len(idx)) for s in vals), dtype=np.int32, count=len(vals))
        m = np.append(m, np.int32(idx.setdefault("", len(idx)) if blank else -1))
        self.codes.append(m[codes])

    def categorical(self, keep: np.ndarray | None = None) -> pd.Categorical:
        codes = np.concatenate(self.codes) if self.codes else np.empty(0, np.int32)
        if keep is not None:
            codes = codes[keep]
        return categorical_from(codes, np.array(list(self.index), dtype=object))


def _dims_arrow(dims):
    """list<list<int64>> -> compact JSON text per row ("[[1,256],[],[4096]]"); "" when absent or
    when an inner list is null (the regex path does not take those either)."""
    import pyarrow as pa
    import pyarrow.compute as pc
    if not len(dims):
        return pa.array([], pa.string())
    inner = pc.list_flatten(dims)
    joined = pc.binary_join(pc.cast(inner, pa.list_(pa.string())), ",")
    wrapped = pc.binary_join_element_wise("[", joined, "]", "")
    offsets = dims.offsets if dims.offset == 0 else pc.subtract(dims.offsets, dims.offsets[0])
    outer = pa.ListArray.from_arrays(offsets, wrapped)
    text = pc.binary_join_element_wise("[", pc.binary_join(outer, ","), "]", "")
    return pc.if_else(dims.is_null(), "", text).fill_null("")


def _list_item(lst, i: int, fill: int) -> np.ndarray:
    """Item i of each list of a list<int64> array as int64; `fill` where the list is null, shorter
    or the item null (as the stdlib path reads a short "grid")."""
    import pyarrow.compute as pc
    n = len(lst)
    if not n:
        return np.empty(0, np.int64)
    lens = pc.list_value_length(lst).fill_null(0).to_numpy(zero_copy_only=False)
    offsets = np.asarray(lst.offsets)[:n]  # sliced arrays: offsets index the (unsliced) values
    values = lst.values.fill_null(fill).to_numpy(zero_copy_only=False).astype(np.int64)
    has = lens > i
    out = np.full(n, fill, np.int64)
    out[has] = values[offsets[has] + i]
    return out


def _clean(s):
    """A str from the stdlib parser without lone surrogates (they become U+FFFD)."""
    if s is None:
        return None
    try:
        s.encode("utf-8")
        return s
    except UnicodeEncodeError:
        return s.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


class _Acc:
    """Kept columns accumulated piece by piece (from pyarrow tables or from stdlib-parsed events)."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.num: dict[str, list[np.ndarray]] = {k: [] for k in NUM}
        self.flows: dict[str, list[np.ndarray]] = {k: [] for k in ("pid", "tid", "ts", "id")}
        self.str = {k: _Strings() for k in STRS}
        self.events = 0          # events seen so far (the index of the next one)
        self.hints: set = set()  # fixes earlier pieces needed before pyarrow took them (see _arrow)
        self.issues: dict[str, list] = {}  # what -> [count, where the first one is]

    # -- pyarrow path ---------------------------------------------------------------------------

    def add_arrow(self, tab, wide: bool, dims_rows: np.ndarray | None, dims_text: list[bytes], first: int,
                  entries: np.ndarray | None = None) -> None:
        """One piece's pyarrow table: row k is traceEvents[first + k] (or first + entries[k])."""
        import pyarrow as pa
        import pyarrow.compute as pc

        ph, cat = tab.column("ph"), tab.column("cat")
        keep = pc.fill_null(pc.and_(pc.equal(ph, "X"), pc.is_in(cat, pa.array(sorted(KEEP_CATS)))), False)
        flow = pc.fill_null(pc.and_(pc.equal(ph, "f"), pc.equal(cat, "ac2g")), False)
        rows = np.flatnonzero(np.asarray(keep))
        fl = tab.filter(flow)
        t = tab.filter(keep).combine_chunks()
        del tab
        idx = (rows if entries is None else entries[rows]).astype(np.int64) + first
        self.add_split(t, fl, idx, wide, dims_rows, dims_text, rows)

    def add_split(self, t, fl, idx: np.ndarray, wide: bool, dims_rows: np.ndarray | None = None,
                  dims_text: list[bytes] = (), rows: np.ndarray | None = None, sel: np.ndarray | None = None) -> None:
        """The kept events (table `t`, event numbers `idx`) and the flow ends (`fl`) of one piece.
        `rows`: each kept event's row in the piece, to place `dims_rows` regex matches. `sel`: the
        kept rows of `t`, when it holds others too (picked from the converted columns, so the
        table is never filtered: a filter copies every string)."""
        import pyarrow as pa
        import pyarrow.compute as pc

        def ints(col, fill=-1) -> np.ndarray:
            return col.fill_null(fill).to_numpy(zero_copy_only=False).astype(np.int64)

        def pick(a: np.ndarray) -> np.ndarray:
            return a if sel is None else a[sel]

        def times(col, missing) -> np.ndarray:
            ns, null = _decimal_ns(col, wide)
            ns[null] = missing
            return ns

        args = t.column("args")
        if isinstance(args, pa.ChunkedArray):  # (one chunk: taken as is, combining would copy it)
            args = args.chunk(0) if args.num_chunks == 1 else args.combine_chunks()
        num = self.num
        num["idx"].append(idx)
        num["pid"].append(pick(ints(t.column("pid"))))
        num["tid"].append(pick(ints(t.column("tid"))))
        num["ts"].append(pick(times(t.column("ts"), TS_MISSING)))
        num["dur"].append(pick(times(t.column("dur"), 0)))
        for key, name in _INT_ARGS:
            v = ints(args.field(key), _INT_FILL.get(name, -1))
            text = args.field(key + TEXT_SUFFIX)
            if text.null_count < len(text):  # numbers written as text
                numeric = np.asarray(pc.match_substring_regex(text, _NUMERIC).fill_null(False))
                if numeric.any():
                    parsed = pc.cast(pc.if_else(pa.array(numeric), text, "0"), pa.int64()).to_numpy()
                    v[numeric] = parsed[numeric]
                bad = pick(np.asarray(text.is_valid()) & ~numeric)
                if bad.any():
                    self.issue("values in integer fields are not integers and were taken as unknown",
                               f"traceEvents[{int(idx[np.flatnonzero(bad)[0]])}].args.{key}", int(bad.sum()))
            self.keep(name, pick(v))
        for k in ("grid", "block"):
            if args.type.get_field_index(f"{k}0") >= 0:  # the items already apart (the DuckDB path)
                for i in range(3):
                    self.keep(f"{k}{i}", pick(args.field(f"{k}{i}").to_numpy()))
                continue
            lst = args.field(k)
            for i in range(3):
                self.keep(f"{k}{i}", pick(_list_item(lst, i, 0)))
        intypes = args.field("Input type")
        if not pa.types.is_list(intypes.type):  # already joined (the DuckDB path)
            joined = intypes
        else:
            joined = pc.binary_join(intypes, ",") if len(intypes) else pa.array([], pa.string())
        s = self.str
        s["cat"].add_arrow(t.column("cat"), sel)
        s["name"].add_arrow(t.column("name"), sel, blank=True)
        s["intypes"].add_arrow(joined, sel, blank=True)
        for key, name in _STR_ARGS:
            s[name].add_arrow(args.field(key), sel)
        dims = args.field("Input Dims")
        if not pa.types.is_list(dims.type):  # already text (the DuckDB path)
            s["dims"].add_arrow(dims, sel, blank=True)
        elif dims_rows is None:  # Input Dims text of the kept rows, built by arrow
            s["dims"].add_arrow(_dims_arrow(dims))
        else:  # regex matches placed by event row
            dims = np.full(rows.size, "", dtype=object)
            if len(dims_rows):
                at = np.searchsorted(rows, dims_rows)
                hit = (at < rows.size) & (rows[np.minimum(at, rows.size - 1)] == dims_rows)
                texts = np.array([d.translate(None, _WS).decode() for d in dims_text], dtype=object)
                dims[at[hit]] = texts[hit]
            s["dims"].add_list(list(dims))
        self.flows["pid"].append(ints(fl.column("pid")))
        self.flows["tid"].append(ints(fl.column("tid")))
        self.flows["ts"].append(times(fl.column("ts"), TS_MISSING))
        self.flows["id"].append(ints(fl.column("id")))

    # -- stdlib path ----------------------------------------------------------------------------

    def add_events(self, events: list, first: int, rows: np.ndarray | None = None) -> None:
        """Stdlib-parsed events (numbers as int or Decimal), with the pyarrow path's rules: a
        value of the wrong type is taken as unknown and counted (see `issue`). Event k is
        traceEvents[first + k], or traceEvents[first + rows[k]] when `rows` is given."""
        cols: dict[str, list] = {k: [] for k in NUM}
        strs: dict[str, list] = {k: [] for k in STRS}
        fpid, ftid, fts, fid = [], [], [], []
        for k, e in enumerate(events):
            i = first + (k if rows is None else int(rows[k]))
            if not isinstance(e, dict):
                self.issue("traceEvents entries are not JSON objects and were skipped", f"traceEvents[{i}]")
                continue
            cat, ph = e.get("cat"), e.get("ph")
            if not isinstance(cat, str) or not isinstance(ph, str):
                continue
            if ph == "f" and cat == "ac2g":
                fpid.append(self._label_id(e, "pid", i))
                ftid.append(self._label_id(e, "tid", i))
                fts.append(_time(e.get("ts"), TS_MISSING))
                fid.append(self._int(e.get("id"), -1, i, "id"))
                continue
            if ph != "X" or cat not in KEEP_CATS:
                continue
            a = e.get("args")
            if a is None:
                a = {}
            elif not isinstance(a, dict):
                self.issue("events have args that are not an object (ignored)", f"traceEvents[{i}].args")
                a = {}
            name = e.get("name", "")
            if name is None:
                name = ""
            elif not isinstance(name, str):
                self.issue("event names are not strings (taken as empty)", f"traceEvents[{i}].name")
                name = ""
            cols["idx"].append(i)
            cols["pid"].append(self._label_id(e, "pid", i))
            cols["tid"].append(self._label_id(e, "tid", i))
            cols["ts"].append(_time(e.get("ts"), TS_MISSING))
            cols["dur"].append(_time(e.get("dur"), 0))
            for key, col in _INT_ARGS:
                cols[col].append(self._int(a.get(key), _INT_FILL.get(col, -1), i, f"args.{key}"))
            for key in ("grid", "block"):
                v = a.get(key)
                if v is not None and not isinstance(v, list):
                    self.issue("values in integer fields are not integers and were taken as unknown",
                               f"traceEvents[{i}].args.{key}")
                    v = None
                for j in range(3):
                    x = v[j] if v is not None and len(v) > j else None
                    cols[f"{key}{j}"].append(self._int(x, 0, i, f"args.{key}[{j}]"))
            strs["cat"].append(cat)
            strs["name"].append(name)
            strs["intypes"].append(_types_text(a.get("Input type")))
            strs["dims"].append(_dims_text(a.get("Input Dims")))
            for key, col in _STR_ARGS:
                v = a.get(key)
                strs[col].append(None if v is None else str(v))
        for k in NUM:
            self.keep(k, np.array(cols[k], dtype=np.int64))
        for k in STRS:
            self.str[k].add_list(strs[k])
        self.flows["pid"].append(np.array(fpid, dtype=np.int64))
        self.flows["tid"].append(np.array(ftid, dtype=np.int64))
        self.flows["ts"].append(np.array(fts, dtype=np.int64))
        self.flows["id"].append(np.array(fid, dtype=np.int64))

    def keep(self, name: str, v: np.ndarray) -> None:
        """Append one piece's int64 values of column `name` (as int32 where SMALL allows)."""
        if name in SMALL and (not v.size or (int(v.min()) >= -(1 << 31) and int(v.max()) <= INT32_MAX)):
            v = v.astype(np.int32)
        self.num[name].append(v)

    def _int(self, v, fill: int, i: int, field: str) -> int:
        """An integer field: an int within int64, or numeric text; anything else is `fill`, counted."""
        if v is None:
            return fill
        if isinstance(v, str) and re.fullmatch(_NUMERIC, v):
            return int(v)
        if isinstance(v, int) and not isinstance(v, bool) and -(1 << 63) <= v < (1 << 63):
            return v
        self.issue("values in integer fields are not integers and were taken as unknown",
                   f"traceEvents[{i}].{field}")
        return fill

    def _label_id(self, e: dict, key: str, i: int) -> int:
        """pid/tid: an integer, or -1 for a text label (Kineto's "Spans" rows) or when absent."""
        v = e.get(key)
        if v is None or isinstance(v, str):
            return -1
        return self._int(v, -1, i, key)

    def issue(self, what: str, where: str, n: int = 1) -> None:
        """Count `n` values the reader could not use (reported as one warning per kind)."""
        if what in self.issues:
            self.issues[what][0] += n
        else:
            self.issues[what] = [n, where]

    def arrays(self) -> dict:
        def cat(parts: list) -> np.ndarray:
            out = np.concatenate(parts) if len(parts) > 1 else parts[0] if parts else np.empty(0, np.int64)
            parts.clear()  # one column's pieces freed before the next column is joined
            return out

        n = {k: cat(v) for k, v in self.num.items()}
        s = {k: v.categorical() for k, v in self.str.items()}
        for v in self.str.values():
            v.codes.clear()
        out = {k: n[k] for k in ("idx", "pid", "tid", "ts", "dur", "corr", "dev", "stream", "graph", "bytes", "ext",
                                 "in_nel", "out_nel", "gsize")}
        out["grid"] = [n[f"grid{i}"] for i in range(3)]
        out["block"] = [n[f"block{i}"] for i in range(3)]
        out.update(s)
        out["flows"] = {k: cat(v) for k, v in self.flows.items()}
        out["warnings"] = []
        bad = sum(v.bad_utf8 for v in self.str.values())
        if bad:
            out["warnings"].append(f"{bad:,} event names or args are not valid UTF-8 or hold lone surrogates "
                                   "(shown with U+FFFD)")
        for what, (n, where) in self.issues.items():
            out["warnings"].append(f"{n:,} {what} (first: {where})")
        return out


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


class _Const:
    """NaN / Infinity literals (parse_constant) kept apart from real numbers."""
    __slots__ = ("text",)

    def __init__(self, text: str):
        self.text = text


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


def _loads(data: bytes, acc: _Acc | None = None, where: str = ""):
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


# -- the stream -----------------------------------------------------------------------------------

class _Stream:
    """The decompressed file in a sliding buffer: buf[pos:filled] is unread; `base` is the file
    offset of buf[0]. One byte before `pos` is always free (the '[' of the piece being decoded)."""

    def __init__(self, path: str, f):
        self.path, self.f = path, f
        self.buf = bytearray(CHUNK_BYTES)
        self.filled = self._fill(1) + 1
        self.pos = 1
        self.base = -1
        self.eof = self.filled < len(self.buf)

    def _fill(self, start: int) -> int:
        mv = memoryview(self.buf)
        got = start
        while got < len(self.buf):
            n = self.f.readinto(mv[got:])
            if not n:
                break
            got += n
        mv.release()
        return got - start

    def more(self) -> bool:
        """Move the unread bytes to the front and read more; grow the buffer when the unread
        bytes already fill it. False at the end of the file."""
        if self.eof:
            return False
        rest = self.filled - self.pos
        if self.pos > 1:
            self.buf[1:1 + rest] = self.buf[self.pos:self.filled]
            self.base += self.pos - 1
            self.pos = 1
        if rest + 1 >= len(self.buf):
            self.buf.extend(bytes(len(self.buf)))
        self.filled = 1 + rest + self._fill(1 + rest)
        self.eof = self.filled < len(self.buf)
        return True

    def skip_ws(self) -> int:
        """Position of the next non-blank byte (reading more as needed); -1 at the end."""
        while True:
            i = self.pos
            b = self.buf
            while i < self.filled and b[i] in _WS:
                i += 1
            if i < self.filled:
                self.pos = i
                return i
            self.pos = i
            if not self.more():
                return -1

    def at(self, i: int) -> int:
        """File offset of buf[i]."""
        return self.base + i


def read_columns(path: str, step=None) -> tuple[dict, dict]:
    """(header, columns) of one trace file (.json or .json.gz)."""
    try:
        f = gzip.open(path, "rb") if path.endswith(".gz") else open(path, "rb", buffering=0)
    except OSError as e:
        raise TraceError(f"{path}: cannot read ({e.strerror or e})") from None
    try:
        with f:
            header, acc = _read(path, f, _position(f, path, step))
    except (EOFError, gzip.BadGzipFile, zlib.error) as e:
        raise TraceError(f"{path}: corrupt or truncated gzip file ({e})") from None
    except OSError as e:
        raise TraceError(f"{path}: cannot read ({e.strerror or e})") from None
    cols = acc.arrays()
    header = _check_header(path, header, cols["warnings"])
    return header, _validate(path, cols)


def _position(f, path: str, step):
    """A callback reporting how far into the file (compressed bytes for .gz) the stream is."""
    if step is None:
        return None
    raw = getattr(f, "fileobj", f)  # GzipFile reads from the compressed file object
    try:
        size = max(os.path.getsize(path), 1)
    except OSError:
        return None

    def report() -> None:
        try:
            step(0.9 * min(raw.tell() / size, 1.0), "parsing")
        except (OSError, ValueError):
            pass
    return report


def _read(path: str, f, report=None) -> tuple[dict, _Acc]:
    s = _Stream(path, f)
    acc = _Acc(path)
    i = s.skip_ws()
    if i >= 0 and s.buf[i:i + 3] == b"\xef\xbb\xbf":  # a UTF-8 byte order mark
        s.pos = i + 3
        i = s.skip_ws()
    if i < 0:
        raise TraceError(f"{path}: empty file")
    first = s.buf[i]
    if first == ord("["):
        top_list, header = True, {}
        s.pos = i + 1
    elif first == ord("{"):
        top_list, header = False, _find_events(s)
    else:
        raise TraceError(f"{path}: not a torch.profiler JSON trace (does not start with a JSON object or array)")
    parser = duck.parser()
    pending: deque = deque()  # started pieces in file order (DuckDB parses them in `parser`)
    try:
        while True:
            s.more()  # unread bytes to the front, the rest of the buffer filled
            i = s.skip_ws()
            if i < 0:
                raise TraceError(f"{path}: traceEvents array is not closed (truncated file?)")
            if s.eof:
                tail, piece = _last_piece(s, acc, top_list)
                header.update(tail)
                pending.append(_start_piece(piece, acc, parser))
                _finish_pieces(path, pending, parser, acc, keep=0)
                break
            if s.buf[i] == ord("]"):  # the array ends before the buffer does: read to the end
                while s.more():
                    pass
                continue
            piece = _next_piece(s, acc, None if parser is None else _staged)
            if piece is None:  # one event larger than the buffer: more() grows it
                continue
            pending.append(_start_piece(piece, acc, parser))
            if len(pending) >= AHEAD:
                _finish_pieces(path, pending, parser, acc, keep=AHEAD - 1)
                if report:
                    report()
    finally:
        if parser is not None:
            parser.close()
        for job in pending:  # an error stopped the read before these pieces' turn
            if job[0].fd >= 0:
                os.close(job[0].fd)
    _release_arrow_memory()
    _trim_heap()
    return header, acc


def _trim_heap() -> None:
    """Hand the C heap's free pages back to the system once the pieces are gone (glibc keeps
    them, so the tables built next would otherwise sit on top of them: on a 312 MiB trace the
    build starts about 130 MiB lower and its peak is 35-60 MiB lower)."""
    try:
        import ctypes
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):  # not glibc
        pass


def _release_arrow_memory() -> None:
    """Give the pieces' freed Arrow buffers back to the system (about 30 MiB less peak on a 312 MiB
    trace: the allocator otherwise keeps them for reuse that never comes)."""
    import pyarrow as pa
    pa.default_memory_pool().release_unused()


def _find_events(s: _Stream) -> dict:
    """Move to the first byte inside the top-level "traceEvents" array; the keys before it."""
    path = s.path
    start = s.pos
    while True:
        k = s.buf.find(b'"traceEvents"', start, s.filled)
        if k < 0:
            if s.eof:
                raise TraceError(f"{path}: not a torch.profiler trace (no traceEvents array)")
            start = max(s.pos, s.filled - 16)
            off = start - s.pos
            s.more()
            start = s.pos + off
            continue
        j = k + len(b'"traceEvents"')
        while j < s.filled and s.buf[j] in _WS:
            j += 1
        if j < s.filled and s.buf[j] == ord(":"):
            j += 1
            while j < s.filled and s.buf[j] in _WS:
                j += 1
            if j < s.filled and s.buf[j] == ord("["):
                try:  # the keys before: valid JSON only when this key is a top-level one
                    head = _ANY.decode(bytes(s.buf[s.pos:j + 1]) + b"]}")
                except (msgspec.DecodeError, RecursionError):
                    head = None
                if isinstance(head, dict):
                    head.pop("traceEvents", None)
                    s.pos = j + 1
                    return head
        start = k + 1


def _next_piece(s: _Stream, acc: _Acc, sink=None):
    """Decode the complete events in buf[pos:filled] up to the last event boundary (at most
    CHUNK_BYTES); None when no boundary is in the buffer (the caller reads more). `sink` makes
    the piece of the validated events (default `_join`)."""
    buf, pos = s.buf, s.pos
    hi = min(s.filled, pos + CHUNK_BYTES)
    lo = max(pos, hi - (1 << 20))
    cuts: list = []
    while not cuts:
        cuts = list(_CUT.finditer(buf, lo, hi))
        if lo == pos:
            break
        lo = max(pos, lo - (8 << 20))
    if not cuts:
        return None
    errors: list = []
    for m in cuts[::-1][:3]:  # the last boundary candidate, or one of the two before it
        piece = _decode_events(buf, pos, m.start() + 1, errors, sink or _join)
        if piece is not None:
            s.pos = m.end() - 1
            return piece
    # none decodes: the stdlib parser decides (lone surrogates, or malformed JSON)
    m = cuts[-1]
    events = _stdlib_events(s, pos, m.start() + 1, errors, acc)
    s.pos = m.end() - 1
    return events


class _Joined:
    """One piece's entries, each on its own line of `data` (entry i is data[start[i]:start[i] + lens[i]]).
    While DuckDB reads it, the bytes live in a memfd (`fd`) and `data` is None."""
    __slots__ = ("data", "lens", "fd")

    def __init__(self, data: bytes, lens: np.ndarray):
        self.data, self.lens, self.fd = data, lens, -1

    def __len__(self) -> int:
        return self.lens.size


def _starts(lens: np.ndarray) -> np.ndarray:
    """Offsets of the entries of a joined piece."""
    return np.concatenate([[0], np.cumsum(lens + 1)[:-1]]).astype(np.int64)


def _lens(raws) -> np.ndarray:
    return np.fromiter(map(len, raws), dtype=np.int64, count=len(raws))


def _lines(raws) -> bytes:
    """Validated entries, each followed by a newline. Their own raw newlines can only be
    whitespace (msgspec refuses a raw control character inside a string), so they become spaces:
    with one entry per line, pyarrow and DuckDB parse a piece by lines. U+001E (never raw in
    valid JSON) marks the entry ends meanwhile; two replaces measured 2x faster than one translate."""
    return (b"\x1e".join(raws) + b"\x1e").replace(b"\n", b" ").replace(b"\x1e", b"\n")


def _join(raws) -> _Joined:
    """Validated entries one per line."""
    return _Joined(_lines(raws), _lens(raws))


def _staged(raws) -> _Joined:
    """Validated entries one per line, written into a memfd for DuckDB a few thousand at a time
    (the whole piece is never joined in memory)."""
    piece = _Joined(None, _lens(raws))
    piece.fd = duck.stage(_lines(raws[i:i + 4096]) for i in range(0, len(raws), 4096))
    return piece


def _decode_events(buf: bytearray, a: int, b: int, errors: list, sink=_join) -> _Joined | None:
    """Each entry of buf[a:b] ("ev, ev, ..., ev"), decoded as a JSON array between a temporary
    '[' at a-1 and ']' at b, one per line (`sink`); None when that is not a JSON array."""
    grow = b >= len(buf)
    if grow:
        buf.append(0)
    saved = buf[a - 1], buf[b]
    buf[a - 1], buf[b] = ord("["), ord("]")
    mv = memoryview(buf)[a - 1:b + 1]
    try:
        raws = _RAW_LIST.decode(mv)
        out = sink(raws)  # the Raw objects are views of `buf`: copied out before it changes
        del raws
        return out
    except (msgspec.DecodeError, RecursionError) as e:
        errors.append(e)
        return None
    finally:
        mv.release()
        buf[a - 1], buf[b] = saved
        if grow:
            del buf[-1]


def _stdlib_events(s: _Stream, a: int, b: int, errors: list, acc: _Acc) -> list:
    """Events of buf[a:b] by the stdlib parser (marked as already parsed); TraceError when the
    JSON is malformed there."""
    try:
        events = _loads(b"[" + bytes(s.buf[a:b]) + b"]", acc, f"traceEvents after event {acc.events:,}")
    except RecursionError:
        raise TraceError(f"{s.path}: JSON nested too deeply in traceEvents (after event {acc.events:,}, "
                         f"near byte {s.at(a):,})") from None
    except ValueError as e:
        msg = str(errors[0]) if errors else str(e)
        raise TraceError(f"{s.path}: malformed JSON in traceEvents after event {acc.events:,} "
                         f"(near byte {s.at(a):,}: {msg})") from None
    return _Parsed(events)


class _Parsed(list):
    """Events already parsed by the stdlib (a piece msgspec refused)."""


def _last_piece(s: _Stream, acc: _Acc, top_list: bool) -> tuple[dict, _Joined | _Parsed]:
    """The rest of the file: (the keys after the array (object form), the last events)."""
    rest = bytes(s.buf[s.pos:s.filled])
    doc = (b"[" if top_list else b'{"traceEvents":[') + rest
    try:
        if top_list:
            raws, tail = _RAW_LIST.decode(doc), {}
        else:
            d = _RAW_DICT.decode(doc)
            raws = _RAW_LIST.decode(d.pop("traceEvents"))
            tail = {k: _ANY.decode(v) for k, v in d.items()}
        raws = _join(raws)
    except (msgspec.DecodeError, RecursionError) as e:
        try:
            parsed = _loads(doc, acc, f"traceEvents after event {acc.events:,}")
        except RecursionError:
            raise TraceError(f"{s.path}: JSON nested too deeply (after event {acc.events:,})") from None
        except ValueError:
            raise TraceError(f"{s.path}: malformed JSON after event {acc.events:,} (near byte "
                             f"{s.at(s.pos):,}: {_msgspec_msg(e, s.at(s.pos) - (1 if top_list else 16))})") from None
        if top_list:
            raws, tail = _Parsed(parsed), {}
        else:
            ev = parsed.pop("traceEvents", [])
            raws, tail = _Parsed(ev if isinstance(ev, list) else []), parsed
    return tail, raws


def _msgspec_msg(e: Exception, offset: int) -> str:
    """msgspec's message with its byte position made a file offset."""
    m = re.search(r"\(byte (\d+)\)", str(e))
    if not m:
        return str(e)
    return str(e).replace(m.group(0), f"(byte {int(m.group(1)) + offset:,})")


def _start_piece(piece, acc: _Acc, parser) -> tuple:
    """Number one piece's entries (acc.events); DuckDB starts parsing it in `parser` (None: not used)."""
    first = acc.events
    acc.events += len(piece)
    fut = None
    if parser is not None and len(piece) and not isinstance(piece, _Parsed):
        if piece.fd < 0:  # the bytes are read back only if needed
            piece.fd, piece.data = duck.stage([piece.data]), None
        fut = parser.submit(piece.fd, _DUCK_ARGS, _DUCK_CATS)
    return piece, first, fut


def _finish_pieces(path: str, pending: deque, parser, acc: _Acc, keep: int) -> None:
    """Finish the oldest started pieces, in file order, until `keep` remain; while the oldest is
    not parsed yet, this thread parses a queued one (`_steal`) rather than wait."""
    while len(pending) > keep:
        if _steal(pending, parser):
            continue
        _finish_piece(path, pending.popleft(), acc)  # (closes its memfd, even when it raises)
        _release_arrow_memory()


def _steal(pending: deque, parser) -> bool:
    """Whether the calling thread parsed a queued piece: when the oldest piece is not parsed yet,
    the newest piece the worker has not begun is parsed here instead of waiting. DuckDB's parse is
    the longer of the two threads' work per piece (about 0.08 s against 0.05 s per 10 MiB), so
    without this the main thread waited 0.5-0.7 s per 300 MiB load."""
    if pending[0][2] is None or pending[0][2].done():  # (no parser: no futures)
        return False
    for j in range(len(pending) - 1, 0, -1):
        piece, first, fut = pending[j]
        if fut is not None and fut.cancel():  # (only a piece the worker has not begun cancels)
            stolen = Future()
            try:
                stolen.set_result(parser.parse(piece.fd, _DUCK_ARGS, _DUCK_CATS))
            except Exception as e:  # raised where the worker's result would be
                stolen.set_exception(e)
            pending[j] = (piece, first, stolen)
            return True
    return False


def _finish_piece(path: str, job: tuple, acc: _Acc) -> None:
    """Columns of one started piece's events: DuckDB's or pyarrow's when they can, else the
    stdlib with field checks."""
    piece, first, fut = job
    if not len(piece):
        return
    if isinstance(piece, _Parsed):
        acc.add_events(piece, first)
        return
    lens = piece.lens
    rows = None  # entry number of each line of `data`, when some entries were left out
    if fut is not None:
        try:
            raw = fut.result()
            got = None if raw is None else \
                duck.conform(raw, piece.fd, _starts(lens), lens, _INT_ARGS, _STR_ARGS, TEXT_SUFFIX)
            del raw
            if got is not None:
                events, flows, entries, kept = got
                acc.add_split(events, flows, entries + first, False, sel=kept)
                return
            piece.data = duck.read_back(piece.fd)
        finally:
            os.close(piece.fd)
            piece.fd = -1
    data = piece.data
    tab, wide, msg, deep = _arrow(data, acc.hints)
    if tab is None and "Column() changed" in msg:  # entries that are not objects: skip them
        starts = _starts(lens)
        ok = np.frombuffer(data, dtype=np.uint8)[starts] == ord("{")
        if not ok.all():
            acc.issue("traceEvents entries are not JSON objects and were skipped",
                      f"traceEvents[{first + int(np.flatnonzero(~ok)[0])}]", int((~ok).sum()))
            rows = np.flatnonzero(ok)
            if not rows.size:
                return
            data = b"\n".join(data[a:a + n] for a, n in zip(starts[rows].tolist(), lens[rows].tolist()))
            lens = lens[rows]
            tab, wide, msg, deep = _arrow(data, acc.hints)
    if tab is None:  # a value pyarrow cannot take: the stdlib reads the piece and names it
        starts = _starts(lens)
        acc.add_events(_loads(b"[" + b",".join(data[a:a + n] for a, n in zip(starts.tolist(), lens.tolist()))
                              + b"]", acc, f"traceEvents[{first:,}] onwards"), first, rows)
        return
    # dims too deep for arrow: the event row of each "Input Dims" match, from its offset
    dims_rows, dims_text = (np.empty(0, np.int64) if deep else None), []
    found = [(m.start(), m.group(1)) for m in _DIMS.finditer(data)] if deep else []
    if found:
        pos = np.array([p for p, _ in found], dtype=np.int64)
        dims_rows = np.searchsorted(_starts(lens), pos, side="right") - 1
        dims_text = [t for _, t in found]
    acc.add_arrow(tab, wide, dims_rows, dims_text, first, rows)


def _arrow(data: bytes, hints: set | None = None):
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
    for _ in range(5 + len(_INT_ARGS)):
        try:
            tab = pj.read_json(pa.BufferReader(pa.py_buffer(data)),
                               read_options=pj.ReadOptions(block_size=block),
                               parse_options=pj.ParseOptions(explicit_schema=_schema(wide), newlines_in_values=False,
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


# -- checks on whole columns ----------------------------------------------------------------------

def _validate(path: str, c: dict) -> dict:
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
        if k in ("flows", "warnings"):
            out[k] = v
        elif isinstance(v, list):
            out[k] = [a[keep] for a in v]
        elif isinstance(v, pd.Categorical):
            out[k] = categorical_from(np.asarray(v.codes)[keep], np.asarray(v.categories, dtype=object))
        else:
            out[k] = v[keep]
    return out


def _check_header(path: str, h, warnings: list) -> dict:
    """The top-level keys the reader uses, with wrong types dropped (and said so)."""
    if not isinstance(h, dict):
        return {}
    h = dict(h)
    props = h.get("deviceProperties")
    if props is not None:
        if not isinstance(props, list):
            warnings.append(f"deviceProperties is {_what(props)}, not a list: GPU names unknown")
            h["deviceProperties"] = []
        else:
            good = []
            for i, p in enumerate(props):
                pid = p.get("id", i) if isinstance(p, dict) else None
                if not isinstance(p, dict) or not _small_int(pid) or not isinstance(p.get("name", ""), str):
                    warnings.append(f"deviceProperties[{i}] is not a device entry (an object with an integer id "
                                    "and a string name): ignored")
                    continue
                good.append({"id": int(pid), "name": p.get("name", "")})
            h["deviceProperties"] = good
    dist = h.get("distributedInfo")
    if dist is not None:
        if not isinstance(dist, dict):
            warnings.append(f"distributedInfo is {_what(dist)}, not an object: rank unknown")
            h["distributedInfo"] = {}
        else:
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
            h["distributedInfo"] = dist
    return h


def _small_int(v, text_ok: bool = False) -> bool:
    if isinstance(v, str) and text_ok and v.isdigit() and v.isascii():
        v = int(v)
    return isinstance(v, int) and not isinstance(v, bool) and 0 <= v <= INT32_MAX
