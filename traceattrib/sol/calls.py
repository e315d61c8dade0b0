"""One op call's work from its input shapes: which ops are GEMMs and attention (rules/ops.toml),
and the bytes and FLOPs of one GEMM or attention call from the shapes and dtypes torch.profiler
recorded for it (record_shapes=True). Bytes in bytes, FLOPs as counted multiply-adds x 2."""
from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from .. import vocab

# op classes: GEMMs and attention whose input layout is known (aten, flash_attn) or not (custom ops)
GEMM_KNOWN, GEMM_CUSTOM, ATTN_KNOWN, ATTN_CUSTOM = 1, 2, 3, 4


@dataclass(frozen=True)
class OpVocab:
    """rules/ops.toml, compiled."""

    gemm: dict[str, vocab.GemmOp]   # GEMM ops with a known layout, by name
    custom_gemm: re.Pattern
    bhld: re.Pattern
    blhd: re.Pattern
    varlen: re.Pattern
    custom_attention: re.Pattern
    convert: re.Pattern


@lru_cache(maxsize=1)
def ops() -> OpVocab:
    """The packaged op vocabulary (rules/ops.toml)."""
    f = vocab.load("ops", vocab.OpsFile)
    return OpVocab(gemm={g.op: g for g in f.gemm}, custom_gemm=re.compile(f.custom_gemm),
                   bhld=re.compile(f.attention.bhld), blhd=re.compile(f.attention.blhd),
                   varlen=re.compile(f.attention.varlen), custom_attention=re.compile(f.attention.custom),
                   convert=re.compile(f.convert))


# --- dtypes and shapes -----------------------------------------------------------------------------

def width(t: str) -> float:
    """Bytes per stored element of a torch.profiler input type (unknown: 2, as bf16)."""
    d = vocab.dtypes("profiler").get(t)
    return d.bytes if d is not None else 2


def math_dtype(t: str) -> str:
    """Math dtype of a torch.profiler input type ('' unknown)."""
    d = vocab.dtypes("profiler").get(t)
    return d.math if d is not None else ""


def _values(t: str) -> int:
    """Values one stored element holds (unknown: 1)."""
    d = vocab.dtypes("profiler").get(t)
    return d.values if d is not None else 1


@lru_cache(maxsize=1)
def narrow() -> frozenset[str]:
    """Input types stored narrower than any compute dtype: a conversion from one of these inside a
    step is a weight dequantized on the fly, whose stored width is what the step must read."""
    return frozenset(n for n, d in vocab.dtypes("profiler").items() if d.math in ("fp8", "fp4", "int8", "int4"))


def prod(xs) -> int:
    """The product of a shape's dims (1 for no dims)."""
    out = 1
    for x in xs:
        out *= int(x)
    return out


def parse_dims(text: str) -> list | None:
    """The input dims text of a cpu_op as a list (one entry per input), None when unreadable."""
    try:
        v = json.loads(text) if text else None
    except ValueError:
        return None
    return v if isinstance(v, list) else None


def parse_types(text: str) -> list[str]:
    """The input types text of a cpu_op as a list of type names."""
    return [t.strip() for t in str(text).split(",")] if text else []


def is_shape(d) -> bool:
    """Whether one input's dims are a tensor shape (a list of ints)."""
    return isinstance(d, list) and all(isinstance(x, int) for x in d)


def op_class(names: np.ndarray) -> np.ndarray:
    """GEMM_KNOWN | GEMM_CUSTOM | ATTN_KNOWN | ATTN_CUSTOM | 0 per op name."""
    v = ops()
    out = np.zeros(names.size, np.int8)
    for i, n in enumerate(names):
        n = str(n)
        if n in v.gemm:
            out[i] = GEMM_KNOWN
        elif v.bhld.search(n) or v.blhd.search(n) or v.varlen.search(n):
            out[i] = ATTN_KNOWN
        elif v.custom_gemm.search(n):
            out[i] = GEMM_CUSTOM
        elif v.custom_attention.search(n):
            out[i] = ATTN_CUSTOM
    return out


# --- GEMMs -----------------------------------------------------------------------------------------
# Each form reads (M, K, N, batch, 2-D) from the shapes of the activation `a` and weight `w`
# (and the op's other inputs `sh`); None when the shapes do not fit it.

def _linear(a, w, sh):
    if len(w) != 2 or not a:
        return None
    return prod(a[:-1]), a[-1], w[0], 1, True


def _mm(a, w, sh):
    if len(a) != 2 or len(w) != 2:
        return None
    return a[0], a[1], w[1], 1, True


def _bmm(a, w, sh):
    if len(a) != 3 or len(w) != 3:
        return None
    return a[1], a[2], w[2], a[0], False


def _matmul(a, w, sh):
    if not a or not w:
        return None
    if len(w) <= 2:
        return prod(a[:-1]), a[-1], (1 if len(w) == 1 else w[1]), 1, True
    try:
        batch = prod(np.broadcast_shapes(tuple(a[:-2]), tuple(w[:-2])))
    except ValueError:
        return None
    return (a[-2] if len(a) >= 2 else 1), a[-1], w[-1], batch, False


def _grouped(a, w, sh):
    if len(a) != 2 or len(w) != 3:
        return None
    return a[0], a[1], w[2], 1, False  # each row meets one group's matrix: 2 M K N FLOPs


def _mv(a, w, sh):
    if len(w) != 2:
        return None
    return 1, w[1], w[0], 1, True


def _int8pack(a, w, sh):
    if not a:
        return None
    return prod(a[:-1]), a[-1], w[0], 1, True


def _int4pack(a, w, sh):
    sz = sh[3] if len(sh) > 3 else None  # scales_and_zeros: [K/group, N, 2]
    if not a or not sz or len(sz) != 3:
        return None
    return prod(a[:-1]), a[-1], sz[1], 1, True


FORMS = {"linear": _linear, "mm": _mm, "bmm": _bmm, "grouped": _grouped, "matmul": _matmul, "mv": _mv,
         "int8pack": _int8pack, "int4pack": _int4pack}


def _custom(sh, t) -> tuple | None:
    """A GEMM op of unknown layout: its largest input is the weight, the first other 2-D+ input
    the activation; N from the weight's values over K. (ai, wi, M, K, N or None, batch, 2-D)."""
    cand = [(i, d) for i, d in enumerate(sh) if d is not None and len(d) >= 1]
    if len(cand) < 2:
        return None
    wi = max(cand, key=lambda c: prod(c[1]) * width(t[c[0]]))[0]
    acts = [i for i, d in cand if i != wi and len(d) >= 2]
    if not acts:
        return None
    ai = acts[0]
    a, w = sh[ai], sh[wi]
    K = a[-1]
    vals = prod(w) * _values(t[wi])
    N = vals // K if K and vals % K == 0 and math_dtype(t[wi]) not in ("int32", "") else None
    return ai, wi, prod(a[:-1]), K, N, 1, True


def gemm(name: str, dims: list, types: list[str]) -> dict | None:
    """M, K, N (None: unknown), batch and operand sizes of one GEMM call from its input shapes; None if unreadable.

    The weight is the input rules/ops.toml names (F.linear(x, W) is mm(x, W^T)); for custom ops
    the largest input."""
    t = list(types) + [""] * (len(dims) - len(types))
    sh = [d if is_shape(d) else None for d in dims]
    op = ops().gemm.get(name)
    bias = None
    if op is None:
        got = _custom(sh, t)
        if got is None:
            return None
        ai, wi, M, K, N, batch, two_d = got
    else:
        ai, wi = op.input, op.weight
        a, w = (sh[ai] if ai < len(sh) else None), (sh[wi] if wi < len(sh) else None)
        got = FORMS[op.form](a, w, sh) if a is not None and w is not None else None
        if got is None:
            return None
        M, K, N, batch, two_d = got
        if op.bias is not None and op.bias < len(sh):
            bias = sh[op.bias]
    return _operands(sh, t, ai, wi, M, K, N, batch, two_d, bias, op.bias if op is not None else None)


def _operands(sh, t, ai, wi, M, K, N, batch, two_d, bias, bi) -> dict:
    """The call's weight bytes (bias included), activation bytes (input and output), FLOPs and
    math dtype from its dims (N None: FLOPs unknown)."""
    w = sh[wi]
    wbytes = prod(w) * width(t[wi])
    if bias is not None and is_shape(bias) and bias:
        wbytes += prod(bias) * width(t[bi] if len(t) > bi else "")
    abytes = prod(sh[ai]) * width(t[ai]) if sh[ai] is not None else 0
    flops = 2.0 * batch * M * N * K if N is not None else math.nan
    out_bytes = batch * M * N * width(t[ai]) if N is not None else 0
    return {"M": M, "K": K, "N": N, "two_d": two_d, "weight_shape": tuple(w), "weight_type": t[wi], "weight_bytes": float(wbytes),
            "act_bytes": float(abytes + out_bytes), "flops": flops, "dtype": math_dtype(t[ai]) or math_dtype(t[wi])}


# --- attention ---------------------------------------------------------------------------------

def attention(name: str, dims: list, types: list[str]) -> dict | None:
    """KV bytes read and FLOPs of one attention call; None when the layout is not known."""
    v = ops()
    sh = [d if is_shape(d) else None for d in dims]
    if len(sh) < 3 or any(x is None or not x for x in sh[:3]):
        return None
    q, k, vv = sh[:3]
    wq, wk = width(types[0] if types else ""), width(types[1] if len(types) > 1 else "")
    masked = len(sh) > 3 and sh[3] is not None and len(sh[3]) > 0 and v.bhld.search(name)
    if v.bhld.search(name) and len(q) >= 3 and len(k) >= 3:
        B, Hq, Lq, D = prod(q[:-3]), q[-3], q[-2], q[-1]
        Lk, Dv = k[-2], vv[-1]
        seqs = B
    elif (v.blhd.search(name) or v.varlen.search(name)) and len(q) == 4 and len(k) == 4:
        B, Lq, Hq, D = q
        Lk, Dv = k[1], vv[-1]
        seqs = B
    elif (v.blhd.search(name) or v.varlen.search(name)) and len(q) == 3 and len(k) == 3:
        # varlen: [total tokens, heads, dim]; cu_seqlens [seqs + 1] gives the sequence count
        cu = sh[3] if len(sh) > 3 and sh[3] and len(sh[3]) == 1 else None
        seqs = max(cu[0] - 1, 1) if cu else 1
        Tq, Hq, D = q
        Lq, Lk, Dv, B = Tq / seqs, k[0] / seqs, vv[-1], seqs
    else:
        return None
    # causal self-attention (prefill) when queries and keys have one length and no mask is given:
    # query i sees keys 0..i
    pairs = Lq * (Lq + 1) / 2 if (Lq == Lk and Lq > 1 and not masked) else Lq * Lk
    flops = 2.0 * B * Hq * pairs * (D + Dv)
    kv = float(prod(k) * wk + prod(vv) * wk)
    act = float(prod(q) * wq * 2)  # Q read, O written (same size)
    return {"kv_bytes": kv, "flops": flops, "act_bytes": act, "seqs": seqs}
