"""The pipeline in one call: classify -> steps -> attribute -> summary, as a `Report`."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from . import attribute, classify, collectives, comm, findings, idle, sol, steps
from .links import Link
from .model import Trace


@dataclass
class Report:
    """Everything the renderers need. Times in ns.

    steps: per-step wide table (see attribute.Breakdown); collectives: per step and collective;
    kernels: the trace's kernels with `bucket`, `rule` and `step` (-1 outside steps) columns;
    summary: aggregates per step kind (see attribute.summarize); evidence/notes: how steps were
    found and what the reader should know.
    """

    meta: dict[str, Any]
    evidence: str
    steps: pd.DataFrame
    collectives: pd.DataFrame
    kernels: pd.DataFrame
    memops: pd.DataFrame
    summary: dict[str, Any]
    buckets: tuple[str, ...]
    notes: list[str] = field(default_factory=list)
    options: dict[str, Any] = field(default_factory=dict)
    comm: comm.CommResult | None = None  # bytes, bandwidth, wait/transfer, job figures (traceattrib.comm)
    idle_labels: pd.DataFrame | None = None  # idle.IdleCauses.labels: what the CPU did in host/sync idle

    def kind_steps(self, kind: str, steady: bool = True) -> pd.DataFrame:
        s = self.steps[self.steps["kind"] == kind]
        return s[~s["warmup"]] if steady and (~s["warmup"]).any() else s


def analyze(trace: Trace, steps_regex: str | None = None, rules: classify.Rules | None = None,
            what_if: dict[str, float] | None = None, layers: int | None = None,
            sol_options: sol.Options | None = None, link: Link | None = None,
            what_if_links: tuple[Link, ...] = (), model: comm.Model | None = None) -> Report:
    """Run the whole attribution on a loaded trace. sol_options: speed-of-light inputs (--model,
    --batch, --context, --peak-bw, --peak-flops); the floor is computed from shapes without them.
    link: the interconnect bandwidths compare with (default: detected from the GPU names);
    what_if_links: links to project every step on; model: tensor-parallel all-reduce size where the
    trace has no collective arguments (default: from sol_options' --model)."""
    rules = rules if rules is not None else classify.load_rules()
    kc = classify.classify_kernels(trace.kernels, rules)
    mc = classify.classify_memops(trace.memops, rules)
    st = steps.find_steps(trace, steps_regex, kernel_buckets=kc["bucket"], layers=layers)
    codes = attribute.op_buckets(st, kc["bucket"], mc["bucket"])
    bd = attribute.breakdown(st, codes, _comm_text(trace.kernels, kc["bucket"]))
    kstep = _op_step(st, "kernel", len(trace.kernels))
    # speed of light (sol.py): per-step bytes, FLOPs and floor columns in the step table
    bd.steps, sol_notes = sol.step_columns(bd.steps, trace, kstep, kc["bucket"].to_numpy(), sol_options)
    # idle causes (issue 10): per-step columns of the steps table, labels of host/sync idle
    ic = idle.explain(st.ops, st.table, trace.launches, trace.cpu_ops, trace.ranges)
    for c in ic.causes.columns:
        bd.steps[c] = ic.causes[c].to_numpy()
    summary = attribute.summarize(bd, what_if=what_if, layers=layers)
    sol.add_summary(summary, bd.steps)
    idle.add_summary(summary, bd.steps, ic.labels)
    summary["evidence"] = st.evidence
    summary["evidence_why"] = st.why
    kernels = trace.kernels.assign(bucket=kc["bucket"].to_numpy(), rule=kc["rule"].to_numpy(), step=kstep)
    memops = trace.memops.assign(bucket=mc["bucket"].to_numpy(), rule=mc["rule"].to_numpy(),
                                 step=_op_step(st, "memop", len(trace.memops)))
    notes = list(trace.meta.get("notes", [])) + st.notes + bd.notes + sol_notes + ic.notes
    if model is None and sol_options is not None and sol_options.model_spec() is not None:
        spec = sol_options.model_spec()
        model = comm.Model(hidden_size=spec.hidden, dtype_bytes=int(spec.dtype_bytes))
    cr = comm.analyze(kernels, bd.steps, bd.buckets, trace.meta, link=link, what_if_links=what_if_links, model=model)
    summary, colls, cnotes = comm.apply(summary, bd.collectives, cr)
    notes += cnotes
    # what to fix first: every analysis's candidates, communication wait included (findings.py)
    summary["findings"] = findings.findings(summary, extra=comm.opportunities(cr, summary.get("kind")))
    summary["ceiling"] = findings.ceiling(summary)
    other = summary.get("bucket_share", {}).get("other")
    if other is not None:
        notes.append(f"{other:.1%} of the {summary['kind']} step time is in kernels no rule classifies "
                     "(bucket 'other'); see `traceattrib classify` and --rules to add rules")
    return Report(meta=dict(trace.meta), evidence=st.evidence, steps=bd.steps, collectives=colls,
                  kernels=kernels, memops=memops, summary=summary, buckets=bd.buckets, notes=notes,
                  idle_labels=ic.labels,
                  options={"steps_regex": steps_regex, "what_if": what_if or {}, "layers": layers,
                           "sol": sol_options},
                  comm=cr)


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


def _op_step(st: steps.Steps, kind: str, n: int) -> np.ndarray:
    """Step row (into Report.steps) of each row of the source table, -1 outside steps."""
    out = np.full(n, -1, np.int64)
    m = (st.ops["kind"] == kind).to_numpy()
    out[st.ops["src"].to_numpy()[m]] = st.ops["step"].to_numpy()[m]
    return out
