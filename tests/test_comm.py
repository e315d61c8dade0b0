"""Communication (traceattrib.comm): bytes per collective, bandwidth against the link, wait vs
transfer across ranks, job-level bounds and the interconnect what-if, on the TP=2 fixtures (2 H200s
over NVLink, NCCL 2.28.9, a Llama-style model with hidden 4096 in bf16: 8 all-reduces per step of
hidden x tokens x 2 bytes), the public multi-rank traces, and synthetic edge cases built here."""
from __future__ import annotations

import json
import sqlite3
import statistics

import numpy as np
import pandas as pd
import pytest

from traceattrib import collectives, comm, links
from traceattrib.analysis import analyze
from traceattrib.cli import main
from traceattrib.errors import TraceError
from traceattrib.ingest import nccl_nvtx, read
from traceattrib.render.findings import as_dict
from traceattrib.render.notes import texts

from conftest import FIXTURES, PUBLIC, needs_shared, summary_of

TP = {"eager_torch": "tp2_eager_torch", "eager_nsys": "tp2_eager_nsys.sqlite", "graph_torch": "tp2_graph_torch"}
HIDDEN, BF16 = 4096, 2
_cache: dict = {}
_traces: dict = {}


def rep(name, **kw):
    key = (name, repr(sorted(kw.items())))
    if key not in _cache:
        if name not in _traces:
            _traces[name] = read(str(FIXTURES / TP[name]))
        _cache[key] = analyze(_traces[name], layers=4, **kw)
    return _cache[key]


def capture_args(name):
    with open(FIXTURES / f"tp2_{name}.rank0.steps.json") as f:
        return json.load(f)["args"]


# --- bytes and bandwidth --------------------------------------------------------------------------

def test_bytes_per_all_reduce_are_hidden_x_tokens_x_bf16():
    a = capture_args("eager_torch")  # the capture script's own arguments: hidden, batch, prompt
    r = rep("eager_torch")
    dec = summary_of(r)["by_kind"]["decode"]["collectives"]["all_reduce"]
    pre = summary_of(r)["by_kind"]["prefill"]["collectives"]["all_reduce"]
    assert dec["bytes_per_call"] == a["hidden"] * a["batch"] * BF16 == 8192
    assert pre["bytes_per_call"] == a["hidden"] * a["batch"] * a["prompt"] * BF16 == 2 * 2 ** 20
    assert dec["bytes_source"] == pre["bytes_source"] == "args"
    assert dec["bytes_per_step"] == 8 * 8192
    # per step in the JSON-facing table: 8 calls of 8 KiB in every decode step of every rank
    c = r.collectives.merge(r.steps[["rank", "index", "kind"]].rename(columns={"index": "step"}))
    assert (c.loc[c["kind"] == "decode", "bytes"] == 65536).all()
    assert (c.loc[c["kind"] == "prefill", "bytes"] == 8 * 2 * 2 ** 20).all()


def _pairs(r):
    """Matched calls computed here independently: the k-th NCCL kernel of rank 0 with the k-th of
    rank 1, rank 1's clock shifted by the median end difference."""
    k = r.kernels[r.kernels["bucket"].astype(str) == "communication"].sort_values("start_ns")
    a, b = (k[k["rank"] == i].reset_index(drop=True) for i in (0, 1))
    off = statistics.median((b["end_ns"] - a["end_ns"]).tolist())
    return a, b, off


def test_transfer_time_and_bandwidth_against_an_independent_pairing():
    r = rep("eager_torch")
    a, b, off = _pairs(r)
    assert summary_of(r)["job"]["decode"]["clock_offsets_ns"] == {0: 0.0, 1: off}
    assert abs(off) < 2_000  # one host: the two GPUs' clocks agree within 2 us
    last = np.maximum(a["start_ns"], b["start_ns"] - off)
    trans = pd.concat([a["end_ns"] - last, b["end_ns"] - off - last])
    nel = pd.concat([a["comm_in_nelems"], b["comm_in_nelems"]])
    # decode calls are the 4096-element ones (prompt 256 tokens -> 1M elements in prefill)
    dec = summary_of(r)["by_kind"]["decode"]["collectives"]["all_reduce"]
    t = float(np.median(trans[nel == 4096].clip(lower=0)))
    assert dec["median_transfer_ns"] == pytest.approx(t, abs=1)
    cls = dec["size_classes"][0]
    assert cls["algbw_GBps"] == pytest.approx(8192 / t, rel=1e-3)
    # all-reduce over 2 ranks: busbw = algbw x 2(n-1)/n = algbw
    assert cls["busbw_GBps"] == pytest.approx(cls["algbw_GBps"])
    assert cls["link_fraction"] == pytest.approx(cls["busbw_GBps"] / 450.0)
    # measured on 2 H200s: 8 KiB all-reduces are latency-bound (~6 us), 2 MiB reach ~15% of NVLink 4
    assert 4_000 < t < 10_000
    pre = summary_of(r)["by_kind"]["prefill"]["collectives"]["all_reduce"]["size_classes"][0]
    assert 0.08 < pre["link_fraction"] < 0.3


def test_busbw_factors_are_the_nccl_tests_definitions():
    k = collectives.by_kind()
    assert k["all_reduce"].busbw(8) == pytest.approx(2 * 7 / 8)
    assert k["all_gather"].busbw(8) == k["reduce_scatter"].busbw(8) == k["all_to_all"].busbw(8) == pytest.approx(7 / 8)
    assert k["broadcast"].busbw(8) == k["reduce"].busbw(8) == k["send_recv"].busbw(8) == 1.0
    for name, kind in (("allreduce", "all_reduce"), ("_allgather_base", "all_gather"),
                       ("reduce_scatter_tensor_coalesced", "reduce_scatter"), ("alltoall_base", "all_to_all"),
                       ("ncclBroadcast", "broadcast"), ("ncclDevKernel_SendRecv", "send_recv"), ("reduce", "reduce"),
                       ("barrier", "other")):
        assert collectives.kind_of_text(name) == kind, name
    assert collectives.dtype_from_kernel("ncclDevKernel_AllReduce_Sum_bf16_RING_LL") == "BFloat16"
    assert collectives.dtype_from_kernel("ncclKernel_AllReduce_RING_LL_Sum_float") == "Float"
    assert collectives.dtype_from_kernel("ncclDevKernel_Generic") == ""


@needs_shared
def test_single_rank_public_traces_use_durations_and_the_group_size():
    r = analyze(read(str(PUBLIC / "tracelens_mi300_resnet_rccl.json.gz")))
    kind = summary_of(r)["kind"]
    ar = summary_of(r)["by_kind"][kind]["collectives"]["all_reduce"]
    assert ar["group_size"] == 8 and ar["time_basis"] == "duration"
    # RCCL over 8 MI300X: busbw = algbw x 2 x 7/8, against Infinity Fabric's 448 GB/s
    assert ar["busbw_GBps"] == pytest.approx(ar["algbw_GBps"] * 1.75)
    assert summary_of(r)["link"]["name"] == "xgmi-mi300x"
    assert any("one rank's trace" in n for n in texts(r.notes))
    assert "job" not in summary_of(r)
    h = analyze(read(str(PUBLIC / "hta_a100_2rank_nccl_args.json.gz")))
    hk = summary_of(h)["by_kind"][summary_of(h)["kind"]]["collectives"]
    sizes = {c["bytes_per_call"] for c in hk["all_reduce"]["size_classes"]}
    # fp32 all-reduces of 2049000, 2431040, ... elements (the trace's own "In msg nelems")
    assert 2049000 * 4 in sizes and 7875584 * 4 in sizes
    assert hk["broadcast"]["size_classes"][0]["bytes_per_call"] == 53 * 8  # int64


@needs_shared
def test_job_figures_without_communication():
    """Two processes on 2 H100s, no NCCL (public nsys export): the job is still the first start to the
    last end over ranks, one nsys clock, no straggler."""
    from conftest import NSYS_VERSIONS
    r = analyze(read(str(NSYS_VERSIONS / "GindaChen_nsys-ai__387e5a5__h100_2gpu_1s.sqlite")))
    assert summary_of(r)["job"]
    for j in summary_of(r)["job"].values():
        assert j["ranks"] == 2 and j["straggler"] is None and j["clocks"] == "one capture, one clock"
        assert j["speedup_bound_if_removed"]["communication"] == 1.0
    js = r.comm.job_steps
    st = r.steps.set_index(["rank", "index"])
    for _, row in js.iterrows():
        rows = st.xs(row["index"], level="index")
        assert row["span_ns"] == rows["end_ns"].max() - rows["start_ns"].min()


# --- wait vs transfer ---------------------------------------------------------------------------------

@pytest.mark.parametrize("name", list(TP))
def test_wait_plus_transfer_is_the_collective_time_exactly(name):
    r = rep(name)
    sc = r.comm.step_collectives
    assert (sc["wait_ns"] + sc["transfer_ns"] == sc["comm_ns"]).all()
    assert (sc["wait_ns"] >= 0).all() and (sc["transfer_ns"] >= 0).all()
    # the collectives of a step run on one stream, one after another: their durations add up to the
    # communication bucket's time (a union of intervals)
    st = r.steps.set_index(["rank", "index"])
    per = sc.groupby(["rank", "step"])["comm_ns"].sum()
    assert (per.to_numpy() == st.loc[per.index, "communication_time_ns"].to_numpy()).all()
    for kinds in summary_of(r)["by_rank"].values():
        d = kinds["decode"]
        assert d["comm_wait_ns"] + d["comm_transfer_ns"] == pytest.approx(d["comm_ns"], rel=1e-12)


@pytest.mark.parametrize("name", ["eager_torch", "eager_nsys"])
def test_eager_rank_0_waits_for_rank_1(name):
    r = rep(name)
    d0, d1 = (summary_of(r)["by_rank"][k]["decode"] for k in (0, 1))
    # rank 1 launches late (78% idle); rank 0 spins in NCCL for it: ~9 ms of wait per step, while the
    # data itself moves in ~50 us per step (8 x ~6 us) on both ranks
    assert d0["comm_wait_ns"] > 0.95 * d0["comm_ns"] and d0["comm_wait_ns"] > 8e6
    assert d1["comm_wait_ns"] < 0.01 * d1["comm_ns"]
    for d in (d0, d1):
        assert 30e3 < d["comm_transfer_ns"] < 80e3
    st = summary_of(r)["job"]["decode"]["straggler"]
    assert st["rank"] == 1 and st["last_share"] == 1.0 and st["calls"] == 96
    assert 0.5e6 < st["late_by_median_ns"] < 2e6
    assert any("rank 1 arrives last at 100%" in n for n in texts(r.notes))


def test_nsys_export_is_one_clock_and_its_nccl_kernels_carry_the_collective():
    r = rep("eager_nsys")
    assert summary_of(r)["job"]["decode"]["clocks"] == "one capture, one clock"
    assert set(summary_of(r)["job"]["decode"]["clock_offsets_ns"].values()) == {0.0}
    k = r.kernels[r.kernels["name"].astype(str).str.startswith("ncclDevKernel")]
    assert len(k) == 210 and (k["comm_collective"].astype(str) == "allreduce").all()
    assert set(k["comm_dtype"].astype(str)) == {"BFloat16", "Float"}  # bf16 activations, one fp32 barrier-like sum
    # this export was taken without --include-blobs: sizes are unknown, and the report says how to get them
    assert (k["comm_in_nelems"] == -1).all()
    assert any("--include-blobs=true" in n for n in texts(r.notes))


def test_cuda_graph_replays_arrive_together():
    r = rep("graph_torch")
    d = summary_of(r)["by_kind"]["decode"]["collectives"]["all_reduce"]
    assert d["median_wait_ns"] < 3_000 and d["median_transfer_ns"] < 10_000
    # NCCL kernels replayed inside CUDA graphs carry no args: bytes unknown unless --model says
    assert d["bytes_source"] == "unknown" and d["size_classes"] == []
    m = comm.Model(hidden_size=HIDDEN, dtype_bytes=BF16, tokens={"decode": 1, "prefill": 256})
    dm = summary_of(rep("graph_torch", model=m))["by_kind"]["decode"]["collectives"]["all_reduce"]
    assert dm["bytes_source"] == "model" and dm["bytes_per_call"] == 8192
    # without tokens: each step's own token count where the steps table has one (prefill: 256 from
    # the GEMM shapes); decode steps replayed from graphs have none, so their bytes stay unknown
    import dataclasses
    t = _traces["graph_torch"]
    bare = dataclasses.replace(t, kernels=t.kernels.assign(comm_in_nelems=-1, comm_out_nelems=-1))  # no args
    r = analyze(bare, model=comm.Model(hidden_size=HIDDEN, dtype_bytes=BF16))
    pre = summary_of(r)["by_kind"]["prefill"]["collectives"]["all_reduce"]
    assert pre["bytes_source"] == "model" and pre["bytes_per_call"] == 2 * 2 ** 20
    assert summary_of(r)["by_kind"]["decode"]["collectives"]["all_reduce"]["bytes_source"] == "unknown"


# --- job-level bounds ---------------------------------------------------------------------------

@pytest.mark.parametrize("name", list(TP))
def test_job_bound_never_above_the_slowest_ranks_bound(name):
    r = rep(name)
    js = r.comm.job_steps
    assert len(js) == 13  # 1 prefill + 12 decode indices on both ranks
    st = r.steps.set_index(["rank", "index"])
    off = r.comm.offsets_ns
    for _, j in js.iterrows():
        rows = st.xs(j["index"], level="index")
        ends = {rk: rows.loc[rk, "end_ns"] - off[rk] for rk in rows.index}
        assert j["slowest_rank"] == max(ends, key=ends.get)
        assert j["span_ns"] >= rows["span_ns"].max()
        s = rows.loc[j["slowest_rank"]]
        for b in r.buckets:
            own = s["span_ns"] / (s["span_ns"] - s[f"{b}_exposed_ns"])
            assert 1.0 <= j[f"bound_{b}"] <= own + 1e-9, (j["index"], b)
        assert 1.0 <= j["bound_communication_wait"] <= j["bound_communication"] + 1e-9


def test_eager_job_gains_nothing_from_removing_communication():
    r = rep("eager_torch")
    job = summary_of(r)["job"]["decode"]
    own0 = summary_of(r)["by_rank"][0]["decode"]["speedup_bound_if_removed"]["communication"]
    assert own0 > 4  # rank 0 alone: 77% of its step is communication
    assert job["slowest_rank"] == 1
    assert job["speedup_bound_if_removed"]["communication"] < 1.01
    # the job's step: first start to last end over the ranks, longer than either rank's own span
    assert job["median_span_ns"] > max(summary_of(r)["by_rank"][k]["decode"]["median_span_ns"] for k in (0, 1))


def test_job_figures_lead_the_text_and_markdown():
    from traceattrib.render import markdown, text
    r = rep("eager_torch")
    t = text.render(r)
    assert t.index("JOB DECODE") < t.index("\nDECODE ") < t.index("per rank (exposed share")
    assert "communication wait" in t and "straggler: rank 1" in t
    m = markdown.render(r)
    assert m.index("### job, decode") < m.index("### decode")


def test_json_contract():
    from traceattrib.render import jsonout
    d = json.loads(jsonout.render(rep("eager_torch", what_if_links=(links.get("pcie4"),))))
    step = next(s for s in d["steps"] if s["kind"] == "decode")
    assert step["collectives"]["all_reduce"]["bytes"] == 65536
    c = step["collectives"]["all_reduce"]
    assert c["wait_ns"] + c["transfer_ns"] >= c["count"] * 1000
    ar = d["summary"]["by_kind"]["decode"]["collectives"]["all_reduce"]
    for key in ("bytes_per_call", "algbw_GBps", "busbw_GBps", "link_fraction", "bytes_source"):
        assert key in ar
    assert set(d["summary"]["by_rank"]["0"]["decode"]) >= {"comm_wait_ns", "comm_transfer_ns"}
    assert d["summary"]["job"]["decode"]["speedup_bound_if_removed"]["communication"] >= 1.0
    assert d["summary"]["link"]["name"] == "nvlink4"
    assert d["summary"]["what_if_link"]["pcie4"]["decode"]["projected_comm_ns"] > 0


# --- links ----------------------------------------------------------------------------------------

def test_links_table_and_detection():
    t = links.table()
    for name in ("nvlink3", "nvlink4", "nvlink5", "pcie3", "pcie4", "pcie5", "pcie6", "xgmi-mi300x", "xgmi-mi355x"):
        assert t[name].peak_GBps > 0 and t[name].source and t[name].latency_us is not None
    assert t["nvlink4"].peak_GBps == 450 and t["pcie5"].peak_GBps == pytest.approx(63.0)
    for gpu, link in (("NVIDIA H200", "nvlink4"), ("NVIDIA H100 80GB HBM3", "nvlink4"), ("NVIDIA H100 PCIe", "pcie5"),
                      ("NVIDIA H100 NVL", "nvlink4-bridge"), ("NVIDIA A100-PG509-200", "nvlink3"),
                      ("NVIDIA A100-PCIE-40GB", "pcie4"), ("NVIDIA B200", "nvlink5"), ("AMD Instinct MI300X", "xgmi-mi300x"),
                      ("AMD Instinct MI355X", "xgmi-mi355x"), ("NVIDIA L40S", "pcie4")):
        assert links.detect({"gpus": [gpu]}).name == link, gpu
    assert links.detect({"gpus": ["Some Future GPU"]}) is None
    assert links.parse("400").peak_GBps == 400 and links.parse("PCIe4").name == "pcie4"
    with pytest.raises(TraceError):
        links.parse("nvlink9")


def test_link_override_changes_the_fraction_not_the_bandwidth(capsys):
    a = summary_of(rep("eager_torch"))["by_kind"]["prefill"]["collectives"]["all_reduce"]
    b = summary_of(rep("eager_torch", link=links.parse("100")))["by_kind"]["prefill"]["collectives"]["all_reduce"]
    assert a["busbw_GBps"] == b["busbw_GBps"]
    assert b["link_fraction"] == pytest.approx(b["busbw_GBps"] / 100)
    rc = main(["report", str(FIXTURES / TP["eager_torch"]), "--link", "nvlink9"])
    assert rc == 2 and "unknown link" in capsys.readouterr().err


# --- interconnect what-if -------------------------------------------------------------------------

def test_latency_bandwidth_fit_on_the_eager_capture():
    r = rep("eager_torch")
    f = summary_of(r)["interconnect_fit"]["all_reduce"]
    assert [p["bus_bytes"] for p in f["points"]] == [8192, 2 * 2 ** 20]
    assert f["method"] == "least squares over size classes"
    for p in f["points"]:  # two size classes: the line goes through both medians
        assert p["fitted_ns"] == pytest.approx(p["time_ns"], rel=1e-9)
    assert 4_000 < f["latency_ns"] < 8_000 and 40 < f["busbw_GBps"] < 200


def test_fit_agrees_between_the_eager_and_the_cuda_graph_capture():
    """The same NCCL all-reduces on the same 2 GPUs, captured twice (eager; CUDA graphs with the sizes
    from the model): the link model fitted from each capture's transfer times is the same."""
    m = comm.Model(hidden_size=HIDDEN, dtype_bytes=BF16, tokens={"decode": 1, "prefill": 256})
    a = summary_of(rep("eager_torch"))["interconnect_fit"]["all_reduce"]
    b = summary_of(rep("graph_torch", model=m))["interconnect_fit"]["all_reduce"]
    assert b["latency_ns"] == pytest.approx(a["latency_ns"], rel=0.1)
    assert b["busbw_GBps"] == pytest.approx(a["busbw_GBps"], rel=0.1)


def test_what_if_moves_communication_the_right_way():
    base = rep("eager_torch")
    same = summary_of(rep("eager_torch", what_if_links=(links.get("nvlink4"),)))["what_if_link"]["nvlink4"]
    assert same["model"]["all_reduce"]["latency_ns"] == summary_of(base)["interconnect_fit"]["all_reduce"]["latency_ns"]
    slow = summary_of(rep("eager_torch", what_if_links=(links.get("pcie4"),)))["what_if_link"]["pcie4"]
    fast = summary_of(rep("eager_torch", what_if_links=(links.get("nvlink5"),)))["what_if_link"]["nvlink5"]
    for kind in ("decode", "prefill"):
        assert slow[kind]["projected_comm_ns"] > same[kind]["projected_comm_ns"] > fast[kind]["projected_comm_ns"]
        assert slow[kind]["speedup"] <= 1.0 <= fast[kind]["speedup"]
    # on its own link the model gives back the measured decode transfer time (all calls one size);
    # prefill's first all-reduce also sets NCCL up (208 us), which the fitted line does not repeat
    assert same["decode"]["projected_comm_ns"] == pytest.approx(same["decode"]["comm_ns"], rel=0.05)
    # 2 MiB prefill all-reduces are bandwidth-bound: PCIe 4 (31.5 GB/s vs 450) makes them ~5x slower
    assert slow["prefill"]["projected_comm_ns"] > 4 * slow["prefill"]["comm_ns"]


P2P_OFF = FIXTURES / "tp2_eager_p2poff_torch"


@pytest.mark.skipif(not P2P_OFF.is_dir(), reason="needs the NCCL_P2P_DISABLE=1 capture fixtures/tp2_eager_p2poff_torch "
                    "(P2P=0 TP=2 bash fixtures/capture/capture_tp.sh on a 2-GPU machine): not captured yet")
@pytest.mark.parametrize("kind", ["decode", "prefill"])
def test_what_if_predicts_the_p2p_disabled_capture(kind):
    """NVLink capture projected on the host path (NCCL_P2P_DISABLE=1: SHM through host memory over
    PCIe 5 on this machine) must predict the P2P-disabled capture's communication transfer time per
    step within 25%, and the P2P-disabled capture projected on NVLink the NVLink one."""
    host = links.get("pcie5")
    nv = rep("eager_torch", what_if_links=(host,))
    off = analyze(read(str(P2P_OFF)), layers=4, link=host, what_if_links=(links.get("nvlink4"),))
    measured_off = statistics.mean(d[kind]["comm_transfer_ns"] for d in summary_of(off)["by_rank"].values())
    measured_nv = statistics.mean(d[kind]["comm_transfer_ns"] for d in summary_of(nv)["by_rank"].values())
    predicted_off = summary_of(nv)["what_if_link"]["pcie5"][kind]["projected_comm_ns"]
    predicted_nv = summary_of(off)["what_if_link"]["nvlink4"][kind]["projected_comm_ns"]
    assert abs(predicted_off - measured_off) / measured_off < 0.25, (predicted_off, measured_off)
    assert abs(predicted_nv - measured_nv) / measured_nv < 0.25, (predicted_nv, measured_nv)


# --- findings candidate ---------------------------------------------------------------------------

def test_communication_wait_is_a_candidate_opportunity():
    r = rep("eager_torch")
    (o,) = comm.opportunities(r.comm, "decode")
    assert o.bound == summary_of(r)["job"]["decode"]["speedup_bound_if_removed"]["communication_wait"]
    assert (o.code, o.args[0], o.args[3]) == ("comm.wait", 0, 1)  # rank 0 waits for rank 1
    shown = as_dict(o)
    assert "rank 1" in shown["what"] and "rank 0 waits" in shown["evidence"]
    assert comm.opportunities(rep("graph_torch").comm, "decode")[0].bound < 1.01


# --- synthetic edge cases -------------------------------------------------------------------------

def _inst(rows):
    df = pd.DataFrame(rows, columns=["rank", "collective", "group", "seq", "start_ns", "end_ns", "bytes"])
    return df.assign(step_row=0, step=0, step_kind="decode", warmup=False, bytes_source="args", group_size=3)


def test_match_three_ranks_with_a_shifted_clock():
    # rank 2's clock runs 5 ms ahead; rank 1 arrives last at every call
    rows = []
    for s in range(4):
        t0 = 1_000_000 * s
        for rank, arrive, shift in ((0, 0, 0), (1, 300, 0), (2, 100, 5_000_000)):
            rows.append((rank, "all_reduce", "0", s, t0 + arrive + shift, t0 + 400 + shift, 8192))
    m, off, notes = comm.match(_inst(rows), one_clock=False)
    assert off == {0: 0.0, 1: 0.0, 2: 5_000_000.0}
    assert m["matched"].all() and not notes
    w = m.groupby("rank")["wait_ns"].first().to_dict()
    assert w == {0: 300, 1: 0, 2: 200}
    assert ((m["wait_ns"] + m["transfer_ns"]) == (m["end_ns"] - m["start_ns"])).all()
    st = comm.straggler(m)
    assert st.rank == 1 and st.last_share == 1.0 and st.late_by_median_ns == 200
    # one clock (nsys): no offset is estimated, so rank 2's shifted starts make it look last
    m1, off1, _ = comm.match(_inst(rows), one_clock=True)
    assert set(off1.values()) == {0.0}


def test_match_leaves_inconsistent_calls_unsplit():
    us = 1000
    rows = [(0, "all_reduce", "0", 0, 0, 100 * us, 8192), (1, "all_reduce", "0", 0, 50 * us, 100 * us, 4096),  # bytes
            (0, "all_reduce", "0", 1, 200 * us, 300 * us, 8192),  # no counterpart on rank 1
            (0, "all_gather", "0", 2, 400 * us, 500 * us, 8192), (1, "all_reduce", "0", 1, 410 * us, 500 * us, 8192)]
    df = _inst(rows).assign(group_size=2)
    m, _, notes = comm.match(df, one_clock=True)
    # order of issue pairs rank 0's second all-reduce (200-300 us) with rank 1's second call (410-500 us):
    # same kind and size, but they do not overlap in time, so they are not the same call
    assert not m["matched"].any()
    assert (m["wait_ns"] == 0).all() and (m["transfer_ns"] == m["end_ns"] - m["start_ns"]).all()
    assert [(n.code, n.counts) for n in notes] == [("comm.mismatch", (2,)), ("comm.partial", (1,)),
                                                    ("comm.apart", (2,))]
    assert "differ in kind or bytes" in texts(notes)[0] and "do not overlap" in texts(notes)[2]


def _nvtx_db(path, with_blob=True):
    """A minimal Nsight Systems-like export with NCCL's NVTX ranges and payload schemas, as nsys
    writes them with --include-blobs=true (layout: see traceattrib/ingest/nccl_nvtx.py)."""
    con = sqlite3.connect(path)
    con.executescript("""
        CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT);
        CREATE TABLE NVTX_EVENTS (start INT, end INT, eventType INT, rangeId INT, category INT, color INT, text TEXT,
            globalTid INT, endGlobalTid INT, textId INT, domainId INT, binaryData BLOB);
        CREATE TABLE NVTX_PAYLOAD_SCHEMA_ENTRIES (domainId INT, schemaId INT, idx INT, flags INT, type INT, name TEXT,
            description TEXT, arrayOrUnionDetail INT, offset INT);
    """)
    con.executemany("INSERT INTO StringIds VALUES (?, ?)", [(1, "ncclAllGather"), (2, "ncclCommInitRankConfig")])
    con.executemany("INSERT INTO NVTX_PAYLOAD_SCHEMA_ENTRIES VALUES (1, ?, ?, NULL, ?, ?, NULL, NULL, ?)", [
        (100, 0, 18, "NCCL communicator ID", 0), (100, 1, 22, "Message size [bytes]", 8),
        (200, 0, 18, "NCCL communicator ID", 0), (200, 1, 5, "No. of ranks", 8), (200, 2, 5, "Rank", 12)])
    gt = (7 << 24) | 9  # pid 7, tid 9

    def blob(schema, payload):
        return b"".join(x.to_bytes(8, "little") for x in (1, schema, len(payload), 32)) + payload

    init = (0xabc).to_bytes(8, "little") + (4).to_bytes(4, "little") + (0).to_bytes(4, "little")
    ag = (0xabc).to_bytes(8, "little") + (3 * 2 ** 20).to_bytes(8, "little")
    con.executemany("INSERT INTO NVTX_EVENTS (start, end, eventType, text, globalTid, textId, domainId, binaryData) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?)", [
                        (0, None, 75, "NCCL", gt, None, 1, None),
                        (10, 20, 59, None, gt, 2, 1, blob(200, init) if with_blob else None),
                        (100, 200, 59, None, gt, 1, 1, blob(100, ag) if with_blob else None)])
    con.commit()
    return con


def test_nccl_nvtx_payloads_give_bytes(tmp_path):
    con = _nvtx_db(tmp_path / "a.sqlite")
    r = nccl_nvtx.read_ranges(con)
    ag = r[r["name"] == "ncclAllGather"].iloc[0]
    assert (ag["comm_id"], ag["bytes"], ag["nranks"], ag["pid"], ag["tid"]) == (0xabc, 3 * 2 ** 20, 4, 7, 9)
    kernels = pd.DataFrame({"name": pd.Categorical(["ncclDevKernel_AllGather_RING_LL", "gemm"]), "pid": [7, 7],
                            "correlation": [5, 6], "comm_collective": pd.Categorical(["", ""]),
                            "comm_in_nelems": [-1, -1], "comm_out_nelems": [-1, -1],
                            "comm_dtype": pd.Categorical(["", ""]), "comm_group": pd.Categorical(["", ""]),
                            "comm_group_size": np.array([-1, -1], np.int32)})
    launches = pd.DataFrame({"pid": [7, 7], "correlation": [5, 6], "tid": [9, 9], "start_ns": [150, 300]})
    k = nccl_nvtx.annotate_kernels(kernels, launches, r, world_size=2)
    a = k.iloc[0]
    # all-gather: NCCL's message size is the per-rank shard; c10d counts the output as 4 shards
    assert (a["comm_collective"], a["comm_dtype"], a["comm_in_nelems"], a["comm_out_nelems"], a["comm_group_size"],
            a["comm_group"]) == ("allgather", "Byte", 3 * 2 ** 20, 12 * 2 ** 20, 4, "0xabc")
    assert k.iloc[1]["comm_collective"] == ""  # launched outside every NCCL range
    r0 = nccl_nvtx.read_ranges(_nvtx_db(tmp_path / "b.sqlite", with_blob=False))
    assert (r0["bytes"] == -1).all() and list(r0["name"]) == ["ncclCommInitRankConfig", "ncclAllGather"]
