"""Tensor-parallel fixtures (TP=2, NCCL over NVLink, captured on 2 H200s): communication on every
rank, 2 all-reduces per layer per step, exposed communication and bounds per rank."""
from __future__ import annotations

import json
import statistics

import pytest

from traceattrib.analysis import analyze
from traceattrib.ingest import read
from traceattrib.render.notes import texts

from conftest import FIXTURES, summary_of

LAYERS = 4
TP_FIXTURES = {"tp2_eager_nsys": "tp2_eager_nsys.sqlite", "tp2_eager_torch": "tp2_eager_torch",
               "tp2_graph_torch": "tp2_graph_torch"}
_cache: dict = {}


def rep(name):
    if name not in _cache:
        _cache[name] = analyze(read(str(FIXTURES / TP_FIXTURES[name])), layers=LAYERS)
    return _cache[name]


def events(name, rank):
    with open(FIXTURES / f"{name}.rank{rank}.steps.json") as f:
        return json.load(f)


@pytest.mark.parametrize("name", list(TP_FIXTURES))
def test_two_ranks_with_communication_on_each(name):
    r = rep(name)
    assert r.meta["ranks"] == [0, 1]
    comm = r.kernels[r.kernels["bucket"].astype(str) == "communication"]
    assert sorted(comm["rank"].unique()) == [0, 1]
    assert comm["name"].astype(str).str.startswith("ncclDevKernel_AllReduce").all()
    # one device per rank
    assert r.kernels.groupby("rank")["device"].nunique().tolist() == [1, 1]


@pytest.mark.parametrize("name", list(TP_FIXTURES))
def test_all_reduce_count_is_two_per_layer(name):
    r = rep(name)
    c = r.collectives
    steps = r.steps
    assert len(steps) == 26  # 1 prefill + 12 decode steps on each of 2 ranks
    per = c[c["collective"] == "all_reduce"].set_index(["rank", "step"])["count"]
    for _, s in steps.iterrows():
        assert per.loc[(s["rank"], s["index"])] == 2 * LAYERS
    d = summary_of(r)["by_kind"]["decode"]["collectives"]
    assert d["all_reduce"]["per_step"] == 8 and d["expected_all_reduce_per_step"] == 8
    assert d["all_reduce_difference"] == 0


@pytest.mark.parametrize("name", list(TP_FIXTURES))
def test_steps_match_each_ranks_cuda_events(name):
    r = rep(name)
    for rank in (0, 1):
        ev = events(name, rank)
        assert ev["world_size"] == 2 and ev["rank"] == rank
        st = r.steps[r.steps["rank"] == rank]
        assert list(st["name"]) == [e["name"] for e in ev["steps"]]
        ours = st.loc[st["kind"] == "decode", "span_ns"].median() / 1e6
        truth = statistics.median(e["cuda_event_ms"] for e in ev["steps"][1:])
        assert abs(ours - truth) / truth < 0.05, (rank, ours, truth)


@pytest.mark.parametrize("name", list(TP_FIXTURES))
def test_exposed_communication_and_bound_per_rank(name):
    r = rep(name)
    by_rank = summary_of(r)["by_rank"]
    assert set(by_rank) == {0, 1}
    for rank, kinds in by_rank.items():
        d = kinds["decode"]
        st = r.kind_steps("decode")
        st = st[st["rank"] == rank]
        x = st["communication_exposed_ns"].sum() / st["span_ns"].sum()
        assert d["exposed_share"]["communication"] == pytest.approx(x)
        assert d["speedup_bound_if_removed"]["communication"] >= 1.0


def test_graphs_hide_what_eager_tp_exposes():
    eager = summary_of(rep("tp2_eager_torch"))["by_rank"]
    graph = summary_of(rep("tp2_graph_torch"))["by_rank"]
    # eager: one rank launches late and the other spins in NCCL for most of each step
    assert max(eager[r]["decode"]["exposed_share"]["communication"] for r in (0, 1)) > 0.5
    assert any("rank 1 arrives last at 100%" in n for n in texts(rep("tp2_eager_torch").notes))
    # CUDA graphs: both ranks arrive together; an all-reduce of 8 KiB takes a few microseconds
    for r in (0, 1):
        assert graph[r]["decode"]["exposed_share"]["communication"] < 0.05
    mean = summary_of(rep("tp2_graph_torch"))["by_kind"]["decode"]["collectives"]["all_reduce"]["mean_ns"]
    assert mean < 20_000
