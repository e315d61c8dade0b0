"""Columns of a SQLite file as Arrow arrays, read-only, with every value's type checked.

The fast engine is `adbc-driver-sqlite` (Arrow straight from SQLite's C API, no Python object per
value; large tables are read as rowid ranges by a few threads, each with its own connection: the
driver releases the GIL while it reads). The fallback is the standard library's sqlite3 (used when
ADBC is not installed, when TRACEATTRIB_SQLITE_ENGINE=sqlite3, or when ADBC refuses a column whose
values change type part way).

Files are opened `mode=ro&immutable=1`: SQLite writes nothing, not even a lock or journal file.
Immutable mode ignores a `-wal` file (committed rows still in the WAL would silently go missing)
and a hot `-journal` (a half-written transaction that should be rolled back), so a file that has
either is first copied, with it, into a temporary folder and the copy is read; the input is never
touched.
"""
from __future__ import annotations

import os
import shutil
import sqlite3
import tempfile
import threading
from concurrent.futures import Future, ThreadPoolExecutor
from urllib.parse import quote

import numpy as np
import pyarrow as pa

from .. import heap
from ..errors import TraceError

PART_ROWS = 1 << 18  # tables with more rows are read as rowid ranges in parallel
GIVE_BACK_ROWS = 1 << 22  # a joined column of this many rows hands the heap's free pages back
# ranges per reading thread: the range read last sets how long one thread reads alone at the end
# (2 per thread left one of two idle for about 0.3 s of a 2.1M-row table; 4, about 0.08 s)
RANGES_PER_WORKER = 4
FETCH_ROWS = 1 << 16  # rows per fetchmany in the sqlite3 engine


def _adbc():
    """ADBC's SQLite driver and driver manager (low-level API: the DB-API module would import
    pyarrow.dataset and with it pandas, 0.3 s before a read could start), or None when not
    installed or disabled."""
    if os.environ.get("TRACEATTRIB_SQLITE_ENGINE", "").lower() == "sqlite3":
        return None
    try:
        import adbc_driver_manager
        import adbc_driver_sqlite
    except ImportError:
        return None
    return adbc_driver_sqlite, adbc_driver_manager


def _uri(path: str) -> str:
    return f"file:{quote(os.path.abspath(path))}?mode=ro&immutable=1"


def _ident(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


class _TypeMismatch(Exception):
    """ADBC met a value whose type differs from the one it inferred for the column."""


def _type_mismatch(e: BaseException) -> bool:
    """Whether an ADBC read failed on a column that changes type part way ("[SQLite] Type mismatch
    in column 1: expected INT64 but got STRING/BINARY", adbc-driver-sqlite 1.x, 1.13 tested). The
    driver infers each column's type from its first rows; its error reaches us through the Arrow C
    stream as a plain OSError, whose message is the only thing that tells this case from a damaged
    file. Finding such columns in the data first would take a typeof() pass over every row: a
    second read of the table."""
    return "Type mismatch" in str(e)


class SqliteSource:
    """One SQLite file opened for reading: its tables and columns, and column reads as Arrow.

    `path` is the user's file (used in messages); reads go to a private copy when the file has
    a WAL or a hot journal beside it (see the module docstring).
    """

    def __init__(self, path: str):
        self.path = path
        self._tmp: str | None = None
        # set first: close() runs on every failure below and needs them
        self._pool: ThreadPoolExecutor | None = None
        self._local = threading.local()
        self._conns: list = []
        self._lock = threading.Lock()
        self.con = None
        self.engine = "adbc" if _adbc() is not None else "sqlite3"
        self.read_path = self._prepare(path)  # `path`, or its private copy with the WAL applied
        self.uri = _uri(self.read_path)
        try:
            self.con = sqlite3.connect(self.uri, uri=True, check_same_thread=False)
            self.con.text_factory = bytes
            self.tables = {_text(r[0]) for r in self.con.execute("select name from sqlite_master where type='table'")}
        except sqlite3.DatabaseError as e:
            self.close()
            raise TraceError(f"{path}: not a readable SQLite file ({e})") from None
        self._cols: dict[str, dict[str, str]] = {}

    # -- opening ----------------------------------------------------------------------------------

    def _prepare(self, path: str) -> str:
        """The path to read: `path` itself, or a private copy with its WAL or hot journal applied."""
        with open(path, "rb") as f:
            head = f.read(100)
        wal = path + "-wal"
        journal = path + "-journal"
        wal_mode = len(head) >= 20 and (head[18] == 2 or head[19] == 2)
        has_wal = wal_mode and os.path.isfile(wal) and os.path.getsize(wal) > 0
        has_journal = os.path.isfile(journal) and os.path.getsize(journal) > 0
        if not (has_wal or has_journal):
            return path
        self._tmp = tempfile.mkdtemp(prefix="traceattrib-sqlite-")
        copy = os.path.join(self._tmp, "trace.sqlite")
        try:
            shutil.copyfile(path, copy)
            shutil.copyfile(wal if has_wal else journal, copy + ("-wal" if has_wal else "-journal"))
            con = sqlite3.connect(copy)
            try:  # reading replays the WAL (or rolls the journal back); then fold it into the copy
                con.execute("select count(*) from sqlite_master").fetchone()
                if has_wal:
                    con.execute("pragma journal_mode=delete").fetchone()
            finally:
                con.close()
        except (OSError, sqlite3.DatabaseError) as e:
            self.close()
            what = "write-ahead log" if has_wal else "journal"
            raise TraceError(f"{path}: cannot apply its {what} ({e})") from None
        return copy

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None
        for c in getattr(self, "_conns", []):
            try:
                c.close()
            except Exception:  # noqa: BLE001 - closing a broken connection must not hide the real error
                pass
        if getattr(self, "con", None) is not None:
            self.con.close()
            self.con = None
        if self._tmp:
            shutil.rmtree(self._tmp, ignore_errors=True)
            self._tmp = None

    # -- schema -----------------------------------------------------------------------------------

    def has(self, table: str) -> bool:
        return table in self.tables

    def columns(self, table: str) -> dict[str, str]:
        """Column name -> declared type (upper case), in table order."""
        if table not in self._cols:
            rows = self.rows(f"pragma table_info({_ident(table)})", table)
            self._cols[table] = {_text(r[1]): _text(r[2] or b"").upper() for r in rows}
        return self._cols[table]

    def rows(self, sql: str, table: str) -> list[tuple]:
        """All rows of a small query (text as bytes); a damaged table is a TraceError."""
        try:
            return self.con.execute(sql).fetchall()
        except sqlite3.DatabaseError as e:
            raise TraceError(f"{self.path}: table {table} cannot be read ({e})") from None

    def count(self, table: str) -> int:
        return int(self.rows(f"select count(*) from {_ident(table)}", table)[0][0])

    def rowid_ok(self, table: str) -> bool:
        if {c.lower() for c in self.columns(table)} & {"rowid", "oid", "_rowid_"}:
            return False  # a column with that name would shadow the rowid
        try:
            self.con.execute(f"select rowid from {_ident(table)} limit 0")
        except sqlite3.DatabaseError:
            return False  # WITHOUT ROWID table
        return True

    # -- reading ----------------------------------------------------------------------------------

    def fetch(self, table: str, cols: list[str], text: tuple[str, ...] = (), where: str = "",
              with_rowid: bool = False, either: tuple[str, ...] = (), span: tuple[int, int] | None = None) -> Pending:
        """Start reading `cols` of `table`; `.result()` gives a pa.Table with one column per name.

        Columns not in `text` must hold only integers or NULL (int64 with nulls); any other value
        is a TraceError naming the table, column and first offending row. Columns in `text` come
        back as valid UTF-8 strings (invalid bytes replaced, counted in `.bad_utf8`); columns in
        `either` as integers or, when they hold text, as strings.
        `with_rowid` adds a leading "rowid" column (rows in rowid order). `span`: the rowids [a, b)
        `where` selects lie in (the parallel reads split that range, not the whole table's).
        """
        names = (["rowid"] if with_rowid else []) + list(cols)
        sel = ", ".join(("rowid" if c == "rowid" and with_rowid and i == 0 else _ident(c))
                        for i, c in enumerate(names))
        base = f"select {sel} from {_ident(table)}"
        cond = f" where {where}" if where else ""
        order = " order by rowid" if with_rowid else ""
        pending = Pending(self, table, names, set(text), set(either))
        adbc = _adbc()
        if adbc is None:
            pending.sql = base + cond + order
            return pending
        ranges = [None]
        if self.rowid_ok(table):
            # two statements: SQLite answers a lone min() or max() of the rowid from the b-tree,
            # but both in one statement scan the whole table
            if span is not None:
                lo, hi = span[0], span[1] - 1
            else:
                lo = self.rows(f"select min(rowid) from {_ident(table)}", table)[0][0]
                hi = self.rows(f"select max(rowid) from {_ident(table)}", table)[0][0]
            workers = self._workers()
            if lo is not None and workers > 1 and hi - lo + 1 > PART_ROWS:
                step = -(-(hi - lo + 1) // (RANGES_PER_WORKER * workers))
                ranges = [(a, min(a + step, hi + 1)) for a in range(lo, hi + 1, step)]
        pool = self._get_pool()
        for r in ranges:
            if r is None:
                sql = base + cond + order
            else:
                rc = f"rowid >= {r[0]} and rowid < {r[1]}"
                sql = base + f" where {rc}" + (f" and ({where})" if where else "") + order
            pending.parts.append(pool.submit(self._adbc_query, adbc, sql))
        pending.sql = base + cond + order
        return pending

    @staticmethod
    def _workers() -> int:
        return max(1, min(4, os.cpu_count() or 1))

    def _get_pool(self) -> ThreadPoolExecutor:
        if self._pool is None:
            self._pool = ThreadPoolExecutor(max_workers=self._workers(), thread_name_prefix="traceattrib-sqlite")
        return self._pool

    def _adbc_con(self, adbc):
        """This thread's ADBC connection to the file (opened on first use)."""
        con = getattr(self._local, "con", None)
        if con is None:
            driver, manager = adbc
            db = driver.connect(self.uri)
            try:
                con = manager.AdbcConnection(db)
            except BaseException:
                db.close()
                raise
            self._local.con = con
            with self._lock:
                self._conns += [con, db]  # closed in this order
        return con

    def _adbc_query(self, adbc, sql: str) -> list:
        stmt = adbc[1].AdbcStatement(self._adbc_con(adbc))
        try:
            stmt.set_options(**{"adbc.sqlite.query.batch_rows": "16384"})
            stmt.set_sql_query(sql)
            stream, _ = stmt.execute_query()
            return _to_parts(pa.RecordBatchReader.from_stream(stream).read_all())
        except Exception as e:  # noqa: BLE001 - ADBC raises OSError or its own Error classes
            if _type_mismatch(e):
                raise _TypeMismatch(str(e)) from None
            raise
        finally:
            try:
                stmt.close()
            except Exception:  # noqa: BLE001
                pass

    def _sqlite3_query(self, sql: str, names: list[str], text: set[str],
                       either: set[str]) -> list[pa.ChunkedArray | None]:
        """The same read through the standard library, FETCH_ROWS rows at a time. Integer columns
        come back as int64, `text` ones as binary, `either` ones as int64 or binary; a column
        holding a value of another type comes back as None."""
        cur = self.con.execute(sql)
        chunks: list[list] = [[] for _ in names]
        while True:
            rows = cur.fetchmany(FETCH_ROWS)
            if not rows:
                break
            for i, vals in enumerate(zip(*rows)):
                c = names[i]
                a = _py_column(vals, c in text)
                if a is None and c in either:
                    a = _py_column(vals, True)
                chunks[i].append(a)
        out = []
        for i, c in enumerate(names):
            parts = chunks[i]
            types = {a.type for a in parts if a is not None}
            if any(a is None for a in parts) or len(types) > 1:
                out.append(None)
            else:
                typ = types.pop() if types else (pa.binary() if c in text else pa.int64())
                out.append(pa.chunked_array(parts, type=typ))
        return out

    def type_error(self, table: str, col: str) -> TraceError:
        """TraceError naming the first value of `col` that is not an integer (nor NULL)."""
        t, c = _ident(table), _ident(col)
        n, first = self.rows(f"select count(*), min(rowid) from {t} where typeof({c}) not in ('integer', 'null')",
                             table)[0] if self.rowid_ok(table) else \
            (self.rows(f"select count(*) from {t} where typeof({c}) not in ('integer', 'null')", table)[0][0], None)
        where = ""
        example = ""
        if first is not None:
            v = self.rows(f"select typeof({c}), substr(quote({c}), 1, 40) from {t} where rowid = {int(first)}", table)
            if v:
                example = f": {_text(v[0][0])} {_text(v[0][1])}"
            where = f", first at rowid {first}"
        return TraceError(f"{self.path}: table {table}, column {col}: {n} value(s) are not integers{where}{example}")


class Columns:
    """Columns read from one table, `n` rows: integers as int64 numpy arrays (NULL stored as 0,
    with a mask), text as Arrow string arrays."""

    def __init__(self, n: int, ints: dict[str, np.ndarray], masks: dict[str, np.ndarray],
                 texts: dict[str, pa.ChunkedArray]):
        self.n, self._ints, self._masks, self._texts = n, ints, masks, texts

    def __contains__(self, name: str) -> bool:
        return name in self._ints or name in self._texts

    def is_text(self, name: str) -> bool:
        return name in self._texts

    def int(self, name: str, fill: int = 0) -> np.ndarray:
        """int64 values, NULLs as `fill`; an absent column is all `fill`."""
        if name not in self._ints:
            return np.full(self.n, fill, dtype=np.int64)
        v = self._ints[name]
        m = self._masks.get(name)
        if m is None or fill == 0:
            return v
        return np.where(m, fill, v)

    def null(self, name: str) -> np.ndarray:
        """True where NULL; an absent column is all NULL."""
        if name in self._masks:
            return self._masks[name]
        if name in self._ints:
            return np.zeros(self.n, bool)
        if name in self._texts:
            return np.asarray(self._texts[name].is_null())
        return np.ones(self.n, bool)

    def text(self, name: str) -> pa.ChunkedArray:
        return self._texts[name]

    def take(self, keep: np.ndarray) -> Columns:
        """Only the rows where `keep` (bool) is True."""
        idx = np.flatnonzero(keep)
        return Columns(idx.size, {k: v[idx] for k, v in self._ints.items()},
                       {k: v[idx] for k, v in self._masks.items()},
                       {k: v.take(pa.array(idx)) for k, v in self._texts.items()})


def _fill0(col: pa.ChunkedArray) -> pa.ChunkedArray:
    """NULLs as 0. (pyarrow.compute is imported here, not with the module: its 70 ms import then
    runs beside the first reads instead of before them.)"""
    import pyarrow.compute as pc

    return pc.fill_null(col, 0)


def _to_parts(tab: pa.Table) -> list:
    """One partition's Arrow table as per-column parts, in the worker thread: ("int", values,
    mask or None) for int64 columns (values: an array, or without NULLs a list of views of the
    batches), ("arrow", chunked array) for anything else."""
    out = []
    for col in tab.columns:
        if pa.types.is_int64(col.type):
            if col.null_count:
                out.append(("int", _fill0(col).to_numpy(), np.asarray(col.is_null())))
            else:  # views of ADBC's batches: copied once, when the partitions are joined
                out.append(("int", [c.to_numpy() for c in col.chunks], None))
        else:
            out.append(("arrow", col))
    return out


class Pending:
    """A table read in progress; `result()` waits, checks every column's type, gives Columns."""

    def __init__(self, src: SqliteSource, table: str, names: list[str], text: set[str], either: set[str]):
        self.src, self.table, self.names, self.text, self.either = src, table, names, text, either
        self.parts: list[Future] = []
        self.sql = ""
        self.bad_utf8 = 0

    def result(self) -> Columns:
        src = self.src
        parts = None
        if self.parts:
            futures, self.parts = self.parts, []  # the caller owns the data now: keep none of it here
            try:
                parts = [f.result() for f in futures]
            except _TypeMismatch:
                parts = None  # a column changes type part way: read it the plain way to find out
            except TraceError:
                raise
            except Exception as e:  # noqa: BLE001 - ADBC's errors: damaged pages, unreadable tables
                raise TraceError(f"{src.path}: table {self.table} cannot be read ({_one_line(e)})") from None
            del futures
        if parts is not None:
            cols = self._combine(parts)
            if cols is not None:
                return cols
        try:
            arrays = src._sqlite3_query(self.sql, self.names, self.text, self.either)
        except sqlite3.DatabaseError as e:
            raise TraceError(f"{src.path}: table {self.table} cannot be read ({e})") from None
        return self._combine([[("arrow", a) if a is not None else None for a in arrays]])

    def _combine(self, parts: list[list]) -> Columns | None:
        """Join the partitions column by column (freeing each part as it goes); None when ADBC's
        per-partition type guesses disagree (the caller then reads the table the plain way)."""
        src = self.src
        ints, masks, texts = {}, {}, {}
        n = 0
        for j, c in enumerate(self.names):
            col_parts = [p[j] for p in parts]
            for p in parts:
                p[j] = None
            if any(cp is None for cp in col_parts):
                raise src.type_error(self.table, c)
            if all(cp[0] == "int" for cp in col_parts) and c not in self.text:
                vals = [v for cp in col_parts for v in (cp[1] if isinstance(cp[1], list) else [cp[1]])]
                ints[c] = np.concatenate(vals) if vals else np.zeros(0, np.int64)
                if any(cp[2] is not None for cp in col_parts):
                    masks[c] = np.concatenate([cp[2] if cp[2] is not None else np.zeros(_size(cp[1]), bool)
                                               for cp in col_parts])
                n = ints[c].size
                del col_parts, vals
                if n >= GIVE_BACK_ROWS:
                    # the batches just joined were read in small blocks that stay in the C heap
                    # once freed: handed back, or every joined column sits on top of them
                    heap.give_back()
                continue
            if any(cp[0] == "int" for cp in col_parts):
                if c in self.text or c in self.either:
                    return None  # some partitions all NULL (typed int64 by ADBC), others text
                raise src.type_error(self.table, c)
            chunks = [ch for cp in col_parts for ch in cp[1].chunks]
            types = {ch.type for ch in chunks}
            if len(types) > 1:
                return None
            col = pa.chunked_array(chunks, type=types.pop()) if chunks else col_parts[0][1]
            textual = pa.types.is_string(col.type) or pa.types.is_binary(col.type)
            if c in self.text or (c in self.either and textual):
                col, bad = _as_text(col)
                if col is None:
                    raise TraceError(f"{src.path}: table {self.table}, column {c}: values are not text")
                self.bad_utf8 += bad
                texts[c] = col
            elif pa.types.is_integer(col.type) or pa.types.is_null(col.type):
                col = col.cast(pa.int64())
                ints[c] = _fill0(col).to_numpy() if col.null_count else col.to_numpy()
                if col.null_count:
                    masks[c] = np.asarray(col.is_null())
            else:
                raise src.type_error(self.table, c)
            n = len(col)
        return Columns(n, ints, masks, texts)


def _size(v) -> int:
    """Values in an int part: one array, or a list of batch views."""
    return sum(a.size for a in v) if isinstance(v, list) else v.size


def _py_column(vals: tuple, text: bool):
    """One fetched column chunk as an Arrow array, or None when a value has the wrong type."""
    if text:
        try:
            return pa.array(vals, type=pa.binary())
        except (pa.ArrowInvalid, pa.ArrowTypeError, TypeError):
            # numbers stored in a text column: their text, as SQLite's own cast would give
            return pa.array([v if v is None or isinstance(v, bytes) else str(v).encode() for v in vals],
                            type=pa.binary())
    try:
        arr = pa.array(vals)  # inferred: int64 only when every value is an int (or None)
    except (pa.ArrowInvalid, pa.ArrowTypeError, TypeError, OverflowError):
        return None
    if pa.types.is_null(arr.type):
        return pa.nulls(len(arr), pa.int64())
    return arr if pa.types.is_int64(arr.type) else None


def _as_text(col: pa.ChunkedArray) -> tuple[pa.ChunkedArray | None, int]:
    """Text column as valid UTF-8 strings: (strings, how many values had invalid bytes).

    BLOBs are taken as text; bytes that are not UTF-8 (lone surrogates included) become U+FFFD,
    decoding each distinct bad value once. Integer-typed columns here are all NULL (ADBC's type
    for a column of NULLs) or numbers stored as text (their decimal text)."""
    t = col.type
    if pa.types.is_null(t) or (pa.types.is_integer(t) and col.null_count == len(col)):
        return pa.chunked_array([pa.nulls(len(col), pa.string())]), 0
    if pa.types.is_integer(t) or pa.types.is_floating(t):
        return col.cast(pa.string()), 0
    if pa.types.is_string(t) or pa.types.is_large_string(t):
        try:
            col.validate(full=True)
            return col, 0
        except pa.ArrowInvalid:
            btype = pa.binary() if pa.types.is_string(t) else pa.large_binary()
            col = pa.chunked_array([c.view(btype) for c in col.chunks], type=btype)
            t = btype
    if pa.types.is_binary(t) or pa.types.is_large_binary(t):
        try:
            return col.cast(pa.string()), 0
        except pa.ArrowInvalid:
            pass
        enc = col.combine_chunks().dictionary_encode()
        dvals = enc.dictionary.to_pylist()
        fixed = [v.decode("utf-8", "replace") for v in dvals]
        bad_vals = np.array([f.encode("utf-8") != v for f, v in zip(fixed, dvals)], dtype=bool)
        idx = enc.indices.to_numpy(zero_copy_only=False)
        valid = ~np.asarray(enc.indices.is_null())
        bad = int(bad_vals[idx[valid].astype(np.int64)].sum()) if valid.any() else 0
        strings = pa.array(fixed, pa.string()).take(enc.indices)
        return pa.chunked_array([strings]), bad
    return None, 0


def _text(v) -> str:
    """A value read with text_factory=bytes as str (invalid UTF-8 replaced)."""
    if isinstance(v, bytes):
        return v.decode("utf-8", "replace")
    return "" if v is None else str(v)


def _one_line(e: BaseException) -> str:
    msg = str(e).strip().splitlines()
    return msg[0] if msg else type(e).__name__
