"""One piece of Kineto events (one JSON object per line) -> a pyarrow table, parsed by DuckDB.

DuckDB's newline-delimited JSON reader parses Kineto events with about half the CPU time of
pyarrow's and returns "Input Dims" as compact text whatever their nesting, so no renames or
regexes are needed. It releases the GIL: a worker thread parses queued pieces while the main
thread splits the next and converts the previous (`Parser`, `conform`), and the main thread parses
a queued piece itself rather than wait for the worker. The piece reaches it through a memfd
(`stage`), so without memfd (not Linux) or without duckdb, pyarrow reads every piece.

DuckDB is lenient where the pyarrow path is strict: read into typed columns, a boolean becomes
1, a number in a text field becomes text, a float in an integer field is rounded. So DuckDB only
splits each event into its fields' compact JSON text (`ts` and `dur` excepted: read as decimals,
the one way DuckDB keeps them exact); the values are then checked and converted here, on whole
columns (integers by pyarrow's strict cast) or on each distinct value (names, types, dims, grid).
A piece holding any value the pyarrow path would treat differently is returned as None: pyarrow
then reads it, with its own fixes and messages. What `conform` returns has the columns of
`arrow.schema(False)` that `tables.add_split` reads, with "Input type" joined and "Input Dims" as text.
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
_JSON = msgspec.json.Decoder()


class _Refuse(Exception):
    """A value the pyarrow path treats differently: the piece goes there."""


def enabled() -> bool:
    """Whether pieces go to DuckDB: it is installed, pieces can be handed to it (memfd, Linux),
    and $TRACEATTRIB_JSON_ENGINE is not "pyarrow" (for comparisons)."""
    if os.environ.get("TRACEATTRIB_JSON_ENGINE", "").lower() == "pyarrow":
        return False
    return duckdb is not None and hasattr(os, "memfd_create") and os.path.isdir("/proc/self/fd")


def _q(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _sql(arg_keys: tuple, keep_cats: tuple) -> str:
    """The query over one piece ($path): the kept events (ph "X" of `keep_cats`) and the flow ends
    (ph "f", cat "ac2g"), each with its line number (`entry`), every field as JSON text and ts/dur
    as decimal(22, 3), `flow` (a flow end) and `odd` (ts or dur is 0 or 1: perhaps a boolean).
    With one DuckDB thread the scan reads lines in order, so row_number() numbers them as they
    are in the piece."""
    struct = ", ".join(f"{_q(k)} JSON" for k in arg_keys).replace("'", "''")
    cats = ", ".join("'" + c.replace("'", "''") + "'" for c in keep_cats)
    return ("SELECT *, ph = 'f' AS flow, coalesce(ts IN (0, 1) OR dur IN (0, 1), false) AS odd FROM ("
            "SELECT row_number() OVER () - 1 AS entry, * FROM read_json($path, "
            "format='newline_delimited', columns={'ph': 'VARCHAR', 'cat': 'VARCHAR', 'name': 'JSON', "
            "'pid': 'JSON', 'tid': 'JSON', 'ts': 'DECIMAL(22,3)', 'dur': 'DECIMAL(22,3)', 'id': 'JSON', "
            f"'args': 'STRUCT({struct})'}})) WHERE (ph = 'X' AND cat IN ({cats})) OR (ph = 'f' AND cat = 'ac2g')")


_BOOL_TIME = re.compile(rb'"(?:ts|dur)"[ \t\r\n]*:[ \t\r\n]*(?:true|false)')


def _bool_times(fd: int, starts, lens) -> bool:
    """Whether one of these entries of a staged piece has a JSON boolean as `ts` or `dur`, each
    entry searched within its own bytes. They are few (a time of exactly 0 or 1 us: about one
    event in 50,000 on real traces), so each is read back alone unless there are many: reading
    back a whole 10 MiB piece for one of them cost 3 ms per piece."""
    spans = zip(starts.tolist(), lens.tolist())
    if starts.size > 64:
        data = read_back(fd)
        return any(_BOOL_TIME.search(data, a, a + n) for a, n in spans)
    return any(_BOOL_TIME.search(os.pread(fd, n, a)) for a, n in spans)


class Parser:
    """DuckDB's parsing of one read's pieces: a worker thread that parses beside the main thread
    (DuckDB releases the GIL) and a connection of the read's own. `close` drops the connection:
    DuckDB keeps its freed memory (about 120 MiB after a 300 MiB trace) until then, and the
    tables are built next."""

    def __init__(self) -> None:
        from concurrent.futures import ThreadPoolExecutor
        self.pool = ThreadPoolExecutor(1, thread_name_prefix="traceattrib-duckdb")
        # one DuckDB thread per query: a second only helps pieces over 32 MiB (its JSON buffer),
        # which cost memory; connected while the main thread splits the first piece
        self._con = self.pool.submit(duckdb.connect, config={"threads": 1})

    def submit(self, fd: int, arg_keys: tuple, keep_cats: tuple):
        """A future of `parse` run by the worker."""
        return self.pool.submit(self.parse, fd, arg_keys, keep_cats)

    def parse(self, fd: int, arg_keys: tuple, keep_cats: tuple):
        """DuckDB's table of a staged piece's kept events and flow ends (`_sql`), `arg_keys` of
        args as JSON text; None when DuckDB refuses the piece. Any thread may call it."""
        key = (arg_keys, keep_cats)
        sql = _SQL.get(key) or _SQL.setdefault(key, _sql(arg_keys, keep_cats))
        cur = self._con.result().cursor()  # one per call: the worker and the main thread may both parse
        try:
            rel = cur.sql(sql, params={"path": f"/proc/self/fd/{fd}"})
            return rel.to_arrow_table() if hasattr(rel, "to_arrow_table") else rel.arrow()
        except duckdb.Error:
            return None
        finally:
            cur.close()

    def close(self) -> None:
        """Wait for the worker (queued pieces are dropped) and close the connection."""
        self.pool.shutdown(wait=True, cancel_futures=True)
        try:
            self._con.result().close()
        except duckdb.Error:  # (a failed connect is reported by the parses that needed it)
            pass


def parser() -> Parser | None:
    """A Parser for one read, or None when DuckDB is not used."""
    return Parser() if enabled() else None


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


def _by_value(col, convert, out_type):
    """Each distinct JSON text converted once (`convert` raises _Refuse): a dictionary array of
    the converted values (never expanded: the reader takes string columns by their codes)."""
    import pyarrow as pa
    import pyarrow.compute as pc
    d = pc.dictionary_encode(col)
    vals = [convert(v) for v in d.dictionary.to_pylist()]
    return pa.DictionaryArray.from_arrays(d.indices, pa.array(vals, out_type))


def _items(col) -> list:
    """A list-of-integers JSON text column (grid, block) -> int64 arrays of its first 3 items, 0
    where the list is absent or shorter (as the pyarrow path reads them)."""
    import pyarrow.compute as pc
    d = pc.dictionary_encode(col)
    lists = [_int_list(v) for v in d.dictionary.to_pylist()] + [[]]  # the last: absent
    codes = d.indices.fill_null(len(lists) - 1).to_numpy(zero_copy_only=False)
    return [np.array([v[i] if len(v) > i else 0 for v in lists], np.int64)[codes] for i in range(3)]


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
    return nums, _by_value(pc.if_else(quoted, col, pa.scalar(None, pa.string())), _string, pa.string()).dictionary_decode()


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

    c = _cols(raw.combine_chunks())
    del raw
    entries = c["entry"].to_numpy().astype(np.int64)
    flow = c["flow"].to_numpy(zero_copy_only=False)
    # DuckDB reads a boolean time as 0 or 1 us: the events with such a time are searched for one
    odd = entries[c["odd"].to_numpy(zero_copy_only=False)]
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
            names += [key + "0", key + "1", key + "2"]
            fields += _items(args.field(key))
        names += ["Input type", "Input Dims"]
        fields += [_by_value(args.field("Input type"), _types, s), _by_value(args.field("Input Dims"), _dims, s)]
        pid, tid, ids = _ids(c["pid"]), _ids(c["tid"]), _ints(c["id"], False)[0]
        events = pa.table({"cat": c["cat"], "name": _by_value(c["name"], _string, s), "pid": pid, "tid": tid,
                           "ts": c["ts"], "dur": c["dur"], "args": pa.StructArray.from_arrays(fields, names=names)})
    except _Refuse:
        return None
    flows = pa.table({"pid": pid, "tid": tid, "ts": c["ts"], "id": ids}).filter(pa.array(flow))
    return events, flows, entries[~flow], ~flow
