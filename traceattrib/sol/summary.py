"""A kind's speed of light from the per-step columns (sol.step_columns), and its candidates for
"what to fix first"."""
from __future__ import annotations

import numpy as np
import pandas as pd

from ..report import Finding, SolSummary
from ..stats import steady
from .peaks import load_gpus


def section(steps: pd.DataFrame, kind: str) -> SolSummary:
    """A kind's speed of light from the per-step columns (steady steps, as the other summaries):
    means per step for bytes, FLOPs and the floor; efficiencies are ratios of sums (floor time over
    span), like the bucket shares; bounds are medians over the steps."""
    s = steps[steps["kind"] == kind] if "kind" in steps.columns else steps
    if "warmup" in s.columns and len(s):
        s = steady(s)
    if "sol_source" not in s.columns or not len(s):
        return SolSummary()
    srcs = s["sol_source"].astype(str)
    known = s[srcs != "unknown"]
    if not len(known):
        return SolSummary()
    top = known["sol_source"].astype(str).value_counts().index[0]
    k = known[known["sol_source"].astype(str) == top]
    span = k["span_ns"].to_numpy(np.float64)

    def mean(c):
        v = k[c].to_numpy(np.float64)
        return float(np.nanmean(v)) if (~np.isnan(v)).any() else None

    t_mem = k["sol_bytes"].to_numpy(np.float64) / k["peak_bw_Bps"].to_numpy(np.float64) * 1e9
    t_fl = k["sol_flops"].to_numpy(np.float64) / k["peak_flops"].to_numpy(np.float64) * 1e9
    ok_m, ok_f = ~np.isnan(t_mem), ~np.isnan(t_fl)
    out = SolSummary(
        bytes_per_step=mean("sol_bytes"), flops_per_step=mean("sol_flops"), source=top,
        peak_bw_Bps=mean("peak_bw_Bps"), peak_flops=mean("peak_flops"), min_step_ns=mean("min_step_ns"),
        hbm_efficiency=float(t_mem[ok_m].sum() / span[ok_m].sum()) if ok_m.any() and span[ok_m].sum() > 0 else None,
        mfu=float(t_fl[ok_f].sum() / span[ok_f].sum()) if ok_f.any() and span[ok_f].sum() > 0 else None,
        steps=int(len(k)), steps_unknown=int(len(s) - len(known)),
        weight_bytes_per_step=mean("sol_weight_bytes"), kv_bytes_per_step=mean("sol_kv_bytes"),
        activation_bytes_per_step=mean("sol_activation_bytes"),
        tokens_per_step=float(k["tokens"][k["tokens"] >= 0].mean()) if (k["tokens"] >= 0).any() else None,
        dtype=str(k["sol_dtype"].astype(str).mode().iloc[0]) if len(k) else "",
        mean_span_ns=float(span.mean()),
        memory_time_ns=float(np.mean(t_mem[ok_m])) if ok_m.any() else None,
        compute_time_ns=float(np.mean(t_fl[ok_f])) if ok_f.any() else None)
    lt = k["linear_time_ns"].to_numpy(np.float64) if "linear_time_ns" in k.columns else np.zeros(len(k))
    wb = k["linear_bw_Bps"].to_numpy(np.float64) * lt / 1e9  # bytes the linear kernels read
    m = (lt > 0) & ~np.isnan(wb)
    if m.any():
        out.linear_bw_Bps = float(wb[m].sum() / lt[m].sum() * 1e9)
        out.linear_bw_fraction = out.linear_bw_Bps / out.peak_bw_Bps if out.peak_bw_Bps else None
    at = k["attention_time_ns"].to_numpy(np.float64) if "attention_time_ns" in k.columns else np.zeros(len(k))
    kvb = k["sol_kv_bytes"].to_numpy(np.float64)
    m = (at > 0) & ~np.isnan(kvb)
    if m.any():
        out.attention_bw_Bps = float(kvb[m].sum() / at[m].sum() * 1e9)
    # bounds, median over the steps like every bound in the summary: the whole step at its floor,
    # and the linear kernels at theirs (their exposed time shrunk by linear_min / linear time)
    with np.errstate(divide="ignore", invalid="ignore"):
        floor = k["min_step_ns"].to_numpy(np.float64)
        ok = floor > 0
        out.bound = float(np.median(span[ok] / floor[ok])) if ok.any() else None
        if "linear_min_ns" in k.columns and "linear_exposed_ns" in k.columns:
            lmin = k["linear_min_ns"].to_numpy(np.float64)
            lx = k["linear_exposed_ns"].to_numpy(np.float64)
            ok = (lt > 0) & ~np.isnan(lmin)
            if ok.any():
                saved = lx[ok] * np.clip(1 - lmin[ok] / lt[ok], 0, 1)
                out.linear_min_ns = float(np.mean(lmin[ok]))
                out.linear_bound = float(np.median(span[ok] / (span[ok] - saved)))
    gpu = str(k["sol_gpu"].iloc[0]) if "sol_gpu" in k.columns and len(k) else ""
    if gpu:
        out.gpu, out.peak_source = gpu, _peak_source(gpu, out)
    return out


def _peak_source(gpu: str, out: SolSummary) -> str:
    """Where the peaks came from: the GPU row's source, and the command line for a peak that is
    not the row's."""
    row = next((r for r in load_gpus() if r.name == gpu and r.hbm_Bps is not None), None)
    if row is None:
        return "the command line"
    src = [row.source]
    if out.peak_bw_Bps is not None and out.peak_bw_Bps != row.hbm_Bps:
        src.append("--peak-bw on the command line")
    if out.peak_flops is not None and out.peak_flops not in row.flops.values():
        src.append("--peak-flops on the command line")
    return "; ".join(src)


def candidates(kind: str, sl: SolSummary) -> list[Finding]:
    """Speed-of-light candidates for "what to fix first" (findings.SOURCES):
    - "sol.step": the whole step at its physical floor: bound = span / min_step_ns (median over
      steps), a ceiling on every fix together; args: kind, compute-bound (bool), mean span, floor,
      bytes and FLOPs per step, source, the efficiency (MFU or HBM), GPU;
    - "sol.linear": the linear kernels at their own floor (the weights they read at peak bandwidth,
      or their FLOPs at peak): bound = span / (span - exposed linear time x (1 - floor / linear
      time)); args: their bandwidth, its fraction of peak, their floor per step."""
    if sl.source in (None, "unknown") or not sl.min_step_ns or not sl.bound:
        return []
    compute = (sl.compute_time_ns or 0) > (sl.memory_time_ns or 0)
    eff = sl.mfu if compute else sl.hbm_efficiency
    out = [Finding("sol.step", sl.bound, (kind, compute, sl.mean_span_ns, sl.min_step_ns, sl.bytes_per_step,
                                          sl.flops_per_step or None, sl.source, eff, sl.gpu or None))]
    if sl.linear_bound and sl.linear_bw_fraction:
        out.append(Finding("sol.linear", sl.linear_bound, (sl.linear_bw_Bps, sl.linear_bw_fraction, sl.linear_min_ns)))
    return out
