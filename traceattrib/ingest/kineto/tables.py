"""One parsed piece as a pyarrow table (pyarrow's reading of `arrow.schema`, or DuckDB's from
`duck.conform`) -> its kept events and flow ends added to the `Columns` (times as int64 ns)."""
from __future__ import annotations

import numpy as np

from .columns import Columns
from .fields import INT_ARGS, INT_FILL, JSON_WS, KEEP_CATS, NUMERIC, STR_ARGS, TEXT_SUFFIX, TS_BAD, TS_MISSING


def add_table(acc: Columns, tab, wide: bool, dims_rows: np.ndarray | None, dims_text: list[bytes], first: int,
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
    add_split(acc, t, fl, idx, wide, dims_rows, dims_text, rows)


def add_split(acc: Columns, t, fl, idx: np.ndarray, wide: bool, dims_rows: np.ndarray | None = None,
              dims_text: list[bytes] = (), rows: np.ndarray | None = None, sel: np.ndarray | None = None) -> None:
    """The kept events (table `t`, event numbers `idx`) and the flow ends (`fl`) of one piece.
    `rows`: each kept event's row in the piece, to place `dims_rows` regex matches. `sel`: the
    kept rows of `t`, when it holds others too (picked from the converted columns, so the
    table is never filtered: a filter copies every string)."""
    import pyarrow as pa

    args = t.column("args")
    if isinstance(args, pa.ChunkedArray):  # (one chunk: taken as is, combining would copy it)
        args = args.chunk(0) if args.num_chunks == 1 else args.combine_chunks()
    num = acc.num
    num["idx"].append(idx)
    num["pid"].append(_pick(_ints(t.column("pid")), sel))
    num["tid"].append(_pick(_ints(t.column("tid")), sel))
    num["ts"].append(_pick(_times(t.column("ts"), TS_MISSING, wide), sel))
    num["dur"].append(_pick(_times(t.column("dur"), 0, wide), sel))
    _add_int_args(acc, args, idx, sel)
    _add_items(acc, args, sel)
    _add_strings(acc, t, args, sel)
    _add_dims(acc, args, sel, dims_rows, dims_text, rows)
    acc.flows["pid"].append(_ints(fl.column("pid")))
    acc.flows["tid"].append(_ints(fl.column("tid")))
    acc.flows["ts"].append(_times(fl.column("ts"), TS_MISSING, wide))
    acc.flows["id"].append(_ints(fl.column("id")))


def _pick(a: np.ndarray, sel: np.ndarray | None) -> np.ndarray:
    return a if sel is None else a[sel]


def _ints(col, fill: int = -1) -> np.ndarray:
    return col.fill_null(fill).to_numpy(zero_copy_only=False).astype(np.int64)


def _times(col, missing: int, wide: bool) -> np.ndarray:
    ns, null = _decimal_ns(col, wide)
    ns[null] = missing
    return ns


def _add_int_args(acc: Columns, args, idx: np.ndarray, sel: np.ndarray | None) -> None:
    """The integer args; those written as text (`TEXT_SUFFIX` fields) read when numeric, else
    taken as unknown and counted."""
    import pyarrow as pa
    import pyarrow.compute as pc

    for key, name in INT_ARGS:
        v = _ints(args.field(key), INT_FILL.get(name, -1))
        text = args.field(key + TEXT_SUFFIX)
        if text.null_count < len(text):  # numbers written as text
            numeric = np.asarray(pc.match_substring_regex(text, NUMERIC).fill_null(False))
            if numeric.any():
                parsed = pc.cast(pc.if_else(pa.array(numeric), text, "0"), pa.int64()).to_numpy()
                v[numeric] = parsed[numeric]
            bad = _pick(np.asarray(text.is_valid()) & ~numeric, sel)
            if bad.any():
                acc.issue("values in integer fields are not integers and were taken as unknown",
                          f"traceEvents[{int(idx[np.flatnonzero(bad)[0]])}].args.{key}", int(bad.sum()))
        acc.keep(name, _pick(v, sel))


def _add_items(acc: Columns, args, sel: np.ndarray | None) -> None:
    """grid and block: their first 3 items."""
    for k in ("grid", "block"):
        if args.type.get_field_index(f"{k}0") >= 0:  # the items already apart (the DuckDB path)
            for i in range(3):
                acc.keep(f"{k}{i}", _pick(args.field(f"{k}{i}").to_numpy(), sel))
            continue
        lst = args.field(k)
        for i in range(3):
            acc.keep(f"{k}{i}", _pick(_list_item(lst, i, 0), sel))


def _add_strings(acc: Columns, t, args, sel: np.ndarray | None) -> None:
    """cat, name, the joined "Input type" and the text args."""
    import pyarrow as pa
    import pyarrow.compute as pc

    intypes = args.field("Input type")
    if not pa.types.is_list(intypes.type):  # already joined (the DuckDB path)
        joined = intypes
    else:
        joined = pc.binary_join(intypes, ",") if len(intypes) else pa.array([], pa.string())
    s = acc.str
    s["cat"].add_arrow(t.column("cat"), sel)
    s["name"].add_arrow(t.column("name"), sel, blank=True)
    s["intypes"].add_arrow(joined, sel, blank=True)
    for key, name in STR_ARGS:
        s[name].add_arrow(args.field(key), sel)


def _add_dims(acc: Columns, args, sel: np.ndarray | None, dims_rows: np.ndarray | None, dims_text: list[bytes],
              rows: np.ndarray | None) -> None:
    """"Input Dims" as compact text: DuckDB's text, arrow's lists joined, or (`dims_rows` given:
    the piece's dims were too deep for arrow) the regex matches placed by event row."""
    import pyarrow as pa

    s = acc.str
    dims = args.field("Input Dims")
    if not pa.types.is_list(dims.type):  # already text (the DuckDB path)
        s["dims"].add_arrow(dims, sel, blank=True)
    elif dims_rows is None:  # Input Dims text of the kept rows, built by arrow
        s["dims"].add_arrow(_dims_arrow(dims))
    else:  # regex matches placed by event row
        dims = np.full(rows.size, "", dtype=object)
        if len(dims_rows) and rows.size:  # (dims on events none of which is kept: nothing to place)
            at = np.searchsorted(rows, dims_rows)
            hit = (at < rows.size) & (rows[np.minimum(at, rows.size - 1)] == dims_rows)
            texts = np.array([d.translate(None, JSON_WS).decode() for d in dims_text], dtype=object)
            dims[at[hit]] = texts[hit]
        s["dims"].add_list(list(dims))


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
