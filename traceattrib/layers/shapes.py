"""Evidence from GEMM shapes: which projection a GEMM is, from its K x N against a model config.

A Hugging Face config (`--model`) says every projection's K x N on one tensor-parallel rank:
column-parallel ones (q/k/v, gate/up, lm_head) split N over the ranks, row-parallel ones (o,
down) split K. Projections of one shape (q and o of a model whose heads fill the hidden size, k
and v, gate and up) are told apart by their order in the layer: the n-th GEMM of a shape in a
layer is the n-th projection of that shape in the order a decoder layer calls them. A layer whose
MLP differs from the config (one wider layer, a different expert width) keeps its names from the
side that equals the hidden size: in from the hidden size is gate/up, out to it is down (experts,
in a layer with a router).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

if TYPE_CHECKING:
    from ..sol.model import ModelSpec

# a fused projection -> its parts: one call where Hugging Face models make two or three
PARTS = {"qkv_proj": ("q_proj", "k_proj", "v_proj"), "gate_up_proj": ("gate_proj", "up_proj")}
MIN_MATCHED = 0.5  # share of a step's shaped GEMMs that must match a projection for the names to count


@dataclass(frozen=True)
class Projections:
    """The projections of one tensor-parallel rank, in the order a layer calls them.

    name, k, n: per projection; reusable: the projection runs many times in a layer (experts);
    outside: it runs outside the layers (lm_head); hidden: the model's hidden size; mlp_in /
    mlp_out: the names a GEMM takes that reads / writes the hidden size but matches no projection."""

    tp: int
    name: tuple[str, ...]
    k: np.ndarray
    n: np.ndarray
    reusable: np.ndarray
    outside: np.ndarray
    hidden: int
    mlp_in: tuple[str, ...]
    mlp_out: tuple[str, ...]


def projections(spec: ModelSpec, tp: int) -> Projections:
    """Every projection's K x N on one of `tp` tensor-parallel ranks (the fused and the separate
    forms both: engines fuse q/k/v and gate/up, Hugging Face models do not)."""
    h, hd = spec.hidden, spec.head_dim
    q, kv = spec.heads * hd // tp, max(spec.kv_heads // tp, 1) * hd
    rows: list[tuple[str, int, int, bool, bool]] = [
        ("qkv_proj", h, q + 2 * kv, False, False), ("q_proj", h, q, False, False), ("k_proj", h, kv, False, False),
        ("v_proj", h, kv, False, False), ("o_proj", q, h, False, False)]
    if spec.experts:
        ei = spec.expert_intermediate // tp
        e = spec.experts
        # per expert (a loop of Linear calls), or all experts in one grouped GEMM, whose weight
        # holds every expert: N read off the weight's size counts them all
        rows += [("router", h, e, False, False), ("experts", h, 2 * ei, True, False),
                 ("experts", h, ei, True, False), ("experts", ei, h, True, False),
                 ("experts", h, e * 2 * ei, True, False), ("experts", h, e * ei, True, False),
                 ("experts", ei, e * h, True, False)]
        if spec.shared_intermediate:
            si = spec.shared_intermediate // tp
            rows += [("gate_up_proj", h, 2 * si, False, False), ("gate_proj", h, si, False, False),
                     ("up_proj", h, si, False, False), ("down_proj", si, h, False, False)]
    if not spec.experts or not all(spec.moe_layer):
        i = spec.intermediate // tp
        if spec.gated:
            rows += [("gate_up_proj", h, 2 * i, False, False), ("gate_proj", h, i, False, False),
                     ("up_proj", h, i, False, False)]
        else:
            rows += [("up_proj", h, i, False, False)]
        rows += [("down_proj", i, h, False, False)]
    rows += [("lm_head", h, -(-spec.vocab // tp), False, True)]
    name, k, n, reusable, outside = zip(*rows)
    return Projections(tp=tp, name=tuple(name), k=np.array(k, np.int64), n=np.array(n, np.int64),
                       reusable=np.array(reusable, bool), outside=np.array(outside, bool), hidden=h,
                       mlp_in=("gate_proj", "up_proj") if spec.gated else ("up_proj",), mlp_out=("down_proj",))


def name_gemms(kn: np.ndarray, layer: np.ndarray, p: Projections) -> np.ndarray:
    """Per op of one step, in kernel order (kn: its GEMM's K, N and call id, -1 when not a shaped
    GEMM; layer: its layer, negative outside), the projection's name, "" when none matches.
    Kernels of one call (a GEMM and its split-K reduction) are one projection."""
    n = len(kn)
    out = np.full(n, "", dtype=object)
    shaped = np.flatnonzero(kn[:, 0] >= 0)
    if not shaped.size:
        return out
    k, nn, lay = kn[shaped, 0], kn[shaped, 1], layer[shaped]
    inside = lay >= 0
    # the n-th call of a (layer, K, N) in the step takes the n-th projection of that shape
    call, calls = _nth_call([lay, k, nn], kn[shaped, 2])
    names = np.asarray(p.name, dtype=object)
    got = np.zeros(shaped.size, bool)
    fused_in: dict[str, np.ndarray] = {}  # fused form -> per GEMM, its layer runs that form
    for j in range(len(p.name)):  # a dozen projections, each vectorized over the step's GEMMs
        same = (p.k == p.k[j]) & (p.n == p.n[j]) & (p.outside == p.outside[j])
        # forms that can both be present (q and o) are ordered; a fused form and its parts never
        # are, and in a layer that runs a fused form its parts are absent
        before = np.flatnonzero(same[:j] & ~_fused_pair(names, j))
        rank_in_shape = np.full(shaped.size, before.size, np.int64)
        hit = (k == p.k[j]) & (nn == p.n[j]) & (inside != p.outside[j]) & ~got
        for f, in_f in fused_in.items():
            rank_in_shape -= in_f * int(np.isin(names[before], PARTS[f]).sum())
            if names[j] in PARTS[f]:
                hit &= ~in_f
        hit &= (call >= rank_in_shape) if p.reusable[j] else (call == rank_in_shape)
        if names[j] in PARTS:  # a fused projection runs once per layer; two of its shape are its parts
            hit &= calls == 1
            fused_in[names[j]] = np.isin(lay, lay[hit])
        out[shaped[hit]] = names[j]
        got |= hit
    # GEMMs of a layer that match no projection: named by the side that is the hidden size
    rest = inside & ~got & ((k == p.hidden) != (nn == p.hidden))
    if rest.any():
        r_rows = np.flatnonzero(rest)
        side = np.where(k[r_rows] == p.hidden, 0, 1)
        nth, _ = _nth_call([lay[r_rows], side], kn[shaped[r_rows], 2])
        fused_mlp = "gate_up_proj" in fused_in and fused_in["gate_up_proj"].any()
        mlp_in = ("gate_up_proj",) if fused_mlp else p.mlp_in  # as the other layers run it
        for sd, roles in ((0, mlp_in), (1, p.mlp_out)):
            for i, r in enumerate(roles):
                out[shaped[r_rows[(side == sd) & (nth == i)]]] = r
        # in a layer with a router, such GEMMs are its experts (of another width than the config's)
        moe = np.isin(lay[r_rows], lay[out[shaped] == "router"])
        out[shaped[r_rows[moe]]] = "experts"
    return out


def _nth_call(groups: list[np.ndarray], call: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per row: the place of its call among the distinct calls of its group (in order of first
    appearance), and how many distinct calls the group has."""
    keys = [f"g{i}" for i in range(len(groups))]
    df = pd.DataFrame(dict(zip(keys, groups)) | {"c": call})
    gid = df.groupby(keys + ["c"], sort=False).ngroup().to_numpy()  # numbered in order of first appearance
    firsts = df.drop_duplicates()
    nth = firsts.groupby(keys, sort=False).cumcount().to_numpy()
    size = firsts.groupby(keys, sort=False)["c"].transform("size").to_numpy()
    return nth[gid], size[gid]


def _fused_pair(names: np.ndarray, j: int) -> np.ndarray:
    """Which projections before j are the same weights in another form (qkv_proj and q_proj,
    gate_up_proj and gate_proj; not k_proj and v_proj): those do not shift j's place among the
    projections of its shape."""
    me = names[j]
    return np.array([me in PARTS.get(x, ()) or x in PARTS.get(me, ()) for x in names[:j]], bool)


def split_layers(seg: np.ndarray, kn: np.ndarray, attention: np.ndarray, p: Projections) -> np.ndarray:
    """Layers of one step from its repeating pattern (`seg`, negative outside), cut further where
    the projections say a layer begins: models whose layers alternate (MoE every other layer)
    repeat with a period of several layers. A layer begins at its first projection (q_proj or
    qkv_proj shaped, the next attention kernel coming before the next such GEMM), moved back as far
    as the pattern's first layer begins before its own."""
    inside = np.flatnonzero(seg >= 0)
    if not inside.size:
        return seg
    first_call = kn[:, 0] >= 0
    first_call[1:] &= kn[1:, 2] != kn[:-1, 2]  # a call's first kernel
    q_shapes = [(p.k[j], p.n[j]) for j, nm in enumerate(p.name) if nm in ("q_proj", "qkv_proj")]
    is_q = first_call & np.any([(kn[:, 0] == a) & (kn[:, 1] == b) for a, b in q_shapes], axis=0)
    qi, ai = np.flatnonzero(is_q), np.flatnonzero(attention)
    if not qi.size or not ai.size:
        return seg
    next_att = np.searchsorted(ai, qi)
    nxt_a = np.where(next_att < ai.size, ai[np.minimum(next_att, ai.size - 1)], np.iinfo(np.int64).max)
    nxt_q = np.r_[qi[1:], np.iinfo(np.int64).max]
    begins = qi[(nxt_a < nxt_q) & (seg[qi] >= 0)]
    if begins.size <= int(seg[inside].max()) + 1:
        return seg  # the pattern already holds one layer per first projection
    lo, hi = int(inside[0]), int(inside[-1]) + 1
    cuts = np.clip(begins - (int(begins[0]) - lo), lo, hi)
    out = seg.copy()
    out[lo:hi] = np.searchsorted(cuts, np.arange(lo, hi), side="right") - 1
    return out
