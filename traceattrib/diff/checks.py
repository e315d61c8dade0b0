"""Are the captures comparable? What each run's report says about how it was made, and which
differences make a comparison meaningless (REFUSE) or may be the point of the change (NOTE).

Read from what a report holds: the reader's meta (GPU names per rank, ranks, profiler), the step
table (layers and tokens per step where the trace tells them; kernels run inside CUDA graphs,
`graph_kernels`; whole-graph executions, the 'graph' bucket) and how steps were found.

REFUSE: another GPU model, another GPU count or rank count (another machine or parallel layout:
per-step times of different jobs), another model depth (layers per step). NOTE: tokens per step
(batch), capture mode (eager, CUDA graphs, partly graphs), how graphs were traced (nsys
graph-level: one op per graph launch, or each kernel), profiler, how steps were found, and a kind
with steps on one side only. A value the trace does not give ("unknown") never differs; a run with
a device its trace does not name has an unknown GPU model.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from ..model import named_gpus
from .types import NOTE, REFUSE, Check

if TYPE_CHECKING:
    from ..analysis import Report

UNKNOWN = "unknown"
SEVERITY = {"gpu": REFUSE, "gpu_count": REFUSE, "ranks": REFUSE, "layers": REFUSE, "tokens": NOTE,
            "capture": NOTE, "graph_trace": NOTE, "profiler": NOTE, "evidence": NOTE}
# capture modes from the share of a kind's GPU ops that ran inside CUDA graphs
EAGER, GRAPHS, PARTIAL = "eager", "graphs", "partial"
GRAPH_SHARE = (0.05, 0.95)  # below: eager; at or above: graphs; between: partly graphs (piecewise: 82-88%
# in the serve_piecewise fixtures, whole-model graphs 98-100% with the sampler eager)


def facts(rep: Report, kinds: tuple[str, ...]) -> dict[tuple[str, str | None], str]:
    """(check code, kind or None) -> this run's value, as text; UNKNOWN where the trace does not say."""
    from ..stats import steady

    m = rep.meta
    gpus = list(m.get("gpus") or [])
    # a device the trace does not name is an unknown model: never "another GPU" than a named one
    names = named_gpus(gpus)
    named = sorted(set(names))
    ranks = m.get("ranks") or (sorted(rep.steps["rank"].unique().tolist()) if len(rep.steps) else [])
    st = steady(rep.steps) if len(rep.steps) else rep.steps
    out: dict[tuple[str, str | None], str] = {
        ("gpu", None): ", ".join(named) if named and len(names) == len(gpus) else UNKNOWN,
        ("gpu_count", None): str(len(gpus)) if gpus else UNKNOWN,
        ("ranks", None): str(len(ranks)) if ranks else UNKNOWN,
        ("layers", None): _mode(st["layers"]) if "layers" in st else UNKNOWN,
        ("graph_trace", None): _graph_trace(st),
        ("profiler", None): str(m.get("profiler") or m.get("format") or UNKNOWN),
        ("evidence", None): rep.evidence,
    }
    for kind in kinds:
        k = st[st["kind"] == kind] if len(st) else st
        if not len(k):
            continue
        out[("tokens", kind)] = _mode(k["tokens"]) if "tokens" in k else UNKNOWN
        out[("capture", kind)] = capture_mode(k)
    return out


def _mode(col) -> str:
    """The most common known (>= 0) value of an integer step column, as text."""
    known = col[col >= 0]
    return str(int(known.mode().iloc[0])) if len(known) else UNKNOWN


def capture_mode(k) -> str:
    """eager | graphs | partial for steps `k`: the share of their GPU ops run inside CUDA graphs
    (kernels with a graph id, and whole-graph executions); unknown without the column."""
    from ..attribute import ALL_BUCKETS

    ops = sum(k[f"{b}_count"].sum() for b in ALL_BUCKETS if f"{b}_count" in k)
    whole = k["graph_count"].sum() if "graph_count" in k else 0
    if "graph_kernels" not in k and not whole:
        return UNKNOWN
    if not ops:
        return UNKNOWN
    share = (whole + (k["graph_kernels"].sum() if "graph_kernels" in k else 0)) / ops
    return EAGER if share < GRAPH_SHARE[0] else GRAPHS if share >= GRAPH_SHARE[1] else PARTIAL


def _graph_trace(st) -> str:
    """How CUDA graphs were traced: 'whole_graphs' (nsys --cuda-graph-trace=graph: one op per
    graph launch, its kernels unseen), 'kernels' (each kernel of a graph seen: nsys node-level,
    torch.profiler); unknown without graphs."""
    if "graph_count" in st and st["graph_count"].sum() > 0:
        return "whole_graphs"
    if "graph_kernels" in st and st["graph_kernels"].sum() > 0:
        return "kernels"
    return UNKNOWN


def checks(before: list[dict], after: list[dict]) -> list[Check]:
    """The checks that differ: per (code, kind), the distinct known values of each side's runs
    (facts of each run, in run order), when the two sides together hold more than one."""
    keys = list(dict.fromkeys(k for f in before + after for k in f))
    out = []
    for code, kind in keys:
        if code not in SEVERITY:
            continue
        b = _distinct(f.get((code, kind), UNKNOWN) for f in before)
        a = _distinct(f.get((code, kind), UNKNOWN) for f in after)
        if len(set(b + a) - {UNKNOWN}) > 1:
            out.append(Check(code=code, severity=SEVERITY[code], kind=kind, before=b or [UNKNOWN],
                             after=a or [UNKNOWN]))
    order = list(SEVERITY)
    return sorted(out, key=lambda c: (c.severity != REFUSE, order.index(c.code)))


def _distinct(values) -> list[str]:
    return [v for v in dict.fromkeys(values) if v != UNKNOWN]
