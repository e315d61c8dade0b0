"""Parquet cache of normalized tables, one entry per trace file keyed on (path, size, mtime),
the per-rank analysis results beside them, and `export`.

The cache sits below the per-file reader: `read_file` parses one file or reads its entry back, and
a directory of rank files is "read each file (cached), merge", the same whether this process
reads every file or Dask workers read one each. The second command on the same trace reads
Parquet files instead of parsing the trace. Beside the tables, each set of analysis options
(traceattrib.parallel.file_task) stores the file's small per-rank results as one pickle, so a
repeated `report` neither reads the tables nor analyzes them again.
Location: $TRACEATTRIB_CACHE_DIR, else the platform's user cache directory
(~/.cache/traceattrib, ~/Library/Caches/traceattrib, %LOCALAPPDATA%\\traceattrib\\Cache).
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

import pandas as pd

from . import __version__
from .errors import TraceError
from .model import TABLES, Trace, conform
from .progress import ProgressFn, noop

# Bump when a reader or the model changes what it produces: old entries are then ignored.
FORMAT_VERSION = 4  # 3: nsys kernels carry collective args from NCCL NVTX ranges; 4: reader warnings
RESULTS_MAGIC = b"TAres01\n"  # first bytes of a results entry; bump with what file_task returns


def default_dir() -> str:
    env = os.environ.get("TRACEATTRIB_CACHE_DIR")
    if env:
        return env
    if sys.platform == "darwin":
        return os.path.expanduser("~/Library/Caches/traceattrib")
    if os.name == "nt":
        return os.path.join(os.environ.get("LOCALAPPDATA", os.path.expanduser("~")), "traceattrib", "Cache")
    return os.path.join(os.environ.get("XDG_CACHE_HOME", os.path.expanduser("~/.cache")), "traceattrib")


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


def read_tables(directory: str) -> Trace:
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
              progress: ProgressFn = noop) -> Trace:
    """One trace file through its cache entry (parsed and stored on a miss); meta['cached'] says
    which. A cached read validates like a fresh one: the same file gives the same result or the
    same TraceError with or without the cache, whichever command filled it."""
    from .ingest import read_file as parse

    if not use_cache:
        t = parse(path, require_gpu=require_gpu, progress=progress)
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
            t.meta["path"] = path
            t.meta["cached"] = True
            return _validate(t, path, require_gpu)
    t = parse(path, require_gpu=require_gpu, progress=progress)
    t.meta = _plain_meta(t.meta)
    tmp = None
    try:  # best effort: a read-only or full cache directory, or tables Parquet cannot hold, only cost speed
        os.makedirs(root, exist_ok=True)
        tmp = tempfile.mkdtemp(prefix=".tmp-", dir=root)
        write_tables(t, tmp)
        os.replace(tmp, entry)  # atomic; a concurrent writer of the same entry wins, this copy is dropped
    except _cache_errors():
        if tmp:
            shutil.rmtree(tmp, ignore_errors=True)
    t.meta["cached"] = False
    return _validate(t, path, require_gpu)


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


# --- per-rank analysis results, beside the file's tables -------------------------------------

def results_entry(path: str, options: str, cache_dir: str | None = None) -> str:
    """File holding `path`'s analysis results under `options` (a text naming every option that
    changes them): in the file's table entry, named by a hash of the options and of everything
    else results depend on (versions of traceattrib, its sources, pandas, numpy, Python)."""
    import numpy as np

    h = hashlib.sha256("\0".join((RESULTS_MAGIC.decode().strip(), __version__, str(FORMAT_VERSION),
                                   pd.__version__, np.__version__, sys.version, _source_stamp(),
                                   options)).encode())
    return os.path.join(cache_dir or default_dir(), key(path), f"results-{h.hexdigest()[:32]}.pkl")


@functools.lru_cache(maxsize=1)
def _source_stamp() -> str:
    """Size and mtime of every file of the installed package: an edited checkout (same
    __version__) must not reuse results computed by other code."""
    root = os.path.dirname(os.path.abspath(__file__))
    out = []
    for d, dirs, files in os.walk(root):
        dirs[:] = sorted(x for x in dirs if x != "__pycache__")
        for f in sorted(files):
            if f.endswith((".py", ".toml")):
                st = os.stat(os.path.join(d, f))
                out.append(f"{os.path.relpath(os.path.join(d, f), root)}:{st.st_size}:{st.st_mtime_ns}")
    return ";".join(out)


def read_results(entry: str):
    """(meta, results) stored at `entry`, or None when absent or damaged (a damaged entry is
    removed: rebuilt, never trusted). The pickle is checked against its stored hash first."""
    try:
        with open(entry, "rb") as f:
            blob = f.read()
    except OSError:
        return None
    n = len(RESULTS_MAGIC)
    try:
        if blob[:n] != RESULTS_MAGIC or hashlib.sha256(blob[n + 32:]).digest() != blob[n:n + 32]:
            raise ValueError("damaged")
        meta, results = pickle.loads(blob[n + 32:])
        if not isinstance(meta, dict) or not isinstance(results, list):
            raise ValueError("not (meta, results)")
    except Exception:  # noqa: BLE001 - unpickling damaged bytes can raise anything; rebuild
        with contextlib.suppress(OSError):
            os.remove(entry)
        return None
    return meta, results


def write_results(entry: str, meta: dict, results: list) -> None:
    """Store (meta, results) at `entry` atomically (tmp + rename), only where the file's table
    entry exists; best effort: a read-only or full cache directory only costs speed."""
    d = os.path.dirname(entry)
    if not os.path.isfile(os.path.join(d, "meta.json")):
        return
    tmp = None
    try:
        payload = pickle.dumps((meta, results), protocol=pickle.HIGHEST_PROTOCOL)
        fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=d)
        with os.fdopen(fd, "wb") as f:
            f.write(RESULTS_MAGIC + hashlib.sha256(payload).digest() + payload)
        os.replace(tmp, entry)
    except (OSError, pickle.PicklingError, TypeError, AttributeError):
        if tmp:
            with contextlib.suppress(OSError):
                os.remove(tmp)
