"""Steps on real traces: one forward pass each, from the best evidence, kinds right, spans against
the capture scripts' own CUDA events (fixtures/*.steps.json), and on other people's traces."""
from __future__ import annotations

import json
import statistics

import numpy as np
import pandas as pd
import pytest

from traceattrib import analyze, steps
from traceattrib.ingest import read
from traceattrib.model import RANGE_COLUMNS, Trace, conform
from traceattrib.render.fmt import steps_line
from traceattrib.render.notes import texts

from conftest import FIXTURES, NSYS_VERSIONS, PUBLIC, needs_shared, summary_of


def truth(name: str) -> list[dict]:
    paths = sorted(FIXTURES.glob(f"{name}.steps.json")) or sorted(FIXTURES.glob(f"{name}.rank0.steps.json"))
    return json.load(open(paths[0]))["steps"]


def truth_kinds(steps: list[dict]) -> list[str]:
    return [s.get("kind") or ("prefill" if s["name"] == "prefill" else "decode") for s in steps]


def load(name: str) -> Trace:
    for p in (FIXTURES / f"{name}.pt.trace.json.gz", FIXTURES / f"{name}.sqlite", FIXTURES / name):
        if p.exists():
            return read(str(p))
    raise FileNotFoundError(name)


def add_ranges(t: Trace, rows: pd.DataFrame) -> None:
    """Append annotation ranges (a synthetic edge case built on a real trace)."""
    both = pd.concat([t.ranges.astype({c: str for c in ("name", "domain", "source")}), rows], ignore_index=True)
    t.ranges = conform(both.astype({c: "category" for c in ("name", "domain", "source")}), RANGE_COLUMNS)


# (fixture, evidence, steps per rank, layers per step)
CASES = [
    ("serve_piecewise_torch", "annotations", 11, 8),      # vLLM >= 0.14 names, piecewise graphs
    ("serve_piecewise_nsys", "annotations", 11, 8),       # the same names as NVTX
    ("serve_piecewise_noann_torch", "python_frames", 11, 8),  # gpu_model_runner.py: execute_model
    ("serve_piecewise_noann_nsys", "cuda_graphs", 11, 8),  # 9 launches per forward + eager prefill
    ("serve_full_noann_torch", "cuda_graphs", 11, 8),     # one launch per forward + eager prefill
    ("serve_eager_noann_torch", "detected", 11, 8),
    ("serve_mixed_torch", "annotations", 9, 4),           # a request joins at step 4: a mixed batch
    ("serve_mixed_noann_torch", "detected", 9, 4),        # ... found with more kernels per forward after it
    ("hf_generate_torch", "detected", 16, 8),             # HF generate: 1 prefill + 15 decode forwards
    ("llama_eager_torch", "annotations", 25, 4),
    ("llama_eager_nsys", "annotations", 25, 4),
    ("llama_graph_torch", "annotations", 25, 4),
    ("llama_graph_nsys_node", "annotations", 25, 4),
    ("tp2_eager_torch", "annotations", 13, 4),
    ("tp2_graph_torch", "annotations", 13, 4),
    ("tp2_eager_nsys", "annotations", 13, 4),
]


@pytest.mark.parametrize("name,evidence,nsteps,layers", CASES, ids=[c[0] for c in CASES])
def test_fixture_steps_are_forwards(name, evidence, nsteps, layers):
    rep = analyze(load(name))
    st = rep.steps
    assert rep.evidence == evidence
    for r, g in st.groupby("rank"):
        want = truth_kinds(truth(name))
        assert len(g) == nsteps == len(want), r
        assert list(g["kind"]) == want, r
        assert (g["layers"] == layers).all(), r
        # median decode span within 5% of the script's CUDA events of the whole iteration
        got = g.loc[g["kind"] == "decode", "span_ns"].median() / 1e6
        ref = statistics.median(s["cuda_event_ms"] for s, k in zip(truth(name), want) if k == "decode")
        assert abs(got / ref - 1) < 0.05, (r, got, ref)


@pytest.mark.parametrize("name", ["serve_piecewise_torch", "serve_eager_noann_torch", "hf_generate_torch"])
def test_tokens_per_step_from_names_or_shapes(name):
    rep = analyze(load(name))
    want = [s["tokens"] for s in truth(name)]
    assert list(rep.steps["tokens"]) == want


def test_kinds_say_their_evidence():
    """kind_evidence: the deciding source first, then every other that agreed; none disagreed."""
    st = {n: analyze(load(n)).steps for n in ("serve_piecewise_torch", "serve_eager_noann_torch",
                                              "serve_piecewise_noann_nsys")}
    ev = {n: [e.split(", ") for e in s["kind_evidence"]] for n, s in st.items()}
    # vLLM's counts in the names decide; the attention shapes (128 queries per sequence, then 1) agree
    assert all(e[0] == "name" and "tokens per sequence" in e for e in ev["serve_piecewise_torch"])
    # no names: the attention shapes decide; each decode's keys grew by one since the step before
    assert all(e[0] == "tokens per sequence" for e in ev["serve_eager_noann_torch"])
    assert all("KV +1 per step" in e for e in ev["serve_eager_noann_torch"][2:])
    # no shapes in nsys: tokens from the row kernels' grids (512 prompt tokens, then 4 per decode);
    # the graph replays (decodes) and the eager step among them (the prefill) agree
    assert all(e[0] == "tokens" and "launch grid" in e and "graph replay" in e for e in ev["serve_piecewise_noann_nsys"])
    for s in st.values():
        assert (s["kind_against"] == "").all()


def test_piecewise_launches_are_grouped_not_steps():
    rep = analyze(load("serve_piecewise_noann_nsys"))
    assert "9 launches per forward" in summary_of(rep)["evidence_why"]
    assert any("eager forward" in n for n in texts(rep.notes))
    # every decode step holds its 9 graph replays and the 8 eager attention calls between them
    dec = rep.steps[rep.steps["kind"] == "decode"]
    assert (dec["attention_count"] == 16).all()  # split-KV attention + its combine kernel, per layer


def test_profiler_step_around_generate_is_split_into_forwards():
    """A ProfilerStep around a whole `generate` holds 16 forwards: detection wins, and says why."""
    t = load("hf_generate_torch")
    k = t.kernels
    extra = pd.DataFrame({"start_ns": [int(k["start_ns"].min()) - 1000], "end_ns": [int(k["end_ns"].max()) + 1000],
                          "name": ["ProfilerStep#1"], "domain": ["torch"], "source": ["profiler_step"],
                          "pid": [int(t.launches["pid"].iloc[0])], "tid": [int(t.launches["tid"].iloc[0])],
                          "depth": [0], "rank": [0]})
    add_ranges(t, extra)
    rep = analyze(t)
    assert rep.evidence == "detected" and len(rep.steps) == 16
    assert any("ProfilerStep" in n and "16 forward passes" in n for n in texts(rep.notes))


def test_kernel_only_trace_keeps_its_prefill():
    """A production trace with GPU kernels only (no CPU events): the long first forward is a
    prefill from its launch grids or span, never swallowed as warm-up."""
    t = load("serve_eager_noann_torch")
    for tab in ("launches", "ranges", "cpu_ops"):
        setattr(t, tab, getattr(t, tab).iloc[0:0])
    t.kernels = t.kernels.assign(op="", op_id=-1).astype({"op": "category"})
    rep = analyze(t)
    st = rep.steps
    assert rep.evidence == "detected" and len(st) == 11
    assert list(st["kind"]) == ["prefill"] + ["decode"] * 10
    assert not st["warmup"].iloc[0]
    assert summary_of(rep)["by_kind"]["prefill"]["summarized_steps"] == 1


def test_layers_option_disagreement_is_noted():
    rep = analyze(load("serve_eager_noann_torch"), layers=80)
    assert any("--layers 80 but the steps hold 8 layers" in n for n in texts(rep.notes))


def test_zero_count_vllm_ranges_are_not_steps():
    t = load("serve_piecewise_torch")
    r = t.ranges
    idle = r[r["source"].astype(str) == "user_annotation"].iloc[[0]].astype(
        {c: str for c in ("name", "domain", "source")}).assign(
        name="execute_context_0(0)_generation_0(0)", start_ns=int(t.kernels["end_ns"].max()) + 10_000,
        end_ns=int(t.kernels["end_ns"].max()) + 20_000)
    add_ranges(t, idle)
    rep = analyze(t)
    assert len(rep.steps) == 11
    assert any("say no forward ran" in n for n in texts(rep.notes))


# --- other people's traces -----------------------------------------------------------------------

@needs_shared
def test_public_sglang_prefill_step():
    rep = analyze(read(str(PUBLIC / "tracelens_mi300_sglang_qwen3_8b_prefilldecode.json.gz")))
    st = rep.steps
    # one annotated EXTEND forward of Qwen3-8B (36 layers), 15 requests x 1024 tokens; detection
    # must not cut it into layer groups
    assert rep.evidence == "annotations" and len(st) == 1
    assert st["kind"].iloc[0] == "prefill" and st["tokens"].iloc[0] == 15360 and st["layers"].iloc[0] == 36
    assert "training" not in texts([rep.summary.evidence_why])[0]


@needs_shared
def test_a_cnn_whose_kernels_recur_at_two_distances_stays_one_step():
    """An nsys export of CNN benchmarks (convolutions only, no attention kernels): its kernels recur
    at two distances, which is no rhythm of forward passes; the whole trace stays one step."""
    path = NSYS_VERSIONS / "LeiWang1999_memfusion_artifact__cb223ed__report1.sqlite"
    if not path.exists():
        pytest.skip("shared trace absent")
    rep = analyze(read(str(path)))
    assert rep.evidence == "whole_trace" and len(rep.steps) == 1
    assert list(rep.steps["kind"]) == ["unknown"]


@needs_shared
def test_public_vllm_graph_capture_is_not_cut_into_layers():
    rep = analyze(read(str(PUBLIC / "tracelens_mi300_vllm_graph_capture.json.gz")))
    st = rep.steps
    assert len(st) == 1 and st["layers"].iloc[0] == 24  # Qwen3 forward frames, not 24 one-layer steps
    # vLLM's start-up capture of 25 graphs (hipStreamBeginCapture ... EndCapture): the step is said
    # to be graph capture, not a forward pass
    (n,) = [n for n in rep.notes if n.code == "steps.graph_capture"]
    assert n.counts == (1, 25)
    assert "not forward passes" in texts([n])[0]
    # and the steps line says so above what to fix first, which would otherwise read as a forward's
    assert steps_line(rep).endswith("; the step is CUDA-graph capture, not a forward pass (see notes)")


def test_steps_holding_a_stream_capture_are_said_to_be_capture():
    """Launch calls renamed to cudaStreamBeginCapture inside two steps (three calls) and after the
    last step: a note counts the two steps and three captures; the unchanged trace has none."""
    t = load("llama_eager_torch")
    ref = analyze(t)
    assert not [n for n in ref.notes if n.code == "steps.graph_capture"]
    tab = ref.steps.sort_values("start_ns")
    la = t.launches
    start = la["start_ns"].to_numpy()
    rows = []
    for i, k in ((3, 2), (7, 1)):
        s, e = tab["start_ns"].iloc[i], tab["end_ns"].iloc[i]
        rows += list(np.flatnonzero((start >= s) & (start < e))[:k])
    rows.append(int(np.flatnonzero(start >= tab["end_ns"].max())[0]))
    names = la["name"].astype(str).to_numpy()
    names[rows] = "cudaStreamBeginCapture"
    t.launches = la.assign(name=pd.Categorical(names))
    rep = analyze(t)
    (n,) = [n for n in rep.notes if n.code == "steps.graph_capture"]
    assert n.counts == (2, 3)
    assert steps_line(rep).endswith(f"; 2 of {len(rep.steps)} steps are CUDA-graph capture, not a forward pass "
                                    "(see notes)")
    assert "capture" not in steps_line(ref)


@needs_shared
@pytest.mark.parametrize("name,n", [("hta_a100_2rank_nccl_args.json.gz", 3), ("hta_ns_resolution_rank0.json.gz", 5),
                                    ("tracelens_mi300_resnet_rccl.json.gz", 3)])
def test_public_training_iterations_stay_profiler_steps(name, n):
    rep = analyze(read(str(PUBLIC / name)))
    assert rep.evidence == "annotations" and len(rep.steps) == n
    assert set(rep.steps["kind"]) == {"unknown"}  # training iterations, not prefill or decode
    assert any("training" in x for x in texts(rep.notes))
    # the cross-check found one forward per step; a step of a training trace is that forward and
    # its backward, which the steps line says instead of "one forward pass"
    why = texts([rep.summary.evidence_why])[0]
    assert why.endswith("each holds one forward pass and its backward, a training iteration (checked against "
                        "the kernel stream)"), why


def test_every_fixture_step_holds_gpu_work_and_sums_to_span():
    for name in ("serve_piecewise_noann_nsys", "serve_full_noann_torch", "hf_generate_torch"):
        st = analyze(load(name)).steps
        exp = st[[c for c in st.columns if c.endswith("_exposed_ns")]].sum(axis=1)
        assert (exp + st["overlap_ns"] + st["idle_ns"] == st["span_ns"]).all()
        assert (st["n_ops"] > 0).all() and (np.diff(st["start_ns"]) > 0).all()


@needs_shared
def test_public_hf_step_leaves_out_work_launched_before_the_trace():
    """TraceLens HF Qwen1.5-0.5B eager trace (24 layers): the GPU still runs the previous
    iteration's kernels (launched before the profiler's window, no launch call in the trace) for
    the first 14 ms. They belong to no step; ProfilerStep#6 then holds one forward, 24 layers, and
    starts after that work, as its own GPU-side annotation says."""
    tr = read(str(PUBLIC / "tracelens_h100_qwen15_05b_hf_eager.json.gz"))
    from traceattrib import classify

    st = steps.find_steps(tr, kernel_buckets=classify.classify_kernels(tr.kernels, classify.load_rules())["bucket"])
    assert len(st.table) == 1 and int(st.table["layers"].iloc[0]) == 24
    before = st.ops["before_trace"].to_numpy(bool)
    k = tr.kernels
    flash = k["name"].astype(str).str.contains("flash_fwd").to_numpy()
    assert int(flash.sum()) == 34 and int((k["op_id"].to_numpy()[flash] < 0).sum()) == 10
    assert (st.ops["step"].to_numpy()[before] == -1).all() and before.sum() > 0
    gpu_ann = tr.ranges[(tr.ranges["name"] == "ProfilerStep#6") & (tr.ranges["source"] == "gpu_user_annotation")]
    ann_ns = int((gpu_ann["end_ns"] - gpu_ann["start_ns"]).iloc[0])
    span = int(st.table["end_ns"].iloc[0] - st.table["start_ns"].iloc[0])
    assert abs(span / ann_ns - 1) < 0.02, (span, ann_ns)
