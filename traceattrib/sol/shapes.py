"""Evidence 1, shapes: the bytes, FLOPs and tokens of each step from the input shapes of the ops
that launched its kernels (torch.profiler with record_shapes=True).

Each op call counts once, however many kernels it launched, in the step of its first kernel; of
a chain of GEMM/attention ops (aten::linear > aten::addmm) the outermost one is the call. Shapes
are parsed once per distinct (op name, input dims, input types), never per op call.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..intervals import pack_keys, sorted_unique
from ..model import Trace
from . import calls
from .calls import ATTN_KNOWN, GEMM_CUSTOM, GEMM_KNOWN

GEMM, ATTN, ATTN_UNKNOWN = 1, 2, 3  # what one distinct call is (attention of unknown layout: 3)


@dataclass
class ShapeWork:
    """Per step (aligned with the step table's rows), from torch record_shapes. NaN = unknown.

    tokens: M of the projections (largest M of a GEMM with a 2-D weight); weight_bytes, kv_bytes,
    activation_bytes, flops; dtype: math dtype of most GEMM FLOPs; coverage: share of the step's
    linear-bucket kernel time whose launching op has shapes (1.0 in eager torch traces, 0 for
    kernels replayed from CUDA graphs); dequant: weights found stored narrower than they are
    multiplied (count of GEMM calls); attn_unknown: attention ops whose K/V layout is not known
    (paged caches, custom ops): their KV bytes and FLOPs are missing; linear_weight_bytes: weight
    bytes as the GEMMs read them (a dequantized weight at its wide dtype); gemm_flops: FLOPs of the
    GEMMs alone.
    """

    tokens: np.ndarray
    weight_bytes: np.ndarray
    kv_bytes: np.ndarray
    activation_bytes: np.ndarray
    flops: np.ndarray
    dtype: np.ndarray
    coverage: np.ndarray
    dequant: np.ndarray
    attn_unknown: np.ndarray
    linear_weight_bytes: np.ndarray
    gemm_flops: np.ndarray

    @classmethod
    def unknown(cls, nsteps: int) -> ShapeWork:
        """Every step unknown: NaN work, no coverage."""
        nan = np.full(nsteps, np.nan)
        return cls(tokens=nan.copy(), weight_bytes=nan.copy(), kv_bytes=nan.copy(), activation_bytes=nan.copy(),
                   flops=nan.copy(), dtype=np.full(nsteps, "", object), coverage=np.zeros(nsteps),
                   dequant=np.zeros(nsteps, np.int64), attn_unknown=np.zeros(nsteps, np.int64),
                   linear_weight_bytes=nan.copy(), gemm_flops=nan.copy())


def shape_work(trace: Trace, kernel_step: np.ndarray, nsteps: int,
               kernel_bucket: np.ndarray | pd.Series | None = None) -> ShapeWork:
    """Bytes, FLOPs and tokens per step from the shapes of the ops that launched each step's kernels.

    kernel_step: step row (0..nsteps-1, -1 outside steps) of every row of trace.kernels;
    kernel_bucket: bucket of every kernel (coverage is measured over 'linear' kernels)."""
    res = ShapeWork.unknown(nsteps)
    k, co = trace.kernels, trace.cpu_ops
    if not nsteps or not len(k) or not len(co) or "op_id" not in k.columns or not any_dims(co):
        return res
    kstep = np.asarray(kernel_step, np.int64)
    ops = _OpTable(co)
    launch = _launching_op(k, ops, kstep)
    kroot = _call_of_kernel(ops, launch)
    shaped_k = (kroot >= 0) & ops.has_dims[np.maximum(kroot, 0)]
    res.coverage = _coverage(k, kstep, kernel_bucket, shaped_k, nsteps)
    sel = np.flatnonzero(shaped_k)
    if not sel.size:
        return res
    # op calls: one row per call, in the step of its first kernel
    r_ids, first = unique_first(kroot[sel])
    r_step = kstep[sel][first]
    parsed, inv = _parse_calls(ops, r_ids)
    factor = _stored_width(ops, launch, kstep, parsed, inv, r_step)
    res.dequant = np.bincount(r_step[factor != 1], minlength=nsteps)[:nsteps]
    _step_sums(res, parsed, inv, r_step, factor, nsteps)
    return res


def gemm_kn(trace: Trace, kernel_step: np.ndarray) -> np.ndarray:
    """Per row of trace.kernels, the K and N of the GEMM call that launched it and that call's id
    ((n, 3) int64, -1 when the kernel is outside steps, not a GEMM's or its call has no shapes)."""
    k, co = trace.kernels, trace.cpu_ops
    out = np.full((len(k), 3), -1, np.int64)
    if not len(k) or not len(co) or "op_id" not in k.columns or not any_dims(co):
        return out
    ops = _OpTable(co)
    kroot = _call_of_kernel(ops, _launching_op(k, ops, np.asarray(kernel_step, np.int64)))
    sel = np.flatnonzero((kroot >= 0) & ops.has_dims[np.maximum(kroot, 0)])
    if not sel.size:
        return out
    r = kroot[sel]
    parsed, inv = _parse_calls(ops, r)  # as the speed of light reads them, once per call signature
    kn = np.where((parsed.kind == GEMM)[:, None], np.stack([parsed.k, parsed.n], axis=1), -1)[inv]
    out[sel, :2] = kn
    out[sel, 2] = r
    out[out[:, 0] < 0, 2] = -1
    return out


# --- the op table ----------------------------------------------------------------------------------

def categorical(col: pd.Series) -> pd.Categorical:
    """The column as a Categorical without one Python string per row (categories as str)."""
    c = col.array if isinstance(col.dtype, pd.CategoricalDtype) else pd.Categorical(col.astype(str))
    return pd.Categorical.from_codes(np.asarray(c.codes), categories=pd.Index(np.asarray(c.categories).astype(str)))\
        if len(c.categories) else pd.Categorical.from_codes(np.asarray(c.codes), categories=pd.Index([], dtype=object))


def unique_first(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Sorted unique values of an int64 array and the index of each one's first occurrence (a
    stable sort: numpy 2's hash-based unique is slower on large integer arrays)."""
    o = np.argsort(x, kind="stable")
    xs = x[o]
    keep = np.ones(xs.size, bool)
    keep[1:] = xs[1:] != xs[:-1]
    return xs[keep], o[keep]


def any_dims(cpu_ops: pd.DataFrame) -> bool:
    """Whether any cpu_op carries input shapes (record_shapes=True)."""
    if not len(cpu_ops) or "input_dims" not in cpu_ops.columns:
        return False
    c = categorical(cpu_ops["input_dims"])
    cats = np.asarray(c.categories, dtype=object)
    used = sorted_unique(np.asarray(c.codes, np.int64))
    used = used[used >= 0]
    return bool(used.size and (cats[used] != "").any())


class _OpTable:
    """The cpu_op rows (python_function rows left out) with their name, input dims and input types
    as category codes, and each op's class (calls.op_class)."""

    def __init__(self, cpu_ops: pd.DataFrame):
        self.ops = ops = cpu_ops[(cpu_ops["kind"] == "cpu_op").to_numpy()].reset_index(drop=True)
        names = pd.Categorical(ops["name"])
        self.name_cats = np.asarray(names.categories, dtype=object)
        self.ncode = np.asarray(names.codes, np.int64)
        self.cls_names = calls.op_class(self.name_cats)
        self.cls = np.where(self.ncode >= 0, self.cls_names[np.maximum(self.ncode, 0)] if self.name_cats.size else 0, 0)
        dims, types = categorical(ops["input_dims"]), categorical(ops["input_types"])
        self.dcode, self.tcode = np.asarray(dims.codes, np.int64), np.asarray(types.codes, np.int64)
        self.dims_cats = np.asarray(dims.categories, dtype=object)
        self.types_cats = np.asarray(types.categories, dtype=object)
        self.has_dims = np.where(self.dcode >= 0, self.dims_cats[np.maximum(self.dcode, 0)] != "", False) \
            if self.dims_cats.size else np.zeros(len(ops), bool)

    def threads(self) -> np.ndarray:
        """A code per op for its (rank, pid, tid)."""
        return thread_keys(self.ops)


def thread_keys(ops: pd.DataFrame) -> np.ndarray:
    """One int64 per row for its (rank, pid, tid)."""
    empty = np.empty(0, np.int64)
    return pack_keys([ops[c].to_numpy(np.int64) for c in ("rank", "pid", "tid")], [empty] * 3)[0]


def _launching_op(k: pd.DataFrame, ops: _OpTable, kstep: np.ndarray) -> np.ndarray:
    """Row of `ops` of the op that launched each kernel inside a step ((rank, op_id) = (rank,
    ext_id)); -1 for the others."""
    kid = k["op_id"].to_numpy(np.int64)
    key_ops, kkey = pack_keys([ops.ops["rank"].to_numpy(np.int64), ops.ops["ext_id"].to_numpy(np.int64)],
                              [k["rank"].to_numpy(np.int64), np.maximum(kid, 0)])
    o = np.argsort(key_ops, kind="stable")
    ks = key_ops[o]
    launch = np.full(len(k), -1, np.int64)
    if ks.size:
        pos = np.minimum(np.searchsorted(ks, kkey), ks.size - 1)
        hit = (kid >= 0) & (ks[pos] == kkey) & (kstep >= 0)
        launch[hit] = o[pos[hit]]
    return launch


def parents(ops: pd.DataFrame) -> np.ndarray:
    """Row (into `ops`) of each op's enclosing op on the same thread, -1 for outermost ops.

    `ops` are cpu_op rows; depth is recomputed among them (python_function rows, which
    cpu_ops.depth also counts, are not in the op chain)."""
    from ..intervals import nest_order

    n = len(ops)
    parent = np.full(n, -1, np.int64)
    if not n:
        return parent
    thread = thread_keys(ops)
    start, end = ops["start_ns"].to_numpy(np.int64), ops["end_ns"].to_numpy(np.int64)
    order, _, depth = nest_order(start, end, thread)  # per thread, enclosing ops before what they enclose
    # in that order, an op's parent is the last op one level up before it (properly nested ops)
    for d in range(1, int(depth.max()) + 1):
        child = np.flatnonzero(depth == d)
        up = np.flatnonzero(depth == d - 1)
        if not child.size or not up.size:
            continue
        k = np.searchsorted(up, child) - 1
        ok = k >= 0
        par = up[np.maximum(k, 0)]
        ok &= thread[order][par] == thread[order][child]
        parent[order[child[ok]]] = order[par[ok]]
    return parent


def _call_of_kernel(ops: _OpTable, launch: np.ndarray) -> np.ndarray:
    """Per kernel, the row of the op call its work is read from (-1 none): on its launching op's
    chain, the outermost GEMM/attention op says which it is (the bmm inside a math-path SDPA is
    attention); within that, the outermost op whose input layout is known is read
    (aiter::gemm_a16w16 > aten::linear reads aten::linear), else the outermost one."""
    used = sorted_unique(launch[launch >= 0])
    parent = np.full(len(ops.ops), -1, np.int64)
    if used.size:  # parents only for the threads that launched kernels
        thr = ops.threads()
        sel = np.flatnonzero(np.isin(thr, sorted_unique(thr[used])))
        p = parents(ops.ops.iloc[sel])
        parent[sel] = np.where(p >= 0, sel[np.maximum(p, 0)], -1)
    cls = ops.cls
    top = np.full(used.size, -1, np.int64)
    known_g = np.full(used.size, -1, np.int64)
    known_a = np.full(used.size, -1, np.int64)
    cur = used.copy()
    while (cur >= 0).any():
        c = np.where(cur >= 0, cls[np.maximum(cur, 0)], 0)
        top = np.where(c > 0, cur, top)
        known_g = np.where(c == GEMM_KNOWN, cur, known_g)
        known_a = np.where(c == ATTN_KNOWN, cur, known_a)
        cur = np.where(cur >= 0, parent[np.maximum(cur, 0)], -1)
    top_c = np.where(top >= 0, cls[np.maximum(top, 0)], 0)
    is_gemm = (top_c == GEMM_KNOWN) | (top_c == GEMM_CUSTOM)
    root = np.where(is_gemm & (known_g >= 0), known_g, np.where(~is_gemm & (known_a >= 0), known_a, top))
    root_of = np.full(len(ops.ops), -1, np.int64)
    root_of[used] = root
    return np.where(launch >= 0, root_of[np.maximum(launch, 0)], -1)


def _coverage(k: pd.DataFrame, kstep: np.ndarray, kernel_bucket, shaped_k: np.ndarray, nsteps: int) -> np.ndarray:
    """Per step, the share of its linear-bucket kernel time whose op call has shapes (0 without any)."""
    dur = (k["end_ns"].to_numpy(np.int64) - k["start_ns"].to_numpy(np.int64)).astype(np.float64)
    lin = np.zeros(len(k), bool) if kernel_bucket is None else np.asarray(kernel_bucket == "linear", bool)
    m_all, m_sh = (kstep >= 0) & lin, (kstep >= 0) & lin & shaped_k
    lin_total = np.bincount(kstep[m_all], weights=dur[m_all], minlength=nsteps)[:nsteps]
    lin_sh = np.bincount(kstep[m_sh], weights=dur[m_sh], minlength=nsteps)[:nsteps]
    return np.where(lin_total > 0, lin_sh / np.where(lin_total > 0, lin_total, 1), 0.0)


# --- op calls ------------------------------------------------------------------------------------

@dataclass
class _Parsed:
    """The work of each distinct (name, dims, types) of the op calls; kind GEMM | ATTN |
    ATTN_UNKNOWN | 0 (unreadable). wshape / wshape_r: ids of a GEMM's weight shape and its reverse
    (in shape_ids), -1 for the others; k, n: a GEMM's K and N (-1 unknown)."""

    kind: np.ndarray
    wbytes: np.ndarray
    abytes: np.ndarray
    fl: np.ndarray
    kvb: np.ndarray
    mrows: np.ndarray
    two_d: np.ndarray
    wwidth: np.ndarray
    wshape: np.ndarray
    wshape_r: np.ndarray
    dt: np.ndarray
    shape_ids: dict[tuple, int]
    k: np.ndarray
    n: np.ndarray


def _parse_calls(ops: _OpTable, r_ids: np.ndarray) -> tuple[_Parsed, np.ndarray]:
    """The calls' work, parsed once per distinct (name, dims, types), and each call's index into it."""
    combo = np.stack([ops.ncode[r_ids], ops.dcode[r_ids], ops.tcode[r_ids]], axis=1)
    ukeys, inv = np.unique(combo, axis=0, return_inverse=True)
    nk = len(ukeys)
    p = _Parsed(kind=np.zeros(nk, np.int8), wbytes=np.zeros(nk), abytes=np.zeros(nk), fl=np.zeros(nk),
                kvb=np.zeros(nk), mrows=np.zeros(nk), two_d=np.zeros(nk, bool), wwidth=np.ones(nk),
                wshape=np.full(nk, -1, np.int64), wshape_r=np.full(nk, -1, np.int64), dt=np.full(nk, "", object),
                shape_ids={}, k=np.full(nk, -1, np.int64), n=np.full(nk, -1, np.int64))
    for i, (nc, dc, tc) in enumerate(ukeys):
        nm = str(ops.name_cats[nc])
        d, t = calls.parse_dims(str(ops.dims_cats[dc])), calls.parse_types(str(ops.types_cats[tc]))
        if d is None:
            continue
        if ops.cls_names[nc] in (GEMM_KNOWN, GEMM_CUSTOM):
            g = calls.gemm(nm, d, t)
            if g is None:
                continue
            p.kind[i], p.wbytes[i], p.abytes[i], p.two_d[i], p.mrows[i] = \
                GEMM, g["weight_bytes"], g["act_bytes"], g["two_d"], g["M"]
            p.fl[i], p.dt[i], p.wwidth[i] = g["flops"], g["dtype"], calls.width(g["weight_type"])
            if g["N"] is not None:
                p.k[i], p.n[i] = int(g["K"]), int(g["N"])
            p.wshape[i] = p.shape_ids.setdefault(g["weight_shape"], len(p.shape_ids))
            p.wshape_r[i] = p.shape_ids.setdefault(g["weight_shape"][::-1], len(p.shape_ids))
        else:
            a = calls.attention(nm, d, t)
            if a is None:
                p.kind[i] = ATTN_UNKNOWN
                continue
            p.kind[i], p.kvb[i], p.abytes[i], p.fl[i] = ATTN, a["kv_bytes"], a["act_bytes"], a["flops"]
    return p, inv.reshape(-1)


def _conversions(ops: _OpTable, launch: np.ndarray, kstep: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The ops that launched kernels inside steps (rows of `ops`), the step of each one's first
    kernel, and which of them convert from a narrow dtype (calls.narrow)."""
    lsel = np.flatnonzero(launch >= 0)
    lrow, lfirst = unique_first(launch[lsel])
    is_conv = np.zeros(lrow.size, bool)
    if lrow.size and ops.name_cats.size and ops.types_cats.size:
        conv = calls.ops().convert
        narrow = calls.narrow()
        conv_name = np.array([bool(conv.search(str(n))) for n in ops.name_cats], bool)
        narrow_types = np.array([any(x in narrow for x in calls.parse_types(str(t))) for t in ops.types_cats], bool)
        nc, tc = ops.ncode[lrow], ops.tcode[lrow]
        is_conv = (nc >= 0) & (tc >= 0) & conv_name[np.maximum(nc, 0)] & narrow_types[np.maximum(tc, 0)]
    return lrow, kstep[lsel][lfirst], is_conv


def _stored_width(ops: _OpTable, launch: np.ndarray, kstep: np.ndarray, p: _Parsed, inv: np.ndarray,
                  r_step: np.ndarray) -> np.ndarray:
    """Per call, stored width / multiplied width of its weight: a GEMM whose weight has the shape
    of a conversion from a narrow dtype launched in the same step (dequantized on the fly) reads
    the stored width, not its own (1 for the others)."""
    lrow, lstep, is_conv = _conversions(ops, launch, kstep)
    narrow = calls.narrow()
    narrow_key, narrow_w = [], []
    cdc, ctc = ops.dcode[lrow[is_conv]], ops.tcode[lrow[is_conv]]
    for (dc, tc), idx in pd.Series(np.arange(cdc.size)).groupby([cdc, ctc]).groups.items() if cdc.size else []:
        for dd, tt in zip(calls.parse_dims(str(ops.dims_cats[dc])) or [], calls.parse_types(str(ops.types_cats[tc]))):
            if tt in narrow and calls.is_shape(dd) and len(dd) >= 2 and tuple(dd) in p.shape_ids:
                sid = p.shape_ids[tuple(dd)]
                st = lstep[is_conv][np.asarray(idx)]
                narrow_key.append((st.astype(np.int64) << 32) | sid)
                narrow_w.append(np.full(st.size, calls.width(tt)))
    factor = np.ones(inv.size)
    if not narrow_key:
        return factor
    nkeys = np.concatenate(narrow_key)
    nw = np.concatenate(narrow_w)
    srt = np.argsort(nkeys, kind="stable")
    nkeys, nw = nkeys[srt], nw[srt]
    okind = p.kind[inv]
    for ws in (p.wshape, p.wshape_r):
        q = (r_step.astype(np.int64) << 32) | np.maximum(ws[inv], 0)
        pos = np.minimum(np.searchsorted(nkeys, q), nkeys.size - 1)
        hit = (okind == GEMM) & (ws[inv] >= 0) & (nkeys[pos] == q) & (factor == 1)
        factor[hit] = nw[pos[hit]] / p.wwidth[inv][hit]
    return factor


def _step_sums(res: ShapeWork, p: _Parsed, inv: np.ndarray, r_step: np.ndarray, factor: np.ndarray,
               nsteps: int) -> None:
    """The calls' work summed per step into `res`; a step without a readable GEMM or attention call
    stays unknown."""
    def per_step(v, m):
        return np.bincount(r_step[m], weights=v[m], minlength=nsteps)[:nsteps]

    okind = p.kind[inv]
    gm, am = okind == GEMM, okind == ATTN
    has = np.bincount(r_step[gm | am], minlength=nsteps)[:nsteps] > 0
    res.attn_unknown = np.bincount(r_step[okind == ATTN_UNKNOWN], minlength=nsteps)[:nsteps]
    flo = np.nan_to_num(p.fl[inv])
    res.weight_bytes = np.where(has, per_step(p.wbytes[inv] * factor, gm), np.nan)
    # what the linear kernels themselves read: the operand as the GEMM sees it (a dequantized
    # weight at its wide dtype), for their achieved bandwidth
    res.linear_weight_bytes = np.where(has, per_step(p.wbytes[inv], gm), np.nan)
    # no attention op with a readable layout in the step: its KV bytes are unknown, not zero
    kv_known = (np.bincount(r_step[am], minlength=nsteps)[:nsteps] > 0) | (res.attn_unknown == 0)
    res.kv_bytes = np.where(has & kv_known, per_step(p.kvb[inv], am), np.nan)
    res.activation_bytes = np.where(has, per_step(p.abytes[inv], gm | am), np.nan)
    res.flops = np.where(has, per_step(flo, gm | am), np.nan)
    res.gemm_flops = np.where(has, per_step(flo, gm), np.nan)
    tm = gm & p.two_d[inv]
    if tm.any():
        tok = pd.Series(p.mrows[inv][tm]).groupby(r_step[tm]).max()
        res.tokens[tok.index.to_numpy()] = tok.to_numpy()
    if gm.any():
        f = pd.DataFrame({"s": r_step[gm], "d": p.dt[inv][gm], "f": flo[gm]}).groupby(["s", "d"])["f"].sum()
        best = f.reset_index().sort_values("f", kind="stable").drop_duplicates("s", keep="last")
        res.dtype[best["s"].to_numpy()] = best["d"].to_numpy()
