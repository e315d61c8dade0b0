"""What to fix first: candidate opportunities from every analysis, ranked by their speedup bound.

A candidate is a report.Finding: `code` says what it is, `bound` is the upper bound on the step
speedup if that cost went away (the median over the kind's summarized steps, as every bound in the
summary), `args` the figures from the trace that back it (render/findings.py words them). Each
analysis contributes a function (kind, KindSummary, job bounds) -> candidates, registered in
SOURCES; `rank` orders them. The text and Markdown reports open with the top three; JSON has them
in `summary.findings`. The speed-of-light floor of the whole step is not a fix but a ceiling on all
of them together: it is reported beside the ranking (`summary.ceiling`), not in it (a 30x floor
would otherwise always come first and push real opportunities out of the three lines).
"""
from __future__ import annotations

import math
from collections.abc import Callable

from . import sol
from .idle import CAUSES
from .report import Finding, KindSummary, Per

# bounds closer to 1 than this win nothing a reader would act on
MIN_BOUND = 1.01


def bucket_candidates(kind: str, ks: KindSummary, job: Per | None) -> list[Finding]:
    """"bucket": removing a bucket's exposed time (the kind's bounds; with 2+ ranks the job's);
    args: bucket, exposed ns per step, its share of the span, kernels per step."""
    a = ks.attribution
    out = []
    for b, bound in a.speedup_bound_if_removed.items():
        x = a.mean_exposed_ns.get(b, 0.0)
        if not x:
            continue
        out.append(Finding("bucket", job.get(b, bound) if job else bound,
                           (b, x, a.exposed_share.get(b, 0.0), a.mean_count.get(b, 0.0))))
    return out


def idle_candidates(kind: str, ks: KindSummary, job: Per | None) -> list[Finding]:
    """"idle": removing one cause of GPU idle time (traceattrib.idle); args: the cause ("launch_queued"
    when most launch idle had the next op already queued: GPU-side bubbles, not the CPU), ns per
    step, share of the span, GPU ops per step, queued ns per step, and what the CPU did (name, ns
    per step) for host and sync idle."""
    d = ks.idle
    if d is None:
        return []
    out = []
    for c in CAUSES:
        x = d.mean_idle_causes_ns.get(c, 0.0)
        if c not in d.speedup_bound_if_no_idle_cause or not x:
            continue
        q = d.mean_idle_launch_queued_ns if c == "launch" else 0.0
        top = d.top_host_gaps if c == "host" else d.top_sync_calls if c == "sync" else []
        out.append(Finding("idle", d.speedup_bound_if_no_idle_cause[c], (
            "launch_queued" if c == "launch" and q > x / 2 else c, x, d.idle_causes_share[c],
            sum(ks.attribution.mean_count.values()), q, tuple((t.what, t.mean_ns) for t in top[:2]))))
    return out


def module_candidates(kind: str, ks: KindSummary, job: Per | None) -> list[Finding]:
    """"module": removing one module's exposed time, summed over the layers (layers.section), where
    modules are named; args: module, ns per step, share of the span, kernels per step, layers."""
    ins = ks.inside
    if ins is None or not ins.layer_evidence.names_known:
        return []
    return [Finding("module", m.speedup_bound_if_removed, (m.name, m.time_ns, m.share, m.count, ins.layer_evidence.layers))
            for m in ins.modules if m.name not in ("other", "model", "outside") and not m.name.startswith("op ")]


# every analysis that proposes opportunities: (kind, its summary, the job's bounds) -> candidates
SOURCES: list[Callable[[str, KindSummary, Per | None], list[Finding]]] = [
    bucket_candidates, idle_candidates, module_candidates,
    lambda kind, ks, job: sol.candidates(kind, ks.speed_of_light)[1:],  # the linear kernels at their floor
]


def ceiling(kind: str | None, ks: KindSummary | None) -> Finding | None:
    """The whole step at its physical floor (sol.py): not a fix but the ceiling on every fix
    together, so it is shown beside the ranking, not in it."""
    c = sol.candidates(kind, ks.speed_of_light) if ks is not None else []
    return c[0] if c else None


def rank(candidates: list[Finding], n: int = 3) -> list[Finding]:
    """The n candidates with the largest finite bound above MIN_BOUND, largest first (ties: by
    code, then figures)."""
    ok = [c for c in candidates if c.bound is not None and not math.isnan(c.bound)
          and not math.isinf(c.bound) and c.bound >= MIN_BOUND]
    ok.sort(key=lambda c: (-c.bound, c.code, repr(c.args)))
    return [Finding(c.code, float(c.bound), c.args) for c in ok[:n]]


def findings(kind: str | None, ks: KindSummary | None, job: Per | None = None, n: int = 3,
             extra: list[Finding] | None = None) -> list[Finding]:
    """The top opportunities for the headline kind: the SOURCES' candidates plus `extra` ones
    (analyses whose inputs are not in the summary: comm.opportunities). job: the job's bounds per
    bucket (2+ ranks: the job cannot get faster than its slowest rank)."""
    if ks is None:
        return []
    cands: list[Finding] = list(extra or [])
    for src in SOURCES:
        cands += src(kind, ks, job)
    return rank(cands, n)
