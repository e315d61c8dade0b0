"""The GPU's peaks: bytes/s and dense FLOP/s per math dtype from rules/gpus.toml by the GPU name the
trace reports, or from --peak-bw / --peak-flops."""
from __future__ import annotations

import math
import re
from dataclasses import dataclass
from functools import lru_cache

from .. import vocab
from ..model import named_gpus
from ..notes import Note, note


@dataclass
class Peak:
    """One GPU's peaks: bytes/s and dense FLOP/s per math dtype, with where they come from."""

    name: str
    hbm_Bps: float | None
    flops: dict[str, float]
    source: str

    def flops_for(self, dtype: str) -> tuple[float | None, str]:
        """Peak FLOP/s for a math dtype, falling back to wider dtypes the GPU has; (value, dtype used)."""
        fallback = _table().fallback
        d, seen = dtype or "bf16", set()
        while d and d not in seen:
            if d in self.flops:
                return self.flops[d], d
            seen.add(d)
            d = fallback.get(d, "")
        return None, ""


@lru_cache(maxsize=1)
def _table() -> vocab.GpusFile:
    """rules/gpus.toml."""
    return vocab.load("gpus", vocab.GpusFile)


def load_gpus(path: str | None = None) -> tuple[vocab.GpuRow, ...]:
    """The GPU table, rows in priority order: rules/gpus.toml, or a file of that format."""
    return vocab.load_file(path, vocab.GpusFile, "GPU table").gpu if path else _table().gpu


@lru_cache(maxsize=1)
def _patterns() -> tuple[re.Pattern, ...]:
    """rules/gpus.toml's `match` regexes, compiled (case-insensitive)."""
    return tuple(re.compile(r.match, re.I) for r in _table().gpu)


def gpu_row(name: str, rows: tuple[vocab.GpuRow, ...] | None = None) -> vocab.GpuRow | None:
    """The first GPU row whose `match` is found in the GPU name; None when no row matches."""
    pats = _patterns() if rows is None else tuple(re.compile(r.match, re.I) for r in rows)
    return next((r for r, p in zip(rows if rows is not None else _table().gpu, pats) if p.search(name or "")), None)


def match_gpu(name: str, rows: tuple[vocab.GpuRow, ...] | None = None) -> Peak | None:
    """The peaks of the first GPU row whose `match` is found in the GPU name; None when no row
    matches or that row has no peaks."""
    return _peak(gpu_row(name, rows))


def _peak(r: vocab.GpuRow | None) -> Peak | None:
    """A row's peaks; None without a row or peaks."""
    if r is None or r.hbm_Bps is None:
        return None
    return Peak(name=r.name, hbm_Bps=float(r.hbm_Bps), flops={k: float(v) for k, v in r.flops.items()},
                source=r.source)


def trace_peak(meta: dict, peak_bw: float | None = None, peak_flops: float | None = None) -> tuple[Peak | None, list[Note]]:
    """Peaks for a trace's GPU (meta['gpus']), with --peak-bw / --peak-flops taking precedence."""
    notes: list[Note] = []
    names = sorted(set(g for g in (meta.get("gpus") or []) if g))
    gpus = named_gpus(names)  # the GPUs the trace names
    rows = [gpu_row(g) for g in gpus]
    p = next((q for q in map(_peak, rows) if q), None)
    if len(gpus) > 1:
        notes.append(note("sol.gpus_differ", tuple(gpus), p.name if p else None))
    if p is None and (peak_bw or peak_flops):
        p = Peak(name=gpus[0] if gpus else "GPU", hbm_Bps=None, flops={}, source="")
    if p is None:
        if rows and rows[0] is not None:
            notes.append(note("sol.gpu_no_peaks", gpus[0], rows[0].name))
        elif gpus:
            notes.append(note("sol.gpu_unknown", gpus[0]))
        elif names:
            notes.append(note("sol.gpu_unnamed", tuple(names)))
        return None, notes
    if peak_bw:
        p.hbm_Bps, p.source = float(peak_bw), (p.source + "; " if p.source else "") + "bandwidth from --peak-bw"
    if peak_flops:
        p.flops = {"*": float(peak_flops)}
        p.source = (p.source + "; " if p.source else "") + "FLOP/s from --peak-flops"
    return p, notes


def parse_rate(text: str | float) -> float:
    """A rate such as '4.8e12', '4.8T', '4.8 TB/s', '989 TFLOPS', '1.2P' as a float (per second)."""
    if isinstance(text, (int, float)):
        v = float(text)
    else:
        m = re.fullmatch(r"\s*([0-9]*\.?[0-9]+(?:[eE][+-]?[0-9]+)?)\s*([kKMGTP]?)\s*(?:i?B/s|FLOP/?S|FLOPs|OPS|/s)?\s*",
                         str(text), re.I)
        if not m:
            raise ValueError(f"{text!r} is not a rate (e.g. 4.8e12, 4.8T, '4.8 TB/s', '989 TFLOPS')")
        scale = {"": 1, "k": 1e3, "m": 1e6, "g": 1e9, "t": 1e12, "p": 1e15}[m.group(2).lower()]
        v = float(m.group(1)) * scale
    if not v > 0 or math.isinf(v):
        raise ValueError(f"{text!r}: a rate must be a positive number")
    return v
