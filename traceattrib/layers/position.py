"""Evidence from position: a step without names aligned with a step that has them, or cut into
layers by its repeating kernel pattern."""
from __future__ import annotations

import difflib
from collections.abc import Callable

import numpy as np

from .rules import NO_STEP, OUTSIDE


def _segment(tokens: np.ndarray, attention: np.ndarray) -> np.ndarray:
    """Layers of one step's op sequence from its repeating pattern, without names: the attention
    kernels mark the layers (their spacing is the layer's length); the layers begin where the
    sequence starts repeating, found as the largest shift back from the first attention kernel for
    which the first layer matches the second. OUTSIDE before and after; all OUTSIDE when the
    step has fewer than two attention kernels or no steady spacing."""
    out = np.full(tokens.size, OUTSIDE, np.int64)
    runs = np.flatnonzero(attention & ~np.r_[False, attention[:-1]])  # first op of each attention run
    anchors = _layer_anchors(runs)
    if anchors is None:
        return out
    p = int(np.median(np.diff(anchors)))
    a0, a1 = int(anchors[0]), int(anchors[1])
    o = 0
    while o + 1 <= a0 and tokens[a0 - o - 1] == tokens[a1 - o - 1] and o + 1 < p:
        o += 1
    start = a0 - o
    n = anchors.size
    end = min(start + n * p, tokens.size)
    out[start:end] = (np.arange(end - start) // p)
    return out


MAX_ATTENTION_RUNS = 4  # attention runs one layer may hold (decode: the cache write, then attention)


def _layer_anchors(runs: np.ndarray) -> np.ndarray | None:
    """The attention runs that begin a layer: every k-th, for the least k (runs per layer) at
    which the gaps between runs repeat every k and the layers have one steady length; None when
    no k does or fewer than two layers remain."""
    d = np.diff(runs)
    for k in range(1, MAX_ATTENTION_RUNS + 1):
        starts = runs[::k]
        if starts.size < 2:
            return None
        if d.size > k and (d[k:] != d[:-k]).mean() > 0.2:
            continue
        gaps = np.diff(starts)
        p = int(np.median(gaps))
        if p > 0 and (gaps != p).mean() <= 0.5:
            return starts
    return None


ANCHOR_WEIGHT = 4  # an aligned GEMM counts this many aligned other ops
MAX_ALIGN_CELLS = 16_000_000  # larger pairs of steps align greedily (difflib) to bound memory


def _align(ref: np.ndarray, cur: np.ndarray, anchor: np.ndarray | None = None) -> np.ndarray:
    """For each position of `cur`, the position of `ref` it aligns with (-1 none): the order-keeping
    matching of equal tokens of greatest weight, where an anchor op (`anchor`: per token value, a
    GEMM, which eager and graph-replayed steps run alike) weighs ANCHOR_WEIGHT and any other op 1.
    A global alignment, not greedy: a prefill's chunked kernels against a decode's recurrent ones
    leave a few ops unmatched in each layer without pulling the layers out of line."""
    n, m = ref.size, cur.size
    out = np.full(m, -1, np.int64)
    if not n or not m:
        return out
    if n * m > MAX_ALIGN_CELLS:
        for a, b, size in difflib.SequenceMatcher(None, ref.tolist(), cur.tolist(), autojunk=False
                                                  ).get_matching_blocks():
            out[b:b + size] = np.arange(a, a + size)
        return out
    w = np.ones(m, np.int32) if anchor is None else np.where(anchor[cur], ANCHOR_WEIGHT, 1).astype(np.int32)
    d = np.zeros((n + 1, m + 1), np.int32)  # d[i, j]: best weight aligning ref[:i] with cur[:j]
    for i in range(1, n + 1):  # one vector operation per op of ref
        c = d[i - 1].copy()
        hit = cur == ref[i - 1]
        c[1:] = np.maximum(c[1:], np.where(hit, d[i - 1, :-1] + w, 0))
        d[i] = np.maximum.accumulate(c)
    i, j = n, m
    while i > 0 and j > 0:  # back through the table: n + m steps
        if d[i, j] == d[i - 1, j]:
            i -= 1
        elif d[i, j] == d[i, j - 1]:
            j -= 1
        else:
            out[j - 1] = i - 1
            i, j = i - 1, j - 1
    return out


def _neighbour_names(at: np.ndarray, toks: np.ndarray, rt: np.ndarray, rl: np.ndarray, rm: list[str],
                     layer: np.ndarray) -> list[str]:
    """Module names of aligned ops from the reference; an op that aligns with none takes the module of
    the aligned ops around it when both are of one module in its layer, else the module of the
    aligned op before it, else after it, when that op is of its kind (bucket) and in its layer (a
    GEMM split in two for another shape is still its projection), else "other"."""
    n = at.size
    names = [rm[a] if a >= 0 else "" for a in at]
    got = at >= 0
    idx = np.arange(n)
    prev = np.maximum.accumulate(np.where(got, idx, -1))
    nxt = np.minimum.accumulate(np.where(got, idx, n)[::-1])[::-1]
    for i in np.flatnonzero(~got):  # ops the alignment left out: a few per layer
        p, q = prev[i], nxt[i]
        if 0 <= p and q < n and names[p] == names[q] and layer[p] == layer[i] == layer[q]:
            names[i] = names[p]  # between two ops of one module: that module's
            continue
        for j in (p, q):
            if 0 <= j < n and toks[j] // 2 == toks[i] // 2 and layer[j] == layer[i]:  # the same bucket
                names[i] = names[j]
                break
        else:
            names[i] = "other"
    return names


def _fill(layer: np.ndarray) -> np.ndarray:
    """Layers of ops no evidence placed (NO_STEP marks them here): the layer of the op before them
    in the step, else the one after."""
    out = layer.copy()
    miss = out == NO_STEP
    if not miss.any() or miss.all():
        return np.where(miss, OUTSIDE, out)
    idx = np.where(~miss, np.arange(out.size), -1)
    prev = np.maximum.accumulate(idx)
    nxt = np.minimum.accumulate(np.where(~miss, np.arange(out.size), out.size)[::-1])[::-1]
    src = np.where(prev >= 0, prev, nxt)
    return out[np.clip(src, 0, out.size - 1)]



def _references(labeled: dict, ranks: np.ndarray, kinds: np.ndarray) -> Callable[[int], int | None]:
    """The labeled step a step without names takes its labels from: the first labeled step (in
    `labeled`'s order) of its rank and kind, else the first of its rank; None when its rank has
    none. Looked up per step from tables made in one pass over `labeled`."""
    by_rank: dict = {}
    by_kind: dict = {}
    for r in labeled:
        by_rank.setdefault(ranks[r], r)
        by_kind.setdefault((ranks[r], kinds[r]), r)
    return lambda s: by_kind.get((ranks[s], kinds[s]), by_rank.get(ranks[s]))


def _places(seg: np.ndarray) -> np.ndarray:
    """Per op of a step cut into layers, its place in its layer (0 = the layer's first op)."""
    if not seg.size or not (seg >= 0).any():
        return np.zeros(seg.size, np.int64)
    first = np.r_[True, seg[1:] != seg[:-1]]
    start = np.maximum.accumulate(np.where(first, np.arange(seg.size), 0))
    return np.arange(seg.size) - start


def _by_position(toks: np.ndarray, fine: np.ndarray, att: np.ndarray,
                 ref: tuple[np.ndarray, np.ndarray, list[str]] | None,
                 bucket: list[str], anchor: np.ndarray | None) -> tuple[np.ndarray, list[str], str, bool]:
    """(layer per op, module name per op, source, labels taken from `ref`) of a step without names:
    the labels of the ops it aligns with in `ref` (its tokens, layers and module names), else its
    own pattern, an op named by its place in the layer and its bucket."""
    seg = _segment(fine, att)
    if ref is not None:
        rt, rl, rm = ref
        at = _align(rt, toks, anchor)
        got = at >= 0
        if got.mean() >= 0.5:
            layer = _fill(np.where(got, rl[np.maximum(at, 0)], NO_STEP))
            return layer, _neighbour_names(at, toks, rt, rl, rm, layer), "position", True
    layer = seg
    place = _places(seg)
    names = [(f"op {p}: {b}" if b else f"op {p}") if lay >= 0 else "outside" for p, lay, b in zip(place, seg, bucket)]
    return layer, names, "position" if (seg >= 0).any() else "none", False
