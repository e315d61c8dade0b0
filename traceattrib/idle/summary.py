"""Idle causes summarized: a kind's section of the report (shares, means, bounds, what the CPU did)
and the notes on the idle split."""
from __future__ import annotations

import numpy as np
import pandas as pd

from ..notes import Note, note
from ..report import IdleLabel, IdleSummary
from ..stats import p90, ratio_bound
from .codes import CAUSE_COLUMNS, CAUSES, HOST, QUEUED_COLUMN, UNEXPLAINED, UNNAMED


def has_causes(steps: pd.DataFrame) -> bool:
    """Whether the steps table holds the idle cause columns."""
    return all(c in steps.columns for c in CAUSE_COLUMNS)


def section(k: pd.DataFrame, labels: pd.DataFrame | None) -> IdleSummary:
    """Idle causes over a kind's summarized steps (the rows of the steps table `k`): shares of
    the span (ratio of sums), mean per step, the no-idle bound and one bound per cause (median and
    p90 of per-step bounds), and what the CPU did in host and sync idle."""
    span = k["span_ns"].to_numpy(np.float64)
    busy = k["busy_ns"].to_numpy(np.float64)
    tot = span.sum()
    per: dict[str, dict[str, float]] = {key: {} for key in (
        "idle_causes_share", "mean_idle_causes_ns", "median_idle_causes_ns", "speedup_bound_if_no_idle_cause",
        "speedup_bound_if_no_idle_cause_p90")}
    no_idle = ratio_bound(span, busy)
    for c, col in zip(CAUSES, CAUSE_COLUMNS):
        x = k[col].to_numpy(np.float64)
        per["idle_causes_share"][c] = float(x.sum() / tot) if tot else 0.0
        per["mean_idle_causes_ns"][c] = float(x.mean()) if len(k) else 0.0
        per["median_idle_causes_ns"][c] = float(np.median(x)) if len(k) else 0.0
        b = ratio_bound(span, span - x)
        per["speedup_bound_if_no_idle_cause"][c] = float(np.median(b)) if len(k) else float("nan")
        per["speedup_bound_if_no_idle_cause_p90"][c] = p90(b)
    qx = k[QUEUED_COLUMN].to_numpy(np.float64) if QUEUED_COLUMN in k else np.zeros(len(k))
    return IdleSummary(
        **per, speedup_bound_if_no_idle=float(np.median(no_idle)) if len(k) else float("nan"),
        speedup_bound_if_no_idle_p90=p90(no_idle), idle_launch_queued_share=float(qx.sum() / tot) if tot else 0.0,
        mean_idle_launch_queued_ns=float(qx.mean()) if len(k) else 0.0,
        top_host_gaps=_top(k, labels, "host"), top_sync_calls=_top(k, labels, "sync"))


def _top(k: pd.DataFrame, labels: pd.DataFrame | None, cause: str, n: int = 5) -> list[IdleLabel]:
    """What the CPU did in the kind's `cause` idle time: name, source, mean ns per step, share of
    that cause's idle time."""
    if labels is None or not len(labels) or not len(k):
        return []
    lab = labels[labels["cause"] == cause]
    lab = lab.merge(k[["rank", "index"]].rename(columns={"index": "step"}), on=["rank", "step"])
    if not len(lab):
        return []
    total = float(k[f"idle_{cause}_ns"].sum())
    g = lab.groupby(["what", "source"], sort=False)["ns"].sum().reset_index()
    g = g.sort_values(["ns", "what"], ascending=[False, True], kind="stable").head(n)
    return [IdleLabel(what=str(r.what), source=str(r.source), mean_ns=float(r.ns / len(k)),
                      share=float(r.ns / total) if total else 0.0) for r in g.itertuples()]


def explain_notes(causes: pd.DataFrame, labels: pd.DataFrame | None, has_launches: bool) -> list[Note]:
    """What to know about the idle split, from its totals: causes holds CAUSE_COLUMNS per step (the
    steps table does), labels as IdleCauses.labels. A function of sums, so that a merge of per-rank
    results (traceattrib.analysis.merge) says what one pass over every rank would."""
    notes: list[Note] = []
    sums = causes[list(CAUSE_COLUMNS)].to_numpy(np.int64)
    if not has_launches:
        notes.append(note("idle.kernel_only"))
    elif sums[:, UNEXPLAINED].sum() > 0.05 * max(sums.sum(), 1):
        notes.append(note("idle.unexplained", sums[:, UNEXPLAINED].sum() / sums.sum()))
    host = sums[:, HOST].sum()
    unnamed = int(labels.loc[(labels["cause"] == "host") & (labels["what"] == UNNAMED), "ns"].sum()) \
        if labels is not None and len(labels) else 0
    if host > 0.05 * max(sums.sum(), 1) and unnamed > host / 2:
        notes.append(note("idle.unnamed_host", unnamed / host))
    return notes
