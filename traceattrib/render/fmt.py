"""Formatting helpers: ns in, human units out."""
from __future__ import annotations

import math

from msgspec import UNSET

from ..model import is_unnamed_gpu, named_gpus


def ms(ns: float, digits: int = 3) -> str:
    return f"{ns / 1e6:.{digits}f}"


def per_step_count(count: float) -> str:
    """A mean count per step: whole from 1, two significant digits below (a kernel that runs in
    some steps only reads 0.3, not 0), "<0.01" below that (five characters at most)."""
    if count >= 1 or count == 0:
        return f"{count:.0f}"
    return f"{count:.2g}" if count >= 0.01 else "<0.01"


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
    """A speed-up bound: 1.23x; whole numbers from 1000x (a bucket that holds nearly the whole span
    has a bound of thousands), from 100000x two significant digits and the power of ten (1.5e5x):
    at most 7 characters, as table columns need (a bound is a span over what is left of it, both
    whole ns: below 1e19)."""
    if x is None or math.isinf(x) or math.isnan(x):
        return "n/a"
    if round(x, 2) < 1000:
        return f"{x:.2f}x"
    if round(x) < 1e5:
        return f"{x:.0f}x"
    mantissa, exp = f"{x:.1e}".split("e")
    return f"{mantissa}e{int(exp)}x"


def human_bytes(b: float) -> str:
    """Bytes with a decimal unit, 3 significant digits: 1.23 GB."""
    for unit, f in (("TB", 1e12), ("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if b >= f:
            return f"{b / f:.3g} {unit}"
    return f"{b:.0f} B"


def human_rate(r: float, unit: str) -> str:
    """A count per something with a decimal prefix, 3 significant digits: 989 TFLOP/s."""
    for p, f in (("P", 1e15), ("T", 1e12), ("G", 1e9), ("M", 1e6)):
        if r >= f:
            return f"{r / f:.3g} {p}{unit}"
    return f"{r:.3g} {unit}"


def rank_list(ranks) -> str:
    """'0-3, 6, 8-9' from rank ids."""
    rs = sorted(set(ranks))
    out, i = [], 0
    while i < len(rs):
        j = i
        while j + 1 < len(rs) and rs[j + 1] == rs[j] + 1:
            j += 1
        out.append(f"{rs[i]}-{rs[j]}" if j > i else str(rs[i]))
        i = j + 1
    return ", ".join(out)


def trunc(s: str, width: int) -> str:
    return s if len(s) <= width else s[: width - 1] + "…"


def trace_line(meta: dict) -> str:
    """One line naming the trace: file, profiler and version, GPU(s), ranks."""
    import os

    path = os.path.basename(str(meta.get("path", "")).rstrip("/")) or "?"
    prof = meta.get("profiler", meta.get("format", "?"))
    ver = str(meta.get("profiler_version") or "").split(",")[0] or None
    ranks = meta.get("ranks") or []
    rtxt = f", {len(ranks)} ranks" if len(ranks) > 1 else ""
    return f"{path} · {prof}{' ' + str(ver) if ver else ''} · {gpu_text(meta.get('gpus') or [])}{rtxt}"


def gpu_text(gpus: list[str]) -> str:
    """'2x NVIDIA H200', 'GPU unnamed (device 0, device 1)' for devices the trace does not name."""
    named = named_gpus(gpus)
    parts = [f"{named.count(g)}x {g}" if named.count(g) > 1 else g for g in sorted(set(named))]
    unnamed = sorted({g for g in gpus if is_unnamed_gpu(g)}, key=lambda g: int(g.split()[-1]))
    if unnamed:  # placeholders, not names: say the trace leaves them unnamed
        parts.append(f"GPU unnamed ({', '.join(unnamed)})")
    return ", ".join(parts) or "GPU unknown"


EVIDENCE_TEXT = {
    "regex": "ranges matching --steps",
    "given": "the steps a traceattrib export states",
    "annotations": "step annotations (NVTX / record_function)",
    "python_frames": "Python frames of the model runner (with_stack)",
    "cuda_graphs": "CUDA-graph launches, grouped into forwards",
    "detected": "detection from the repeating kernel sequence (no annotations)",
    "whole_trace": "none (whole trace as one step)",
}


def steps_line(rep) -> str:
    """'steps: 11 (10 decode, 1 prefill), 2 ranks, from ...: why' (the chooser's reason when known)."""
    from .notes import text

    counts = rep.summary.step_counts
    ctext = ", ".join(f"{n} {k}" for k, n in counts.items())
    nranks = rep.steps["rank"].nunique() if len(rep.steps) else 0
    if nranks > 1:
        ctext += f", over {nranks} ranks"
    why = rep.summary.evidence_why
    why = text(why) if why is not None else "from " + EVIDENCE_TEXT.get(rep.evidence, rep.evidence)
    n = sum(counts.values())
    return f"steps: {n} ({ctext}) {why}{past_ranges_text(rep.summary.past_ranges)}{_capture_text(rep.notes, n)}"


def _capture_text(notes, steps: int) -> str:
    """'; the step is CUDA-graph capture, ...' where steps hold stream captures (the note
    steps.graph_capture), so that what follows is not read as a served forward's."""
    held = sum(n.counts[0] for n in notes if n.code == "steps.graph_capture")
    if not held:
        return ""
    who = ("the step is" if steps == 1 else "every step is") if held >= steps else f"{held} of {steps} steps are"
    return f"; {who} CUDA-graph capture, not a forward pass (see notes)"


def past_ranges_text(p) -> str:
    """'; 10 of 11 steps run past their ranges ...' (a report.PastRanges), '' when unset."""
    if p is None or p is UNSET:
        return ""
    who = "every step runs past its range" if p.steps == p.of_steps else \
        f"{p.steps} of {p.of_steps} steps run past their ranges"
    return (f"; {who} (widened to the whole iteration: sampling and host work up to the next "
            f"forward), median {dur(p.median_outside_ns)} outside the ranges, at most {dur(p.max_outside_ns)}")


def kind_from(r) -> str:
    """What decided a step's kind (a step table row), and what said another: 'tokens (not: name=decode)'."""
    first = str(r.get("kind_evidence", "") or "").split(", ")[0] or "-"
    against = str(r.get("kind_against", "") or "")
    return f"{first} (not: {against})" if against else first


CHECK_LABEL = {"stream_overlap": "stream order", "durations": "durations", "drops": "drops",
               "unlaunched": "launch calls", "lost_ops": "lost ops", "clocks": "clocks"}


def check_failure(c) -> str:
    """What a failed integrity check (a report.IntegrityCheck) found, in a few words."""
    n, of = f"{c.count:,}", f"{c.checked:,}"
    return {
        "stream_overlap": f"{n} of {of} GPU ops start before the op before them on their stream ended",
        "durations": f"{n} of {of} GPU ops have an impossible duration",
        "drops": f"{n} sign(s) of lost records" + (f" ({c.detail[0]})" if c.detail else ""),
        "unlaunched": f"{n} of {of} GPU ops in steps have no launch call",
        "lost_ops": f"{n} of {of} launch calls ran no GPU op",
        "clocks": (c.detail[0] if c.detail and not c.count else
                   f"{n} of {of} collectives end apart across ranks after alignment"),
    }.get(c.check, f"{n} of {of}")


def trust_line(integ) -> str:
    """'trust: ...': what was checked, what failed and how many steps it affects (report.Integrity)."""
    if integ is None:
        return "trust: not checked"
    ran = [c for c in integ.checks if c.status != "skipped"]
    failed = [c for c in ran if c.status == "failed"]
    na = "".join(f"; {CHECK_LABEL.get(c.check, c.check)} n/a" for c in integ.checks if c.status == "skipped")
    if not failed:
        return f"trust: {len(ran)} checks passed ({', '.join(CHECK_LABEL.get(c.check, c.check) for c in ran)}{na})"
    what = "; ".join(f"{CHECK_LABEL.get(c.check, c.check)}: {check_failure(c)}" for c in failed)
    return (f"trust: {len(failed)} of {len(ran)} checks FAILED ({what}); "
            f"{len(integ.affected_steps)} of {integ.steps} steps affected")


def sol_line(kind: str, d) -> str:
    """The speed-of-light sentence of one step kind (a report.SolSummary)."""
    if d is None or d.source == "unknown" or d.bytes_per_step is None:
        return ("speed of light: unknown (no op shapes for these steps' GEMMs: pass --model config.json with "
                "--batch and --context, or capture eagerly with torch.profiler record_shapes=True)")
    span = d.mean_span_ns or 0
    src = f" (from {d.source}" + (f", {d.gpu}" if d.gpu else "") + ")"
    bw, pf = d.peak_bw_Bps, d.peak_flops
    flops = f"{human_rate(d.flops_per_step, 'FLOP')}" if d.flops_per_step else None
    if not bw and not pf:
        return (f"speed of light: the step is {span / 1e6:.3g} ms and reads {human_bytes(d.bytes_per_step)}"
                + (f", does {flops}" if flops else "") + "; GPU peaks unknown (pass --peak-bw and --peak-flops)"
                + src)
    parts = [f"the step is {span / 1e6:.3g} ms"]
    compute = (d.compute_time_ns or 0) > (d.memory_time_ns or 0)
    if compute:
        parts.append(f"{flops} at {human_rate(pf, 'FLOP/s')}{' ' + d.dtype if d.dtype else ''} "
                     f"take {d.compute_time_ns / 1e6:.3g} ms")
        parts.append(f"MFU {pct(d.mfu)}")
        if d.hbm_efficiency is not None:
            parts.append(f"HBM efficiency {pct(d.hbm_efficiency)}")
    else:
        if bw:
            parts.append(f"reading {human_bytes(d.bytes_per_step)} at {human_rate(bw, 'B/s')} takes "
                         f"{d.memory_time_ns / 1e6:.3g} ms")
            parts.append(f"HBM efficiency {pct(d.hbm_efficiency)}")
        if kind != "decode" and d.mfu is not None:
            parts.append(f"MFU {pct(d.mfu)}")
    if d.linear_bw_Bps and d.linear_bw_fraction:
        parts.append(f"linear kernels read weights at {human_rate(d.linear_bw_Bps, 'B/s')} "
                     f"({d.linear_bw_fraction:.0%} of peak)")
    return "speed of light: " + "; ".join(parts) + src
