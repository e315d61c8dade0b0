"""Markdown for PR comments: plain tables, nothing that needs a viewer."""
from __future__ import annotations

from ..analysis import Report
from . import comm
from .fmt import bound, dur, ms, pct, sol_line, steps_line, trace_line

KIND_ORDER = ("decode", "prefill", "mixed", "unknown")


def render(rep: Report, per_step: bool = False) -> str:
    out = [f"**traceattrib** · `{trace_line(rep.meta)}`", ""]
    line = steps_line(rep)
    out.append("S" + line[1:] + ".")
    for kind in KIND_ORDER:  # with 2+ ranks the job comes first (render/comm.py)
        job = comm.job_md(rep.summary, rep.buckets, kind)
        if job:
            out += [""] + job
    for kind in KIND_ORDER:
        d = rep.summary.get("by_kind", {}).get(kind)
        if not d:
            continue
        out += ["", f"### {kind} — {d['steps']} steps, median span {dur(d['median_span_ns'])}, "
                    f"p90 {dur(d['p90_span_ns'])}", "",
                "| bucket | time/step (ms) | share | exposed/step (ms) | exposed share | bound if removed |",
                "|---|---:|---:|---:|---:|---:|"]
        for b in rep.buckets:
            out.append(f"| {b} | {ms(d['mean_time_ns'][b])} | {pct(d['bucket_share'][b])} | "
                       f"{ms(d['mean_exposed_ns'][b])} | {pct(d['exposed_share'][b])} | "
                       f"≤ {bound(d['speedup_bound_if_removed'][b])} |")
        out.append(f"| overlapped | | | {ms(d['mean_overlap_ns'])} | {pct(d['overlap_share'])} | |")
        out.append(f"| idle | | | {ms(d['mean_idle_ns'])} | {pct(d['idle_share'])} | |")
        out.append(f"| **span** | | | **{ms(d['mean_span_ns'])}** | 100.0% | |")
        sl = sol_line(kind, d.get("speed_of_light"))  # speed of light (sol.py)
        out.append("\n" + sl[:1].upper() + sl[1:] + ".")
        for v in (d.get("what_if") or {}).values():
            out.append(f"\nWhat if {v['bucket']} were {v['factor']:g}x faster: at most {bound(v['speedup_bound'])}.")
        colls = {c: v for c, v in (d.get("collectives") or {}).items() if isinstance(v, dict)}
        if colls:
            out.append("\nCommunication per step: " + ", ".join(
                f"{v['per_step']:.0f} {c.replace('_', '-')} (mean {dur(v['mean_ns'])})" for c, v in colls.items()) + ".")
        lines = comm.collective_text(d, rep.summary.get("link")) + comm.what_if_text(rep.summary, kind)
        if lines:
            out += [""] + [f"- {x}" for x in lines]
    if per_step:
        out += ["", "<details><summary>per step</summary>", "",
                "| rank | # | name | kind | span (ms) | busy | idle | floor (ms) | HBM eff. | flags |",
                "|---:|---:|---|---|---:|---:|---:|---:|---:|---|"]
        for _, r in rep.steps.iterrows():
            flags = ",".join(f for f, on in (("warmup", r["warmup"]), ("outlier", r["outlier"])) if on)
            floor, eff = r.get("min_step_ns", float("nan")), r.get("hbm_efficiency", float("nan"))
            out.append(f"| {r['rank']} | {r['index']} | {r['name']} | {r['kind']} | {ms(r['span_ns'])} | "
                       f"{ms(r['busy_ns'])} | {ms(r['idle_ns'])} | {'' if floor != floor else ms(floor)} | "
                       f"{'' if eff != eff else pct(eff)} | {flags} |")
        out += ["", "</details>"]
    if rep.notes:
        out += [""] + [f"> {n}" for n in rep.notes]
    return "\n".join(out) + "\n"
