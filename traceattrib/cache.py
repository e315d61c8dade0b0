"""Parquet cache of normalized tables, one entry per trace file keyed on (path, size, mtime),
the per-rank analysis results beside them, and `export`.

The cache sits below the per-file reader: `read_file` parses one file or reads its entry back, and
a directory of rank files is "read each file (cached), merge", the same whether this process
reads every file or Dask workers read one each. The second command on the same trace reads
Parquet files instead of parsing the trace. Beside the tables, each set of analysis options
(traceattrib.parallel.file_task) stores the file's small per-rank results as one pickle, so a
repeated `report` neither reads the tables nor analyzes them again; and the text of a whole
`report` is kept under reports/, keyed on its input's identity and every option, so the same
command again prints it without importing numpy or pandas (traceattrib.cli).
Location: $TRACEATTRIB_CACHE_DIR, else the platform's user cache directory
(~/.cache/traceattrib, ~/Library/Caches/traceattrib, %LOCALAPPDATA%\\traceattrib\\Cache).
Size: writing an entry removes the least recently used others beyond $TRACEATTRIB_CACHE_MAX_MB
(MiB, default MAX_MB_DEFAULT); a read marks its entry used (`prune`).
"""
from __future__ import annotations

import contextlib
import errno
import functools
import hashlib
import json
import os
import pickle
import shutil
import stat
import sys
import tempfile
from typing import TYPE_CHECKING, Any

from . import __version__
from .errors import TraceError
from .progress import ProgressFn, noop

if TYPE_CHECKING:
    from .ingest.nsys_tables import Started
    from .model import Trace
# pandas and the table model are imported where tables are read or written: a report answered
# from reports/ needs neither

# Bump when a reader or the model changes what it produces: old entries are then ignored.
FORMAT_VERSION = 5  # 3: nsys kernels carry collective args from NCCL NVTX ranges; 4: reader warnings; 5: nsys CPU samples
BLOB_MAGIC = b"TAres02\n"  # first bytes of a stored analysis (results, report text); bump when they change


def default_dir() -> str:
    env = os.environ.get("TRACEATTRIB_CACHE_DIR")
    if env:
        return env
    if sys.platform == "darwin":
        return os.path.expanduser("~/Library/Caches/traceattrib")
    if os.name == "nt":
        return os.path.join(os.environ.get("LOCALAPPDATA", os.path.expanduser("~")), "traceattrib", "Cache")
    return os.path.join(os.environ.get("XDG_CACHE_HOME", os.path.expanduser("~/.cache")), "traceattrib")


MAX_MB_DEFAULT = 4096  # cache budget when $TRACEATTRIB_CACHE_MAX_MB is unset (MiB)
TMP_STALE_S = 3600  # a writer's temporary entry older than this was abandoned (killed process)


def max_bytes() -> int:
    """The cache's size budget in bytes: $TRACEATTRIB_CACHE_MAX_MB (MiB, an integer >= 0), else
    MAX_MB_DEFAULT. Writing an entry removes the least recently used others beyond it."""
    env = os.environ.get("TRACEATTRIB_CACHE_MAX_MB", "").strip()
    mb = int(env) if env.isdigit() else MAX_MB_DEFAULT
    return mb << 20


def key(path: str) -> str:
    """Cache key of one trace file: its absolute path, size and mtime."""
    path = os.path.abspath(path)
    st = os.stat(path)
    h = hashlib.sha1(f"{__version__}/{FORMAT_VERSION}".encode())
    h.update(f"{path}\0{st.st_size}\0{st.st_mtime_ns}\0".encode())
    return h.hexdigest()[:24]


def write_tables(trace: Trace, directory: str) -> None:
    """Write every table as `<name>.parquet` plus `meta.json` into `directory`."""
    os.makedirs(directory, exist_ok=True)
    for name, table in trace.tables().items():
        table.to_parquet(os.path.join(directory, f"{name}.parquet"), index=False)
    with open(os.path.join(directory, "meta.json"), "w") as f:
        json.dump(trace.meta, f, indent=1, default=_json_default)


def has_tables(path: str, cache_dir: str | None = None) -> bool:
    """Whether the cache holds the tables of trace file `path` (False when it cannot be examined)."""
    try:
        return os.path.isfile(os.path.join(cache_dir or default_dir(), key(path), "meta.json"))
    except OSError:
        return False


def read_tables(directory: str) -> Trace:
    import pandas as pd

    from .model import TABLES, Trace, conform

    tables = {name: conform(pd.read_parquet(os.path.join(directory, f"{name}.parquet")), cols)
              for name, cols in TABLES.items()}
    with open(os.path.join(directory, "meta.json")) as f:
        meta = json.load(f)
    return Trace(**tables, meta=meta)


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
              progress: ProgressFn = noop, started: Started | None = None, deferred: list | None = None) -> Trace:
    """One trace file through its cache entry (parsed and stored on a miss); meta['cached'] says
    which. A cached read validates like a fresh one: the same file gives the same result or the
    same TraceError with or without the cache, whichever command filled it. started: an export's
    reads already begun (nsys_tables.start), used when the file is parsed. deferred: a list that
    receives the store of a miss as a callable instead of it being run here (the caller runs it,
    e.g. beside the analysis: writing Parquet takes about 0.8 s for a million kernels)."""
    from .ingest import read_file as parse

    if not use_cache:
        t = parse(path, require_gpu=require_gpu, progress=progress, started=started)
        t.meta = _plain_meta(t.meta)
        return _validate(t, path, require_gpu)
    root = cache_dir or default_dir()
    entry = os.path.join(root, key(path))
    if os.path.isfile(os.path.join(entry, "meta.json")):
        try:
            t = read_tables(entry)
        except _cache_errors():  # a damaged entry is rebuilt, never trusted
            shutil.rmtree(entry, ignore_errors=True)
        else:
            if require_gpu and not has_gpu_activity(t):
                # filled by a command that did not need GPU work (`info`): the reader says why
                # this trace cannot be reported, exactly as without the cache
                parse(path, require_gpu=True, progress=progress)
            _touch(entry)
            t.meta["path"] = path
            t.meta["cached"] = True
            return _validate(t, path, require_gpu)
    from .model import Trace

    t = parse(path, require_gpu=require_gpu, progress=progress, started=started)
    t.meta = _plain_meta(t.meta)
    # what is stored is the trace as read: later changes to `t` do not reach a deferred store
    # (the tables are shared copy-on-write, the meta is copied)
    kept = Trace(**{n: df.copy(deep=False) for n, df in t.tables().items()}, meta=dict(t.meta))
    try:
        _validate(t, path, require_gpu)
    except TraceError:  # stored all the same (another command may take it), before saying why
        _store(kept, root, entry)
        raise
    if deferred is None:
        _store(kept, root, entry)
    else:
        deferred.append(functools.partial(_store, kept, root, entry))
    t.meta["cached"] = False
    return t


def _store(t: Trace, root: str, entry: str) -> None:
    """Write `t`'s tables as cache entry `entry` under `root`, best effort: a read-only or full
    cache directory, or tables Parquet cannot hold, only cost speed."""
    tmp = None
    try:
        os.makedirs(root, exist_ok=True)
        tmp = tempfile.mkdtemp(prefix=".tmp-", dir=root)
        write_tables(t, tmp)
        os.replace(tmp, entry)  # atomic; a concurrent writer of the same entry wins, this copy is dropped
        prune(root, keep=entry)
    except _cache_errors():
        if tmp:
            shutil.rmtree(tmp, ignore_errors=True)


def load(path: str, use_cache: bool = True, cache_dir: str | None = None, require_gpu: bool = True,
         progress: ProgressFn = noop) -> Trace:
    """Load a trace file or a directory of rank files, each file through the Parquet cache when
    allowed; progress(fraction, what) while parsing."""
    from .ingest import read

    check_input(path)
    hits: list[bool] = []

    def one(f: str, **kw) -> Trace:
        t = read_file(f, use_cache=use_cache, cache_dir=cache_dir, **kw)
        hits.append(bool(t.meta.get("cached")))
        return t

    t = read(path, require_gpu=require_gpu, progress=progress, read_one=one)
    if use_cache:  # a directory is cached only when every rank file was
        t.meta["cached"] = all(hits)
    return _validate(t, path, require_gpu)


# --- size budget: least recently used entries go first -----------------------------------------

def _touch(path: str) -> None:
    """Mark an entry used now (its mtime is its last use; best effort on a read-only cache)."""
    with contextlib.suppress(OSError):
        os.utime(path)


def _size(path: str) -> int:
    """Bytes of a file, or of every file under a directory."""
    if not os.path.isdir(path):
        return os.stat(path).st_size
    total = 0
    for d, _, files in os.walk(path):
        for f in files:
            with contextlib.suppress(OSError):
                total += os.stat(os.path.join(d, f)).st_size
    return total


def entries(root: str) -> list[dict]:
    """Every entry under `root`: {"path", "kind" ("tables": one trace file's tables and stored
    results; "report": one stored report text), "bytes", "used_ns" (last use)}; oldest use first."""
    out = []

    def add(path: str, kind: str) -> None:
        with contextlib.suppress(OSError):  # removed meanwhile by another process
            out.append({"path": path, "kind": kind, "bytes": _size(path), "used_ns": os.stat(path).st_mtime_ns})

    with contextlib.suppress(OSError):
        with os.scandir(root) as it:
            for e in it:
                if e.is_dir(follow_symlinks=False) and len(e.name) == 24 and \
                        all(c in "0123456789abcdef" for c in e.name):
                    add(e.path, "tables")
    with contextlib.suppress(OSError):
        with os.scandir(os.path.join(root, "reports")) as it:
            for e in it:
                if e.is_file(follow_symlinks=False) and e.name.endswith(".pkl"):
                    add(e.path, "report")
    return sorted(out, key=lambda x: (x["used_ns"], x["path"]))


def prune(root: str, keep: str | None = None, budget: int | None = None) -> list[str]:
    """Remove the least recently used entries under `root` until the rest fit `budget` bytes
    (max_bytes()); never `keep` (the entry just written). Also drops temporary entries abandoned
    by killed writers. Returns the removed paths."""
    budget = max_bytes() if budget is None else budget
    _drop_stale_tmp(root)
    _drop_stale_tmp(os.path.join(root, "reports"))
    ents = entries(root)
    total = sum(e["bytes"] for e in ents)
    removed = []
    keep = os.path.abspath(keep) if keep else None
    for e in ents:
        if total <= budget:
            break
        if keep and os.path.abspath(e["path"]) == keep:
            continue
        if _remove(e["path"]):
            total -= e["bytes"]
            removed.append(e["path"])
    return removed


def _remove(path: str) -> bool:
    """Remove an entry (a directory or a file), best effort; True when it is gone."""
    if os.path.isdir(path) and not os.path.islink(path):
        shutil.rmtree(path, ignore_errors=True)
    else:
        with contextlib.suppress(OSError):
            os.remove(path)
    return not os.path.lexists(path)


def _drop_stale_tmp(d: str) -> None:
    import time
    now = time.time()
    with contextlib.suppress(OSError):
        with os.scandir(d) as it:
            for e in it:
                if e.name.startswith(".tmp-"):
                    with contextlib.suppress(OSError):
                        if now - e.stat(follow_symlinks=False).st_mtime > TMP_STALE_S:
                            _remove(e.path)


def usage(root: str, cleared_bytes: int = 0) -> dict:
    """What the cache at `root` holds: trace files, stored reports, bytes, the budget (bytes)."""
    ents = entries(root)
    return {"path": root, "trace_files": sum(e["kind"] == "tables" for e in ents),
            "reports": sum(e["kind"] == "report" for e in ents), "bytes": sum(e["bytes"] for e in ents),
            "max_bytes": max_bytes(), "cleared_bytes": cleared_bytes}


def clear(root: str) -> int:
    """Remove every entry under `root`; the bytes freed."""
    return sum(e["bytes"] for e in entries(root) if _remove(e["path"]))


# --- stored analyses: per-rank results beside each file's tables, whole report texts ----------

def results_entry(path: str, options: str, cache_dir: str | None = None) -> str:
    """File holding `path`'s per-rank analysis results under `options` (a text naming every option
    that changes them), in the file's table entry, named by a hash of the options and _code_stamp."""
    h = hashlib.sha256(f"{_code_stamp()}\0{options}".encode()).hexdigest()[:32]
    return os.path.join(cache_dir or default_dir(), key(path), f"results-{h}.pkl")


def read_results(entry: str) -> tuple[dict, list] | None:
    """(meta, results) stored at `entry`; None when absent or damaged (then removed: rebuilt,
    never trusted)."""
    got = _read_blob(entry)
    if not (isinstance(got, tuple) and len(got) == 2 and isinstance(got[0], dict) and isinstance(got[1], list)):
        return None
    _touch(os.path.dirname(entry))  # the file's table entry was used
    return got


def write_results(entry: str, meta: dict, results: list) -> None:
    """Store (meta, results) at `entry`, only where the file's table entry exists (best effort)."""
    if os.path.isfile(os.path.join(os.path.dirname(entry), "meta.json")):
        _write_blob(entry, (meta, results))


def output_entry(options: str, cache_dir: str | None = None) -> str:
    """File holding the text of a command whose input identity and options `options` names."""
    h = hashlib.sha256(f"{_code_stamp()}\0{options}".encode()).hexdigest()[:32]
    return os.path.join(cache_dir or default_dir(), "reports", f"{h}.pkl")


def read_output(entry: str) -> tuple[str, list[str]] | None:
    """(text, reader warnings) stored at `entry`; None when absent or damaged (then removed)."""
    got = _read_blob(entry)
    if not (isinstance(got, tuple) and len(got) == 2 and isinstance(got[0], str) and isinstance(got[1], list)):
        return None
    _touch(entry)
    return got


def write_output(entry: str, text: str, warnings: list[str]) -> None:
    """Store a command's text and reader warnings at `entry` (best effort)."""
    with contextlib.suppress(OSError):
        os.makedirs(os.path.dirname(entry), exist_ok=True)
        _write_blob(entry, (text, list(warnings)))
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
    __version__), the installed pandas and numpy (their __init__'s size and mtime: known without
    importing them) and Python."""
    import importlib.util

    root = os.path.dirname(os.path.abspath(__file__))
    out = [BLOB_MAGIC.decode().strip(), __version__, str(FORMAT_VERSION), sys.version]
    for d, dirs, files in os.walk(root):
        dirs[:] = sorted(x for x in dirs if x != "__pycache__")
        for f in sorted(files):
            if f.endswith((".py", ".toml")):
                st = os.stat(os.path.join(d, f))
                out.append(f"{os.path.relpath(os.path.join(d, f), root)}:{st.st_size}:{st.st_mtime_ns}")
    for lib in ("pandas", "numpy"):
        spec = importlib.util.find_spec(lib)
        st = os.stat(spec.origin) if spec and spec.origin else None
        out.append(f"{lib}:{st.st_size}:{st.st_mtime_ns}" if st else f"{lib}:?")
    return ";".join(out)


def _read_blob(path: str) -> Any:
    """The object stored at `path` by _write_blob, None when absent or damaged (then removed).
    Its SHA-256 is checked before unpickling."""
    try:
        with open(path, "rb") as f:
            blob = f.read()
    except OSError:
        return None
    n = len(BLOB_MAGIC)
    try:
        if blob[:n] != BLOB_MAGIC or hashlib.sha256(blob[n + 32:]).digest() != blob[n:n + 32]:
            raise ValueError("damaged")
        return pickle.loads(blob[n + 32:])
    except Exception:  # noqa: BLE001 - whatever damaged bytes raise: rebuilt, never trusted
        with contextlib.suppress(OSError):
            os.remove(path)
        return None


def _write_blob(path: str, obj: Any) -> None:
    """Pickle `obj` to `path` atomically (tmp + rename), with a hash of the pickle; best effort:
    a read-only or full cache directory only costs speed."""
    tmp = None
    try:
        payload = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
        fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=os.path.dirname(path))
        with os.fdopen(fd, "wb") as f:
            f.write(BLOB_MAGIC + hashlib.sha256(payload).digest() + payload)
        os.replace(tmp, path)
    except (OSError, pickle.PicklingError, TypeError, AttributeError):
        if tmp:
            with contextlib.suppress(OSError):
                os.remove(tmp)
