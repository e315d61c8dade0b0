"""The per-rank analysis of a trace too large for memory, in pieces, from a store of its tables split
by rank (ingest.pieces): the same `RankResult` as `analysis.analyze_rank` on the whole rank.

Per rank, two passes:
  1. steps: the rank's tables with only the columns and rows step finding reads (the GPU ops'
     times, names and ids; the launch calls of those ops, synchronizing and graph-launch calls;
     ranges; Python frames and shaped GEMM ops), classified, then `steps` finds the steps and
     `layers` assigns every GPU op its layer and module, exactly as on the whole rank. What stays
     is small: the step table, and per GPU op its step, layer and module (4 bytes each);
  2. windows: consecutive steps grouped into windows of about `window_ops` GPU ops; each window
     reads its steps' GPU ops (and the ops outside every step whose start falls in it) with every
     column, and the launch calls, ranges and CPU ops that overlap its time (its steps' CPU
     windows, their ops' launch calls, and the neighbouring steps' extents: what idle causes see
     around a gap), then runs attribution, speed of light, idle causes and the layer times on
     them, keeping per-step figures and the raw material of what spans windows.
What spans windows is made once over the rank: the collective instances (issue order and process
groups over all of the rank's communication kernels, comm.instances), the kernel totals (summed
over windows, in analyze_rank's row order), the steps shown in detail (from the step table), the
speed-of-light notes that look at the whole rank. Memory: pass 1 holds a few columns of the rank's
GPU ops, pass 2 one window; `window_ops` sets the second.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from . import analysis, attribute, classify, comm, sol, timeline
from . import layers as inside_analysis
from .analysis import KERNEL_TOTAL_COLUMNS, RankResult
from .concurrency import beside
from .errors import TraceError
from .gpuops import gpu_ops
from .idle.threads import ALL_STEPS
from .ingest.pieces import Store
from .layers.rules import MODULE_PREFIX
from .layers.times import LAYER_COLUMNS
from .model import TABLES, Trace, empty
from .notes import Note
from .notes import merge as merge_notes
from .sol.model import POSITION

WINDOW_OPS = 1 << 19  # GPU ops per window (pass 2 holds one window's tables with every column)
GPU_TABLES = ("kernels", "memops", "graphs")
KIND_OF = {"kernels": "kernel", "memops": "memop", "graphs": "graph"}

# the columns pass 1 reads (steps, classification and layers read no others)
STEP_COLUMNS = {
    "kernels": ["start_ns", "end_ns", "name", "device", "stream", "correlation", "pid", "rank", "grid_x", "grid_y",
                "grid_z", "graph_id", "op", "op_input_types", "op_id"],
    "memops": ["start_ns", "end_ns", "kind", "device", "stream", "correlation", "pid", "rank", "op"],
    "graphs": list(TABLES["graphs"]),
    "launches": list(TABLES["launches"]),
    "ranges": list(TABLES["ranges"]),
    "cpu_ops": ["start_ns", "end_ns", "name", "kind", "pid", "tid", "rank", "depth", "ext_id", "input_dims"],
}
COMM_COLUMNS = ["start_ns", "end_ns", "rank", "device", "stream", "name", "op", "comm_collective", "comm_in_nelems",
                "comm_out_nelems", "comm_dtype", "comm_group", "comm_group_size"]


@dataclass
class Window:
    """Consecutive steps (rows of the rank's step table) and what to read for them: the GPU ops
    (positions per table) and the time intervals ([a, b] ns) whose CPU rows they need."""

    steps: np.ndarray
    take: dict[str, np.ndarray]
    intervals: np.ndarray


@dataclass
class Found:
    """Pass 1 of one rank: its steps, and per GPU op (per table, by position) its step row, layer,
    module and whether it was launched before the trace; the windows; what the notes need."""

    rank: int
    table: pd.DataFrame
    evidence: str
    why: Note | None
    notes: list[Note]
    step: dict[str, np.ndarray]
    layer: dict[str, np.ndarray]
    module: dict[str, np.ndarray]
    before: dict[str, np.ndarray]
    modules: list[str]
    source: np.ndarray
    reference: np.ndarray
    layer_type: pd.DataFrame
    types: list[str]
    windows: list[Window] = field(default_factory=list)
    has_launches: bool = True
    any_dims: bool = False
    tp: tuple[int, str] = (1, "a single rank")
    fmt: str | None = None
    position: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    threads: pd.DataFrame | None = None
    kernel_names: pd.Index = field(default_factory=lambda: pd.Index([]))


def analyze_rank(store: Store, rank: int, steps_regex: str | None = None, rules: classify.Rules | None = None,
                 layers: int | None = None, sol_options: sol.Options | None = None, model: comm.Model | None = None,
                 window_ops: int | None = None) -> RankResult:
    """analysis.analyze_rank of rank `rank` of the store, in pieces (see the module docstring);
    window_ops: GPU ops per window (default WINDOW_OPS)."""
    rules = rules if rules is not None else classify.load_rules()
    window_ops = window_ops if window_ops is not None else WINDOW_OPS
    found = find(store, rank, steps_regex, rules, layers, window_ops, sol_options)
    if isinstance(found, RankResult):  # --steps matched none of this rank's ranges
        return found
    shown = timeline.shown_rows(found.table.assign(span_ns=found.table["end_ns"] - found.table["start_ns"]))
    parts = [window(store, found, w, rules, sol_options, shown["row"].to_numpy()) for w in found.windows]
    return assemble(found, parts, shown, sol_options, model)


# --- pass 1: the steps --------------------------------------------------------------------------

def step_trace(store: Store, rank: int, all_cpu_ops: bool = False
               ) -> tuple[Trace, bool, bool, tuple[int, str], pd.DataFrame]:
    """The rank's tables as step finding reads them (STEP_COLUMNS; launches and CPU ops only the
    rows it reads; all_cpu_ops: every CPU op, with every column, as the GEMM shapes of layers/
    read them), whether the rank has launch calls, whether any CPU op has shapes, the
    tensor-parallel size of the whole rank (sol.tensor_parallel; also in the trace's meta), and
    its calling threads' first and last call (_launch_rows)."""
    from .sol.model import tensor_parallel
    from .steps.kinds import GEMM_OPS
    from .steps.vocab import default_vocab

    tabs = {t: store.rows(t, rank, columns=STEP_COLUMNS[t]) for t in ("kernels", "memops", "graphs", "ranges")}
    groups = store.rows("kernels", rank, columns=["comm_group_size"])
    tp = tensor_parallel(Trace(kernels=groups, memops=empty(TABLES["memops"]), launches=empty(TABLES["launches"]),
                               ranges=empty(TABLES["ranges"]), graphs=empty(TABLES["graphs"]), meta=store.meta))
    del groups
    tabs["launches"], threads = _launch_rows(store, rank, tabs, default_vocab())
    # CPU ops: Python frames (steps, layers), module frames (layers), GEMM ops with shapes (tokens)
    cats = store.categories("cpu_ops", "name")
    kinds = store.categories("cpu_ops", "kind")
    dims = store.categories("cpu_ops", "input_dims")
    py = np.flatnonzero(kinds == "python_function")
    frame = np.array([str(c).startswith(MODULE_PREFIX) for c in cats], bool)
    gemm = np.isin(np.asarray(cats, dtype=object), list(GEMM_OPS))
    blank = np.flatnonzero(dims == "")
    keep_parts, shaped = [], False
    for _, b in store.batches("cpu_ops", rank, columns=STEP_COLUMNS["cpu_ops"]):
        nc = b["name"].cat.codes.to_numpy()
        dc = b["input_dims"].cat.codes.to_numpy()
        has_dims = (dc >= 0) & ~np.isin(dc, blank)
        shaped |= bool(has_dims.any())
        m = np.isin(b["kind"].cat.codes.to_numpy(), py)
        ok = nc >= 0
        m[ok] |= frame[nc[ok]] | (gemm[nc[ok]] & has_dims[ok])
        if m.any():
            keep_parts.append(b[m])
    tabs["cpu_ops"] = pd.concat(keep_parts, ignore_index=True) if keep_parts else \
        store.rows("cpu_ops", rank, np.zeros(0, np.int64), STEP_COLUMNS["cpu_ops"])
    if all_cpu_ops:
        tabs["cpu_ops"] = store.rows("cpu_ops", rank)
    has_launches = store.count("launches", rank) > 0
    return Trace(**tabs, meta=dict(store.meta, tensor_parallel=list(tp))), has_launches, shaped, tp, threads


def _launch_rows(store: Store, rank: int, tabs: dict[str, pd.DataFrame], vocab) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The rank's launch calls step finding reads, in order: those that launched one of its GPU ops
    (same process and correlation id), synchronizing and graph-launch calls, and per process the
    call with the lowest correlation id (what tells work launched before the trace); and per
    calling thread (key pid << 24 | tid) its first and last call's start."""
    names = store.categories("launches", "name")
    special = np.flatnonzero([bool(vocab.sync.search(str(n)) or vocab.graph_launch.search(str(n))) for n in names])
    pid = np.concatenate([tabs[t]["pid"].to_numpy(np.int64) for t in GPU_TABLES])
    corr = np.concatenate([tabs[t]["correlation"].to_numpy(np.int64) for t in GPU_TABLES])
    packable = not pid.size or (pid.min() >= 0 and pid.max() < 2 ** 30 and corr.min() >= 0 and corr.max() < 2 ** 32)
    keys = np.unique((pid << 32) | corr) if packable else None
    parts, firsts = [], {}
    spans: list[pd.DataFrame] = []  # per thread, its first and last call start
    for first, b in store.batches("launches", rank):
        lp, lc = b["pid"].to_numpy(np.int64), b["correlation"].to_numpy(np.int64)
        th = (lp << 24) | b["tid"].to_numpy(np.int64)
        s = b["start_ns"].to_numpy(np.int64)
        spans.append(pd.DataFrame({"key": th, "s": s}).groupby("key")["s"].agg(["min", "max"]))
        if keys is None or not (lp.size and lp.min() >= 0 and lp.max() < 2 ** 30 and lc.min() >= 0
                                and lc.max() < 2 ** 32):
            m = np.ones(len(b), bool)
        else:
            k = (lp << 32) | lc
            at = np.minimum(np.searchsorted(keys, k), max(keys.size - 1, 0))
            m = keys[at] == k if keys.size else np.zeros(len(b), bool)
            m |= np.isin(b["name"].cat.codes.to_numpy(), special)
        for p in np.unique(lp):  # the lowest correlation id per process, with its position
            sel = np.flatnonzero(lp == p)
            j = sel[np.argmin(lc[sel])]
            if int(p) not in firsts or lc[j] < firsts[int(p)][0]:
                firsts[int(p)] = (int(lc[j]), first + int(j))
        pos = first + np.flatnonzero(m)
        parts.append((pos, b[m]))
    if spans:
        sp = pd.concat(spans).groupby(level=0).agg({"min": "min", "max": "max"})
        threads = pd.DataFrame({"key": sp.index.to_numpy(np.int64), "first_ns": sp["min"].to_numpy(np.int64),
                                "last_ns": sp["max"].to_numpy(np.int64)})
    else:
        threads = pd.DataFrame({"key": [], "first_ns": [], "last_ns": []}, dtype=np.int64)
    if not parts:
        return store.rows("launches", rank, np.zeros(0, np.int64)), threads
    pos = np.concatenate([p for p, _ in parts])
    extra = np.setdiff1d(np.array(sorted(j for _, j in firsts.values()), np.int64), pos)
    frames = [f for _, f in parts]
    if extra.size:
        frames.append(store.rows("launches", rank, extra))
        pos = np.concatenate([pos, extra])
    out = pd.concat(frames, ignore_index=True)
    order = np.argsort(pos, kind="stable")
    return (out.iloc[order].reset_index(drop=True) if extra.size else out), threads


def find(store: Store, rank: int, steps_regex: str | None, rules: classify.Rules, layers: int | None,
         window_ops: int, sol_options: sol.Options | None = None) -> Found | RankResult:
    """Pass 1: the rank's steps and its GPU ops' steps, layers and modules; its windows."""
    spec = sol_options.model_spec() if sol_options is not None else None
    # with --model, layers/ names GEMMs by their shapes: it reads every CPU op (analysis._gemm_shapes)
    trace, has_launches, shaped, tp, threads = step_trace(store, rank, all_cpu_ops=spec is not None)
    with beside(gpu_ops, trace, name="traceattrib-ops") as making:
        kc = classify.classify_kernels(trace.kernels, rules)
        mc = classify.classify_memops(trace.memops, rules)
        ops = making.result()
    try:
        st = analysis._find_steps(trace, ops, kc["bucket"], steps_regex, layers)
    except TraceError as e:
        if steps_regex and e.reason == "no_match":
            return analysis._unmatched(trace, rank, steps_regex, kc, mc, {}, False)
        raise
    del ops
    codes = attribute.op_buckets(st, kc["bucket"], mc["bucket"])
    kn, projections = analysis._gemm_shapes(trace, st, analysis._op_step(st, "kernel", len(trace.kernels)),
                                            sol_options)
    asg = inside_analysis.assign(st.ops, st.table, trace.launches, trace.ranges, trace.cpu_ops, codes, st.attention,
                                 trace.kernels["name"].cat.categories, attribute.ALL_BUCKETS, kn, projections)
    del kn
    kind = st.ops["kind"].astype(str).to_numpy()
    src = st.ops["src"].to_numpy()
    op_step = st.ops["step"].to_numpy(np.int64)
    per = {}
    for t in GPU_TABLES:
        m = kind == KIND_OF[t]
        n = len(getattr(trace, t))
        per[t] = (m, src[m], n)

    def spread(values: np.ndarray, fill, dtype) -> dict[str, np.ndarray]:
        out = {}
        for t, (m, s, n) in per.items():
            a = np.full(n, fill, dtype)
            a[s] = values[m]
            out[t] = a
        return out

    f = Found(rank=rank, table=st.table, evidence=st.evidence, why=st.why, notes=list(st.notes),
              step=spread(op_step, -1, np.int64), layer=spread(asg.layer, inside_analysis.NO_STEP, np.int32),
              module=spread(asg.module, -1, np.int32), before=spread(st.ops["before_trace"].to_numpy(bool), False, bool),
              modules=list(asg.modules), source=asg.source, reference=asg.reference, layer_type=asg.layer_type,
              types=list(asg.types), has_launches=has_launches, any_dims=shaped, tp=tp,
              fmt=store.meta.get("format"), kernel_names=trace.kernels["name"].cat.categories, threads=threads)
    f.windows = plan(f, st.ops, window_ops)
    start = f.table["start_ns"].to_numpy(np.int64)
    f.position = np.empty(len(start), np.int64)
    f.position[np.argsort(start, kind="stable")] = np.arange(len(start))
    return f


def plan(f: Found, ops: pd.DataFrame, window_ops: int) -> list[Window]:
    """Consecutive steps grouped into windows of about `window_ops` GPU ops; each GPU op goes to
    its step's window, an op outside every step to the window its start falls in."""
    tab = f.table
    n = len(tab)
    if not n:
        return []
    n_ops = tab["n_ops"].to_numpy(np.int64)
    bounds = [0]
    acc = 0
    for i in range(n):  # (one pass over the steps: thousands, not ops)
        if acc and acc + n_ops[i] > window_ops:
            bounds.append(i)
            acc = 0
        acc += n_ops[i]
    bounds.append(n)
    nw = len(bounds) - 1
    win_of_step = np.repeat(np.arange(nw), np.diff(bounds))
    s0 = tab["start_ns"].to_numpy(np.int64)
    s1 = tab["end_ns"].to_numpy(np.int64)
    c0 = tab["cpu_start_ns"].to_numpy(np.int64)
    c1 = tab["cpu_end_ns"].to_numpy(np.int64)
    edge = np.maximum.accumulate(s0[np.array(bounds[:-1])])  # where each window starts, for ops outside steps
    step = ops["step"].to_numpy(np.int64)
    start, end = ops["start_ns"].to_numpy(np.int64), ops["end_ns"].to_numpy(np.int64)
    launch = ops["launch_start_ns"].to_numpy(np.int64)
    own = np.where(step >= 0, win_of_step[np.maximum(step, 0)],
                   np.maximum(np.searchsorted(edge, start, side="right") - 1, 0))
    # per step: the earliest launch call of its ops (CPU rows from there on are read)
    big = np.iinfo(np.int64).max
    lmin = np.full(n, big)
    inside = (step >= 0) & (launch >= 0)
    np.minimum.at(lmin, step[inside], launch[inside])
    # per window: the time its ops cover, their launch calls included
    wlo = np.full(nw, big)
    whi = np.full(nw, np.iinfo(np.int64).min)
    np.minimum.at(wlo, own, np.where(launch >= 0, np.minimum(launch, start), start))
    np.maximum.at(whi, own, end)
    kind = ops["kind"].astype(str).to_numpy()
    src = ops["src"].to_numpy(np.int64)
    order = np.argsort(own, kind="stable")
    cut = np.searchsorted(own[order], np.arange(nw + 1))
    out = []
    for w in range(nw):
        a, b = bounds[w], bounds[w + 1]
        rows = np.arange(a, b)
        lo = min(int(wlo[w]), int(s0[a:b].min()), int(c0[a:b].min()), int(lmin[a:b].min()))
        hi = max(int(whi[w]), int(s1[a:b].max()), int(c1[a:b].max()))
        # the neighbouring steps' extents: what the CPU did around this window's first and last gaps
        if a > 0:
            lo = min(lo, int(s0[a - 1]), int(c0[a - 1]), int(lmin[a - 1]))
        if b < n:
            hi = max(hi, int(s1[b]), int(c1[b]))
        sel = order[cut[w]:cut[w + 1]]
        take = {t: np.sort(src[sel][kind[sel] == KIND_OF[t]]) for t in GPU_TABLES}
        out.append(Window(steps=rows, take=take, intervals=np.array([[lo, hi]], np.int64)))
    return out


# --- pass 2: one window ----------------------------------------------------------------------------

@dataclass
class Part:
    """What one window contributes: per-step tables (its steps only), the communication kernels
    (step = row of the rank's step table), kernel totals, notes, idle labels, layer times, the
    detail of the shown steps it holds."""

    steps: pd.DataFrame
    collectives: pd.DataFrame
    comm_kernels: pd.DataFrame
    kernel_totals: pd.DataFrame
    buckets: tuple[str, ...]
    notes: list[Note]
    labels: pd.DataFrame
    inside: inside_analysis.Times
    detail: pd.DataFrame
    gap_detail: pd.DataFrame


def window_trace(store: Store, f: Found, w: Window) -> Trace:
    """The window's tables: its GPU ops, and the CPU rows that overlap its intervals."""
    tabs = {t: store.rows(t, f.rank, w.take[t]) for t in GPU_TABLES}
    for t in ("ranges", "cpu_ops"):
        tabs[t] = store.overlapping(t, f.rank, w.intervals)[0]
    # launch calls: those that overlap the window, and around it each thread's call just before and
    # just after (what bounds the stretch with no call at the window's edges: idle causes)
    _, pos = store.overlapping("launches", f.rank, w.intervals, columns=["start_ns"])
    lo, hi = int(w.intervals[:, 0].min()), int(w.intervals[:, 1].max())
    th = f.threads
    if th is not None and len(th):
        key, first, last = (th[c].to_numpy(np.int64) for c in ("key", "first_ns", "last_ns"))
        pos = np.union1d(pos, store.neighbours("launches", f.rank, lo, hi, key[first < lo], key[last > hi]))
    tabs["launches"] = store.rows("launches", f.rank, pos)
    meta = dict(store.meta)
    meta["tensor_parallel"] = list(f.tp)  # the whole rank's (sol.tensor_parallel)
    return Trace(**tabs, meta=meta)


def window(store: Store, f: Found, w: Window, rules: classify.Rules, sol_options: sol.Options | None,
           shown_rows: np.ndarray) -> Part:
    """Pass 2 on one window: what analyze_rank does after finding steps, for the window's steps."""
    from .steps import Steps, attention_mask

    trace = window_trace(store, f, w)
    with beside(gpu_ops, trace, name="traceattrib-ops") as making:
        kc = classify.classify_kernels(trace.kernels, rules)
        mc = classify.classify_memops(trace.memops, rules)
        ops = making.result()
    loc = np.full(len(f.table), -1, np.int64)
    loc[w.steps] = np.arange(w.steps.size)
    kind = ops["kind"].astype(str).to_numpy()
    src = ops["src"].to_numpy(np.int64)
    step = np.full(len(ops), -1, np.int64)
    layer = np.full(len(ops), inside_analysis.NO_STEP, np.int64)
    module = np.full(len(ops), -1, np.int64)
    before = np.zeros(len(ops), bool)
    for t in GPU_TABLES:
        m = kind == KIND_OF[t]
        p = w.take[t][src[m]]  # window row -> position in the rank's table
        g = f.step[t][p]
        step[m] = np.where(g >= 0, loc[np.maximum(g, 0)], -1)
        layer[m] = f.layer[t][p]
        module[m] = f.module[t][p]
        before[m] = f.before[t][p]
    ops["before_trace"] = before
    table = f.table.iloc[w.steps].reset_index(drop=True)
    # each step's place among the rank's steps by start (sol.model.model_steps), dropped after
    table[POSITION] = f.position[w.steps]
    st = Steps(table=table, ops=ops.assign(step=step), evidence=f.evidence, why=f.why, notes=[],
               attention=attention_mask(ops, kc["bucket"]))
    idle_table = st.table.copy()
    idle_table.attrs[ALL_STEPS] = f.table  # which ranges hold a whole step: any of the rank's
    with beside(analysis.idle_causes, st.ops, idle_table, trace.launches, trace.cpu_ops, trace.ranges,
                name="traceattrib-idle") as idling:
        codes = attribute.op_buckets(st, kc["bucket"], mc["bucket"])
        bd = attribute.breakdown(st, codes, analysis._comm_text(trace.kernels, kc["bucket"]))
        kstep = analysis._op_step(st, "kernel", len(trace.kernels))
        bd.steps, sol_notes = sol.step_columns(bd.steps, trace, kstep, kc["bucket"].array, sol_options)
        bd.steps = bd.steps.drop(columns=[POSITION])
        bd.steps["graph_kernels"] = analysis.graph_kernels(trace.kernels, kstep, len(bd.steps))
        totals = analysis.kernel_totals(trace.kernels, kc["bucket"], kstep, bd.steps)
        ic = idling.result()
    for c in ic.causes.columns:
        bd.steps[c] = ic.causes[c].to_numpy()
    comm_k = kc["bucket"].to_numpy() == "communication"
    ck = trace.kernels.loc[comm_k, [c for c in COMM_COLUMNS if c in trace.kernels.columns]].reset_index(drop=True)
    ck["bucket"] = "communication"
    ck["step"] = np.where(kstep[comm_k] >= 0, w.steps[np.maximum(kstep[comm_k], 0)], -1)
    lt = f.layer_type
    sel = lt["step"].to_numpy(np.int64) if len(lt) else np.zeros(0, np.int64)
    lt = lt[np.isin(sel, w.steps)].assign(step=loc[sel[np.isin(sel, w.steps)]]) if len(lt) else lt
    asg = inside_analysis.Assignment(layer=layer, module=module, modules=f.modules, source=f.source[w.steps],
                                     layer_type=lt.reset_index(drop=True), types=f.types,
                                     reference=f.reference[w.steps])
    inside = inside_analysis.times(asg, st.ops, bd.steps, codes, attribute.ALL_BUCKETS)
    mine = loc[shown_rows[np.isin(shown_rows, w.steps)]]
    detail = timeline.ops(st.ops, codes, attribute.ALL_BUCKETS, trace.kernels, trace.memops, bd.steps, mine)
    gaps = analysis._gap_table(ic.gaps, bd.steps)
    gap_detail = gaps.iloc[np.flatnonzero(np.isin(ic.gaps["step"].to_numpy(), mine))].reset_index(drop=True)
    return Part(steps=bd.steps, collectives=bd.collectives, comm_kernels=ck, kernel_totals=totals, buckets=bd.buckets,
                notes=bd.notes + sol_notes, labels=ic.labels, inside=inside, detail=detail,
                gap_detail=gap_detail)


# --- the rank's result from its windows ---------------------------------------------------------

def assemble(f: Found, parts: list[Part], shown: pd.DataFrame, sol_options: sol.Options | None,
             model: comm.Model | None) -> RankResult:
    """The rank's RankResult from its windows' parts (in step order)."""
    steps = analysis._concat([p.steps for p in parts]).reset_index(drop=True)
    colls = analysis._concat([p.collectives for p in parts])
    ck = pd.concat([p.comm_kernels for p in parts], ignore_index=True) if parts else pd.DataFrame()
    inst = comm.instances(ck, steps, {"format": f.fmt, "world_size": -1}, model) if len(ck) else \
        pd.DataFrame({c: pd.Series([], dtype=object) for c in comm.INSTANCE_COLUMNS})
    buckets = tuple(b for b in attribute.ALL_BUCKETS if any(b in p.buckets for p in parts))
    notes = list(f.notes) + _window_notes([p.notes for p in parts], steps, f, sol_options)
    labels = _labels([p.labels for p in parts])
    rows = shown["row"].to_numpy()
    shown_df = pd.DataFrame({"rank": steps["rank"].to_numpy()[rows].astype(np.int64) if len(steps) else
                             np.zeros(0, np.int64), "step": steps["index"].to_numpy()[rows] if len(steps) else
                             np.zeros(0, np.int64), "why": shown["why"].to_numpy()})
    return RankResult(rank=f.rank, evidence=f.evidence, why=f.why, steps=steps, collectives=colls, instances=inst,
                      kernel_totals=_totals([p.kernel_totals for p in parts], steps, f),
                      buckets=buckets, notes=notes, idle_labels=labels, has_launches=f.has_launches,
                      shown=shown_df, detail=_detail([p.detail for p in parts]),
                      inside=_inside([p.inside for p in parts], f), gap_detail=_gap_detail(parts))


def _gap_detail(parts: list[Part]) -> pd.DataFrame:
    """The shown steps' idle gaps, windows in step order (idle's order: by step, then start)."""
    full = [p.gap_detail for p in parts if len(p.gap_detail)]
    if not full:
        return parts[0].gap_detail if parts else pd.DataFrame(columns=analysis.GAP_COLUMNS)
    return analysis._concat(full)  # (categoricals stay categoricals)


def _totals(parts: list[pd.DataFrame], steps: pd.DataFrame, f: Found) -> pd.DataFrame:
    """The windows' kernel totals summed per (kind, warm-up, bucket, name), in analysis.kernel_totals'
    row order over the whole rank (kinds in order of first appearance in the step table, buckets in
    classify.BUCKETS order, names in the kernel table's category order)."""
    full = [p for p in parts if len(p)]
    if not full:
        return pd.DataFrame(columns=KERNEL_TOTAL_COLUMNS)
    t = pd.concat(full, ignore_index=True)
    g = t.groupby(["kind", "warmup", "bucket", "name"], sort=False)[["total_ns", "count"]].sum().reset_index()
    _, kinds = pd.factorize(steps["kind"])
    kind_pos = {k: i for i, k in enumerate(kinds)}
    bucket_pos = {b: i for i, b in enumerate(classify.BUCKETS)}
    name_pos = {str(n): i for i, n in enumerate(f.kernel_names)}
    key = pd.DataFrame({"k": g["kind"].map(kind_pos), "w": g["warmup"].astype(bool), "b": g["bucket"].map(bucket_pos),
                        "n": g["name"].map(name_pos)})
    order = np.lexsort((key["n"].to_numpy(), key["b"].to_numpy(), key["w"].to_numpy(), key["k"].to_numpy()))
    out = g.iloc[order].reset_index(drop=True)
    return pd.DataFrame({"kind": out["kind"].to_numpy(object), "warmup": out["warmup"].to_numpy(bool),
                         "bucket": out["bucket"].to_numpy(object), "name": out["name"].to_numpy(object),
                         "total_ns": out["total_ns"].to_numpy(np.int64), "count": out["count"].to_numpy(np.int64)})


def _labels(parts: list[pd.DataFrame]) -> pd.DataFrame:
    """Idle labels of every window in idle.labels.table's order: every step's top names first, then
    every step's '(other)' rest."""
    from .idle import LABEL_COLUMNS, OTHER

    full = [p for p in parts if p is not None and len(p)]
    if not full:
        return parts[0] if parts and parts[0] is not None else pd.DataFrame(columns=LABEL_COLUMNS)
    t = pd.concat(full, ignore_index=True)
    rest = (t["what"].to_numpy(object) == OTHER) & (t["source"].to_numpy(object) == "none")
    return t.iloc[np.argsort(rest, kind="stable")].reset_index(drop=True)


def _detail(parts: list[pd.DataFrame]) -> pd.DataFrame:
    """The shown steps' ops in the GPU-op table's order (start; kernels, then memory ops, then graphs)."""
    full = [p for p in parts if len(p)]
    if not full:
        return pd.DataFrame(columns=timeline.COLUMNS)
    t = pd.concat(full, ignore_index=True)
    kind = pd.Categorical(t["op"], categories=["kernel", "memop", "graph"]).codes
    order = np.lexsort((t["end_ns"].to_numpy(np.int64), kind, t["start_ns"].to_numpy(np.int64)))
    return t.iloc[order].reset_index(drop=True)


def _inside(parts: list[inside_analysis.Times], f: Found) -> inside_analysis.Times | None:
    """The windows' layer times as one, bucket columns filled with 0 where a window had none."""
    t = inside_analysis.concat(parts)
    if t is None:
        return None
    lay = t.layers
    cols = [c for c in LAYER_COLUMNS] + [f"{b}_ns" for b in attribute.ALL_BUCKETS
                                                         if f"{b}_ns" in lay.columns]
    lay = lay.assign(**{c: lay[c].fillna(0).astype(np.int64) for c in cols[len(LAYER_COLUMNS):]})
    return dataclasses.replace(t, layers=lay[cols], types=list(f.types))


def _window_notes(lists: list[list[Note]], steps: pd.DataFrame, f: Found, sol_options: sol.Options | None) -> list[Note]:
    """The windows' notes as the whole rank says them: counts summed, a note said alike once. The
    speed-of-light notes about all of the rank's steps (no step has shapes; shapes and --model
    disagree on the weights) are decided over all of them: where the whole rank says one, some
    window said it too, in its place among the others."""
    from .notes import note

    spec = sol_options.model_spec() if sol_options is not None else None
    shaped = (steps["sol_source"].astype(str) == "shapes").to_numpy() if "sol_source" in steps.columns and len(steps) \
        else np.zeros(len(steps), bool)
    unknown = note("sol.unknown", f.any_dims) if not shaped.any() and spec is None and len(steps) else None
    differ = None
    if spec is not None and shaped.any():
        from .sol.model import model_steps

        opts = sol_options
        tokens = steps["tokens"].to_numpy(np.float64)
        tokens = np.where(tokens >= 0, tokens, np.nan)
        mw = model_steps(steps, spec, f.tp[0], tokens, opts.batch, opts.context, shaped)
        b_s = np.nansum(steps["sol_weight_bytes"].to_numpy(np.float64)[shaped])
        b_m = np.nansum(mw["weight_bytes"][shaped])
        if b_m > 0 and abs(b_s / b_m - 1) > 0.1:
            differ = note("sol.weights_differ", b_s / b_m - 1, b_s / shaped.sum(), b_m / shaped.sum())

    def whole(notes: list[Note]) -> list[Note]:
        out = []
        for n in notes:
            if n.code == "sol.unknown":
                n = unknown
            elif n.code == "sol.weights_differ":
                n = differ
            if n is not None and n not in out:
                out.append(n)
        return out

    merged = merge_notes([whole(x) for x in lists]) if lists else []
    # each window says the attribution's notes, then speed of light's in step_columns' order: a
    # window may say a later one without an earlier one
    from .sol.columns import NOTE_ORDER

    rank = {c: i for i, c in enumerate(NOTE_ORDER)}
    sol_notes = sorted((n for n in merged if n.code in rank), key=lambda n: rank[n.code])
    return [n for n in merged if n.code not in rank] + sol_notes
