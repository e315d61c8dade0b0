"""Text, Markdown and JSON of `traceattrib diff` (a diff.types.Diff): every word of the diff.

Text and Markdown lead with each kind's verdict and its 95% interval ("decode median 4.20 ->
0.569 ms (-86.5%, 95% CI -87.5% to -86.2%)", "no change beyond noise", "prefill: 1 step on each
side, too few to tell"), then what differs between the captures, the table, the noise, and the
gate's decision as the last lines. Markdown keeps the details in a collapsed <details> block.
"""
from __future__ import annotations

import os
from typing import Any

from msgspec import Struct

from ..diff.types import (
    HIGHER,
    LOWER,
    REFUSE,
    RUNS,
    TOO_FEW,
    TRIPPED,
    UNKNOWN,
    WITHIN,
    Change,
    Check,
    Diff,
    Gate,
    GateCheck,
    KindDiff,
    RunInfo,
    Spread,
)
from .fmt import gpu_text, ms

SCHEMA_VERSION = 1
CAPTURE = {"eager": "eager", "graphs": "CUDA graphs", "partial": "partly CUDA graphs"}
GRAPH_TRACE = {"whole_graphs": "as whole graphs (nsys --cuda-graph-trace=graph: kernels unseen, bucket 'graph')",
               "kernels": "kernel by kernel"}
EVIDENCE = {"regex": "--steps ranges", "given": "the steps an export states", "annotations": "step annotations", "python_frames": "Python frames",
            "cuda_graphs": "CUDA-graph launches", "detected": "the repeating kernel sequence",
            "whole_trace": "the whole trace", "none": "nothing"}
CHECK = {"gpu": "GPU", "gpu_count": "GPU count", "ranks": "ranks", "layers": "layers per step",
         "tokens": "tokens per step", "profiler": "profiler"}
WHY = {"gpu": "another GPU", "gpu_count": "another machine shape", "ranks": "another parallel layout",
       "layers": "another model depth", "tokens": "another batch", "profiler": "their overheads differ"}


# --- numbers --------------------------------------------------------------------------------------

def _sgn(x: float | None) -> str:
    return "" if x is None else f"{x:+.1%}"


def _num(ns: float, unit: float) -> str:
    v = ns / unit
    return f"{v:.2f}" if abs(v) >= 1 else f"{v:.3f}"


def pair(before: float, after: float) -> str:
    """'4.20 -> 0.569 ms': both in the unit that suits the larger."""
    unit, name = (1e6, "ms") if max(before, after) >= 1e5 else (1e3, "us")
    return f"{_num(before, unit)} -> {_num(after, unit)} {name}"


def ci_text(c: Change | GateCheck) -> str:
    """'95% CI -5.1% to -4.0%' ('' without an interval)."""
    if c.ci is not None:
        return f"95% CI {c.ci[0]:+.1%} to {c.ci[1]:+.1%}"
    ci_ns = getattr(c, "ci_ns", None)
    if ci_ns is not None:
        return f"95% CI {ci_ns[0] / 1e6:+.3f} to {ci_ns[1] / 1e6:+.3f} ms"
    return ""


def change_text(c: Change) -> str:
    """'(-4.6%, 95% CI -5.1% to -4.0%)'."""
    parts = [p for p in (_sgn(c.change) or f"{c.change_ns / 1e6:+.3f} ms", ci_text(c)) if p]
    return f"({', '.join(parts)})"


def _steps(k: KindDiff, noun: bool = True) -> str:
    """'1 step on each side', '20 steps before, 24 after' (noun=False: '20 before, 24 after')."""
    def n(x: int) -> str:
        return f"{x} step{'s' if x != 1 else ''}" if noun else str(x)
    return f"{n(k.steps_before)} on each side" if k.steps_before == k.steps_after else \
        f"{n(k.steps_before)} before, {k.steps_after} after"


# --- sentences ------------------------------------------------------------------------------------

def headline(kind: str, k: KindDiff, min_steps: int = 5) -> str:
    """The kind's verdict on its median step span."""
    m = k.median
    if m.verdict == TOO_FEW:
        return f"{kind}: {_steps(k)}, too few to tell (median {pair(m.before, m.after)}; {min_steps}+ steady " \
               f"steps on each side give an interval)"
    out = f"{kind} median {pair(m.before, m.after)} {change_text(m)}"
    return out + (": no change beyond noise" if m.verdict not in (LOWER, HIGHER) else "")


def p90_line(k: KindDiff) -> str | None:
    p = k.p90
    if p.verdict == TOO_FEW:
        return None
    return f"p90 {pair(p.before, p.after)} {change_text(p)}" + \
        (": no change beyond noise" if p.verdict not in (LOWER, HIGHER) else "")


def moves_line(k: KindDiff) -> str | None:
    """The two parts that moved the mean span most, with their intervals."""
    top = k.contributions[:2]
    if not top or not k.mean.change_ns:
        return None
    parts = []
    for p in top:
        ch = _part_change(k, p.part)
        ci = f" ({ci_text(ch)})" if ch is not None and ci_text(ch) else ""
        parts.append(f"{p.part} {ms(p.change_ns)} ms{ci}")
    return "largest moves in exposed time per step: " + ", ".join(parts)


def _part_change(k: KindDiff, part: str) -> Change | None:
    if part.endswith(" idle") and k.idle_causes:
        return k.idle_causes.get(part.removesuffix(" idle"))
    row = k.buckets.get(part)
    return row.exposed if row is not None else None


def idle_line(k: KindDiff) -> str | None:
    """'idle per step: launch idle cut by 1.25 ms (1.73 -> 0.48 ms), host idle ...' for the causes
    that moved, the largest move first."""
    causes = k.idle_causes
    if not causes:
        return None
    moved = sorted((c for c, r in causes.items() if abs(r.change_ns) >= 1e3), key=lambda c: -abs(causes[c].change_ns))
    if not moved:
        return "idle causes per step: unchanged"
    parts = []
    for c in moved:
        r = causes[c]
        verb = "cut by" if r.change_ns < 0 else "grew by"
        parts.append(f"{c} idle {verb} {ms(abs(r.change_ns))} ms ({ms(r.before)} -> {ms(r.after)})")
    return "idle per step: " + ", ".join(parts)


MOVED_LISTED = 3  # modules or layers named per line, the largest moves first


def _moved(parts: dict[str, Change] | None, label: str) -> str | None:
    """'<label> that moved beyond noise (mean per step): down_proj 1.042 -> 0.951 ms (-8.7%, 95% CI
    ...), ...': the parts whose interval excludes no change, the largest moves first."""
    if not parts:
        return None
    moved = sorted((n for n, c in parts.items() if c.verdict in (LOWER, HIGHER)), key=lambda n: -abs(parts[n].change_ns))
    if not moved:
        if all(c.verdict == TOO_FEW for c in parts.values()):
            return None
        return f"{label}: no change beyond noise"
    shown = [f"{n} {pair(parts[n].before, parts[n].after)} {change_text(parts[n])}" for n in moved[:MOVED_LISTED]]
    more = f" and {len(moved) - MOVED_LISTED} more" if len(moved) > MOVED_LISTED else ""
    return f"{label} that moved beyond noise (mean per step): " + ", ".join(shown) + more


def modules_line(k: KindDiff) -> str | None:
    return _moved(k.modules, "modules")


def layers_line(k: KindDiff) -> str | None:
    return _moved({f"layer {n}": c for n, c in (k.layers or {}).items()}, "layers")


def _spread(side: str, s: Spread) -> str:
    """'before: 2 runs, medians 4.20 / 4.09 ms, run-to-run SD 1.8% vs step-to-step SE 3.2%: ...'."""
    if s.runs == 1:
        within = f" (step-to-step SE of its median {s.within_run:.1%})" if s.within_run is not None else ""
        return f"{side}: 1 run{within}, run-to-run noise not measured"
    meds = " / ".join(_num(m, 1e6) for m in s.run_medians_ns)
    out = f"{side}: {s.runs} runs, medians {meds} ms"
    if s.between_runs is not None:
        out += f", run-to-run SD {s.between_runs:.1%}"
    if s.within_run is not None:
        out += f" vs step-to-step SE {s.within_run:.1%}"
    if s.dominant != UNKNOWN:
        out += f": {'run-to-run' if s.dominant == RUNS else 'step-to-step'} noise dominates"
    return out


def noise_lines(k: KindDiff) -> list[str]:
    """How the interval treats noise, and each side's run-to-run spread."""
    if k.runs_before == 1 and k.runs_after == 1:
        return ["one run per side: the interval holds step-to-step noise only; run-to-run noise is not "
                "measured (capture each side again and pass --before A B --after C D)"]
    how = "runs, then steps, resampled" if min(k.runs_before, k.runs_after) > 1 else \
        "runs, then steps, resampled; the side of one run holds step-to-step noise only"
    return [f"steps pooled over each side's runs ({how})",
            _spread("before", k.spread_before), _spread("after", k.spread_after)]


def _values(v: list[str], code: str) -> str:
    if code == "capture":
        v = [CAPTURE.get(x, x) for x in v]
    elif code == "graph_trace":
        v = [GRAPH_TRACE.get(x, x) for x in v]
    elif code == "evidence":
        v = [EVIDENCE.get(x, x) for x in v]
    return " / ".join(v) + (" (its runs differ)" if len(v) > 1 else "")


def check_line(c: Check) -> str:
    """One difference between the captures, in words."""
    b, a = _values(c.before, c.code), _values(c.after, c.code)
    if c.code == "steps":
        side = "after" if c.before == ["0"] else "before"
        return f"{c.kind} steps only {side} ({b} before, {a} after): not compared"
    if c.code == "capture":
        return f"{c.kind} steps are {b} before, {a} after"
    if c.code == "graph_trace":
        return f"CUDA graphs traced {b} before, {a} after"
    if c.code == "evidence":
        return f"steps found from {b} before, {a} after"
    what = f"{c.kind} {CHECK[c.code]}" if c.kind else CHECK[c.code]
    return f"{what}: {b} before, {a} after ({WHY[c.code]})"


def refusal(d: Diff) -> str:
    """The one line `traceattrib diff` stops with when the captures do not compare."""
    why = "; ".join(check_line(c) for c in d.checks if c.severity == REFUSE)
    return f"the captures differ, a comparison would be meaningless: {why} (--allow-mismatch compares anyway)"


def untrusted_line(d: Diff) -> str:
    """The one line `traceattrib diff` stops with when the gate would decide on untrustworthy traces."""
    runs = [r for r in d.before + d.after if r.untrusted]
    why = "; ".join(f"{os.path.basename(str(r.path or '?').rstrip('/'))}: {', '.join(r.untrusted)} "
                    f"({r.affected_steps} step(s) affected)" for r in runs)
    return (f"the gate will not decide on traces that failed integrity checks: {why} (see `traceattrib report`'s "
            "trust line; --allow-untrusted gates anyway)")


def trust_lines(d: Diff) -> list[str]:
    """A line per run whose trace failed an integrity check."""
    return [f"untrusted: {os.path.basename(str(r.path or '?').rstrip('/'))} failed {', '.join(r.untrusted)} "
            f"({r.affected_steps} step(s) affected)" for r in d.before + d.after if r.untrusted]


def check_lines(d: Diff) -> list[str]:
    out = trust_lines(d)
    for c in d.checks:
        tag = "compared anyway (--allow-mismatch)" if c.severity == REFUSE else "may be the point of the change"
        out.append(f"differs, {tag}: {check_line(c)}")
    return out


def _limit(c: GateCheck) -> str:
    return f"the {c.threshold:.0%} limit" if (100 * c.threshold).is_integer() else f"the {100 * c.threshold:g}% limit"


def _gate_subject(c: GateCheck) -> str:
    return f"{c.kind} {c.part}" if c.part in ("median", "p90") else f"{c.kind} exposed {c.part} per step"


def gate_lines(g: Gate) -> list[str]:
    """The gate's evidence, then its decision: the last lines of the text."""
    out = []
    for c in g.checks:
        if c is g.decisive or c.outcome in (TRIPPED, WITHIN):
            continue
        why = "too few steps to tell" if c.outcome == TOO_FEW else "nothing before to compare with"
        out.append(f"gate: {_gate_subject(c)} not checked against {_limit(c)}: {why}")
    c = g.decisive
    if c is None:
        out.append("gate: passed: no step kind on both sides to check")
    elif c.outcome == TRIPPED:
        out.append(f"gate: TRIPPED: {_gate_subject(c)} {_sgn(c.change)} ({ci_text(c)}) is slower than "
                   f"{_limit(c)} with 95% confidence")
    elif c.outcome == WITHIN:
        out.append(f"gate: passed: {_gate_subject(c)} {_sgn(c.change)} ({ci_text(c)}) is not slower than "
                   f"{_limit(c)} with 95% confidence")
    else:
        why = "too few steps to tell" if c.outcome == TOO_FEW else "nothing before to compare with"
        out.append(f"gate: passed, undecided: {_gate_subject(c)}: {why} ({_limit(c)} could not be tested)")
    return out


def trip_line(g: Gate) -> str:
    """stderr's line when the gate tripped."""
    c = g.decisive
    return f"gate tripped: {_gate_subject(c)} {_sgn(c.change)} ({ci_text(c)}) is slower than {_limit(c)}"


def side_line(runs: list[RunInfo]) -> str:
    """'a.sqlite · Nsight Systems 2025.3.2.0 · NVIDIA H200' or '2 runs: a1.json.gz, a2.json.gz · ...'."""
    names = [os.path.basename(str(r.path or "?").rstrip("/")) or "?" for r in runs]
    first = runs[0]
    prof = first.profiler or first.format or "?"
    ver = str(first.profiler_version or "").split(",")[0]
    ranks = f", {first.ranks} ranks" if first.ranks > 1 else ""
    head = names[0] if len(runs) == 1 else f"{len(runs)} runs: {', '.join(names)}"
    return f"{head} · {prof}{' ' + ver if ver else ''} · {gpu_text(first.gpus or [])}{ranks}"


# --- tables ---------------------------------------------------------------------------------------

def _cells(k: KindDiff) -> list[tuple[str, str, str, str, str, str, str, str]]:
    """Rows of the per-kind table: name, time before/after/change, exposed before/after/change, CI."""
    rows = []

    def ci(c: Change) -> str:
        if c.verdict == TOO_FEW:
            return "too few"
        if c.ci is None and (c.ci_ns is None or max(abs(c.ci_ns[0]), abs(c.ci_ns[1])) < 500):
            return ""  # nothing before (or after) to speak of: below the table's 0.001 ms
        return ci_text(c).removeprefix("95% CI ")

    for name, r in k.buckets.items():
        e = r.exposed
        t = (ms(r.time_before_ns), ms(r.time_after_ns), _sgn(r.time_change)) if isinstance(r.time_before_ns, float) \
            else ("", "", "")
        rows.append((name, *t, ms(e.before), ms(e.after), _sgn(e.change), ci(e)))
    for c, e in (k.idle_causes or {}).items():
        rows.append((f"idle: {c}", "", "", "", ms(e.before), ms(e.after), _sgn(e.change), ci(e)))
    m = k.mean
    rows.append(("span (mean)", "", "", "", ms(m.before), ms(m.after), _sgn(m.change), ci(m)))
    return rows


def _text_table(k: KindDiff) -> list[str]:
    out = [f"{'per step (mean, ms)':<20}{'time before':>12}{'after':>9}{'change':>9}"
           f"{'exposed before':>16}{'after':>9}{'change':>9}  95% CI of the exposed change"]
    for name, tb, ta, tc, eb, ea, ec, ci in _cells(k):
        out.append(f"{name:<20}{tb:>12}{ta:>9}{tc:>9}{eb:>16}{ea:>9}{ec:>9}  {ci}".rstrip())
    return out


def _md_table(k: KindDiff) -> list[str]:
    out = ["| per step (ms) | time before | time after | Δ | exposed before | exposed after | Δ | 95% CI of Δ |",
           "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for name, *cells in _cells(k):
        if name == "span (mean)":
            out.append(f"| **span (mean)** | | | | **{cells[3]}** | **{cells[4]}** | **{cells[5]}** | {cells[6]} |")
        else:
            out.append(f"| {name} | " + " | ".join(cells) + " |")
    return out


# --- documents ------------------------------------------------------------------------------------

def render_text(d: Diff) -> str:
    out = [f"before  {side_line(d.before)}", f"after   {side_line(d.after)}"]
    out += check_lines(d)
    if not d.kinds:
        out += ["", "no step kind on both sides to compare"]
    for kind, k in d.kinds.items():
        out += ["", headline(kind, k, d.method.min_steps)]
        more = [p90_line(k), f"steps: {_steps(k, noun=False)}"]
        more += [] if k.median.verdict == TOO_FEW else [f"noise: {x}" for x in noise_lines(k)]
        out += [f"  {x}" for x in more + [moves_line(k)] if x]
        out += _text_table(k)
        out += [x for x in (idle_line(k), modules_line(k), layers_line(k)) if x]
    if d.gate is not None:
        out += [""] + gate_lines(d.gate)
    return "\n".join(out) + "\n"


def render_md(d: Diff) -> str:
    heads = [f"**{headline(kind, k, d.method.min_steps)}**" + (f"; {p90_line(k)}" if p90_line(k) else "")
             for kind, k in d.kinds.items()]
    out = []
    for h in heads or ["**No step kind on both sides to compare.**"]:
        out += [h, ""]
    for x in check_lines(d):
        out += [f"> {x[0].upper()}{x[1:]}.", ">"]
    if d.checks:
        out[-1] = ""
    out.append(f"traceattrib diff · before `{side_line(d.before)}` · after `{side_line(d.after)}`")
    for kind, k in d.kinds.items():
        out += ["", f"#### {kind}: {_steps(k)}", ""] + _md_table(k)
        details = [moves_line(k), idle_line(k), modules_line(k), layers_line(k)] + ([] if k.median.verdict == TOO_FEW else
                                                   [f"noise: {x}" for x in noise_lines(k)])
        details = [x[0].upper() + x[1:] + "." for x in details if x]
        if details:
            out += ["", f"<details><summary>{kind}: what moved, idle causes, modules, noise</summary>", ""]
            out += [f"- {x}" for x in details]
            out += ["", "</details>"]
    m = d.method
    out += ["", f"<sub>95% intervals: bootstrap over steps ({m.resamples} resamples, seed {m.seed}; several runs "
                f"on a side: runs, then steps); fewer than {m.min_steps} steady steps on a side: too few to tell."
                "</sub>"]
    if d.gate is not None:
        out += [""] + [f"**{x}**" if i == len(gate_lines(d.gate)) - 1 else x
                       for i, x in enumerate(gate_lines(d.gate))]
    return "\n".join(out) + "\n"


class Document(Struct):
    """`traceattrib diff --format json`."""

    __inline__ = ("diff",)
    traceattrib_version: str
    schema_version: int
    diff: Diff


def to_dict(d: Diff) -> dict[str, Any]:
    from .. import __version__
    from .jsonout import plain

    return plain(Document(traceattrib_version=__version__, schema_version=SCHEMA_VERSION, diff=d))


def render_json(d: Diff) -> str:
    from .jsonout import dump

    return dump(to_dict(d)) + "\n"

