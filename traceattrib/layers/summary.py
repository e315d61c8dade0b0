"""A kind's summary inside its steps: per layer, per module, the slow layers (report.Inside)."""
from __future__ import annotations

import re

import numpy as np
import pandas as pd

from ..intervals import pack_keys
from ..report import Inside, LayerEvidence, LayerTime, ModuleRatio, ModuleTime, SlowLayer
from .times import Times

SLOW = 1.2  # a layer this many times the median layer is called out
MIN_LAYERS = 2  # fewer layers per step than this: nothing to say inside the step
MIN_COVER = 0.1  # layers that hold less of the step's span than this are not what the step is about


def section(k: pd.DataFrame, t: Times, buckets: tuple[str, ...]) -> Inside | None:
    """Inside a kind's steps (`k`: its steady steps, rank and index): per layer (index, type, time and
    bucket times), per module summed over the layers, the slowest layers against the median layer
    and how they were found; None when its steps hold fewer than MIN_LAYERS
    layers or the layers hold less than MIN_COVER of the span."""
    key = _Keys(k["rank"].to_numpy(np.int64), k["index"].to_numpy(np.int64))
    lay = _rows(t.layers, key)
    inner = lay[lay["layer"] >= 0]
    if not len(inner) or inner.groupby(["rank", "step"])["layer"].nunique().median() < MIN_LAYERS:
        return None
    span = k["span_ns"].to_numpy(np.float64)
    held = _full(inner, "rank", ["time_ns"], key)["time_ns"].sum(axis=1)
    if np.median(held) < MIN_COVER * np.median(span):
        return None
    mods = _steady_modules(t.modules, k)
    srcs = _rows(t.sources, key)
    src = srcs["source"].value_counts()
    refs = srcs["reference"][srcs["reference"] != ""].value_counts() if "reference" in srcs.columns else []
    labels = _type_labels(inner, mods)
    cols = ["time_ns"] + [f"{b}_ns" for b in buckets if f"{b}_ns" in inner.columns]
    med = _median_per(inner, "layer", cols, key)
    has = inner.groupby("layer")[cols[1:]].any()
    layers = [LayerTime(index=int(idx), type=labels.get(int(idx), ""), time_ns=float(med["time_ns"][idx]),
                        buckets={c[:-3]: float(med[c][idx]) for c in cols[1:] if has.at[idx, c]})
              for idx in med["time_ns"].index]
    per_step = _rows(t.steps, key)
    best = str(src.index[0]) if len(src) else "none"
    modules = []
    if len(per_step):
        full = _full(per_step, "module", ["time_ns", "exposed_ns", "count"], key)
        tm, ex, cnt = (full[c] for c in ("time_ns", "exposed_ns", "count"))
        with np.errstate(divide="ignore", invalid="ignore"):
            bound = np.where(span[:, None] - ex > 0, span[:, None] / (span[:, None] - ex), np.inf)
        tot = span.sum()
        # medians down each module's column at once (the same values as one column at a time; the
        # sums are of whole ns, exact in any order)
        med_t, med_n, med_b = (np.median(a, axis=0).tolist() for a in (tm, cnt, bound))
        share = (tm.sum(axis=0) / tot).tolist() if tot else [0.0] * tm.shape[1]
        for j, name in enumerate(_full_names(per_step, "module")):
            modules.append(ModuleTime(name=str(name), source=best, time_ns=med_t[j], count=med_n[j],
                                      share=share[j], speedup_bound_if_removed=med_b[j]))
    modules.sort(key=lambda m: (-m.time_ns, m.name))
    types: dict[str, list[int]] = {}
    for lt in layers:
        types.setdefault(lt.type, []).append(lt.index)
    names_known = best in ("nvtx", "names") or not all(m.name.startswith("op ") or m.name in ("outside", "other")
                                                         for m in modules)
    return Inside(layers=layers, modules=modules,
                  layer_evidence=LayerEvidence(source=best, steps={str(a): int(b) for a, b in src.items()},
                                               layers=len(layers), types=types, names_known=bool(names_known),
                                               reference=str(refs.index[0]) if len(refs) else ""),
                  slow_layers=_slow(layers, mods, key))


class _Keys:
    """The steps a summary is over, (rank, index) per step, and where other tables' rows fall in them."""

    def __init__(self, rank: np.ndarray, index: np.ndarray):
        self.rank, self.index = rank, index

    def __len__(self) -> int:
        return self.rank.size

    def row_of(self, df: pd.DataFrame) -> np.ndarray:
        """Per row of a per-step frame (rank, step): its step's place among these steps, -1 none."""
        mine, theirs = pack_keys([self.rank, self.index],
                                 [df["rank"].to_numpy(np.int64), df["step"].to_numpy(np.int64)])
        order = np.argsort(mine, kind="stable")
        pos = np.minimum(np.searchsorted(mine[order], theirs), max(mine.size - 1, 0))
        hit = mine[order][pos] == theirs if mine.size else np.zeros(theirs.size, bool)
        return np.where(hit, order[pos] if mine.size else -1, -1)


def _rows(df: pd.DataFrame, key: _Keys) -> pd.DataFrame:
    """The rows of a per-step frame (rank, step) that belong to the steps `key`."""
    if not len(df):
        return df
    return df[key.row_of(df) >= 0]


def _steady_modules(mods: pd.DataFrame, k: pd.DataFrame) -> pd.DataFrame:
    """The module rows (summed per kind and warm-up, Times.modules) of the steps `k`: the steady
    steps of one kind, which are its steps past warm-up, or all of them when every one is warm-up."""
    if not len(mods) or not len(k):
        return mods.iloc[:0]
    warm = bool(k["warmup"].to_numpy(bool).all())
    return mods[(mods["kind"] == str(k["kind"].iloc[0])).to_numpy() & (mods["warmup"].to_numpy(bool) == warm)]


def _full_names(df: pd.DataFrame, by: str) -> list:
    """The values of `by` in df, in the order _full lays out its columns."""
    vals = pd.unique(df[by]).tolist()
    return sorted(vals) if pd.api.types.is_numeric_dtype(df[by]) else sorted(vals, key=str)


def _full(df: pd.DataFrame, by: str, cols: list[str], key: _Keys) -> dict[str, np.ndarray]:
    """Per column of `cols`: a (steps of `key`) x (values of `by`, _full_names order) array of the
    column summed per step and value, 0 where a step has none."""
    names = _full_names(df, by)
    col = df[by]
    if isinstance(col.dtype, pd.CategoricalDtype):  # its codes mapped, no text compared per row
        lut = np.r_[pd.Index(names).get_indexer(col.cat.categories), -1]
        code = lut[col.cat.codes.to_numpy(np.int64)]
    else:
        code = pd.Categorical(col, categories=names).codes.astype(np.int64)
    row = key.row_of(df)
    ok = (row >= 0) & (code >= 0)
    cell = row[ok] * len(names) + code[ok]
    size = len(key) * len(names)
    return {c: np.bincount(cell, df[c].to_numpy(np.float64)[ok], minlength=size).reshape(len(key), len(names))
            for c in cols}


def _median_per(df: pd.DataFrame, by: str, cols: list[str], key: _Keys) -> dict[str, pd.Series]:
    """Per column of `cols`: the median over the steps of `key` of its per-step sum, per value of
    `by` (0 for a step without rows)."""
    full = _full(df, by, cols, key)
    names = _full_names(df, by)
    return {c: pd.Series(np.median(full[c], axis=0), index=names) for c in cols}


def _type_labels(inner: pd.DataFrame, mods: pd.DataFrame) -> dict[int, str]:
    """Per layer index, its type's name: what its layers hold (attention or linear attention, MLP or
    MoE), letters where two types hold the same; "type A", ... when modules have no names."""
    counts = inner.groupby(["layer", "type"]).size().reset_index(name="n")
    counts = counts.sort_values(["layer", "n", "type"], ascending=[True, False, True], kind="stable")
    typ = counts.drop_duplicates("layer").set_index("layer")["type"]  # each layer's most frequent type
    pairs = mods.loc[mods["layer"] >= 0, ["layer", "module"]].drop_duplicates()
    held = pairs.groupby("layer")["module"].agg(lambda m: set(m.astype(object)))
    names: dict[int, str] = {}
    for t in sorted(set(typ)):
        layers_t = [int(i) for i in typ.index[typ == t]]
        ms = set().union(*(held.get(i, set()) for i in layers_t))
        mixer = "linear attention" if any(m.startswith("linear_attention") for m in ms) else \
            "attention" if ms & {"attention", "q_proj", "qkv_proj", "o_proj"} else ""
        ffn = "moe" if ms & {"experts", "moe", "router"} else \
            "mlp" if ms & {"mlp", "gate_proj", "up_proj", "down_proj", "gate_up_proj"} else ""
        names[t] = " + ".join(x for x in (mixer, ffn) if x)
    seen: dict[str, int] = {}
    out = {}
    order = sorted(set(typ), key=lambda t: int(typ.index[typ == t][0]))
    for n, t in enumerate(order):
        base = names[t] or f"type {chr(65 + n)}"
        seen[base] = seen.get(base, 0) + 1
        lab = base if sum(1 for u in order if (names[u] or "") == names[t]) == 1 or not names[t] \
            else f"{base} ({chr(96 + seen[base])})"
        for i in typ.index[typ == t]:
            out[int(i)] = lab
    return out


def _slow(layers: list[LayerTime], mods: pd.DataFrame, key: _Keys) -> list[SlowLayer]:
    """Layers at least SLOW times the median layer of their kind (the slowest first, at most 3),
    each with the (at most two) modules whose time in it is furthest above, and at least SLOW times,
    their median over the layers.
    A layer's kind is its type's name without the letter that tells kernel sequences apart
    (attention + moe, linear attention + mlp): a wider MLP runs other GEMM kernels, yet is
    compared with the other MLP layers; with fewer than three layers of a kind, all layers."""
    if len(layers) < 3:
        return []
    t = np.array([lt.time_ns for lt in layers])
    kind = np.array([re.sub(r" \([a-z]+\)$", "", lt.type) if not lt.type.startswith("type ") else "" for lt in layers])
    med_all = float(np.median(t))
    med = np.array([float(np.median(t[kind == k])) if (kind == k).sum() >= 3 else med_all for k in kind])
    if med_all <= 0:
        return []
    ratio = t / np.where(med > 0, med, med_all)
    inner = mods[mods["layer"] >= 0]
    per = inner.groupby(["layer", "module"], observed=True)["time_ns"].sum() / max(len(key), 1)
    out = []
    for i in np.argsort(-ratio, kind="stable")[:3]:
        r = ratio[i]
        if r < SLOW:
            break
        idx = layers[i].index
        ratios = []
        for m, v in per.xs(idx, level="layer").items() if idx in per.index.get_level_values(0) else []:
            across = per.xs(m, level="module")
            base = float(np.median(across)) if len(across) else 0.0
            if base > 0:
                ratios.append(ModuleRatio(name=str(m), ratio=float(v / base)))
        ratios = sorted((x for x in ratios if x.ratio >= SLOW), key=lambda x: (-x.ratio, x.name))
        out.append(SlowLayer(index=int(idx), ratio=float(r), modules=ratios[:2],
                             kind=str(kind[i]) if (kind == kind[i]).sum() >= 3 else ""))
    return out
