"""Markdown for PR comments: plain tables, nothing that needs a viewer."""
from __future__ import annotations

from .. import idle
from ..analysis import Report
from ..report import KINDS, KindSummary
from . import comm
from .findings import advice, evidence, what
from .fmt import bound, dur, kind_from, ms, pct, per_step_count, sol_line, steps_line, trace_line, trust_line
from .notes import texts


def render(rep: Report, per_step: bool = False) -> str:
    out = [f"**traceattrib** · `{trace_line(rep.meta)}`", "", trust_line(rep.summary.integrity), ""]
    line = steps_line(rep)
    out.append("S" + line[1:] + ".")
    out += fix_first(rep)
    for kind in KINDS:  # with 2+ ranks the job comes first (render/comm.py)
        job = comm.job_md(rep.summary, rep.buckets, kind)
        if job:
            out += [""] + job
    for kind in KINDS:
        ks = rep.summary.by_kind.get(kind)
        if not ks:
            continue
        d = ks.attribution
        out += ["", f"### {kind} — {d.steps} steps, median span {dur(d.median_span_ns)}, "
                    f"p90 {dur(d.p90_span_ns)}", "",
                "| bucket | time/step (ms) | share | exposed/step (ms) | exposed share | bound if removed |",
                "|---|---:|---:|---:|---:|---:|"]
        for b in rep.buckets:
            out.append(f"| {b} | {ms(d.mean_time_ns[b])} | {pct(d.bucket_share[b])} | "
                       f"{ms(d.mean_exposed_ns[b])} | {pct(d.exposed_share[b])} | "
                       f"≤ {bound(d.speedup_bound_if_removed[b])} |")
        out.append(f"| overlapped | | | {ms(d.mean_overlap_ns)} | {pct(d.overlap_share)} | |")
        out.append(f"| idle | | | {ms(d.mean_idle_ns)} | {pct(d.idle_share)} | |")
        out += idle_rows(ks)
        out.append(f"| **span** | | | **{ms(d.mean_span_ns)}** | 100.0% | |")
        out += idle_advice(ks)
        sl = sol_line(kind, ks.speed_of_light)  # speed of light (sol.py)
        out.append("\n" + sl[:1].upper() + sl[1:] + ".")
        for v in (d.what_if or {}).values():
            out.append(f"\nWhat if {v.bucket} were {v.factor:g}x faster: at most {bound(v.speedup_bound)}.")
        colls = ks.collectives.by_collective
        if colls:
            out.append("\nCommunication per step: " + ", ".join(
                f"{per_step_count(v.per_step)} {c.replace('_', '-')} (mean {dur(v.mean_ns)})" for c, v in colls.items()) + ".")
        lines = comm.collective_text(ks, rep.summary.link or None) + comm.what_if_text(rep.summary, kind)
        if lines:
            out += [""] + [f"- {x}" for x in lines]
    if per_step:
        out += ["", "<details><summary>per step</summary>", "",
                "| rank | # | name | kind | span (ms) | busy | idle | floor (ms) | HBM eff. | flags | kind from |",
                "|---:|---:|---|---|---:|---:|---:|---:|---:|---|---|"]
        causes = idle.has_causes(rep.steps)
        if causes:  # idle split into causes
            out[-2] = out[-2].replace("idle |", "idle | " + " | ".join(f"{c}" for c in idle.CAUSES) + " |")
            out[-1] = out[-1].replace("|---:|---:|---|---|---:|---:|---:|", "|---:|---:|---|---|---:|---:|---:|"
                                      + "---:|" * len(idle.CAUSES), 1)
        for _, r in rep.steps.iterrows():
            flags = ",".join(f for f, on in (("warmup", r["warmup"]), ("outlier", r["outlier"])) if on)
            floor, eff = r.get("min_step_ns", float("nan")), r.get("hbm_efficiency", float("nan"))
            ctext = "".join(f"{ms(r[col])} | " for col in idle.CAUSE_COLUMNS) if causes else ""
            out.append(f"| {r['rank']} | {r['index']} | {r['name']} | {r['kind']} | {ms(r['span_ns'])} | "
                       f"{ms(r['busy_ns'])} | {ms(r['idle_ns'])} | {ctext}{'' if floor != floor else ms(floor)} | "
                       f"{'' if eff != eff else pct(eff)} | {flags} | {kind_from(r)} |")
        out += ["", "</details>"]
    if rep.notes:
        out += [""] + [f"> {n}" for n in texts(rep.notes)]
    return "\n".join(out) + "\n"


# --- idle causes and what to fix first -----------------------------------------------------

def fix_first(rep: Report) -> list[str]:
    """The three largest opportunities by bound, one line each with the evidence."""
    fs = rep.summary.findings
    ceil = rep.summary.ceiling
    if not fs and not ceil:
        return []
    out = ["", f"**What to fix first** ({rep.summary.kind} steps; bound = the most the step could "
               "speed up):", ""]
    for i, f in enumerate(fs, 1):
        out.append(f"{i}. **{what(f)}**: ≤ {bound(f.bound)} · {evidence(f)}")
    if ceil:
        out += ["", f"Ceiling on all fixes together: the {what(ceil)}, ≤ {bound(ceil.bound)} · {evidence(ceil)}"]
    return out


def idle_rows(ks: KindSummary) -> list[str]:
    d = ks.idle
    if d is None:
        return []
    return [f"| idle: {c} | | | {ms(d.mean_idle_causes_ns[c])} | {pct(d.idle_causes_share[c])} | "
            f"≤ {bound(d.speedup_bound_if_no_idle_cause[c])} |" for c in idle.CAUSES]


def idle_advice(ks: KindSummary) -> list[str]:
    d = ks.idle
    if d is None:
        return []
    out = ["", f"If the GPU never waited (no idle): at most {bound(d.speedup_bound_if_no_idle)}."]
    for c, line in advice(d):
        out.append(f"- {c} idle {pct(d.idle_causes_share[c])}: {line}")
    return out
