"""Text and Markdown for `traceattrib diff`."""
from __future__ import annotations

import json

from .fmt import dur, ms, trace_line


def _sgn(x: float | None) -> str:
    return "" if x is None else f"{x:+.1%}"


def headline(kind: str, k: dict) -> str:
    ch = k["median_span_change"]
    verb = "cut" if (ch or 0) < 0 else "grew"
    top = k["contributions"][:2]
    why = ""
    if top and k["mean_span_change_ns"]:
        parts = [f"{p['part']} {ms(p['change_ns'])} ms" for p in top]
        why = f"; largest moves in exposed time: {', '.join(parts)}"
    return (f"{kind}: median step {dur(k['median_span_before_ns'])} -> {dur(k['median_span_after_ns'])} "
            f"({verb} {abs(ch or 0):.1%}){why}")


def idle_line(k: dict) -> str | None:
    """'idle per step: launch idle cut by 1.25 ms (1.73 -> 0.48 ms), host idle ...' for the causes
    that moved, the largest move first."""
    causes = k.get("idle_causes")
    if not causes:
        return None
    moved = sorted((c for c, r in causes.items() if abs(r["change_ns"]) >= 1e3), key=lambda c: -abs(causes[c]["change_ns"]))
    if not moved:
        return "idle causes per step: unchanged"
    parts = []
    for c in moved:
        r = causes[c]
        verb = "cut by" if r["change_ns"] < 0 else "grew by"
        parts.append(f"{c} idle {verb} {ms(abs(r['change_ns']))} ms ({ms(r['before_ns'])} -> {ms(r['after_ns'])})")
    return "idle per step: " + ", ".join(parts)


def render_text(d: dict) -> str:
    out = [f"before  {trace_line(d['before'])}", f"after   {trace_line(d['after'])}"]
    for kind, k in d["kinds"].items():
        out += ["", headline(kind, k),
                f"{'per step (mean, ms)':<20}{'time before':>12}{'after':>9}{'change':>9}"
                f"{'exposed before':>16}{'after':>9}{'change':>9}"]
        for name, r in k["buckets"].items():
            tb = f"{ms(r['time_before_ns']):>12}{ms(r['time_after_ns']):>9}{_sgn(r['time_change']):>9}" \
                if "time_before_ns" in r else " " * 30
            out.append(f"{name:<20}{tb}{ms(r['exposed_before_ns']):>16}{ms(r['exposed_after_ns']):>9}"
                       f"{_sgn(r['exposed_change']):>9}")
        for c, r in (k.get("idle_causes") or {}).items():
            out.append(f"{'  idle: ' + c:<20}{'':>30}{ms(r['before_ns']):>16}{ms(r['after_ns']):>9}{_sgn(r['change']):>9}")
        out.append(f"{'span':<20}{'':>30}{ms(k['mean_span_before_ns']):>16}{ms(k['mean_span_after_ns']):>9}"
                   f"{_sgn((k['mean_span_after_ns'] - k['mean_span_before_ns']) / k['mean_span_before_ns']):>9}")
        if idle_line(k):
            out.append(idle_line(k))
    for c in d["checks"]:
        out.append(f"check: {c}")
    return "\n".join(out) + "\n"


def render_md(d: dict) -> str:
    out = [f"**traceattrib diff** · before `{trace_line(d['before'])}` · after `{trace_line(d['after'])}`"]
    for kind, k in d["kinds"].items():
        out += ["", f"**{headline(kind, k)}**", "",
                "| per step (ms) | time before | time after | Δ | exposed before | exposed after | Δ |",
                "|---|---:|---:|---:|---:|---:|---:|"]
        for name, r in k["buckets"].items():
            if "time_before_ns" in r:
                tb = f"{ms(r['time_before_ns'])} | {ms(r['time_after_ns'])} | {_sgn(r['time_change'])}"
            else:
                tb = " | | "
            out.append(f"| {name} | {tb} | {ms(r['exposed_before_ns'])} | {ms(r['exposed_after_ns'])} | "
                       f"{_sgn(r['exposed_change'])} |")
        for c, r in (k.get("idle_causes") or {}).items():
            out.append(f"| idle: {c} | | | | {ms(r['before_ns'])} | {ms(r['after_ns'])} | {_sgn(r['change'])} |")
        out.append(f"| **span** | | | | **{ms(k['mean_span_before_ns'])}** | **{ms(k['mean_span_after_ns'])}** | "
                   f"**{_sgn((k['mean_span_after_ns'] - k['mean_span_before_ns']) / k['mean_span_before_ns'])}** |")
        if idle_line(k):
            out.append(f"\n{idle_line(k)[0].upper()}{idle_line(k)[1:]}.")
        out.append(f"\nSteps: {k['steps_before']} before, {k['steps_after']} after.")
    for c in d["checks"]:
        out.append(f"\n> check: {c}")
    return "\n".join(out) + "\n"


def render_json(d: dict) -> str:
    return json.dumps(d, indent=1) + "\n"
