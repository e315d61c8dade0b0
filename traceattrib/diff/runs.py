"""Which runs a path given to `traceattrib diff` holds.

A run is one capture of the workload: a trace file, or a directory of that run's per-rank
torch.profiler files. A directory given to the diff is read as:

- runs, one per entry, when it holds subdirectories: each subdirectory is a run (its per-rank
  files), each trace file beside them a run too;
- otherwise, one run of per-rank files when every torch.profiler file in it names a distributed
  world (`distributedInfo` with world_size > 1, what torch.distributed writes): today's meaning
  of a directory for `report`;
- otherwise runs, one per trace file: Nsight Systems exports (each holds every rank of its run)
  and single-process torch.profiler files (no distributedInfo, or world_size 1).

A directory mixing per-rank files with single-process traces is refused (name each run with
--before/--after). Only each file's header is read here (up to `HEAD` bytes, before the events).
"""
from __future__ import annotations

import gzip
import os
import re
import zlib

from ..errors import TraceError

TORCH_SUFFIXES = (".json", ".json.gz")
NSYS_SUFFIXES = (".sqlite", ".nsys-rep")
HEAD = 1 << 20
_WORLD = re.compile(rb'"world_size"\s*:\s*(\d+)')


def runs_of(path: str) -> list[str]:
    """The runs `path` holds, in name order (see the module docstring)."""
    if not os.path.isdir(path):
        return [path]
    names = sorted(n for n in os.listdir(path) if not n.startswith("."))
    full = [os.path.join(path, n) for n in names]
    subdirs = [p for p in full if os.path.isdir(p)]
    files = [p for p in full if os.path.isfile(p) and p.endswith(TORCH_SUFFIXES + NSYS_SUFFIXES)]
    if subdirs:
        return [p for p in full if p in subdirs or p in files]
    if not files:
        raise TraceError(f"{path}: directory holds no traces (*.json, *.json.gz, *.sqlite, *.nsys-rep) "
                         "and no run directories")
    torch = [p for p in files if p.endswith(TORCH_SUFFIXES)]
    ranked = [(world_size(p) or 0) > 1 for p in torch]
    if torch and all(ranked) and len(torch) == len(files):
        return [path]
    if any(ranked):
        raise TraceError(f"{path}: holds per-rank files (distributedInfo world_size > 1) beside single-process "
                         "traces; name each run with --before/--after")
    return files


def world_size(path: str) -> int | None:
    """distributedInfo's world_size from a torch.profiler file's header (None when absent or
    unreadable: the reader says what is wrong with the file when it is analyzed)."""
    try:
        with open(path, "rb") as raw:
            magic = raw.read(2)
            raw.seek(0)
            f = gzip.GzipFile(fileobj=raw) if magic == b"\x1f\x8b" else raw
            head = f.read(HEAD)
    except (OSError, EOFError, ValueError, zlib.error):
        return None
    at = head.find(b'"distributedInfo"')
    if at < 0:
        return None
    end = head.find(b'"traceEvents"', at)
    m = _WORLD.search(head, at, end if end >= 0 else len(head))
    return int(m.group(1)) if m else None
