"""One self-contained HTML file of a report: every script, style and datum inline, no request.

The page is laid out by assets/report.js from one JSON object (`view`) this module makes from the
report: the words and numbers the text report shows (its sentences come from the same render
functions) plus the step strip's columns and the ops of the steps shown in detail (Report.shown,
Report.detail). Charts are Apache ECharts (assets/echarts.min.js, Apache-2.0, 1.1 MB): stacked bars
with tooltips and clicks for the step strip, a custom series with zoom for a step's timeline.
Names from the trace reach the page only as JSON data set with textContent or escaped before a
tooltip shows them: a kernel named `</script>` is text; control and bidi characters are shown as
visible escapes, as in the terminal.
"""
from __future__ import annotations

import json
import re
from importlib import resources
from typing import Any

import numpy as np

from .. import __version__, idle
from ..analysis import Report
from ..report import KINDS
from . import comm as rcomm
from .findings import advice, evidence, what
from .fmt import bound, dur, ms, pct, per_step_count, sol_line, steps_line, trace_line, trust_line
from .jsonout import jsonable, scalar, summary_dict
from .notes import texts
from .safe import clean_report
from .text import IDLE_LABEL as IDLE_WORDS
from .text import inside_title, slow_layer_text

MAX_DETAIL_OPS = 400_000  # ops kept for the step view over all shown steps (the rest said, not drawn)


def _asset(name: str) -> str:
    return resources.files("traceattrib").joinpath("render", "assets", name).read_text(encoding="utf-8")


def _script_json(obj: Any) -> str:
    """JSON safe inside <script>: no '<', '>' or '&' that could end the element or open a comment."""
    text = json.dumps(obj, ensure_ascii=True, allow_nan=False, default=scalar)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _finite(v) -> float | None:
    f = float(v)
    return f if np.isfinite(f) else None


def _steps(rep: Report) -> dict[str, Any]:
    """The step strip's columns: one entry per step, in the step table's order (rank, then time)."""
    st = rep.steps
    if not len(st):
        return {"n": 0}
    shown = {(int(r), int(s)): w for r, s, w in rep.shown[["rank", "step", "why"]].itertuples(index=False)} \
        if len(rep.shown) else {}
    cols: dict[str, Any] = {
        "n": len(st), "rank": st["rank"].astype(int).tolist(), "index": st["index"].astype(int).tolist(),
        "name": st["name"].astype(str).tolist(), "kind": st["kind"].astype(str).tolist(),
        "warmup": st["warmup"].astype(bool).tolist(), "outlier": st["outlier"].astype(bool).tolist(),
        "start_ns": st["start_ns"].astype(np.int64).tolist(), "span_ns": st["span_ns"].astype(np.int64).tolist(),
        "overlap_ns": st["overlap_ns"].astype(np.int64).tolist(), "idle_ns": st["idle_ns"].astype(np.int64).tolist(),
        "exposed_ns": {b: st[f"{b}_exposed_ns"].astype(np.int64).tolist() for b in rep.buckets},
        "shown": [shown.get((int(r), int(i)), "") for r, i in zip(st["rank"], st["index"])],
    }
    if idle.has_causes(st):
        cols["idle_causes_ns"] = {c: st[col].astype(np.int64).tolist() for c, col in zip(idle.CAUSES, idle.CAUSE_COLUMNS)}
    return cols


def _detail(rep: Report) -> dict[str, Any]:
    """The ops of the shown steps, columnar: step (into `steps`), lane (into the step's lanes), start
    and end in ns from the step's start, bucket and name (indices into `buckets` and `names`)."""
    d = rep.detail
    out: dict[str, Any] = {"steps": [], "names": [], "op_step": [], "lane": [], "t0": [], "t1": [], "bucket": [],
                           "name": [], "dropped_steps": 0}
    if not len(d) or not len(rep.steps):
        return out
    st = rep.steps
    where = {(int(r), int(i)): j for j, (r, i) in enumerate(zip(st["rank"], st["index"]))}
    bidx = {b: i for i, b in enumerate(rep.buckets)}
    names: dict[str, int] = {}
    total = 0
    for (r, s), g in d.groupby(["rank", "step"], sort=True):
        j = where.get((int(r), int(s)))
        if j is None:
            continue
        if total + len(g) > MAX_DETAIL_OPS:
            out["dropped_steps"] += 1
            continue
        total += len(g)
        t0 = int(st["start_ns"].iloc[j])
        lanes = sorted({(int(a), int(b)) for a, b in zip(g["device"], g["stream"])})
        lane = {x: i for i, x in enumerate(lanes)}
        k = len(out["steps"])
        out["steps"].append({"row": j, "lanes": [f"GPU {a} stream {b}" for a, b in lanes]})
        out["op_step"] += [k] * len(g)
        out["lane"] += [lane[(int(a), int(b))] for a, b in zip(g["device"], g["stream"])]
        out["t0"] += (g["start_ns"].to_numpy(np.int64) - t0).tolist()
        out["t1"] += (g["end_ns"].to_numpy(np.int64) - t0).tolist()
        out["bucket"] += [bidx.get(b, bidx.get("other", 0)) for b in g["bucket"]]
        out["name"] += [names.setdefault(n, len(names)) for n in g["name"].astype(str)]
    out["names"] = list(names)
    out["gaps"] = _gaps(rep, out["steps"])
    return out


def _gaps(rep: Report, shown: list[dict[str, Any]]) -> dict[str, Any]:
    """The idle gaps of the steps kept in detail (Report.gap_detail), columnar: step (into the
    detail's steps), start and end in ns from the step's start, cause (into `causes`: the largest
    part), ns per cause, queued, what the CPU was doing (into `whats`, -1 none) and where that
    name came from."""
    g = rep.gap_detail
    out: dict[str, Any] = {"step": [], "t0": [], "t1": [], "cause": [], "ns": {c: [] for c in idle.CAUSES},
                           "queued": [], "what": [], "whats": [], "source": []}
    if g is None or not len(g) or not shown:
        return out
    st = rep.steps
    rank, index, start = (st[c].to_numpy(np.int64) for c in ("rank", "index", "start_ns"))
    kept = {(int(rank[d["row"]]), int(index[d["row"]])): (k, int(start[d["row"]])) for k, d in enumerate(shown)}
    at = [kept.get((int(r), int(i))) for r, i in zip(g["rank"], g["step"])]
    rows = np.array([j for j, x in enumerate(at) if x is not None], np.int64)
    if not rows.size:
        return out
    g = g.iloc[rows]
    k = np.array([at[j][0] for j in rows], np.int64)
    t0 = np.array([at[j][1] for j in rows], np.int64)
    whats: dict[str, int] = {}
    out["step"] = k.tolist()
    out["t0"] = (g["start_ns"].to_numpy(np.int64) - t0).tolist()
    out["t1"] = (g["end_ns"].to_numpy(np.int64) - t0).tolist()
    out["cause"] = [idle.CAUSES.index(c) for c in g["cause"].astype(str)]
    out["ns"] = {c: g[f"{c}_ns"].to_numpy(np.int64).tolist() for c in idle.CAUSES}
    out["queued"] = g["queued"].astype(bool).tolist()
    out["what"] = [whats.setdefault(w, len(whats)) if w else -1 for w in g["what"].astype(str)]
    out["source"] = g["source"].astype(str).tolist()
    out["whats"] = list(whats)
    return out


def _kind_tables(rep: Report) -> list[dict[str, Any]]:
    """Per kind: the bucket table as the text report has it, the lines under it."""
    out = []
    for kind in KINDS:
        ks = rep.summary.by_kind.get(kind)
        if ks is None:
            continue
        d = ks.attribution
        rows = [[b + (" (unclassified)" if b == "other" else ""), ms(d.mean_time_ns[b]), pct(d.bucket_share[b]),
                 ms(d.mean_exposed_ns[b]), pct(d.exposed_share[b]), per_step_count(d.mean_count[b]),
                 "≤ " + bound(d.speedup_bound_if_removed[b]), bound(d.speedup_bound_if_removed_p90[b])]
                for b in rep.buckets]
        rows.append(["overlapped", "", "", ms(d.mean_overlap_ns), pct(d.overlap_share), "", "", ""])
        rows.append(["idle", "", "", ms(d.mean_idle_ns), pct(d.idle_share), "", "", ""])
        lines = []
        if ks.idle is not None:
            i = ks.idle
            rows += [["  idle: " + IDLE_WORDS[c], "", "", ms(i.mean_idle_causes_ns[c]), pct(i.idle_causes_share[c]), "",
                      "≤ " + bound(i.speedup_bound_if_no_idle_cause[c]), bound(i.speedup_bound_if_no_idle_cause_p90[c])]
                     for c in idle.CAUSES]
            lines.append(f"if the GPU never waited (no idle): at most {bound(i.speedup_bound_if_no_idle)} "
                         f"(p90 {bound(i.speedup_bound_if_no_idle_p90)})")
            lines += [f"{c} idle {pct(i.idle_causes_share[c])}: {line}" for c, line in advice(i)]
        rows.append(["span", "", "", ms(d.mean_span_ns), pct(1.0), "", "", ""])
        lines.append(sol_line(kind, ks.speed_of_light))
        lines += [f"what if {v.bucket} were {v.factor:g}x faster: at most {bound(v.speedup_bound)} "
                  f"(p90 {bound(v.speedup_bound_p90)})" for v in (d.what_if or {}).values()]
        colls = ks.collectives.by_collective
        if colls:
            lines.append("communication per step: " + ", ".join(
                f"{per_step_count(v.per_step)} {c.replace('_', '-')} (mean {dur(v.mean_ns)})" for c, v in colls.items()))
        lines += rcomm.collective_text(ks, rep.summary.link or None) + rcomm.what_if_text(rep.summary, kind)
        flags = [f"{d.warmup_steps} warm-up excluded"] if d.warmup_steps else []
        flags += [f"{d.outlier_steps} outlier(s)"] if d.outlier_steps else []
        out.append({"kind": kind, "title": f"{kind} · {d.steps} step(s){' (' + ', '.join(flags) + ')' if flags else ''}"
                    f" · median span {dur(d.median_span_ns)} · p90 {dur(d.p90_span_ns)} · idle {pct(d.idle_share)}",
                    "header": ["per step (mean, ms)", "time", "share", "exposed", "share", "count",
                               "bound if removed", "p90"],
                    "rows": rows, "lines": lines, "inside": _inside(kind, ks, rep.buckets)})
    return out


def _inside(kind: str, ks, all_buckets) -> dict[str, Any] | None:
    """The inside-the-step tables of a kind: every module, every layer with its buckets."""
    ins = ks.inside
    if ins is None:
        return None
    ntypes = len(ins.layer_evidence.types)
    modules = [[m.name, ms(m.time_ns), pct(m.share), per_step_count(m.count), "≤ " + bound(m.speedup_bound_if_removed)]
               for m in ins.modules]
    buckets = [b for b in all_buckets if any(b in lt.buckets for lt in ins.layers)]
    layers = [[str(lt.index), lt.type, ms(lt.time_ns)] + [ms(lt.buckets[b]) if b in lt.buckets else ""
                                                          for b in buckets] for lt in ins.layers]
    return {"title": inside_title(kind, ins),
            "modules": {"header": ["module (per step, ms)", "time", "share", "count", "bound if removed"],
                        "rows": modules},
            "layers": {"header": ["layer", "type", "time"] + buckets, "rows": layers},
            "lines": [slow_layer_text(sl, ntypes) for sl in ins.slow_layers]}


def _comm(rep: Report) -> list[dict[str, Any]]:
    """Per kind with 2+ ranks: the job block (bounds on the job beside each rank's, wait vs transfer)."""
    out = []
    for kind in KINDS:
        lines = rcomm.job_text(rep.summary, rep.buckets, kind)
        if lines:
            out.append({"kind": kind, "lines": lines})
    return out


def view(rep: Report) -> dict[str, Any]:
    """Everything the page shows, as JSON-able data; names cleaned as for a terminal (control and
    bidi characters made visible escapes), so that what the page shows reads as it is stored."""
    rep = clean_report(rep)
    s = rep.summary
    return {
        "version": __version__, "title": trace_line(rep.meta), "trust_line": trust_line(s.integrity),
        "steps_line": steps_line(rep),
        "kind": s.kind, "buckets": list(rep.buckets), "causes": list(idle.CAUSES), "idle_words": IDLE_WORDS,
        "findings": [{"what": what(f), "bound": bound(f.bound), "evidence": evidence(f)} for f in s.findings],
        "ceiling": ({"what": what(s.ceiling), "bound": bound(s.ceiling.bound), "evidence": evidence(s.ceiling)}
                    if s.ceiling else None),
        "capture": _capture(rep), "warnings": list(dict.fromkeys(rep.meta.get("warnings") or [])),
        "notes": texts(rep.notes), "kinds": _kind_tables(rep), "comm": _comm(rep), "steps": _steps(rep),
        "detail": _detail(rep), "summary": jsonable(summary_dict(s)),
    }


def _capture(rep: Report) -> list[str]:
    """How the trace was captured beyond the title (which names the profiler, GPUs and ranks)."""
    if "graph" in rep.buckets:
        return ["CUDA graphs traced as whole-graph executions (no per-kernel rows inside them)"]
    return []


def render(rep: Report) -> str:
    """The report as one HTML document."""
    parts = {"/*CSS*/": _asset("report.css"), "/*ECHARTS*/": _asset("echarts.min.js"), "/*JS*/": _asset("dom.js") + _asset("report.js"),
             "/*DATA*/": _script_json(view(rep)), "<!--TITLE-->": _html_text(f"traceattrib · {trace_line(rep.meta)}")}
    # one pass: what is put in is never searched again (a name in the data cannot become a slot)
    return re.sub(r"/\*(?:CSS|ECHARTS|JS|DATA)\*/|<!--TITLE-->", lambda m: parts[m.group(0)], _asset("report.html"))


def _html_text(s: str) -> str:
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")
