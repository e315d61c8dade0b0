"""Steps and per-step attribution on real fixtures (truth checks against the capture's own CUDA
events) and on synthetic edge cases built here in code."""
from __future__ import annotations

import json
import statistics

import numpy as np
import pandas as pd
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from traceattrib.analysis import analyze
from traceattrib.attribute import ALL_BUCKETS, bound_if_faster, bound_if_removed, bucket_unions, category_unions_many
from traceattrib.ingest import read
from traceattrib.model import (
    GRAPH_COLUMNS,
    KERNEL_COLUMNS,
    LAUNCH_COLUMNS,
    MEMOP_COLUMNS,
    RANGE_COLUMNS,
    Trace,
    conform,
    empty,
)
from traceattrib.render.notes import texts

from conftest import FIXTURES, summary_of

FIXTURE_FILES = {
    "llama_eager_nsys": "llama_eager_nsys.sqlite",
    "llama_graph_nsys_node": "llama_graph_nsys_node.sqlite",
    "llama_graph_nsys": "llama_graph_nsys.sqlite",
    "llama_eager_torch": "llama_eager_torch.pt.trace.json.gz",
    "llama_graph_torch": "llama_graph_torch.pt.trace.json.gz",
}

_cache: dict[str, object] = {}


def report(name, **kw):
    key = name + repr(sorted(kw.items()))
    if key not in _cache:
        _cache[key] = analyze(read(str(FIXTURES / FIXTURE_FILES[name])), **kw)
    return _cache[key]


def cuda_events(name):
    with open(FIXTURES / f"{name}.steps.json") as f:
        return json.load(f)["steps"]


@pytest.mark.parametrize("name", list(FIXTURE_FILES))
def test_steps_match_cuda_events(name):
    rep = report(name)
    ev = cuda_events(name)
    st = rep.steps
    assert len(st) == len(ev) == 25
    assert list(st["name"]) == [e["name"] for e in ev]
    assert list(st["kind"]) == ["prefill"] + ["decode"] * 24
    ours = st.loc[st["kind"] == "decode", "span_ns"].median() / 1e6
    truth = statistics.median(e["cuda_event_ms"] for e in ev[1:])
    assert abs(ours - truth) / truth < 0.05, (ours, truth)
    assert rep.evidence == "annotations"


@pytest.mark.parametrize("name", list(FIXTURE_FILES))
def test_breakdown_adds_up_to_span(name):
    st = report(name).steps
    parts = sum(st[f"{b}_exposed_ns"] for b in ALL_BUCKETS) + st["overlap_ns"] + st["idle_ns"]
    assert (parts == st["span_ns"]).all()
    assert (st["busy_ns"] <= st["span_ns"]).all()
    for b in ALL_BUCKETS:
        assert (st[f"{b}_exposed_ns"] <= st[f"{b}_time_ns"]).all()


@pytest.mark.parametrize("name", ["llama_eager_nsys", "llama_graph_nsys_node", "llama_eager_torch"])
@pytest.mark.parametrize("chunk_ops", [1, 97, 2_000])
def test_breakdown_in_runs_of_steps_is_the_same(name, chunk_ops):
    """breakdown a few ops (whole steps) at a time, as on a long trace, gives every column and
    collective row it gives in one go, on real captures (25 steps each)."""
    from traceattrib import attribute, classify, steps
    from traceattrib.analysis import _comm_text
    trace = read(str(FIXTURES / FIXTURE_FILES[name]))
    rules = classify.load_rules()
    kc, mc = classify.classify_kernels(trace.kernels, rules), classify.classify_memops(trace.memops, rules)
    found = steps.find_steps(trace, kernel_buckets=kc["bucket"])
    codes = attribute.op_buckets(found, kc["bucket"], mc["bucket"])
    comm = _comm_text(trace.kernels, kc["bucket"])
    whole = attribute.breakdown(found, codes, comm)
    runs = attribute.breakdown(found, codes, comm, chunk_ops=chunk_ops)
    assert len(whole.steps) == 25 and int(whole.steps["busy_ns"].sum()) > 0
    assert sum(1 for _ in attribute.step_runs(found.ops["step"].to_numpy(np.int64), 25, chunk_ops)) > 1
    pd.testing.assert_frame_equal(whole.steps, runs.steps)
    pd.testing.assert_frame_equal(whole.collectives, runs.collectives)
    assert whole.buckets == runs.buckets


@pytest.mark.parametrize("pair", [("llama_eager_nsys", "llama_eager_torch"),
                                  ("llama_graph_nsys_node", "llama_graph_torch")])
def test_nsys_and_torch_agree_on_bucket_shares(pair):
    a, b = (summary_of(report(n))["bucket_share"] for n in pair)
    for bucket in ("linear", "attention", "communication", "cast", "norm", "elementwise", "memory", "other"):
        assert abs(a[bucket] - b[bucket]) < 0.03, (bucket, a[bucket], b[bucket])
    # the workload is cast-heavy: int8 weights dequantized every step
    assert a["cast"] > 0.25 and a["linear"] > 0.05


def test_graph_level_capture_still_reports_steps():
    rep = report("llama_graph_nsys")
    dec = rep.steps[rep.steps["kind"] == "decode"]
    assert len(dec) == 24
    assert (dec["graph_count"] == 1).all() and (dec["graph_exposed_ns"] == dec["busy_ns"]).all()
    assert any("--cuda-graph-trace=node" in n for n in texts(rep.notes))
    # prefill ran eagerly: it still has a real breakdown
    pre = rep.steps[rep.steps["kind"] == "prefill"].iloc[0]
    assert pre["linear_count"] > 0 and pre["graph_count"] == 0


def test_graph_steps_run_behind_the_cpu_but_are_attributed():
    # In graph mode the CPU range of a decode step lasts ~0.1 ms while its GPU work lasts ~4.7 ms:
    # projection through the launch's correlation id must still put all of it in the step.
    rep = report("llama_graph_nsys_node")
    dec = rep.steps[rep.steps["kind"] == "decode"]
    cpu = (dec["cpu_end_ns"] - dec["cpu_start_ns"]).median()
    assert cpu < 0.2 * dec["span_ns"].median()
    assert (rep.kernels["step"] >= 0).all()


def test_steps_regex_and_graph_and_detection_evidence():
    t = read(str(FIXTURES / "llama_graph_torch.pt.trace.json.gz"))
    rep = analyze(t, steps_regex=r"^decode_step_\d+$")
    assert rep.evidence == "regex" and len(rep.steps) == 24
    t.ranges = t.ranges.iloc[0:0]
    rep = analyze(t)
    # 24 graph replays (one launch per decode forward) and the eager prefill before them
    assert rep.evidence == "cuda_graphs" and len(rep.steps) == 25
    assert list(rep.steps["kind"]) == ["prefill"] + ["decode"] * 24
    # the prefill from its attention shapes (queries per sequence), the decodes from their launch
    # grids (4x fewer blocks); the replays agree
    ev = [e.split(", ") for e in rep.steps["kind_evidence"]]
    assert ev[0][0] == "tokens per sequence" and all(e[0] == "launch grid" for e in ev[1:])
    assert all("graph replay" in e for e in ev)
    assert any("eager forward" in n for n in texts(rep.notes))
    t = read(str(FIXTURES / "llama_eager_nsys.sqlite"))
    t.ranges = t.ranges.iloc[0:0]
    rep = analyze(t)
    assert rep.evidence == "detected"
    # one step per forward; no names, no shapes, the same attention kernel and a span like the
    # decodes' (CPU-bound): the prefill's 256 tokens still launch far more thread blocks in the
    # kernels whose grids follow the tokens
    assert len(rep.steps) == 25 and list(rep.steps["kind"]) == ["prefill"] + ["decode"] * 24
    assert (rep.steps["kind_evidence"] == "launch grid").all()
    # the same ops per decode step as the annotated steps hold: 263 kernels and 5 memory ops
    assert (rep.steps["n_ops"].iloc[1:] == 268).all()
    truth = statistics.median(e["cuda_event_ms"] for e in cuda_events("llama_eager_nsys")[1:])
    dec = rep.steps.iloc[1:]
    assert abs(dec["span_ns"].median() / 1e6 - truth) / truth < 0.05
    assert any("detected" in n for n in texts(rep.notes))


def test_what_if_and_bounds():
    rep = report("llama_eager_nsys", what_if={"cast": 2.0})
    d = summary_of(rep)["by_kind"]["decode"]
    dec = rep.kind_steps("decode")
    span = dec["span_ns"].to_numpy(float)
    x = dec["cast_exposed_ns"].to_numpy(float)
    assert d["speedup_bound_if_removed"]["cast"] == pytest.approx(np.median(span / (span - x)))
    assert d["what_if"]["cast=2"]["speedup_bound"] == pytest.approx(np.median(span / (span - x / 2)))
    assert 1.0 < d["what_if"]["cast=2"]["speedup_bound"] < d["speedup_bound_if_removed"]["cast"]


# --- synthetic edge cases -----------------------------------------------------------------------

def synthetic(kernels: list[tuple[int, int, int, str]], steps: list[tuple[int, int, str]]) -> Trace:
    """Kernels (start, end, stream, name) launched at their start time; step ranges (start, end, name)."""
    k = pd.DataFrame({"start_ns": [a for a, *_ in kernels], "end_ns": [b for _, b, *_ in kernels],
                      "stream": [s for _, _, s, _ in kernels], "name": [n for *_, n in kernels],
                      "short_name": [n for *_, n in kernels], "device": 0, "pid": 1, "rank": 0,
                      "correlation": np.arange(len(kernels))})
    la = pd.DataFrame({"start_ns": k["start_ns"] - 5, "end_ns": k["start_ns"] - 1, "name": "cudaLaunchKernel",
                       "pid": 1, "tid": 1, "correlation": k["correlation"], "rank": 0})
    r = pd.DataFrame({"start_ns": [a for a, _, _ in steps], "end_ns": [b for _, b, _ in steps],
                      "name": [n for *_, n in steps], "domain": "", "source": "nvtx", "pid": 1, "tid": 1,
                      "depth": 0, "rank": 0})
    return Trace(kernels=conform(k, KERNEL_COLUMNS), memops=empty(MEMOP_COLUMNS), launches=conform(la, LAUNCH_COLUMNS),
                 ranges=conform(r, RANGE_COLUMNS), graphs=empty(GRAPH_COLUMNS), meta={"format": "synthetic"})


def test_exposed_communication_with_overlap():
    gemm = "nvjet_sm90_tst_128x8_64x12_4x1_v_bz_TNT"
    nccl = "ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)"
    # step 0..1000: GEMM 0-600 on stream 7, all-reduce 400-900 on stream 9 (200 hidden, 300 exposed), idle 900-1000
    t = synthetic([(0, 600, 7, gemm), (400, 900, 9, nccl), (900, 1000, 7, gemm)],
                  [(-10, 1000, "decode_step_0")])
    rep = analyze(t)
    s = rep.steps.iloc[0]
    assert s["span_ns"] == 1000 and s["busy_ns"] == 1000 and s["idle_ns"] == 0
    assert s["communication_time_ns"] == 500 and s["communication_exposed_ns"] == 300
    assert s["linear_time_ns"] == 700 and s["linear_exposed_ns"] == 500
    assert s["overlap_ns"] == 200
    assert summary_of(rep)["speedup_bound_if_removed"]["communication"] == pytest.approx(1000 / 700)


def test_idle_and_no_double_counting_of_concurrent_kernels():
    g = "nvjet_sm90_tst_64x8_64x16_2x1_v_bz_splitK_TNT"
    # two GEMMs on two streams fully overlapping: union 100, not 200; a 50 ns gap is idle
    t = synthetic([(0, 100, 7, g), (0, 100, 8, g), (150, 200, 7, g)], [(-10, 200, "decode_step_0")])
    s = analyze(t).steps.iloc[0]
    assert s["linear_time_ns"] == 150 and s["idle_ns"] == 50 and s["span_ns"] == 200
    assert s["linear_count"] == 3


def test_gpu_work_behind_cpu_goes_to_issuing_step():
    g = "nvjet_sm90_tst_64x8_64x16_2x1_v_bz_splitK_TNT"
    # step 1's CPU range ends at 100 but its kernel runs at 500-600 (queued behind step 0's)
    t = synthetic([(10, 500, 7, g), (500, 600, 7, g)], [(0, 8, "decode_step_0"), (8, 100, "decode_step_1")])
    t.launches.loc[1, ["start_ns", "end_ns"]] = [50, 55]
    st = analyze(t).steps
    # step 0 starts when its range opened on the host (0): the GPU idled until its kernel at 10
    assert list(st["span_ns"]) == [500, 100]


def test_collectives_stay_with_their_steps_when_steps_interleave_on_the_gpu():
    gemm = "nvjet_sm90_tst_64x8_64x16_2x1_v_bz_splitK_TNT"
    nccl = "ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)"
    # step 0 launches a GEMM at 90 that queues behind its first one until 400; step 1's all-reduce
    # runs at 150 on another stream: in GPU time order the steps' ops interleave
    t = synthetic([(10, 300, 7, gemm), (150, 300, 9, nccl), (400, 500, 7, gemm)],
                  [(0, 100, "decode_step_0"), (100, 200, "decode_step_1")])
    t.launches.loc[2, ["start_ns", "end_ns"]] = [90, 95]
    rep = analyze(t)
    st = rep.steps
    assert list(st["communication_time_ns"]) == [0, 150] and list(st["linear_time_ns"]) == [390, 0]
    assert list(st["communication_count"]) == [0, 1] and list(st["linear_count"]) == [2, 0]
    c = rep.collectives
    assert [(int(r.step), r.collective, int(r["count"])) for _, r in c.iterrows()] == [(1, "all_reduce", 1)]


def test_bound_formulas():
    assert bound_if_removed(np.array([100.0]), np.array([25.0]))[0] == pytest.approx(100 / 75)
    assert bound_if_faster(np.array([100.0]), np.array([25.0]), 2)[0] == pytest.approx(100 / 87.5)
    assert np.isinf(bound_if_removed(np.array([100.0]), np.array([100.0]))[0])


def test_public_sglang_step_is_prefill():
    from conftest import PUBLIC
    p = PUBLIC / "tracelens_mi300_sglang_qwen3_8b_prefilldecode.json.gz"
    if not p.exists():
        pytest.skip("../shared/traces is absent")
    rep = analyze(read(str(p)))
    # SGLang names its steps execute_<tokens>_context_<n>(...)_generation_<m>(...) and step[EXTEND ...]
    assert rep.evidence == "annotations"
    assert list(rep.steps["kind"]) == ["prefill"]


def test_name_kinds():
    from traceattrib.steps import name_kind
    assert name_kind("decode_step_3") == "decode"
    assert name_kind("prefill") == "prefill"
    assert name_kind("step[EXTEND bs=15 toks=15360]") == "prefill"
    assert name_kind("mixed_batch_7") == "mixed"
    assert name_kind("execute_4_context_2(x)_generation_2(y)") == "mixed"
    assert name_kind("ProfilerStep#4") == "unknown"


@pytest.mark.parametrize("name", ["llama_eager_torch", "llama_graph_nsys_node"])
def test_sweep_matches_naive_interval_unions(name):
    """Independent oracle: per step and bucket, merge the ops' intervals one by one in Python."""
    rep = report(name)
    ops = pd.concat([rep.kernels[["start_ns", "end_ns", "bucket", "step"]],
                     rep.memops[["start_ns", "end_ns", "bucket", "step"]]], ignore_index=True)
    ops["bucket"] = ops["bucket"].astype(str)

    def union_len(iv):
        total, cur_s, cur_e = 0, None, None
        for s, e in sorted(iv):
            if cur_e is None or s > cur_e:
                if cur_e is not None:
                    total += cur_e - cur_s
                cur_s, cur_e = s, e
            else:
                cur_e = max(cur_e, e)
        return total + (cur_e - cur_s if cur_e is not None else 0)

    def alone_len(o, bucket):
        """Time when `bucket` runs and no other does, segment by segment between all op edges."""
        pts = sorted(set(o["start_ns"]) | set(o["end_ns"]))
        total = 0
        for a, z in zip(pts, pts[1:]):
            running = set(o["bucket"][(o["start_ns"] <= a) & (o["end_ns"] >= z)])
            total += (z - a) if running == {bucket} else 0
        return total

    for sid in (1, 7, 24):
        o = ops[ops["step"] == sid]
        row = rep.steps.loc[sid]
        assert row["busy_ns"] == union_len(zip(o["start_ns"], o["end_ns"]))
        for b, g in o.groupby("bucket"):
            assert row[f"{b}_time_ns"] == union_len(zip(g["start_ns"], g["end_ns"])), b
            assert row[f"{b}_exposed_ns"] == alone_len(o, b), b


_BUCKET_NAMES = {
    "linear": "nvjet_sm90_tst_64x8_64x16_2x1_v_bz_splitK_TNT",
    "communication": "ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)",
    "attention": "void flash::flash_fwd_kernel<Flash_fwd_kernel_traits<128, 64, 64, 4> >(flash::Flash_fwd_params)",
    "norm": "void vllm::rms_norm_kernel<c10::BFloat16>(c10::BFloat16*, c10::BFloat16 const*, c10::BFloat16 const*, "
            "float, int, int)",
}


@settings(max_examples=60, deadline=None, derandomize=True, database=None)
@given(ops=st.lists(st.tuples(st.integers(0, 400), st.integers(0, 120), st.integers(7, 10),
                              st.sampled_from(sorted(_BUCKET_NAMES))), min_size=1, max_size=25))
# once cut into two detected steps (attention's gaps taken for two periods of forwards)
@example(ops=[(0, 0, 7, "attention"), (0, 0, 7, "communication"), (0, 0, 7, "attention"), (1, 0, 7, "communication"),
              (1, 1, 7, "communication"), (1, 0, 7, "attention"), (1, 0, 7, "attention")])
def test_breakdown_matches_a_segment_by_segment_count(ops):
    """Busy, per-bucket time and exposed time of overlapping kernels on several streams equal a
    count over every elementary segment between op edges (the definition, no unions)."""
    kernels = [(s, s + d, stream, _BUCKET_NAMES[b]) for s, d, stream, b in ops]
    row = analyze(synthetic(kernels, [(-10, 1000, "decode_step_0")])).steps.iloc[0]
    pts = sorted({p for s, e, *_ in kernels for p in (s, e)})
    busy, time, alone = 0, dict.fromkeys(_BUCKET_NAMES, 0), dict.fromkeys(_BUCKET_NAMES, 0)
    for a, z in zip(pts, pts[1:]):
        running = {b for (s, d, _, b) in ops if s <= a and s + d >= z}
        busy += (z - a) if running else 0
        for b in running:
            time[b] += z - a
        if len(running) == 1:
            alone[running.pop()] += z - a
    assert row["busy_ns"] == busy and row["idle_ns"] == row["span_ns"] - busy
    for b in _BUCKET_NAMES:
        assert (row[f"{b}_time_ns"], row[f"{b}_exposed_ns"]) == (time[b], alone[b]), b
    assert row["overlap_ns"] == busy - sum(alone.values())


@st.composite
def _step_intervals(draw):
    """Intervals of a few steps laid apart in time as breakdown lays them (ns): (s, e, bucket,
    step, nsteps, nb). Short spans make ties and overlaps between buckets common; some intervals
    are empty or end before they start, some steps have a zero span or no interval; rows come
    sorted by start or shuffled."""
    nb = draw(st.integers(1, len(ALL_BUCKETS)))
    nsteps = draw(st.integers(0, 4))
    used = draw(st.sampled_from([[0], [nb - 1], list(range(nb))]))  # one bucket, or any
    rows, at = [], draw(st.sampled_from([0, 7, 10**15]))
    for k in draw(st.permutations(range(nsteps))):  # step ids need not follow time order
        span = draw(st.sampled_from([0, 1, 5, 30]))
        for _ in range(draw(st.integers(0, 10))):
            a = draw(st.integers(0, span))
            z = min(a + draw(st.integers(-2, span)), span)
            rows.append((at + a, at + z, draw(st.sampled_from(used)), k))
        at += span + draw(st.integers(1, 3))
    if draw(st.booleans()):
        rows = draw(st.permutations(rows))
    else:
        rows.sort(key=lambda r: r[0])
    s, e, b, k = (np.array([r[i] for r in rows], np.int64) for i in range(4))
    return s, e, b, k, nsteps, nb


@settings(max_examples=400, deadline=None, derandomize=True, database=None)
@given(iv=_step_intervals())
def test_bucket_unions_match_a_segment_by_segment_count(iv):
    """bucket_unions against the definition: per elementary segment between interval edges, the
    buckets with an interval covering it (an interval ending before it starts covers nothing)."""
    s, e, b, k, nsteps, nb = iv
    busy, time, alone = bucket_unions(s, e, b, k, nsteps, nb)
    want_busy, want_time, want_alone = np.zeros(nsteps, np.int64), np.zeros((nsteps, nb), np.int64), \
        np.zeros((nsteps, nb), np.int64)
    for step in range(nsteps):
        m = k == step
        pts = sorted(set(s[m].tolist()) | set(e[m].tolist()))
        for a, z in zip(pts, pts[1:]):
            running = {int(x) for x in b[m & (s <= a) & (e >= z)]}
            want_busy[step] += (z - a) if running else 0
            for x in running:
                want_time[step, x] += z - a
            if len(running) == 1:
                want_alone[step, running.pop()] += z - a
    np.testing.assert_array_equal(busy, want_busy)
    np.testing.assert_array_equal(time, want_time)
    np.testing.assert_array_equal(alone, want_alone)


@settings(max_examples=300, deadline=None, derandomize=True, database=None)
@given(iv=_step_intervals(), chunk=st.integers(1, 6), outside=st.booleans())
def test_category_unions_in_runs_of_steps_are_the_same(iv, chunk, outside):
    """category_unions_many a few ops (whole steps) at a time gives what it gives in one go, for
    every coding, with ops outside steps left out either way."""
    s, e, b, k, nsteps, nb = iv
    step = k.copy()
    if outside:
        step[::3] = -1
    has = [(k == j).any() for j in range(nsteps)]
    start = np.array([s[k == j].min() if has[j] else 0 for j in range(nsteps)], np.int64)
    span = np.array([max(int(np.maximum(e, s)[k == j].max()) - int(start[j]), 0) if has[j] else 0
                     for j in range(nsteps)], np.int64)
    codings = [(b, nb), (b % 2, 2)]
    whole = category_unions_many(s, e, codings, step, start, span)
    runs = category_unions_many(s, e, codings, step, start, span, chunk_ops=chunk)
    for (t1, x1), (t2, x2) in zip(whole, runs):
        np.testing.assert_array_equal(t1, t2)
        np.testing.assert_array_equal(x1, x2)
