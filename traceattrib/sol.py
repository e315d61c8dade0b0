"""Speed of light: the bytes and FLOPs a step must move and do at least, the GPU's peaks, and the
physical floor on step time that no optimization can beat.

Per step (bytes, FLOPs, ns; peak_bw in bytes/s, peak_flops in FLOP/s for the step's GEMM dtype):

  bytes          = weight_bytes + kv_bytes
                   weight_bytes: every GEMM's weight operand, read once per op call, at its stored
                   width; kv_bytes: K and V read by every attention op
  flops          = sum over GEMMs of 2*M*N*K + attention (QK^T and PV over the keys each query sees)
  min_step_ns    = max(bytes / peak_bw, flops / peak_flops) * 1e9
  hbm_efficiency = bytes / peak_bw / span          mfu = flops / peak_flops / span

Evidence, best first, and every step says which (`sol_source`):
  "shapes"  torch.profiler with record_shapes=True: input shapes and dtypes of the GEMM and
            attention ops that launched the step's kernels (each op counted once, however many
            kernels it launched; the outermost GEMM/attention op of a chain: aten::linear >
            aten::addmm is one GEMM);
  "model"   a Hugging Face config (`--model`), with `--batch` / `--context` where the trace does not
            hold them: for Nsight Systems exports and CUDA-graph replays, whose kernels carry no shapes;
  "unknown" neither.

Activations (GEMM inputs/outputs, attention Q and O) are reported apart (`sol_activation_bytes`)
and left out of the floor: a fused kernel can keep them on chip, weights and KV it cannot. Embedding
rows (tokens x hidden) are left out too: the gather is not a GEMM, and its bytes are
tokens x hidden x 2, 0.002% of a decode step's bytes in the fixtures.
"""
from __future__ import annotations

import json
import math
import os
import re
import tomllib
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

import numpy as np
import pandas as pd

from .errors import TraceError
from .intervals import sorted_unique
from .model import Trace
from .notes import Note, note
from .report import Finding, SolSummary
from .stats import steady

# --- dtypes ------------------------------------------------------------------------------------

# torch.profiler input type -> (bytes per stored element, values per element, math dtype key)
DTYPES: dict[str, tuple[float, int, str]] = {
    "c10::BFloat16": (2, 1, "bf16"), "c10::Half": (2, 1, "fp16"), "float": (4, 1, "fp32"),
    "double": (8, 1, "fp64"),
    "c10::Float8_e4m3fn": (1, 1, "fp8"), "c10::Float8_e5m2": (1, 1, "fp8"),
    "c10::Float8_e4m3fnuz": (1, 1, "fp8"), "c10::Float8_e5m2fnuz": (1, 1, "fp8"),
    "c10::Float8_e8m0fnu": (1, 1, "fp8"),
    "c10::Float4_e2m1fn_x2": (1, 2, "fp4"),
    "signed char": (1, 1, "int8"), "unsigned char": (1, 1, "int8"), "c10::qint8": (1, 1, "int8"),
    "c10::quint8": (1, 1, "int8"), "c10::quint4x2": (1, 2, "int4"),
    "short int": (2, 1, "int16"), "int": (4, 1, "int32"), "long int": (8, 1, "int64"), "bool": (1, 1, "bool"),
}
# stored widths narrower than the compute dtype: a conversion from one of these inside a step is
# a weight dequantized on the fly, whose stored width is what the step must read
NARROW = frozenset(t for t, (b, _, k) in DTYPES.items() if k in ("fp8", "fp4", "int8", "int4"))
# the math dtype to fall back to when a GPU row has no peak for the step's dtype
FALLBACK = {"fp4": "fp8", "int4": "int8", "int8": "fp8", "fp8": "bf16", "fp16": "bf16", "tf32": "fp32",
            "bf16": "fp16", "fp32": "tf32"}

# --- op vocabulary (torch op names) ------------------------------------------------------------

GEMM_OPS = frozenset({
    "aten::linear", "aten::matmul", "aten::mm", "aten::addmm", "aten::_addmm_activation", "aten::bmm",
    "aten::baddbmm", "aten::_scaled_mm", "aten::_int_mm", "aten::mv", "aten::addmv",
    "aten::_weight_int8pack_mm", "aten::_weight_int4pack_mm"})
CUSTOM_GEMM = re.compile(r"^(?!aten::).*(?:gemm|scaled_mm|_mm$|_mm_|matmul)", re.I)
ATTN_BHLD = re.compile(r"^aten::(?:scaled_dot_product_attention|_scaled_dot_product_\w*attention\w*)$")
ATTN_BLHD = re.compile(r"^aten::_(?:flash|efficient)_attention_forward$|^flash_attn\w*::(?!.*varlen)")
ATTN_VARLEN = re.compile(r"^flash_attn\w*::.*varlen")
ATTN_OTHER = re.compile(r"attention|attn|mha|mla_|fmha|sdpa|paged|flash_fwd|varlen_fwd|batch_prefill|batch_decode",
                        re.I)
CONVERT = re.compile(r"copy|^aten::to$|_to_copy|dequant|cast", re.I)

GEMM, ATTN = 1, 2
# op classes: GEMMs and attention whose input layout is known (aten, flash_attn) or not (custom ops)
GEMM_KNOWN, GEMM_CUSTOM, ATTN_KNOWN, ATTN_CUSTOM = 1, 2, 3, 4


# --- small helpers -----------------------------------------------------------------------------

def _prod(xs) -> int:
    out = 1
    for x in xs:
        out *= int(x)
    return out


def _dims(text: str) -> list | None:
    try:
        v = json.loads(text) if text else None
    except ValueError:
        return None
    return v if isinstance(v, list) else None


def _types(text: str) -> list[str]:
    return [t.strip() for t in str(text).split(",")] if text else []


def _is_shape(d) -> bool:
    return isinstance(d, list) and all(isinstance(x, int) for x in d)


def _width(t: str) -> float:
    return DTYPES.get(t, (2, 1, "bf16"))[0]


def _math(t: str) -> str:
    return DTYPES.get(t, (2, 1, ""))[2]


def parse_rate(text: str | float) -> float:
    """A rate such as '4.8e12', '4.8T', '4.8 TB/s', '989 TFLOPS', '1.2P' as a float (per second)."""
    if isinstance(text, (int, float)):
        v = float(text)
    else:
        m = re.fullmatch(r"\s*([0-9]*\.?[0-9]+(?:[eE][+-]?[0-9]+)?)\s*([kKMGTP]?)\s*(?:i?B/s|FLOP/?S|FLOPs|OPS|/s)?\s*",
                         str(text), re.I)
        if not m:
            raise ValueError(f"{text!r} is not a rate (e.g. 4.8e12, 4.8T, '4.8 TB/s', '989 TFLOPS')")
        scale = {"": 1, "k": 1e3, "m": 1e6, "g": 1e9, "t": 1e12, "p": 1e15}[m.group(2).lower()]
        v = float(m.group(1)) * scale
    if not v > 0 or math.isinf(v):
        raise ValueError(f"{text!r}: a rate must be a positive number")
    return v


# === evidence 1: shapes ========================================================================

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


def _categorical(col: pd.Series) -> pd.Categorical:
    """The column as a Categorical without one Python string per row (categories as str)."""
    c = col.array if isinstance(col.dtype, pd.CategoricalDtype) else pd.Categorical(col.astype(str))
    return pd.Categorical.from_codes(np.asarray(c.codes), categories=pd.Index(np.asarray(c.categories).astype(str)))\
        if len(c.categories) else pd.Categorical.from_codes(np.asarray(c.codes), categories=pd.Index([], dtype=object))


def _unique_first(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Sorted unique values of an int64 array and the index of each one's first occurrence (a
    stable sort: numpy 2's hash-based unique is slower on large integer arrays)."""
    o = np.argsort(x, kind="stable")
    xs = x[o]
    keep = np.ones(xs.size, bool)
    keep[1:] = xs[1:] != xs[:-1]
    return xs[keep], o[keep]


def _any_dims(cpu_ops: pd.DataFrame) -> bool:
    """Whether any cpu_op carries input shapes (record_shapes=True)."""
    if not len(cpu_ops) or "input_dims" not in cpu_ops.columns:
        return False
    c = _categorical(cpu_ops["input_dims"])
    cats = np.asarray(c.categories, dtype=object)
    used = sorted_unique(np.asarray(c.codes, np.int64))
    used = used[used >= 0]
    return bool(used.size and (cats[used] != "").any())


def _op_class(names: np.ndarray) -> np.ndarray:
    """GEMM_KNOWN | GEMM_CUSTOM | ATTN_KNOWN | ATTN_CUSTOM | 0 per op name."""
    out = np.zeros(names.size, np.int8)
    for i, n in enumerate(names):
        n = str(n)
        if n in GEMM_OPS:
            out[i] = GEMM_KNOWN
        elif ATTN_BHLD.search(n) or ATTN_BLHD.search(n) or ATTN_VARLEN.search(n):
            out[i] = ATTN_KNOWN
        elif CUSTOM_GEMM.search(n):
            out[i] = GEMM_CUSTOM
        elif ATTN_OTHER.search(n):
            out[i] = ATTN_CUSTOM
    return out


def _parents(ops: pd.DataFrame) -> np.ndarray:
    """Row (into `ops`) of each op's enclosing op on the same thread, -1 for outermost ops.

    `ops` are cpu_op rows; depth is recomputed among them (python_function rows, which
    cpu_ops.depth also counts, are not in the op chain)."""
    from .intervals import nest_order

    n = len(ops)
    parent = np.full(n, -1, np.int64)
    if not n:
        return parent
    thread = (ops["rank"].to_numpy(np.int64) << 56) ^ (ops["pid"].to_numpy(np.int64) << 28) ^ ops["tid"].to_numpy(np.int64)
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


def _gemm(name: str, dims: list, types: list[str]) -> dict | None:
    """M, N, K, batch and operand sizes of one GEMM call from its input shapes; None if unreadable.

    The weight is the second operand of mm/linear/matmul (F.linear(x, W) is mm(x, W^T)); for
    mv/addmv it is the matrix; for custom ops the largest input."""
    t = list(types) + [""] * (len(dims) - len(types))
    sh = [d if _is_shape(d) else None for d in dims]

    def at(i):
        return sh[i] if i < len(sh) else None

    two_d = True
    bias = None
    if name == "aten::linear":
        a, w, ai, wi = at(0), at(1), 0, 1
        if a is None or w is None or len(w) != 2 or not a:
            return None
        M, K, N, batch = _prod(a[:-1]), a[-1], w[0], 1
        bias = at(2)
    elif name in ("aten::mm", "aten::_int_mm", "aten::_scaled_mm", "aten::addmm", "aten::_addmm_activation"):
        ai = 1 if "addmm" in name else 0
        wi = ai + 1
        a, w = at(ai), at(wi)
        if a is None or w is None or len(a) != 2 or len(w) != 2:
            return None
        M, K, N, batch = a[0], a[1], w[1], 1
    elif name in ("aten::bmm", "aten::baddbmm"):
        ai = 1 if name == "aten::baddbmm" else 0
        wi = ai + 1
        a, w = at(ai), at(wi)
        if a is None or w is None or len(a) != 3 or len(w) != 3:
            return None
        batch, M, K, N = a[0], a[1], a[2], w[2]
        two_d = False
    elif name == "aten::matmul":
        a, w, ai, wi = at(0), at(1), 0, 1
        if not a or not w:
            return None
        K = a[-1]
        if len(w) == 1:
            M, N, batch = _prod(a[:-1]), 1, 1
        elif len(w) == 2:
            M, N, batch = _prod(a[:-1]), w[1], 1
        else:
            ba, bw = a[:-2], w[:-2]
            try:
                batch = _prod(np.broadcast_shapes(tuple(ba), tuple(bw)))
            except ValueError:
                return None
            M, N = (a[-2] if len(a) >= 2 else 1), w[-1]
            two_d = False
    elif name in ("aten::mv", "aten::addmv"):
        wi = 1 if name == "aten::addmv" else 0
        ai = wi + 1
        w, a = at(wi), at(ai)
        if w is None or a is None or len(w) != 2:
            return None
        M, N, K, batch = 1, w[0], w[1], 1
    elif name in ("aten::_weight_int8pack_mm", "aten::_weight_int4pack_mm"):
        a, w, ai, wi = at(0), at(1), 0, 1
        if a is None or w is None or not a:
            return None
        M, K, batch = _prod(a[:-1]), a[-1], 1
        if name == "aten::_weight_int8pack_mm":
            N = w[0]
        else:  # scales_and_zeros: [K/group, N, 2]
            sz = at(3)
            N = sz[1] if sz and len(sz) == 3 else None
            if N is None:
                return None
    else:  # custom GEMM op: the largest input is the weight, the first other 2-D+ input the activation
        cand = [(i, d) for i, d in enumerate(sh) if d is not None and len(d) >= 1]
        if len(cand) < 2:
            return None
        wi = max(cand, key=lambda c: _prod(c[1]) * _width(t[c[0]]))[0]
        acts = [i for i, d in cand if i != wi and len(d) >= 2]
        if not acts:
            return None
        ai = acts[0]
        a, w = sh[ai], sh[wi]
        M, K, batch = _prod(a[:-1]), a[-1], 1
        vals = _prod(w) * DTYPES.get(t[wi], (2, 1, ""))[1]
        N = vals // K if K and vals % K == 0 and _math(t[wi]) not in ("int32", "") else None
    w = sh[wi]
    wbytes = _prod(w) * _width(t[wi])
    if bias is not None and _is_shape(bias) and bias:
        wbytes += _prod(bias) * _width(t[2] if len(t) > 2 else "")
    abytes = _prod(sh[ai]) * _width(t[ai]) if sh[ai] is not None else 0
    flops = 2.0 * batch * M * N * K if N is not None else math.nan
    out_bytes = batch * M * N * _width(t[ai]) if N is not None else 0
    return {"M": M, "two_d": two_d, "weight_shape": tuple(w), "weight_type": t[wi], "weight_bytes": float(wbytes),
            "act_bytes": float(abytes + out_bytes), "flops": flops, "dtype": _math(t[ai]) or _math(t[wi])}


def _attention(name: str, dims: list, types: list[str]) -> dict | None:
    """KV bytes read and FLOPs of one attention call; None when the layout is not known."""
    sh = [d if _is_shape(d) else None for d in dims]
    if len(sh) < 3 or any(x is None or not x for x in sh[:3]):
        return None
    q, k, v = sh[:3]
    wq, wk = _width(types[0] if types else ""), _width(types[1] if len(types) > 1 else "")
    masked = len(sh) > 3 and sh[3] is not None and len(sh[3]) > 0 and ATTN_BHLD.search(name)
    if ATTN_BHLD.search(name) and len(q) >= 3 and len(k) >= 3:
        B, Hq, Lq, D = _prod(q[:-3]), q[-3], q[-2], q[-1]
        Lk, Dv = k[-2], v[-1]
        seqs = B
    elif (ATTN_BLHD.search(name) or ATTN_VARLEN.search(name)) and len(q) == 4 and len(k) == 4:
        B, Lq, Hq, D = q
        Lk, Dv = k[1], v[-1]
        seqs = B
    elif (ATTN_BLHD.search(name) or ATTN_VARLEN.search(name)) and len(q) == 3 and len(k) == 3:
        # varlen: [total tokens, heads, dim]; cu_seqlens [seqs + 1] gives the sequence count
        cu = sh[3] if len(sh) > 3 and sh[3] and len(sh[3]) == 1 else None
        seqs = max(cu[0] - 1, 1) if cu else 1
        Tq, Hq, D = q
        Lq, Lk, Dv, B = Tq / seqs, k[0] / seqs, v[-1], seqs
    else:
        return None
    # causal self-attention (prefill) when queries and keys have one length and no mask is given:
    # query i sees keys 0..i
    pairs = Lq * (Lq + 1) / 2 if (Lq == Lk and Lq > 1 and not masked) else Lq * Lk
    flops = 2.0 * B * Hq * pairs * (D + Dv)
    kv = float(_prod(k) * wk + _prod(v) * wk)
    act = float(_prod(q) * wq * 2)  # Q read, O written (same size)
    return {"kv_bytes": kv, "flops": flops, "act_bytes": act, "seqs": seqs}


def shape_work(trace: Trace, kernel_step: np.ndarray, nsteps: int,
               kernel_bucket: np.ndarray | pd.Series | None = None) -> ShapeWork:
    """Bytes, FLOPs and tokens per step from the shapes of the ops that launched each step's kernels.

    kernel_step: step row (0..nsteps-1, -1 outside steps) of every row of trace.kernels;
    kernel_bucket: bucket of every kernel (coverage is measured over 'linear' kernels).
    Shapes are parsed once per distinct (op name, input dims, input types), never per op call."""
    nan = np.full(nsteps, np.nan)
    res = ShapeWork(tokens=nan.copy(), weight_bytes=nan.copy(), kv_bytes=nan.copy(),
                    activation_bytes=nan.copy(), flops=nan.copy(), dtype=np.full(nsteps, "", object),
                    coverage=np.zeros(nsteps), dequant=np.zeros(nsteps, np.int64),
                    attn_unknown=np.zeros(nsteps, np.int64), linear_weight_bytes=nan.copy(),
                    gemm_flops=nan.copy())
    k, co = trace.kernels, trace.cpu_ops
    if not nsteps or not len(k) or not len(co) or "op_id" not in k.columns:
        return res
    if not _any_dims(co):
        return res
    kstep = np.asarray(kernel_step, np.int64)
    dur = (k["end_ns"].to_numpy(np.int64) - k["start_ns"].to_numpy(np.int64)).astype(np.float64)
    lin = np.zeros(len(k), bool) if kernel_bucket is None else np.asarray(kernel_bucket == "linear", bool)
    ops = co[(co["kind"] == "cpu_op").to_numpy()].reset_index(drop=True)
    names = pd.Categorical(ops["name"])
    name_cats = np.asarray(names.categories, dtype=object)
    ncode = np.asarray(names.codes, np.int64)
    cls_names = _op_class(name_cats)
    cls = np.where(ncode >= 0, cls_names[np.maximum(ncode, 0)] if name_cats.size else 0, 0)
    dims, types = _categorical(ops["input_dims"]), _categorical(ops["input_types"])
    dcode, tcode = np.asarray(dims.codes, np.int64), np.asarray(types.codes, np.int64)
    dims_cats, types_cats = np.asarray(dims.categories, dtype=object), np.asarray(types.categories, dtype=object)
    has_dims = np.where(dcode >= 0, dims_cats[np.maximum(dcode, 0)] != "", False) if dims_cats.size else \
        np.zeros(len(ops), bool)
    # launching op of each kernel: (rank, op_id) -> row of `ops`
    key_ops = (ops["rank"].to_numpy(np.int64) << 40) | ops["ext_id"].to_numpy(np.int64)
    o = np.argsort(key_ops, kind="stable")
    ks = key_ops[o]
    kid = k["op_id"].to_numpy(np.int64)
    kkey = (k["rank"].to_numpy(np.int64) << 40) | np.maximum(kid, 0)
    launch = np.full(len(k), -1, np.int64)
    if ks.size:
        pos = np.minimum(np.searchsorted(ks, kkey), ks.size - 1)
        hit = (kid >= 0) & (ks[pos] == kkey) & (kstep >= 0)
        launch[hit] = o[pos[hit]]
    # root: the outermost GEMM/attention op on each launching op's chain (parents only for the
    # threads that launched kernels)
    used = sorted_unique(launch[launch >= 0])
    parent = np.full(len(ops), -1, np.int64)
    if used.size:
        thr = (ops["rank"].to_numpy(np.int64) << 56) ^ (ops["pid"].to_numpy(np.int64) << 28) ^ \
            ops["tid"].to_numpy(np.int64)
        sel = np.flatnonzero(np.isin(thr, sorted_unique(thr[used])))
        p = _parents(ops.iloc[sel])
        parent[sel] = np.where(p >= 0, sel[np.maximum(p, 0)], -1)
    # The outermost GEMM/attention op of the chain says which it is (the bmm inside a math-path
    # SDPA is attention); within that, the outermost op whose input layout is known is read
    # (aiter::gemm_a16w16 > aten::linear reads aten::linear), else the outermost one.
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
    root_of = np.full(len(ops), -1, np.int64)
    root_of[used] = root
    kroot = np.where(launch >= 0, root_of[np.maximum(launch, 0)], -1)
    # coverage: linear-bucket kernel time whose op call has shapes
    shaped_k = (kroot >= 0) & has_dims[np.maximum(kroot, 0)]
    m_all, m_sh = (kstep >= 0) & lin, (kstep >= 0) & lin & shaped_k
    lin_total = np.bincount(kstep[m_all], weights=dur[m_all], minlength=nsteps)[:nsteps]
    lin_sh = np.bincount(kstep[m_sh], weights=dur[m_sh], minlength=nsteps)[:nsteps]
    res.coverage = np.where(lin_total > 0, lin_sh / np.where(lin_total > 0, lin_total, 1), 0.0)
    # op calls: one row per root, in the step of its first kernel
    sel = np.flatnonzero(shaped_k)
    if not sel.size:
        return res
    r_ids, first = _unique_first(kroot[sel])
    r_step = kstep[sel][first]
    # parse once per distinct (name, dims, types)
    combo = np.stack([ncode[r_ids], dcode[r_ids], tcode[r_ids]], axis=1)
    ukeys, inv = np.unique(combo, axis=0, return_inverse=True)
    inv = inv.reshape(-1)
    shape_ids: dict[tuple, int] = {}
    nk = len(ukeys)
    kind = np.zeros(nk, np.int8)          # 1 gemm, 2 attention, 3 attention with unknown layout
    wbytes, abytes, fl, kvb, mrows = (np.zeros(nk) for _ in range(5))
    two_d = np.zeros(nk, bool)
    wwidth = np.ones(nk)
    wshape, wshape_r = np.full(nk, -1, np.int64), np.full(nk, -1, np.int64)
    dt = np.full(nk, "", object)
    for i, (nc, dc, tc) in enumerate(ukeys):
        nm, d, t = str(name_cats[nc]), _dims(str(dims_cats[dc])), _types(str(types_cats[tc]))
        if d is None:
            continue
        if cls_names[nc] in (GEMM_KNOWN, GEMM_CUSTOM):
            g = _gemm(nm, d, t)
            if g is None:
                continue
            kind[i], wbytes[i], abytes[i], two_d[i], mrows[i] = GEMM, g["weight_bytes"], g["act_bytes"], g["two_d"], g["M"]
            fl[i], dt[i], wwidth[i] = g["flops"], g["dtype"], _width(g["weight_type"])
            wshape[i] = shape_ids.setdefault(g["weight_shape"], len(shape_ids))
            wshape_r[i] = shape_ids.setdefault(g["weight_shape"][::-1], len(shape_ids))
        else:
            a = _attention(nm, d, t)
            if a is None:
                kind[i] = 3
                continue
            kind[i], kvb[i], abytes[i], fl[i] = ATTN, a["kv_bytes"], a["act_bytes"], a["flops"]
    okind = kind[inv]
    # stored widths: conversions from a narrow dtype launched inside the step (dequantize on the
    # fly); a GEMM whose weight has the converted shape reads the stored width, not its own
    lsel = np.flatnonzero(launch >= 0)
    lrow, lfirst = _unique_first(launch[lsel])
    lstep = kstep[lsel][lfirst]
    conv_name = np.array([bool(CONVERT.search(str(n))) for n in name_cats], bool)
    narrow_types = np.array([any(x in NARROW for x in _types(str(t))) for t in types_cats], bool)
    is_conv = np.zeros(lrow.size, bool)
    if lrow.size and name_cats.size and types_cats.size:
        nc, tc = ncode[lrow], tcode[lrow]
        is_conv = (nc >= 0) & (tc >= 0) & conv_name[np.maximum(nc, 0)] & narrow_types[np.maximum(tc, 0)]
    narrow_key, narrow_w = [], []
    cdc, ctc = dcode[lrow[is_conv]], tcode[lrow[is_conv]]
    for (dc, tc), idx in pd.Series(np.arange(cdc.size)).groupby([cdc, ctc]).groups.items() if cdc.size else []:
        for dd, tt in zip(_dims(str(dims_cats[dc])) or [], _types(str(types_cats[tc]))):
            if tt in NARROW and _is_shape(dd) and len(dd) >= 2 and tuple(dd) in shape_ids:
                sid = shape_ids[tuple(dd)]
                st = lstep[is_conv][np.asarray(idx)]
                narrow_key.append((st.astype(np.int64) << 32) | sid)
                narrow_w.append(np.full(st.size, _width(tt)))
    factor = np.ones(r_ids.size)
    if narrow_key:
        nkeys = np.concatenate(narrow_key)
        nw = np.concatenate(narrow_w)
        srt = np.argsort(nkeys, kind="stable")
        nkeys, nw = nkeys[srt], nw[srt]
        for ws in (wshape, wshape_r):
            q = (r_step.astype(np.int64) << 32) | np.maximum(ws[inv], 0)
            pos = np.minimum(np.searchsorted(nkeys, q), nkeys.size - 1)
            hit = (okind == GEMM) & (ws[inv] >= 0) & (nkeys[pos] == q) & (factor == 1)
            factor[hit] = nw[pos[hit]] / wwidth[inv][hit]
        res.dequant = np.bincount(r_step[factor != 1], minlength=nsteps)[:nsteps]

    def per_step(v, m):
        return np.bincount(r_step[m], weights=v[m], minlength=nsteps)[:nsteps]

    gm, am = okind == GEMM, okind == ATTN
    has = np.bincount(r_step[gm | am], minlength=nsteps)[:nsteps] > 0
    res.attn_unknown = np.bincount(r_step[okind == 3], minlength=nsteps)[:nsteps]
    flo = np.nan_to_num(fl[inv])
    res.weight_bytes = np.where(has, per_step(wbytes[inv] * factor, gm), np.nan)
    # what the linear kernels themselves read: the operand as the GEMM sees it (a dequantized
    # weight at its wide dtype), for their achieved bandwidth
    res.linear_weight_bytes = np.where(has, per_step(wbytes[inv], gm), np.nan)
    # no attention op with a readable layout in the step: its KV bytes are unknown, not zero
    kv_known = (np.bincount(r_step[am], minlength=nsteps)[:nsteps] > 0) | (res.attn_unknown == 0)
    res.kv_bytes = np.where(has & kv_known, per_step(kvb[inv], am), np.nan)
    res.activation_bytes = np.where(has, per_step(abytes[inv], gm | am), np.nan)
    res.flops = np.where(has, per_step(flo, gm | am), np.nan)
    res.gemm_flops = np.where(has, per_step(flo, gm), np.nan)
    tm = gm & two_d[inv]
    if tm.any():
        tok = pd.Series(mrows[inv][tm]).groupby(r_step[tm]).max()
        res.tokens[tok.index.to_numpy()] = tok.to_numpy()
    if gm.any():
        f = pd.DataFrame({"s": r_step[gm], "d": dt[inv][gm], "f": flo[gm]}).groupby(["s", "d"])["f"].sum()
        best = f.reset_index().sort_values("f", kind="stable").drop_duplicates("s", keep="last")
        res.dtype[best["s"].to_numpy()] = best["d"].to_numpy()
    return res


# === evidence 2: a model config ================================================================

@dataclass
class ModelSpec:
    """What the floor needs from a Hugging Face config (full model, before tensor parallelism)."""

    name: str
    layers: int
    hidden: int
    heads: int
    kv_heads: int
    head_dim: int
    vocab: int
    intermediate: int                      # dense MLP width
    gated: bool = True                     # SwiGLU-style MLP: 3 matrices, else 2
    experts: int = 0                       # routed experts per MoE layer
    topk: int = 0
    expert_intermediate: int = 0
    shared_intermediate: int = 0           # shared expert(s), total width
    moe_layer: tuple[bool, ...] = ()
    mla: dict[str, int] | None = None      # q_lora_rank, kv_lora_rank, qk_nope_head_dim, qk_rope_head_dim, v_head_dim
    window: tuple[int | None, ...] = ()    # sliding window per layer (None = full attention)
    dtype_bytes: float = 2.0               # torch_dtype
    weight_bits: float = 16.0              # stored bits per quantized weight, scales included
    quant: str = ""                        # quantization method, "" none
    quant_attention: bool = True           # attention projections quantized too
    kv_bytes: float = 2.0                  # KV cache element width
    compute: str = "bf16"                  # math dtype of the GEMMs
    notes: list[Note] = field(default_factory=list)

    def describe(self) -> str:
        q = f", {self.quant} weights at {self.weight_bits:g} bits" if self.quant else ""
        moe = f", {self.experts} experts top-{self.topk}" if self.experts else ""
        return f"{self.name}: {self.layers} layers, hidden {self.hidden}{moe}{q}"


_TORCH_DTYPE_BYTES = {"bfloat16": 2, "float16": 2, "half": 2, "float32": 4, "float": 4, "float8_e4m3fn": 1}


def load_model(path: str) -> ModelSpec:
    """Read a config.json (or a directory holding one, plus hf_quant_config.json when present)."""
    cfg_path = os.path.join(path, "config.json") if os.path.isdir(path) else path
    if os.path.exists(cfg_path) and not os.path.isfile(cfg_path):  # a FIFO would block the read forever
        raise TraceError(f"{{model}} {path}: not a regular file (give a config.json or a directory holding one)", "model")
    try:
        with open(cfg_path, encoding="utf-8") as f:
            cfg = json.load(f)
    except FileNotFoundError:
        raise TraceError(f"{{model}} {path}: no config.json there", "model") from None
    except (OSError, ValueError) as e:
        raise TraceError(f"{{model}} {path}: cannot read a JSON config ({e})", "model") from None
    if not isinstance(cfg, dict):
        raise TraceError(f"{{model}} {path}: the config is not a JSON object", "model")
    extra = os.path.join(os.path.dirname(cfg_path), "hf_quant_config.json")
    if "quantization_config" not in cfg and os.path.isfile(extra):
        try:
            with open(extra, encoding="utf-8") as f:
                q = json.load(f)
            cfg["quantization_config"] = {"quant_method": "modelopt", **(q.get("quantization") or q)}
        except (OSError, ValueError):
            pass
    name = cfg.get("_name_or_path") or (os.path.basename(os.path.abspath(path)) if os.path.isdir(path)
                                         else os.path.basename(cfg_path))
    return model_from_config(cfg, name=str(name))


def model_from_config(cfg: dict, name: str = "model") -> ModelSpec:
    """A ModelSpec from a config dict (Llama/Mistral/Qwen/Gemma-style dense, Mixtral/Qwen-MoE/
    DeepSeek MoE and MLA, multimodal configs through their text_config)."""
    top = cfg
    if "text_config" in cfg and not any(k in cfg for k in ("num_hidden_layers", "n_layer", "num_layers")):
        cfg = {**cfg["text_config"], **{k: v for k, v in top.items() if k == "quantization_config"}}

    def get(*keys, default=None):
        for k in keys:
            if cfg.get(k) is not None:
                return cfg[k]
        return default

    hidden = get("hidden_size", "n_embd", "d_model")
    layers = get("num_hidden_layers", "n_layer", "num_layers")
    heads = get("num_attention_heads", "n_head")
    vocab = get("vocab_size")
    missing = [n for n, v in (("hidden_size", hidden), ("num_hidden_layers", layers),
                              ("num_attention_heads", heads), ("vocab_size", vocab)) if not isinstance(v, int)]
    if missing:
        raise TraceError(f"{{model}}: the config lacks {', '.join(missing)} (not a decoder LLM config?)", "model")
    kv_heads = get("num_key_value_heads", "num_kv_heads", "n_head_kv", default=heads)
    head_dim = get("head_dim", default=hidden // heads)
    mtype = str(get("model_type", default=""))
    inter = get("intermediate_size", "n_inner", "ffn_dim", default=4 * hidden)
    gated = mtype not in ("gpt2", "opt", "gpt_neox", "falcon", "phi", "bloom", "gptj", "gpt_bigcode", "starcoder2")
    spec = ModelSpec(name=name, layers=int(layers), hidden=int(hidden), heads=int(heads), kv_heads=int(kv_heads),
                     head_dim=int(head_dim), vocab=int(vocab), intermediate=int(inter), gated=gated)
    # MoE
    experts = get("n_routed_experts", "num_local_experts", "num_experts", "moe_num_experts", default=0) or 0
    if experts:
        spec.experts = int(experts)
        spec.topk = int(get("num_experts_per_tok", "experts_per_token", "moe_top_k", default=2))
        spec.expert_intermediate = int(get("moe_intermediate_size", default=inter))
        shared = get("n_shared_experts", default=0) or 0
        spec.shared_intermediate = int(get("shared_expert_intermediate_size", default=0) or
                                       shared * spec.expert_intermediate)
        first_dense = int(get("first_k_dense_replace", default=0) or 0)
        step = int(get("decoder_sparse_step", "moe_layer_freq", "interleave_moe_layer_step", default=1) or 1)
        dense_only = set(get("mlp_only_layers", default=[]) or [])
        spec.moe_layer = tuple(i >= first_dense and (i + 1) % step == 0 and i not in dense_only
                               for i in range(spec.layers))
    else:
        spec.moe_layer = (False,) * spec.layers
    # multi-head latent attention (DeepSeek)
    if get("kv_lora_rank"):
        spec.mla = {k: int(get(k, default=0) or 0) for k in
                    ("q_lora_rank", "kv_lora_rank", "qk_nope_head_dim", "qk_rope_head_dim", "v_head_dim")}
    # sliding windows
    win = get("sliding_window")
    types = get("layer_types")
    if isinstance(types, list) and len(types) == spec.layers:
        spec.window = tuple(int(win) if (win and "sliding" in str(t)) else None for t in types)
    elif win and get("use_sliding_window", default=True) is not False and mtype not in ("qwen2", "qwen2_moe", "qwen3", "qwen3_moe"):
        pat = get("sliding_window_pattern")
        if pat:
            spec.window = tuple(None if (i + 1) % int(pat) == 0 else int(win) for i in range(spec.layers))
        elif mtype == "gemma2":
            spec.window = tuple(int(win) if i % 2 == 0 else None for i in range(spec.layers))
        else:
            spec.window = (int(win),) * spec.layers
    else:
        spec.window = (None,) * spec.layers
    dt = str(get("torch_dtype", "dtype", default="bfloat16")).replace("torch.", "")
    spec.dtype_bytes = float(_TORCH_DTYPE_BYTES.get(dt, 2))
    spec.compute = {"float16": "fp16", "half": "fp16", "float32": "fp32", "float": "fp32"}.get(dt, "bf16")
    spec.weight_bits = spec.dtype_bytes * 8
    spec.kv_bytes = spec.dtype_bytes
    _quantization(spec, cfg.get("quantization_config") or {})
    return spec


def _quantization(spec: ModelSpec, qc: dict) -> None:
    """Stored width of the quantized weights (scales included), KV width and math dtype."""
    if not isinstance(qc, dict) or not qc:
        return
    method = str(qc.get("quant_method") or qc.get("quant_algo") or "").lower()
    spec.quant = method
    skip = [str(s) for s in (qc.get("modules_to_not_convert") or qc.get("ignore") or qc.get("ignored_layers") or [])]
    spec.quant_attention = not any(re.search(r"self_attn|attn|attention", s) and "lm_head" not in s for s in skip)
    bits = None
    if method in ("fp8", "fbgemm_fp8"):
        block = qc.get("weight_block_size")
        bits = 8 + (32 / (block[0] * block[1]) if isinstance(block, list) and len(block) == 2 else 0)
        if str(qc.get("activation_scheme", "dynamic")) in ("dynamic", "static"):
            spec.compute = "fp8"
    elif method == "compressed-tensors":
        groups = qc.get("config_groups") or {}
        g = next(iter(groups.values()), {}) if isinstance(groups, dict) else {}
        w = g.get("weights") or {}
        a = g.get("input_activations") or {}
        nb = int(w.get("num_bits", 8))
        gs = w.get("group_size")
        fmt = str(qc.get("format", ""))
        if "nvfp4" in fmt or (nb == 4 and w.get("type") == "float"):
            bits = 4 + 8 / (gs or 16)                       # fp8 scale per 16 values
        else:
            bits = nb + (16 / gs if gs and gs > 0 else 0)   # bf16 scale per group
        if a:
            abits, atype = int(a.get("num_bits", 16)), str(a.get("type", "float"))
            spec.compute = {8: "fp8" if atype == "float" else "int8", 4: "fp4" if atype == "float" else "int4"}.get(abits, spec.compute)
        kvs = qc.get("kv_cache_scheme") or {}
        if kvs.get("num_bits"):
            spec.kv_bytes = int(kvs["num_bits"]) / 8
    elif method == "modelopt":
        algo = str(qc.get("quant_algo", "")).upper()
        if "FP4" in algo:
            bits, spec.compute = 4 + 8 / int(qc.get("group_size", 16) or 16), "fp4"
        elif "FP8" in algo:
            bits, spec.compute = 8, "fp8"
        elif "W4A8" in algo or "INT4" in algo:
            bits = 4 + 16 / int(qc.get("group_size", 128) or 128)
        if "FP8" in str(qc.get("kv_cache_quant_algo", "")).upper():
            spec.kv_bytes = 1
    elif method in ("gptq", "awq", "gptq_marlin", "awq_marlin", "marlin"):
        nb = int(qc.get("bits", qc.get("w_bit", 4)))
        gs = int(qc.get("group_size", qc.get("q_group_size", 128)) or 128)
        gs = gs if gs > 0 else spec.hidden
        bits = nb + (16 + nb) / gs                          # fp16 scale + packed zero point per group
    elif method == "bitsandbytes":
        if qc.get("load_in_4bit"):
            bits = 4 + (8 + 32 / 256 if qc.get("bnb_4bit_use_double_quant") else 32) / 64
        elif qc.get("load_in_8bit"):
            bits = 8
    elif method == "mxfp4":
        bits = 4 + 8 / 32                                   # e8m0 scale per 32 values
    elif method in ("int8", "w8a8", "smoothquant"):
        bits, spec.compute = 8, "int8"
    if bits is None:
        spec.notes.append(note("sol.quant_unknown", method, float(spec.dtype_bytes)))
        spec.quant = ""
        return
    spec.weight_bits = float(bits)


def tensor_parallel(trace: Trace) -> tuple[int, str]:
    """Tensor-parallel size and the evidence: the largest process-group size of the rank's
    collectives, else the trace's world size, else the ranks it holds."""
    k = trace.kernels
    if "comm_group_size" in k.columns and len(k):
        g = int(k["comm_group_size"].max())
        if g >= 2:
            return g, "the collectives' process-group size"
    ws = trace.meta.get("world_size")
    if isinstance(ws, int) and ws >= 2:
        return ws, "the trace's world size"
    n = len(trace.meta.get("ranks") or [])
    if n >= 2:
        return n, "the ranks in the trace"
    return 1, "a single rank"


def model_work(spec: ModelSpec, tp: int, tokens: float, seqs: float, q_len: float, ctx: float) -> dict[str, float]:
    """Bytes and FLOPs of one forward on one tensor-parallel rank.

    tokens: new tokens in the step (NaN unknown); seqs: sequences; q_len: new tokens per sequence;
    ctx: each sequence's length after the step (keys attention reads; NaN unknown). Weights: every
    projection of every layer and the lm_head (vocabulary sharded over TP ranks, as vLLM, SGLang
    and TensorRT-LLM do); MoE layers read the experts the step's tokens are expected to touch under
    uniform routing, E * (1 - (1 - k/E)^tokens). FLOPs: 2 x params x tokens for the layers,
    2 x lm_head x seqs (logits only for each sequence's last token), attention as QK^T + PV."""
    tp = max(int(tp), 1)
    h, hd = spec.hidden, spec.head_dim
    wq = spec.weight_bits / 8 if spec.quant else spec.dtype_bytes
    wa = wq if spec.quant_attention else spec.dtype_bytes
    heads = spec.heads / tp
    if spec.mla:
        m = spec.mla
        qk = m["qk_nope_head_dim"] + m["qk_rope_head_dim"]
        rep = (h * m["q_lora_rank"] if m["q_lora_rank"] else 0) + h * (m["kv_lora_rank"] + m["qk_rope_head_dim"])
        shard = ((m["q_lora_rank"] or h) * spec.heads * qk + m["kv_lora_rank"] * spec.heads *
                 (m["qk_nope_head_dim"] + m["v_head_dim"]) + spec.heads * m["v_head_dim"] * h) / tp
        attn_params = rep + shard
        kv_per_tok = m["kv_lora_rank"] + m["qk_rope_head_dim"]     # latent cache, same on every rank
        qk_d, v_d = (m["kv_lora_rank"] + m["qk_rope_head_dim"], m["kv_lora_rank"]) if q_len == 1 else (qk, m["v_head_dim"])
    else:
        kvh = max(spec.kv_heads / tp, 1.0)                          # fewer KV heads than ranks: replicated
        attn_params = h * heads * hd * 2 + h * kvh * hd * 2
        kv_per_tok = 2 * kvh * hd
        qk_d, v_d = hd, hd
    mats = 3 if spec.gated else 2
    dense = mats * h * spec.intermediate / tp
    expert = mats * h * spec.expert_intermediate / tp
    shared = mats * h * spec.shared_intermediate / tp
    router = h * spec.experts
    t = tokens if tokens == tokens else 1.0                         # unknown tokens: the least (one)
    touched = spec.experts * (1 - (1 - spec.topk / spec.experts) ** t) if spec.experts else 0.0
    wbytes = 0.0
    active = 0.0
    for i in range(spec.layers):
        wbytes += attn_params * wa
        active += attn_params
        if spec.moe_layer and spec.moe_layer[i]:
            wbytes += router * spec.dtype_bytes + (shared + touched * expert) * wq
            active += router + shared + spec.topk * expert
        else:
            wbytes += dense * wq
            active += dense
    lm = spec.vocab * h / tp
    wbytes += lm * spec.dtype_bytes
    kv = flops = gemm = math.nan
    if tokens == tokens and seqs == seqs:
        gemm = 2 * tokens * active + 2 * seqs * lm
    if seqs == seqs and ctx == ctx:
        kv = 0.0
        attn = 0.0
        for i in range(spec.layers):
            n = ctx if spec.window[i] is None else min(ctx, spec.window[i])
            q = min(q_len, n)
            kv += seqs * n * kv_per_tok * spec.kv_bytes
            attn += seqs * 2 * heads * (qk_d + v_d) * (q * (n - q) + q * (q + 1) / 2)
        if tokens == tokens:
            flops = gemm + attn
    else:
        flops = gemm
    return {"weight_bytes": wbytes, "kv_bytes": kv, "flops": flops, "gemm_flops": gemm}


# === peaks =====================================================================================

@dataclass
class Peak:
    """One GPU's peaks: bytes/s and dense FLOP/s per math dtype, with where they come from."""

    name: str
    hbm_Bps: float | None
    flops: dict[str, float]
    source: str

    def flops_for(self, dtype: str) -> tuple[float | None, str]:
        """Peak FLOP/s for a math dtype, falling back to wider dtypes the GPU has; (value, dtype used)."""
        d, seen = dtype or "bf16", set()
        while d and d not in seen:
            if d in self.flops:
                return self.flops[d], d
            seen.add(d)
            d = FALLBACK.get(d, "")
        return None, ""


def load_gpus(path: str | None = None) -> list[dict[str, Any]]:
    text = open(path, encoding="utf-8").read() if path else \
        resources.files("traceattrib").joinpath("rules", "gpus.toml").read_text(encoding="utf-8")
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise TraceError(f"{path or 'gpus.toml'}: invalid TOML ({e})") from None
    return list(doc.get("gpu", []))


def match_gpu(name: str, rows: list[dict[str, Any]] | None = None) -> Peak | None:
    """The first row of rules/gpus.toml whose `match` is found in the GPU name, or None."""
    for r in rows if rows is not None else load_gpus():
        if re.search(r["match"], name or "", re.I):
            return Peak(name=r["name"], hbm_Bps=float(r["hbm_Bps"]),
                        flops={k: float(v) for k, v in r.get("flops", {}).items()}, source=r.get("source", ""))
    return None


def trace_peak(meta: dict, peak_bw: float | None = None, peak_flops: float | None = None) -> tuple[Peak | None, list[str]]:
    """Peaks for a trace's GPU (meta['gpus']), with --peak-bw / --peak-flops taking precedence."""
    notes: list[Note] = []
    gpus = sorted(set(g for g in (meta.get("gpus") or []) if g))
    p = None
    for g in gpus:
        p = match_gpu(g)
        if p:
            break
    if len(gpus) > 1:
        notes.append(note("sol.gpus_differ", tuple(gpus), p.name if p else None))
    if p is None and (peak_bw or peak_flops):
        p = Peak(name=gpus[0] if gpus else "GPU", hbm_Bps=None, flops={}, source="")
    if p is None:
        if gpus:
            notes.append(note("sol.gpu_unknown", gpus[0]))
        return None, notes
    if peak_bw:
        p.hbm_Bps, p.source = float(peak_bw), (p.source + "; " if p.source else "") + "bandwidth from --peak-bw"
    if peak_flops:
        p.flops = {"*": float(peak_flops)}
        p.source = (p.source + "; " if p.source else "") + "FLOP/s from --peak-flops"
    return p, notes


# === per-step columns ==========================================================================

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
                 kernel_bucket: np.ndarray | pd.Series | None, opts: Options | None = None) -> tuple[pd.DataFrame, list[str]]:
    """The step table with the speed-of-light columns added, and notes.

    Columns: tokens (int64, -1 unknown: the step table's where it has them, else from shapes or the
    model), sol_source ('shapes' | 'model' | 'unknown'),
    sol_weight_bytes, sol_kv_bytes, sol_bytes (= weight + kv), sol_activation_bytes, sol_flops,
    sol_dtype (math dtype of the GEMMs), sol_gpu (the rules/gpus.toml row, "" none), peak_bw_Bps,
    peak_flops, min_step_ns, hbm_efficiency, mfu,
    linear_bw_Bps (weight bytes the linear kernels read / linear time), attention_bw_Bps (KV bytes /
    attention time), linear_min_ns (the linear bucket's floor: those bytes at peak bandwidth or the
    GEMM FLOPs at peak, whichever is longer).
    NaN where unknown. The step table must be one rank's or carry a `rank` column."""
    opts = opts or Options()
    n = len(steps)
    out = steps.copy()
    notes: list[Note] = []
    sw = shape_work(trace, kernel_step, n, kernel_bucket)
    shaped = (sw.coverage >= 0.9) & ~np.isnan(sw.weight_bytes)
    tokens = out["tokens"].to_numpy(np.float64) if "tokens" in out.columns else np.full(n, np.nan)
    tokens = np.where((tokens >= 0) & ~np.isnan(tokens), tokens, np.where(shaped, sw.tokens, np.nan))
    src = np.where(shaped, "shapes", "unknown").astype(object)
    wb = np.where(shaped, sw.weight_bytes, np.nan)
    lwb = np.where(shaped, sw.linear_weight_bytes, np.nan)
    kv = np.where(shaped, sw.kv_bytes, np.nan)
    act = np.where(shaped, sw.activation_bytes, np.nan)
    fl = np.where(shaped, sw.flops, np.nan)
    gfl = np.where(shaped, sw.gemm_flops, np.nan)
    dtype = np.where(shaped, sw.dtype, "").astype(object)
    spec = opts.model_spec()
    partial = (~shaped) & (sw.coverage > 0)
    if spec is not None:
        notes += spec.notes
        tp, tp_how = tensor_parallel(trace)
        need = ~shaped
        if need.any():
            mw = _model_steps(out, spec, tp, tokens, opts, need)
            wb = np.where(need, mw["weight_bytes"], wb)
            lwb = np.where(need, mw["weight_bytes"], lwb)
            kv = np.where(need, mw["kv_bytes"], kv)
            fl = np.where(need, mw["flops"], fl)
            gfl = np.where(need, mw["gemm_flops"], gfl)
            tokens = np.where(need & np.isnan(tokens), mw["tokens"], tokens)
            dtype = np.where(need, spec.compute, dtype).astype(object)
            src = np.where(need, "model", src).astype(object)
            if tp > 1:
                notes.append(note("sol.tp", tp, tp_how))
            if np.isnan(mw["kv_bytes"][need]).any():
                notes.append(note("sol.kv_needs_context"))
            if np.isnan(mw["flops"][need]).any():
                notes.append(note("sol.flops_need_tokens"))
        # shapes and model side by side where both exist: say when they disagree
        both = shaped
        if both.any():
            mw2 = _model_steps(out, spec, tp, tokens, opts, both)
            b_s = np.nansum(wb[both])
            b_m = np.nansum(mw2["weight_bytes"][both])
            if b_m > 0 and abs(b_s / b_m - 1) > 0.1:
                notes.append(note("sol.weights_differ", b_s / b_m - 1, b_s / both.sum(), b_m / both.sum()))
    if partial.any() and spec is None:
        notes.append(note("sol.graph_steps", counts=(int(partial.sum()),)))
    if shaped.any() and sw.dequant[shaped].any():
        notes.append(note("sol.dequant"))
    if (sw.attn_unknown[shaped] > 0).any():
        notes.append(note("sol.attention_layout"))
    if not shaped.any() and spec is None and n:
        notes.append(note("sol.unknown", _any_dims(trace.cpu_ops)))
    bytes_ = wb + np.where(np.isnan(kv), 0.0, kv)
    peak, pnotes = trace_peak(trace.meta, opts.peak_bw, opts.peak_flops)
    notes += pnotes
    pbw = np.full(n, peak.hbm_Bps if peak and peak.hbm_Bps else np.nan)
    pfl = np.full(n, np.nan)
    if peak:
        for i in range(n):
            if "*" in peak.flops:
                pfl[i] = peak.flops["*"]
            else:
                v, used = peak.flops_for(dtype[i] or "bf16")
                pfl[i] = v if v else np.nan
    span = out["span_ns"].to_numpy(np.float64) if "span_ns" in out.columns else np.full(n, np.nan)
    with np.errstate(divide="ignore", invalid="ignore"):
        t_mem = bytes_ / pbw * 1e9
        t_fl = fl / pfl * 1e9
        floor = np.fmax(t_mem, t_fl)   # fmax: either alone when the other is unknown
        eff = np.where(span > 0, t_mem / span, np.nan)
        mfu = np.where(span > 0, t_fl / span, np.nan)
        lt = out["linear_time_ns"].to_numpy(np.float64) if "linear_time_ns" in out.columns else np.full(n, np.nan)
        at = out["attention_time_ns"].to_numpy(np.float64) if "attention_time_ns" in out.columns else np.full(n, np.nan)
        lbw = np.where(lt > 0, lwb / lt * 1e9, np.nan)
        # the linear bucket's own floor: the weights its kernels read at peak bandwidth, or its FLOPs
        lmin = np.fmax(lwb / pbw * 1e9, gfl / pfl * 1e9)
        abw = np.where(at > 0, kv / at * 1e9, np.nan)
    over = (floor > span * 1.05) & (span > 0)
    if over.any():
        notes.append(note("sol.floor_over_span", counts=(int(over.sum()), n)))
    cols = {"tokens": np.where(np.isnan(tokens), -1, tokens).astype(np.int64), "sol_source": src, "sol_weight_bytes": wb, "sol_kv_bytes": kv, "sol_bytes": bytes_,
            "sol_activation_bytes": act, "sol_flops": fl, "sol_dtype": dtype,
            "sol_gpu": np.full(n, peak.name if peak else "", object), "peak_bw_Bps": pbw,
            "peak_flops": pfl, "min_step_ns": floor, "hbm_efficiency": eff, "mfu": mfu,
            "linear_bw_Bps": lbw, "attention_bw_Bps": abw, "linear_min_ns": lmin}
    for c, v in cols.items():
        out[c] = v
    return out, _dedupe(notes)


def _dedupe(xs: list[Note]) -> list[Note]:
    seen, out = set(), []
    for x in xs:
        if x not in seen:
            seen.add(x)
            out.append(x)
    return out


def _model_steps(steps: pd.DataFrame, spec: ModelSpec, tp: int, tokens: np.ndarray, opts: Options,
                 rows: np.ndarray) -> dict[str, np.ndarray]:
    """Model-based work of the selected steps. Sequences hold `--context` tokens at each rank's
    first step and one more after every step (a prefill's prompt is `--context` tokens); decode
    steps add one token per sequence (`--batch` sequences, or the step's tokens). Mixed and
    unknown-kind steps are taken as decode steps (a static batch: chunked prefills inside a mixed
    step are not modelled)."""
    n = len(steps)
    res = {k: np.full(n, np.nan) for k in ("weight_bytes", "kv_bytes", "flops", "gemm_flops", "tokens")}
    kind = steps["kind"].astype(str).to_numpy() if "kind" in steps.columns else np.full(n, "unknown", object)
    rank = steps["rank"].to_numpy() if "rank" in steps.columns else np.zeros(n, np.int64)
    start = steps["start_ns"].to_numpy() if "start_ns" in steps.columns else np.arange(n)
    pos = np.zeros(n, np.int64)
    for r in np.unique(rank):
        m = np.flatnonzero(rank == r)
        pos[m[np.argsort(start[m], kind="stable")]] = np.arange(m.size)
    B, C = opts.batch, opts.context
    for i in np.flatnonzero(rows):
        tok = tokens[i]
        if kind[i] == "prefill":
            seqs = B if B else (tok / C if (tok == tok and C) else math.nan)
            q = C if C else (tok / seqs if (tok == tok and seqs == seqs) else math.nan)
            ctx = q
            if tok != tok and seqs == seqs and q == q:
                tok = seqs * q
        else:
            seqs = B if B else tok
            q = 1.0
            if tok != tok and seqs == seqs:
                tok = seqs
            ctx = C + pos[i] if C is not None else math.nan
        w = model_work(spec, tp, tok, seqs, q, ctx)
        for c in ("weight_bytes", "kv_bytes", "flops", "gemm_flops"):
            res[c][i] = w[c]
        res["tokens"][i] = tok
    return res


# === summaries =================================================================================

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
        row = next((r for r in load_gpus() if r["name"] == gpu), None)
        src = [row["source"]] if row else ["the command line"]
        if row and out.peak_bw_Bps is not None and out.peak_bw_Bps != row["hbm_Bps"]:
            src.append("--peak-bw on the command line")
        if row and out.peak_flops is not None and out.peak_flops not in row.get("flops", {}).values():
            src.append("--peak-flops on the command line")
        out.gpu, out.peak_source = gpu, "; ".join(src)
    return out


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
