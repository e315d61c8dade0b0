"""Readers, one per format, behind `load(path)`: a file (nsys SQLite export, torch.profiler JSON
or .json.gz, traceattrib's own trace-event export) or a directory of per-rank torch.profiler traces."""
from __future__ import annotations

import os
from collections.abc import Callable
from typing import TYPE_CHECKING

from ..errors import TraceError
from ..progress import ProgressFn, noop

if TYPE_CHECKING:  # pandas is imported only to build tables: `report` starts an export's reads first
    from ..model import Trace
    from .nsys_tables import Process, Started

TORCH_SUFFIXES = (".json", ".json.gz")
SQLITE_MAGIC = b"SQLite format 3\x00"


def detect(path: str) -> str:
    """'nsys' or 'torch' from the file's first bytes (extensions are only a hint)."""
    from . import nsysrep

    try:
        with open(path, "rb") as f:
            head = f.read(16)
    except OSError as e:
        raise TraceError(f"{path}: cannot open ({e.strerror or e})") from None
    if head.startswith(SQLITE_MAGIC):
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
    """The torch.profiler traces of a directory of per-rank files, in name order. A file there that
    is not one (an Nsight Systems export named *.json, say) is a TraceError: ranks read from one
    clock and from per-file clocks cannot be merged."""
    files = sorted(os.path.join(directory, f) for f in os.listdir(directory)
                   if f.endswith(TORCH_SUFFIXES) and os.path.isfile(os.path.join(directory, f)))
    if not files:
        raise TraceError(f"{directory}: directory holds no torch.profiler traces (*.json, *.json.gz)")
    for f in files:
        fmt = detect(f)
        if fmt != "torch":
            what = "an Nsight Systems report" if fmt == "nsys-rep" else "an Nsight Systems export"
            raise TraceError(f"{f}: {what}, not a torch.profiler trace; a directory of rank files holds "
                             "torch.profiler traces only (give an Nsight Systems file on its own)")
    return files


def read_file(path: str, require_gpu: bool = True, progress: ProgressFn = noop,
              started: Started | None = None, process: Process | None = None, lean: bool = False) -> Trace:
    """Parse one trace file, nsys SQLite or torch.profiler JSON (no cache); started: an export's
    reads `nsys_tables.start(path)` began (nsys.read closes it); process: one process of an
    Nsight Systems export (nsys.read); lean: an export without the kernel columns only the exports
    show (nsys.read; torch traces carry them at no cost and keep them)."""
    # the readers (msgspec, ADBC, ...) are imported only to parse, each only for its format
    if not os.path.isfile(path):
        raise TraceError(f"{path}: no such file" if not os.path.exists(path) else f"{path}: not a file")
    fmt = detect(path)
    if fmt == "nsys-rep":  # exported to SQLite once (cached), then read as any export
        from . import nsys, nsysrep
        with nsysrep.exported(path) as exported:
            t = nsys.read(exported, require_gpu=require_gpu, progress=progress, lean=lean)
    elif fmt == "nsys":
        from . import nsys
        t = nsys.read(path, require_gpu=require_gpu, progress=progress, started=started, process=process,
                      lean=lean)
    else:
        from . import exported
        if exported.is_export(path):  # traceattrib's own trace-event export (render/perfetto.py)
            t = exported.read(path, require_gpu=require_gpu, progress=progress)
        else:
            from . import kineto
            t = kineto.read(path, require_gpu=require_gpu, progress=progress)
    from ..model import compact_trace

    progress(1.0, "done")
    t.meta["path"] = path
    return compact_trace(t)  # columns set after the readers' conform (ranks, NCCL sizes) too


def read(path: str, require_gpu: bool = True, progress: ProgressFn = noop,
         read_one: Callable[..., Trace] = read_file) -> Trace:
    """Parse a trace file or a directory of per-rank traces.

    A directory is each rank file read with `read_one(file, require_gpu=, progress=)` (default:
    parse, no cache; traceattrib.cache passes its cached reader), then merged. progress(fraction,
    what) is called as the load advances (see traceattrib.progress)."""
    if not os.path.exists(path):
        raise TraceError(f"{path}: no such file or directory")
    if not os.path.isdir(path):
        return read_one(path, require_gpu=require_gpu, progress=progress)
    files = rank_files(path)
    traces = []
    for i, f in enumerate(files):
        def part(fraction: float, what: str = "", i: int = i) -> None:
            progress((i + fraction) / len(files), f"rank file {i + 1}/{len(files)} {what}")
        traces.append(read_one(f, require_gpu=require_gpu, progress=part))
    return merge_ranks(traces, path, files)


def renumbered(metas: list[dict]) -> bool:
    """True when the rank files carry no usable distinct rank ids (no or repeated distributedInfo
    ranks): ranks are then numbered by file name order."""
    ranks = [m.get("rank") for m in metas]
    return len(set(ranks)) != len(ranks)


def merge_meta(metas: list[dict], directory: str, files: list[str]) -> dict:
    """Meta of a directory of rank files from each file's meta (in file order)."""
    ranks = list(range(len(metas))) if renumbered(metas) else [m["rank"] for m in metas]
    meta = dict(metas[0])
    meta.update(path=directory, files=files, ranks=sorted(ranks),
                world_size=metas[0].get("world_size") or len(metas),
                gpus=[g for m in metas for g in m.get("gpus", [])],
                devices=sorted({d for m in metas for d in m.get("devices", [])}),
                notes=sorted({n for m in metas for n in m.get("notes", [])}))
    warnings = [f"{os.path.basename(f)}: {w}" for f, m in zip(files, metas) for w in m.get("warnings", [])]
    if warnings:
        meta["warnings"] = warnings
    else:
        meta.pop("warnings", None)
    about_cache = list(dict.fromkeys(w for m in metas for w in m.get("cache_warnings", [])))
    if about_cache:  # traceattrib.cache.WARNINGS: what each file's cache entry needed
        meta["cache_warnings"] = about_cache
    else:
        meta.pop("cache_warnings", None)
    meta.pop("rank", None)
    # each rank's evidence of lost records stays its own (analysis.split_ranks hands it back to the
    # rank); the merged one counts every rank's, for a trace analysed whole
    by_rank = {str(r): m.get("integrity") or {} for r, m in zip(ranks, metas)}
    meta["integrity_by_rank"] = by_rank
    meta["integrity"] = merge_integrity(list(by_rank.values()))
    return meta


def merge_integrity(parts: list[dict]) -> dict:
    """The readers' integrity evidence (meta["integrity"]) of several files as one: rows dropped,
    repaired durations and overhead events summed, messages and unreadable tables listed once."""
    out: dict = {"dropped_rows": {}, "negative_durations": 0, "overhead": {}, "profiler_messages": []}
    for p in parts:
        for k, v in (p.get("dropped_rows") or {}).items():
            out["dropped_rows"][k] = out["dropped_rows"].get(k, 0) + int(v)
        out["negative_durations"] += int(p.get("negative_durations") or 0)
        for k, v in (p.get("overhead") or {}).items():
            o = out["overhead"].setdefault(k, {"count": 0, "ns": 0})
            o["count"] += int((v or {}).get("count", 0))
            o["ns"] += int((v or {}).get("ns", 0))
        for key in ("profiler_messages", "unreadable"):
            for m in p.get(key) or []:
                if m not in out.setdefault(key, []):
                    out[key].append(m)
    return out


def merge_ranks(traces: list[Trace], directory: str, files: list[str]) -> Trace:
    """One trace from per-rank traces (file order): tables concatenated, rank ids kept from
    distributedInfo or, when they clash, renumbered by file order."""
    import pandas as pd

    from ..model import TABLES, Trace, conform

    meta = merge_meta([t.meta for t in traces], directory, files)
    if renumbered([t.meta for t in traces]):
        for i, t in enumerate(traces):
            for name in TABLES:
                tab = getattr(t, name)
                if len(tab):
                    tab["rank"] = i
    merged = {name: conform(pd.concat([getattr(t, name) for t in traces], ignore_index=True), cols)
              for name, cols in TABLES.items()}
    return Trace(**merged, meta=meta)
