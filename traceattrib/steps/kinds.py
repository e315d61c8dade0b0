"""What each step is: prefill, decode, mixed or unknown, how many tokens it processed and how many
layers it holds, from the best evidence, each step saying which.

Evidence, best first: the step's name (names.py); tokens from shapes (the M dimension of the
GEMMs, torch traces recorded with record_shapes); attention kernels that only run for one kind
(split-KV/paged decode kernels, varlen/prefill kernels); CUDA-graph replays of the whole model
(decode, unless another source says otherwise; eager steps among them are the prefills); launch
grids (a few steps launching far more thread blocks than the rest are prefills); spans (a few
steps far longer than the rest).
"""
from __future__ import annotations

import json
from functools import lru_cache
from typing import NamedTuple

import numpy as np
import pandas as pd

from ..model import Trace
from ..notes import Note, note
from .arrays import name_in, pair_counts
from .inputs import Context
from .names import name_evidence
from .vocab import gemm_token_ops

GEMM_OPS = gemm_token_ops()


def describe(table: pd.DataFrame, step: np.ndarray, ctx: Context) -> tuple[dict[str, np.ndarray], list[Note]]:
    """Per step: kind, kind_evidence, tokens (-1 unknown) and layers (-1 unknown), as new columns,
    and what the reader should know. table: the step table (table.py: name, rank, start_ns,
    end_ns); step: per op, its row in `table` (-1 outside)."""
    n = len(table)
    ev = name_evidence(table["name"], ctx.vocab)
    named = np.where(ev["kind"].to_numpy() == "none", "unknown", ev["kind"].to_numpy())
    tok = ev["tokens"].to_numpy()
    tokens = np.where(tok > 0, tok, tokens_from_shapes(ctx.trace, ctx.ops, step, n))
    layers = layers_per_step(ctx.ops, step, n, ctx.attention)
    span = (table["end_ns"] - table["start_ns"]).to_numpy(np.float64)
    kind, evidence, notes = infer_kinds(named, tokens, span, step, ctx)
    return {"kind": kind, "kind_evidence": evidence, "tokens": tokens, "layers": layers}, notes


# --- tokens from shapes --------------------------------------------------------------------------

@lru_cache(maxsize=4096)
def gemm_rows(op: str, dims: str) -> int:
    """Rows (tokens) a GEMM op multiplies, from its input dims text; -1 when not a GEMM or unknown."""
    if op not in GEMM_OPS or not dims:
        return -1
    try:
        d = json.loads(dims)
    except ValueError:
        return -1
    try:
        if op in ("aten::mm", "aten::_scaled_mm"):
            return int(d[0][0])
        if op == "aten::addmm":
            return int(d[1][0])
        if op in ("aten::linear", "aten::matmul"):
            return int(np.prod(d[0][:-1])) if len(d[0]) >= 2 else 1
        if op in ("aten::bmm", "aten::baddbmm"):
            x = d[0] if op == "aten::bmm" else d[1]
            return int(x[0] * x[1])
    except (IndexError, TypeError, ValueError):
        return -1
    return -1


def tokens_from_shapes(trace: Trace, ops: pd.DataFrame, step: np.ndarray, nsteps: int) -> np.ndarray:
    """Tokens per step: the most common row count (ties: the larger) of the GEMM ops whose kernels
    the step holds, each op counted once; -1 where no GEMM has shapes. step: per op, its step (-1
    outside)."""
    out = np.full(nsteps, -1, np.int64)
    k, c = trace.kernels, trace.cpu_ops
    if not len(k) or not len(c):
        return out
    shaped = ~name_in(c["input_dims"], [""])
    if not shaped.any():
        return out
    kern = (ops["kind"] == "kernel").to_numpy() & (step >= 0)
    if not kern.any():
        return out
    src = ops["src"].to_numpy()[kern]
    op_id = k["op_id"].to_numpy()[src]
    has = op_id >= 0
    if not has.any():
        return out
    inst = pd.DataFrame({"rank": k["rank"].to_numpy()[src][has], "ext_id": op_id[has],
                         "step": step[kern][has]}).drop_duplicates(["rank", "ext_id"])
    # only GEMM ops have rows (gemm_rows is -1 for the others, which are not counted)
    shapes = c.loc[shaped & name_in(c["name"], GEMM_OPS), ["rank", "ext_id", "name", "input_dims"]]
    inst = inst.merge(shapes, on=["rank", "ext_id"], how="inner")
    if not len(inst):
        return out
    pairs = inst[["name", "input_dims"]].astype(str)
    keys, uniq = pd.factorize(pairs["name"] + "\0" + pairs["input_dims"])
    rows = np.array([gemm_rows(*u.split("\0", 1)) for u in uniq], np.int64)[keys]
    g = pd.DataFrame({"step": inst["step"].to_numpy(), "m": rows})
    g = g[g["m"] > 0]
    if not len(g):
        return out
    cnt = g.groupby(["step", "m"]).size().rename("n").reset_index()
    best = cnt.sort_values(["step", "n", "m"], ascending=[True, False, False]).drop_duplicates("step")
    out[best["step"].to_numpy()] = best["m"].to_numpy()
    return out


# --- layers --------------------------------------------------------------------------------------

def layers_per_step(ops: pd.DataFrame, step: np.ndarray, nsteps: int, attention: np.ndarray | None) -> np.ndarray:
    """Layers each step holds: the most common count (ties: the smaller) among its attention kernel
    names (each layer calls attention once), else among all its kernel names that repeat; -1 none.

    step: per op, its step (-1 outside); attention: per op, True for attention kernels (None: unknown)."""
    out = np.full(nsteps, -1, np.int64)
    kern = (ops["kind"] == "kernel").to_numpy() & (step >= 0)
    for sel in ((kern & attention) if attention is not None else None, kern):
        if sel is None or not sel.any() or (out >= 0).all():
            continue
        cnt = pair_counts(step[sel], ops["name_code"].to_numpy()[sel], ("step", "name", "c"))
        if sel is kern:
            cnt = cnt[cnt["c"] >= 2]
        freq = pair_counts(cnt["step"].to_numpy(), cnt["c"].to_numpy(), ("step", "c", "n"))
        best = freq.sort_values(["step", "n", "c"], ascending=[True, False, True]).drop_duplicates("step")
        todo = out[best["step"].to_numpy()] < 0
        out[best["step"].to_numpy()[todo]] = best["c"].to_numpy()[todo]
    return out


# --- kinds ---------------------------------------------------------------------------------------

Decision = tuple[np.ndarray, str, str]  # (steps, kind, evidence): a rule's verdict on some steps


class _Facts(NamedTuple):
    """What the kind rules read, per step (tokens, span in ns) and per op (step, kernel inside a step)."""

    tokens: np.ndarray
    span: np.ndarray
    sid: np.ndarray
    kern: np.ndarray
    ctx: Context


def infer_kinds(named: np.ndarray, tokens: np.ndarray, span: np.ndarray, step: np.ndarray,
                ctx: Context) -> tuple[np.ndarray, np.ndarray, list[Note]]:
    """Kinds and their evidence for steps whose name said nothing: (kind, evidence, notes).

    named: per step, the kind its name says ('unknown': nothing); tokens: per step (-1 unknown);
    span: per step, end - start (ns); step: per op, its step (-1 outside). Each rule, in order,
    decides some of the steps still unknown."""
    kind = named.astype(object, copy=True)
    ev = np.where(kind != "unknown", "name", "").astype(object)
    notes: list[Note] = []
    if not (kind == "unknown").any():
        return kind, ev, notes
    if ctx.training:
        notes.append(note("steps.training"))
        return kind, ev, notes
    kern = (ctx.ops["kind"] == "kernel").to_numpy() & (step >= 0)
    facts = _Facts(tokens.astype(np.int64, copy=False), span, step, kern, ctx)
    for rule in (_by_tokens, _by_attention, _by_graph_replays, _by_launch_grids, _by_spans):
        for m, k, why in rule(kind == "unknown", facts):
            kind[m], ev[m] = k, why
    inferred = pd.Series(ev[(ev != "name") & (ev != "")]).value_counts()
    if len(inferred):
        notes.append(note("steps.kinds_inferred", *inferred.index, counts=tuple(inferred.to_numpy())))
    return kind, ev, notes


def _by_tokens(todo: np.ndarray, f: _Facts) -> list[Decision]:
    """Decode processes one token per sequence, prefill many: a clear split, or uniform small
    batches over several steps (decode alone)."""
    tok = f.tokens
    known = todo & (tok > 0)
    if known.sum() < 2:
        return []
    tmin = tok[known].min()
    big = known & (tok >= 4 * tmin) & (tok >= 16)
    small = known & ~big
    if big.any() or (tmin <= 256 and known.sum() >= 3):
        return [(big, "prefill", "tokens"), (small, "decode", "tokens")]
    return []


def _by_attention(todo: np.ndarray, f: _Facts) -> list[Decision]:
    """Attention kernels that run for one kind only; where decodes run decode-only kernels, a
    forward running none is a prefill."""
    attention, ops, vocab = f.ctx.attention, f.ctx.ops, f.ctx.vocab
    if not todo.any() or attention is None or not (f.kern & attention).any():
        return []
    n, sid = todo.size, f.sid
    sel = f.kern & attention
    codes = ops["name_code"].to_numpy()[sel]
    cats = f.ctx.trace.kernels["name"].cat.categories
    uc = np.unique(codes[codes >= 0])
    dec = {int(c) for c in uc if vocab.decode_attention.search(cats[c])}
    pre = {int(c) for c in uc if vocab.prefill_attention.search(cats[c])}
    s_dec = np.bincount(sid[sel][np.isin(codes, list(dec))], minlength=n)[:n] > 0
    s_pre = np.bincount(sid[sel][np.isin(codes, list(pre))], minlength=n)[:n] > 0
    s_any = np.bincount(sid[sel], minlength=n)[:n] > 0
    if s_dec.any():
        s_pre |= s_any & ~s_dec
    return [(todo & s_dec & ~s_pre, "decode", "attention kernel"), (todo & s_pre & ~s_dec, "prefill", "attention kernel")]


def _by_graph_replays(todo: np.ndarray, f: _Facts) -> list[Decision]:
    """CUDA-graph replays of the whole model are decode; eager steps among them prefill."""
    if not todo.any():
        return []
    ops, kernels = f.ctx.ops, f.ctx.trace.kernels
    n, sid = todo.size, f.sid
    gk = kernels["graph_id"].notna().to_numpy() if len(kernels) else np.zeros(0, bool)
    graphed = np.zeros(len(ops), bool)
    m = (ops["kind"] == "kernel").to_numpy()
    graphed[m] = gk[ops["src"].to_numpy()[m]]
    graphed |= (ops["kind"] == "graph").to_numpy()
    inside = sid >= 0
    share = np.bincount(sid[inside & graphed], minlength=n)[:n] / np.maximum(np.bincount(sid[inside], minlength=n)[:n], 1)
    if (share >= 0.5).sum() < 2:
        return []
    return [(todo & (share >= 0.5), "decode", "graph replay"), (todo & (share < 0.05), "prefill", "eager among graph replays")]


def _by_launch_grids(todo: np.ndarray, f: _Facts) -> list[Decision]:
    """A few steps launching far more thread blocks than the typical step are prefills."""
    if todo.sum() < 3:
        return []
    kt, ops, n = f.ctx.trace.kernels, f.ctx.ops, todo.size
    blocks = kt["grid_x"].to_numpy(np.int64) * kt["grid_y"].to_numpy(np.int64) * kt["grid_z"].to_numpy(np.int64)
    work = np.bincount(f.sid[f.kern], weights=blocks[ops["src"].to_numpy()[f.kern]], minlength=n)[:n]
    med = np.median(work[todo])
    if med <= 0:
        return []
    big = todo & (work > 4 * med)
    rest = todo & ~big
    if big.any() and rest.sum() >= 2:
        return [(big, "prefill", "launch grid"), (rest, "decode", "launch grid")]
    return []


def _by_spans(todo: np.ndarray, f: _Facts) -> list[Decision]:
    """A few steps far longer than the rest are prefills (a kernel-only trace: a 400 ms prefill
    among 14 ms decodes)."""
    if todo.sum() < 3:
        return []
    med = np.median(f.span[todo])
    big = todo & (f.span > 4 * med)
    rest = todo & ~big
    if big.any() and big.sum() <= rest.sum() / 2:
        return [(big, "prefill", "span"), (rest, "decode", "span")]
    return []
