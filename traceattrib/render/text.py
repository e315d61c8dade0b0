"""Terminal report, at most 100 columns wide."""
from __future__ import annotations

from .. import analysis, idle
from ..analysis import Report
from ..report import KINDS, KindSummary
from . import comm
from .findings import advice, evidence, what
from .fmt import bound, dur, ms, pct, per_step_count, rank_list, sol_line, steps_line, trace_line, trunc, trust_line
from .notes import texts

WIDTH = 100
MAIN_BUCKETS = ("linear", "attention", "communication", "cast")  # the per-rank and per-step columns


def render(rep: Report, per_step: bool = False, top: int = 3) -> str:
    out: list[str] = []
    w = out.append
    w(trunc(f"traceattrib report · {trace_line(rep.meta)}", WIDTH))
    out.extend(_wrap(trust_line(rep.summary.integrity), WIDTH, "  "))
    out.extend(_wrap(steps_line(rep), WIDTH, "  "))
    out.extend(fix_first(rep))
    for kind in KINDS:  # with 2+ ranks the job comes first (render/comm.py)
        job = comm.job_text(rep.summary, rep.buckets, kind)
        if job:
            w("")
            out.extend(job)
    for kind in KINDS:
        ks = rep.summary.by_kind.get(kind)
        if not ks:
            continue
        w("")
        out.extend(_kind_block(rep, kind, ks))
    if rep.summary.by_rank:
        w("")
        out.extend(rank_table(rep))
    if per_step:
        w("")
        out.extend(step_table(rep))
    if rep.notes:
        w("")
        w("notes:")
        for n in texts(rep.notes):
            out.extend(_wrap("- " + n, WIDTH, "  "))
    return "\n".join(out) + "\n"


def _kind_block(rep: Report, kind: str, ks: KindSummary) -> list[str]:
    out = []
    w = out.append
    d = ks.attribution
    flags = []
    if d.warmup_steps:
        flags.append(f"{d.warmup_steps} warm-up excluded")
    if d.outlier_steps:
        flags.append(f"{d.outlier_steps} outlier(s)")
    ftxt = f" ({', '.join(flags)})" if flags else ""
    w(trunc(f"{kind.upper()}  {d.steps} step(s){ftxt} · median span {dur(d.median_span_ns)} · "
            f"p90 {dur(d.p90_span_ns)} · idle {pct(d.idle_share)}", WIDTH))
    w(f"{'per step (mean, ms)':<21}{'time':>9}{'share':>7}{'exposed':>9}{'share':>7}{'count':>7}"
      f"{'bound if removed':>18}{'p90':>8}")
    for b in rep.buckets:
        label = b + (" (unclassified)" if b == "other" else "")
        w(f"{label:<21}{ms(d.mean_time_ns[b]):>9}{pct(d.bucket_share[b]):>7}{ms(d.mean_exposed_ns[b]):>9}"
          f"{pct(d.exposed_share[b]):>7}{per_step_count(d.mean_count[b]):>7}"
          f"{'≤ ' + bound(d.speedup_bound_if_removed[b]):>18}{bound(d.speedup_bound_if_removed_p90[b]):>8}")
    w(f"{'overlapped':<21}{'':>16}{ms(d.mean_overlap_ns):>9}{pct(d.overlap_share):>7}")
    w(f"{'idle':<21}{'':>16}{ms(d.mean_idle_ns):>9}{pct(d.idle_share):>7}")
    out.extend(idle_rows(ks))
    w(f"{'span':<21}{'':>16}{ms(d.mean_span_ns):>9}{pct(1.0):>7}   (exposed + overlapped + idle = span)")
    out.extend(idle_advice(ks))
    out.extend(_wrap(sol_line(kind, ks.speed_of_light), WIDTH, "  "))  # speed of light (sol.py)
    for v in (d.what_if or {}).values():
        w(trunc(f"what if {v.bucket} were {v.factor:g}x faster: at most {bound(v.speedup_bound)} "
                f"(p90 {bound(v.speedup_bound_p90)})", WIDTH))
    colls = ks.collectives.by_collective
    if colls:
        parts = [f"{per_step_count(v.per_step)} {c.replace('_', '-')} (mean {dur(v.mean_ns)})" for c, v in colls.items()]
        w(trunc("communication per step: " + ", ".join(parts), WIDTH))
    out.extend(comm.collective_text(ks, rep.summary.link or None))
    out.extend(comm.what_if_text(rep.summary, kind))
    chk = ks.collectives.layers
    if chk is not None:
        w(f"expected {chk.expected_all_reduce_per_step} all-reduce per step for --layers "
          f"{chk.expected_all_reduce_per_step // 2} (2 per layer): difference {chk.all_reduce_difference:+.0f}")
    out.extend(top_kernels(rep, kind))
    out.extend(inside_lines(kind, ks))
    return out


SOURCE_TEXT = {"nvtx": "module names from NVTX / record_function ranges", "names": "module names from Python frames",
               "shapes": "GEMM shapes against --model", "position": "the repeating kernel pattern",
               "none": "no evidence"}
MODULE_ROWS = 10  # modules listed (the rest: --format json)


def inside_title(kind: str, ins) -> str:
    """The line that opens the inside-the-step section: layers, types and how they were found."""
    ev = ins.layer_evidence
    ntypes = len(ev.types)
    how = (f"names by kernel position from the {ev.reference} step" if ev.source == "position" and ev.reference
           else SOURCE_TEXT.get(ev.source, ev.source))
    how += "" if ev.names_known else "; names unknown: ops named by their place in the layer"
    return f"inside the {kind} step: {ev.layers} layers{f' of {ntypes} types' if ntypes > 1 else ''} ({how})"


def slow_layer_text(sl, ntypes: int) -> str:
    """One slow layer against the median layer of its kind, with the modules that differ."""
    mods = ", ".join(f"{m.name} {m.ratio:.1f}x" for m in sl.modules)
    than = f"the median {sl.kind} layer" if sl.kind and ntypes > 1 else "the median layer"
    return f"layer {sl.index} takes {sl.ratio:.2f}x {than}" + (f": {mods}" if mods else "")


def inside_lines(kind: str, ks: KindSummary) -> list[str]:
    """Inside the step: per module summed over the layers, per layer, the slowest layers."""
    ins = ks.inside
    if ins is None:
        return []
    ev = ins.layer_evidence
    ntypes = len(ev.types)
    out = _wrap(inside_title(kind, ins), WIDTH, "  ")
    out.append(f"{'module (per step, ms)':<30}{'time':>9}{'share':>8}{'count':>7}{'bound if removed':>18}")
    for m in ins.modules[:MODULE_ROWS]:
        out.append(trunc(f"{m.name:<30}{ms(m.time_ns):>9}{pct(m.share):>8}{per_step_count(m.count):>7}"
                         f"{'≤ ' + bound(m.speedup_bound_if_removed):>18}", WIDTH))
    if len(ins.modules) > MODULE_ROWS:
        out.append(f"  ... {len(ins.modules) - MODULE_ROWS} more modules (--format json)")
    out.extend(_wrap(_per_layer(ins.layers), WIDTH, "  "))
    if ntypes > 1:
        out.extend(_wrap("layer types: " + "; ".join(f"{t}: {rank_list(ix)}" for t, ix in ev.types.items()),
                         WIDTH, "  "))
    for sl in ins.slow_layers:
        out.extend(_wrap(slow_layer_text(sl, ntypes), WIDTH, "  "))
    return out


LAYERS_LISTED = 8  # more layers than this: their spread instead of every one


def _per_layer(layers: list) -> str:
    """Every layer's time, or for many layers the median and the fastest and slowest."""
    if len(layers) <= LAYERS_LISTED:
        return "per layer (ms): " + ", ".join(f"{lt.index} {ms(lt.time_ns, 2)}" for lt in layers)
    by = sorted(layers, key=lambda lt: (lt.time_ns, lt.index))
    med = by[(len(by) - 1) // 2].time_ns
    return (f"per layer (ms): median {ms(med, 2)}, fastest {ms(by[0].time_ns, 2)} (layer {by[0].index}), "
            f"slowest {ms(by[-1].time_ns, 2)} (layer {by[-1].index})")


# --- idle causes and what to fix first -----------------------------------------------------

IDLE_LABEL = {"launch": "launch (CPU issue)", "sync": "sync (CPU blocked)", "host": "host (CPU busy)",
              "unexplained": "unexplained"}


def fix_first(rep: Report) -> list[str]:
    """The three largest opportunities by bound, one line each with the evidence."""
    fs = rep.summary.findings
    ceil = rep.summary.ceiling
    if not fs and not ceil:
        return []
    out = ["", f"What to fix first ({rep.summary.kind} steps; bound = the most the step could speed up):"]
    for i, f in enumerate(fs, 1):
        out.extend(_wrap(f"{i}. {what(f)}: ≤ {bound(f.bound)} · {evidence(f)}", WIDTH, "   "))
    if ceil:
        out.extend(_wrap(f"Ceiling on all fixes together: the {what(ceil)}, ≤ {bound(ceil.bound)} · "
                         f"{evidence(ceil)}", WIDTH, "   "))
    return out


def idle_rows(ks: KindSummary) -> list[str]:
    """Idle split into causes, beside the bucket rows (mean ms per step, share, bound)."""
    d = ks.idle
    if d is None:
        return []
    out = []
    for c in idle.CAUSES:
        label = "  " + IDLE_LABEL[c]
        out.append(f"{label:<21}{'':>16}{ms(d.mean_idle_causes_ns[c]):>9}{pct(d.idle_causes_share[c]):>7}"
                   f"{'':>7}{'≤ ' + bound(d.speedup_bound_if_no_idle_cause[c]):>18}"
                   f"{bound(d.speedup_bound_if_no_idle_cause_p90[c]):>8}")
    return out


def idle_advice(ks: KindSummary) -> list[str]:
    d = ks.idle
    if d is None:
        return []
    out = [f"if the GPU never waited (no idle): at most {bound(d.speedup_bound_if_no_idle)} "
           f"(p90 {bound(d.speedup_bound_if_no_idle_p90)})"]
    for c, line in advice(d):
        out.extend(_wrap(f"{c} idle {pct(d.idle_causes_share[c])}: {line}", WIDTH, "  "))
    return out


def top_kernels(rep: Report, kind: str, top: int = 3) -> list[str]:
    """Heaviest kernels per bucket inside this kind's steps: total time per step and count."""
    g = analysis.top_kernels(rep, kind, top)
    if not len(g):
        return []
    out = [f"top kernels per bucket ({kind}, per step):"]
    for r in g.itertuples():
        out.append(trunc(f"  {r.bucket:<13} {ms(r.total_ns / r.steps):>8} ms {per_step_count(r.count / r.steps):>5}x  {r.name}", WIDTH))
    return out


def rank_table(rep: Report) -> list[str]:
    """Per rank and kind: median span, exposed share of the main buckets, communication bound."""
    main = [b for b in MAIN_BUCKETS if b in rep.buckets]
    out = ["per rank (exposed share of span):",
           f"{'rank':>4} {'kind':<8}{'steps':>6}{'median span':>13}" + "".join(f"{b[:11]:>12}" for b in main)
           + f"{'idle':>8}{'comm bound':>12}"]
    for r, kinds in rep.summary.by_rank.items():
        for kind, d in kinds.items():
            out.append(f"{r:>4} {kind:<8}{d.steps:>6}{dur(d.median_span_ns):>13}"
                       + "".join(f"{pct(d.exposed_share.get(b, 0)):>12}" for b in main)
                       + f"{pct(d.idle_share):>8}{'≤ ' + bound(d.speedup_bound_if_removed.get('communication', 1.0)):>12}")
    return out


def step_table(rep: Report) -> list[str]:
    main = [b for b in MAIN_BUCKETS if b in rep.buckets]
    hdr = f"{'rank':>4} {'#':>4} {'name':<16}{'kind':<8}{'tok':>6}{'lay':>4}{'span':>8}{'idle':>8}" + \
        "".join(f"{b[:6]:>8}" for b in main) + "  flags"
    out = ["per step (ms; bucket columns are exposed time; tok = tokens, lay = layers):", hdr]
    for _, r in rep.steps.iterrows():
        flags = ",".join(f for f, on in (("warmup", r["warmup"]), ("outlier", r["outlier"])) if on)
        out.append(f"{r['rank']:>4} {r['index']:>4} {trunc(str(r['name']), 15):<16}{r['kind']:<8}"
                   f"{_known(r.get('tokens', -1)):>6}{_known(r.get('layers', -1)):>4}"
                   f"{ms(r['span_ns']):>8}{ms(r['idle_ns']):>8}"
                   + "".join(f"{ms(r[f'{b}_exposed_ns']):>8}" for b in main) + f"  {flags}")
    return out + _wrap(kinds_from_line(rep.steps), WIDTH, "  ")


def kinds_from_line(steps) -> str:
    """'kinds from: launch grid (24 steps), tokens per sequence (1); against: rank 0 step 3 name=decode'."""
    if not len(steps) or "kind_evidence" not in steps.columns:
        return "kinds from: -"
    first = steps["kind_evidence"].astype(str).str.split(", ").str[0].replace("", "no evidence")
    counts = first.value_counts(sort=False)
    text = "kinds from: " + ", ".join(f"{src} ({n} step{'s' if n > 1 else ''})" for src, n in counts.items())
    against = steps[steps["kind_against"].astype(str) != ""] if "kind_against" in steps.columns else steps.iloc[0:0]
    if len(against):
        shown = [f"rank {r['rank']} step {r['index']} {r['kind_against']}" for _, r in against.head(5).iterrows()]
        more = f" and {len(against) - 5} more (--format json)" if len(against) > 5 else ""
        text += "; against: " + "; ".join(shown) + more
    return text


def _known(v) -> str:
    return "-" if v is None or v < 0 else str(int(v))


def _wrap(text: str, width: int, indent: str) -> list[str]:
    import textwrap

    return textwrap.wrap(text, width=width, subsequent_indent=indent) or [""]
