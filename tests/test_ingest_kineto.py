"""torch.profiler (Kineto) reader: totals equal the trace's own event durations, exact ns."""
from __future__ import annotations

import gzip
import json
import shutil
from decimal import Decimal

import numpy as np
import pandas as pd
import pytest

from traceattrib.ingest import kineto, read

from conftest import FIXTURES, PUBLIC, needs_shared, shared_files

TORCH_FIXTURES = ["llama_eager_torch", "llama_graph_torch"]


def oracle_events(path, cat):
    """Independent parse: stdlib json with Decimal, so nothing is rounded through float."""
    with gzip.open(path, "rb") as f:
        doc = json.load(f, parse_float=Decimal)
    return [e for e in doc["traceEvents"] if e.get("ph") == "X" and e.get("cat") == cat]


def ns(x) -> int:
    return int((Decimal(x) * 1000).to_integral_value())


def kernel_totals_match(path):
    t = read(str(path))
    k = t.kernels
    ours = k.assign(d=k.end_ns - k.start_ns).groupby("name", observed=True)["d"].agg(["sum", "count"])
    ev = oracle_events(path, "kernel")
    want: dict[str, list[int]] = {}
    for e in ev:
        s = want.setdefault(e["name"], [0, 0])
        s[0] += ns(e["dur"])
        s[1] += 1
    assert len(ours) == len(want)
    for name, (total, count) in want.items():
        assert int(ours.loc[name, "sum"]) == total, name
        assert int(ours.loc[name, "count"]) == count, name
    # start times exact too
    starts = sorted(ns(e["ts"]) for e in ev)
    assert np.array_equal(np.sort(k["start_ns"].to_numpy()), np.array(starts, dtype=np.int64))


@pytest.mark.parametrize("name", TORCH_FIXTURES)
def test_fixture_kernel_totals_equal_trace_durations(name):
    kernel_totals_match(FIXTURES / f"{name}.pt.trace.json.gz")


@needs_shared
@pytest.mark.parametrize("path", shared_files(PUBLIC, "*.json.gz"), ids=lambda p: p.name[:40])
def test_public_kernel_totals_equal_trace_durations(path):
    kernel_totals_match(path)


@needs_shared
def test_epoch_scale_timestamps_are_exact():
    # ts ~1.7e15 us: float64 is 0.25 us coarse there; the reader must keep every ns digit
    path = PUBLIC / "hta_ns_resolution_rank0.json.gz"
    t = read(str(path))
    ev = oracle_events(path, "kernel")
    assert t.kernels["start_ns"].min() == min(ns(e["ts"]) for e in ev)
    assert (t.kernels["start_ns"] % 1000 != 0).mean() > 0.9  # sub-us digits survive


@pytest.mark.parametrize("path", [FIXTURES / "llama_eager_torch.pt.trace.json.gz",
                                  FIXTURES / "tp2_eager_torch" / "rank0.pt.trace.json.gz"], ids=lambda p: p.parent.name + p.name[:5])
def test_arrow_and_stdlib_paths_agree(path, monkeypatch):
    """The stdlib path (taken for pieces DuckDB and pyarrow refuse) reads every field as they do."""
    _, fast = kineto.read_columns(str(path))
    monkeypatch.setenv("TRACEATTRIB_JSON_ENGINE", "pyarrow")  # DuckDB (the fast read above) off too
    monkeypatch.setattr(kineto.arrow, "read", lambda data, lens, hints: None)
    _, exact = kineto.read_columns(str(path))
    for key in ("idx", "ts", "dur", "pid", "tid", "corr", "dev", "stream", "graph", "bytes", "ext", "in_nel",
                "out_nel", "gsize"):
        assert np.array_equal(fast[key], exact[key]), key
    for k in ("grid", "block"):
        for i in range(3):
            assert np.array_equal(fast[k][i], exact[k][i]), (k, i)
    for key in ("cat", "name", "intypes", "dims", "coll", "cdtype", "pg"):
        assert list(pd.Series(fast[key]).astype(object).fillna("-")) == list(pd.Series(exact[key]).astype(object).fillna("-")), key
    for key in ("pid", "tid", "ts", "id"):
        assert np.array_equal(fast["flows"][key], exact["flows"][key]), key
    assert (np.asarray(fast["dims"].astype(object)) != "").sum() > 10000  # record_shapes: dims on the ops
    assert fast["warnings"] == exact["warnings"] == []


@pytest.mark.parametrize("engine", ["", "pyarrow"])
def test_deep_input_dims_on_events_none_of_which_is_kept(tmp_path, monkeypatch, engine):
    # TensorList dims send a piece down the pyarrow path's regex; with no kept event in the piece
    # (an older Kineto's "Operator" category) there is nothing to place them on
    monkeypatch.setenv("TRACEATTRIB_JSON_ENGINE", engine)
    op = {"ph": "X", "cat": "Operator", "name": "aten::cat", "pid": 1, "tid": 1, "ts": 1, "dur": 1,
          "args": {"Input Dims": [[[1, 2], [3, 4]], []]}}
    p = tmp_path / "t.json"
    p.write_text(json.dumps({"traceEvents": [op, op]}))
    _, cols = kineto.read_columns(str(p))
    assert cols["idx"].size == 0 and cols["warnings"] == []


@pytest.mark.parametrize("engine", ["", "pyarrow"])
def test_null_entries_are_left_out(tmp_path, monkeypatch, engine):
    # pyarrow (26) crashed on a piece whose first entry is null; a null is no event, as DuckDB reads it
    monkeypatch.setenv("TRACEATTRIB_JSON_ENGINE", engine)
    src = FIXTURES / "llama_graph_torch.pt.trace.json.gz"
    with gzip.open(src, "rb") as f:
        text = f.read()
    at = text.index(b'"traceEvents": [') + len(b'"traceEvents": [')
    p = tmp_path / "t.json"
    p.write_bytes(text[:at] + b"null, null, " + text[at:].replace(b"\n  },\n  {", b"\n  }, null,\n  {", 3))
    _, want = kineto.read_columns(str(src))
    _, got = kineto.read_columns(str(p))
    assert got["warnings"] == want["warnings"] == []
    for key in ("ts", "dur", "pid", "tid", "corr"):
        assert np.array_equal(got[key], want[key]), key
    shift = got["idx"] - want["idx"]  # the events' numbers count the nulls before them
    assert shift[0] == 2 and shift[-1] == 5 and (np.diff(shift) >= 0).all()


def test_compact_json(tmp_path):
    # a trace re-saved without Kineto's indentation loads with the same times
    src = FIXTURES / "llama_graph_torch.pt.trace.json.gz"
    with gzip.open(src, "rb") as f:
        doc = json.load(f, parse_float=Decimal)
    dst = tmp_path / "compact.json"
    dst.write_text(json.dumps(doc, separators=(",", ":"), default=str))
    a, b = read(str(src)), read(str(dst))
    assert np.array_equal(a.kernels["start_ns"].to_numpy(), b.kernels["start_ns"].to_numpy())
    assert np.array_equal(a.kernels["end_ns"].to_numpy(), b.kernels["end_ns"].to_numpy())


def test_eager_fixture_evidence():
    t = read(str(FIXTURES / "llama_eager_torch.pt.trace.json.gz"))
    assert t.meta["format"] == "torch" and t.meta["gpus"] == ["NVIDIA H200"]
    k = t.kernels
    assert len(k) == 6548
    # every kernel is linked to its launch call and the CPU op that made it
    assert (k["correlation"] >= 0).all()
    assert (k["op"].astype(str) != "").all()
    casts = k[k["op"].astype(str) == "aten::to > aten::_to_copy > aten::copy_"]
    # the int8 -> bf16 weight dequantization: 7 linears x 4 layers x 25 steps, plus the
    # float -> bf16 casts of the RMSNorms
    assert (casts["op_input_types"].astype(str) == "c10::BFloat16,signed char,Scalar").sum() == 700
    steps = t.ranges[t.ranges["source"] == "user_annotation"]
    names = list(steps.sort_values("start_ns")["name"].astype(str))
    assert names == ["prefill"] + [f"decode_step_{i}" for i in range(24)]
    gsteps = t.ranges[t.ranges["source"] == "gpu_user_annotation"]
    assert len(gsteps) == 25


def test_graph_replays_marked_as_graph_kernels():
    t = read(str(FIXTURES / "llama_graph_torch.pt.trace.json.gz"))
    graph_launch = t.launches[t.launches["name"].astype(str) == "cudaGraphLaunch"]
    assert len(graph_launch) == 24
    inside = t.kernels["graph_id"].notna()
    assert set(t.kernels.loc[inside, "correlation"]) == set(graph_launch["correlation"])


@needs_shared
def test_distributed_info_and_flows():
    t = read(str(PUBLIC / "hta_a100_2rank_nccl_args.json.gz"))
    assert t.meta["rank"] == 0 and t.meta["world_size"] == 2
    nccl = t.kernels[t.kernels["name"].astype(str).str.startswith("ncclKernel_")]
    assert len(nccl) == 21
    steps = t.ranges[t.ranges["source"] == "profiler_step"]
    assert len(steps) == 3


def test_directory_of_ranks(tmp_path):
    for r, name in enumerate(TORCH_FIXTURES):
        shutil.copy(FIXTURES / f"{name}.pt.trace.json.gz", tmp_path / f"rank{r}.pt.trace.json.gz")
    t = read(str(tmp_path))
    assert t.meta["ranks"] == [0, 1]
    assert sorted(t.kernels["rank"].unique().tolist()) == [0, 1]
    assert len(t.kernels) == 6548 + 6572


def test_cpu_ops_and_launching_op():
    t = read(str(FIXTURES / "llama_eager_torch.pt.trace.json.gz"))
    ops = t.cpu_ops
    assert len(ops) == 21327 and set(ops["kind"].astype(str)) == {"cpu_op"}
    # every kernel points at the CPU op that launched it (External id), and that op exists
    k = t.kernels
    assert (k["op_id"] >= 0).all()
    assert set(k["op_id"]) <= set(ops["ext_id"])
    # shapes of the launching op: the prefill's q and o projections read (1, 256, 4096) bf16
    # activations and a 4096 x 4096 weight, in each of the 4 layers
    lin = ops[ops["name"].astype(str) == "aten::linear"]
    assert (lin["input_dims"].astype(str) == "[[1,256,4096],[4096,4096],[]]").sum() == 8
    assert (lin["input_types"].astype(str).str.startswith("c10::BFloat16,c10::BFloat16")).all()


def test_collective_args_on_nccl_kernels():
    t = read(str(FIXTURES / "tp2_eager_torch"))
    k = t.kernels
    nccl = k[k["name"].astype(str).str.startswith("ncclDevKernel_AllReduce")]
    assert len(nccl) and (nccl["comm_collective"].astype(str) == "allreduce").all()
    assert (nccl["comm_dtype"].astype(str) == "BFloat16").all() and (nccl["comm_group_size"] == 2).all()
    # decode all-reduces carry one token's hidden state (4096), the prefill's 256 tokens
    assert set(nccl["comm_in_nelems"]) == {4096, 256 * 4096}
    other = k[~k["name"].astype(str).str.startswith("nccl")]
    assert (other["comm_collective"].astype(str) == "").all() and (other["comm_in_nelems"] == -1).all()


@needs_shared
def test_collective_args_from_record_param_comms():
    # ROCm kernels carry no collective args: they come from the enclosing record_param_comms op
    t = read(str(PUBLIC / "tracelens_mi300_resnet_rccl.json.gz"))
    k = t.kernels
    rccl = k[k["name"].astype(str).str.startswith("ncclDevKernel_Generic")]
    assert len(rccl) == 17
    # 5 were launched before the profiler started: no launch call, no op, args unknown
    known = rccl[rccl["op"].astype(str) != ""]
    assert len(known) == 12 and (rccl.loc[rccl["op"].astype(str) == "", "comm_collective"].astype(str) == "").all()
    assert set(known["comm_collective"].astype(str)) == {"allreduce", "broadcast"}
    assert (known["comm_group_size"] == 8).all()
    assert (t.cpu_ops["kind"].astype(str) == "python_function").sum() == 34405


def test_wide_values_in_compact_columns_stay_exact(tmp_path):
    # collective sizes, devices and streams are kept as int32 per piece only where they fit: a
    # 3-billion-element all-reduce in one piece must come out exact, the other pieces unchanged
    with gzip.open(FIXTURES / "tp2_eager_torch" / "rank0.pt.trace.json.gz", "rb") as f:
        doc = json.load(f, parse_float=Decimal)
    nccl = [e for e in doc["traceEvents"] if e.get("cat") == "kernel" and e["name"].startswith("ncclDevKernel_AllReduce")]
    nccl[0]["args"]["In msg nelems"] = 3_000_000_000
    nccl[0]["args"]["stream"] = 5_000_000_000
    p = tmp_path / "rank0.json"
    p.write_text(json.dumps(doc, default=str))
    k = read(str(p)).kernels
    row = k[k["start_ns"] == ns(nccl[0]["ts"])]
    assert row["comm_in_nelems"].tolist() == [3_000_000_000] and row["stream"].tolist() == [5_000_000_000]
    assert k["comm_in_nelems"].dtype == np.int64
    ref = read(str(FIXTURES / "tp2_eager_torch" / "rank0.pt.trace.json.gz")).kernels
    other = k["start_ns"] != ns(nccl[0]["ts"])
    pd.testing.assert_frame_equal(k[other].drop(columns=["rank"]).reset_index(drop=True),
                                  ref[ref["start_ns"] != ns(nccl[0]["ts"])].drop(columns=["rank"]).reset_index(drop=True))


@pytest.mark.parametrize("names, used, want", [
    ({0: "NVIDIA H100 80GB HBM3"}, [0], ["NVIDIA H100 80GB HBM3"]),
    # ROCm: kernels on node GPU 9, deviceProperties lists the one visible device as id 0
    ({0: "AMD Instinct MI300X"}, [9], ["AMD Instinct MI300X"]),
    ({i: "AMD Instinct MI300X" for i in range(8)}, [2, 11], ["AMD Instinct MI300X"] * 2),
    # two models listed: an id no entry has stays unknown
    ({0: "NVIDIA A100-SXM4-80GB", 1: "NVIDIA H100 80GB HBM3"}, [1, 3], ["NVIDIA H100 80GB HBM3", "device 3"]),
    ({i: "" for i in range(8)}, [2], ["device 2"]),                 # vLLM on MI300: names left empty
    ({}, [0], ["device 0"]),
    # a device whose own entry has no name is not given another entry's
    ({0: "", 1: "NVIDIA H100 80GB HBM3"}, [0, 5], ["device 0", "NVIDIA H100 80GB HBM3"]),
])
def test_gpu_names_of_devices_deviceproperties_does_not_list(names, used, want):
    from traceattrib.model import gpu_names
    assert gpu_names(names, used) == want
