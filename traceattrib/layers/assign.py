"""Every GPU op of a rank's steps: its layer and module from the best evidence its step has."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..intervals import concat_ranges
from .evidence import from_frames, from_ranges
from .position import _by_position, _fill, _places, _references, _segment
from .rules import NO_STEP, vocab
from .shapes import MIN_MATCHED, Projections, name_gemms, split_layers


@dataclass
class Assignment:
    """Layers and modules of a rank's GPU ops.

    layer: per op (aligned with the ops table), its layer, OUTSIDE, or NO_STEP;
    module: per op, index into `modules` (-1 outside steps);
    source: per step (row of the step table), the evidence (a SOURCES value);
    reference: per step, the kind of the step with names whose labels it took by position ("" none);
    layer_type: per step and layer (rank-local rows: step, layer, type), type an index into `types`;
    types: the layer types, each named by its modules (or its kernels when names are unknown)."""

    layer: np.ndarray
    module: np.ndarray
    modules: list[str]
    source: np.ndarray
    layer_type: pd.DataFrame
    types: list[str]
    reference: np.ndarray


def of_table(a: Assignment, ops: pd.DataFrame, kind: str, n: int) -> tuple[np.ndarray, pd.Categorical]:
    """The layer (NO_STEP outside steps) and module ("" none) of every row of one source table of
    the ops (kind: 'kernel' | 'memop' | 'graph'; n rows), from the assignment of `ops`
    (steps.Steps.ops, whose `src` is the row in that table)."""
    layer = np.full(n, NO_STEP, np.int64)
    module = np.full(n, -1, np.int64)
    m = (ops["kind"] == kind).to_numpy()
    src = ops["src"].to_numpy()[m]
    layer[src], module[src] = a.layer[m], a.module[m]
    codes, cats = pd.factorize(np.asarray(list(a.modules) + [""], dtype=object))  # (names are distinct)
    return layer, pd.Categorical.from_codes(codes[module], cats)  # -1 reads the last entry: ""


def assign(ops: pd.DataFrame, table: pd.DataFrame, launches: pd.DataFrame, ranges: pd.DataFrame,
           cpu_ops: pd.DataFrame, bucket_codes: np.ndarray, attention: np.ndarray | None,
           kernel_names: pd.Index | None = None, buckets: tuple[str, ...] = (),
           gemm_kn: np.ndarray | None = None, projections: tuple[Projections, ...] = ()) -> Assignment:
    """Layers and modules of one rank's GPU ops (ops: steps.Steps.ops, step = row of `table`,
    name_code = code into `kernel_names`, the kernel table's name categories; bucket_codes: per op,
    into `buckets`; attention: per op, an attention kernel; gemm_kn: per op, its GEMM's K, N and
    call id (-1 unknown); projections: a model config's projections, one per tensor-parallel size to try)."""
    v = vocab()
    n = len(ops)
    step = ops["step"].to_numpy(np.int64)
    att = attention if attention is not None else np.zeros(n, bool)
    fine, toks = _tokens(ops, bucket_codes, kernel_names, v)
    lr, mr, names_r = from_ranges(ops, launches, ranges, v)
    lf, mf, names_f = from_frames(ops, launches, cpu_ops, v)
    modules = sorted(set(names_r) | set(names_f))
    mi = {m: i for i, m in enumerate(modules)}
    mr = np.where(mr >= 0, np.array([mi[x] for x in names_r] + [0], np.int64)[mr], -1) if names_r else mr
    mf = np.where(mf >= 0, np.array([mi[x] for x in names_f] + [0], np.int64)[mf], -1) if names_f else mf
    a = Assignment(layer=np.full(n, NO_STEP, np.int64), module=np.full(n, -1, np.int64), modules=modules,
                   source=np.full(len(table), "none", dtype=object), layer_type=pd.DataFrame(), types=[],
                   reference=np.full(len(table), "", dtype=object))
    # order of ops inside each step: GPU start (the order of the kernel sequence)
    order = np.lexsort((ops["start_ns"].to_numpy(np.int64), step))
    order = order[step[order] >= 0]
    bounds = np.searchsorted(step[order], np.arange(len(table) + 1))
    per_step = [order[bounds[s]:bounds[s + 1]] for s in range(len(table))]
    labeled = _from_names(a, per_step, step, toks, (("nvtx", lr, mr), ("names", lf, mf)))
    bucket = np.where((bucket_codes >= 0) & (bucket_codes < len(buckets)), bucket_codes, len(buckets))
    bucket_names = np.asarray(buckets + ("",), dtype=object)
    if gemm_kn is not None and projections and (gemm_kn[:, 0] >= 0).any():
        _from_shapes(a, per_step, labeled, toks, fine, att, gemm_kn, projections, bucket_names[bucket])
    anchor = None  # per token value: a GEMM (not a helper), what position alignment anchors on
    if v.anchor_bucket in buckets:
        anchor = np.zeros(2 * max(len(buckets), int(toks.max(initial=0)) // 2 + 1), bool)
        anchor[2 * buckets.index(v.anchor_bucket)] = True
    _from_position(a, per_step, table, labeled, toks, fine, att, bucket, bucket_names, anchor)
    a.layer[step < 0] = NO_STEP
    a.layer_type, a.types = _types(a.layer, a.module, a.modules, step, fine, per_step)
    return a


def _tokens(ops: pd.DataFrame, bucket_codes: np.ndarray, kernel_names: pd.Index | None, v) -> tuple[np.ndarray,
                                                                                                       np.ndarray]:
    """Per op: `fine`, its kernel (name code) or, for other ops, its bucket as a negative code; and
    `toks`, what aligns across kinds of step: the bucket, and whether it finishes another kernel."""
    n = len(ops)
    code = ops["name_code"].to_numpy(np.int64) if "name_code" in ops.columns else np.full(n, -1, np.int64)
    fine = np.where(code >= 0, code, -1 - bucket_codes)
    helper = np.zeros(n, bool)
    if kernel_names is not None and len(kernel_names):
        is_helper = np.array([bool(v.helper.search(str(x))) for x in kernel_names], bool)
        helper[code >= 0] = is_helper[code[code >= 0]]
    return fine, bucket_codes * 2 + helper


def _from_names(a: Assignment, per_step: list[np.ndarray], step: np.ndarray, toks: np.ndarray,
                evidence: tuple) -> dict[int, tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """Label the steps whose ops mostly (at least half) have module evidence (each (source, layer,
    module) in order of preference); the labeled steps: step -> (tokens, layers, module indices).
    step: per op, its step (-1 outside)."""
    n = len(per_step)
    inside = step >= 0
    size = np.bincount(step[inside], minlength=n)[:n]
    chosen = np.full(n, -1, np.int64)  # per step, the evidence that labels it
    for j, (_, _, mod) in enumerate(evidence):
        got = np.bincount(step[inside & (mod >= 0)], minlength=n)[:n]
        chosen[(chosen < 0) & (size > 0) & (2 * got >= size)] = j
    labeled = {}
    for s in np.flatnonzero(chosen >= 0).tolist():  # only the steps with evidence, each vectorized
        rows = per_step[s]
        name, lay, mod = evidence[chosen[s]]
        got = mod[rows] >= 0
        a.source[s] = name
        a.layer[rows] = _fill(np.where(got, lay[rows], NO_STEP))
        a.module[rows] = np.where(got, mod[rows], -1)
        labeled[s] = (toks[rows], a.layer[rows], a.module[rows])
    return labeled


def _from_shapes(a: Assignment, per_step: list[np.ndarray], labeled: dict, toks: np.ndarray, fine: np.ndarray,
                 att: np.ndarray, gemm_kn: np.ndarray, projections: tuple[Projections, ...],
                 bucket: np.ndarray) -> None:
    """Label the steps without names whose GEMMs have shapes: layers from the repeating pattern,
    GEMMs named by their K x N against the config (the tensor-parallel size that names the most),
    attention kernels `attention`, the other ops by their place in the layer. Steps with one
    kernel sequence are worked out once."""
    mi = {m: i for i, m in enumerate(a.modules)}
    cache: dict[tuple, tuple[np.ndarray, np.ndarray] | None] = {}
    for s, rows in enumerate(per_step):
        if not rows.size or a.source[s] != "none":
            continue
        kn = gemm_kn[rows]
        key = (kn.tobytes(), fine[rows].tobytes(), att[rows].tobytes())
        if key not in cache:
            cache[key] = None
            seg0 = _segment(fine[rows], att[rows])
            shaped = int((kn[:, 0] >= 0).sum())
            tries = [(split_layers(seg0, kn, att[rows], p), p) for p in projections]
            seg, best = max(((sg, name_gemms(kn, sg, p)) for sg, p in tries), key=lambda x: int((x[1] != "").sum()))
            if shaped and (best != "").sum() >= MIN_MATCHED * shaped and (seg >= 0).any():
                place = _places(seg)
                names = [g if g else ("attention" if at and lay >= 0 else
                                      (f"op {p}: {b}" if b else f"op {p}") if lay >= 0 else "outside")
                         for g, at, p, lay, b in zip(best, att[rows], place, seg, bucket[rows])]
                for name in dict.fromkeys(names):
                    if name not in mi:
                        mi[name] = len(a.modules)
                        a.modules.append(name)
                cache[key] = (seg, np.array([mi[x] for x in names], np.int64))
        if cache[key] is None:
            continue
        a.source[s] = "shapes"
        a.layer[rows], a.module[rows] = cache[key]
        labeled[s] = (toks[rows], a.layer[rows], a.module[rows])


def _from_position(a: Assignment, per_step: list[np.ndarray], table: pd.DataFrame, labeled: dict,
                   toks: np.ndarray, fine: np.ndarray, att: np.ndarray, bucket: np.ndarray,
                   bucket_names: np.ndarray, anchor: np.ndarray | None) -> None:
    """Label the other steps by position: aligned with a labeled step of their rank, or by their
    own repeating pattern. Steps with one kernel sequence are worked out once."""
    ranks = table["rank"].to_numpy()
    kinds = table["kind"].astype(str).to_numpy()
    mi = {m: i for i, m in enumerate(a.modules)}
    names_of: dict[int, list[str]] = {}  # reference step -> its ops' module names
    cache: dict[tuple, tuple[np.ndarray, np.ndarray, str, bool]] = {}
    reference = _references(labeled, ranks, kinds)
    for s, rows in enumerate(per_step):
        if not rows.size or a.source[s] != "none":
            continue
        t = toks[rows]
        ref = reference(s)
        key = (ref, t.tobytes(), fine[rows].tobytes(), att[rows].tobytes())
        if key not in cache:
            r = None
            if ref is not None:
                if ref not in names_of:
                    names_of[ref] = [a.modules[m] if m >= 0 else "other" for m in labeled[ref][2]]
                r = (labeled[ref][0], labeled[ref][1], names_of[ref])
            lay, names, src, aligned = _by_position(t, fine[rows], att[rows], r, bucket_names[bucket[rows]].tolist(),
                                                    anchor)
            for name in dict.fromkeys(names):
                if name not in mi:
                    mi[name] = len(a.modules)
                    a.modules.append(name)
            cache[key] = (lay, np.array([mi[x] for x in names], np.int64), src, aligned)
        lay, mods, src, aligned = cache[key]
        a.source[s] = src
        a.reference[s] = kinds[ref] if aligned else ""
        a.layer[rows] = lay
        a.module[rows] = mods


def _types(layer: np.ndarray, module: np.ndarray, modules: list[str], step: np.ndarray, fine: np.ndarray,
           per_step: list[np.ndarray]) -> tuple[pd.DataFrame, list[str]]:
    """Every (step, layer)'s type: layers with the same kernel sequence share one; each type named
    by the modules its layers hold."""
    # steps with one (layers, kernels) sequence are worked out once: each distinct sequence's
    # (layer, signature) rows, then every step takes its sequence's rows
    seen: dict[tuple[bytes, bytes], int] = {}
    per_seq: list[list[tuple[int, bytes]]] = []
    seq = np.empty(len(per_step), np.int64)
    for s, rows in enumerate(per_step):
        lay, f = layer[rows], fine[rows]
        k = seen.setdefault((lay.tobytes(), f.tobytes()), len(per_seq))
        if k == len(per_seq):
            per_seq.append([(int(lv), f[lay == lv].tobytes()) for lv in np.unique(lay[lay >= 0])])
        seq[s] = k
    flat = [x for rows in per_seq for x in rows]
    if not flat:
        return pd.DataFrame({"step": [], "layer": [], "type": []}, dtype=np.int64), []
    # signatures numbered in order of first appearance over the steps, which is their order over
    # the sequences as they first appear
    codes, uniq = pd.factorize(pd.Series([sig for _, sig in flat]))
    size = np.array([len(rows) for rows in per_seq], np.int64)
    n = size[seq]
    at = concat_ranges(np.cumsum(size)[seq] - n, n)  # each step's rows among its sequence's
    return pd.DataFrame({"step": np.repeat(np.arange(len(per_step), dtype=np.int64), n),
                         "layer": np.array([lv for lv, _ in flat], np.int64)[at],
                         "type": codes.astype(np.int64)[at]}), [f"type {chr(65 + i)}" if i < 26 else f"type {i}"
                                                              for i in range(len(uniq))]
