"""Inside the step: every GPU op's layer and module, and the time of each.

Per step, every GPU op gets a layer (its index; OUTSIDE for the part around the layers:
embedding, final norm, lm_head, sampling) and a module (q_proj, attention, down_proj, ...), from
the best evidence the step has (`SOURCES`, best first):
  nvtx      module ranges around the op's launch call, named by the module's qualified name
            (NVTX or record_function: model.layers.3.mlp.down_proj; Megatron names too);
  names     torch Python frames of modules around the launch call (with_stack: nn.Module:
            DecoderLayer_3 > MLP_3 > Linear_20): the layer is the n-th instance of the class that
            repeats through the step, a Linear is named by its parent and its place among the
            parent's Linear calls;
  position  the step's kernel sequence aligned with a step of the same rank that has names (an
            eager prefill beside graph-replayed decodes, as vLLM V1 runs): every op takes the
            label of the op it aligns with; ops that align with none, and steps with no such step,
            are cut into layers by the repeating kernel pattern (attention kernels mark each
            layer) and named by their place in the layer ("op 3: linear").
Layer types group layers by their kernel sequence (hybrid attention / linear attention, MoE
every other layer, one wider layer). The names are data: rules/modules.toml. Times int64 ns.
"""
from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import pandas as pd

from .intervals import pack_keys
from .report import Inside, LayerEvidence, LayerTime, ModuleRatio, ModuleTime, SlowLayer

OUTSIDE = -1  # layer of the ops around the layers
NO_STEP = -2  # layer of the ops outside every step
SOURCES = ("nvtx", "names", "position", "none")
MODULE_PREFIX = "nn.Module: "


# --- vocabulary --------------------------------------------------------------------------------

@dataclass(frozen=True)
class PathRule:
    name: str
    match: re.Pattern
    outside: bool


@dataclass(frozen=True)
class ClassRule:
    name: str
    match: re.Pattern
    exclude: re.Pattern | None
    linears: dict[int, tuple[str, ...]]


@dataclass(frozen=True)
class Vocab:
    layer: re.Pattern
    module: re.Pattern
    paths: tuple[PathRule, ...]
    classes: tuple[ClassRule, ...]
    helper: re.Pattern  # kernels that finish another's work (split-K reductions, fills)
    anchor_bucket: str  # the bucket position alignment matches first


@lru_cache(maxsize=1)
def vocab() -> Vocab:
    """rules/modules.toml, compiled."""
    from . import vocab as rules

    doc = rules.load("modules", rules.ModulesFile)
    return Vocab(
        layer=re.compile(doc.paths.layer), module=re.compile(doc.paths.module),
        paths=tuple(PathRule(r.name, re.compile(r.match), r.outside) for r in doc.path),
        classes=tuple(ClassRule(r.name, re.compile(r.match), re.compile(r.not_) if r.not_ else None,
                                {int(k): tuple(v) for k, v in r.linears.items()}) for r in doc.class_),
        helper=re.compile(doc.kernels.helper, re.I), anchor_bucket=doc.kernels.anchor_bucket)


def path_module(path: str, v: Vocab | None = None) -> tuple[int, str]:
    """(layer index or OUTSIDE, canonical module name) of a qualified module name."""
    v = v or vocab()
    m = v.layer.search(path)
    layer = int(m.group(1)) if m else OUTSIDE
    if m and m.end() == len(path):
        return layer, "residual_add"  # the layer's own ops (its residual adds)
    for r in v.paths:
        if (not r.outside or layer == OUTSIDE) and r.match.search(path):
            return layer, r.name
    return layer, "model" if layer == OUTSIDE else "other"


def class_rule(cls: str, v: Vocab | None = None) -> ClassRule | None:
    v = v or vocab()
    for r in v.classes:
        if r.match.search(cls) and not (r.exclude and r.exclude.search(cls)):
            return r
    return None


# --- the result --------------------------------------------------------------------------------

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


# --- evidence: module ranges and module frames around the launch call ---------------------------

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
    cls = np.array([_class_of(str(n)) for n in fr["name"]], dtype=object)
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
    module[has[got]] = np.array([mi[labels[i]] for i in inner[got]], np.int64) if got.any() else []
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


# --- evidence: position ---------------------------------------------------------------------------

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


# --- the assignment ---------------------------------------------------------------------------------

def assign(ops: pd.DataFrame, table: pd.DataFrame, launches: pd.DataFrame, ranges: pd.DataFrame,
           cpu_ops: pd.DataFrame, bucket_codes: np.ndarray, attention: np.ndarray | None,
           kernel_names: pd.Index | None = None, buckets: tuple[str, ...] = ()) -> Assignment:
    """Layers and modules of one rank's GPU ops (ops: steps.Steps.ops, step = row of `table`,
    name_code = code into `kernel_names`, the kernel table's name categories; bucket_codes: per op,
    into `buckets`; attention: per op, an attention kernel)."""
    v = vocab()
    n = len(ops)
    step = ops["step"].to_numpy(np.int64)
    nsteps = len(table)
    att = attention if attention is not None else np.zeros(n, bool)
    code = ops["name_code"].to_numpy(np.int64) if "name_code" in ops.columns else np.full(n, -1, np.int64)
    fine = np.where(code >= 0, code, -1 - bucket_codes)  # the kernel, or the bucket of a non-kernel op
    helper = np.zeros(n, bool)
    if kernel_names is not None and len(kernel_names):
        is_helper = np.array([bool(v.helper.search(str(x))) for x in kernel_names], bool)
        helper[code >= 0] = is_helper[code[code >= 0]]
    toks = bucket_codes * 2 + helper  # what aligns across kinds: the bucket, and whether it finishes another
    lr, mr, names_r = from_ranges(ops, launches, ranges, v)
    lf, mf, names_f = from_frames(ops, launches, cpu_ops, v)
    modules = sorted(set(names_r) | set(names_f))
    mi = {m: i for i, m in enumerate(modules)}
    mr = np.where(mr >= 0, np.array([mi[x] for x in names_r] + [0], np.int64)[mr], -1) if names_r else mr
    mf = np.where(mf >= 0, np.array([mi[x] for x in names_f] + [0], np.int64)[mf], -1) if names_f else mf
    layer = np.full(n, NO_STEP, np.int64)
    module = np.full(n, -1, np.int64)
    source = np.full(nsteps, "none", dtype=object)
    reference = np.full(nsteps, "", dtype=object)
    # order of ops inside each step: GPU start (the order of the kernel sequence)
    order = np.lexsort((ops["start_ns"].to_numpy(np.int64), step))
    order = order[step[order] >= 0]
    bounds = np.searchsorted(step[order], np.arange(nsteps + 1))
    per_step = [order[bounds[s]:bounds[s + 1]] for s in range(nsteps)]
    labeled: dict[int, tuple[np.ndarray, np.ndarray, list[str]]] = {}  # step -> (tokens, layer, module names)
    for s, rows in enumerate(per_step):  # per step (hundreds to thousands), each vectorized
        if not rows.size:
            continue
        for name, lay, mod in (("nvtx", lr, mr), ("names", lf, mf)):
            got = mod[rows] >= 0
            if got.mean() >= 0.5:
                source[s] = name
                layer[rows] = _fill(np.where(got, lay[rows], NO_STEP))
                module[rows] = np.where(got, mod[rows], -1)
                labeled[s] = (toks[rows], layer[rows],
                              [modules[m] if m >= 0 else "other" for m in module[rows]])
                break
    ranks = table["rank"].to_numpy()
    kinds = table["kind"].astype(str).to_numpy()
    anchor = None  # per token value: a GEMM (not a helper), what position alignment anchors on
    if v.anchor_bucket in buckets:
        anchor = np.zeros(2 * max(len(buckets), int(toks.max(initial=0)) // 2 + 1), bool)
        anchor[2 * buckets.index(v.anchor_bucket)] = True
    cache: dict[tuple, tuple[np.ndarray, np.ndarray, str]] = {}
    for s, rows in enumerate(per_step):
        if not rows.size or source[s] != "none":
            continue
        t = toks[rows]
        ref = _reference(s, labeled, ranks, kinds)
        key = (ref, t.tobytes(), fine[rows].tobytes(), att[rows].tobytes())
        if key not in cache:
            cache[key] = _by_position(t, fine[rows], att[rows], labeled.get(ref) if ref is not None else None,
                                      [buckets[b] if 0 <= b < len(buckets) else "" for b in bucket_codes[rows]],
                                      anchor)
        lay, mod_names, src, aligned = cache[key]
        source[s] = src
        reference[s] = kinds[ref] if aligned else ""
        layer[rows] = lay
        for name in set(mod_names):
            if name not in mi:
                mi[name] = len(modules)
                modules.append(name)
        module[rows] = np.array([mi[x] for x in mod_names], np.int64)
    layer[step < 0] = NO_STEP
    lt, types = _types(layer, module, modules, step, fine, per_step)
    return Assignment(layer=layer, module=module, modules=modules, source=source, layer_type=lt, types=types,
                      reference=reference)


def _reference(s: int, labeled: dict, ranks: np.ndarray, kinds: np.ndarray) -> int | None:
    """The labeled step a step without names takes its labels from: same rank, the same kind first."""
    same = [r for r in labeled if ranks[r] == ranks[s]]
    for r in same:
        if kinds[r] == kinds[s]:
            return r
    return same[0] if same else None


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
    place = np.zeros(toks.size, np.int64)
    if (seg >= 0).any():
        first = np.r_[True, seg[1:] != seg[:-1]]
        start = np.maximum.accumulate(np.where(first, np.arange(seg.size), 0))
        place = np.arange(seg.size) - start
    names = [(f"op {p}: {b}" if b else f"op {p}") if lay >= 0 else "outside" for p, lay, b in zip(place, seg, bucket)]
    return layer, names, "position" if (seg >= 0).any() else "none", False


def _types(layer: np.ndarray, module: np.ndarray, modules: list[str], step: np.ndarray, fine: np.ndarray,
           per_step: list[np.ndarray]) -> tuple[pd.DataFrame, list[str]]:
    """Every (step, layer)'s type: layers with the same kernel sequence share one; each type named
    by the modules its layers hold."""
    rows_s, rows_l, sigs = [], [], []
    for s, rows in enumerate(per_step):
        lay = layer[rows]
        for lv in np.unique(lay[lay >= 0]):
            r = rows[lay == lv]
            rows_s.append(s)
            rows_l.append(int(lv))
            sigs.append(fine[r].tobytes())
    if not sigs:
        return pd.DataFrame({"step": [], "layer": [], "type": []}, dtype=np.int64), []
    codes, uniq = pd.factorize(pd.Series(sigs))
    return pd.DataFrame({"step": np.array(rows_s, np.int64), "layer": np.array(rows_l, np.int64),
                         "type": codes.astype(np.int64)}), [f"type {chr(65 + i)}" if i < 26 else f"type {i}"
                                                             for i in range(len(uniq))]


# --- the time of layers and modules ----------------------------------------------------------------

LAYER_COLUMNS = ["rank", "step", "layer", "type", "time_ns"]  # + <bucket>_ns per bucket present
MODULE_COLUMNS = ["rank", "step", "layer", "module", "time_ns", "count"]
STEP_COLUMNS = ["rank", "step", "module", "time_ns", "exposed_ns", "count"]
SOURCE_COLUMNS = ["rank", "step", "source", "reference"]


@dataclass
class Times:
    """One rank's layer and module times per step (ns; `step` is the step's index on its rank).

    layers: LAYER_COLUMNS + <bucket>_ns: per step and layer (OUTSIDE included), the union of its
            ops and of its ops of each bucket, and its type (into Assignment.types);
    modules: MODULE_COLUMNS: per step, layer and module (its name), the union of the module's ops
             in the layer and their count;
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
    from .attribute import category_unions

    step = ops["step"].to_numpy(np.int64)
    keep = (step >= 0) & (a.layer != NO_STEP) & (a.module >= 0)
    st = np.where(keep, step, -1)
    s, e = ops["start_ns"].to_numpy(np.int64), ops["end_ns"].to_numpy(np.int64)
    start = table["start_ns"].to_numpy(np.int64)
    span = (table["end_ns"] - table["start_ns"]).to_numpy(np.int64)
    rank, index = table["rank"].to_numpy(np.int64), table["index"].to_numpy(np.int64)
    nl = int(a.layer[keep].max()) + 2 if keep.any() else 1  # layer + 1: 0 is OUTSIDE
    nb, nm = len(buckets), max(len(a.modules), 1)
    lay = np.where(keep, a.layer + 1, 0)
    lt, _ = category_unions(s, e, lay, st, start, span, nl)
    # the (layer, bucket) and (layer, module) pairs that occur, as compact codes: dense tables over
    # every pair would grow with layers x modules x steps
    lb_code, lb_pairs = np.unique(np.where(keep, lay * nb + bucket_codes, 0), return_inverse=True)[::-1]
    lbt, _ = category_unions(s, e, lb_code, st, start, span, lb_pairs.size)
    lm_code, lm_pairs = np.unique(np.where(keep, lay * nm + np.maximum(a.module, 0), 0), return_inverse=True)[::-1]
    lmt, _ = category_unions(s, e, lm_code, st, start, span, lm_pairs.size)
    mt, mx = category_unions(s, e, np.maximum(a.module, 0), st, start, span, nm)
    lmc = np.bincount(st[keep] * lm_pairs.size + lm_code[keep], minlength=len(table) * lm_pairs.size)
    mc = np.bincount(st[keep] * nm + a.module[keep], minlength=len(table) * nm)
    si, li = np.nonzero(lt > 0)
    types = a.layer_type.set_index(["step", "layer"])["type"] if len(a.layer_type) else pd.Series(dtype=np.int64)
    ty = types.reindex(pd.MultiIndex.from_arrays([si, li - 1])).fillna(-1).to_numpy(np.int64)
    layers = pd.DataFrame({"rank": rank[si], "step": index[si], "layer": li - 1, "type": ty, "time_ns": lt[si, li]})
    at = pd.MultiIndex.from_arrays([si, li])
    for j, b in enumerate(buckets):
        cols = np.flatnonzero(lb_pairs % nb == j)
        if cols.size and lbt[:, cols].any():
            per = pd.DataFrame(lbt[:, cols], columns=lb_pairs[cols] // nb).stack()
            layers[f"{b}_ns"] = per.reindex(at, fill_value=0).to_numpy(np.int64)
    si, ci = np.nonzero(lmc.reshape(len(table), lm_pairs.size) > 0)
    names = np.asarray(a.modules + ["other"], dtype=object)
    pair = lm_pairs[ci]
    modules = pd.DataFrame({"rank": rank[si], "step": index[si], "layer": pair // nm - 1,
                            "module": names[pair % nm],
                            "time_ns": lmt[si, ci], "count": lmc.reshape(len(table), lm_pairs.size)[si, ci]})
    mc2 = mc.reshape(len(table), nm)
    si, mi = np.nonzero(mc2 > 0)
    steps = pd.DataFrame({"rank": rank[si], "step": index[si],
                          "module": names[mi],
                          "time_ns": mt[si, mi], "exposed_ns": mx[si, mi], "count": mc2[si, mi]})
    sources = pd.DataFrame({"rank": rank, "step": index, "source": a.source.astype(object),
                            "reference": a.reference.astype(object)})
    return Times(layers=layers, modules=modules, steps=steps, sources=sources, types=list(a.types))


# --- a kind's summary ------------------------------------------------------------------------------

SLOW = 1.2  # a layer this many times the median layer is called out
MIN_LAYERS = 2  # fewer layers per step than this: nothing to say inside the step
MIN_COVER = 0.1  # layers that hold less of the step's span than this are not what the step is about


def section(k: pd.DataFrame, t: Times, buckets: tuple[str, ...]) -> Inside | None:
    """Inside a kind's steps (`k`: its steady steps, rank and index): per layer (index, type, time and
    bucket times), per module summed over the layers, the slowest layers against the median layer
    and how they were found; None when its steps hold fewer than MIN_LAYERS
    layers or the layers hold less than MIN_COVER of the span."""
    key = pd.MultiIndex.from_arrays([k["rank"].to_numpy(np.int64), k["index"].to_numpy(np.int64)])
    lay = _rows(t.layers, key)
    inner = lay[lay["layer"] >= 0]
    if not len(inner) or inner.groupby(["rank", "step"])["layer"].nunique().median() < MIN_LAYERS:
        return None
    span = k["span_ns"].to_numpy(np.float64)
    held = _full(inner, "rank", ["time_ns"], key)["time_ns"].sum(axis=1)
    if np.median(held) < MIN_COVER * np.median(span):
        return None
    mods = _rows(t.modules, key)
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
        for j, name in enumerate(_full_names(per_step, "module")):
            modules.append(ModuleTime(name=str(name), source=best, time_ns=float(np.median(tm[:, j])),
                                      count=float(np.median(cnt[:, j])),
                                      share=float(tm[:, j].sum() / tot) if tot else 0.0,
                                      speedup_bound_if_removed=float(np.median(bound[:, j]))))
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


def _rows(df: pd.DataFrame, key: pd.MultiIndex) -> pd.DataFrame:
    """The rows of a per-step frame (rank, step) that belong to the steps `key`."""
    if not len(df):
        return df
    m = pd.MultiIndex.from_arrays([df["rank"].to_numpy(np.int64), df["step"].to_numpy(np.int64)]).isin(key)
    return df[m]


def _full_names(df: pd.DataFrame, by: str) -> list:
    """The values of `by` in df, in the order _full lays out its columns."""
    vals = pd.unique(df[by]).tolist()
    return sorted(vals) if pd.api.types.is_numeric_dtype(df[by]) else sorted(vals, key=str)


def _full(df: pd.DataFrame, by: str, cols: list[str], key: pd.MultiIndex) -> dict[str, np.ndarray]:
    """Per column of `cols`: a (steps of `key`) x (values of `by`, _full_names order) array of the
    column summed per step and value, 0 where a step has none."""
    names = _full_names(df, by)
    code = pd.Categorical(df[by], categories=names).codes.astype(np.int64)
    row = key.get_indexer(pd.MultiIndex.from_arrays([df["rank"].to_numpy(np.int64), df["step"].to_numpy(np.int64)]))
    out = {}
    for c in cols:
        a = np.zeros((len(key), len(names)), np.float64)
        np.add.at(a, (row, code), df[c].to_numpy(np.float64))
        out[c] = a
    return out


def _median_per(df: pd.DataFrame, by: str, cols: list[str], key: pd.MultiIndex) -> dict[str, pd.Series]:
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
    held = pairs.groupby("layer")["module"].agg(set)
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


def _slow(layers: list[LayerTime], mods: pd.DataFrame, key: pd.MultiIndex) -> list[SlowLayer]:
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
    per = inner.groupby(["layer", "module"])["time_ns"].sum() / max(len(key), 1)
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
