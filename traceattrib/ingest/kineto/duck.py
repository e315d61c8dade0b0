"""One piece of Kineto events (one JSON object per line) -> a pyarrow table, parsed by DuckDB.

DuckDB's newline-delimited JSON reader parses Kineto events with about half the CPU time of
pyarrow's and returns "Input Dims" as compact text whatever their nesting, so no renames or
regexes are needed. It releases the GIL: a worker thread parses one piece while the main thread
splits the next and converts the previous (`parse` / `conform`). The piece reaches it through a
memfd (`stage`), so without memfd (not Linux) or without duckdb, pyarrow reads every piece.

DuckDB is lenient where the pyarrow path is strict: read into typed columns, a boolean becomes
1, a number in a text field becomes text, a float in an integer field is rounded. So DuckDB only
splits each event into its fields' compact JSON text (`ts` and `dur` excepted: read as decimals,
the one way DuckDB keeps them exact); the values are then checked and converted here, on whole
columns (integers by pyarrow's strict cast) or on each distinct value (names, types, dims, grid).
A piece holding any value the pyarrow path would treat differently is returned as None: pyarrow
then reads it, with its own fixes and messages. What `conform` returns has the columns of
`parse._schema(False)` that `_Acc.add_split` reads, with "Input type" joined and "Input Dims" as text.
"""
from __future__ import annotations

import os
import re

import msgspec
import numpy as np

try:  # imported with the reader, as its other libraries are (not inside the first read)
    import duckdb
except ImportError:
    duckdb = None

_DIMS = re.compile(r"\[[\[\]0-9,-]*\]")  # "Input Dims" taken as text: lists of integers only
_SQL: dict = {}
_CON: list = []  # (pid, connection): made on first use
_JSON = msgspec.json.Decoder()


class _Refuse(Exception):
    """A value the pyarrow path treats differently: the piece goes there."""


def enabled() -> bool:
    """Whether pieces go to DuckDB: it is installed, pieces can be handed to it (memfd, Linux),
    and $TRACEATTRIB_JSON_ENGINE is not "pyarrow" (for comparisons)."""
    if os.environ.get("TRACEATTRIB_JSON_ENGINE", "").lower() == "pyarrow":
        return False
    return duckdb is not None and hasattr(os, "memfd_create") and os.path.isdir("/proc/self/fd")


def _con():
    """The process's DuckDB connection (a new one in a forked child: the parent's is not safe there)."""
    if not _CON or _CON[0][0] != os.getpid():
        # one thread: pieces are parsed beside the main thread's work on the previous one, and a
        # second DuckDB thread only helps pieces over 32 MiB (its JSON buffer), which cost memory
        _CON[:] = [(os.getpid(), duckdb.connect(config={"threads": 1}))]
    return _CON[0][1]


def _q(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _sql(arg_keys: tuple, keep_cats: tuple) -> str:
    """The query over one piece ($path): the kept events (ph "X" of `keep_cats`) and the flow ends
    (ph "f", cat "ac2g"), each with its line number (`entry`), every field as JSON text and ts/dur
    as decimal(22, 3). With one DuckDB thread the scan reads lines in order, so row_number()
    numbers them as they are in the piece."""
    struct = ", ".join(f"{_q(k)} JSON" for k in arg_keys).replace("'", "''")
    cats = ", ".join("'" + c.replace("'", "''") + "'" for c in keep_cats)
    return ("SELECT * FROM (SELECT row_number() OVER () - 1 AS entry, * FROM read_json($path, "
            "format='newline_delimited', columns={'ph': 'VARCHAR', 'cat': 'VARCHAR', 'name': 'JSON', "
            "'pid': 'JSON', 'tid': 'JSON', 'ts': 'DECIMAL(22,3)', 'dur': 'DECIMAL(22,3)', 'id': 'JSON', "
            f"'args': 'STRUCT({struct})'}})) WHERE (ph = 'X' AND cat IN ({cats})) OR (ph = 'f' AND cat = 'ac2g')")


_BOOL_TIME = re.compile(rb'"(?:ts|dur)"[ \t\r\n]*:[ \t\r\n]*(?:true|false)')


def _bool_times(fd: int, starts, lens) -> bool:
    """Whether one of these entries of a staged piece has a JSON boolean as `ts` or `dur` (the
    piece read back once, each entry searched within its own bytes)."""
    data = read_back(fd)
    return any(_BOOL_TIME.search(data, a, a + n) for a, n in zip(starts.tolist(), lens.tolist()))


def pool():
    """The worker that runs DuckDB beside the main thread (it releases the GIL), or None when
    DuckDB is not used."""
    if not enabled():
        return None
    from concurrent.futures import ThreadPoolExecutor
    pool = ThreadPoolExecutor(1, thread_name_prefix="traceattrib-duckdb")
    pool.submit(_con)  # connected while the main thread splits the first piece
    return pool


def stage(blocks) -> int:
    """A memfd holding the bytes blocks one after another: the piece DuckDB reads."""
    fd = os.memfd_create("traceattrib-piece")
    try:
        for block in blocks:
            view = memoryview(block)
            while view:
                view = view[os.write(fd, view):]
    except BaseException:
        os.close(fd)
        raise
    return fd


def read_back(fd: int, start: int = 0, size: int = -1) -> bytes:
    """Bytes of a staged piece (all of it, or `size` bytes from `start`)."""
    if size < 0:
        size = os.fstat(fd).st_size - start
    return os.pread(fd, size, start)


def parse(fd: int, arg_keys: tuple, keep_cats: tuple):
    """DuckDB's table of a staged piece's kept events and flow ends (`_sql`), `arg_keys` of args
    as JSON text; None when DuckDB refuses the piece."""
    key = (arg_keys, keep_cats)
    sql = _SQL.get(key) or _SQL.setdefault(key, _sql(arg_keys, keep_cats))
    cur = _con().cursor()  # one per call: callers may run in several threads
    try:
        rel = cur.sql(sql, params={"path": f"/proc/self/fd/{fd}"})
        return rel.to_arrow_table() if hasattr(rel, "to_arrow_table") else rel.arrow()
    except duckdb.Error:
        return None
    finally:
        cur.close()


def _by_value(col, convert, out_type):
    """Each distinct JSON text converted once (`convert` raises _Refuse), placed back by index."""
    import pyarrow as pa
    import pyarrow.compute as pc
    if col.null_count == len(col):
        return pa.nulls(len(col), out_type)
    d = pc.dictionary_encode(col)
    vals = [convert(v) for v in d.dictionary.to_pylist()]
    return pc.take(pa.array(vals, out_type), d.indices)


def _decoded(text: str):
    try:
        return _JSON.decode(text)
    except msgspec.DecodeError:
        raise _Refuse from None


def _string(text: str) -> str:
    v = _decoded(text)
    if not isinstance(v, str):
        raise _Refuse
    return v


def _types(text: str) -> str:
    v = _decoded(text)
    if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
        raise _Refuse
    return ",".join(v)


def _dims(text: str) -> str:
    if not _DIMS.fullmatch(text):
        raise _Refuse
    return text


def _int_list(text: str) -> list:
    v = _decoded(text)
    if not isinstance(v, list) or \
            not all(isinstance(x, int) and not isinstance(x, bool) and -(1 << 63) <= x < (1 << 63) for x in v):
        raise _Refuse
    return v


def _ints(col, text: bool):
    """(int64 values, their text where given as JSON strings, or None). Strings: refused unless
    `text`; None for the text when there is none."""
    import pyarrow as pa
    import pyarrow.compute as pc
    try:
        return pc.cast(col, pa.int64()), None
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        pass
    quoted = pc.fill_null(pc.starts_with(col, '"'), False)
    if not text or not pc.any(quoted).as_py():
        raise _Refuse
    try:
        nums = pc.cast(pc.if_else(quoted, pa.scalar(None, pa.string()), col), pa.int64())
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        raise _Refuse from None
    return nums, _by_value(pc.if_else(quoted, col, pa.scalar(None, pa.string())), _string, pa.string())


def _cols(t) -> dict:
    """A single-chunk table's columns as arrays."""
    import pyarrow as pa
    return {n: (v.chunk(0) if v.num_chunks else pa.array([], v.type)) for n, v in zip(t.column_names, t.columns)}


def _ids(col):
    """pid/tid: integers; text labels (Kineto's "Spans" rows) as unknown."""
    import pyarrow as pa
    import pyarrow.compute as pc
    return _ints(pc.if_else(pc.starts_with(col, '"'), pa.scalar(None, pa.string()), col), False)[0]


def conform(raw, fd: int, starts, lens, int_args: list, str_args: list, text_suffix: str):
    """(events, flows, entries, kept) from `parse`'s table of a staged piece (entry i at starts[i],
    lens[i] bytes): its rows in pyarrow's schema (kept events and flow ends), the flow ends alone,
    the entry of each kept event and the kept rows' mask; None when a value needs the pyarrow
    path. The rows are not filtered apart (a filter copies every string): the caller picks them."""
    import pyarrow as pa
    import pyarrow.compute as pc

    c = _cols(raw.combine_chunks())
    del raw
    entries = c["entry"].to_numpy().astype(np.int64)
    flow = np.asarray(pc.equal(c["ph"], "f"))
    # DuckDB reads a boolean time as 0 or 1 us: the events with such a time are searched for one
    small = pa.array([0, 1], c["ts"].type)
    odd = entries[np.asarray(pc.fill_null(pc.or_(pc.is_in(c["ts"], small), pc.is_in(c["dur"], small)), False))]
    if odd.size and _bool_times(fd, starts[odd], lens[odd]):
        return None
    args = c["args"]
    s = pa.string()
    try:
        names, fields = [], []
        for key, _ in int_args:
            v, txt = _ints(args.field(key), True)
            names += [key, key + text_suffix]
            fields += [v, pa.nulls(len(v), s) if txt is None else txt]
        for key, _ in str_args:
            names.append(key)
            fields.append(_by_value(args.field(key), _string, s))
        for key in ("grid", "block"):
            names.append(key)
            fields.append(_by_value(args.field(key), _int_list, pa.list_(pa.int64())))
        names += ["Input type", "Input Dims"]
        fields += [_by_value(args.field("Input type"), _types, s), _by_value(args.field("Input Dims"), _dims, s)]
        pid, tid, ids = _ids(c["pid"]), _ids(c["tid"]), _ints(c["id"], False)[0]
        events = pa.table({"cat": c["cat"], "name": _by_value(c["name"], _string, s), "pid": pid, "tid": tid,
                           "ts": c["ts"], "dur": c["dur"], "args": pa.StructArray.from_arrays(fields, names=names)})
    except _Refuse:
        return None
    flows = pa.table({"pid": pid, "tid": tid, "ts": c["ts"], "id": ids}).filter(pa.array(flow))
    return events, flows, entries[~flow], ~flow
