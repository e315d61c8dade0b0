"""Parquet cache of normalized tables, one entry per trace file keyed on (path, size, mtime),
and `export`.

The cache sits below the per-file reader: `read_file` parses one file or reads its entry back, and
a directory of rank files is "read each file (cached), merge", the same whether this process
reads every file or Dask workers read one each. The second command on the same trace reads
Parquet files instead of parsing the trace.
Location: $TRACEATTRIB_CACHE_DIR, else the platform's user cache directory
(~/.cache/traceattrib, ~/Library/Caches/traceattrib, %LOCALAPPDATA%\\traceattrib\\Cache).
"""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import sys
import tempfile

import pandas as pd

from . import __version__
from .errors import TraceError
from .model import TABLES, Trace, conform
from .progress import ProgressFn, noop

# Bump when a reader or the model changes what it produces: old entries are then ignored.
FORMAT_VERSION = 3  # 3: nsys kernels carry collective args from NCCL NVTX ranges


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
        json.dump(trace.meta, f, indent=1, default=str)


def read_tables(directory: str) -> Trace:
    tables = {name: conform(pd.read_parquet(os.path.join(directory, f"{name}.parquet")), cols)
              for name, cols in TABLES.items()}
    with open(os.path.join(directory, "meta.json")) as f:
        meta = json.load(f)
    return Trace(**tables, meta=meta)


def read_file(path: str, use_cache: bool = True, cache_dir: str | None = None, require_gpu: bool = True,
              progress: ProgressFn = noop) -> Trace:
    """One trace file through its cache entry (parsed and stored on a miss); meta['cached'] says which."""
    from .ingest import read_file as parse

    if not use_cache:
        return parse(path, require_gpu=require_gpu, progress=progress)
    root = cache_dir or default_dir()
    entry = os.path.join(root, key(path))
    if os.path.isfile(os.path.join(entry, "meta.json")):
        try:
            t = read_tables(entry)
            t.meta["path"] = path
            t.meta["cached"] = True
            return t
        except Exception:  # a damaged entry is rebuilt, never trusted
            shutil.rmtree(entry, ignore_errors=True)
    t = parse(path, require_gpu=require_gpu, progress=progress)
    tmp = None
    try:  # best effort: a read-only or full cache directory only costs speed
        os.makedirs(root, exist_ok=True)
        tmp = tempfile.mkdtemp(prefix=".tmp-", dir=root)
        write_tables(t, tmp)
        os.replace(tmp, entry)  # atomic; a concurrent writer of the same entry wins, this copy is dropped
    except OSError:
        if tmp:
            shutil.rmtree(tmp, ignore_errors=True)
    t.meta["cached"] = False
    return t


def load(path: str, use_cache: bool = True, cache_dir: str | None = None, require_gpu: bool = True,
         progress: ProgressFn = noop) -> Trace:
    """Load a trace file or a directory of rank files, each file through the Parquet cache when
    allowed; progress(fraction, what) while parsing."""
    from .ingest import read

    if not os.path.exists(path):
        raise TraceError(f"{path}: no such file or directory")
    hits: list[bool] = []

    def one(f: str, **kw) -> Trace:
        t = read_file(f, use_cache=use_cache, cache_dir=cache_dir, **kw)
        hits.append(bool(t.meta.get("cached")))
        return t

    t = read(path, require_gpu=require_gpu, progress=progress, read_one=one)
    if use_cache:  # a directory is cached only when every rank file was
        t.meta["cached"] = all(hits)
    return t
