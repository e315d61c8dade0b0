"""`traceattrib diff --format html`: one self-contained page of a diff.types.Diff, every script,
style and datum inline (the report page's assets: report.css, ECharts), no request.

The page (assets/diff.html, laid out by assets/diff.js) shows what the text diff says, in its
words (render/diff.py): the two sides, what differs between the captures, per step kind the
verdict on its median, then tables of the span, the buckets, the idle causes, the modules and the
layers, each change with its 95% interval and verdict, and a chart of those changes with their
intervals; the gate's decision last. The typed Diff itself is in the page as the JSON
`diff --format json` writes (`diff` in the data). Names from traces are cleaned as for a terminal
and set as text only.
"""
from __future__ import annotations

import re
from typing import Any

from .. import __version__
from ..diff.types import HIGHER, LOWER, TOO_FEW, UNCHANGED, Change, Diff, KindDiff
from . import diff as rdiff
from .fmt import ms
from .html import _asset, _html_text, _script_json
from .safe import clean_obj

VERDICT = {LOWER: "lower", HIGHER: "higher", UNCHANGED: "no change beyond noise", TOO_FEW: "too few to tell"}


def _change(name: str, c: Change) -> dict[str, Any]:
    """One row: before and after (ms), the change, its 95% interval and verdict, and the chart's
    point and interval (the relative change; null when there was nothing before)."""
    return {"name": name, "before": ms(c.before), "after": ms(c.after),
            "change": rdiff._sgn(c.change) or f"{c.change_ns / 1e6:+.3f} ms",
            "ci": rdiff.ci_text(c).removeprefix("95% CI ") if c.verdict != TOO_FEW else "",
            "verdict": c.verdict, "verdict_text": VERDICT.get(c.verdict, c.verdict),
            "point": c.change, "low": c.ci[0] if c.ci else None, "high": c.ci[1] if c.ci else None}


def _kind(kind: str, k: KindDiff, min_steps: int) -> dict[str, Any]:
    lines = [rdiff.p90_line(k), f"steps: {rdiff._steps(k, noun=False)}"]
    lines += [] if k.median.verdict == TOO_FEW else [f"noise: {x}" for x in rdiff.noise_lines(k)]
    lines += [rdiff.moves_line(k), rdiff.idle_line(k), rdiff.modules_line(k), rdiff.layers_line(k)]
    buckets = []
    for name, r in k.buckets.items():
        row = _change(name, r.exposed)
        if isinstance(r.time_before_ns, float):
            row.update(time_before=ms(r.time_before_ns), time_after=ms(r.time_after_ns),
                       time_change=rdiff._sgn(r.time_change))
        buckets.append(row)
    tables = [{"id": "span", "title": "step span (ms)", "rows": [_change("median", k.median), _change("p90", k.p90),
                                                                _change("mean", k.mean)]},
              {"id": "buckets", "title": "exposed time per step and bucket (mean, ms); time = the bucket's own",
               "rows": buckets}]
    if k.idle_causes:
        tables.append({"id": "idle", "title": "idle per step by cause (mean, ms)",
                       "rows": [_change(c, v) for c, v in k.idle_causes.items()]})
    if k.modules:
        tables.append({"id": "modules", "title": "modules: time per step (mean, ms)",
                       "rows": [_change(n, v) for n, v in k.modules.items()]})
    if k.layers:
        tables.append({"id": "layers", "title": "layers: time per step (mean, ms)",
                       "rows": [_change(f"layer {n}", v) for n, v in k.layers.items()]})
    return {"kind": kind, "headline": rdiff.headline(kind, k, min_steps), "verdict": k.median.verdict,
            "lines": [x for x in lines if x], "tables": tables}


def view(d: Diff) -> dict[str, Any]:
    """Everything the page shows, as JSON-able data (names cleaned as for a terminal)."""
    json_doc = rdiff.to_dict(d)
    d = clean_obj(d)
    m = d.method
    return {
        "version": __version__, "before": rdiff.side_line(d.before), "after": rdiff.side_line(d.after),
        "checks": rdiff.check_lines(d), "kinds": [_kind(kind, k, m.min_steps) for kind, k in d.kinds.items()],
        "method": f"95% intervals: bootstrap over steps ({m.resamples} resamples, seed {m.seed}; several runs on a "
                  f"side: runs, then steps); fewer than {m.min_steps} steady steps on a side: too few to tell.",
        "gate": rdiff.gate_lines(d.gate) if d.gate is not None else [],
        "tripped": bool(d.gate is not None and d.gate.tripped), "diff": clean_obj(json_doc),
    }


def render(d: Diff) -> str:
    """The diff as one HTML document."""
    v = view(d)
    parts = {"/*CSS*/": _asset("report.css"), "/*ECHARTS*/": _asset("echarts.min.js"), "/*JS*/": _asset("dom.js") + _asset("diff.js"),
             "/*DATA*/": _script_json(v),
             "<!--TITLE-->": _html_text(f"traceattrib diff · {v['before']} → {v['after']}")}
    # one pass: what is put in is never searched again (a name in the data cannot become a slot)
    return re.sub(r"/\*(?:CSS|ECHARTS|JS|DATA)\*/|<!--TITLE-->", lambda m: parts[m.group(0)], _asset("diff.html"))
