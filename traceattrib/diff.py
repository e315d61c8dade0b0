"""Compare two reports: per step kind, per bucket time and exposed time, and what moved the span.

All per-step figures are means over the kind's steady steps (warm-up excluded), so the bucket
deltas of exposed time plus overlapped and idle deltas add up exactly to the mean span delta.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # (the package imports this module: it must not pull in pandas)
    from .analysis import Report


def _means(rep: Report, kind: str, buckets: tuple[str, ...]) -> dict[str, Any] | None:
    """The kind's mean-per-step figures from the report's summary (0 for absent buckets)."""
    ks = rep.summary.by_kind.get(kind)
    if ks is None:
        return None
    d = ks.attribution
    return {"steps": d.steps, "median_span_ns": d.median_span_ns, "mean_span_ns": d.mean_span_ns,
            "idle_ns": d.mean_idle_ns, "overlap_ns": d.mean_overlap_ns,
            "time_ns": {b: d.mean_time_ns.get(b, 0.0) for b in buckets},
            "exposed_ns": {b: d.mean_exposed_ns.get(b, 0.0) for b in buckets},
            "idle_causes_ns": ks.idle.mean_idle_causes_ns if ks.idle is not None else None}


def _rel(a: float, b: float) -> float | None:
    return None if not a else (b - a) / a


def diff(before: Report, after: Report) -> dict[str, Any]:
    """Side-by-side summaries of two reports (any formats), per kind and bucket."""
    buckets = tuple(dict.fromkeys(before.buckets + after.buckets))
    out: dict[str, Any] = {"before": _trace(before), "after": _trace(after), "kinds": {}, "checks": []}
    from .report import KINDS

    for kind in KINDS:
        a, b = _means(before, kind, buckets), _means(after, kind, buckets)
        if a is None and b is None:
            continue
        if a is None or b is None:
            out["checks"].append(f"{kind} steps only in {'after' if a is None else 'before'}")
            continue
        if a["steps"] != b["steps"]:
            out["checks"].append(f"{kind}: {a['steps']} steps before, {b['steps']} after")
        rows = {}
        for bk in buckets:
            rows[bk] = {"time_before_ns": a["time_ns"][bk], "time_after_ns": b["time_ns"][bk],
                        "exposed_before_ns": a["exposed_ns"][bk], "exposed_after_ns": b["exposed_ns"][bk],
                        "exposed_change_ns": b["exposed_ns"][bk] - a["exposed_ns"][bk],
                        "time_change": _rel(a["time_ns"][bk], b["time_ns"][bk]),
                        "exposed_change": _rel(a["exposed_ns"][bk], b["exposed_ns"][bk])}
        for extra in ("overlap", "idle"):
            rows[extra] = {"exposed_before_ns": a[f"{extra}_ns"], "exposed_after_ns": b[f"{extra}_ns"],
                           "exposed_change_ns": b[f"{extra}_ns"] - a[f"{extra}_ns"],
                           "exposed_change": _rel(a[f"{extra}_ns"], b[f"{extra}_ns"])}
        delta = b["mean_span_ns"] - a["mean_span_ns"]
        # idle split into causes when both sides have them (they sum to idle, so they replace it
        # among the parts that moved the span)
        causes = _idle_causes(a, b)
        parts = {n: r["exposed_change_ns"] for n, r in rows.items() if not (causes and n == "idle")}
        parts.update({f"{c} idle": r["change_ns"] for c, r in (causes or {}).items()})
        # which parts moved the span: the signed exposed deltas, largest in the span's direction first
        movers = sorted(((ch, name) for name, ch in parts.items()), key=lambda x: x[0] if delta < 0 else -x[0])
        out["kinds"][kind] = {
            "steps_before": a["steps"], "steps_after": b["steps"],
            "median_span_before_ns": a["median_span_ns"], "median_span_after_ns": b["median_span_ns"],
            "median_span_change": _rel(a["median_span_ns"], b["median_span_ns"]),
            "mean_span_before_ns": a["mean_span_ns"], "mean_span_after_ns": b["mean_span_ns"],
            "mean_span_change_ns": delta, "buckets": rows, "idle_causes": causes,
            "contributions": [{"part": n, "change_ns": c, "fraction_of_change": (c / delta) if delta else None}
                              for c, n in movers if abs(c) > 0],
        }
    return out


def _idle_causes(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any] | None:
    """Mean idle per step by cause, before and after (None unless both reports have causes)."""
    from .idle import CAUSES

    if not a["idle_causes_ns"] or not b["idle_causes_ns"]:
        return None
    return {c: {"before_ns": a["idle_causes_ns"][c], "after_ns": b["idle_causes_ns"][c],
                "change_ns": b["idle_causes_ns"][c] - a["idle_causes_ns"][c],
                "change": _rel(a["idle_causes_ns"][c], b["idle_causes_ns"][c])} for c in CAUSES}


def _trace(rep: Report) -> dict[str, Any]:
    m = rep.meta
    keys = ("path", "format", "profiler", "profiler_version", "gpus")
    return {k: m.get(k) for k in keys} | {"evidence": rep.evidence}


def slower_than(d: dict[str, Any], pct: float) -> bool:
    """True when the median decode step got slower by more than pct percent."""
    k = d["kinds"].get("decode")
    return bool(k and k["median_span_change"] is not None and k["median_span_change"] * 100 > pct)
