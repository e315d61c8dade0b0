"""Formatting helpers: ns in, human units out."""
from __future__ import annotations

import math


def ms(ns: float, digits: int = 3) -> str:
    return f"{ns / 1e6:.{digits}f}"


def dur(ns: float) -> str:
    """A duration with a unit that suits it: 74 us, 5.87 ms, 1.20 s."""
    if ns is None or (isinstance(ns, float) and math.isnan(ns)):
        return "-"
    if ns < 1e3:
        return f"{ns:.0f} ns"
    if ns < 1e6:
        return f"{ns / 1e3:.1f} us" if ns < 1e4 else f"{ns / 1e3:.0f} us"
    if ns < 1e9:
        return f"{ns / 1e6:.2f} ms" if ns < 1e8 else f"{ns / 1e6:.1f} ms"
    return f"{ns / 1e9:.2f} s"


def pct(x: float, digits: int = 1) -> str:
    return f"{100 * x:.{digits}f}%"


def bound(x: float) -> str:
    if x is None or math.isinf(x) or math.isnan(x):
        return "n/a"
    return f"{x:.2f}x"


def trunc(s: str, width: int) -> str:
    return s if len(s) <= width else s[: width - 1] + "…"


def trace_line(meta: dict) -> str:
    """One line naming the trace: file, profiler and version, GPU(s), ranks."""
    import os

    path = os.path.basename(str(meta.get("path", "")).rstrip("/")) or "?"
    prof = meta.get("profiler", meta.get("format", "?"))
    ver = str(meta.get("profiler_version") or "").split(",")[0] or None
    gpus = meta.get("gpus") or []
    uniq = sorted(set(gpus))
    gtxt = ", ".join(f"{gpus.count(g)}x {g}" if gpus.count(g) > 1 else g for g in uniq) or "GPU unknown"
    ranks = meta.get("ranks") or []
    rtxt = f", {len(ranks)} ranks" if len(ranks) > 1 else ""
    return f"{path} · {prof}{' ' + str(ver) if ver else ''} · {gtxt}{rtxt}"


EVIDENCE_TEXT = {
    "regex": "ranges matching --steps",
    "annotations": "step annotations (NVTX / record_function)",
    "python_frames": "Python frames of the model runner (with_stack)",
    "cuda_graphs": "CUDA-graph launches, grouped into forwards",
    "detected": "detection from the repeating kernel sequence (no annotations)",
    "whole_trace": "none (whole trace as one step)",
}


def steps_line(rep) -> str:
    """'steps: 11 (10 decode, 1 prefill), 2 ranks, from ...: why' (the chooser's reason when known)."""
    counts = rep.summary.get("step_counts", {})
    ctext = ", ".join(f"{n} {k}" for k, n in counts.items())
    nranks = rep.steps["rank"].nunique() if len(rep.steps) else 0
    if nranks > 1:
        ctext += f", over {nranks} ranks"
    why = rep.summary.get("evidence_why") or "from " + EVIDENCE_TEXT.get(rep.evidence, rep.evidence)
    return f"steps: {sum(counts.values())} ({ctext}) {why}"
