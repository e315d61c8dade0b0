"""The speed-of-light columns of the step table: per step the work (from shapes, else the model),
the GPU's peaks, and the floor and efficiencies they give."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..model import Trace
from ..notes import Note, note
from .model import ModelSpec, load_model, model_steps, tensor_parallel
from .peaks import Peak, trace_peak
from .shapes import ShapeWork, any_dims, shape_work


@dataclass
class Options:
    """Speed-of-light inputs from the command line: --model, --batch, --context, --peak-bw, --peak-flops."""

    model: str | None = None
    batch: int | None = None
    context: int | None = None
    peak_bw: float | None = None
    peak_flops: float | None = None
    spec: ModelSpec | None = None

    def model_spec(self) -> ModelSpec | None:
        if self.spec is None and self.model:
            self.spec = load_model(self.model)
        return self.spec


STEP_COLUMNS = ("sol_source", "sol_weight_bytes", "sol_kv_bytes", "sol_bytes", "sol_activation_bytes",
                "sol_flops", "sol_dtype", "sol_gpu", "peak_bw_Bps", "peak_flops", "min_step_ns", "hbm_efficiency",
                "mfu", "linear_bw_Bps", "attention_bw_Bps", "linear_min_ns")


def step_columns(steps: pd.DataFrame, trace: Trace, kernel_step: np.ndarray,
                 kernel_bucket: np.ndarray | pd.Series | None, opts: Options | None = None,
                 work: ShapeWork | None = None) -> tuple[pd.DataFrame, list[Note]]:
    """The step table with the speed-of-light columns added, and notes.

    Columns: tokens (int64, -1 unknown: the step table's where it has them, else from shapes or the
    model), sol_source ('shapes' | 'model' | 'unknown'),
    sol_weight_bytes, sol_kv_bytes, sol_bytes (= weight + kv), sol_activation_bytes, sol_flops,
    sol_dtype (math dtype of the GEMMs), sol_gpu (the rules/gpus.toml row, "" none), peak_bw_Bps,
    peak_flops, min_step_ns, hbm_efficiency, mfu,
    linear_bw_Bps (weight bytes the linear kernels read / linear time), attention_bw_Bps (KV bytes /
    attention time), linear_min_ns (the linear bucket's floor: those bytes at peak bandwidth or the
    GEMM FLOPs at peak, whichever is longer).
    NaN where unknown. The step table must be one rank's or carry a `rank` column. work: the
    steps' shape_work when already made (the same arguments)."""
    opts = opts or Options()
    n = len(steps)
    out = steps.copy()
    sw = work if work is not None else shape_work(trace, kernel_step, n, kernel_bucket)
    shaped = (sw.coverage >= 0.9) & ~np.isnan(sw.weight_bytes)
    w = _from_shapes(out, sw, shaped)
    spec = opts.model_spec()
    notes: list[Note] = []
    if spec is not None:
        notes += spec.notes + _from_model(w, out, spec, trace, opts, shaped)
    notes += _evidence_notes(sw, shaped, spec is not None, trace, n)
    peak, pnotes = trace_peak(trace.meta, opts.peak_bw, opts.peak_flops)
    notes += pnotes
    cols = _floor(out, w, peak)
    span = out["span_ns"].to_numpy(np.float64) if "span_ns" in out.columns else np.full(n, np.nan)
    over = (cols["min_step_ns"] > span * 1.05) & (span > 0)
    if over.any():
        notes.append(note("sol.floor_over_span", counts=(int(over.sum()), n)))
    for c, v in cols.items():
        out[c] = v
    return out, _dedupe(notes)


def _from_shapes(out: pd.DataFrame, sw: ShapeWork, shaped: np.ndarray) -> dict[str, np.ndarray]:
    """The work of the steps whose shapes cover them (NaN / "unknown" elsewhere), and tokens: the
    step table's where known, else from shapes."""
    n = len(out)
    tokens = out["tokens"].to_numpy(np.float64) if "tokens" in out.columns else np.full(n, np.nan)
    return {
        "tokens": np.where((tokens >= 0) & ~np.isnan(tokens), tokens, np.where(shaped, sw.tokens, np.nan)),
        "src": np.where(shaped, "shapes", "unknown").astype(object),
        "wb": np.where(shaped, sw.weight_bytes, np.nan),
        "lwb": np.where(shaped, sw.linear_weight_bytes, np.nan),
        "kv": np.where(shaped, sw.kv_bytes, np.nan),
        "act": np.where(shaped, sw.activation_bytes, np.nan),
        "fl": np.where(shaped, sw.flops, np.nan),
        "gfl": np.where(shaped, sw.gemm_flops, np.nan),
        "dtype": np.where(shaped, sw.dtype, "").astype(object)}


def _from_model(w: dict[str, np.ndarray], out: pd.DataFrame, spec: ModelSpec, trace: Trace, opts: Options,
                shaped: np.ndarray) -> list[Note]:
    """The model's work where shapes do not cover a step (into `w`), and where they do, a note when
    the two disagree on weight bytes by more than 10%."""
    notes: list[Note] = []
    tp, tp_how = tensor_parallel(trace)
    need = ~shaped
    if need.any():
        mw = model_steps(out, spec, tp, w["tokens"], opts.batch, opts.context, need)
        for key, col in (("wb", "weight_bytes"), ("lwb", "weight_bytes"), ("kv", "kv_bytes"), ("fl", "flops"),
                         ("gfl", "gemm_flops")):
            w[key] = np.where(need, mw[col], w[key])
        w["tokens"] = np.where(need & np.isnan(w["tokens"]), mw["tokens"], w["tokens"])
        w["dtype"] = np.where(need, spec.compute, w["dtype"]).astype(object)
        w["src"] = np.where(need, "model", w["src"]).astype(object)
        if tp > 1:
            notes.append(note("sol.tp", tp, tp_how))
        if np.isnan(mw["kv_bytes"][need]).any():
            notes.append(note("sol.kv_needs_context"))
        if np.isnan(mw["flops"][need]).any():
            notes.append(note("sol.flops_need_tokens"))
    if shaped.any():
        mw2 = model_steps(out, spec, tp, w["tokens"], opts.batch, opts.context, shaped)
        b_s = np.nansum(w["wb"][shaped])
        b_m = np.nansum(mw2["weight_bytes"][shaped])
        if b_m > 0 and abs(b_s / b_m - 1) > 0.1:
            notes.append(note("sol.weights_differ", b_s / b_m - 1, b_s / shaped.sum(), b_m / shaped.sum()))
    return notes


def _evidence_notes(sw: ShapeWork, shaped: np.ndarray, has_model: bool, trace: Trace, n: int) -> list[Note]:
    """What the shapes could not say: steps replayed from CUDA graphs without a model, weights
    dequantized on the fly, attention of unknown layout, no evidence at all."""
    notes: list[Note] = []
    partial = (~shaped) & (sw.coverage > 0)
    if partial.any() and not has_model:
        notes.append(note("sol.graph_steps", counts=(int(partial.sum()),)))
    if shaped.any() and sw.dequant[shaped].any():
        notes.append(note("sol.dequant"))
    if (sw.attn_unknown[shaped] > 0).any():
        notes.append(note("sol.attention_layout"))
    if not shaped.any() and not has_model and n:
        notes.append(note("sol.unknown", any_dims(trace.cpu_ops)))
    return notes


def _floor(out: pd.DataFrame, w: dict[str, np.ndarray], peak: Peak | None) -> dict[str, np.ndarray]:
    """The columns: work, peaks (FLOP/s for each step's math dtype), the floor (ns) and the
    efficiencies against the step's span and its linear and attention time."""
    n = len(out)
    bytes_ = w["wb"] + np.where(np.isnan(w["kv"]), 0.0, w["kv"])
    pbw = np.full(n, peak.hbm_Bps if peak and peak.hbm_Bps else np.nan)
    pfl = np.full(n, np.nan)
    if peak:
        for i in range(n):
            if "*" in peak.flops:
                pfl[i] = peak.flops["*"]
            else:
                v, used = peak.flops_for(w["dtype"][i] or "bf16")
                pfl[i] = v if v else np.nan

    def col(name: str) -> np.ndarray:
        return out[name].to_numpy(np.float64) if name in out.columns else np.full(n, np.nan)

    span, lt, at = col("span_ns"), col("linear_time_ns"), col("attention_time_ns")
    with np.errstate(divide="ignore", invalid="ignore"):
        t_mem = bytes_ / pbw * 1e9
        t_fl = w["fl"] / pfl * 1e9
        floor = np.fmax(t_mem, t_fl)   # fmax: either alone when the other is unknown
        eff = np.where(span > 0, t_mem / span, np.nan)
        mfu = np.where(span > 0, t_fl / span, np.nan)
        lbw = np.where(lt > 0, w["lwb"] / lt * 1e9, np.nan)
        # the linear bucket's own floor: the weights its kernels read at peak bandwidth, or its FLOPs
        lmin = np.fmax(w["lwb"] / pbw * 1e9, w["gfl"] / pfl * 1e9)
        abw = np.where(at > 0, w["kv"] / at * 1e9, np.nan)
    tokens = w["tokens"]
    return {"tokens": np.where(np.isnan(tokens), -1, tokens).astype(np.int64), "sol_source": w["src"],
            "sol_weight_bytes": w["wb"], "sol_kv_bytes": w["kv"], "sol_bytes": bytes_,
            "sol_activation_bytes": w["act"], "sol_flops": w["fl"], "sol_dtype": w["dtype"],
            "sol_gpu": np.full(n, peak.name if peak else "", object), "peak_bw_Bps": pbw,
            "peak_flops": pfl, "min_step_ns": floor, "hbm_efficiency": eff, "mfu": mfu,
            "linear_bw_Bps": lbw, "attention_bw_Bps": abw, "linear_min_ns": lmin}


def _dedupe(xs: list[Note]) -> list[Note]:
    seen, out = set(), []
    for x in xs:
        if x not in seen:
            seen.add(x)
            out.append(x)
    return out
