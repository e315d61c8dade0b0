"""What the GPU did in each step, measured from the trace: tokens (the rows of the step's GEMMs),
query tokens per sequence, sequences and KV length (the shapes of its attention ops and its
embedding lookup), all from torch.profiler's record_shapes; tokens and last-token rows from the
launch grids of kernels that run one block per row (rules/steps.toml [[rows]]); and how much larger
each step's launch grids are than the typical step's for the same kernels (a prefill of 512
tokens launches 100x the blocks of a 4-token decode in every elementwise, norm and gather kernel).
Per step arrays, -1 (or NaN) where the trace does not say. All pure functions of the context.
"""
from __future__ import annotations

import json
from functools import lru_cache
from typing import NamedTuple

import numpy as np
import pandas as pd

from ..intervals import pack_keys, row_keys, unique_inverse
from ..model import Trace
from ..stats import group_medians
from .arrays import name_in, name_matches
from .inputs import Context
from .vocab import attention_layouts, gemm_token_ops

GEMM_OPS = gemm_token_ops()


class Physical(NamedTuple):
    """Per step (-1 / NaN: the trace does not say).

    tokens_shapes: rows of the step's GEMMs (the most common count); last_gemm_rows: rows of its
    last GEMM (the logits of each sequence's last token, when fewer); q_shapes: query tokens per
    sequence of its attention ops (or its embedding lookup's [batch, len] ids); seqs_shapes: the
    sequences they hold; kv_shapes: the keys each query sees (the most common KV length); q_max:
    the most query tokens per sequence of any of its attention ops (a sequence prefilled beside
    decodes, when each sequence's attention is its own op; a varlen op gives its mean only);
    rows_grid: tokens from row kernels' grids (the most common row count); last_rows: rows of the
    step's last row-kernel launch (the last-token gather before the logits, when smaller);
    scale: log2 of the step's launch grids over the typical step's, median over the kernels whose
    grids vary between steps; model: the step holds GEMM or attention kernels (a model forward)."""

    tokens_shapes: np.ndarray
    last_gemm_rows: np.ndarray
    q_shapes: np.ndarray
    seqs_shapes: np.ndarray
    kv_shapes: np.ndarray
    rows_grid: np.ndarray
    last_rows: np.ndarray
    scale: np.ndarray
    model: np.ndarray
    q_max: np.ndarray


def measure(ctx: Context, step: np.ndarray, nsteps: int) -> Physical:
    """Every per-step measurement of this module. step: per op of ctx.ops, its step (-1 outside)."""
    q, seqs, kv, q_max = attention_shapes(ctx.trace, ctx.ops, step, nsteps)
    rows, last = grid_rows(ctx, step, nsteps)
    tokens, last_gemm = gemm_shapes(ctx.trace, ctx.ops, step, nsteps)
    return Physical(tokens_shapes=tokens, last_gemm_rows=last_gemm, q_shapes=q,
                    seqs_shapes=seqs, kv_shapes=kv, rows_grid=rows, last_rows=last,
                    scale=grid_scale(ctx.trace, ctx.ops, step, nsteps), model=model_steps(ctx, step, nsteps),
                    q_max=q_max)


def _kernels(ops: pd.DataFrame, step: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(op rows of the kernels inside steps, their rows in trace.kernels)."""
    rows = np.flatnonzero((ops["kind"] == "kernel").to_numpy() & (step >= 0))
    return rows, ops["src"].to_numpy()[rows]


def _mode(step: np.ndarray, value: np.ndarray, nsteps: int, larger: bool = True) -> np.ndarray:
    """Per step the most common integer value (ties: the larger, or the smaller); -1 where none. The
    plain equivalent: pandas' value_counts per (step, value), sorted by step, count descending and
    value, the first row of each step."""
    out = np.full(nsteps, -1, np.int64)
    if not step.size:
        return out
    step, value = np.asarray(step, np.int64), np.asarray(value, np.int64)
    o = np.lexsort((value, step))
    s, v = step[o], value[o]
    first = np.flatnonzero(np.r_[True, (s[1:] != s[:-1]) | (v[1:] != v[:-1])])
    n, gs, gv = np.diff(np.r_[first, s.size]), s[first], v[first]
    # per step: the largest count, then the larger (or smaller) value: the groups are in value
    # order within a step already, so by their position (no negated values to overflow)
    at = np.arange(gs.size)
    best = np.lexsort((-at if larger else at, -n, gs))
    best = best[np.r_[True, gs[best][1:] != gs[best][:-1]]]
    out[gs[best]] = gv[best]
    return out


# --- shapes ---------------------------------------------------------------------------------------

def _pairs(a: pd.Series, b: pd.Series) -> tuple[np.ndarray, list[tuple[str, str]]]:
    """The distinct (a, b) pairs of two columns of the same rows as texts (categoricals or texts;
    a missing value reads "nan"), in order of first appearance, and each row's index among them."""
    codes, cats = [], []
    for col in (a, b):
        cat = col.astype("category").array
        codes.append(np.asarray(cat.codes, np.int64) + 1)  # 0: missing
        cats.append(cat.categories)
    keys, _ = pd.factorize(row_keys(codes))
    # the first row of each pair: pairs are numbered in order of first appearance
    row = np.flatnonzero(np.r_[keys.size > 0, keys[1:] > np.maximum.accumulate(keys)[:-1]])

    def text(c: pd.Index, i: int) -> str:
        return "nan" if i == 0 else str(c[i - 1])

    # texts of the pairs present only: a column's categories can be many more than its rows use
    return keys, [(text(cats[0], codes[0][r]), text(cats[1], codes[1][r])) for r in row.tolist()]


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


def gemm_shapes(trace: Trace, ops: pd.DataFrame, step: np.ndarray, nsteps: int) -> tuple[np.ndarray, np.ndarray]:
    """Per step, from the rows of the GEMM ops whose kernels it holds (each op counted once): the
    most common row count (tokens; ties: the larger) and the rows of its last GEMM (the lm_head:
    engines that gather each sequence's last token before it multiply one row per sequence); -1
    where no GEMM has shapes. step: per op, its step (-1 outside)."""
    out = np.full(nsteps, -1, np.int64)
    none = (out, out.copy())
    k, c = trace.kernels, trace.cpu_ops
    if not len(k) or not len(c):
        return none
    shaped = ~name_in(c["input_dims"], [""])
    if not shaped.any():
        return none
    rows, src = _kernels(ops, step)
    if not rows.size:
        return none
    op_id = k["op_id"].to_numpy()[src]
    has = op_id >= 0
    if not has.any():
        return none
    # op rows are in time order within a rank: each op's first kernel, and its place in that order
    inst = pd.DataFrame({"rank": k["rank"].to_numpy()[src][has], "ext_id": op_id[has],
                         "step": step[rows][has], "order": rows[has]}).drop_duplicates(["rank", "ext_id"])
    # only GEMM ops have rows (gemm_rows is -1 for the others, which are not counted)
    shapes = c.loc[shaped & name_in(c["name"], GEMM_OPS), ["rank", "ext_id", "name", "input_dims"]]
    inst = inst.merge(shapes, on=["rank", "ext_id"], how="inner")
    if not len(inst):
        return none
    keys, uniq = _pairs(inst["name"], inst["input_dims"])
    m = np.array([gemm_rows(*u) for u in uniq], np.int64)[keys]
    ok = m > 0
    s, m, order = inst["step"].to_numpy()[ok], m[ok], inst["order"].to_numpy()[ok]
    last = out.copy()
    by_time = np.argsort(order, kind="stable")
    u, first = np.unique(s[by_time][::-1], return_index=True)  # the first of each step in reverse: its last
    last[u] = m[by_time][::-1][first]
    return _mode(s, m, nsteps), last


@lru_cache(maxsize=4096)
def attention_dims(op: str, dims: str) -> tuple[int, int, int]:
    """(query tokens per sequence, sequences, keys per query) of one attention op call from its
    input dims text (rules/ops.toml layouts); the embedding lookup's ids [batch, len] give (len,
    batch, -1); (-1, -1, -1) when unknown."""
    try:
        d = json.loads(dims) if dims else None
    except ValueError:
        return -1, -1, -1
    if not isinstance(d, list) or len(d) < 2 or not all(isinstance(x, list) for x in d[:2]):
        return -1, -1, -1
    q, k = d[0], d[1]
    if not all(isinstance(x, int) for x in q + k):
        return -1, -1, -1
    lay = attention_layouts()
    if op == "aten::embedding":
        return (k[1], k[0], -1) if len(k) == 2 else (-1, -1, -1)
    if lay.bhld.search(op) and len(q) >= 3 and len(k) >= 3:
        return q[-2], int(np.prod(q[:-3])) if len(q) > 3 else 1, k[-2]
    if lay.blhd.search(op) and len(q) == 4 and len(k) == 4:
        return q[1], q[0], k[1]
    if lay.varlen.search(op) and len(q) == 3 and len(d) > 3 and isinstance(d[3], list) and len(d[3]) == 1:
        seqs = d[3][0] - 1  # cu_seqlens [sequences + 1]: the mean query length per sequence
        return (q[0] // seqs, seqs, -1) if seqs > 0 and q[0] % seqs == 0 else (-1, -1, -1)
    return -1, -1, -1


def attention_shapes(trace: Trace, ops: pd.DataFrame, step: np.ndarray, nsteps: int
                     ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per step: query tokens per sequence, sequences and KV length of its attention ops (the most
    common; ties: the larger), else its embedding lookup's, and the most query tokens per sequence
    of any of its attention ops; -1 unknown. An op belongs to the step of the first GPU op launched
    inside it on its thread."""
    none = np.full(nsteps, -1, np.int64)
    c = trace.cpu_ops
    if not len(c) or not len(trace.launches):
        return none, none.copy(), none.copy(), none.copy()
    lay = attention_layouts()
    names = c["name"]
    att = (name_matches(names, lay.bhld) | name_matches(names, lay.blhd) | name_matches(names, lay.varlen))
    emb = name_in(names, ["aten::embedding"])
    sel = np.flatnonzero((att | emb) & ~name_in(c["input_dims"], [""]))
    if not sel.size:
        return none, none.copy(), none.copy(), none.copy()
    s = cpu_op_steps(c.iloc[sel], trace.launches, ops, step)
    ok = s >= 0
    if not ok.any():
        return none, none.copy(), none.copy(), none.copy()
    sel, s = sel[ok], s[ok]
    keys, uniq = _pairs(c["name"].iloc[sel], c["input_dims"].iloc[sel])
    got = np.array([attention_dims(*u) for u in uniq], np.int64).reshape(-1, 3)[keys]
    is_att = att[sel]
    out = []
    for col in range(3):
        v = got[:, col]
        a = _mode(s[is_att & (v > 0)], v[is_att & (v > 0)], nsteps)
        e = _mode(s[~is_att & (v > 0)], v[~is_att & (v > 0)], nsteps)
        out.append(np.where(a > 0, a, e))
    q_max = none.copy()
    m = is_att & (got[:, 0] > 0)
    np.maximum.at(q_max, s[m], got[m, 0])
    return out[0], out[1], out[2], q_max


def cpu_op_steps(cpu: pd.DataFrame, launches: pd.DataFrame, ops: pd.DataFrame, step: np.ndarray) -> np.ndarray:
    """Per CPU op: the step of the first GPU op launched inside it (same process and thread), -1
    when none."""
    out = np.full(len(cpu), -1, np.int64)
    row = ops["launch_row"].to_numpy()
    has = (row >= 0) & (step >= 0)
    if not has.any() or not len(cpu):
        return out
    lstep = np.full(len(launches), -1, np.int64)
    lstep[row[has]] = step[has]
    li = np.flatnonzero(lstep >= 0)
    lt, ct = pack_keys([launches[c].to_numpy(np.int64)[li] for c in ("pid", "tid")],
                       [cpu[c].to_numpy(np.int64) for c in ("pid", "tid")])
    # dense thread codes first: the thread and time key then fits in 63 bits, which keeps it ordered
    thread = pd.factorize(np.r_[lt, ct])[0].astype(np.int64)
    lkey, ckey = pack_keys([thread[:li.size], launches["start_ns"].to_numpy(np.int64)[li]],
                           [thread[li.size:], cpu["start_ns"].to_numpy(np.int64)])
    order = np.argsort(lkey, kind="stable")
    lkey, li = lkey[order], li[order]
    # the first launch on the op's thread at or after its start, if it starts before the op ends
    r = li[np.minimum(np.searchsorted(lkey, ckey, side="left"), li.size - 1)]
    cs, ce = cpu["start_ns"].to_numpy(np.int64), cpu["end_ns"].to_numpy(np.int64)
    ls = launches["start_ns"].to_numpy(np.int64)[r]
    inside = ((launches["pid"].to_numpy(np.int64)[r] == cpu["pid"].to_numpy(np.int64))
              & (launches["tid"].to_numpy(np.int64)[r] == cpu["tid"].to_numpy(np.int64))
              & (ls >= cs) & (ls < np.maximum(ce, cs + 1)))
    out[inside] = lstep[r[inside]]
    return out


# --- launch grids ---------------------------------------------------------------------------------

def _blocks(kernels: pd.DataFrame, src: np.ndarray) -> np.ndarray:
    """Thread blocks of each launch (grid x * y * z), at least 1."""
    # picked in the column's own type, then widened: not a widened copy of every kernel's
    g = [np.maximum(kernels[c].to_numpy()[src], 1).astype(np.int64) for c in ("grid_x", "grid_y", "grid_z")]
    g[0] *= g[1]
    g[0] *= g[2]
    return g[0]


def grid_rows(ctx: Context, step: np.ndarray, nsteps: int) -> tuple[np.ndarray, np.ndarray]:
    """Per step from its row kernels (one block per row): the most common row count (tokens; ties:
    the larger) and the rows of its last row-kernel launch; -1 where it runs none."""
    none = np.full(nsteps, -1, np.int64)
    k = ctx.trace.kernels
    if not len(k):
        return none, none.copy()
    is_row = name_matches(k["name"], ctx.vocab.rows)
    if not is_row.any():
        return none, none.copy()
    rows, src = _kernels(ctx.ops, step)
    m = is_row[src]
    if not m.any():
        return none, none.copy()
    rows, src = rows[m], src[m]
    gx = np.maximum(k["grid_x"].to_numpy(np.int64)[src], 1)
    s = step[rows]
    last = none.copy()
    # op rows are in time order within a rank: the first of each step in reverse is its last launch
    u, first = np.unique(s[::-1], return_index=True)
    last[u] = gx[::-1][first]
    return _mode(s, gx, nsteps), last


def grid_scale(trace: Trace, ops: pd.DataFrame, step: np.ndarray, nsteps: int) -> np.ndarray:
    """Per step: log2 of its launch grids over the typical step's of its rank, for the same
    kernels: for every kernel name whose mean blocks per launch differ between the rank's steps
    that run it, log2 of the step's mean over that name's median across them; the step's median
    over those names. NaN where the step runs no such kernel (kernels whose grid never changes say
    nothing of tokens)."""
    out = np.full(nsteps, np.nan)
    rows, src = _kernels(ops, step)
    code = ops["name_code"].to_numpy()[rows]
    ok = code >= 0
    if not ok.any():
        return out
    rows, src, code = rows[ok], src[ok], code[ok]
    # mean blocks per (rank, step, kernel name); blocks are whole numbers, so the float64 sums are
    # exact in any order, and the medians below do not depend on the order of the groups
    cols = [ops["rank"].to_numpy()[rows].astype(np.int64), step[rows].astype(np.int64), code.astype(np.int64)]
    keys, group = unique_inverse(row_keys(cols))
    one = np.empty(keys.size, np.int64)
    one[group] = np.arange(group.size)  # a row of each group
    blocks = _blocks(trace.kernels, src).astype(np.float64)
    mean = np.bincount(group, blocks, keys.size) / np.bincount(group, minlength=keys.size)
    # against the same kernel's steps of the same rank (a rank file analysed alone says the same)
    rank, stp, name = cols[0][one], cols[1][one], cols[2][one]
    same = unique_inverse(row_keys([rank, name]))[1]
    _, med, n, lo, hi = group_medians(same, mean)
    varies = ((n >= 2) & (hi > lo))[same]
    if not varies.any():
        return out
    at, per, *_ = group_medians(stp[varies], np.log2(mean[varies] / med[same][varies]))
    out[at] = per
    return out


def model_steps(ctx: Context, step: np.ndarray, nsteps: int) -> np.ndarray:
    """Per step: True when it holds GEMM or attention kernels (a model's forward, not some other
    GPU program); all True when kernels are not classified."""
    if ctx.model is None:
        return np.ones(nsteps, bool)
    m = ctx.model & (step >= 0)
    return np.bincount(step[m], minlength=nsteps)[:nsteps] > 0
