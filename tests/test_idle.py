"""Idle causes (traceattrib.idle), their bounds, findings and the diff: truth from the idle-causes
fixtures (the capture script measured its host busy wait), exact sums on every real trace, and the
rules pinned on a small timeline built here in code."""
from __future__ import annotations

import json
import threading

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from traceattrib import analysis, findings, idle, steps
from traceattrib.analysis import analyze
from traceattrib.ingest import read
from traceattrib.model import CPU_OP_COLUMNS, Trace, empty
from traceattrib.render import jsonout, markdown, text
from traceattrib.render.findings import ADVICE, IDLE_WHAT, advice, as_dict
from traceattrib.render.notes import texts

from conftest import FIXTURES, NSYS_VERSIONS, PUBLIC, needs_shared, shared_files, summary_of
from tracegen import kineto_text, timelines

IDLE_FIXTURES = {"torch": "idle_causes_torch.pt.trace.json.gz", "nsys": "idle_causes_nsys.sqlite"}
# the same workload under nsys with CPU samples and OS-runtime calls (--sample=process-tree -t osrt):
# profiling overhead adds 0.5-0.9 ms of host time per step there, so it names, not measures, the wait
SAMPLED = "idle_causes_sampled_nsys.sqlite"
_cache: dict[str, tuple] = {}


def loaded(path: str):
    if path not in _cache:
        tr = read(path)
        _cache[path] = (tr, analyze(tr))
    return _cache[path]


def truth(fmt: str) -> list[dict]:
    with open(FIXTURES / IDLE_FIXTURES[fmt].replace(".pt.trace.json.gz", ".steps.json").replace(".sqlite", ".steps.json")) as f:
        return json.load(f)["steps"]


def causes_sum_exactly(steps_tab: pd.DataFrame) -> bool:
    parts = sum(steps_tab[c] for c in idle.CAUSE_COLUMNS)
    return bool((parts == steps_tab["idle_ns"]).all() and (steps_tab[list(idle.CAUSE_COLUMNS)] >= 0).all().all())


# --- the fixture with known causes ------------------------------------------------------------

@pytest.mark.parametrize("fmt", list(IDLE_FIXTURES))
def test_host_idle_matches_the_recorded_busy_wait(fmt):
    trace, rep = loaded(str(FIXTURES / IDLE_FIXTURES[fmt]))
    st, tr = rep.steps, truth(fmt)
    assert list(st["name"]) == [t["name"] for t in tr]
    assert causes_sum_exactly(st)
    # The first step's span opens with its range, and under torch.profiler the thread then runs
    # 2.6 ms of Python (torch.cuda lazy-init checks of e0.record()) before the trace's first API
    # call: host idle too, not the busy wait's. Leave that lead-in out of step 0's comparison.
    lead_in = max(int(trace.launches["start_ns"].min()) - int(st["start_ns"].iloc[0]), 0)
    assert (lead_in > 2_000_000) if fmt == "torch" else (lead_in == 0)
    for (i, r), t in zip(st.iterrows(), tr):
        host_ms = (r["idle_host_ns"] - (lead_in if i == 0 else 0)) / 1e6
        assert abs(host_ms - t["busy_wait_ms"]) / t["busy_wait_ms"] < 0.20, (r["name"], host_ms, t["busy_wait_ms"])
    # the busy wait is named by its range: all of the range's length (a little longer than the
    # wait it wraps) is host idle, since the GPU had drained the burst before the wait began
    lab = rep.idle_labels
    named = lab[(lab["cause"] == "host") & (lab["what"] == "host_busy_wait")].set_index("step")["ns"].to_numpy()
    tr_ranges = loaded(str(FIXTURES / IDLE_FIXTURES[fmt]))[0].ranges
    rng = tr_ranges[(tr_ranges["name"] == "host_busy_wait") & (tr_ranges["source"] != "gpu_user_annotation")]
    length = (rng["end_ns"] - rng["start_ns"]).to_numpy()
    assert len(named) == len(length) == len(tr)
    assert (named <= length).all() and (named >= 0.98 * length).all(), (named, length)
    assert (length >= 0.999 * np.array([t["busy_wait_ms"] for t in tr]) * 1e6).all()
    # the blocking copy from pageable memory is the main sync
    d = summary_of(rep)["by_kind"][st["kind"].iloc[0]]
    assert d["top_host_gaps"][0]["what"] == "host_busy_wait" and d["top_host_gaps"][0]["source"] == "range"
    assert d["top_host_gaps"][0]["share"] > 0.8  # the rest: Python around it (torch: step 0's lead-in)
    assert d["top_sync_calls"][0]["what"] == "cudaMemcpyAsync (blocking copy)"
    assert (st["idle_sync_ns"] > 100_000).all()  # >= 0.1 ms per step inside that copy call
    assert (st["idle_unexplained_ns"] < 10_000).all()  # torch: 5 us before the trace's first API call


@pytest.mark.parametrize("fmt", list(IDLE_FIXTURES))
def test_launch_is_the_largest_cause_in_the_burst(fmt):
    tr, _ = loaded(str(FIXTURES / IDLE_FIXTURES[fmt]))
    st = steps.find_steps(tr)
    ops = st.ops.copy()
    # keep only the burst of tiny kernels of every step (the 4 GEMMs and the copies leave it)
    names = tr.kernels["name"].astype(str).to_numpy()
    kern = (ops["kind"] == "kernel").to_numpy()
    tiny = np.zeros(len(ops), bool)
    tiny[kern] = pd.Series(names[ops["src"].to_numpy()[kern]]).str.contains("elementwise").to_numpy()
    ops.loc[~tiny, "step"] = -1
    per_step = pd.Series(ops.loc[tiny, "step"]).value_counts()
    assert (per_step == truth(fmt)[0]["tiny_kernels"]).all() and len(per_step) == 8
    burst = ops[tiny]
    table = st.table.copy()  # the window opens at the burst's first kernel
    table["start_ns"] = burst.groupby("step")["start_ns"].min().reindex(table.index).to_numpy()
    ic = idle.explain(ops, table, tr.launches, tr.cpu_ops, tr.ranges)
    c = ic.causes
    span = burst.groupby("step")["end_ns"].max() - burst.groupby("step")["start_ns"].min()
    busy = (burst["end_ns"] - burst["start_ns"]).groupby(burst["step"]).sum()  # tiny kernels run one at a time
    assert (c[list(idle.CAUSE_COLUMNS)].sum(axis=1).to_numpy() == (span - busy).to_numpy()).all()
    for _, r in c.iterrows():
        assert r["idle_launch_ns"] > 0.9 * (r["idle_launch_ns"] + r["idle_sync_ns"] + r["idle_host_ns"]
                                            + r["idle_unexplained_ns"])


def test_cpu_samples_name_host_time_no_range_covers():
    """nsys CPU samples: one cpu_ops row per sample (as many as COMPOSITE_EVENTS holds, read apart
    with sqlite3), each on its thread; without the busy wait's NVTX range, the samples name it."""
    import dataclasses
    import sqlite3

    path = FIXTURES / SAMPLED
    trace, rep = loaded(str(path))
    con = sqlite3.connect(f"file:{path}?mode=ro&immutable=1", uri=True)
    n_samples, = con.execute("select count(distinct e.id) from COMPOSITE_EVENTS e join SAMPLING_CALLCHAINS c "
                             "on c.id = e.id").fetchone()
    first_t, = con.execute("select min(start) from COMPOSITE_EVENTS").fetchone()
    top_sym, = con.execute("select s.value from COMPOSITE_EVENTS e join SAMPLING_CALLCHAINS c on c.id = e.id "
                           "and c.stackDepth = 0 join StringIds s on s.id = c.symbol "
                           "where s.value like '_PyTime%' limit 1").fetchone()
    con.close()
    smp = trace.cpu_ops[trace.cpu_ops["kind"] == "sample"]
    assert len(smp) == n_samples == 52
    assert int(smp["start_ns"].min()) == first_t
    assert (smp["end_ns"] > smp["start_ns"]).all()
    # nsys's default rate here is one sample per ~2 ms per thread: stretches at most that long
    assert ((smp["end_ns"] - smp["start_ns"]) <= 2_100_000).all()
    assert smp["name"].astype(str).str.startswith(top_sym + " (python3").any()
    # with the range, the range names the busy wait; samples name the rest only
    assert summary_of(rep)["by_kind"]["unknown"]["top_host_gaps"][0]["what"] == "host_busy_wait"
    r = trace.ranges
    no_wait = dataclasses.replace(trace, ranges=r[r["name"].astype(str) != "host_busy_wait"].reset_index(drop=True))
    rep2 = analyze(no_wait)
    assert causes_sum_exactly(rep2.steps)
    assert (rep2.steps["idle_host_ns"] == rep.steps["idle_host_ns"]).all()  # names change, causes do not
    lab = rep2.idle_labels
    host = lab[lab["cause"] == "host"]
    by_src = host.groupby("source")["ns"].sum()
    # the 8 x 3 ms busy wait is now named by samples: the interpreter's own frames
    assert by_src["sample"] > 0.6 * 8 * 3e6, by_src
    py = host[(host["source"] == "sample") & host["what"].str.contains(r"\(python3")]["ns"].sum()
    assert py > 8 * 1e6, host.groupby("what")["ns"].sum().sort_values().tail()


def test_nsys_and_torch_agree_on_host_idle():
    a = loaded(str(FIXTURES / IDLE_FIXTURES["nsys"]))[1].steps["idle_host_ns"].median()
    b = loaded(str(FIXTURES / IDLE_FIXTURES["torch"]))[1].steps["idle_host_ns"].median()
    assert abs(a - b) / b < 0.1, (a, b)


@pytest.mark.parametrize("fmt", list(IDLE_FIXTURES))
def test_findings_bounds_and_contract(fmt):
    _, rep = loaded(str(FIXTURES / IDLE_FIXTURES[fmt]))
    s = summary_of(rep)
    d = s["by_kind"][s["kind"]]
    k = rep.kind_steps(s["kind"])
    assert sum(d["idle_causes_share"].values()) == pytest.approx(d["idle_share"], rel=1e-12)
    assert d["speedup_bound_if_no_idle"] == pytest.approx(float(np.median(k["span_ns"] / k["busy_ns"])))
    host = k["span_ns"] / (k["span_ns"] - k["idle_host_ns"])
    assert d["speedup_bound_if_no_idle_cause"]["host"] == pytest.approx(float(np.median(host)))
    fs = s["findings"]
    assert len(fs) == 3 and all(set(f) == {"what", "bound", "evidence"} for f in fs)
    assert [f["bound"] for f in fs] == sorted((f["bound"] for f in fs), reverse=True)
    whats = [f["what"] for f in fs]
    assert IDLE_WHAT["launch"] in whats and IDLE_WHAT["host"] in whats[:2]
    host_f = next(f for f in fs if f["what"] == IDLE_WHAT["host"])
    assert "host_busy_wait" in host_f["evidence"]
    # the blocking 16 MB copy from pageable memory: a copy-engine operation, not a kernel
    copy = next(f for f in fs if "memory" in f["what"])
    assert copy["what"] == "exposed memory copies and fills (memcpy/memset)"
    assert copy["evidence"].endswith(" operations/step") and "kernels" not in copy["evidence"]
    out = json.loads(jsonout.render(rep))
    for step in out["steps"]:
        assert set(step["idle_causes_ns"]) == set(idle.CAUSES)
        assert sum(step["idle_causes_ns"].values()) == step["idle_ns"]
    assert out["summary"]["findings"] == fs
    t = text.render(rep)
    assert t.index("What to fix first") < t.index("per step (mean, ms)")
    assert "if the GPU never waited (no idle): at most" in t and "host idle" in t and "CUDA graphs" in t
    assert all(len(line) <= 100 for line in t.splitlines())
    md = markdown.render(rep)
    assert "**What to fix first**" in md and "| idle: launch |" in md
    assert "idle_host_ns" in jsonout.render_csv(rep).splitlines()[0]


# --- every real trace: causes sum exactly -------------------------------------------------------

REAL_FIXTURES = sorted(p.name for p in FIXTURES.iterdir()
                       if p.name.endswith((".sqlite", ".json.gz")) or (p.is_dir() and p.name.endswith("_torch")))


def gaps_add_up(rep) -> None:
    """Every gap's parts sum to its length, a step's gaps to its idle causes; gaps are disjoint,
    inside their step's span, and name their largest part; queued gaps are launch only."""
    g, tab = rep.gaps, rep.steps
    parts = g[[f"{c}_ns" for c in idle.CAUSES]].to_numpy()
    assert (parts >= 0).all() and (parts.sum(axis=1) == (g["end_ns"] - g["start_ns"]).to_numpy()).all()
    assert (g["end_ns"] > g["start_ns"]).all()
    assert list(g["cause"].astype(str)) == [idle.CAUSES[i] for i in parts.argmax(axis=1)]
    q = g["queued"].to_numpy(bool)
    assert (parts[q, 0] == parts[q].sum(axis=1)).all()
    per = g.groupby(["rank", "step"])[[f"{c}_ns" for c in idle.CAUSES]].sum()
    key = pd.MultiIndex.from_frame(tab[["rank", "index"]])
    for c, col in zip(idle.CAUSES, idle.CAUSE_COLUMNS):
        assert (per[f"{c}_ns"].reindex(key, fill_value=0).to_numpy() == tab[col].to_numpy()).all(), c
    span = tab.set_index(["rank", "index"])[["start_ns", "end_ns"]].reindex(pd.MultiIndex.from_frame(g[["rank", "step"]]))
    assert (g["start_ns"].to_numpy() >= span["start_ns"].to_numpy()).all()
    assert (g["end_ns"].to_numpy() <= span["end_ns"].to_numpy()).all()
    same = (g["rank"].to_numpy()[1:] == g["rank"].to_numpy()[:-1]) & (g["step"].to_numpy()[1:] == g["step"].to_numpy()[:-1])
    assert (g["start_ns"].to_numpy()[1:][same] >= g["end_ns"].to_numpy()[:-1][same]).all()
    named = (g["host_ns"] + g["sync_ns"] > 0).to_numpy()
    assert (g["what"].astype(str).to_numpy()[~named] == "").all() and (g["what"].astype(str).to_numpy()[named] != "").all()
    # the shown steps' gaps (what the HTML report carries) are the same rows
    shown = set(map(tuple, rep.shown[["rank", "step"]].to_numpy().tolist()))
    keep = np.array([(int(a), int(b)) in shown for a, b in zip(g["rank"], g["step"])], bool)
    mine = g[keep].reset_index(drop=True)  # (a mask array: an empty list would select no columns)
    pd.testing.assert_frame_equal(mine, rep.gap_detail.reset_index(drop=True), check_categorical=False)


@pytest.mark.parametrize("name", REAL_FIXTURES)
def test_causes_sum_exactly_on_every_fixture(name):
    _, rep = loaded(str(FIXTURES / name))
    assert len(rep.steps) and causes_sum_exactly(rep.steps)
    assert (rep.steps[idle.QUEUED_COLUMN] <= rep.steps["idle_launch_ns"]).all()
    gaps_add_up(rep)


@needs_shared
@pytest.mark.parametrize("path", shared_files(PUBLIC, "*.json.gz"), ids=lambda p: p.name)
def test_causes_sum_exactly_on_public_traces(path):
    _, rep = loaded(str(path))
    assert len(rep.steps) and causes_sum_exactly(rep.steps)
    gaps_add_up(rep)


@needs_shared
def test_causes_sum_exactly_on_every_nsys_schema():
    from traceattrib.errors import TraceError
    done = 0
    for path in shared_files(NSYS_VERSIONS, "*.sqlite"):
        try:
            tr = read(str(path))
        except TraceError:  # exports with no GPU activity: said so at load time
            continue
        st = analyze(tr).steps
        assert causes_sum_exactly(st), path.name
        done += 1
    assert done >= 15


@needs_shared
def test_public_sglang_prefill_waits_in_a_blocking_copy():
    # the CPU sat 493 ms in hipMemcpyWithStream while the GPU had nothing to run
    _, rep = loaded(str(PUBLIC / "tracelens_mi300_sglang_qwen3_8b_prefilldecode.json.gz"))
    d = summary_of(rep)["by_kind"]["prefill"]
    assert d["idle_causes_share"]["sync"] > 0.45
    assert d["top_sync_calls"][0]["what"] == "hipMemcpyWithStream"
    assert d["top_sync_calls"][0]["mean_ns"] > 450e6
    assert summary_of(rep)["findings"][0]["what"] == IDLE_WHAT["sync"]


def test_graph_replays_idle_is_queued_launch():
    # decode steps replay one CUDA graph: every gap inside a replay had its kernel queued already
    _, rep = loaded(str(FIXTURES / "llama_graph_torch.pt.trace.json.gz"))
    st = rep.steps[rep.steps["kind"] == "decode"].iloc[1:]  # the first decode step also launches eagerly
    assert len(st) == 23 and (st["idle_ns"] > 100_000).all()
    assert (st["idle_launch_ns"] == st["idle_ns"]).all() and (st[idle.QUEUED_COLUMN] == st["idle_ns"]).all()
    d = summary_of(rep)["by_kind"]["decode"]
    assert d["idle_causes_share"]["launch"] == pytest.approx(d["idle_launch_queued_share"], rel=0.1)
    ks = rep.summary.by_kind["decode"]
    assert advice(ks.idle, min_share=0.0)[0] == ("launch", ADVICE["launch_queued"])
    f = next(f for f in findings.idle_candidates("decode", ks, None) if f.args[0] == "launch_queued")
    assert f.bound == d["speedup_bound_if_no_idle_cause"]["launch"] and as_dict(f)["what"] == IDLE_WHAT["launch_queued"]


def test_kernel_only_trace_is_unexplained():
    tr, _ = loaded(str(FIXTURES / "llama_eager_nsys.sqlite"))
    bare = Trace(kernels=tr.kernels, memops=tr.memops, launches=tr.launches.iloc[0:0], ranges=tr.ranges,
                 graphs=tr.graphs, cpu_ops=tr.cpu_ops, meta=dict(tr.meta))
    rep = analyze(bare)
    assert causes_sum_exactly(rep.steps) and (rep.steps["idle_unexplained_ns"] == rep.steps["idle_ns"]).all()
    assert any("kernel-only" in n for n in texts(rep.notes))
    d = summary_of(rep)["by_kind"]["decode"]
    assert d["idle_causes_share"]["unexplained"] == pytest.approx(d["idle_share"])
    assert IDLE_WHAT["unexplained"] in [f["what"] for f in summary_of(rep)["findings"]]


def test_diff_names_the_idle_cause_that_moved():
    from traceattrib.diff import diff as diff_reports
    from traceattrib.render import diff as rdiff
    before = loaded(str(FIXTURES / "llama_eager_nsys.sqlite"))[1]
    after = loaded(str(FIXTURES / "llama_graph_nsys_node.sqlite"))[1]
    d = diff_reports(before, after)
    k = d.kinds["decode"]
    assert k.contributions[0].part == "launch idle"
    cut = -k.idle_causes["launch"].change_ns / 1e6
    assert 1.0 < cut < 1.4  # 1.34 -> 0.14 ms per step
    assert k.idle_causes["launch"].verdict == "lower"
    assert f"launch idle cut by {cut:.3f} ms" in rdiff.render_md(d)
    assert sum(r.change_ns for r in k.idle_causes.values()) == pytest.approx(
        k.buckets["idle"].exposed.change_ns, abs=1e-6)


# --- the rules on a timeline built here -----------------------------------------------------------

def test_rules_on_a_built_timeline():
    """One thread, one step; every rule of the idle module once, with exact expected ns."""
    us = 1000
    # (start, end, correlation) of GPU ops; kind
    ops = pd.DataFrame({
        "start_ns": [2500, 3600, 5000, 502_000, 601_200, 620_000, 700_000],
        "end_ns": [3500, 4000, 6000, 503_000, 602_000, 640_000, 701_000],
        "correlation": [1, 2, 3, 4, 5, 6, 99],  # 99: no launch call recorded
        "kind": ["kernel"] * 5 + ["memop", "kernel"],
    }).assign(rank=0, pid=1, step=0)
    calls = [  # name, start, end, correlation
        ("cudaLaunchKernel", 1000, 2000, 1),
        ("cudaLaunchKernel", 2100, 2900, 2),        # op 2 queued before the gap [3500, 3600)
        ("cudaLaunchKernel", 4100, 4600, 3),        # 1.2 us after the previous call: launch path
        ("cudaLaunchKernel", 500_000, 501_000, 4),  # 495 us of nothing before it: host
        ("cudaStreamSynchronize", 503_500, 600_000, 0),
        ("cudaLaunchKernel", 600_500, 601_000, 5),
        ("cudaMemcpyAsync", 605_000, 641_000, 6),  # still running halfway through its copy: blocking
    ]
    launches = pd.DataFrame(calls, columns=["name", "start_ns", "end_ns", "correlation"]) \
        .assign(rank=0, pid=1, tid=1, name=lambda d: d["name"].astype("category"))
    ranges = pd.DataFrame({"start_ns": [0, 10_000], "end_ns": [800_000, 400_000], "name": ["step_0", "busy"],
                           "domain": "", "source": "nvtx", "pid": 1, "tid": 1, "depth": [0, 1], "rank": 0})
    ranges["name"] = ranges["name"].astype("category")
    # the step's span opens at 0, before its first op (the GPU waited for the host to start it)
    table = pd.DataFrame({"rank": [0], "index": [0], "start_ns": [0], "cpu_start_ns": [0], "cpu_end_ns": [800_000]})
    ic = idle.explain(ops, table, launches, empty(CPU_OP_COLUMNS), ranges)
    c = ic.causes.iloc[0]
    span, busy = 701_000, 1000 + 400 + 1000 + 1000 + 800 + 20_000 + 1000
    assert c[list(idle.CAUSE_COLUMNS)].sum() == span - busy
    # launch: [1000,2500) in and after call 1 + 100 queued + [4000,5000) + 2x1000 around call 4
    # + 500+500+500+200 around call 5 + [602000,605000) between calls
    assert c["idle_launch_ns"] == 1500 + 100 + 1000 + 2000 + 1700 + 3000
    assert c[idle.QUEUED_COLUMN] == 100
    assert c["idle_host_ns"] == 500_000 - 6000
    assert c["idle_sync_ns"] == (600_000 - 503_500) + (620_000 - 605_000) + (641_000 - 640_000)
    # before the thread's first call; after its last call, ending at an op without a call
    assert c["idle_unexplained_ns"] == 1000 + (700_000 - 641_000)
    lab = ic.labels.set_index(["cause", "what"])["ns"]
    assert lab[("host", "busy")] == 390_000 and lab[("host", idle.UNNAMED)] == 494_000 - 390_000
    assert lab[("sync", "cudaStreamSynchronize")] == 96_500
    assert lab[("sync", "cudaMemcpyAsync (blocking copy)")] == 16 * us
    # gap by gap: its parts, its largest cause and what the CPU did in it
    g = ic.gaps.set_index("start_ns")
    assert list(g.index) == [0, 3500, 4000, 6000, 503_000, 602_000, 640_000]
    assert g.loc[3500, "queued"] and g.loc[3500, "cause"] == "launch" and g.loc[3500, "launch_ns"] == 100
    assert g.loc[6000, ["host_ns", "launch_ns", "end_ns"]].tolist() == [494_000, 2000, 502_000]
    assert (g.loc[6000, "cause"], g.loc[6000, "what"], g.loc[6000, "source"]) == ("host", "busy", "range")
    assert g.loc[503_000, ["sync_ns", "launch_ns"]].tolist() == [96_500, 1700]
    assert (g.loc[503_000, "cause"], g.loc[503_000, "what"], g.loc[503_000, "source"]) == \
        ("sync", "cudaStreamSynchronize", "call")
    assert g.loc[0, "what"] == "" and g.loc[0, "cause"] == "launch"
    sums = g[[f"{x}_ns" for x in idle.CAUSES]].sum()
    assert [int(sums[f"{x}_ns"]) for x in idle.CAUSES] == [int(c[col]) for col in idle.CAUSE_COLUMNS]
    # a longer launch_run_gap turns the 495 us stretch into launch path
    import dataclasses
    loose = dataclasses.replace(idle.load_rules(), launch_run_gap_ns=1_000_000)
    c2 = idle.explain(ops, table, launches, empty(CPU_OP_COLUMNS), ranges, loose).causes.iloc[0]
    assert c2["idle_host_ns"] == 0 and c2["idle_launch_ns"] == c["idle_launch_ns"] + c["idle_host_ns"]


def test_rank_orders_and_drops_what_wins_nothing():
    from traceattrib.report import Finding

    cands = [Finding("bucket", 1.2, ("a",)), Finding("bucket", float("inf"), ("b",)), Finding("bucket", 1.005, ("c",)),
             Finding("idle", 1.5, ("d",)), Finding("bucket", float("nan"), ("e",)), Finding("bucket", 1.2, ("f",)),
             Finding("bucket", 1.3, ("g",))]
    assert findings.rank(cands) == [Finding("idle", 1.5, ("d",)), Finding("bucket", 1.3, ("g",)),
                                    Finding("bucket", 1.2, ("a",))]
    assert findings.rank(cands, n=5)[3:] == [Finding("bucket", 1.2, ("f",))]


def test_findings_use_the_job_bounds_with_two_ranks():
    # rank 0 spins in NCCL waiting for rank 1: removing communication wins rank 0 up to 2.5x, the
    # job nothing, so it is no finding; rank 1's launch idle is
    _, rep = loaded(str(FIXTURES / "tp2_eager_torch"))
    s = summary_of(rep)
    assert s["by_kind"]["decode"]["speedup_bound_if_removed"]["communication"] > 2.0
    assert s["job"]["decode"]["speedup_bound_if_removed"]["communication"] < 1.01
    whats = [f["what"] for f in s["findings"]]
    assert "exposed communication kernels" not in whats
    assert IDLE_WHAT["launch"] in whats


def test_speed_of_light_floor_is_the_ceiling_not_a_fix():
    """The whole step at its floor (30x on this decode) bounds every fix together: it is shown
    beside the ranking, and the ranking holds the fixes (buckets, idle causes, linear kernels)."""
    _, rep = loaded(str(FIXTURES / "llama_eager_torch.pt.trace.json.gz"))
    s = summary_of(rep)
    ceil = s["ceiling"]
    assert ceil["what"].startswith("decode step at its speed of light") and ceil["bound"] > 20
    assert all("speed of light (" not in f["what"] for f in s["findings"])
    assert all(f["bound"] < ceil["bound"] for f in s["findings"])
    assert "Ceiling on all fixes together" in text.render(rep)


@pytest.mark.parametrize("name", ["hf_generate_torch.pt.trace.json.gz", "serve_piecewise_torch.pt.trace.json.gz",
                                  "llama_graph_torch.pt.trace.json.gz", SAMPLED])
def test_sweep_over_calls_near_the_gaps_only_changes_nothing(name, monkeypatch):
    """idle.sweep.near_windows drops the calls far from every GPU gap before the sweep: causes and
    labels must equal those of the sweep over all calls (on traces where it does drop some)."""
    tr, rep = loaded(str(FIXTURES / name))
    dropped = []
    real = idle.sweep.near_windows

    def spy(*a):
        keep = real(*a)
        dropped.append(0 if keep is None else int((~keep).sum()))
        return keep

    monkeypatch.setattr(idle.sweep, "near_windows", spy)
    monkeypatch.setattr(idle.sweep, "NEAR_MIN_CALLS_PER_WINDOW", 0)  # filter whenever any call can go
    monkeypatch.setattr(idle.sweep, "NEAR_MAX_KEEP", 1.0)
    st = steps.find_steps(tr)
    got = idle.explain(st.ops, st.table, tr.launches, tr.cpu_ops, tr.ranges)
    assert sum(dropped) > 0, "the filter must drop calls on this trace for the test to mean anything"
    monkeypatch.setattr(idle.sweep, "near_windows", lambda *a: None)
    full = idle.explain(st.ops, st.table, tr.launches, tr.cpu_ops, tr.ranges)
    pd.testing.assert_frame_equal(got.causes, full.causes)
    pd.testing.assert_frame_equal(got.labels, full.labels)
    assert (got.causes[list(idle.CAUSE_COLUMNS)].to_numpy() == rep.steps[list(idle.CAUSE_COLUMNS)].to_numpy()).all() \
        or len(st.table) != len(rep.steps)


SPLIT_FIXTURES = ["hf_generate_torch.pt.trace.json.gz", "serve_piecewise_torch.pt.trace.json.gz",
                  "llama_eager_nsys.sqlite", IDLE_FIXTURES["torch"], SAMPLED]


@pytest.mark.parametrize("name", SPLIT_FIXTURES)
@pytest.mark.parametrize("part", [1 << 40, 97])
def test_windows_split_in_parts_change_nothing(name, part, monkeypatch):
    """A Plan sweeps the parts of a thread's windows apart (each with the calls around its own
    windows) and sums each part's pieces as it ends: causes and labels must equal those of one
    sweep, here with every thread's windows split in two (MIN_PART_WINDOWS 1) or in parts of 97 windows
    (PART_WINDOWS 97, several jobs per thread), near-call filtering on and off."""
    tr, _ = loaded(str(FIXTURES / name))
    st = steps.find_steps(tr)
    monkeypatch.setattr(idle.causes, "PART_WINDOWS", part)
    for near in (idle.sweep.near_windows, lambda *a: None):
        monkeypatch.setattr(idle.sweep, "near_windows", near)
        monkeypatch.setattr(idle.causes, "MIN_PART_WINDOWS", 1 << 40)
        whole = idle.explain(st.ops, st.table, tr.launches, tr.cpu_ops, tr.ranges)
        monkeypatch.setattr(idle.causes, "MIN_PART_WINDOWS", 1)
        plan = idle.Plan(st.ops, st.table, tr.launches, tr.cpu_ops, tr.ranges)
        assert plan.jobs and all(len(job) == 2 for job in plan.jobs), \
            "every thread's windows must have been split for the test to mean anything"
        if part < 1 << 40:
            assert len(plan.jobs) > len(plan.sel), "some thread's parts must span several jobs"
        split = idle.explain(st.ops, st.table, tr.launches, tr.cpu_ops, tr.ranges)
        assert whole.causes[list(idle.CAUSE_COLUMNS)].to_numpy().sum() > 0
        pd.testing.assert_frame_equal(split.causes, whole.causes)
        pd.testing.assert_frame_equal(split.labels, whole.labels)
        pd.testing.assert_frame_equal(split.gaps, whole.gaps)


@pytest.mark.parametrize("name", SPLIT_FIXTURES)
@pytest.mark.parametrize("part", [1 << 40, 97])
def test_parts_run_beside_each_other_equal_the_parts_run_in_turn(name, part, monkeypatch):
    """analysis.idle_causes runs the two parts of every job in two threads; idle.explain runs them
    one after another: the same causes, labels and gaps (every thread split: MIN_PART_WINDOWS 1; in
    parts of 97 windows, several jobs per thread)."""
    tr, _ = loaded(str(FIXTURES / name))
    st = steps.find_steps(tr)
    monkeypatch.setattr(idle.causes, "MIN_PART_WINDOWS", 1)
    monkeypatch.setattr(idle.causes, "PART_WINDOWS", part)
    threads = []
    real = idle.Plan.run

    def spy(self, s):
        threads.append(threading.current_thread().name)
        return real(self, s)

    monkeypatch.setattr(idle.Plan, "run", spy)
    serial = idle.explain(st.ops, st.table, tr.launches, tr.cpu_ops, tr.ranges)
    assert len(set(threads)) == 1
    threads.clear()
    beside = analysis.idle_causes(st.ops, st.table, tr.launches, tr.cpu_ops, tr.ranges)
    assert any(n.startswith("traceattrib-idle-part") for n in threads), "a part must have run in the second thread"
    pd.testing.assert_frame_equal(beside.causes, serial.causes)
    pd.testing.assert_frame_equal(beside.labels, serial.labels)
    pd.testing.assert_frame_equal(beside.gaps, serial.gaps)
    assert beside.notes == serial.notes


def test_idle_starts_no_thread():
    """idle is single-threaded: running two things at once is the orchestrator's (concurrency.beside)."""
    import pathlib

    src = pathlib.Path(idle.__file__).parent
    for f in src.glob("*.py"):
        text = f.read_text()
        assert not any(w in text for w in ("concurrent.futures", "import threading", "concurrency")), f.name


def test_host_activity_keeps_epoch_ns_exact():
    """A thread with no ranges: its CPU work before the first call keeps every ns of epoch-based
    times (an empty float list once turned them into float64: 1.7e18 + 1 came back 21 ns off)."""
    t0 = 1_700_000_000_000_000_001
    none = np.zeros(0, np.int64)
    s, e = idle.sweep.activity(np.array([t0]), np.array([t0 + 7]), none, none, t0 + 100, t0 + 200,
                               lambda s, e: np.zeros(s.size, bool))
    assert s.dtype == np.int64 and [int(s[0]), int(e[0])] == [t0, t0 + 7]


_SMALL = st.integers(-2, 3)


@settings(max_examples=300, deadline=None, derandomize=True, database=None)
@given(rows=st.lists(st.tuples(_SMALL, _SMALL, _SMALL, st.integers(0, 4)), max_size=12))
def test_gap_order_check_and_merged_shortcut(rows):
    """gaps.in_gap_order says whether np.lexsort((-le, s, step)) leaves rows in place; sweep.merged (with
    its shortcut for intervals already disjoint and in order) is the union of the intervals."""
    step, s, le, d = (np.array([r[i] for r in rows], np.int64) for i in range(4))
    if s.size:
        assert idle.gaps.in_gap_order(step, s, le) == bool((np.lexsort((-le, s, step)) == np.arange(s.size)).all())
    e = s + d
    us, ue = idle.sweep.merged(s, e)
    cover = {x for a, z in zip(s.tolist(), e.tolist()) for x in range(a, z)}
    assert {x for a, z in zip(us.tolist(), ue.tolist()) for x in range(a, z)} == cover
    assert (us[1:] > ue[:-1]).all() and (ue >= us).all()
    if (s[1:] > e[:-1]).all():  # (d >= 0) the shortcut: returned as they are
        assert us is s and ue is e


@settings(max_examples=60, deadline=None, derandomize=True, database=None)
@given(tl=timelines())
def test_gaps_add_up_on_generated_traces(tl):
    """Any generated trace: every idle gap adds up (gaps_add_up), whatever the steps found."""
    import tempfile

    from traceattrib.errors import TraceError
    with tempfile.TemporaryDirectory() as d:
        path = f"{d}/t.json"
        with open(path, "w") as f:
            f.write(kineto_text(tl))
        try:
            rep = analyze(read(path))
        except TraceError:  # no GPU work, or none inside a step: said in one line
            return
    gaps_add_up(rep)


@pytest.mark.parametrize("name", ["idle_causes_nsys.sqlite", "serve_piecewise_torch.pt.trace.json.gz"])
def test_gaps_of_some_steps_are_those_steps_rows_of_every_gap(name):
    """IdleCauses.gaps_of(rows) builds the rows of some steps only (a report shows a few): the same
    rows, values, order and categories as every gap's table cut to those steps, for rows given
    unsorted and repeated; no rows keeps the columns' types."""
    tr = read(str(FIXTURES / name))
    st_ = steps.find_steps(tr)
    ic = idle.explain(st_.ops, st_.table, tr.launches, tr.cpu_ops, tr.ranges)
    every = ic.gaps
    n = len(st_.table)
    assert n >= 3 and len(every) > n
    rows = np.array([n - 1, 0, n - 1, n // 2])
    want = every[np.isin(every["step"].to_numpy(), rows)].reset_index(drop=True)
    got = ic.gaps_of(rows)
    assert len(got) == len(want) > 0
    pd.testing.assert_frame_equal(got, want)
    none = ic.gaps_of(np.zeros(0, np.int64))
    assert len(none) == 0 and list(none.columns) == list(every.columns)
    assert (none.dtypes == every.dtypes).all()
