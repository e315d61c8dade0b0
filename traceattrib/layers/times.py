"""The time of every layer, layer and bucket, layer and module, and module of every step (ns)."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..intervals import unique_inverse
from .assign import Assignment
from .rules import NO_STEP

LAYER_COLUMNS = ["rank", "step", "layer", "type", "time_ns"]  # + <bucket>_ns per bucket present
MODULE_COLUMNS = ["rank", "kind", "warmup", "layer", "module", "time_ns", "count"]
STEP_COLUMNS = ["rank", "step", "module", "time_ns", "exposed_ns", "count"]
SOURCE_COLUMNS = ["rank", "step", "source", "reference"]


@dataclass
class Times:
    """One rank's layer and module times per step (ns; `step` is the step's index on its rank).

    layers: LAYER_COLUMNS + <bucket>_ns: per step and layer (OUTSIDE included), the union of its
            ops and of its ops of each bucket, and its type (into Assignment.types);
    modules: MODULE_COLUMNS: per step kind, warm-up or not, layer and module (its name), the union
             of the module's ops in the layer summed over those steps, and their count (summed
             here: a row per step, layer and module would be as long as the kernel table, and a
             summary takes the steady steps of a kind, which these two columns name);
    steps: STEP_COLUMNS: per step and module, over the whole step: the union of its ops, the time
           when only they run (what removing them could save) and their count;
    sources: SOURCE_COLUMNS: per step, the evidence of its layers and modules and the kind of the
             step it took labels from by position ("" none);
    types names the layer type ids (rank-local)."""

    layers: pd.DataFrame
    modules: pd.DataFrame
    steps: pd.DataFrame
    sources: pd.DataFrame
    types: list[str]

    def relabel(self, rank: int) -> Times:
        """The same times under another rank id."""
        return Times(**{n: getattr(self, n).assign(rank=np.full(len(getattr(self, n)), rank, np.int64))
                        for n in ("layers", "modules", "steps", "sources")}, types=list(self.types))


def concat(parts: list[Times]) -> Times | None:
    """Several ranks' times as one (each keeps its rank column); None when there are none."""
    if not parts:
        return None
    def cat(name: str) -> pd.DataFrame:
        frames = [getattr(p, name) for p in parts if len(getattr(p, name))]
        return pd.concat(frames, ignore_index=True) if frames else getattr(parts[0], name)
    return Times(layers=cat("layers"), modules=cat("modules"), steps=cat("steps"), sources=cat("sources"),
                 types=list(parts[0].types))


def times(a: Assignment, ops: pd.DataFrame, table: pd.DataFrame, bucket_codes: np.ndarray,
          buckets: tuple[str, ...]) -> Times:
    """The unions of every layer, layer and bucket, layer and module, and module of every step."""
    from ..attribute import category_unions_many, step_code_counts, step_runs

    step = ops["step"].to_numpy(np.int64)
    keep = (step >= 0) & (a.layer != NO_STEP) & (a.module >= 0)
    st = np.where(keep, step, -1)
    s, e = ops["start_ns"].to_numpy(np.int64), ops["end_ns"].to_numpy(np.int64)
    start = table["start_ns"].to_numpy(np.int64)
    span = (table["end_ns"] - table["start_ns"]).to_numpy(np.int64)
    rank, index = table["rank"].to_numpy(np.int64), table["index"].to_numpy(np.int64)
    nl = int(a.layer[keep].max()) + 2 if keep.any() else 1  # layer + 1: 0 is OUTSIDE
    nb, nm = len(buckets), max(len(a.modules), 1)
    # per-op codes in int32 (layers x buckets and layers x modules are small), built in place: a
    # long trace's temporaries here are several arrays as long as its kernel table
    lay = np.where(keep, a.layer + 1, 0).astype(np.int32)
    module = np.maximum(a.module, 0).astype(np.int32)
    # the (layer, bucket) and (layer, module) pairs that occur, as compact codes: dense tables over
    # every pair would grow with layers x modules x steps
    lb_code, lb_pairs = _compact(_pair(lay, nb, bucket_codes, keep))
    lm_code, lm_pairs = _compact(_pair(lay, nm, module, keep))
    runs = list(step_runs(st, len(table)))  # runs of whole steps: the unions and counts a run at a time
    (lt, _), (lbt, _), (lmt, _), (mt, mx) = category_unions_many(
        s, e, [(lay, nl), (lb_code, lb_pairs.size), (lm_code, lm_pairs.size), (module, nm)],
        st, start, span, runs=runs)
    lmc = step_code_counts(st, lm_code, lm_pairs.size, len(table), runs)
    mc = step_code_counts(st, module, nm, len(table), runs)
    del runs
    si, li = np.nonzero(lt > 0)
    layers = pd.DataFrame({"rank": rank[si], "step": index[si], "layer": li - 1, "type": _type_of(a, si, li),
                           "time_ns": lt[si, li]})
    # per (layer + 1, bucket), its column in lbt (-1: no op of that layer and bucket)
    column = np.full((max(nl, int(lb_pairs.max(initial=0)) // nb + 1), nb), -1, np.int64)
    column[lb_pairs // nb, lb_pairs % nb] = np.arange(lb_pairs.size)
    for j, b in enumerate(buckets):
        cols = np.flatnonzero(lb_pairs % nb == j)
        if cols.size and lbt[:, cols].any():
            c = column[li, j]
            layers[f"{b}_ns"] = np.where(c >= 0, lbt[si, np.maximum(c, 0)], 0)
    # module names as categories: a million rows of strings would cost more than the times
    names = pd.Index(list(a.modules) or ["other"], dtype=object)  # (distinct: Assignment.modules)
    modules = _per_kind(table, lmt, lmc.reshape(len(table), lm_pairs.size), lm_pairs, nm, names)
    mc2 = mc.reshape(len(table), nm)
    si, mi = np.nonzero(mc2 > 0)
    # a row per step and module: int32 where the values are small (a rank's steps can number
    # tens of thousands, and this table stays in memory until the report is made)
    steps = pd.DataFrame({"rank": rank[si].astype(np.int32), "step": index[si].astype(np.int32),
                          "module": pd.Categorical.from_codes(mi, names),
                          "time_ns": mt[si, mi], "exposed_ns": mx[si, mi], "count": mc2[si, mi].astype(np.int32)})
    sources = pd.DataFrame({"rank": rank, "step": index, "source": a.source.astype(object),
                            "reference": a.reference.astype(object)})
    return Times(layers=layers, modules=modules, steps=steps, sources=sources, types=list(a.types))


def _type_of(a: Assignment, si: np.ndarray, li: np.ndarray) -> np.ndarray:
    """The type id of each (step row si, layer li - 1) in a.layer_type, -1 where it has none."""
    lt = a.layer_type
    if not len(lt) or not si.size:
        return np.full(si.size, -1, np.int64)
    step, layer = lt["step"].to_numpy(np.int64), lt["layer"].to_numpy(np.int64)
    shape = (max(int(step.max()), int(si.max())) + 1, max(int(layer.max()) + 2, int(li.max()) + 1))
    table = np.full(shape, -1, np.int64)
    table[step, layer + 1] = lt["type"].to_numpy(np.int64)
    return table[si, li]


def _per_kind(table: pd.DataFrame, lmt: np.ndarray, lmc: np.ndarray, pairs: np.ndarray, nm: int,
              names: pd.Index) -> pd.DataFrame:
    """MODULE_COLUMNS from the (step x layer-module pair) times and counts: summed over the steps
    of each kind, warm-up and the rest apart; rows where the count is above 0."""
    kind = table["kind"].astype(str).to_numpy() if len(table) else np.array([], object)
    warm = table["warmup"].to_numpy(bool) if len(table) else np.array([], bool)
    kinds = sorted(set(kind.tolist()))
    group = np.searchsorted(np.array(kinds, dtype=object), kind).astype(np.int64) * 2 + warm if kinds else \
        np.zeros(0, np.int64)
    # per (kind, warm-up) group, the sums of its steps' rows (int64: exact), cells in (group, pair)
    # order; a pair no op of a step has has no time there (lmt is 0 where lmc is)
    present = np.unique(group)
    rows = [group == g for g in present]
    t = np.array([lmt[r].sum(axis=0) for r in rows], np.int64).reshape(present.size, pairs.size)
    c = np.array([lmc[r].sum(axis=0) for r in rows], np.int64).reshape(present.size, pairs.size)
    row, pi = np.nonzero(c > 0)
    gi = present[row]
    pair = pairs[pi]
    rank = table["rank"].to_numpy(np.int64)[:1]
    return pd.DataFrame({"rank": np.full(gi.size, rank[0] if rank.size else 0, np.int64),
                         "kind": np.array(kinds, dtype=object)[gi // 2] if kinds else np.array([], object),
                         "warmup": (gi % 2).astype(bool), "layer": pair // nm - 1,
                         "module": pd.Categorical.from_codes(pair % nm, names),
                         "time_ns": t[row, pi], "count": c[row, pi]})


def _pair(first: np.ndarray, n: int, second: np.ndarray, keep: np.ndarray) -> np.ndarray:
    """first * n + second where keep, else 0 (int64: first * n may pass int32)."""
    out = first.astype(np.int64)
    out *= n
    out += second
    out[~keep] = 0
    return out


def _compact(raw: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Codes renumbered to the ones that occur: (each row's new code, int32 where the count fits;
    the old code of each new one)."""
    pairs, code = unique_inverse(raw)
    return code.astype(np.int32 if pairs.size < 2 ** 31 else np.int64), pairs
