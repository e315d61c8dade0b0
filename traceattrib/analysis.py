"""The pipeline as a `Report`: per rank, classify -> steps -> attribute; then a merge of the small
per-rank results into the summary and notes.

`analyze_rank` is the per-rank part: it needs one rank's tables and returns a `RankResult`
(per-step table, per-step collectives, collective instances, kernel totals per bucket and name, idle labels,
notes), never whole kernel tables. `merge` builds the `Report` from any number of them.
`analyze(trace)` runs both in this process and also keeps the kernels with their bucket and step;
`traceattrib.parallel` runs the per-rank part where the rank files are (this process or Dask
workers) and merges the same way, so both give the same report.
"""
from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np
import pandas as pd
from msgspec import UNSET

from . import attribute, classify, collectives, comm, findings, idle, integrity, sol, timeline
from . import layers as inside_analysis
from .concurrency import beside
from .errors import TraceError
from .intervals import group_sums, in_time_order
from .links import Link
from .model import Trace
from .notes import Note, note
from .notes import merge as merge_notes
from .report import KINDS, Headline, Integrity, KindSummary, PastRanges, RankKindSummary, Summary
from .stats import kind_steps
from .stats import steady as _steady

T = TypeVar("T")

if TYPE_CHECKING:  # imported where used: merging cached results needs no step finding
    from .steps import Context, Placed, Steps

# How steps were found, best first (steps.find_steps' order): when ranks differ, the report names
# the best one and a note says which ranks used what.
EVIDENCE_ORDER = ("regex", "given", "annotations", "python_frames", "cuda_graphs", "detected", "whole_trace", "none")
KERNEL_TOTAL_COLUMNS = ["kind", "warmup", "bucket", "name", "total_ns", "count"]
GAP_COLUMNS = ["rank"] + list(idle.GAP_COLUMNS)  # step: the step's index on its rank
OP_COLUMNS = ["bucket", "rule", "step", "layer", "module"]  # what keep_ops adds to the op tables


@dataclass
class RankResult:
    """What one rank contributes to a report: small tables only (times in ns).

    steps: that rank's per-step table (attribute.Breakdown.steps with the speed-of-light and idle columns,
           every column carried as is: new columns reach the merge without code here);
    collectives: per step and collective kind (rank, step, collective, count, total_ns, mean_ns);
    instances: one row per communication kernel (comm.INSTANCE_COLUMNS; step_row into `steps`,
           group_size -1 where the trace does not say: the merge fills in the job's world size);
    kernel_totals: kernel time and launches inside steps per (kind, warmup, bucket, name);
    idle_labels: what the CPU did in host and sync idle, per step (idle.IdleCauses.labels);
    buckets: buckets present; evidence/why/notes: how steps were found and what to know.
    regex_unmatched: --steps was given and no range of this rank matches it.
    shown / detail: the steps a viewer shows op by op (rank, step, why: timeline.shown_rows) and
    their GPU ops (timeline.COLUMNS).
    inside: the time of every layer and module of every step (inside_analysis.Times).
    gap_detail: the idle gaps of the shown steps (GAP_COLUMNS: rank, step index and idle.GAP_COLUMNS
    but its step row), what a viewer labels by cause and CPU activity.
    kernels/memops/graphs: only with keep_ops: bucket, rule, step (row into `steps`, -1 outside),
    layer (layers.OUTSIDE around the layers, layers.NO_STEP outside steps) and module ("" none) of
    every row of the input tables, in the input's row order; gaps: every idle gap (GAP_COLUMNS).
    """

    rank: int
    evidence: str
    why: Note | None
    steps: pd.DataFrame
    collectives: pd.DataFrame
    instances: pd.DataFrame
    kernel_totals: pd.DataFrame
    buckets: tuple[str, ...]
    notes: list[Note] = field(default_factory=list)
    idle_labels: pd.DataFrame | None = None
    has_launches: bool = True
    regex_unmatched: bool = False
    shown: pd.DataFrame | None = None
    detail: pd.DataFrame | None = None
    inside: inside_analysis.Times | None = None
    integrity: pd.DataFrame | None = None
    gap_detail: pd.DataFrame | None = None
    kernels: pd.DataFrame | None = None
    memops: pd.DataFrame | None = None
    graphs: pd.DataFrame | None = None
    gaps: pd.DataFrame | None = None

    def relabel(self, rank: int) -> RankResult:
        """The same result under another rank id (rank files renumbered by file order)."""
        tabs = {n: getattr(self, n).assign(rank=np.full(len(getattr(self, n)), rank, getattr(self, n)["rank"].dtype))
                if "rank" in getattr(self, n).columns and len(getattr(self, n)) else getattr(self, n)
                for n in ("steps", "collectives", "instances", "idle_labels", "shown", "detail", "integrity",
                          "gap_detail", "gaps")
                if getattr(self, n) is not None}
        if self.inside is not None:
            tabs["inside"] = self.inside.relabel(rank)
        return dataclasses.replace(self, rank=rank, **tabs)


@dataclass
class Report:
    """Everything the renderers read. Times in ns.

    summary: the typed figures (report.Summary): per step kind every analysis's section, per rank,
    the job, the link, what to fix first and the ceiling; notes: what the reader should know.
    steps: the per-step wide table (attribute.Breakdown's columns, the speed-of-light and idle
    columns); collectives: per step and collective, with bytes, wait and transfer (comm.step_table);
    kernel_totals: per rank, kernel time and count inside steps per (kind, warmup, bucket, name), what
    `top_kernels` reads; shown / detail: the steps a viewer shows op by op and their ops
    (traceattrib.timeline); comm: bytes, bandwidth, wait/transfer and job figures from the collective
    instances of every rank (traceattrib.comm; comm.instances holds them, matched across ranks).
    gap_detail: the idle gaps of the shown steps (GAP_COLUMNS: rank, step index, start_ns, end_ns, ns
    per cause, queued, the largest cause, what the CPU did: idle.IdleCauses.gaps).
    kernels / memops / graphs: the trace's kernels / memory ops / whole-graph executions with
    `bucket`, `rule`, `step` (row into `steps`, -1 outside steps), `layer` (layers.OUTSIDE around
    the layers, layers.NO_STEP outside steps) and `module` ("" none) columns; gaps: every idle gap
    of every step (GAP_COLUMNS). Only from `analyze(trace)`, None when the per-rank part ran
    elsewhere (traceattrib.parallel).
    """

    meta: dict[str, Any]
    steps: pd.DataFrame
    collectives: pd.DataFrame
    kernels: pd.DataFrame | None
    memops: pd.DataFrame | None
    summary: Summary
    buckets: tuple[str, ...]
    notes: list[Note] = field(default_factory=list)
    comm: comm.CommResult | None = None  # bytes, bandwidth, wait/transfer, job figures (traceattrib.comm)
    idle_labels: pd.DataFrame | None = None  # idle.IdleCauses.labels: what the CPU did in host/sync idle
    kernel_totals: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(columns=["rank"] + KERNEL_TOTAL_COLUMNS))
    shown: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(columns=["rank", "step", "why"]))
    detail: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(columns=timeline.COLUMNS))
    inside: inside_analysis.Times | None = None
    gap_detail: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(columns=GAP_COLUMNS))
    graphs: pd.DataFrame | None = None
    gaps: pd.DataFrame | None = None

    def _repr_html_(self) -> str:
        """The HTML report, for notebooks (the renderer is imported here: analyses never need it)."""
        from .render.html import render

        return render(self)

    @property
    def evidence(self) -> str:
        """How steps were found (steps.Steps.evidence, the best over the ranks)."""
        return self.summary.evidence

    def kind_steps(self, kind: str, steady: bool = True) -> pd.DataFrame:
        """The kind's steps; steady: the ones its summary counts (stats.steady)."""
        s = self.steps[self.steps["kind"] == kind]
        return _steady(s) if steady and len(s) else s


def analyze(trace: Trace, steps_regex: str | None = None, rules: classify.Rules | None = None,
            what_if: dict[str, float] | None = None, layers: int | None = None,
            sol_options: sol.Options | None = None, link: Link | None = None,
            what_if_links: tuple[Link, ...] = (), model: comm.Model | None = None) -> Report:
    """Run the whole attribution on a loaded trace, rank by rank, and keep its kernels.

    sol_options: speed-of-light inputs (--model, --batch, --context, --peak-bw, --peak-flops); the
    floor is computed from shapes without them. link: the interconnect bandwidths compare with
    (default: detected from the GPU names); what_if_links: links to project every step on; model:
    tensor-parallel all-reduce size where the trace has no collective arguments (default: from
    sol_options' --model)."""
    rules = rules if rules is not None else classify.load_rules()
    model = comm_model(model, sol_options)
    parts = split_ranks(trace)
    results = [analyze_rank(sub, steps_regex, rules, layers=layers, sol_options=sol_options, model=model,
                            keep_ops=True) for sub, _ in parts]
    rep = merge(results, trace.meta, steps_regex=steps_regex, what_if=what_if, layers=layers,
                sol_options=sol_options, link=link, what_if_links=what_if_links)
    order = np.argsort([r.rank for r in results], kind="stable")  # merge's order of steps
    offset = np.zeros(len(results), np.int64)
    offset[order] = np.cumsum([0] + [len(results[i].steps) for i in order])[:-1]
    rep.kernels = _ops_table(trace.kernels, "kernels", parts, results, offset)
    rep.memops = _ops_table(trace.memops, "memops", parts, results, offset)
    rep.graphs = _ops_table(trace.graphs, "graphs", parts, results, offset)
    gaps = [r.gaps for r in sorted(results, key=lambda r: r.rank) if r.gaps is not None and len(r.gaps)]
    rep.gaps = _concat(gaps) if gaps else pd.DataFrame(columns=GAP_COLUMNS)
    return rep


def comm_model(model: comm.Model | None, sol_options: sol.Options | None) -> comm.Model | None:
    """The all-reduce size model: the given one, else from --model's config (hidden size, dtype)."""
    if model is None and sol_options is not None and sol_options.model_spec() is not None:
        spec = sol_options.model_spec()
        model = comm.Model(hidden_size=spec.hidden, dtype_bytes=int(spec.dtype_bytes))
    return model


# --- the per-rank part ------------------------------------------------------------------------

def split_ranks(trace: Trace) -> list[tuple[Trace, dict[str, np.ndarray] | None]]:
    """One trace per rank that ran GPU work, in rank order, each with the row positions of its
    rows in every table of `trace` (None: the trace holds one rank and is returned as is)."""
    tabs = trace.tables()
    ranks: set[int] = set()
    for name in ("kernels", "memops", "graphs"):
        if len(tabs[name]):
            ranks.update(int(r) for r in pd.unique(tabs[name]["rank"]))
    if len(ranks) <= 1:
        return [(trace, None)]
    out = []
    for r in sorted(ranks):
        pos = {n: np.flatnonzero(t["rank"].to_numpy() == r) for n, t in tabs.items()}
        sub = {n: t.iloc[pos[n]].reset_index(drop=True) for n, t in tabs.items()}
        meta = dict(trace.meta)
        by_rank = meta.get("integrity_by_rank")
        if by_rank:  # a directory of rank files: each rank's own evidence of lost records
            meta["integrity"] = by_rank.get(str(r), {})
        out.append((dataclasses.replace(trace, **sub, meta=meta), pos))
    return out


# A rank with more rows than this (kernels, launch calls and CPU ops together) runs its analyses
# one after another: two at once hold both working sets to save about 15-30% of the time (about
# 0.3 GB more at 6M kernels of an nsys export; 0.8 GB more for a 4.9 GB torch JSON, whose CPU ops
# the speed of light walks beside the idle causes).
ONE_THREAD_ROWS = 8_000_000


def analyze_rank(trace: Trace, steps_regex: str | None = None, rules: classify.Rules | None = None,
                 layers: int | None = None, sol_options: sol.Options | None = None,
                 model: comm.Model | None = None, keep_ops: bool = False) -> RankResult:
    """classify -> steps -> attribute on one rank's tables; only what the merge needs comes back.

    Rows are first put in (start_ns, end_ns) order (stable), so the result does not depend on how
    the rank's rows were ordered among other ranks' (a directory merged, or one file alone)."""
    from .gpuops import gpu_ops

    rules = rules if rules is not None else classify.load_rules()
    trace, perm = sort_rows(trace)
    rank = _rank_of(trace)
    alone = len(trace.kernels) + len(trace.launches) + len(trace.cpu_ops) > ONE_THREAD_ROWS
    # the GPU ops table needs no classification: made in a second thread meanwhile (numpy,
    # which releases the GIL)
    with beside(gpu_ops, trace, name="traceattrib-ops", inline=alone) as making:
        kc = classify.classify_kernels(trace.kernels, rules)
        mc = classify.classify_memops(trace.memops, rules)
        ops = making.result()
    try:
        ctx, placed = _place_steps(trace, ops, kc["bucket"], steps_regex, alone)
    except TraceError as e:
        # another rank may hold the ranges: the merge fails only when no rank does
        if steps_regex and e.reason == "no_match":
            return _unmatched(trace, rank, steps_regex, kc, mc, perm, keep_ops)
        raise
    def shapes(st: Steps) -> tuple[np.ndarray, sol.ShapeWork]:
        """Each kernel's step and the steps' GEMM and attention shapes (sol/): made while the idle
        causes end, which they do not need."""
        kstep = _op_step(st, "kernel", len(trace.kernels))
        return kstep, sol.shape_work(trace, kstep, len(st.table), kc["bucket"].array)

    st, ic, (kstep, work) = _kinds_and_idle(trace, ctx, placed, layers, alone, shapes)
    del placed
    codes = attribute.op_buckets(st, kc["bucket"], mc["bucket"])
    kn, projections = _gemm_shapes(trace, st, kstep, sol_options)
    # the steps shown op by op, from the step table alone (its rows are the breakdown's)
    shown = timeline.shown_rows(st.table.assign(span_ns=(st.table["end_ns"] - st.table["start_ns"]).to_numpy()))
    # the gap rows now, so that what idle causes worked with (about 90 bytes per kernel) is let go
    # before the layers are worked out
    ic, all_gaps, gap_detail = _gap_rows(ic, st.table, shown["row"].to_numpy(), keep_ops)
    # layers and modules need only the steps and buckets: worked out in a second thread while
    # this one attributes
    with beside(_layers, trace, st, codes, kn, projections, keep_ops,
                name="traceattrib-layers", inline=alone) as side:
        bd = attribute.breakdown(st, codes, _comm_text(trace.kernels, kc["bucket"]))
        # speed of light (sol/): per-step bytes, FLOPs and floor columns in the step table
        # categoricals as they are: an object array of a million bucket names costs 0.2 s each way
        bd.steps, sol_notes = sol.step_columns(bd.steps, trace, kstep, kc["bucket"].array, sol_options, work)
        bd.steps["graph_kernels"] = graph_kernels(trace.kernels, kstep, len(bd.steps))
        totals = kernel_totals(trace.kernels, kc["bucket"], kstep, bd.steps)
        checks = integrity.rank_checks(trace, st.ops, st.table, kc["bucket"], rank)
        asg, inside = side.result()
    for c in ic.causes.columns:
        bd.steps[c] = ic.causes[c].to_numpy()
    bd.steps["integrity"] = checks.flags
    idle_labels = ic.labels
    kernels = trace.kernels.assign(bucket=kc["bucket"].array, rule=kc["rule"].array, step=kstep)
    # world_size -1: group sizes the trace does not give are filled in by the merge, which knows the job
    inst = comm.instances(kernels, bd.steps, {"format": trace.meta.get("format"), "world_size": -1}, model)
    detail = timeline.ops(st.ops, codes, attribute.ALL_BUCKETS, trace.kernels, trace.memops, bd.steps,
                          shown["row"].to_numpy())
    res = RankResult(rank=rank, evidence=st.evidence, why=st.why, steps=bd.steps, collectives=bd.collectives,
                     instances=inst, kernel_totals=totals,
                     buckets=bd.buckets, notes=st.notes + bd.notes + sol_notes, idle_labels=idle_labels,
                     has_launches=bool(len(trace.launches)),  # idle notes: from the merged totals
                     shown=pd.DataFrame({"rank": bd.steps["rank"].to_numpy()[shown["row"].to_numpy()].astype(np.int64),
                                         "step": bd.steps["index"].to_numpy()[shown["row"].to_numpy()],
                                         "why": shown["why"].to_numpy()}),
                     detail=detail, inside=inside, integrity=checks.table,
                     gap_detail=gap_detail)
    if keep_ops:
        _keep_ops(res, trace, st, kc, mc, kstep, asg, perm)
        res.gaps = all_gaps
    return res


def _keep_ops(res: RankResult, trace: Trace, st, kc, mc, kstep: np.ndarray, asg, perm: dict[str, np.ndarray]) -> None:
    """Every op's bucket, rule, step, layer and module into `res` (kernels, memops, graphs), rows in
    the order the trace gave them."""
    for name, c in (("kernels", kc), ("memops", mc), ("graphs", None)):
        kind = name[:-1]
        n = len(getattr(trace, name))
        layer, module = inside_analysis.of_table(asg, st.ops, kind, n)
        # categoricals as they are: a million names as strings cost about 0.1 s each way
        graph = _constant(n, attribute.GRAPH_BUCKET)
        bucket = c["bucket"].array if c is not None else graph
        rule = c["rule"].array if c is not None else graph
        step = kstep if name == "kernels" else _op_step(st, kind, n)
        setattr(res, name, _unsort(pd.DataFrame({"bucket": bucket, "rule": rule, "step": step, "layer": layer,
                                                 "module": module}), perm.get(name)))


def _gap_table(gaps: pd.DataFrame, steps_tab: pd.DataFrame) -> pd.DataFrame:
    """idle.IdleCauses.gaps with rank and step index instead of the step row (GAP_COLUMNS)."""
    row = gaps["step"].to_numpy(np.int64)
    return gaps.assign(rank=steps_tab["rank"].to_numpy()[row].astype(np.int64),
                       step=steps_tab["index"].to_numpy()[row].astype(np.int64))[GAP_COLUMNS]


def _place_steps(trace: Trace, ops: pd.DataFrame, kernel_buckets: pd.Series, regex: str | None,
                 alone: bool = False) -> tuple[Context, Placed]:
    """(the steps' context, steps.place): detection (the check of every candidate) in a second
    thread while this one makes the context and the first candidate: both are mostly numpy, which
    releases the GIL (0.03-0.06 s less on 1M kernels); alone: one after the other."""
    from . import steps

    attention = steps.attention_mask(ops, kernel_buckets)
    with beside(steps.detection, ops, attention, name="traceattrib-detect", inline=alone) as detecting:
        ctx = steps.context(trace, ops, attention, model=steps.bucket_mask(ops, kernel_buckets, steps.MODEL_BUCKETS))
        cands = steps.candidates(ctx, regex)
        detected = detecting.result()
    return ctx, steps.place(ctx, cands, detected)


def _kinds_and_idle(trace: Trace, ctx: Context, placed: Placed, layers: int | None,
                    alone: bool, then: Callable[[Steps], T]) -> tuple[Steps, idle.IdleCauses, T]:
    """(the finished steps, their idle causes, then(steps)). The idle causes read only the placed
    steps' windows: worked out in a second thread while this one decides the kinds and runs `then`
    (mostly numpy, which releases the GIL); alone: one after the other, so that their working sets
    are not held together."""
    from . import steps

    def causes() -> idle.IdleCauses:
        return idle_causes(placed.ops, placed.table, trace.launches, trace.cpu_ops, trace.ranges, alone)

    if alone:
        st = steps.finish(ctx, placed, layers)
        return st, causes(), then(st)
    with beside(causes, name="traceattrib-idle") as idling:
        st = steps.finish(ctx, placed, layers)
        done = then(st)
        return st, idling.result(), done


def _gap_rows(ic: idle.IdleCauses, table: pd.DataFrame, shown: np.ndarray,
              keep_ops: bool) -> tuple[idle.IdleCauses, pd.DataFrame | None, pd.DataFrame]:
    """(idle causes without the plan behind their gaps, every gap's row (keep_ops, else None), the
    gap rows of the steps `shown` (rows of the step table))."""
    if keep_ops:
        all_gaps = _gap_table(ic.gaps, table)
        keep = np.isin(all_gaps["step"].to_numpy(), table["index"].to_numpy()[shown])
        gap_detail = all_gaps.iloc[np.flatnonzero(keep)].reset_index(drop=True)
    else:
        all_gaps, gap_detail = None, _gap_table(ic.gaps_of(shown), table)
    return idle.IdleCauses(causes=ic.causes, labels=ic.labels, notes=ic.notes), all_gaps, gap_detail


def _layers(trace: Trace, st: Steps, codes: np.ndarray, kn, projections, keep_ops: bool):
    """(the ops' layers and modules (keep_ops, else None), their times per step) of one rank's steps."""
    asg = inside_analysis.assign(st.ops, st.table, trace.launches, trace.ranges, trace.cpu_ops, codes,
                                 st.attention, trace.kernels["name"].cat.categories, attribute.ALL_BUCKETS, kn,
                                 projections)
    inside = inside_analysis.times(asg, st.ops, st.table, codes, attribute.ALL_BUCKETS)
    return asg if keep_ops else None, inside


def idle_causes(ops: pd.DataFrame, table: pd.DataFrame, launches: pd.DataFrame, cpu_ops: pd.DataFrame,
                ranges: pd.DataFrame, alone: bool = False) -> idle.IdleCauses:
    """idle.explain, the two parts of each job (of a launching thread's many gap windows) swept
    beside each other (0.35 -> 0.28 s on 1M kernels; the same pieces as one sweep), each job's pieces
    taken into the plan as it ends; alone: one after the other."""
    plan = idle.Plan(ops, table, launches, cpu_ops, ranges)
    for job in plan.jobs:
        if len(job) == 1:
            plan.take(job, (plan.run(job[0]),))
            continue
        with beside(plan.run, job[1], name="traceattrib-idle-part", inline=alone) as later:
            first = plan.run(job[0])
            plan.take(job, (first, later.result()))
    return plan.finish()


def sort_rows(trace: Trace) -> tuple[Trace, dict[str, np.ndarray]]:
    """Every table in (start_ns, end_ns) order, stable; the permutations applied, per table."""
    perm, tabs = {}, {}
    for name, t in trace.tables().items():
        if len(t) < 2:
            continue
        s, e = t["start_ns"].to_numpy(), t["end_ns"].to_numpy()
        if in_time_order(s, e):
            continue
        perm[name] = np.lexsort((e, s))  # lexsort is stable
        tabs[name] = t.iloc[perm[name]].reset_index(drop=True)
    return (dataclasses.replace(trace, **tabs) if tabs else trace), perm


def _unsort(df: pd.DataFrame, perm: np.ndarray | None) -> pd.DataFrame:
    """Rows back in the order before `sort_rows`."""
    if perm is None:
        return df
    inv = np.empty_like(perm)
    inv[perm] = np.arange(perm.size)
    return df.iloc[inv].reset_index(drop=True)


def _rank_of(trace: Trace) -> int:
    for t in (trace.kernels, trace.memops, trace.graphs, trace.ranges, trace.launches):
        if len(t):
            return int(t["rank"].iloc[0])
    return int(trace.meta.get("rank") or 0)


def _unmatched(trace: Trace, rank: int, regex: str, kc, mc, perm, keep_ops: bool) -> RankResult:
    """A rank none of whose ranges matches --steps: no steps, all its GPU work outside them."""
    n_ops = len(trace.kernels) + len(trace.memops) + len(trace.graphs)
    res = RankResult(rank=rank, evidence="regex", why=None, steps=pd.DataFrame(),
                     collectives=pd.DataFrame(), instances=pd.DataFrame(),
                     kernel_totals=pd.DataFrame(columns=KERNEL_TOTAL_COLUMNS), buckets=tuple(classify.BUCKETS),
                     notes=[note("rank.unmatched", rank, regex, counts=(n_ops,))], regex_unmatched=True)
    if keep_ops:
        for name, c in (("kernels", kc), ("memops", mc), ("graphs", None)):
            n = len(getattr(trace, name))
            graph = _constant(n, attribute.GRAPH_BUCKET)
            setattr(res, name, _unsort(pd.DataFrame({
                "bucket": c["bucket"].array if c is not None else graph,
                "rule": c["rule"].array if c is not None else graph, "step": np.full(n, -1, np.int64),
                "layer": np.full(n, inside_analysis.NO_STEP, np.int64),
                "module": _constant(n, "")}), perm.get(name)))
    return res


def graph_kernels(kernels: pd.DataFrame, kstep: np.ndarray, n: int) -> np.ndarray:
    """Per step: its kernels that ran inside a CUDA graph (a graph id: torch.profiler, nsys
    node-level tracing), what tells a graph replay from an eager step (diff/checks.py)."""
    if not len(kernels):
        return np.zeros(n, np.int64)
    m = kernels["graph_id"].notna().to_numpy(bool) & (kstep >= 0)
    return np.bincount(kstep[m], minlength=n)[:n].astype(np.int64)


def kernel_totals(kernels: pd.DataFrame, bucket: pd.Series, kstep: np.ndarray, step_tab: pd.DataFrame) -> pd.DataFrame:
    """Kernel time (sum of durations, ns) and launch count inside steps, per (step kind, warm-up
    flag, bucket, kernel name): what the top-kernels lines need, one row per distinct name."""
    names = pd.Categorical(kernels["name"])
    m = (kstep >= 0) & (names.codes >= 0)  # a kernel without a name is in no group (as groupby drops NaN)
    if not m.any():
        return pd.DataFrame(columns=KERNEL_TOTAL_COLUMNS)
    row = kstep[m]
    kind_code, kinds = pd.factorize(step_tab["kind"])
    buckets = pd.Categorical(bucket)
    cats = buckets.categories
    # one int64 key per row, ordered as (kind, warm-up, bucket, name): a sort and run sums
    # replace a four-column groupby
    nb, nn = len(cats), len(names.categories)
    key = ((kind_code[row].astype(np.int64) * 2 + step_tab["warmup"].to_numpy(bool)[row]) * nb
           + buckets.codes[m]) * nn + names.codes[m]
    dur = (kernels["end_ns"].to_numpy(np.int64) - kernels["start_ns"].to_numpy(np.int64))[m]
    group, uniq = pd.factorize(key)  # hashing: a sort of a million keys costs 5x more
    total, count = group_sums(group, dur, uniq.size), np.bincount(group, minlength=uniq.size).astype(np.int64)
    order = np.argsort(uniq)
    k, total, count = uniq[order], total[order], count[order]
    n_code, k = k % nn, k // nn
    b_code, k = k % nb, k // nb
    return pd.DataFrame({
        "kind": np.asarray(kinds, dtype=object)[k // 2], "warmup": (k % 2).astype(bool),
        "bucket": np.asarray(cats, dtype=object)[b_code],
        "name": np.asarray(names.categories.astype(str), dtype=object)[n_code],
        "total_ns": total, "count": count})


def _ops_table(tab: pd.DataFrame, name: str, parts, results: list[RankResult], offset: np.ndarray) -> pd.DataFrame:
    """The trace's table with OP_COLUMNS: bucket, rule, step (row into Report.steps), layer, module
    (bucket, rule and module categorical)."""
    if len(parts) == 1:
        cols = getattr(results[0], name)
        step = cols["step"].to_numpy()
        return tab.assign(bucket=cols["bucket"].array, rule=cols["rule"].array,
                          step=np.where(step >= 0, step + offset[0], -1), layer=cols["layer"].to_numpy(),
                          module=cols["module"].array)
    step = np.full(len(tab), -1, np.int64)
    layer = np.full(len(tab), inside_analysis.NO_STEP, np.int64)
    for (_, pos), res, off in zip(parts, results, offset):
        cols = getattr(res, name)
        p = pos[name]
        s = cols["step"].to_numpy()
        step[p] = np.where(s >= 0, s + off, -1)
        layer[p] = cols["layer"].to_numpy()
    # rows of ranks without GPU work (none in kernels/memops by construction) stay unclassified
    placed = [(pos[name], getattr(res, name)) for (_, pos), res in zip(parts, results)]
    return tab.assign(bucket=_scatter(len(tab), [(p, c["bucket"].array) for p, c in placed], "other"),
                      rule=_scatter(len(tab), [(p, c["rule"].array) for p, c in placed], classify.UNMATCHED),
                      step=step, layer=layer,
                      module=_scatter(len(tab), [(p, c["module"].array) for p, c in placed], ""))


def _constant(n: int, value: str) -> pd.Categorical:
    """n rows of one text, as a categorical of that one category."""
    return pd.Categorical.from_codes(np.zeros(n, np.int8), [value])


def _scatter(n: int, parts: list[tuple[np.ndarray, pd.Categorical]], fill: str) -> pd.Categorical:
    """One categorical of n rows from per-rank categoricals placed at their row positions; `fill`
    where none is placed. Categories: the parts' in order of first appearance, then `fill`."""
    cats = pd.Index(list(dict.fromkeys([v for _, c in parts for v in c.categories] + [fill])))
    codes = np.full(n, cats.get_loc(fill), np.int32)
    for pos, c in parts:
        if len(pos):
            codes[pos] = cats.get_indexer(c.categories)[c.codes]
    return pd.Categorical.from_codes(codes, cats)


def _comm_text(kernels: pd.DataFrame, bucket: pd.Series) -> pd.Categorical:
    """Name and op chain of communication kernels (what collectives are read from), as a
    categorical over kernels (missing for the others); strings only for communication rows."""
    cat = pd.Categorical(bucket)
    codes = np.full(len(kernels), -1, np.int64)
    if "communication" not in cat.categories:
        return pd.Categorical.from_codes(codes, categories=[])
    comm = cat.codes == cat.categories.get_loc("communication")
    keys, uniq = pd.factorize(collectives.text(kernels.loc[comm]))
    codes[comm] = keys
    return pd.Categorical.from_codes(codes, categories=pd.Index(uniq))


def _gemm_shapes(trace: Trace, st: Steps, kstep: np.ndarray, sol_options: sol.Options | None
                 ) -> tuple[np.ndarray | None, tuple]:
    """Per GPU op its GEMM's K and N, and the --model config's projections at the trace's
    tensor-parallel size, then at the other usual sizes (a single-rank trace of a TP job does not
    say its size): the `shapes` evidence of layers/; (None, ()) without a config or CPU ops."""
    spec = sol_options.model_spec() if sol_options is not None else None
    if spec is None or not len(trace.cpu_ops):
        return None, ()
    per_kernel = sol.gemm_kn(trace, kstep)
    kn = np.full((len(st.ops), 3), -1, np.int64)
    m = (st.ops["kind"] == "kernel").to_numpy()
    kn[m] = per_kernel[st.ops["src"].to_numpy()[m]]
    tp, _ = sol.tensor_parallel(trace)  # first: the trace's own evidence wins a tie
    sizes = (tp,) + tuple(n for n in (1, 2, 4, 8) if n != tp)
    return kn, tuple(inside_analysis.projections(spec, n) for n in sizes)


def _op_step(st: Steps, kind: str, n: int) -> np.ndarray:
    """Step row (into the rank's steps table) of each row of the source table, -1 outside steps."""
    out = np.full(n, -1, np.int64)
    m = (st.ops["kind"] == kind).to_numpy()
    out[st.ops["src"].to_numpy()[m]] = st.ops["step"].to_numpy()[m]
    return out


# --- the merge --------------------------------------------------------------------------------

def merge(results: list[RankResult], meta: dict[str, Any], steps_regex: str | None = None,
          what_if: dict[str, float] | None = None, layers: int | None = None,
          sol_options: sol.Options | None = None, link: Link | None = None,
          what_if_links: tuple[Link, ...] = ()) -> Report:
    """One Report from per-rank results (any order; ranks are distinct) and the trace's meta: every
    analysis's section per step kind composed into the summary, communication across ranks
    (comm.analyze_instances), what to fix first, the notes."""
    if steps_regex and results and all(r.regex_unmatched for r in results):
        raise TraceError(f"{{steps_regex}} {steps_regex!r} matches no range name in the trace", param="steps_regex",
                         reason="no_match")
    results = sorted(results, key=lambda r: r.rank)
    tab = _concat([r.steps for r in results])
    colls = _concat([r.collectives for r in results])
    buckets = tuple(b for b in attribute.ALL_BUCKETS if any(b in r.buckets for r in results))
    labels = [r.idle_labels for r in results if r.idle_labels is not None]
    labels = _concat(labels) if labels else None
    evidence, why, ev_notes = _evidence([r for r in results if not r.regex_unmatched])
    notes = [note("input", n) for n in meta.get("notes", [])] \
        + merge_notes([r.notes for r in results], [r.rank for r in results]) + ev_notes
    if len(tab) and idle.has_causes(tab):  # as idle.explain says them, over every rank at once
        notes += idle.explain_notes(tab, labels, any(r.has_launches for r in results))
    cr = comm.analyze_instances(_instances(results, meta), tab, buckets, meta, link=link, what_if_links=what_if_links)
    inside = inside_analysis.concat([r.inside for r in results if r.inside is not None])
    integ, integ_notes = _integrity(results, tab, cr, meta)
    notes += integ_notes
    summary = summarize(tab, colls, buckets, labels, cr, evidence, why, what_if, layers, inside, integ)
    notes += comm.summary_notes(cr, summary.kind)
    main = summary.main()
    if main is not None and "other" in main.attribution.bucket_share:
        notes.append(note("other_share", main.attribution.bucket_share["other"], summary.kind))
    totals = _concat([r.kernel_totals.assign(rank=np.int32(r.rank))[["rank"] + KERNEL_TOTAL_COLUMNS]
                      for r in results if len(r.kernel_totals)]) if any(len(r.kernel_totals) for r in results) \
        else pd.DataFrame(columns=["rank"] + KERNEL_TOTAL_COLUMNS)
    frames = [r.shown for r in results if r.shown is not None and len(r.shown)]
    shown = _concat(frames) if frames else pd.DataFrame(columns=["rank", "step", "why"])
    frames = [r.detail for r in results if r.detail is not None and len(r.detail)]
    detail = _concat(frames) if frames else pd.DataFrame(columns=timeline.COLUMNS)
    frames = [r.gap_detail for r in results if r.gap_detail is not None and len(r.gap_detail)]
    gap_detail = _concat(frames) if frames else pd.DataFrame(columns=GAP_COLUMNS)
    return Report(meta=dict(meta), steps=tab, collectives=comm.step_table(colls, cr), kernels=None, memops=None,
                  summary=summary, buckets=buckets, notes=notes, kernel_totals=totals, comm=cr, idle_labels=labels,
                  shown=shown, detail=detail, inside=inside, gap_detail=gap_detail)


def _integrity(results: list[RankResult], tab: pd.DataFrame, cr: comm.CommResult,
               meta: dict[str, Any]) -> tuple[Integrity, list[Note]]:
    """Every rank's integrity checks and the clocks' across ranks as the report's section; the
    step table's `integrity` column gains the steps the clocks affect."""
    clocks, hit = integrity.clock_check(cr.instances, tab, meta.get("format") == "nsys")
    if len(tab):
        flags = tab["integrity"].to_numpy(object) if "integrity" in tab else np.full(len(tab), "", object)
        tab["integrity"] = integrity.with_flag(np.where(pd.isna(flags), "", flags), hit, "clocks")
    frames = [r.integrity for r in results if r.integrity is not None and len(r.integrity)] + [clocks]
    return integrity.section(pd.concat(frames, ignore_index=True), tab)


def summarize(tab: pd.DataFrame, colls: pd.DataFrame, buckets: tuple[str, ...], labels: pd.DataFrame | None,
              cr: comm.CommResult, evidence: str = "none", why: Note | None = None,
              what_if: dict[str, float] | None = None, layers: int | None = None,
              inside: inside_analysis.Times | None = None, integrity: Integrity | None = None) -> Summary:
    """The report's summary from the step table of every rank, its per-step collectives, the idle
    labels, the communication result and the layer and module times: every analysis's section per
    kind, per rank (2+ ranks), the job and link figures, what to fix first and the ceiling.
    layers: the user's --layers (tensor parallelism's all-reduces per layer are checked)."""
    by_kind = {kind: _kind_summary(tab, colls, kind, buckets, what_if, layers, labels, cr, inside) for kind in KINDS
               if len(tab) and (tab["kind"] == kind).any()}
    main = "decode" if "decode" in by_kind else next(iter(by_kind), None)
    ranks = sorted(int(r) for r in tab["rank"].unique()) if len(tab) else []
    job = cr.job[main].speedup_bound_if_removed if main in cr.job else None
    return Summary(
        step_counts={k: int((tab["kind"] == k).sum()) for k in by_kind}, by_kind=by_kind,
        by_rank={r: _rank_summary(tab, colls, r, buckets, what_if, layers, cr) for r in ranks}
        if len(ranks) > 1 else UNSET,
        kind=main, headline=_headline(by_kind[main]) if main else None, evidence=evidence, evidence_why=why,
        past_ranges=past if (past := _past_ranges(tab)) is not None else UNSET,
        integrity=integrity,
        job=cr.job or UNSET,
        link=cr.link if cr.link is not None else UNSET, interconnect_fit=cr.fit or UNSET,
        what_if_link=cr.what_if or UNSET,
        # what to fix first: every analysis's candidates, communication wait included (findings.py)
        findings=findings.findings(main, by_kind.get(main), job, extra=comm.opportunities(cr, main)),
        ceiling=findings.ceiling(main, by_kind.get(main)))


def _past_ranges(tab: pd.DataFrame) -> PastRanges | None:
    """How far the steps (every rank's) run past their ranges (steps.table.outside_ranges); None
    when no step from ranges does."""
    if "outside_ns" not in tab.columns or not len(tab):
        return None
    out = tab["outside_ns"].to_numpy(np.int64)
    past = out[out > 0]
    if not past.size:
        return None
    return PastRanges(steps=int(past.size), of_steps=int((out >= 0).sum()), median_outside_ns=float(np.median(past)),
                      max_outside_ns=int(past.max()))


def _headline(ks: KindSummary) -> Headline:
    a, i = ks.attribution, ks.idle
    return Headline(median_span_ns=a.median_span_ns, bucket_share=a.bucket_share, exposed_share=a.exposed_share,
                    speedup_bound_if_removed=a.speedup_bound_if_removed,
                    idle_causes_share=i.idle_causes_share if i else UNSET,
                    speedup_bound_if_no_idle=i.speedup_bound_if_no_idle if i else UNSET,
                    speedup_bound_if_no_idle_cause=i.speedup_bound_if_no_idle_cause if i else UNSET)


def _kind_summary(tab: pd.DataFrame, colls: pd.DataFrame, kind: str, buckets: tuple[str, ...],
                  what_if: dict[str, float] | None, layers: int | None, labels: pd.DataFrame | None,
                  cr: comm.CommResult, inside: inside_analysis.Times | None = None) -> KindSummary:
    """Every analysis's section for one step kind, over its summarized (steady) steps."""
    all_k, k = kind_steps(tab, kind)
    return KindSummary(
        attribution=attribute.section(all_k, k, buckets, what_if),
        collectives=comm.with_bandwidth(attribute.collective_counts(colls, k, layers), cr.by_kind.get(kind)),
        speed_of_light=sol.section(tab, kind),
        idle=idle.section(k, labels) if idle.has_causes(tab) else None,
        inside=inside_analysis.section(k, inside, buckets) if inside is not None else None)


def _rank_summary(tab: pd.DataFrame, colls: pd.DataFrame, rank: int, buckets: tuple[str, ...],
                  what_if: dict[str, float] | None, layers: int | None,
                  cr: comm.CommResult) -> dict[str, RankKindSummary]:
    """One rank's steps per kind (2+ ranks): its attribution figures, collectives and time in them."""
    t = tab[tab["rank"] == rank]
    c = colls[colls["rank"] == rank] if len(colls) else colls
    out = {}
    for kind in KINDS:
        all_k, k = kind_steps(t, kind)
        if not len(all_k):
            continue
        a = attribute.section(all_k, k, buckets, what_if)
        out[kind] = RankKindSummary(
            steps=a.steps, median_span_ns=a.median_span_ns, idle_share=a.idle_share, bucket_share=a.bucket_share,
            exposed_share=a.exposed_share, speedup_bound_if_removed=a.speedup_bound_if_removed,
            collectives=attribute.collective_counts(c, k, layers), comm=cr.by_rank.get(rank, {}).get(kind))
    return out


def _instances(results: list[RankResult], meta: dict[str, Any]) -> pd.DataFrame:
    """Every rank's collective instances in one table, as comm.instances makes it for the whole
    trace: step_row into the merged step table, rows in (start_ns, end_ns) order, group sizes the
    trace does not give set to the job's world size."""
    parts, offset = [], 0
    for r in results:  # merge's order: the rows of r.steps start at `offset`
        if len(r.instances):
            row = r.instances["step_row"].to_numpy(np.int64)
            parts.append(r.instances.assign(step_row=np.where(row >= 0, row + offset, -1)))
        offset += len(r.steps)
    if not parts:
        return pd.DataFrame({c: pd.Series([], dtype=object) for c in comm.INSTANCE_COLUMNS})
    inst = pd.concat(parts, ignore_index=True) if len(parts) > 1 else parts[0]
    inst = inst.sort_values(["start_ns", "end_ns"], kind="stable", ignore_index=True)
    world = meta.get("world_size") or len(meta.get("ranks") or []) or 1
    gs = inst["group_size"].to_numpy(np.int64)
    return inst.assign(group_size=np.where(gs > 0, gs, int(world)))


def _concat(frames: list[pd.DataFrame]) -> pd.DataFrame:
    """Concatenate, leaving out empty frames (their object columns would change the dtypes)."""
    full = [f for f in frames if len(f)]
    if not full:
        return frames[0].copy() if frames else pd.DataFrame()
    if len(full) == 1:
        return full[0].reset_index(drop=True)
    out = pd.concat(full, ignore_index=True)
    for c in out.columns:  # categoricals with different categories per rank come back as object
        if isinstance(full[0][c].dtype, pd.CategoricalDtype) and not isinstance(out[c].dtype, pd.CategoricalDtype):
            out[c] = out[c].astype("category")
    return out


def _evidence(results: list[RankResult]) -> tuple[str, Note | None, list[Note]]:
    """The step evidence of the report, why (ranks whose why differs only in counts say it once,
    counts summed), and a note when ranks used different evidence."""
    evs = [r.evidence for r in results]
    if not evs:
        return "none", None, []
    order = lambda e: EVIDENCE_ORDER.index(e) if e in EVIDENCE_ORDER else len(EVIDENCE_ORDER)  # noqa: E731
    best = min(set(evs), key=order)
    groups: dict[tuple, list[RankResult]] = {}
    for r in results:
        if r.evidence == best:
            key = (r.why.code, r.why.args) if r.why is not None else None
            groups.setdefault(key, []).append(r)
    whys = [(g, merge_notes([[r.why] for r in g if r.why is not None])) for g in groups.values()]
    if len(whys) == 1:
        why = whys[0][1][0] if whys[0][1] else None
    else:
        why = note("why.ranks", *(Note(w[0].code, w[0].counts, w[0].args, tuple(sorted(r.rank for r in g)))
                                  for g, w in whys if w))
    if len(set(evs)) == 1:
        return best, why, []
    parts = tuple((e, tuple(r.rank for r in results if r.evidence == e)) for e in sorted(set(evs), key=order))
    return best, why, [note("evidence.mixed", *parts)]


def top_kernels(rep: Report, kind: str, top: int = 3) -> pd.DataFrame:
    """The heaviest kernels per bucket inside the kind's summarized steps (warm-up excluded, as in
    the summary), from the per-rank kernel totals: bucket, name, total_ns and count over those
    steps, and steps (how many: divide for per-step figures). Ties go to the name sorting first."""
    cols = ["bucket", "name", "total_ns", "count", "steps"]
    s = rep.steps[rep.steps["kind"] == kind]
    steady = bool((~s["warmup"].astype(bool)).any())
    n = max(int((~s["warmup"].astype(bool)).sum()) if steady else len(s), 1)
    kt = rep.kernel_totals
    kt = kt[kt["kind"] == kind]
    if steady:
        kt = kt[~kt["warmup"].astype(bool)]
    if not len(kt):
        return pd.DataFrame(columns=cols)
    g = kt.groupby(["bucket", "name"], sort=True)[["total_ns", "count"]].sum().reset_index()
    out = [g[g["bucket"] == b].nlargest(top, "total_ns") for b in rep.buckets]
    out = [o for o in out if len(o)]
    res = pd.concat(out, ignore_index=True) if out else pd.DataFrame(columns=cols[:-1])
    res["steps"] = n
    return res[cols]
