"""The piecewise analysis (traceattrib.piecewise over an ingest.pieces store) gives what the in-memory
analysis gives, on real traces that fit both: per rank every table of the RankResult (steps with
attribution, speed of light and idle causes, collectives, collective instances, kernel totals,
idle labels, the shown steps' ops, layer times) and the notes; per file the report in every format.
Windows are made small (one step each), so every step's CPU side, every gap and every collective
meets a window edge."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from traceattrib import analysis, parallel, piecewise
from traceattrib.cli import render_report
from traceattrib.ingest import read
from traceattrib.ingest.pieces import Store, write_trace

from conftest import FIXTURES, NSYS_VERSIONS, PUBLIC, needs_shared

INPUTS = ["idle_causes_nsys.sqlite", "idle_causes_sampled_nsys.sqlite", "tp2_eager_nsys.sqlite",
          "layers_eager_nsys_nvtx.sqlite", "serve_piecewise_nsys.sqlite", "llama_graph_nsys_node.sqlite",
          "llama_graph_nsys.sqlite", "idle_causes_torch.pt.trace.json.gz", "layers_eager_torch_stack.pt.trace.json.gz",
          "moe_graph_torch.pt.trace.json.gz", "hybrid_eager_torch_stack.pt.trace.json.gz"]
SHARED_INPUTS = [NSYS_VERSIONS / "GindaChen_nsys-ai__387e5a5__h100_2gpu_1s.sqlite",
                 PUBLIC / "hta_a100_2rank_nccl_args.json.gz"]


def same_frame(got: pd.DataFrame, want: pd.DataFrame, what: str) -> None:
    got, want = got.reset_index(drop=True), want.reset_index(drop=True)
    assert list(got.columns) == list(want.columns), what
    pd.testing.assert_frame_equal(got, want, check_dtype=len(want) > 0, check_categorical=False, obj=what)


def same_result(got: analysis.RankResult, want: analysis.RankResult) -> None:
    assert (got.rank, got.evidence, got.why, got.buckets, got.has_launches) == \
        (want.rank, want.evidence, want.why, want.buckets, want.has_launches)
    for f in ("steps", "collectives", "instances", "kernel_totals", "idle_labels", "shown", "detail", "gap_detail"):
        same_frame(getattr(got, f), getattr(want, f), f)
    assert (got.inside is None) == (want.inside is None)
    if want.inside is not None:
        for f in ("layers", "modules", "steps", "sources"):
            same_frame(getattr(got.inside, f), getattr(want.inside, f), f"inside.{f}")
        assert got.inside.types == want.inside.types
    assert got.notes == want.notes


def rank_results(path: str, tmp_path, window_ops: int, sol_options=None):
    trace = read(path)
    store_dir = tmp_path / "store"
    write_trace(trace, str(store_dir))
    st = Store(str(store_dir))
    for sub, _ in analysis.split_ranks(trace):
        want = analysis.analyze_rank(sub, sol_options=sol_options)
        found = piecewise.find(st, want.rank, None, piecewise.classify.load_rules(), None, window_ops, sol_options)
        yield want, piecewise.analyze_rank(st, want.rank, window_ops=window_ops, sol_options=sol_options), found


def check_file(path: str, tmp_path) -> None:
    windows = 0
    for want, got, found in rank_results(path, tmp_path, window_ops=1):
        same_result(got, want)
        assert len(found.windows) == len(want.steps)  # one step per window
        windows += len(found.windows)
    assert windows > 1


@pytest.mark.parametrize("name", INPUTS)
def test_rank_results_equal_window_by_window(name, tmp_path):
    check_file(str(FIXTURES / name), tmp_path)


@needs_shared
@pytest.mark.parametrize("path", SHARED_INPUTS, ids=lambda p: p.name)
def test_rank_results_equal_on_public_traces(path, tmp_path):
    check_file(str(path), tmp_path)


def without_frames(name: str, tmp_path) -> str:
    """A torch fixture as record_shapes without with_stack writes it (no Python frames): layers/
    names its GEMMs by their shapes against --model's config."""
    import gzip
    import json

    doc = json.loads(gzip.decompress((FIXTURES / name).read_bytes()))
    doc["traceEvents"] = [e for e in doc["traceEvents"] if e.get("cat") != "python_function"]
    out = tmp_path / name
    out.write_bytes(gzip.compress(json.dumps(doc).encode()))
    return str(out)


@pytest.mark.parametrize("name, config, frames", [
    ("layers_eager_torch_stack.pt.trace.json.gz", "layers_dense", False),
    ("moe_graph_torch.pt.trace.json.gz", "layers_moe", False),
    ("layers_eager_torch_stack.pt.trace.json.gz", "layers_dense", True),
    ("llama_graph_nsys_node.sqlite", "layers_dense", True)])
def test_rank_results_equal_with_a_model_config(name, config, frames, tmp_path):
    """--model: the speed-of-light floor from the config (each step's place among its rank's) and
    the GEMMs named by their shapes."""
    from traceattrib import sol

    opts = sol.Options(model=str(FIXTURES / f"{config}.config.json"))
    path = str(FIXTURES / name) if frames else without_frames(name, tmp_path)
    n = 0
    for want, got, _ in rank_results(path, tmp_path, 1, opts):
        same_result(got, want)
        n += len(want.steps)
        if not frames:
            assert want.inside is not None and (want.inside.sources["source"] == "shapes").any()
    assert n > 1


def test_steps_reach_across_window_edges(tmp_path):
    """The CPU side of a step (its launch calls, what idle causes read) starts inside the step
    before it: in one-step windows that is in another window, and the results are still equal."""
    crossing = 0
    for want, got, found in rank_results(str(FIXTURES / "llama_graph_nsys_node.sqlite"), tmp_path, window_ops=1):
        t = found.table.sort_values("start_ns")
        crossing += int((t["cpu_start_ns"].to_numpy()[1:] < t["end_ns"].to_numpy()[:-1]).sum())
        same_result(got, want)
    assert crossing >= 20  # 23 of its 25 steps: graph replays queued while the GPU runs the step before


def test_windows_of_many_steps_hold_whole_steps(tmp_path):
    for want, got, found in rank_results(str(FIXTURES / "llama_graph_nsys_node.sqlite"), tmp_path,
                                         window_ops=5000):
        same_result(got, want)
        assert 1 < len(found.windows) < len(want.steps)
        steps = np.concatenate([w.steps for w in found.windows])
        assert (steps == np.arange(len(want.steps))).all()  # each step in exactly one window, in order


@pytest.mark.parametrize("name", ["tp2_eager_nsys.sqlite", "idle_causes_nsys.sqlite",
                                  "layers_eager_torch_stack.pt.trace.json.gz", "tp2_eager_torch"])
def test_report_with_pieces_is_the_same_report(name, monkeypatch):
    """The command's path (parallel.analyze_path, pieces=True): the same text, Markdown, JSON, CSV
    and HTML, collectives across ranks included."""
    path = str(FIXTURES / name)
    want = parallel.analyze_path(path, use_cache=False)
    monkeypatch.setattr(piecewise, "WINDOW_OPS", 1)
    got = parallel.analyze_path(path, use_cache=False, pieces=True)
    for fmt in ("text", "md", "json", "csv", "html"):  # html: the shown steps' ops and idle gaps
        assert render_report(got, fmt, True) == render_report(want, fmt, True)
    if name.startswith("tp2"):
        assert len(got.comm.instances) and sorted(got.comm.instances["rank"].unique()) == [0, 1]


@pytest.mark.parametrize("name, opts", [
    ("tp2_eager_nsys.sqlite", dict(what_if={"communication": 2.0}, layers=4)),
    ("llama_eager_nsys.sqlite", dict(steps_regex="decode|prefill")),
    ("llama_eager_nsys.sqlite", dict(steps_regex="no such range"))])
def test_report_options_with_pieces(name, opts, monkeypatch):
    """--what-if, --layers (expected collectives), --steps (matching, and matching nothing: the
    same one error)."""
    from traceattrib.errors import TraceError

    path = str(FIXTURES / name)

    def rendered(pieces: bool):
        try:
            rep = parallel.analyze_path(path, use_cache=False, pieces=pieces, **opts)
        except TraceError as e:
            return str(e)
        return [render_report(rep, fmt, True) for fmt in ("text", "json")]

    want = rendered(False)
    monkeypatch.setattr(piecewise, "WINDOW_OPS", 1)
    assert rendered(True) == want


def test_cli_pieces_flag(capsys, monkeypatch):
    from traceattrib.cli import main

    path = str(FIXTURES / "tp2_eager_nsys.sqlite")
    assert main(["report", path, "--no-cache", "--format", "json"]) == 0
    want = capsys.readouterr().out
    monkeypatch.setattr(piecewise, "WINDOW_OPS", 1)
    assert main(["report", path, "--no-cache", "--pieces", "--format", "json"]) == 0
    assert capsys.readouterr().out == want


@pytest.mark.parametrize("name", ["tp2_eager_nsys.sqlite"])
def test_ranks_of_one_file_as_dask_tasks(name):
    """--workers with --pieces on one multi-GPU export: each rank a task of its own, the same report."""
    distributed = pytest.importorskip("distributed")
    import logging

    path = str(FIXTURES / name)
    want = parallel.analyze_path(path, use_cache=False)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0",
                                  silence_logs=logging.ERROR) as lc, distributed.Client(lc) as client:
        seen = []
        got = parallel.analyze_path(path, use_cache=False, pieces=True, client=client,
                                    progress=lambda f, what="": seen.append(what))
    assert "2/2 rank files" in seen  # two tasks, one per rank
    for fmt in ("text", "json"):
        assert render_report(got, fmt, True) == render_report(want, fmt, True)


def test_writer_sorts_rows_added_in_any_order_into_the_same_store(tmp_path, monkeypatch):
    """pieces.Writer (rows added in any order and in batches, sorted per rank by DuckDB, read back
    in record batches) makes the store write_trace makes from the loaded trace, row for row."""
    from traceattrib.ingest import pieces

    trace = read(str(FIXTURES / "tp2_eager_nsys.sqlite"))
    write_trace(trace, str(tmp_path / "want"))
    monkeypatch.setattr(pieces, "ROW_GROUP", 1000)  # many row groups and record batches
    w = pieces.Writer(str(tmp_path / "got"))
    rng = np.random.default_rng(0)
    cats = {}
    for name, df in trace.tables().items():
        cats[name] = {c: [str(v) for v in df[c].cat.categories] for c in pieces.categorical_columns(name)}
        order = rng.permutation(len(df))
        for part in np.array_split(order, 7):
            w.add(name, df.iloc[part].drop(columns=["rank"]), part)
    w.finish(dict(trace.meta), trace.meta["rank_pids"], cats)
    want, got = Store(str(tmp_path / "want")), Store(str(tmp_path / "got"))
    assert got.layout["tables"] == want.layout["tables"] and got.ranks() == [0, 1]
    for name in trace.tables():
        for rank in [*want.ranks(), -1]:
            a, b = got.rows(name, rank), want.rows(name, rank)
            assert len(b) == want.count(name, rank)
            pd.testing.assert_frame_equal(a, b, check_categorical=False, obj=f"{name} rank {rank}")
