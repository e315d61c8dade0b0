"""Per-rank analysis and its merge give the report of a whole-trace analysis, in this process and
on a Dask cluster; the Parquet cache is per rank file; export of many ranks streams."""
from __future__ import annotations

import importlib.util
import io
import json
import os
import shutil
import sys

import msgspec
import numpy as np
import pandas as pd
import pytest

from traceattrib import analysis, attribute, cache, classify, comm, idle, parallel, sol, steps
from traceattrib import layers as layers_of
from traceattrib.analysis import Report, analyze, merge_notes
from traceattrib.cli import main, render_report
from traceattrib.ingest import read
from traceattrib.notes import note
from traceattrib.progress import Progress
from traceattrib.render import text
from traceattrib.render.notes import texts

from conftest import FIXTURES, NSYS_VERSIONS, PUBLIC, ROOT, needs_shared, summary_of

INPUTS = ["llama_eager_nsys.sqlite", "llama_graph_nsys.sqlite", "llama_graph_nsys_node.sqlite",
          "llama_eager_torch.pt.trace.json.gz", "llama_graph_torch.pt.trace.json.gz", "tp2_eager_nsys.sqlite",
          "tp2_eager_torch", "tp2_graph_torch"]
OPTIONS = dict(what_if={"communication": 2.0}, layers=4)


def _make_ranks():
    spec = importlib.util.spec_from_file_location("make_ranks", ROOT / "bench" / "make_ranks.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture(scope="module")
def shared_cache(tmp_path_factory):
    """A cache directory the module's cluster tests share, so rank files are parsed once."""
    return str(tmp_path_factory.mktemp("cache"))


@pytest.fixture(scope="module")
def ranks4(tmp_path_factory):
    """4 ranks: rank ids 0-3 rewritten in distributedInfo (0-1 eager TP=2 capture, 2-3 CUDA graphs)."""
    d = tmp_path_factory.mktemp("ranks4")
    _make_ranks().build(d, ranks=4)
    return str(d)


@pytest.fixture(scope="module")
def clash4(tmp_path_factory):
    """4 rank files whose distributedInfo ranks repeat (0, 1, 0, 1): numbered by file order."""
    d = tmp_path_factory.mktemp("clash4")
    for prefix, src in (("a", "tp2_eager_torch"), ("b", "tp2_graph_torch")):
        for r in (0, 1):
            shutil.copy(FIXTURES / src / f"rank{r}.pt.trace.json.gz", d / f"{prefix}_rank{r}.pt.trace.json.gz")
    return str(d)


# --- the reference: the whole trace analyzed at once, top kernels read from the kernel table ---

def whole_trace_report(trace, steps_regex=None, what_if=None, layers=None, sol_options=None, link=None,
                       what_if_links=(), model=None) -> Report:
    """The pipeline before the per-rank split (analysis.analyze as it was): steps, speed of light
    and communication over all ranks at once, from the whole kernel table."""
    rules = classify.load_rules()
    kc = classify.classify_kernels(trace.kernels, rules)
    mc = classify.classify_memops(trace.memops, rules)
    st = steps.find_steps(trace, steps_regex, kernel_buckets=kc["bucket"], layers=layers)
    codes = attribute.op_buckets(st, kc["bucket"], mc["bucket"])
    bd = attribute.breakdown(st, codes, analysis._comm_text(trace.kernels, kc["bucket"]))
    kstep = analysis._op_step(st, "kernel", len(trace.kernels))
    bd.steps, sol_notes = sol.step_columns(bd.steps, trace, kstep, kc["bucket"].to_numpy(), sol_options)
    bd.steps["graph_kernels"] = analysis.graph_kernels(trace.kernels, kstep, len(bd.steps))
    ic = idle.explain(st.ops, st.table, trace.launches, trace.cpu_ops, trace.ranges)
    for c in ic.causes.columns:
        bd.steps[c] = ic.causes[c].to_numpy()
    notes = [note("input", n) for n in trace.meta.get("notes", [])] + st.notes + bd.notes + sol_notes + ic.notes
    att = st.attention
    asg = layers_of.assign(st.ops, st.table, trace.launches, trace.ranges, trace.cpu_ops, codes, att,
                           trace.kernels["name"].cat.categories, attribute.ALL_BUCKETS)
    kl, km = layers_of.of_table(asg, st.ops, "kernel", len(trace.kernels))
    ml, mm = layers_of.of_table(asg, st.ops, "memop", len(trace.memops))
    kernels = trace.kernels.assign(bucket=kc["bucket"].array, rule=kc["rule"].array, step=kstep,
                                   layer=kl, module=km)
    memops = trace.memops.assign(bucket=mc["bucket"].array, rule=mc["rule"].array,
                                 step=analysis._op_step(st, "memop", len(trace.memops)), layer=ml, module=mm)
    inside = layers_of.times(asg, st.ops, bd.steps, codes, attribute.ALL_BUCKETS)
    model = analysis.comm_model(model, sol_options)
    cr = comm.analyze(kernels, bd.steps, bd.buckets, trace.meta, link=link, what_if_links=what_if_links, model=model)
    summary = analysis.summarize(bd.steps, bd.collectives, bd.buckets, ic.labels, cr, st.evidence, st.why,
                                 what_if, layers, inside)
    notes += comm.summary_notes(cr, summary.kind)
    other = summary.main().attribution.bucket_share.get("other") if summary.main() else None
    if other is not None:
        notes.append(note("other_share", other, summary.kind))
    # trace integrity is per rank by design (a rank's own streams and launches, its own clock), so
    # the whole-trace pipeline has no form of it: the reference takes the per-rank checks (the
    # tests below say which pass; test_integrity tests the checks themselves)
    per_rank = analysis.analyze(trace, steps_regex=steps_regex, layers=layers, sol_options=sol_options, link=link,
                                what_if_links=what_if_links, model=model)
    integ = per_rank.summary.integrity
    found = [i for i, n in enumerate(per_rank.notes) if n.code.startswith("integrity.")]
    if found:  # its notes where the per-rank report puts them (the notes before them are compared)
        notes[found[0]:found[0]] = [per_rank.notes[i] for i in found]
    bd.steps["integrity"] = per_rank.steps["integrity"].to_numpy()
    summary = msgspec.structs.replace(summary, integrity=integ)
    return Report(meta=dict(trace.meta), steps=bd.steps, collectives=comm.step_table(bd.collectives, cr),
                  kernels=kernels, memops=memops, summary=summary, buckets=bd.buckets, notes=notes, comm=cr,
                  idle_labels=ic.labels, inside=inside)


def top_kernels_from_kernels(rep: Report, kind: str, top: int = 3) -> list[str]:
    """The top-kernels lines as they were made from Report.kernels."""
    rows = rep.kind_steps(kind).index
    kk = rep.kernels[np.isin(rep.kernels["step"].to_numpy(), rows.to_numpy())]
    if not len(kk):
        return []
    n = max(len(rows), 1)
    g = kk.assign(d=kk["end_ns"] - kk["start_ns"]).groupby(["bucket", "name"], observed=True)["d"] \
        .agg(["sum", "size"]).reset_index()
    out = [f"top kernels per bucket ({kind}, per step):"]
    for b in rep.buckets:
        for _, r in g[g["bucket"].astype(str) == b].nlargest(top, "sum").iterrows():
            out.append(text.trunc(f"  {b:<13} {text.ms(r['sum'] / n):>8} ms {text.per_step_count(r['size'] / n):>5}x  "
                                  f"{r['name']}",
                                  text.WIDTH))
    return out


def renders(rep: Report) -> dict[str, str]:
    return {f: render_report(rep, f, per_step=True) for f in ("text", "md", "json", "csv")}


def reference_renders(rep: Report, monkeypatch) -> dict[str, str]:
    with monkeypatch.context() as m:
        m.setattr(text, "top_kernels", top_kernels_from_kernels)
        return renders(rep)


def assert_same_report(new: Report, ref: Report) -> None:
    pd.testing.assert_frame_equal(new.steps, ref.steps)
    pd.testing.assert_frame_equal(new.collectives.reset_index(drop=True), ref.collectives.reset_index(drop=True),
                                  check_dtype=len(ref.collectives) > 0)
    assert summary_of(new) == summary_of(ref)
    assert new.notes == ref.notes
    assert new.evidence == ref.evidence and new.buckets == ref.buckets


def assert_same_ops(new: pd.DataFrame, ref: pd.DataFrame) -> None:
    """The op tables equal, bucket/rule/module categorical in both and equal as text (the categories'
    order follows the ranks' classification, which differs from one pass over the whole trace)."""
    text = ["bucket", "rule", "module"]
    for df in (new, ref):
        assert all(isinstance(df[c].dtype, pd.CategoricalDtype) for c in text)
    pd.testing.assert_frame_equal(new.drop(columns=text), ref.drop(columns=text))
    for c in text:
        assert new[c].astype(str).tolist() == ref[c].astype(str).tolist(), c


@pytest.mark.parametrize("name", INPUTS)
def test_per_rank_merge_equals_whole_trace(name, monkeypatch):
    path = str(FIXTURES / name)
    trace = cache.load(path)  # parsed once; analyze_path below reads the cache entries back
    ref = whole_trace_report(trace, **OPTIONS)
    assert ref.summary.integrity.trusted and not ref.summary.integrity.affected_steps  # healthy captures
    api = analyze(trace, **OPTIONS)  # per rank in this process, kernels kept
    assert_same_report(api, ref)
    assert_same_ops(api.kernels, ref.kernels)
    assert_same_ops(api.memops, ref.memops)
    # the command line's path: one task per rank file through the cache, no kernels kept
    cli = parallel.analyze_path(path, **OPTIONS)
    assert cli.kernels is None
    assert_same_report(cli, ref)
    want = reference_renders(ref, monkeypatch)
    assert renders(cli) == want
    assert renders(api) == want
    # graph-level nsys captures have no kernel rows inside CUDA graphs, hence no top kernels
    assert ("top kernels per bucket (decode, per step):" in want["text"]) == (name != "llama_graph_nsys.sqlite")


def test_directory_with_clashing_rank_ids(clash4, monkeypatch, shared_cache):
    trace = cache.load(clash4, cache_dir=shared_cache)
    assert trace.meta["ranks"] == [0, 1, 2, 3]
    ref = whole_trace_report(trace, **OPTIONS)
    rep = parallel.analyze_path(clash4, cache_dir=shared_cache, **OPTIONS)
    assert_same_report(rep, ref)
    # two captures' rank files renumbered as one job: their collectives cannot be lined up
    assert [c.check for c in rep.summary.integrity.checks if c.status == "failed"] == ["clocks"]
    assert renders(rep) == reference_renders(ref, monkeypatch)
    assert sorted(rep.comm.instances["rank"].unique()) == [0, 1, 2, 3]


@needs_shared
@pytest.mark.parametrize("path", [NSYS_VERSIONS / "GindaChen_nsys-ai__387e5a5__h100_2gpu_1s.sqlite",
                                  PUBLIC / "hta_a100_2rank_nccl_args.json.gz"])
def test_per_rank_merge_equals_whole_trace_shared(path, monkeypatch):
    trace = read(str(path))
    ref = whole_trace_report(trace)
    rep = parallel.analyze_path(str(path))
    assert_same_report(rep, ref)
    assert renders(rep) == reference_renders(ref, monkeypatch)


def test_collective_instances_line_up_across_ranks():
    """Per-rank instance tables, merged, are what the communication analysis matches across ranks."""
    rep = parallel.analyze_path(str(FIXTURES / "tp2_graph_torch"), layers=4)
    inst = rep.comm.instances
    assert len(inst) == 2 * 13 * 8 and inst["matched"].all()
    for rank, g in inst.groupby("rank"):
        assert (g["collective"] == "all_reduce").all()
        assert sorted(g["seq"]) == list(range(len(g)))
        # 8 all-reduces (2 per layer) in each of the rank's 13 steps; step_row points into rep.steps
        assert g.groupby("step").size().to_dict() == {i: 8 for i in range(13)}
        rows = rep.steps.iloc[g["step_row"].to_numpy()]
        assert (rows["rank"].to_numpy() == rank).all() and (rows["index"].to_numpy() == g["step"].to_numpy()).all()
    a, b = (inst[inst["rank"] == r].set_index("seq").sort_index() for r in (0, 1))
    assert (a["match"] == b["match"]).all() and (a["step"] == b["step"]).all()


def test_kernel_totals_are_kernel_durations():
    rep = analyze(read(str(FIXTURES / "tp2_eager_torch")))
    k = rep.kernels[rep.kernels["step"] >= 0]
    assert rep.kernel_totals["total_ns"].sum() == (k["end_ns"] - k["start_ns"]).sum()
    assert rep.kernel_totals["count"].sum() == len(k)
    assert set(rep.kernel_totals["rank"]) == {0, 1}


def test_merge_notes_sums_counts_and_keeps_order():
    outside = lambda n: note("steps.outside", counts=(n,))  # noqa: E731
    outliers = lambda n: note("steps.outliers", counts=(n,))  # noqa: E731
    warm = lambda n: note("steps.warmup", counts=(n,))  # noqa: E731
    const = note("other_share", 0.025, "decode")
    a = [outside(5), warm(1), const]
    b = [outliers(2), warm(1), const]
    c = [outside(3), outliers(2)]
    assert merge_notes([a, b, c]) == [outside(8), outliers(4), warm(2), const]
    assert merge_notes([a]) == a
    # counts are summed; sizes, layers and other values must agree
    tp = note("sol.tp", 2, "the collectives' process-group size")
    lay = note("steps.layers_mismatch", 4, 3)
    kinds = lambda n: note("steps.kinds_inferred", "launch grid", "span", counts=(12 * n, n))  # noqa: E731
    over = lambda a, b: note("sol.floor_over_span", counts=(a, b))  # noqa: E731
    assert merge_notes([[tp, lay, over(2, 13), kinds(1)], [tp, lay, over(1, 13), kinds(1)]]) == \
        [tp, lay, over(3, 26), kinds(2)]
    differ = note("sol.weights_differ", 0.12, 512.0, 456.0)
    assert merge_notes([[differ], [differ]]) == [differ]
    # other values differing: said per rank, with the ranks
    got = merge_notes([[note("sol.tp", 2, "x")], [note("sol.tp", 4, "x")]], [0, 1])
    assert [texts([n])[0][:28] for n in got] == ["rank(s) 0: --model: tensor p", "rank(s) 1: --model: tensor p"]
    assert [n.ranks for n in got] == [(0,), (1,)]


def test_notes_read_back_as_data():
    from traceattrib.notes import from_data, to_data

    n = note("steps.rejected", note("label.annotations", "vLLM", ("a", "b"), True), 2.0, 2.0, "many", counts=(3,))
    assert from_data(json.loads(json.dumps(to_data(n)))) == n
    for bad in ({}, {"code": 1, "counts": [], "args": [], "ranks": []},
                {"code": "x", "counts": [], "args": [["eval", "1"]], "ranks": []}):
        with pytest.raises(ValueError):
            from_data(bad)


@needs_shared
def test_steps_regex_matching_some_ranks(tmp_path):
    d = tmp_path / "mixed"
    d.mkdir()
    shutil.copy(FIXTURES / "llama_eager_torch.pt.trace.json.gz", d / "a.json.gz")
    shutil.copy(PUBLIC / "hta_ns_resolution_rank0.json.gz", d / "b.json.gz")
    trace = read(str(d))
    ref = whole_trace_report(trace, steps_regex="decode_step")
    rep = parallel.analyze_path(str(d), steps_regex="decode_step")
    pd.testing.assert_frame_equal(rep.steps, ref.steps)
    assert summary_of(rep) == summary_of(ref)
    assert sum("no range matches --steps 'decode_step'" in n for n in texts(rep.notes)) == 1
    with pytest.raises(Exception, match="matches no range name"):
        parallel.analyze_path(str(d), steps_regex="no_such_range_name")


# --- the cache is per rank file ----------------------------------------------------------------

def test_directory_cache_is_per_rank_file(tmp_path, clash4):
    d = tmp_path / "ranks"
    shutil.copytree(clash4, d)
    cdir = tmp_path / "cache"
    first = cache.load(str(d), cache_dir=str(cdir))
    assert first.meta["cached"] is False
    assert len(os.listdir(cdir)) == 4  # one entry per rank file, none for the directory
    again = cache.load(str(d), cache_dir=str(cdir))
    assert again.meta["cached"] is True
    for name, t in first.tables().items():
        pd.testing.assert_frame_equal(t, again.tables()[name], check_categorical=False)
    assert {k: v for k, v in again.meta.items() if k != "cached"} == {k: v for k, v in first.meta.items() if k != "cached"}
    assert first.meta["ranks"] == [0, 1, 2, 3] and len(first.kernels) == 13848
    # one rank file changed: only its entry is rebuilt; the others are read back
    f = sorted(d.iterdir())[1]
    os.utime(f, ns=(1, 1))
    hits = [cache.read_file(str(p), cache_dir=str(cdir)).meta["cached"] for p in sorted(d.iterdir())]
    assert hits == [True, False, True, True]
    assert len(os.listdir(cdir)) == 5


# --- progress, Dask missing, bad flags ---------------------------------------------------------

class FakeTTY(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_per_rank_file_in_process(clash4, shared_cache):
    tty = FakeTTY()
    with Progress("loading clash4", stream=tty, min_interval_s=0) as bar:
        parallel.analyze_path(clash4, progress=bar, cache_dir=shared_cache)
    out = tty.getvalue()
    assert "rank file 1/4" in out and "rank file 4/4" in out and "100%" in out


def test_flags_without_dask_are_exit_2(capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "distributed", None)  # import distributed -> ImportError
    for args in (["report", str(FIXTURES / "tp2_eager_torch"), "--workers", "2"],
                 ["diff", str(FIXTURES / "tp2_eager_torch"), str(FIXTURES / "tp2_graph_torch"), "--scheduler", "tcp://x:1"],
                 ["export", str(FIXTURES / "tp2_eager_torch"), "-o", "/nonexistent/x", "--workers", "1"]):
        assert main(args) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and "needs Dask, which is not installed: pip install 'traceattrib[dask]'" in err[0]


def test_bad_cluster_flags(capsys):
    p = str(FIXTURES / "tp2_eager_torch")
    assert main(["report", p, "--workers", "0"]) == 2
    assert "--workers 0: need at least 1" in capsys.readouterr().err
    assert main(["report", p, "--workers", "2", "--scheduler", "tcp://127.0.0.1:1"]) == 2
    assert "exclude each other" in capsys.readouterr().err


# --- export: streaming merge of rank files -----------------------------------------------------

def test_export_merge_streams_in_time_order(tmp_path, clash4, monkeypatch, shared_cache):
    monkeypatch.setattr(parallel, "EXPORT_BATCH_ROWS", 401)  # many rounds, ties across batch edges
    counts = parallel.export_path(clash4, str(tmp_path / "out"), cache_dir=shared_cache)
    got = cache.read_tables(str(tmp_path / "out"))
    want = cache.load(clash4, cache_dir=shared_cache)
    want.meta.pop("cached")
    assert counts == {n: len(t) for n, t in want.tables().items()}
    for name, t in want.tables().items():
        pd.testing.assert_frame_equal(got.tables()[name], t, check_categorical=False)
    assert got.meta["ranks"] == [0, 1, 2, 3] and got.meta["files"] == want.meta["files"]
    assert sorted(os.listdir(tmp_path / "out")) == sorted([f"{n}.parquet" for n in want.tables()] + ["meta.json"])


# --- on a Dask cluster: identical output --------------------------------------------------------

@pytest.fixture(scope="module")
def scheduler():
    """A LocalCluster of 2 worker processes for the module's tests; its address."""
    distributed = pytest.importorskip("distributed")
    import logging

    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0",
                                  silence_logs=logging.ERROR) as lc:
        yield lc.scheduler_address


def run(capsys, *args):
    rc = main(list(args))
    out, err = capsys.readouterr()
    assert rc == 0, err
    return out


def drop_results(cache_dir: str) -> int:
    """Remove the cached per-rank results (keeping the tables), so the next report analyzes again
    where it runs; how many there were."""
    import glob

    found = glob.glob(os.path.join(cache_dir, "*", "results-*.bin"))
    for f in found:
        os.remove(f)
    return len(found)


def test_cluster_report_identical_to_single_process(capsys, ranks4, scheduler, tmp_path):
    cdir = str(tmp_path / "c")
    opts = ["--layers", "4", "--what-if", "communication=2", "--per-step", "--cache-dir", cdir]
    # the cluster first: its workers fill the per-rank-file cache, which this process then reads
    on_cluster = {fmt: run(capsys, "report", ranks4, "--format", fmt, "--scheduler", scheduler, *opts)
                  for fmt in ("text", "json")}
    assert len(os.listdir(cdir)) == 4
    assert all(cache.read_file(os.path.join(ranks4, n), cache_dir=cdir).meta["cached"] for n in os.listdir(ranks4))
    assert drop_results(cdir) == 4  # the workers stored their results too; analyze here, from their tables
    for fmt, out in on_cluster.items():
        assert run(capsys, "report", ranks4, "--format", fmt, *opts) == out
    rep = json.loads(on_cluster["json"])
    assert rep["trace"]["ranks"] == [0, 1, 2, 3] and rep["trace"]["world_size"] == 4
    assert sorted({s["rank"] for s in rep["steps"]}) == [0, 1, 2, 3] and len(rep["steps"]) == 52
    assert "top kernels per bucket (decode, per step):" in on_cluster["text"]


def test_cluster_clashing_ranks_diff_and_export(capsys, clash4, scheduler, tmp_path, shared_cache):
    g = str(FIXTURES / "tp2_graph_torch")
    c = ["--cache-dir", shared_cache]
    m = ["--allow-mismatch"]  # 4 ranks against 2: compared anyway
    on_cluster = run(capsys, "diff", clash4, g, "--scheduler", scheduler, *c, *m)
    drop_results(shared_cache)
    assert on_cluster == run(capsys, "diff", clash4, g, *c, *m)
    run(capsys, "export", clash4, "-o", str(tmp_path / "a"), *c)
    msg = run(capsys, "export", clash4, "-o", str(tmp_path / "b"), "--scheduler", scheduler, *c)
    assert "kernels.parquet (13848 rows)" in msg
    a, b = cache.read_tables(str(tmp_path / "a")), cache.read_tables(str(tmp_path / "b"))
    assert b.meta["ranks"] == [0, 1, 2, 3]
    for name, t in a.tables().items():
        pd.testing.assert_frame_equal(b.tables()[name], t, check_categorical=False)


def test_workers_flag_starts_a_local_cluster(capsys, ranks4, shared_cache):
    pytest.importorskip("distributed")
    one = run(capsys, "report", ranks4, "--format", "json", "--cache-dir", shared_cache)
    drop_results(shared_cache)
    assert run(capsys, "report", ranks4, "--format", "json", "--workers", "2", "--cache-dir", shared_cache) == one


def test_cluster_progress_per_rank_file(ranks4, scheduler, shared_cache):
    from distributed import Client

    tty = FakeTTY()
    with Client(scheduler) as client, Progress("analyzing ranks4", stream=tty, min_interval_s=0) as bar:
        rep = parallel.analyze_path(ranks4, client=client, progress=bar, cache_dir=shared_cache)
    assert "1/4 rank files" in tty.getvalue() and "4/4 rank files" in tty.getvalue()
    assert rep.kernels is None and len(rep.steps) == 52


def test_cluster_bad_rank_file_is_one_line(capsys, ranks4, scheduler, tmp_path):
    d = tmp_path / "bad"
    shutil.copytree(ranks4, d)
    victim = sorted(d.iterdir())[2]
    victim.write_bytes(victim.read_bytes()[:5000])  # truncated gzip
    rc = main(["report", str(d), "--no-cache", "--scheduler", scheduler])
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 2 and len(err) == 1 and err[0].startswith("traceattrib: error:") and victim.name in err[0]


# --- one export of several GPU processes, read and analyzed a process at a time ------------------

def two_processes(src, dst, bad_rows: bool = False) -> str:
    """A copy of the one-process export `src` with a second process beside it: every row of every
    table with a process column again, with the pid raised by 1000 (and the device by 1, the sample
    ids past the first's); bad_rows: the second process also has 2 kernels that end before they start."""
    import sqlite3

    from traceattrib.ingest.nsys_tables import PROCESS_COLUMN

    shutil.copyfile(src, dst)
    con = sqlite3.connect(dst)
    tables = {r[0] for r in con.execute("select name from sqlite_master where type='table'")}
    off = (con.execute("select max(id) from COMPOSITE_EVENTS").fetchone()[0] or 0) + 1 \
        if "COMPOSITE_EVENTS" in tables else 0
    for t, col in list(PROCESS_COLUMN.items()) + [("SAMPLING_CALLCHAINS", None)]:
        if t not in tables:
            continue
        cols = [r[1] for r in con.execute(f"pragma table_info('{t}')")]
        expr = []
        for c in cols:
            if c == col:
                expr.append(f"[{c}] + {1000 << 24}")
            elif c == "deviceId" and t != "NVTX_EVENTS":
                expr.append(f"[{c}] + 1")
            elif c == "id" and t in ("COMPOSITE_EVENTS", "SAMPLING_CALLCHAINS"):
                expr.append(f"[{c}] + {off}")
            else:
                expr.append(f"[{c}]")
        names = ", ".join(f"[{c}]" for c in cols)
        con.execute(f"insert into {t} ({names}) select {', '.join(expr)} from {t}")
    if bad_rows:
        con.execute("""insert into CUPTI_ACTIVITY_KIND_KERNEL select * from CUPTI_ACTIVITY_KIND_KERNEL
                       where globalPid >> 24 = (select max(globalPid >> 24) from CUPTI_ACTIVITY_KIND_KERNEL) limit 2""")
        con.execute("""update CUPTI_ACTIVITY_KIND_KERNEL set start = "end" + 1000 where rowid in
                       (select rowid from CUPTI_ACTIVITY_KIND_KERNEL order by rowid desc limit 2)""")
    con.commit()
    con.close()
    return str(dst)


@pytest.fixture
def by_process(monkeypatch):
    """Every multi-process export read a process at a time; the processes each read asked for."""
    from traceattrib.ingest import nsys, nsys_tables

    monkeypatch.setattr(nsys_tables, "PIECE_KERNELS", 0)
    asked = []
    real = nsys.read

    def spy(path, *a, process=None, **kw):
        asked.append(process.pid if process is not None else None)
        return real(path, *a, process=process, **kw)

    monkeypatch.setattr(nsys, "read", spy)
    return asked


def _pids(path) -> list[int]:
    import sqlite3

    con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return [p for (p,) in con.execute("select distinct (globalPid >> 24) & 16777215 from "
                                          "CUPTI_ACTIVITY_KIND_KERNEL order by 1")]
    finally:
        con.close()


def _by_process_equals_whole(path: str, by_process, monkeypatch, **opts) -> Report:
    ref = whole_trace_report(read(path), **opts)
    by_process.clear()
    rep = parallel.analyze_path(path, use_cache=False, **opts)
    assert by_process == _pids(path)  # each process read alone, in pid order, never the whole file
    assert_same_report(rep, ref)
    assert rep.meta["devices"] == ref.meta["devices"] and rep.meta["gpus"] == ref.meta["gpus"]
    assert renders(rep) == reference_renders(ref, monkeypatch)
    return rep


def test_processes_read_alone_equal_the_whole_file(by_process, monkeypatch):
    rep = _by_process_equals_whole(str(FIXTURES / "tp2_eager_nsys.sqlite"), by_process, monkeypatch, **OPTIONS)
    assert rep.meta["world_size"] == 2 and sorted(rep.steps["rank"].unique()) == [0, 1]
    assert len(rep.comm.instances) and sorted(rep.comm.instances["rank"].unique()) == [0, 1]


@needs_shared
def test_processes_read_alone_equal_the_whole_file_shared(by_process, monkeypatch):
    _by_process_equals_whole(str(NSYS_VERSIONS / "GindaChen_nsys-ai__387e5a5__h100_2gpu_1s.sqlite"), by_process,
                             monkeypatch)


def test_processes_read_alone_with_samples_ranges_and_os_calls(by_process, monkeypatch, tmp_path):
    """Every table a process owns is cut by its process: OS runtime calls, CPU samples and their
    call stacks (joined by sample id), NVTX ranges and the domains named among every row."""
    path = two_processes(FIXTURES / "idle_causes_sampled_nsys.sqlite", tmp_path / "two.sqlite")
    whole = read(path)
    by_process.clear()
    assert (whole.cpu_ops["kind"] == "sample").sum() > 0 and (whole.cpu_ops["kind"] == "osrt").sum() > 0
    assert sorted(whole.cpu_ops["rank"].unique()) == [0, 1]
    rep = _by_process_equals_whole(path, by_process, monkeypatch)
    assert rep.meta["devices"] == [0, 1]


def test_processes_read_alone_count_their_dropped_rows(by_process, monkeypatch, tmp_path):
    path = two_processes(FIXTURES / "tp2_eager_nsys.sqlite", tmp_path / "bad.sqlite", bad_rows=True)
    ref = whole_trace_report(read(path))
    by_process.clear()
    rep = parallel.analyze_path(path, use_cache=False)
    assert len(by_process) == 4
    assert rep.meta["integrity"]["dropped_rows"] == ref.meta["integrity"]["dropped_rows"] == \
        {"CUPTI_ACTIVITY_KIND_KERNEL": 2}
    # the rows dropped are said for the process that had them (counted among its rows), and only
    # its steps are doubted (read whole, the file's drops touch every rank)
    said = [w for w in rep.meta["warnings"] if "dropped 2 of" in w]
    assert said == ["CUPTI_ACTIVITY_KIND_KERNEL: dropped 2 of 3,460 rows that cannot be placed on the timeline "
                    "(2 with end < start; first at rowid 13833)"]
    drops = {c.check: c for c in rep.summary.integrity.checks}["drops"]
    assert drops.status == "failed" and drops.ranks == [3] and drops.count == 2
    assert {c.check: c for c in ref.summary.integrity.checks}["drops"].ranks == [0, 1, 2, 3]
    a, b = summary_of(rep), summary_of(ref)
    a.pop("integrity"), b.pop("integrity")
    assert a == b
    pd.testing.assert_frame_equal(rep.steps.drop(columns=["integrity"]),
                                  ref.steps.drop(columns=["integrity"]))


def test_processes_cached_results_are_per_process(by_process, tmp_path):
    path = str(FIXTURES / "tp2_eager_nsys.sqlite")
    cdir = str(tmp_path / "c")
    first = parallel.analyze_path(path, cache_dir=cdir)
    assert first.meta["results_cached"] is False and first.meta["cached"] is False
    again = parallel.analyze_path(path, cache_dir=cdir)
    assert again.meta["results_cached"] is True
    assert len(os.listdir(cdir)) == 2  # an entry per process: its tables and its results
    assert_same_report(again, first)
    assert by_process == _pids(path)  # read once: the second report came from the stored results


def test_cluster_tasks_are_the_processes_of_one_export(capsys, scheduler, tmp_path):
    """On a cluster the processes of one export are separate tasks, whatever its size."""
    path = str(FIXTURES / "tp2_eager_nsys.sqlite")
    opts = ["--format", "json", "--no-cache", "--layers", "4"]
    here = run(capsys, "report", path, *opts)
    assert run(capsys, "report", path, "--scheduler", scheduler, *opts) == here
    from distributed import Client

    tty = FakeTTY()
    with Client(scheduler) as client, Progress("x", stream=tty, min_interval_s=0) as bar:
        rep = parallel.analyze_path(path, client=client, progress=bar, use_cache=False)
    assert "2/2" in tty.getvalue() and sorted(rep.steps["rank"].unique()) == [0, 1]


def test_large_ranks_analyzed_in_one_thread_give_the_same_report(monkeypatch):
    """Above analysis.ONE_THREAD_ROWS a rank's analyses run one after another (less memory at
    once): the same report as with the second thread."""
    path = str(FIXTURES / "tp2_eager_nsys.sqlite")
    trace = read(path)
    ref = analyze(trace, **OPTIONS)
    from traceattrib import concurrency

    threads = []
    real = concurrency.ThreadPoolExecutor

    def counting(*a, **kw):
        threads.append(kw.get("thread_name_prefix"))
        return real(*a, **kw)

    monkeypatch.setattr(concurrency, "ThreadPoolExecutor", counting)
    monkeypatch.setattr(analysis, "ONE_THREAD_ROWS", 0)
    rep = analyze(trace, **OPTIONS)
    assert threads == []  # no second thread was started
    assert_same_report(rep, ref)
    assert_same_ops(rep.kernels, ref.kernels)
    monkeypatch.setattr(analysis, "ONE_THREAD_ROWS", 10 ** 9)
    analyze(trace, **OPTIONS)
    assert {"traceattrib-ops", "traceattrib-detect", "traceattrib-idle", "traceattrib-layers"} <= set(threads)
