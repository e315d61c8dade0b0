"""What traceattrib keeps between runs, in the cache directory (traceattrib.store): per trace file
its normalized tables (Parquet; an Nsight Systems export read lean for the analyses and read whole
for `export` has an entry of each, and a lean read takes a whole entry that is there) and, per set
of analysis options, its per-rank results; per `report` command, the text it printed.

The cache sits below the per-file reader: `read_file` parses one file or reads its entry back, and
a directory of rank files is "read each file (cached), merge", the same whether this process
reads every file or Dask workers read one each. Beside the tables, each set of analysis options
(traceattrib.parallel.file_task) stores the file's small per-rank results (`results-<hash>.bin`:
msgpack with each table as an Arrow IPC stream), so a repeated `report` neither reads the tables
nor analyzes them again; and the text of a whole `report` is kept under reports/ (`<hash>.json`),
keyed on its input's identity and every option, so the same command again prints it without
importing numpy or pandas (traceattrib.cli).

Every entry is data: reading one runs no code. An entry that does not decode to what is
expected (damaged, or written by someone else) is removed and rebuilt, with one warning.
"""
from __future__ import annotations

import contextlib
import errno
import functools
import hashlib
import json
import os
import stat
import sys
from typing import TYPE_CHECKING

from . import __version__, store
from .errors import TraceError
from .progress import ProgressFn, noop
from .store import MAX_MB_DEFAULT, default_dir  # noqa: F401 - part of this module's interface

if TYPE_CHECKING:
    from .ingest.nsys_tables import Process, Started
    from .model import Trace
# pandas and the table model are imported where tables are read or written: a report answered
# from reports/ needs neither

# Bump when a reader or the model changes what it produces: old entries are then ignored.
# 5: nsys CPU samples; 6: results and report texts as data (msgpack + Arrow, JSON), 0600 entries; 7: given_steps and the ops' given_step;
# 8: the readers' integrity evidence in the meta (rows dropped, profiler messages, overhead events)
FORMAT_VERSION = 8
BLOB_MAGIC = b"TAres03\n"  # first bytes of a stored analysis (results, report text); bump when they change


def max_bytes() -> int:
    """The cache's size budget in bytes (traceattrib.store.max_bytes)."""
    return store.max_bytes()


def key(path: str, process: Process | None = None, lean: bool = False) -> str:
    """Cache key of one trace file (or of one process of it, read alone; lean: read without the
    columns only exports show): its absolute path, size and mtime."""
    path = os.path.abspath(path)
    st = os.stat(path)
    h = hashlib.sha1(f"{__version__}/{FORMAT_VERSION}".encode())
    h.update(f"{path}\0{st.st_size}\0{st.st_mtime_ns}\0".encode())
    if process is not None:
        h.update(repr(tuple(process)).encode())
    if lean and _lean_differs(path):
        h.update(b"\0lean")
    return h.hexdigest()[:24]


def _lean_differs(path: str) -> bool:
    """Whether a lean read of `path` leaves columns out: Nsight Systems exports only (a torch trace
    is read whole either way, and keeps one entry)."""
    from .ingest import detect

    try:
        return detect(path) in ("nsys", "nsys-rep")
    except TraceError:  # the reader says what is wrong with it
        return False


# The analyses (report, diff, classify, plot, info, MCP) read traces lean: without the columns
# only the exports show (ingest.read_file); `export` and the Python API read whole.
ANALYSIS_LEAN = True

# meta key of this run's warnings about the cache itself (the reader's own are meta["warnings"])
WARNINGS = "cache_warnings"


def damaged(path: str) -> str:
    """The warning for an entry that did not decode to what traceattrib writes."""
    return f"cache entry {path} is not what traceattrib writes (damaged, or written by someone else): ignored and rebuilt"


def write_tables(trace: Trace, directory: str, for_cache: bool = False) -> None:
    """Write every table as `<name>.parquet` plus `meta.json` into `directory`. for_cache: written
    for this program to read back whole (the cache's entries), not for other tools (`export`)."""
    os.makedirs(directory, exist_ok=True)
    for name, table in trace.tables().items():
        table.to_parquet(os.path.join(directory, f"{name}.parquet"), index=False,
                         **(_cache_parquet(table) if for_cache else {}))
    with open(os.path.join(directory, "meta.json"), "w") as f:
        json.dump(trace.meta, f, indent=1, default=_json_default)


def _cache_parquet(table) -> dict:
    """Parquet options of a cache entry: dictionaries for the categorical columns only (times and ids
    repeat little: pyarrow's attempt at a dictionary for each integer column is mostly wasted),
    LZ4 (decodes faster than Snappy at the same size) and no column statistics (nothing filters
    these files on read). On a million-kernel export: 0.52 -> 0.28 s of CPU to write, 0.29 -> 0.16
    s to read back, 47.9 -> 46.0 MB."""
    import pandas as pd

    return {"compression": "lz4", "write_statistics": False,
            "use_dictionary": [c for c, t in table.dtypes.items() if isinstance(t, pd.CategoricalDtype)]}


def has_tables(path: str, cache_dir: str | None = None, lean: bool = False) -> bool:
    """Whether the cache holds tables that a read of trace file `path` (lean or not) would take
    (False when it cannot be examined)."""
    try:
        return os.path.isfile(os.path.join(cache_dir or default_dir(), entry_key(path, cache_dir, lean=lean),
                                           "meta.json"))
    except OSError:
        return False


def entry_key(path: str, cache_dir: str | None = None, process: Process | None = None, lean: bool = False) -> str:
    """The key of the table entry a read of `path` takes: its own, or for a lean read the whole
    read's where only that one is there (it holds every column a lean read does)."""
    k = key(path, process, lean)
    if lean:
        whole = key(path, process)
        root = cache_dir or default_dir()
        if whole != k and not os.path.isfile(os.path.join(root, k, "meta.json")) and \
                os.path.isfile(os.path.join(root, whole, "meta.json")):
            return whole
    return k


def read_tables(directory: str, shared: bool = False) -> Trace:
    """The trace stored in table entry `directory`. Raises ValueError when an entry file is not one
    this user may read (store.trusted) or meta.json is no JSON object; Parquet and pandas raise
    their own errors for files that are no tables of the expected columns."""
    import pandas as pd

    from .model import TABLES, Trace, conform

    names = [f"{name}.parquet" for name in TABLES] + ["meta.json"]
    if not store.trusted(directory, shared, directory=True) or \
            not all(store.trusted(os.path.join(directory, n), shared) for n in names):
        raise ValueError("not trusted")
    meta = json.loads(store.read_bytes(os.path.join(directory, "meta.json"), shared) or b"")
    _check_meta(meta)
    tables = {}
    for name, cols in TABLES.items():
        df = pd.read_parquet(os.path.join(directory, f"{name}.parquet"))
        if list(df.columns) != list(cols):  # write_tables writes the model's columns, in order
            raise ValueError(f"{name}.parquet holds other columns")
        tables[name] = conform(df, cols)
    return Trace(**tables, meta=meta)


# meta keys whose values a reader always writes with these types (others are free-form data)
_META_TYPES: dict[str, tuple[type, ...]] = {
    "format": (str,), "profiler": (str,), "path": (str,), "gpus": (list,), "devices": (list,),
    "ranks": (list,), "notes": (list,), "warnings": (list,), "world_size": (int, type(None)),
    "rank": (int, type(None)),
}


def _check_meta(meta) -> None:
    """Raise ValueError unless `meta` is a reader's meta as _plain_meta leaves it."""
    if not isinstance(meta, dict) or meta.get("format") not in ("nsys", "torch", "traceattrib"):
        raise ValueError("meta.json is not a trace's meta")
    for k, types in _META_TYPES.items():
        if k in meta and (not isinstance(meta[k], types) or isinstance(meta[k], bool)):
            raise ValueError(f"meta.json: {k} is {type(meta[k]).__name__}")
    for k in ("gpus", "notes", "warnings"):
        if not all(isinstance(x, str) for x in meta.get(k) or []):
            raise ValueError(f"meta.json: {k} holds more than text")


def check_input(path: str) -> None:
    """Raise TraceError unless `path` is a regular file or a readable directory, without opening
    it: a FIFO would block the reader forever, a device could be endless."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        if os.path.islink(path):
            raise TraceError(f"{path}: broken symbolic link (its target {os.readlink(path)} does not exist)") from None
        raise TraceError(f"{path}: no such file or directory") from None
    except OSError as e:
        if e.errno == errno.ELOOP:
            raise TraceError(f"{path}: symbolic link loop (too many levels of symbolic links)") from None
        raise TraceError(f"{path}: cannot open ({e.strerror or e})") from None
    if stat.S_ISDIR(st.st_mode):
        try:
            os.listdir(path)
        except OSError as e:
            raise TraceError(f"{path}: cannot read directory ({e.strerror or e})") from None
        return
    if not stat.S_ISREG(st.st_mode):
        kind = ("a named pipe" if stat.S_ISFIFO(st.st_mode) else "a socket" if stat.S_ISSOCK(st.st_mode)
                else "a device" if stat.S_ISCHR(st.st_mode) or stat.S_ISBLK(st.st_mode) else "a special file")
        raise TraceError(f"{path}: not a regular file ({kind}); give a trace file or a directory of "
                         "per-rank traces")


def has_gpu_activity(trace: Trace) -> bool:
    return bool(len(trace.kernels) or len(trace.memops) or len(trace.graphs))


def _json_default(x):
    import numpy as np

    if isinstance(x, np.generic):
        return x.item()
    if isinstance(x, np.ndarray):
        return x.tolist()
    if isinstance(x, (bytes, bytearray)):
        return bytes(x).decode("utf-8", errors="replace")
    return str(x)


def _plain_meta(meta: dict) -> dict:
    """meta as it reads back from the cache's meta.json, so a fresh parse and a cached one give
    the same values (numpy scalars become numbers, bytes text, tuples lists)."""
    return json.loads(json.dumps(meta, default=_json_default))


def _validate(trace: Trace, path: str, require_gpu: bool) -> Trace:
    """Checks that hold whatever the tables came from (reader or cache)."""
    if require_gpu and not has_gpu_activity(trace):
        raise TraceError(f"{path}: no GPU activity in this trace (no kernels, memory operations or "
                         "CUDA-graph executions); `traceattrib info` describes what it holds")
    return trace


# What a damaged or unwritable cache entry can raise: it is then rebuilt or skipped, never trusted.
def _cache_errors() -> tuple[type[BaseException], ...]:
    import pyarrow as pa
    return (OSError, ValueError, TypeError, KeyError, pa.ArrowException)


def read_file(path: str, use_cache: bool = True, cache_dir: str | None = None, require_gpu: bool = True,
              progress: ProgressFn = noop, started: Started | None = None, deferred: list | None = None,
              shared: bool | None = None, process: Process | None = None, lean: bool = False) -> Trace:
    """One trace file through its cache entry (parsed and stored on a miss); meta['cached'] says
    which. A cached read validates like a fresh one: the same file gives the same result or the
    same TraceError with or without the cache, whichever command filled it. started: an export's
    reads already begun (nsys_tables.start), used when the file is parsed. deferred: a list that
    receives the store of a miss as a callable instead of it being run here (the caller runs it,
    e.g. beside the analysis: writing Parquet takes about 0.8 s for a million kernels). shared:
    see store.Store (default: $TRACEATTRIB_CACHE_SHARED); a cache directory the store refuses is
    not used. What the user should know about the cache (a refused directory, an entry rebuilt)
    goes into meta[WARNINGS], which is never stored. process: one process of an Nsight Systems
    export (an entry of its own). lean: without the columns only exports show (ingest.read_file;
    an entry of its own)."""
    from .ingest import read_file as parse

    if started is not None:  # the reads begun decide which columns are read, hence the entry
        lean = started.lean
    st = store.Store.at(cache_dir, shared)
    refused = st.refusal() if use_cache else None
    if not use_cache or refused:
        t = parse(path, require_gpu=require_gpu, progress=progress, started=started, process=process, lean=lean)
        t.meta = _plain_meta(t.meta)
        if refused:
            t.meta[WARNINGS] = [refused]
        return _validate(t, path, require_gpu)
    entry = st.path(entry_key(path, st.root, process, lean))
    notes: list[str] = []
    if os.path.lexists(os.path.join(entry, "meta.json")):
        try:
            t = read_tables(entry, st.shared)  # conform compacts each table
        except _cache_errors():  # a damaged entry is rebuilt, never trusted
            store.remove(entry)
            notes.append(damaged(entry))
        else:
            if require_gpu and not has_gpu_activity(t):
                # filled by a command that did not need GPU work (`info`): the reader says why
                # this trace cannot be reported, exactly as without the cache
                parse(path, require_gpu=True, progress=progress, process=process, lean=lean)
            store.touch(entry)
            t.meta["path"] = path
            t.meta["cached"] = True
            return _validate(t, path, require_gpu)
    from .model import Trace

    t = parse(path, require_gpu=require_gpu, progress=progress, started=started, process=process, lean=lean)
    t.meta = _plain_meta(t.meta)
    # what is stored is the trace as read: later changes to `t` do not reach a deferred store
    # (the tables are shared copy-on-write, the meta is copied)
    kept = Trace(**{n: df.copy(deep=False) for n, df in t.tables().items()}, meta=dict(t.meta))
    if notes:
        t.meta[WARNINGS] = notes
    try:
        _validate(t, path, require_gpu)
    except TraceError:  # stored all the same (another command may take it), before saying why
        _store(kept, st, entry)
        raise
    if deferred is None:
        _store(kept, st, entry)
    else:
        deferred.append(functools.partial(_store, kept, st, entry))
    t.meta["cached"] = False
    return t


def _store(t: Trace, st: store.Store, entry: str) -> None:
    """Write `t`'s tables as cache entry `entry`, best effort: a read-only or full cache
    directory, or tables Parquet cannot hold, only cost speed."""
    if store.write_dir(st.root, entry, lambda tmp: write_tables(t, tmp, for_cache=True), _cache_errors(), st.shared):
        prune(st.root, keep=entry)


def load(path: str, use_cache: bool = True, cache_dir: str | None = None, require_gpu: bool = True,
         progress: ProgressFn = noop, shared: bool | None = None, lean: bool = False) -> Trace:
    """Load a trace file or a directory of rank files, each file through the Parquet cache when
    allowed; progress(fraction, what) while parsing; lean: see read_file."""
    from .ingest import read

    check_input(path)
    hits: list[bool] = []

    def one(f: str, **kw) -> Trace:
        t = read_file(f, use_cache=use_cache, cache_dir=cache_dir, shared=shared, lean=lean, **kw)
        hits.append(bool(t.meta.get("cached")))
        return t

    t = read(path, require_gpu=require_gpu, progress=progress, read_one=one)
    if use_cache:  # a directory is cached only when every rank file was
        t.meta["cached"] = all(hits)
    return _validate(t, path, require_gpu)


# --- what the cache holds, and its size budget ----------------------------------------------------

def entries(root: str) -> list[dict]:
    """Every entry under `root`: {"path", "kind" ("tables": one trace file's tables and stored
    results; "report": one stored report text), "bytes", "used_ns" (last use)}; oldest use first.
    Report texts of earlier versions (`.pkl`) are listed too, so that they are pruned and cleared."""
    out = []

    def add(path: str, kind: str) -> None:
        with contextlib.suppress(OSError):  # removed meanwhile by another process
            out.append({"path": path, "kind": kind, "bytes": store.size(path), "used_ns": os.lstat(path).st_mtime_ns})

    with contextlib.suppress(OSError):
        with os.scandir(root) as it:
            for e in it:
                if e.is_dir(follow_symlinks=False) and len(e.name) == 24 and \
                        all(c in "0123456789abcdef" for c in e.name):
                    add(e.path, "tables")
    with contextlib.suppress(OSError):
        with os.scandir(os.path.join(root, "reports")) as it:
            for e in it:
                if e.name.endswith((".json", ".pkl")) and not e.name.startswith(store.TMP_PREFIX):
                    add(e.path, "report")
    return sorted(out, key=lambda x: (x["used_ns"], x["path"]))


def prune(root: str, keep: str | None = None, budget: int | None = None) -> list[str]:
    """Remove the least recently used entries under `root` until the rest fit `budget` bytes
    (max_bytes()); never `keep` (the entry just written). Also drops temporary entries abandoned
    by killed writers. Returns the removed paths."""
    store.drop_stale_tmp(root)
    store.drop_stale_tmp(os.path.join(root, "reports"))
    return store.prune(entries(root), keep=keep, budget=max_bytes() if budget is None else budget)


def usage(root: str, cleared_bytes: int = 0) -> dict:
    """What the cache at `root` holds: table entries (a trace file's tables; an Nsight Systems
    export read lean and whole has two), stored reports, bytes, the budget (bytes)."""
    ents = entries(root)
    return {"path": root, "trace_files": sum(e["kind"] == "tables" for e in ents),
            "reports": sum(e["kind"] == "report" for e in ents), "bytes": sum(e["bytes"] for e in ents),
            "max_bytes": max_bytes(), "cleared_bytes": cleared_bytes}


def clear(root: str) -> int:
    """Remove every entry under `root`; the bytes freed."""
    return sum(e["bytes"] for e in entries(root) if store.remove(e["path"]))


# --- stored analyses: per-rank results beside each file's tables, whole report texts ----------

def results_entry(path: str, options: str, cache_dir: str | None = None, process: Process | None = None,
                  lean: bool = False) -> str:
    """File holding `path`'s (or one process's) per-rank analysis results under `options` (a text
    naming every option that changes them), in the table entry a read (lean or not: as the
    analysis reads) takes, named by a hash of the options and _code_stamp."""
    h = hashlib.sha256(f"{_code_stamp()}\0{options}".encode()).hexdigest()[:32]
    return os.path.join(cache_dir or default_dir(), entry_key(path, cache_dir, process, lean), f"results-{h}.bin")


def read_results(entry: str, shared: bool = False, warnings: list[str] | None = None) -> tuple[dict, list] | None:
    """(meta, per-rank results) stored at `entry`; None when absent, or when it does not decode to
    what write_results writes (then removed, and a warning appended to `warnings`)."""
    blob = _read_blob(entry, shared, warnings)
    if blob is None:
        return None
    from . import results_codec

    try:
        got = results_codec.decode(blob)
    except results_codec.Invalid:
        _drop(entry, warnings)
        return None
    store.touch(os.path.dirname(entry))  # the file's table entry was used
    return got


def write_results(entry: str, meta: dict, results: list, shared: bool = False) -> None:
    """Store (meta, results) at `entry`, only where the file's table entry exists (best effort)."""
    from . import results_codec

    if os.path.isfile(os.path.join(os.path.dirname(entry), "meta.json")):
        _write_blob(entry, results_codec.encode(meta, results), shared)


def output_entry(options: str, cache_dir: str | None = None) -> str:
    """File holding the text of a command whose input identity and options `options` names."""
    h = hashlib.sha256(f"{_code_stamp()}\0{options}".encode()).hexdigest()[:32]
    return os.path.join(cache_dir or default_dir(), "reports", f"{h}.json")


def read_output(entry: str, shared: bool = False, warnings: list[str] | None = None) -> tuple[str, list[str]] | None:
    """(text, reader warnings) stored at `entry`; None when absent, or when it is not the JSON
    object write_output writes (then removed, and a warning appended to `warnings`)."""
    blob = _read_blob(entry, shared, warnings)
    if blob is None:
        return None
    try:
        got = json.loads(blob)
    except ValueError:  # UnicodeDecodeError included
        got = None
    if not (isinstance(got, dict) and set(got) == {"text", "warnings"} and isinstance(got["text"], str)
            and isinstance(got["warnings"], list) and all(isinstance(w, str) for w in got["warnings"])):
        _drop(entry, warnings)
        return None
    store.touch(entry)
    return got["text"], got["warnings"]


def write_output(entry: str, text: str, warnings: list[str], shared: bool = False) -> None:
    """Store a command's text and reader warnings at `entry` (best effort)."""
    if _write_blob(entry, json.dumps({"text": text, "warnings": list(warnings)}).encode(), shared):
        prune(os.path.dirname(os.path.dirname(entry)), keep=entry)


def input_stamp(path: str) -> str:
    """Identity of a trace file (its key) or a directory (name, size and mtime of every entry:
    a rank file added, removed or changed changes it). Raises OSError when it cannot be read."""
    if not os.path.isdir(path):
        return key(path)
    with os.scandir(path) as it:
        ents = sorted((e.name, e.stat()) for e in it)
    return repr([(n, st.st_mode, st.st_size, st.st_mtime_ns) for n, st in ents])


def content_stamp(path: str) -> str | None:
    """Hash of a small file's bytes (a rules file, a model config), 'absent' when there is none;
    None when it is no regular file (a FIFO is never opened here) or cannot be read."""
    try:
        st = os.stat(path)
    except OSError:
        return "absent"
    if not stat.S_ISREG(st.st_mode):
        return None
    try:
        with open(path, "rb") as f:
            return hashlib.sha256(f.read()).hexdigest()
    except OSError:
        return None


@functools.lru_cache(maxsize=1)
def _code_stamp() -> str:
    """What every stored analysis depends on besides its input and options: the entry layout,
    traceattrib's version and sources (size and mtime of each: an edited checkout keeps
    __version__), the installed pandas, numpy, pyarrow and cpp_demangle (their __init__'s size and
    mtime: known without importing them) and Python."""
    import importlib.util

    root = os.path.dirname(os.path.abspath(__file__))
    out = [BLOB_MAGIC.decode().strip(), __version__, str(FORMAT_VERSION), sys.version]
    for d, dirs, files in os.walk(root):
        dirs[:] = sorted(x for x in dirs if x != "__pycache__")
        for f in sorted(files):
            if f.endswith((".py", ".toml")):
                st = os.stat(os.path.join(d, f))
                out.append(f"{os.path.relpath(os.path.join(d, f), root)}:{st.st_size}:{st.st_mtime_ns}")
    # cpp_demangle (the demangle extra) changes the buckets of mangled names: installed or not, and which
    for lib in ("pandas", "numpy", "pyarrow", "cpp_demangle"):
        spec = importlib.util.find_spec(lib)
        st = os.stat(spec.origin) if spec and spec.origin else None
        out.append(f"{lib}:{st.st_size}:{st.st_mtime_ns}" if st else f"{lib}:?")
    return ";".join(out)


def _drop(entry: str, warnings: list[str] | None) -> None:
    store.remove(entry)
    if warnings is not None:
        warnings.append(damaged(entry))


def _read_blob(path: str, shared: bool, warnings: list[str] | None) -> bytes | None:
    """The payload stored at `path` by _write_blob; None when absent, and when damaged or not an
    entry this user may read (then removed, with a warning). Its SHA-256 is checked: it catches
    damage (a torn or flipped write), not a writer with intent, which the store's permission
    checks keep out; what the payload decodes to is validated by the caller."""
    if not os.path.lexists(path):
        return None
    if not store.trusted(path, shared):
        _drop(path, warnings)
        return None
    blob = store.read_bytes(path, shared)
    if blob is None:  # not readable by this user (another member's entry in a shared cache)
        return None
    n = len(BLOB_MAGIC)
    if blob[:n] != BLOB_MAGIC or hashlib.sha256(blob[n + 32:]).digest() != blob[n:n + 32]:
        _drop(path, warnings)
        return None
    return blob[n + 32:]


def _write_blob(path: str, payload: bytes, shared: bool = False) -> bool:
    """Write `payload` to `path` atomically with its hash (best effort: a read-only or full cache
    directory only costs speed)."""
    return store.write_bytes(path, BLOB_MAGIC + hashlib.sha256(payload).digest() + payload, shared)
