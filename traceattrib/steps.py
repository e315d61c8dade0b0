"""Split a trace into steps and assign every GPU op to one.

Evidence, best first: ranges named by `--steps REGEX`; annotation ranges that mark steps (NVTX or
record_function: `decode_step_N`, `prefill`, `ProfilerStep#N`, SGLang `step[...]`, ...); CUDA-graph
launches (one replay = one step); and, when nothing marks steps, detection from the kernel stream.

CPU ranges are projected onto the GPU through correlation ids: a GPU op belongs to a step when the
API call that launched it lies inside the step's range on the same process, so GPU work that runs
behind the CPU (queued kernels, graph replays) is still attributed to the step that issued it.
All times are int64 ns.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .model import Trace

# Range names that mark steps (searched, case-insensitive); the family with most matches wins.
STEP_NAME_PATTERNS: tuple[str, ...] = (
    r"^ProfilerStep#\d+$",
    r"\b(?:prefill|decode|extend|mixed)(?:\b|_)",
    r"(?:^|[_\s:])step(?:[_ #\[-]|\d|$)",
    r"^execute_\d+_context_\d+",
    r"(?:^|[_\s:.])(?:execute_model|model_forward|forward_batch|generate_step)(?:\b|_)",
)
KIND_PATTERNS: dict[str, str] = {
    "prefill": r"prefill|extend|prompt|context_[1-9]",
    "decode": r"decode|generation_[1-9]|gen(?:erate)?_step",
    "mixed": r"mixed",
}
GRAPH_LAUNCH = re.compile(r"^(?:cuda|cu|hip)GraphLaunch", re.I)


@dataclass
class Steps:
    """Steps and the op -> step assignment.

    table: one row per step: rank, index, name, kind, evidence, cpu_start_ns, cpu_end_ns,
           start_ns, end_ns (GPU window: first op start to last op end), n_ops, warmup, outlier.
    ops:   GPU ops (kernels, memops, whole-graph executions) with `step` (-1 = outside steps).
    evidence: how steps were found: 'regex' | 'annotations' | 'cuda_graphs' | 'detected' | 'none'.
    notes: what the user should know (thin evidence, inferred kinds, dropped warm-up...).
    """

    table: pd.DataFrame
    ops: pd.DataFrame
    evidence: str
    notes: list[str] = field(default_factory=list)


def gpu_ops(trace: Trace) -> pd.DataFrame:
    """Kernels, memory ops and whole-graph executions in one table, with their launch call time.

    Columns: start_ns, end_ns, device, stream, rank, pid, correlation, kind ('kernel' | 'memop' |
    'graph'), src (row in its source table), name_code (kernel name category code, -1 for others),
    launch_start_ns (-1 when no launch call was found).
    """
    parts = []
    for kind, tab in (("kernel", trace.kernels), ("memop", trace.memops), ("graph", trace.graphs)):
        if len(tab):
            parts.append(pd.DataFrame({
                "start_ns": tab["start_ns"].to_numpy(), "end_ns": tab["end_ns"].to_numpy(),
                "device": tab["device"].to_numpy(), "stream": tab["stream"].to_numpy(),
                "rank": tab["rank"].to_numpy(), "pid": tab["pid"].to_numpy(),
                "correlation": tab["correlation"].to_numpy(), "kind": kind, "src": np.arange(len(tab)),
                "name_code": tab["name"].cat.codes.to_numpy(np.int64) if kind == "kernel" else -1}))
    if not parts:
        return pd.DataFrame(columns=["start_ns", "end_ns", "device", "stream", "rank", "pid", "correlation",
                                     "kind", "src", "launch_start_ns"])
    ops = pd.concat(parts, ignore_index=True)
    ops["launch_start_ns"] = launch_start(ops, trace.launches)
    return ops.sort_values(["rank", "start_ns"], kind="stable", ignore_index=True)


def launch_start(ops: pd.DataFrame, launches: pd.DataFrame) -> np.ndarray:
    """Start of the API call that launched each op (same rank, process and correlation id), -1 if none.

    A sorted-key join: rank, pid and the 32-bit correlation id packed into one int64."""
    out = np.full(len(ops), -1, np.int64)
    if not len(launches) or not len(ops):
        return out
    cols = [(launches[c].to_numpy(np.int64), ops[c].to_numpy(np.int64)) for c in ("rank", "pid", "correlation")]
    fits = all(a.min() >= 0 and b.min() >= 0 for a, b in cols) and \
        max(cols[0][0].max(), cols[0][1].max()) < 2 ** 7 and max(cols[1][0].max(), cols[1][1].max()) < 2 ** 24 and \
        max(cols[2][0].max(), cols[2][1].max()) < 2 ** 32
    if not fits:  # unusual ids: the general (slower) join
        key = launches[["rank", "pid", "correlation", "start_ns"]].drop_duplicates(["rank", "pid", "correlation"])
        m = ops[["rank", "pid", "correlation"]].merge(key, how="left", on=["rank", "pid", "correlation"])
        return m["start_ns"].fillna(-1).astype(np.int64).to_numpy()
    lk = (cols[0][0] << 56) | (cols[1][0] << 32) | cols[2][0]
    ok = (cols[0][1] << 56) | (cols[1][1] << 32) | cols[2][1]
    order = np.argsort(lk, kind="stable")  # stable: the first (earliest) call wins on duplicates
    sk = lk[order]
    pos = np.minimum(np.searchsorted(sk, ok, side="left"), sk.size - 1)
    hit = sk[pos] == ok
    out[hit] = launches["start_ns"].to_numpy(np.int64)[order[pos[hit]]]
    return out


def find_steps(trace: Trace, regex: str | None = None) -> Steps:
    """Find steps from the best evidence present and assign GPU ops to them."""
    ops = gpu_ops(trace)
    notes: list[str] = []
    table = None
    evidence = "none"
    if regex:
        try:
            pat = re.compile(regex)
        except re.error as e:
            from .errors import TraceError
            raise TraceError(f"--steps: invalid regular expression {regex!r} ({e})") from None
        rng = _select_ranges(trace.ranges, [pat], outermost=True)
        if not len(rng):
            from .errors import TraceError
            raise TraceError(f"--steps {regex!r} matches no range name in the trace")
        table, evidence = _from_ranges(rng, ops), "regex"
    if table is None:
        rng = _auto_step_ranges(trace.ranges)
        if len(rng):
            table, evidence = _from_ranges(rng, ops), "annotations"
    if table is None:
        table = _from_graph_launches(trace, ops)
        if table is not None:
            evidence = "cuda_graphs"
            notes.append("no step annotations: each CUDA-graph launch is taken as one step")
    if table is None:
        table = _detect(ops)
        if table is not None:
            evidence = "detected"
            notes.append("no step annotations or CUDA graphs: steps were detected from the repeating "
                         "kernel sequence; boundaries are inferred, name steps with NVTX ranges or "
                         "record_function (or pass --steps REGEX) for exact ones")
    if table is None:
        table = _whole_trace(ops)
        evidence = "none"
        notes.append("no step annotations, no CUDA graphs and no repeating kernel sequence: "
                     "the whole trace is reported as one step")
    table = _finish(table, ops, trace, notes)
    return Steps(table=table, ops=ops, evidence=evidence, notes=notes)


# --- evidence: ranges ---------------------------------------------------------------------------

def name_matches(names: pd.Series, pattern: re.Pattern | str) -> np.ndarray:
    """Boolean mask of names matching a regex, tested once per distinct name (names may be
    millions of rows, e.g. every CUDA API call)."""
    cat = pd.Categorical(names)
    cat_hit = pd.Series(cat.categories.astype(str)).str.contains(pattern, regex=True).to_numpy(bool)
    return np.where(cat.codes >= 0, cat_hit[np.maximum(cat.codes, 0)], False)


def _select_ranges(ranges: pd.DataFrame, patterns: list[re.Pattern], outermost: bool) -> pd.DataFrame:
    if not len(ranges):
        return ranges
    hit = np.zeros(len(ranges), bool)
    for p in patterns:
        hit |= name_matches(ranges["name"], p)
    # GPU-projected copies of CPU annotations (Kineto gpu_user_annotation) are not step ranges:
    # the projection through correlation does that job exactly.
    cpu_side = ranges["source"].astype(str) != "gpu_user_annotation"
    sel = ranges[hit & cpu_side.to_numpy()]
    if not len(sel):
        sel = ranges[hit]
    return _drop_nested(sel) if outermost else sel


def _auto_step_ranges(ranges: pd.DataFrame) -> pd.DataFrame:
    """Pick the family of step-marking ranges with most members (ties: the outer one)."""
    if not len(ranges):
        return ranges
    best = None
    for p in STEP_NAME_PATTERNS:
        sel = _select_ranges(ranges, [re.compile(p, re.I)], outermost=True)
        if not len(sel):
            continue
        score = (len(sel), -int(sel["depth"].min()))
        if best is None or score > best[0]:
            best = (score, sel)
    return ranges.iloc[0:0] if best is None else best[1]


def _drop_nested(sel: pd.DataFrame) -> pd.DataFrame:
    """Keep ranges not contained in another selected range of the same rank and process."""
    if len(sel) < 2:
        return sel
    sel = sel.sort_values(["rank", "pid", "start_ns", "end_ns"], ascending=[True, True, True, False],
                          kind="stable")
    grp = (sel["rank"].astype(np.int64).to_numpy() << 32) ^ sel["pid"].to_numpy()
    end = sel["end_ns"].to_numpy()
    run_end = pd.Series(end).groupby(grp).cummax().to_numpy()
    prev_end = pd.Series(run_end).groupby(grp).shift(1).fillna(-1).astype(np.int64).to_numpy()
    inside = sel["start_ns"].to_numpy() < prev_end
    inside &= end <= prev_end
    return sel[~inside]


def _from_ranges(rng: pd.DataFrame, ops: pd.DataFrame) -> pd.DataFrame | None:
    """Steps from CPU ranges; ops are assigned by the time of their launch call."""
    rng = rng.sort_values(["rank", "start_ns"], kind="stable").reset_index(drop=True)
    gpu_side = (rng["source"].astype(str) == "gpu_user_annotation").to_numpy()
    table = pd.DataFrame({
        "rank": rng["rank"].to_numpy(), "name": rng["name"].astype(str).to_numpy(),
        "cpu_start_ns": rng["start_ns"].to_numpy(), "cpu_end_ns": rng["end_ns"].to_numpy(),
        "pid": rng["pid"].to_numpy(), "gpu_side": gpu_side})
    step = np.full(len(ops), -1, np.int64)
    if len(ops):
        t = np.where(ops["launch_start_ns"].to_numpy() >= 0, ops["launch_start_ns"].to_numpy(),
                     ops["start_ns"].to_numpy())
        for (rank, pid, gside), grp in table.groupby(["rank", "pid", "gpu_side"], sort=False):
            om = ops["rank"].to_numpy() == rank
            if not gside:
                # same process; ops with no launch call fall back to their own GPU time
                om &= (ops["pid"].to_numpy() == pid) | (ops["launch_start_ns"].to_numpy() < 0)
                q = t[om]
            else:
                q = ops["start_ns"].to_numpy()[om]
            s = grp["cpu_start_ns"].to_numpy()
            e = grp["cpu_end_ns"].to_numpy()
            k = np.searchsorted(s, q, side="right") - 1
            ok = (k >= 0) & (q < e[np.maximum(k, 0)])
            idx = np.flatnonzero(om)
            step[idx[ok]] = grp.index.to_numpy()[k[ok]]
    ops["step"] = step
    return table


def _from_graph_launches(trace: Trace, ops: pd.DataFrame) -> pd.DataFrame | None:
    la = trace.launches
    if not len(la):
        return None
    g = la[name_matches(la["name"], GRAPH_LAUNCH)]
    if len(g) < 2:
        return None
    g = g.sort_values(["rank", "start_ns"], kind="stable").reset_index(drop=True)
    table = pd.DataFrame({"rank": g["rank"].to_numpy(), "name": [f"graph_launch_{i}" for i in range(len(g))],
                          "cpu_start_ns": g["start_ns"].to_numpy(), "cpu_end_ns": g["end_ns"].to_numpy(),
                          "pid": g["pid"].to_numpy(), "gpu_side": False})
    key = pd.DataFrame({"rank": g["rank"].to_numpy(), "pid": g["pid"].to_numpy(),
                        "correlation": g["correlation"].to_numpy(), "step": np.arange(len(g))})
    m = ops[["rank", "pid", "correlation"]].merge(key, how="left", on=["rank", "pid", "correlation"])
    ops["step"] = m["step"].fillna(-1).astype(np.int64).to_numpy()
    return table


# --- evidence: detection from the kernel stream ------------------------------------------------

def _detect(ops: pd.DataFrame, min_steps: int = 3) -> pd.DataFrame | None:
    """Steps from the repeating kernel sequence, per rank.

    The step period is the largest regular period of any kernel name: per-layer kernels repeat
    every layer, but a kernel that runs once per step (embedding, lm_head, sampling) repeats once
    per step. Boundaries are then put at the widest GPU gap position within the period.
    """
    k = ops[ops["kind"] == "kernel"]
    if len(k) < 2 * min_steps:
        return None
    rows = []
    step = np.full(len(ops), -1, np.int64)
    for rank, kr in k.groupby("rank", sort=True):
        kr = kr.sort_values("start_ns", kind="stable")
        n = len(kr)
        name_codes = kr["name_code"].to_numpy()
        pos = np.arange(n)
        order = np.lexsort((pos, name_codes))
        nc, pp = name_codes[order], pos[order]
        same = nc[1:] == nc[:-1]
        gaps = np.diff(pp)[same]
        gname = nc[1:][same]
        if not gaps.size:
            continue
        g = pd.DataFrame({"name": gname, "gap": gaps})
        stats = g.groupby("name")["gap"].agg(["median", "min", "max", "count"])
        regular = stats[(stats["count"] >= min_steps - 1) & (stats["min"] == stats["max"])]
        if not len(regular):
            continue
        period = int(regular["median"].max())
        if period < 2 or n // period < min_steps:
            continue
        # offset with the widest median idle gap before it -> step boundary
        st = kr["start_ns"].to_numpy()
        en = np.maximum.accumulate(kr["end_ns"].to_numpy())
        idle = np.r_[0, st[1:] - en[:-1]]
        usable = (n // period) * period
        off = int(np.argmax(np.median(idle[:usable].reshape(-1, period), axis=0)))
        bounds = np.arange(off, n, period)
        if bounds.size < min_steps:
            continue
        # whole periods only: a partial step at the end is not a step
        starts = bounds[bounds + period <= n]
        if starts.size < min_steps:
            continue
        stops = np.append(starts[1:], min(int(starts[-1]) + period, n))
        stops = np.where(np.append(starts[1:], n) - starts > period, starts + period, stops)
        first = len(rows)
        en_raw = kr["end_ns"].to_numpy()
        rows.extend({"rank": rank, "name": f"detected_{j}", "cpu_start_ns": int(st[b]),
                     "cpu_end_ns": int(en_raw[e - 1]), "pid": int(kr["pid"].iloc[0]), "gpu_side": True}
                    for j, (b, e) in enumerate(zip(starts, stops)))
        # every kernel from one step start to the next belongs to that step
        which = np.searchsorted(starts, np.arange(n), side="right") - 1
        inside = which >= 0
        inside[inside] = np.arange(n)[inside] < stops[which[inside]]
        step[kr.index.to_numpy()[inside]] = first + which[inside]
    if not rows:
        return None
    ops["step"] = step
    return pd.DataFrame(rows)


def _whole_trace(ops: pd.DataFrame) -> pd.DataFrame:
    rows = []
    step = np.full(len(ops), -1, np.int64)
    for rank, grp in ops.groupby("rank", sort=True):
        rows.append({"rank": rank, "name": "whole_trace", "cpu_start_ns": int(grp["start_ns"].min()),
                     "cpu_end_ns": int(grp["end_ns"].max()), "pid": int(grp["pid"].iloc[0]), "gpu_side": True})
        step[grp.index.to_numpy()] = len(rows) - 1
    ops["step"] = step
    return pd.DataFrame(rows, columns=["rank", "name", "cpu_start_ns", "cpu_end_ns", "pid", "gpu_side"])


# --- kinds, GPU windows, flags ------------------------------------------------------------------

def name_kind(name: str) -> str:
    """prefill | decode | mixed | unknown from a step's name."""
    hits = {k for k, p in KIND_PATTERNS.items() if re.search(p, name, re.I)}
    if "mixed" in hits or {"prefill", "decode"} <= hits:
        return "mixed"
    if hits:
        return hits.pop()
    return "unknown"


def _finish(table: pd.DataFrame, ops: pd.DataFrame, trace: Trace, notes: list[str]) -> pd.DataFrame:
    table = table.reset_index(drop=True)
    st = ops[ops["step"] >= 0]
    win = st.groupby("step").agg(start_ns=("start_ns", "min"), end_ns=("end_ns", "max"), n_ops=("start_ns", "size"))
    table = table.join(win)
    empty = table["n_ops"].isna()
    if empty.any():
        notes.append(f"{int(empty.sum())} step range(s) launched no GPU work and are left out")
        keep = ~empty.to_numpy()
        remap = np.full(len(table), -1, np.int64)
        remap[keep] = np.arange(int(keep.sum()))
        ops["step"] = np.where(ops["step"] >= 0, remap[np.maximum(ops["step"].to_numpy(), 0)], -1)
        table = table[keep].reset_index(drop=True)
    table["start_ns"] = table["start_ns"].astype(np.int64)
    table["end_ns"] = table["end_ns"].astype(np.int64)
    table["n_ops"] = table["n_ops"].astype(np.int64)
    table["kind"] = [name_kind(n) for n in table["name"]]
    _infer_kinds(table, ops, trace, notes)
    table["index"] = table.groupby("rank").cumcount()
    _flag(table, notes)
    outside = int((ops["step"] < 0).sum())
    if outside and len(table):
        notes.append(f"{outside} GPU op(s) were launched outside every step and are not in any step")
    cols = ["rank", "index", "name", "kind", "start_ns", "end_ns", "cpu_start_ns", "cpu_end_ns", "n_ops",
            "warmup", "outlier"]
    return table[cols]


def _infer_kinds(table: pd.DataFrame, ops: pd.DataFrame, trace: Trace, notes: list[str]) -> None:
    """Kinds for unnamed steps from launch shapes: a step whose kernels launch far more thread
    blocks than the typical step processes many tokens at once (prefill)."""
    unknown = table["kind"] == "unknown"
    if not unknown.any() or unknown.sum() < 2:
        return
    k = ops[(ops["kind"] == "kernel") & (ops["step"] >= 0)]
    kt = trace.kernels
    blocks = (kt["grid_x"].to_numpy(np.int64) * kt["grid_y"].to_numpy(np.int64) * kt["grid_z"].to_numpy(np.int64))
    work = pd.Series(blocks[k["src"].to_numpy()]).groupby(k["step"].to_numpy()).sum()
    w = work.reindex(table.index).fillna(0).to_numpy()
    med = np.median(w[unknown.to_numpy()])
    if med <= 0:
        return
    big = unknown.to_numpy() & (w > 4 * med)
    rest = unknown.to_numpy() & ~big
    # only a clear split (a few much larger steps among many similar ones) says prefill vs decode;
    # uniform steps (training iterations, or decode alone) stay 'unknown'
    if big.any() and rest.sum() >= 2:
        table.loc[rest, "kind"] = "decode"
        table.loc[big, "kind"] = "prefill"
        notes.append("step kinds inferred from launch shapes (thread blocks per step), not from names: "
                     f"{int(big.sum())} prefill, {int(rest.sum())} decode")


def _flag(table: pd.DataFrame, notes: list[str]) -> None:
    """Warm-up: leading steps of a kind much slower than that kind's median. Outlier: any other
    step whose span is far from the median (median absolute deviation based)."""
    span = (table["end_ns"] - table["start_ns"]).to_numpy(np.float64)
    warm = np.zeros(len(table), bool)
    out = np.zeros(len(table), bool)
    for (rank, kind), grp in table.groupby(["rank", "kind"], sort=False):
        idx = grp.index.to_numpy()
        if idx.size < 4:
            continue
        s = span[idx]
        med = np.median(s)
        mad = np.median(np.abs(s - med)) or med * 0.01
        slow = s > med + max(6 * mad, 0.25 * med)
        j = 0
        while j < idx.size and slow[j]:
            warm[idx[j]] = True
            j += 1
        far = np.abs(s - med) > max(6 * mad, 0.25 * med)
        out[idx] = far & ~warm[idx]
    table["warmup"] = warm
    table["outlier"] = out
    if warm.any():
        notes.append(f"{int(warm.sum())} warm-up step(s) flagged and left out of the summaries")
    if out.any():
        notes.append(f"{int(out.sum())} outlier step(s) flagged (span far from the median); kept in summaries")
