"""What to fix first: candidate opportunities from every analysis, ranked by their speedup bound.

A candidate is a dict {"what": str, "bound": float, "evidence": str}: `bound` is the upper bound
on the step speedup if that cost went away (median over the kind's summarized steps, as every
bound in the summary), `evidence` one line of figures from the trace that back it. Each analysis
contributes a function summary_kind_dict -> list of candidates (register it in SOURCES); `rank`
orders them. The text and Markdown reports open with the top three; JSON has them in
`summary.findings`. The speed-of-light floor of the whole step is not a fix but a ceiling on all of
them together: it is reported beside the ranking (`summary.ceiling`), not in it (a 30x floor would
otherwise always come first and push real opportunities out of the three lines).
"""
from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from . import sol
from .idle import CAUSES

# bounds closer to 1 than this win nothing a reader would act on
MIN_BOUND = 1.01

IDLE_WHAT = {
    "launch": "GPU idle while the CPU issues kernels (launch-bound)",
    "launch_queued": "GPU idle between kernels it already had queued (launch latency, dependencies)",
    "sync": "GPU idle while the CPU blocks in synchronizing calls",
    "host": "GPU idle while the CPU does host work",
    "unexplained": "GPU idle with no CPU evidence",
}


def _ms(ns: float) -> str:
    return f"{ns / 1e6:.2f} ms"


def bucket_candidates(kind: str, d: dict[str, Any]) -> list[dict[str, Any]]:
    """Removing a bucket's exposed time (the bucket bounds of attribute.summarize; with 2+ ranks
    `findings` passes the job's bounds)."""
    out = []
    for b, bound in (d.get("speedup_bound_if_removed") or {}).items():
        x = d.get("mean_exposed_ns", {}).get(b, 0.0)
        if not x:
            continue
        label = "unclassified kernels (bucket other)" if b == "other" else f"{b} kernels"
        out.append({"what": f"exposed {label}", "bound": bound,
                    "evidence": f"{_ms(x)}/step exposed ({d['exposed_share'].get(b, 0.0):.1%} of the span) "
                                f"in {d.get('mean_count', {}).get(b, 0.0):.0f} kernels/step"})
    return out


def idle_candidates(kind: str, d: dict[str, Any]) -> list[dict[str, Any]]:
    """Removing one cause of GPU idle time (traceattrib.idle)."""
    out = []
    bounds = d.get("speedup_bound_if_no_idle_cause") or {}
    for c in CAUSES:
        x = d.get("mean_idle_causes_ns", {}).get(c, 0.0)
        if c not in bounds or not x:
            continue
        ev = f"{_ms(x)}/step ({d['idle_causes_share'][c]:.1%} of the span)"
        what = IDLE_WHAT[c]
        if c == "launch":
            n = sum((d.get("mean_count") or {}).values())
            ev += f" with {n:.0f} GPU ops/step"
            q = d.get("mean_idle_launch_queued_ns", 0.0)
            if q:
                ev += f", {_ms(q)} of it with the next op already queued"
            if q > x / 2:  # mostly GPU-side bubbles: the CPU was not what the GPU waited for
                what = IDLE_WHAT["launch_queued"]
        elif c in ("host", "sync"):
            top = d.get("top_host_gaps" if c == "host" else "top_sync_calls") or []
            if top:
                ev += "; " + ", ".join(f"{t['what']} {_ms(t['mean_ns'])}" for t in top[:2])
        else:
            ev += "; no CPU-side evidence in the trace"
        out.append({"what": what, "bound": bounds[c], "evidence": ev})
    return out


# every analysis that proposes opportunities: kind, by_kind dict -> candidates
SOURCES: list[Callable[[str, dict[str, Any]], list[dict[str, Any]]]] = [
    bucket_candidates, idle_candidates,
    lambda kind, d: sol.candidates(kind, d)[1:],  # the linear kernels at their speed of light (sol.py)
]


def ceiling(summary: dict[str, Any]) -> dict[str, Any] | None:
    """The whole step at its physical floor (sol.py): not a fix but the ceiling on every fix
    together, so it is shown beside the ranking, not in it ({"what", "bound", "evidence"} or None)."""
    return sol.finding(summary)


def rank(candidates: list[dict[str, Any]], n: int = 3) -> list[dict[str, Any]]:
    """The n candidates with the largest finite bound above MIN_BOUND, largest first (ties: by
    `what`), each as {"what", "bound", "evidence"}."""
    ok = [c for c in candidates if c.get("bound") is not None and not math.isnan(c["bound"])
          and not math.isinf(c["bound"]) and c["bound"] >= MIN_BOUND]
    ok.sort(key=lambda c: (-c["bound"], c["what"]))
    return [{"what": c["what"], "bound": float(c["bound"]), "evidence": c["evidence"]} for c in ok[:n]]


def findings(summary: dict[str, Any], n: int = 3, extra: list[dict[str, Any]] | None = None) -> list[dict[str, Any]]:
    """The top opportunities for the kind the summary's top-level figures describe: the SOURCES'
    candidates plus `extra` ones (analyses whose inputs are not in the summary: comm.opportunities)."""
    kind = summary.get("kind")
    d = (summary.get("by_kind") or {}).get(kind)
    if not d:
        return []
    job = ((summary.get("job") or {}).get(kind) or {}).get("speedup_bound_if_removed")
    if job:  # 2+ ranks: the job cannot get faster than its slowest rank (comm.py's job bounds)
        d = dict(d, speedup_bound_if_removed={b: job.get(b, v) for b, v in d["speedup_bound_if_removed"].items()})
    cands: list[dict[str, Any]] = list(extra or [])
    for src in SOURCES:
        cands += src(kind, d)
    return rank(cands, n)
