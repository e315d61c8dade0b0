"""Evidence that names the modules: module ranges (NVTX, record_function) and torch nn.Module frames
around each op's launch call. Per op: its layer (OUTSIDE, or -1 when no evidence) and module."""
from __future__ import annotations

import numpy as np
import pandas as pd

from ..intervals import pack_keys
from .rules import MODULE_PREFIX, OUTSIDE, Vocab, class_rule, path_module, vocab


def _stab(q_thread: np.ndarray, q_t: np.ndarray, thread: np.ndarray, start: np.ndarray, end: np.ndarray,
          level: np.ndarray) -> np.ndarray:
    """Per query, per nesting level (queries x levels): the row of the interval of that level on
    the query's thread that contains t, -1 none. Intervals of one level on one thread do not
    overlap (ranges and frames nest)."""
    levels = np.unique(level)
    out = np.full((q_t.size, levels.size), -1, np.int64)
    for j, lv in enumerate(levels):
        rows = np.flatnonzero(level == lv)
        key, qk = pack_keys([thread[rows], start[rows]], [q_thread, q_t])
        order = np.argsort(key, kind="stable")
        rows, key = rows[order], key[order]
        k = np.searchsorted(key, qk, side="right") - 1
        ok = k >= 0
        r = rows[np.maximum(k, 0)]
        ok &= (thread[r] == q_thread) & (end[r] > q_t) & (start[r] <= q_t)
        out[:, j] = np.where(ok, r, -1)
    return out


def _launch_points(ops: pd.DataFrame, launches: pd.DataFrame, other: pd.DataFrame
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(ops with a launch call, that call's thread key, its start, the thread key of every row of
    `other`: ranges or CPU frames, keyed alike) for the module lookups."""
    row = ops["launch_row"].to_numpy(np.int64) if "launch_row" in ops.columns else np.full(len(ops), -1)
    has = np.flatnonzero((row >= 0) & (ops["step"].to_numpy() >= 0))
    if not has.size or not len(launches):
        return has[:0], has[:0], has[:0], np.zeros(len(other), np.int64)
    lr = row[has]
    q, o = pack_keys([launches["pid"].to_numpy(np.int64)[lr], launches["tid"].to_numpy(np.int64)[lr]],
                     [other["pid"].to_numpy(np.int64), other["tid"].to_numpy(np.int64)])
    return has, q, launches["start_ns"].to_numpy(np.int64)[lr], o


def from_ranges(ops: pd.DataFrame, launches: pd.DataFrame, ranges: pd.DataFrame,
                v: Vocab | None = None) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """Per op: layer (OUTSIDE also when no range holds it), module index (-1: no module range
    holds its launch) and the module names, from the innermost module range around its launch."""
    v = v or vocab()
    layer = np.full(len(ops), OUTSIDE, np.int64)
    module = np.full(len(ops), -1, np.int64)
    if not len(ranges):
        return layer, module, []
    names = ranges["name"].astype(str)
    cats = pd.Categorical(names)
    good = np.array([bool(v.module.match(c)) and ("." in c or v.layer.search(c) is not None) for c in cats.categories],
                    bool)
    m = good[cats.codes] if len(cats.categories) else np.zeros(len(ranges), bool)
    m &= cats.codes >= 0
    if not m.any():
        return layer, module, []
    rr = ranges[m]
    has, q_thread, q_t, thread = _launch_points(ops, launches, rr)
    if not has.size:
        return layer, module, []
    hit = _stab(q_thread, q_t, thread, rr["start_ns"].to_numpy(np.int64), rr["end_ns"].to_numpy(np.int64),
                rr["depth"].to_numpy(np.int64))
    inner = _innermost(hit)
    got = inner >= 0
    code = pd.Categorical(rr["name"].astype(str)).codes
    uniq = pd.Categorical(rr["name"].astype(str)).categories
    labels = [path_module(str(p), v) for p in uniq]
    mods = sorted({name for _, name in labels})
    mi = {name: i for i, name in enumerate(mods)}
    lay_of = np.array([lay for lay, _ in labels], np.int64)
    mod_of = np.array([mi[name] for _, name in labels], np.int64)
    c = code[inner[got]]
    layer[has[got]] = lay_of[c]
    module[has[got]] = mod_of[c]
    return layer, module, mods


def _innermost(hit: np.ndarray) -> np.ndarray:
    """Per row of a stab matrix: the deepest hit, -1 none."""
    if not hit.shape[1]:
        return np.full(hit.shape[0], -1, np.int64)
    valid = hit >= 0
    deepest = hit.shape[1] - 1 - np.argmax(valid[:, ::-1], axis=1)
    out = hit[np.arange(hit.shape[0]), deepest]
    return np.where(valid.any(axis=1), out, -1)


def from_frames(ops: pd.DataFrame, launches: pd.DataFrame, cpu_ops: pd.DataFrame,
                v: Vocab | None = None) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """Per op: layer, module index (-1 where no module frame holds the launch) and the module names,
    from the torch module frames (python_function `nn.Module: <Class>_<n>`) around its launch."""
    v = v or vocab()
    layer = np.full(len(ops), OUTSIDE, np.int64)
    module = np.full(len(ops), -1, np.int64)
    if not len(cpu_ops):
        return layer, module, []
    names = cpu_ops["name"]
    cats = pd.Categorical(names)
    is_mod = np.array([str(c).startswith(MODULE_PREFIX) for c in cats.categories], bool)
    m = (cats.codes >= 0) & (is_mod[cats.codes] if len(cats.categories) else False)
    if not m.any():
        return layer, module, []
    fr = cpu_ops[m].reset_index(drop=True)
    has, q_thread, q_t, fthread = _launch_points(ops, launches, fr)
    if not has.size:
        return layer, module, []
    fs, fe = fr["start_ns"].to_numpy(np.int64), fr["end_ns"].to_numpy(np.int64)
    level = _module_levels(fthread, fs, fe)
    hit = _stab(q_thread, q_t, fthread, fs, fe, level)
    names = fr["name"].astype("category")  # a class per distinct frame name, not per frame
    cls = np.array([_class_of(str(c)) for c in names.cat.categories] + [""], dtype=object)[
        names.cat.codes.to_numpy()]
    layer_cls = _layer_class(hit, cls, ops["step"].to_numpy()[has])
    if layer_cls is None:
        return layer, module, []
    # each frame's parent frame, and each frame's place among its parent's frames of its class
    parent = _parents(fthread, fs, fe, level)
    labels = _frame_labels(cls, parent, fs, layer_cls, v)
    mods = sorted(set(labels))
    mi = {name: i for i, name in enumerate(mods)}
    inner = _innermost(hit)
    got = inner >= 0
    # the layer frame around each op, numbered by its order in the op's step
    lay_frame = np.full(has.size, -1, np.int64)
    for j in range(hit.shape[1]):
        col = hit[:, j]
        sel = (lay_frame < 0) & (col >= 0)
        sel[sel] = cls[col[sel]] == layer_cls
        lay_frame[sel] = col[sel]
    step = ops["step"].to_numpy()[has]
    layer[has] = _number_in_step(lay_frame, step, fs)
    label_index = np.array([mi[x] for x in labels], np.int64)  # per frame
    module[has[got]] = label_index[inner[got]]
    return layer, module, mods


def _class_of(name: str) -> str:
    """'nn.Module: DecoderLayer_3' -> 'DecoderLayer'."""
    base = name[len(MODULE_PREFIX):]
    head, _, tail = base.rpartition("_")
    return head if tail.isdigit() and head else base


def _module_levels(thread: np.ndarray, start: np.ndarray, end: np.ndarray) -> np.ndarray:
    """Nesting depth of each frame among the module frames of its thread (0 = outermost)."""
    order = np.lexsort((-end, start, thread))
    depth = np.zeros(start.size, np.int64)
    stack: list[tuple[int, int]] = []  # (thread, end) of the open frames
    for i in order:  # frames per thread are few thousand: one pass
        while stack and (stack[-1][0] != thread[i] or stack[-1][1] <= start[i]):
            stack.pop()
        depth[i] = len(stack)
        stack.append((thread[i], end[i]))
    return depth


def _parents(thread: np.ndarray, start: np.ndarray, end: np.ndarray, level: np.ndarray) -> np.ndarray:
    """The frame each module frame sits in (-1 outermost)."""
    parent = np.full(start.size, -1, np.int64)
    inner = level > 0
    if inner.any():
        hit = _stab(thread[inner], start[inner], thread, start, end, level)
        # its parent is the hit one level up
        lv = level[inner]
        levels = np.unique(level)
        pos = np.searchsorted(levels, lv) - 1
        parent[inner] = hit[np.arange(hit.shape[0]), np.maximum(pos, 0)]
    return parent


def _layer_class(hit: np.ndarray, cls: np.ndarray, step: np.ndarray) -> str | None:
    """The class whose instances are the layers: the one that holds most ops among classes with 2+
    instances in a step whose instances hold at least half of the ops some module frame holds
    (steps replayed from CUDA graphs have none)."""
    best, best_n = None, 0
    framed = (hit >= 0).any(axis=1)
    if not framed.any():
        return None
    hit, step = hit[framed], step[framed]
    for c in np.unique(cls):
        inst = np.full(hit.shape[0], -1, np.int64)
        for j in range(hit.shape[1]):
            col = hit[:, j]
            sel = (inst < 0) & (col >= 0)
            sel[sel] = cls[col[sel]] == c
            inst[sel] = col[sel]
        held = inst >= 0
        if not held.any():
            continue
        per_step = pd.DataFrame({"s": step[held], "i": inst[held]}).groupby("s")["i"].nunique()
        share = held.sum() / hit.shape[0]
        if per_step.median() >= 2 and share >= 0.5 and held.sum() > best_n:
            best, best_n = c, int(held.sum())
    return best


def _frame_labels(cls: np.ndarray, parent: np.ndarray, start: np.ndarray, layer_cls: str, v: Vocab) -> list[str]:
    """The canonical module name of every frame, from its class, its parent's class and its place
    among its parent's frames of the same kind."""
    n = cls.size
    rule = [class_rule(str(c), v) for c in cls]
    role = [r.name if r is not None else "" for r in rule]
    # place of each frame among its parent's frames of the same role (in call order)
    key = pd.DataFrame({"p": parent, "r": role, "s": start})
    place = key.sort_values("s", kind="stable").groupby(["p", "r"]).cumcount().reindex(key.index).to_numpy()
    count = key.groupby(["p", "r"])["s"].transform("size").to_numpy()
    out = []
    for i in range(n):  # per distinct frame (thousands), not per op
        c, r, p = str(cls[i]), role[i], parent[i]
        pr = role[p] if p >= 0 else ""
        in_layer = p >= 0 and (str(cls[p]) == layer_cls)
        if c == layer_cls:
            out.append("residual_add")
        elif r == "linear":
            roles = rule[p].linears.get(int(count[i])) if p >= 0 and rule[p] is not None else None
            out.append(roles[place[i]] if roles else ("lm_head" if p >= 0 and not _under(i, parent, cls, layer_cls)
                                                      and place[i] == count[i] - 1 else f"{pr or 'linear'}.linear"))
        elif r == "norm":
            if in_layer:
                out.append(("input_norm", "post_attention_norm")[place[i]] if place[i] < 2 else "norm")
            elif not _under(i, parent, cls, layer_cls):
                out.append("final_norm")
            else:
                out.append(f"{pr}.norm" if pr else "norm")
        elif r == "conv":
            out.append(f"{pr}.conv" if pr else "conv")
        elif r:
            out.append(r)
        else:
            out.append("model" if not _under(i, parent, cls, layer_cls) else c.lower())
    return out


def _under(i: int, parent: np.ndarray, cls: np.ndarray, layer_cls: str) -> bool:
    """Whether frame i sits inside a layer frame."""
    p = parent[i]
    while p >= 0:
        if str(cls[p]) == layer_cls:
            return True
        p = parent[p]
    return False


def _number_in_step(frame: np.ndarray, step: np.ndarray, start: np.ndarray) -> np.ndarray:
    """Each op's layer frame numbered by its start among the layer frames of the op's step
    (OUTSIDE for ops in no layer frame)."""
    out = np.full(frame.size, OUTSIDE, np.int64)
    m = frame >= 0
    if not m.any():
        return out
    pairs = pd.DataFrame({"step": step[m], "f": frame[m], "s": start[frame[m]]}).drop_duplicates(["step", "f"])
    pairs = pairs.sort_values(["step", "s"], kind="stable")
    pairs["n"] = pairs.groupby("step").cumcount()
    idx = pd.MultiIndex.from_arrays([step[m], frame[m]])
    out[m] = pairs.set_index(["step", "f"])["n"].reindex(idx).to_numpy(np.int64)
    return out
