"""Readers, one per format, behind `load(path)`: a file (nsys SQLite export, torch.profiler JSON
or .json.gz) or a directory of per-rank torch.profiler traces."""
from __future__ import annotations

import os

import pandas as pd

from ..errors import TraceError
from ..model import TABLES, Trace, conform
from ..progress import ProgressFn, noop
from . import kineto, nsys, nsysrep

TORCH_SUFFIXES = (".json", ".json.gz")


def detect(path: str) -> str:
    """'nsys' or 'torch' from the file's first bytes (extensions are only a hint)."""
    try:
        with open(path, "rb") as f:
            head = f.read(16)
    except OSError as e:
        raise TraceError(f"{path}: cannot open ({e.strerror or e})") from None
    if head.startswith(nsys.SQLITE_MAGIC):
        return "nsys"
    if head[:2] == b"\x1f\x8b":
        return "torch"
    if head.lstrip()[:1] in (b"{", b"["):
        return "torch"
    if not head:
        raise TraceError(f"{path}: empty file")
    if nsysrep.is_report(path):
        return "nsys-rep"
    raise TraceError(f"{path}: not a trace (expected an Nsight Systems SQLite export or torch.profiler JSON)")


def rank_files(directory: str) -> list[str]:
    files = sorted(os.path.join(directory, f) for f in os.listdir(directory)
                   if f.endswith(TORCH_SUFFIXES) and os.path.isfile(os.path.join(directory, f)))
    if not files:
        raise TraceError(f"{directory}: directory holds no torch.profiler traces (*.json, *.json.gz)")
    return files


def read(path: str, require_gpu: bool = True, progress: ProgressFn = noop) -> Trace:
    """Parse a trace file or a directory of per-rank traces (no cache).

    progress(fraction, what) is called as the load advances (see traceattrib.progress)."""
    if not os.path.exists(path):
        raise TraceError(f"{path}: no such file or directory")
    if os.path.isdir(path):
        return _read_ranks(path, require_gpu, progress)
    fmt = detect(path)
    if fmt == "nsys-rep":  # exported to SQLite once (cached), then read as any export
        t = nsys.read(nsysrep.to_sqlite(path), require_gpu=require_gpu, progress=progress)
    elif fmt == "nsys":
        t = nsys.read(path, require_gpu=require_gpu, progress=progress)
    else:
        t = kineto.read(path, require_gpu=require_gpu, progress=progress)
    progress(1.0, "done")
    t.meta["path"] = path
    return t


def _read_ranks(directory: str, require_gpu: bool, progress: ProgressFn = noop) -> Trace:
    files = rank_files(directory)
    traces = []
    for i, f in enumerate(files):
        def part(fraction: float, what: str = "", i: int = i) -> None:
            progress((i + fraction) / len(files), f"rank file {i + 1}/{len(files)} {what}")
        traces.append(kineto.read(f, require_gpu=require_gpu, progress=part))
    ranks = [t.meta.get("rank") for t in traces]
    if len(set(ranks)) != len(ranks):  # no usable distributedInfo: number files in name order
        for i, t in enumerate(traces):
            t.meta["rank"] = i
            for name in TABLES:
                tab = getattr(t, name)
                if len(tab):
                    tab["rank"] = i
    merged = {name: conform(pd.concat([getattr(t, name) for t in traces], ignore_index=True), cols)
              for name, cols in TABLES.items()}
    first = traces[0].meta
    meta = dict(first)
    meta.update(path=directory, files=files, ranks=sorted(t.meta["rank"] for t in traces),
                world_size=first.get("world_size") or len(traces),
                gpus=[g for t in traces for g in t.meta.get("gpus", [])],
                devices=sorted({d for t in traces for d in t.meta.get("devices", [])}),
                notes=sorted({n for t in traces for n in t.meta.get("notes", [])}))
    warnings = [f"{os.path.basename(f)}: {w}" for f, t in zip(files, traces) for w in t.meta.get("warnings", [])]
    if warnings:
        meta["warnings"] = warnings
    meta.pop("rank", None)
    return Trace(**merged, meta=meta)
