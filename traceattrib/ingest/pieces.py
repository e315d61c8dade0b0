"""A trace's tables on disk, split by rank and read back in pieces: the store the piecewise analysis
(traceattrib.piecewise) reads when a trace is too large to hold in memory.

Layout of a store directory:

    meta.json                 the trace's meta, as the in-memory reader gives it, and `pieces`:
                              {"version", "row_group", "tables": {table: {rank: rows}}}
    <table>/r<rank>.parquet   the table's rows of one rank (rank -1: rows of no rank), in the order
                              the in-memory trace holds them ((start_ns, end_ns), then read order),
                              in row groups of `row_group` rows; every model column (model.TABLES)
                              with the model's dtype, categorical columns as int32 codes
    <table>/<column>.cats.parquet   the categories of a categorical column (one string column "v"),
                              the same for every rank: a code means the same name in every piece

Pieces are read through Arrow: rows by position (the row groups that hold them), rows that overlap
time intervals (row groups skipped by their start and end statistics), and whole tables scanned in
batches. Every read gives the model's columns and dtypes, categoricals with the store's categories,
so a piece's rows are the rows the in-memory trace holds, value for value.
"""
from __future__ import annotations

import json
import os
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..model import TABLES, Trace

VERSION = 1
ROW_GROUP = 1 << 16  # rows per Parquet row group: what a positional read fetches at least
META = "meta.json"


def rank_file(root: str, table: str, rank: int) -> str:
    return os.path.join(root, table, f"r{int(rank)}.parquet")


def cats_file(root: str, table: str, col: str) -> str:
    return os.path.join(root, table, f"{col}.cats.parquet")


def categorical_columns(table: str) -> list[str]:
    return [c for c, t in TABLES[table].items() if t == "category"]


# --- writing --------------------------------------------------------------------------------------

def arrow_columns(df: pd.DataFrame, table: str):
    """The model columns of `df` as a pyarrow Table: categoricals as int32 codes, nullable Int64 as
    int64 with nulls, the rest as their numpy dtype. `df` must hold every column of the table."""
    import pyarrow as pa

    arrays, names = [], []
    for c, t in TABLES[table].items():
        s = df[c]
        if t == "category":
            arrays.append(pa.array(np.asarray(s.cat.codes, np.int32)))
        elif t == "Int64":
            arr = s.array
            arrays.append(pa.array(np.asarray(arr._data, np.int64), mask=np.asarray(arr._mask, bool)))
        else:
            arrays.append(pa.array(s.to_numpy(t)))
        names.append(c)
    return pa.Table.from_arrays(arrays, names=names)


def write_categories(root: str, table: str, col: str, cats) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    os.makedirs(os.path.join(root, table), exist_ok=True)
    pq.write_table(pa.table({"v": pa.array([str(c) for c in cats], pa.string())}), cats_file(root, table, col))


def write_meta(root: str, meta: dict, layout: dict) -> None:
    from ..cache import _json_default

    with open(os.path.join(root, META), "w") as f:
        json.dump(dict(meta, pieces=layout), f, indent=1, default=_json_default)


def write_trace(trace: Trace, root: str) -> None:
    """A loaded trace as a store in `root` (created): each table split by rank, rows in the
    trace's order."""
    import pyarrow.parquet as pq

    layout: dict = {"version": VERSION, "row_group": ROW_GROUP, "tables": {}}
    for name, df in trace.tables().items():
        os.makedirs(os.path.join(root, name), exist_ok=True)
        for col in categorical_columns(name):
            write_categories(root, name, col, df[col].cat.categories)
        counts: dict[str, int] = {}
        rank = df["rank"].to_numpy(np.int64)
        for r in (np.unique(rank) if len(df) else []):
            rows = np.flatnonzero(rank == r)
            part = df.iloc[rows] if rows.size != len(df) else df
            pq.write_table(arrow_columns(part, name), rank_file(root, name, int(r)), row_group_size=ROW_GROUP)
            counts[str(int(r))] = int(rows.size)
        layout["tables"][name] = counts
    write_meta(root, trace.meta, layout)


# --- reading --------------------------------------------------------------------------------------

@dataclass
class _File:
    """One rank file: its row groups' first rows and their start / end statistics."""

    path: str
    first: np.ndarray      # first row of each row group, and the row count at the end
    min_start: np.ndarray
    max_end: np.ndarray


class Store:
    """A store directory opened for reading (see the module docstring)."""

    def __init__(self, root: str):
        self.root = root
        with open(os.path.join(root, META)) as f:
            meta = json.load(f)
        layout = meta.pop("pieces")
        if not isinstance(layout, dict) or layout.get("version") != VERSION:
            raise ValueError("not a store of this version")
        self.meta = meta
        self.layout = layout
        self._cats: dict[tuple[str, str], pd.Index] = {}
        self._files: dict[tuple[str, int], _File] = {}

    # -- what it holds ----------------------------------------------------------------------------

    def count(self, table: str, rank: int) -> int:
        return int(self.layout["tables"].get(table, {}).get(str(int(rank)), 0))

    def ranks(self) -> list[int]:
        """Ranks that ran GPU work (rows in kernels, memops or graphs), ascending; as
        analysis.split_ranks finds them."""
        out: set[int] = set()
        for t in ("kernels", "memops", "graphs"):
            out.update(int(r) for r, n in self.layout["tables"].get(t, {}).items() if n)
        return sorted(out)

    def categories(self, table: str, col: str) -> pd.Index:
        key = (table, col)
        if key not in self._cats:
            import pyarrow.parquet as pq

            path = cats_file(self.root, table, col)
            vals = pq.read_table(path).column("v").to_pylist() if os.path.exists(path) else []
            self._cats[key] = pd.Index(vals, dtype=object)
        return self._cats[key]

    def _file(self, table: str, rank: int) -> _File | None:
        key = (table, int(rank))
        if key not in self._files:
            import pyarrow.parquet as pq

            path = rank_file(self.root, table, rank)
            if not os.path.exists(path):
                self._files[key] = None
            else:
                md = pq.ParquetFile(path).metadata
                n = md.num_row_groups
                rows = np.array([md.row_group(i).num_rows for i in range(n)], np.int64)
                names = [md.schema.column(j).name for j in range(md.num_columns)]
                js, je = names.index("start_ns"), names.index("end_ns")
                lo = np.array([_stat(md.row_group(i).column(js), "min") for i in range(n)], np.int64)
                hi = np.array([_stat(md.row_group(i).column(je), "max") for i in range(n)], np.int64)
                self._files[key] = _File(path, np.r_[0, np.cumsum(rows)], lo, hi)
        return self._files[key]

    # -- reading ----------------------------------------------------------------------------------

    def frame(self, table: str, tab, columns: list[str] | None = None) -> pd.DataFrame:
        """A pyarrow table read from a rank file -> the model's columns and dtypes."""
        types = TABLES[table]
        out = {}
        for c in (columns if columns is not None else list(types)):
            t = types[c]
            col = tab.column(c)
            if t == "category":
                codes = col.to_numpy(zero_copy_only=False) if len(col) else np.zeros(0, np.int32)
                out[c] = pd.Categorical.from_codes(codes, categories=self.categories(table, c), validate=False)
            elif t == "Int64":
                mask = np.asarray(col.is_null()) if col.null_count else np.zeros(len(col), bool)
                vals = col.fill_null(0).to_numpy(zero_copy_only=False).astype(np.int64)
                out[c] = pd.arrays.IntegerArray(vals, mask)
            else:
                out[c] = col.to_numpy(zero_copy_only=False).astype(t, copy=False)
        return pd.DataFrame(out, copy=False)

    def rows(self, table: str, rank: int, take: np.ndarray | None = None,
             columns: list[str] | None = None) -> pd.DataFrame:
        """The rank's rows at positions `take` (sorted, distinct; None: all of them)."""
        import pyarrow as pa
        import pyarrow.parquet as pq

        f = self._file(table, rank)
        cols = columns if columns is not None else list(TABLES[table])
        if f is None or (take is not None and not take.size):
            return self.frame(table, _empty(table, cols), cols)
        pf = pq.ParquetFile(f.path)
        if take is None:
            return self.frame(table, pf.read(columns=cols), cols)
        take = np.asarray(take, np.int64)
        groups = np.unique(np.searchsorted(f.first, take, side="right") - 1)
        # contiguous runs of row groups read at once
        tabs = [pf.read_row_groups(groups.tolist(), columns=cols)]
        tab = pa.concat_tables(tabs) if len(tabs) > 1 else tabs[0]
        # row -> position in what was read
        starts = f.first[groups]
        sizes = f.first[groups + 1] - starts
        base = np.r_[0, np.cumsum(sizes)[:-1]]
        g = np.searchsorted(starts, take, side="right") - 1
        local = take - starts[g] + base[g]
        return self.frame(table, tab.take(pa.array(local)), cols)

    def overlapping(self, table: str, rank: int, intervals: np.ndarray,
                    columns: list[str] | None = None) -> tuple[pd.DataFrame, np.ndarray]:
        """The rank's rows that overlap one of `intervals` ([a, b] pairs, ns: start <= b and
        end >= a), and their positions; row groups whose statistics rule them out are not read."""
        import pyarrow.parquet as pq

        f = self._file(table, rank)
        cols = columns if columns is not None else list(TABLES[table])
        iv = np.asarray(intervals, np.int64).reshape(-1, 2)
        if f is None or not iv.size or f.first[-1] == 0:
            return self.frame(table, _empty(table, cols), cols), np.zeros(0, np.int64)
        lo_a, hi_b = iv[:, 0].min(), iv[:, 1].max()
        cand = np.flatnonzero((f.min_start <= hi_b) & (f.max_end >= lo_a))
        if cand.size and iv.shape[0] > 1:  # row groups that overlap one of the intervals
            ok = np.zeros(cand.size, bool)
            for a, b in iv:
                ok |= (f.min_start[cand] <= b) & (f.max_end[cand] >= a)
            cand = cand[ok]
        if not cand.size:
            return self.frame(table, _empty(table, cols), cols), np.zeros(0, np.int64)
        pf = pq.ParquetFile(f.path)
        se = pf.read_row_groups(cand.tolist(), columns=["start_ns", "end_ns"])
        s = se.column("start_ns").to_numpy()
        e = se.column("end_ns").to_numpy()
        hit = np.zeros(s.size, bool)
        for a, b in iv:
            hit |= (s <= b) & (e >= a)
        sizes = f.first[cand + 1] - f.first[cand]
        pos = np.repeat(f.first[cand], sizes) + (np.arange(s.size) - np.repeat(np.r_[0, np.cumsum(sizes)[:-1]], sizes))
        pos = pos[hit]
        return self.rows(table, rank, pos, cols), pos

    def neighbours(self, table: str, rank: int, lo: int, hi: int, before: np.ndarray,
                   after: np.ndarray) -> np.ndarray:
        """Positions of the rows that bound [lo, hi] per thread (pid << 24 | tid keys): for each key
        in `before`, its row ending last among those ending before lo; for each key in `after`,
        its row starting first among those starting after hi. Row groups are read outwards from
        the interval until every key is found (or the file ends)."""
        import pyarrow.parquet as pq

        f = self._file(table, rank)
        if f is None or not (before.size or after.size):
            return np.zeros(0, np.int64)
        pf = pq.ParquetFile(f.path)
        out: list[int] = []
        n = f.first.size - 1
        cols = ["start_ns", "end_ns", "pid", "tid"]
        if before.size:
            best = {int(k): (np.iinfo(np.int64).min, -1) for k in before}
            g = int(np.searchsorted(f.min_start, lo, side="right")) - 1  # the last group starting before lo
            while g >= 0:
                # a group whose every row ends before the ends found cannot hold a later-ending one
                if all(b[1] >= 0 for b in best.values()) and f.max_end[g] < min(b[0] for b in best.values()):
                    break
                t = pf.read_row_group(g, columns=cols)
                e = t.column("end_ns").to_numpy()
                key = (t.column("pid").to_numpy().astype(np.int64) << 24) | t.column("tid").to_numpy().astype(np.int64)
                for i in np.flatnonzero(e < lo):
                    k = int(key[i])
                    if k in best and e[i] > best[k][0]:
                        best[k] = (int(e[i]), int(f.first[g] + i))
                g -= 1
            out += [b[1] for b in best.values() if b[1] >= 0]
        if after.size:
            want = {int(k) for k in after}
            g = int(np.searchsorted(f.min_start, hi, side="right")) - 1
            g = max(g, 0)
            while want and g < n:
                t = pf.read_row_group(g, columns=cols)
                s = t.column("start_ns").to_numpy()
                key = (t.column("pid").to_numpy().astype(np.int64) << 24) | t.column("tid").to_numpy().astype(np.int64)
                for i in np.flatnonzero(s > hi):  # in start order: the first per key is the earliest
                    k = int(key[i])
                    if k in want:
                        want.discard(k)
                        out.append(int(f.first[g] + i))
                g += 1
        return np.unique(np.array(out, np.int64))

    def batches(self, table: str, rank: int, columns: list[str] | None = None) -> Iterator[tuple[int, pd.DataFrame]]:
        """The rank's rows one row group at a time: (position of its first row, its rows)."""
        import pyarrow.parquet as pq

        f = self._file(table, rank)
        if f is None:
            return
        cols = columns if columns is not None else list(TABLES[table])
        pf = pq.ParquetFile(f.path)
        for i in range(pf.num_row_groups):
            yield int(f.first[i]), self.frame(table, pf.read_row_group(i, columns=cols), cols)


def _stat(col_meta, which: str) -> int:
    st = col_meta.statistics
    if st is None or not st.has_min_max:  # (a writer that kept no statistics: every group is read)
        return np.iinfo(np.int64).min if which == "min" else np.iinfo(np.int64).max
    return int(st.min if which == "min" else st.max)


def _empty(table: str, cols: list[str]):
    import pyarrow as pa

    types = TABLES[table]
    arrays = []
    for c in cols:
        t = types[c]
        arrays.append(pa.array([], pa.int32() if t in ("category", "int32") else pa.int64()))
    return pa.Table.from_arrays(arrays, names=cols)


# --- writing a store from rows in any order, out of core -------------------------------------------

PART_DIR = ".parts"
SORT_MEMORY = "768MB"  # DuckDB's memory for sorting a table's parts (it spills beyond)


class Writer:
    """A store written from rows added in any order and in batches: each batch is kept as a
    Parquet part (text columns as text, `_pos`: each row's place in the order the in-memory reader
    holds them before sorting); `finish` sorts every table's parts per rank by (start_ns, end_ns,
    _pos) with DuckDB, which spills to disk beyond SORT_MEMORY, and writes the rank files with
    codes of the categories it is given. Memory: one batch, then DuckDB's."""

    def __init__(self, root: str):
        self.root = root
        self.parts = os.path.join(root, PART_DIR)
        os.makedirs(self.parts, exist_ok=True)
        self.n_parts: dict[str, int] = {}
        self.rows: dict[str, int] = {}

    def add(self, table: str, df: pd.DataFrame, pos: np.ndarray) -> None:
        """Rows of `table` (some of the model's columns, categoricals or text for its text columns,
        and any extra column finish's `derive` reads) with their read-order places `pos`."""
        import pyarrow as pa
        import pyarrow.parquet as pq

        if not len(df):
            return
        d = os.path.join(self.parts, table)
        os.makedirs(d, exist_ok=True)
        cols = {}
        for c in df.columns:
            s = df[c]
            if isinstance(s.dtype, pd.CategoricalDtype):
                cols[c] = pa.array(np.asarray(s.astype(object), dtype=object), pa.string())
            elif str(s.dtype) == "Int64":
                cols[c] = pa.array(np.asarray(s.array._data, np.int64), mask=np.asarray(s.array._mask, bool))
            elif s.dtype == object or str(s.dtype) in ("str", "string"):
                cols[c] = pa.array(np.asarray(s, dtype=object), pa.string())
            else:
                cols[c] = pa.array(s.to_numpy())
        cols["_pos"] = pa.array(np.asarray(pos, np.int64))
        i = self.n_parts.get(table, 0)
        pq.write_table(pa.table(cols), os.path.join(d, f"p{i:06d}.parquet"))
        self.n_parts[table] = i + 1
        self.rows[table] = self.rows.get(table, 0) + len(df)

    def connect(self):
        import duckdb

        con = duckdb.connect()
        tmp = os.path.join(self.parts, "duckdb.tmp")
        os.makedirs(tmp, exist_ok=True)
        con.execute(f"SET memory_limit='{SORT_MEMORY}'")
        con.execute(f"SET temp_directory='{_sql_text(tmp)}'")
        con.execute("SET threads=2")
        return con

    def source(self, table: str) -> str | None:
        """The SQL source of a table's parts, None when it has none."""
        if not self.n_parts.get(table):
            return None
        return f"read_parquet('{_sql_text(os.path.join(self.parts, table))}/*.parquet', union_by_name=true)"

    def query(self, con, sql: str):
        """A query's rows as one pyarrow table (small results only)."""
        rel = con.sql(sql)
        return rel.to_arrow_table() if hasattr(rel, "to_arrow_table") else rel.arrow()  # (DuckDB 1.x: arrow)

    def finish(self, meta: dict, pids: list[int], cats: dict[str, dict[str, list[str]]],
               derive=None, tables=None) -> None:
        """Sort each table's parts into the store's rank files and write its meta. pids: the
        processes that ran GPU work, in rank order (rank = index; other rows: rank -1); cats: per
        table and categorical column, its categories (absent: [""], every row ""); derive(table,
        rank, rows_before, arrow batch) -> {column: values} sets columns computed per batch."""
        import shutil

        import pyarrow as pa
        import pyarrow.parquet as pq

        layout: dict = {"version": VERSION, "row_group": ROW_GROUP, "tables": {}}
        con = self.connect()
        try:
            for name in (tables or TABLES):
                os.makedirs(os.path.join(self.root, name), exist_ok=True)
                tcats = {c: list(cats.get(name, {}).get(c, [""])) for c in categorical_columns(name)}
                for c, v in tcats.items():
                    write_categories(self.root, name, c, v)
                counts: dict[str, int] = {}
                src = self.source(name)
                if src is not None:
                    plist = ", ".join(str(int(p)) for p in pids)
                    for rank in list(range(len(pids))) + [-1]:
                        if rank >= 0:
                            cond = f"pid = {int(pids[rank])}"
                        else:
                            cond = f"pid NOT IN ({plist})" if pids else "true"
                        sql = f"SELECT * FROM {src} WHERE {cond} ORDER BY start_ns, end_ns, _pos"
                        rel = con.sql(sql)
                        reader = rel.to_arrow_reader(ROW_GROUP) if hasattr(rel, "to_arrow_reader") \
                            else rel.fetch_arrow_reader(ROW_GROUP)  # (DuckDB 1.x)
                        n = 0
                        writer = None
                        path = rank_file(self.root, name, rank)
                        try:
                            for batch in reader:
                                if not batch.num_rows:
                                    continue
                                extra = derive(name, rank, n, batch) if derive else {}
                                tab = _model_batch(name, batch, tcats, rank, extra)
                                if writer is None:
                                    writer = pq.ParquetWriter(path, tab.schema)
                                writer.write_table(tab, row_group_size=ROW_GROUP)
                                n += batch.num_rows
                        finally:
                            if writer is not None:
                                writer.close()
                        if n:
                            counts[str(rank)] = n
                layout["tables"][name] = counts
        finally:
            con.close()
        shutil.rmtree(self.parts, ignore_errors=True)
        write_meta(self.root, meta, layout)
        del pa


def _sql_text(s: str) -> str:
    return s.replace("'", "''")


def _model_batch(table: str, batch, cats: dict[str, list[str]], rank: int, extra: dict):
    """One sorted batch of parts -> the rank file's columns: codes of `cats` for text columns, the
    model's dtypes, missing columns filled as model.conform fills them, `rank`, and `extra`."""
    import pyarrow as pa
    import pyarrow.compute as pc

    from ..model import _MINUS_ONE

    n = batch.num_rows
    have = set(batch.schema.names)
    arrays, names = [], []
    for c, t in TABLES[table].items():
        if c in extra:
            v = extra[c]
            a = v if isinstance(v, (pa.Array, pa.ChunkedArray)) else pa.array(v)
            if t == "category" and not pa.types.is_integer(a.type):
                a = _codes(a, cats[c])
        elif c == "rank":
            a = pa.array(np.full(n, rank, np.int32))
        elif c in have:
            col = batch.column(c)
            if t == "category":
                a = _codes(col, cats[c])
            elif t == "Int64":
                a = col.cast(pa.int64())
            else:
                a = col.cast(pa.from_numpy_dtype(np.dtype(t)))
        elif t == "category":
            a = pa.array(np.full(n, cats[c].index("") if "" in cats[c] else -1, np.int32))
        elif t == "Int64":
            a = pa.nulls(n, pa.int64())
        elif c in _MINUS_ONE:
            a = pa.array(np.full(n, -1, t))
        else:
            a = pa.array(np.zeros(n, t))
        if t == "category":
            a = a.cast(pa.int32())
        arrays.append(a)
        names.append(c)
    del pc
    return pa.Table.from_arrays(arrays, names=names)


def _codes(col, cats: list[str]):
    """Codes of text values among `cats` (int32; -1 for a missing value)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if pa.types.is_dictionary(col.type):
        col = col.cast(pa.string())
    idx = pc.index_in(col.cast(pa.string()), value_set=pa.array(cats, pa.string()))
    return pc.fill_null(idx, -1).cast(pa.int32())
