"""nsys reader: oracle tests against `nsys stats` CSVs captured beside each fixture, and every
schema generation in ../shared/traces/nsys-versions."""
from __future__ import annotations

import os
import stat

import numpy as np
import pandas as pd
import pytest

from traceattrib.errors import TraceError
from traceattrib.ingest import read

from conftest import FIXTURES, NSYS_VERSIONS, ROOT, needs_shared, shared_files

NSYS_FIXTURES = ["llama_eager_nsys", "llama_graph_nsys_node", "llama_graph_nsys", "tp2_eager_nsys"]


def _per_name(t: pd.DataFrame) -> pd.DataFrame:
    """Per name: the total duration (ns) and count of a table's rows, as nsys stats sums them."""
    return t.assign(d=t.end_ns - t.start_ns).groupby("name", observed=True)["d"].agg(["sum", "count"])


@pytest.mark.parametrize("name", NSYS_FIXTURES + ["serve_piecewise_noann_nsys", "serve_mixed_noann_nsys"])
def test_kernel_totals_equal_nsys_stats(name):
    t = read(str(FIXTURES / f"{name}.sqlite"))
    ours = _per_name(t.kernels)
    oracle = pd.read_csv(FIXTURES / f"{name}_cuda_gpu_kern_sum.csv").set_index("Name")
    assert len(ours) == len(oracle)
    joined = oracle.join(ours, how="outer")
    assert (joined["Total Time (ns)"] == joined["sum"]).all()
    assert (joined["Instances"] == joined["count"]).all()


@pytest.mark.parametrize("name", NSYS_FIXTURES)
def test_nvtx_totals_equal_nsys_stats(name):
    t = read(str(FIXTURES / f"{name}.sqlite"))
    ours = _per_name(t.ranges)
    oracle = pd.read_csv(FIXTURES / f"{name}_nvtx_sum.csv")
    oracle["name"] = oracle["Range"].str.split(":", n=1).str[1]  # nvtx_sum prints "domain:name"
    joined = oracle.set_index("name").join(ours, how="outer")
    # distinct range names; the TP capture also has NCCL's own NVTX ranges (domain NCCL)
    assert len(joined) == (14 if name.startswith("tp2") else 25)
    assert (joined["Total Time (ns)"] == joined["sum"]).all()
    assert (joined["Instances"] == joined["count"]).all()


def test_memop_totals_equal_nsys_stats():
    t = read(str(FIXTURES / "llama_eager_nsys.sqlite"))
    m = t.memops
    oracle = pd.read_csv(FIXTURES / "llama_eager_nsys_cuda_gpu_mem_time_sum.csv")
    assert int((m.end_ns - m.start_ns).sum()) == int(oracle["Total Time (ns)"].sum())
    assert len(m) == int(oracle["Count"].sum())


def test_eager_fixture_tables():
    t = read(str(FIXTURES / "llama_eager_nsys.sqlite"))
    assert t.meta["format"] == "nsys"
    assert t.meta["gpus"] == ["NVIDIA H200"]
    assert t.meta["profiler_version"] == "2025.3.2.0"
    assert t.meta["schema_version"] == "3.20.3"
    assert len(t.kernels) == 6548
    assert t.kernels["start_ns"].is_monotonic_increasing
    assert (t.kernels["end_ns"] > t.kernels["start_ns"]).all()
    # every kernel joins its launch call on (correlation, process)
    lk = t.launches.set_index(["pid", "correlation"])
    joined = t.kernels.join(lk["name"].rename("launch"), on=["pid", "correlation"])
    assert joined["launch"].notna().all()
    assert set(joined["launch"].astype(str).str.replace(r"_v\d+$", "", regex=True)) >= {"cudaLaunchKernel"}
    names = list(t.ranges.sort_values("start_ns")["name"].astype(str))
    assert names[0] == "prefill" and names[1:] == [f"decode_step_{i}" for i in range(24)]
    assert (t.ranges["depth"] == 0).all()
    assert t.kernels["graph_id"].isna().all()


def test_graph_level_capture_reads_graph_executions():
    t = read(str(FIXTURES / "llama_graph_nsys.sqlite"))
    assert len(t.graphs) == 24  # one whole-graph row per decode step
    assert len(t.kernels) == 236  # prefill kernels, launched eagerly
    assert any("cuda-graph-trace=node" in n for n in t.meta["notes"])
    launches = t.launches[t.launches["name"].astype(str).str.startswith("cudaGraphLaunch")]
    assert set(t.graphs["correlation"]) <= set(launches["correlation"])


def test_a_process_with_only_graph_executions_is_a_rank(tmp_path):
    """Whole-graph executions are GPU work: a process that ran only those (its kernels not recorded
    one by one) is a rank of its own, as in one read per process; none of its rows gets rank -1."""
    import shutil
    import sqlite3

    from traceattrib.analysis import analyze
    from traceattrib.ingest.nsys_tables import processes
    path = tmp_path / "t.sqlite"
    shutil.copy(FIXTURES / "llama_graph_nsys.sqlite", path)
    con = sqlite3.connect(path)
    # the last three graph executions moved to a second process (pid + 1)
    con.execute('update CUPTI_ACTIVITY_KIND_GRAPH_TRACE set globalPid = globalPid + (1 << 24) where rowid in '
                '(select rowid from CUPTI_ACTIVITY_KIND_GRAPH_TRACE order by start desc limit 3)')
    con.commit()
    con.close()
    tr = read(str(path))
    assert tr.meta["ranks"] == [0, 1]
    assert tr.graphs["rank"].value_counts().to_dict() == {0: 21, 1: 3}
    assert [len(p.pids) for p in processes(str(path), None)] == [2, 2]
    assert (analyze(tr).steps["rank"] >= 0).all()


def test_node_level_capture_marks_graph_kernels():
    t = read(str(FIXTURES / "llama_graph_nsys_node.sqlite"))
    g = t.kernels["graph_id"].notna()
    assert int(g.sum()) == 6548 - 236  # every decode kernel (24 x 263) ran inside a graph
    assert len(t.graphs) == 0


def test_file_is_opened_read_only(tmp_path):
    src = FIXTURES / "llama_graph_nsys.sqlite"
    dst = tmp_path / "ro.sqlite"
    dst.write_bytes(src.read_bytes())
    os.chmod(dst, stat.S_IRUSR)
    os.chmod(tmp_path, stat.S_IRUSR | stat.S_IXUSR)  # not even a journal could be created
    try:
        before = dst.stat().st_mtime_ns
        t = read(str(dst))
        assert len(t.kernels) == 236
        assert dst.stat().st_mtime_ns == before
        assert sorted(p.name for p in tmp_path.iterdir()) == ["ro.sqlite"]
    finally:
        os.chmod(tmp_path, stat.S_IRWXU)


@needs_shared
@pytest.mark.parametrize("path", shared_files(NSYS_VERSIONS, "*.sqlite"), ids=lambda p: p.name[:40])
def test_every_schema_generation_loads(path):
    try:
        t = read(str(path))
    except TraceError as e:
        # exports without GPU activity are refused with a clear reason, never a crash
        assert "no GPU activity" in str(e) or "no CUDA activity" in str(e)
        t = read(str(path), require_gpu=False)
        assert len(t.kernels) == 0
        return
    assert len(t.kernels) + len(t.memops) > 0
    for name, table in t.tables().items():
        if len(table):
            assert table["start_ns"].is_monotonic_increasing, name
            assert (table["end_ns"] >= table["start_ns"]).all(), name
    if len(t.kernels):
        assert t.kernels["name"].astype(str).str.len().min() > 0


STATS = ROOT / "tests" / "data" / "nsys_stats"  # `nsys stats` of each schema export (README.md there)


# exports of older schemas without the ENUM_CUDA_MEMCPY_OPER table: nsys stats 2025.3 skips their
# memory report ("does not contain ENUM_CUDA_MEMCPY_OPER table"); their copies read from
# CUPTI_ACTIVITY_KIND_MEMCPY all the same
MEM_UNREAD_BY_NSYS = {"bwyogatama_Mordred-Deprecated__ad27a34__report1", "chase-compton_Game-of-Life-in-CUDA__1ad14c2__report1",
                      "martisu1631998_kmeans-parallel__c22f83f__report2"}


def _stats(stem: str, report: str) -> pd.DataFrame | None:
    """`nsys stats`'s CSV of one report for one export; None where it printed nothing."""
    try:
        return pd.read_csv(STATS / f"{stem}_{report}.csv.gz")
    except pd.errors.EmptyDataError:
        return None


@needs_shared
@pytest.mark.parametrize("path", shared_files(NSYS_VERSIONS, "*.sqlite"), ids=lambda p: p.name[:40])
def test_every_schema_generation_totals_equal_nsys_stats(path):
    """Per kernel name, memory operation kind and NVTX range name, total time and count equal what
    `nsys stats` (Nsight Systems 2025.3.1) prints for the same export, on every schema generation
    of ../shared/traces: the tables the analyses start from hold exactly the profiler's records."""
    t = read(str(path), require_gpu=False)
    kern = _stats(path.stem, "cuda_gpu_kern_sum")
    if kern is None:
        assert len(t.kernels) == 0
    else:
        joined = kern.set_index("Name").join(_per_name(t.kernels), how="outer")
        assert len(joined) == len(kern) == t.kernels["name"].nunique()
        assert (joined["Total Time (ns)"] == joined["sum"]).all() and (joined["Instances"] == joined["count"]).all()
    mem = _stats(path.stem, "cuda_gpu_mem_time_sum")
    m = t.memops
    if path.stem in MEM_UNREAD_BY_NSYS:
        assert mem is None and len(m) > 0  # the copies are there; only nsys stats cannot list them
    else:
        assert int((m.end_ns - m.start_ns).sum()) == (int(mem["Total Time (ns)"].sum()) if mem is not None else 0)
        assert len(m) == (int(mem["Count"].sum()) if mem is not None else 0)
    nvtx = _stats(path.stem, "nvtx_sum")
    if nvtx is None:
        assert len(t.ranges) == 0
        return
    # nvtx_sum prints "domain:name" (":name" without a domain) and a row per style (push/pop, start/end)
    nvtx["name"] = nvtx["Range"].str.split(":", n=1).str[1]
    want = nvtx.groupby("name")[["Total Time (ns)", "Instances"]].sum()
    joined = want.join(_per_name(t.ranges), how="outer")
    assert (joined["Total Time (ns)"] == joined["sum"]).all() and (joined["Instances"] == joined["count"]).all()


@needs_shared
def test_old_schema_without_metadata_table():
    t = read(str(NSYS_VERSIONS / "bwyogatama_Mordred-Deprecated__ad27a34__report1.sqlite"))
    assert t.meta["profiler_version"] is None
    assert len(t.kernels) == 12 and t.meta["gpus"] == ["Quadro RTX 6000"]


@needs_shared
def test_nvtx_registered_strings_and_domains():
    # TensorRT writes NVTX names as registered strings (textId) in its own domain
    t = read(str(NSYS_VERSIONS / "LeiWang1999_memfusion_artifact__cb223ed__report1.sqlite"))
    assert len(t.ranges) == 59
    assert (t.ranges["name"].astype(str).str.len() > 0).all()
    assert set(t.ranges["domain"].astype(str)) == {"TensorRT"}


@needs_shared
def test_nested_nvtx_depth():
    t = read(str(NSYS_VERSIONS / "caoye310_Lower-Triangular-Solves__62130f4__report1.sqlite"))
    assert len(t.ranges) == 1276
    assert t.ranges["depth"].max() >= 1


@needs_shared
def test_two_process_capture_has_two_ranks():
    t = read(str(NSYS_VERSIONS / "GindaChen_nsys-ai__387e5a5__h100_2gpu_1s.sqlite"))
    assert t.meta["ranks"] == [0, 1]
    assert set(t.kernels["device"]) == {0, 1}
    # each process drives its own GPU
    assert t.kernels.groupby("rank")["device"].nunique().tolist() == [1, 1]


# -- the two SQLite engines (ADBC and the sqlite3 fallback) ---------------------------------------

ENGINE_FILES = [FIXTURES / f"{n}.sqlite" for n in NSYS_FIXTURES] + shared_files(NSYS_VERSIONS, "*.sqlite")


@pytest.mark.parametrize("path", ENGINE_FILES, ids=lambda p: p.name[:40])
def test_engines_give_identical_tables(path, monkeypatch):
    pytest.importorskip("adbc_driver_sqlite")
    from traceattrib.ingest import _sqlite

    assert _sqlite._adbc() is not None
    fast = read(str(path), require_gpu=False)
    monkeypatch.setenv("TRACEATTRIB_SQLITE_ENGINE", "sqlite3")
    assert _sqlite._adbc() is None
    plain = read(str(path), require_gpu=False)
    for name, table in fast.tables().items():
        pd.testing.assert_frame_equal(table, plain.tables()[name], check_exact=True, obj=name)
    assert fast.meta == plain.meta


def test_heap_given_back_after_large_joined_columns(monkeypatch):
    """A joined integer column of GIVE_BACK_ROWS rows or more hands the heap's free pages back; the
    tables are the same either way (the threshold lowered to every column here)."""
    pytest.importorskip("adbc_driver_sqlite")
    from traceattrib import heap
    from traceattrib.ingest import _sqlite

    path = str(FIXTURES / "llama_eager_nsys.sqlite")
    plain = read(path)
    calls = []
    monkeypatch.setattr(heap, "give_back", lambda: calls.append(1))
    monkeypatch.setattr(_sqlite, "GIVE_BACK_ROWS", 1)
    given = read(path)
    # the kernels' integer columns alone are more than ten
    assert len(calls) > 10
    for name, table in plain.tables().items():
        pd.testing.assert_frame_equal(table, given.tables()[name], check_exact=True, obj=name)
    calls.clear()
    monkeypatch.setattr(_sqlite, "GIVE_BACK_ROWS", 1 << 40)
    read(path)
    assert not calls


@pytest.mark.parametrize("path", ENGINE_FILES, ids=lambda p: p.name[:40])
def test_integer_columns_equal_sqlite(path):
    """Every kernel's and API call's times, ids and launch dims, as SQLite itself returns them."""
    import sqlite3

    t = read(str(path), require_gpu=False)
    con = sqlite3.connect(f"file:{path}?mode=ro&immutable=1", uri=True)
    tables = {r[0] for r in con.execute("select name from sqlite_master where type='table'")}
    checks = [("CUPTI_ACTIVITY_KIND_KERNEL", t.kernels,
               {"start": "start_ns", "end": "end_ns", "deviceId": "device", "streamId": "stream",
                "correlationId": "correlation", "gridX": "grid_x", "blockX": "block_x", "blockZ": "block_z"}),
              ("CUPTI_ACTIVITY_KIND_RUNTIME", None,
               {"start": "start_ns", "end": "end_ns", "correlationId": "correlation"})]
    for table, ours, cols in checks:
        if table not in tables:
            continue
        sql = f"select {', '.join(cols)} from {table} order by start, \"end\", correlationId"
        want = pd.DataFrame(con.execute(sql).fetchall(), columns=list(cols.values()))
        if ours is None:  # launches hold runtime and driver calls: take the runtime ones
            drv = set()
            if "CUPTI_ACTIVITY_KIND_DRIVER" in tables:
                drv = {r[0] for r in con.execute("select correlationId from CUPTI_ACTIVITY_KIND_DRIVER")}
            ours = t.launches[~t.launches["correlation"].isin(drv)]
        got = ours[list(cols.values())].sort_values(["start_ns", "end_ns", "correlation"], kind="stable")
        assert len(got) == len(want) > 0
        for c in cols.values():
            assert (got[c].to_numpy(np.int64) == want[c].to_numpy(np.int64)).all(), (table, c)
    con.close()


def _mixed_table(tmp_path):
    """A table whose column b holds integers, then text past ADBC's first batch of rows."""
    import sqlite3

    p = tmp_path / "mixed.sqlite"
    con = sqlite3.connect(p)
    con.execute("create table t (a integer, b)")
    con.executemany("insert into t values (?, ?)", [(i, i) for i in range(40_000)] + [(40_000, "x")])
    con.commit()
    con.close()
    return p


def test_adbc_type_mismatch_is_read_the_plain_way(tmp_path):
    """ADBC refuses a column that changes type part way; its message is what _type_mismatch reads,
    and the column is then read through sqlite3 (as text, the column allowing either)."""
    pytest.importorskip("adbc_driver_sqlite")
    from traceattrib.ingest import _sqlite

    src = _sqlite.SqliteSource(str(_mixed_table(tmp_path)))
    try:
        with pytest.raises(_sqlite._TypeMismatch):
            src._adbc_query(_sqlite._adbc(), "select a, b from t")
        cols = src.fetch("t", ["a", "b"], either=("b",)).result()
        assert cols.is_text("b") and cols.text("b").to_pylist()[-2:] == ["39999", "x"]
        assert cols.int("a")[-1] == 40_000
    finally:
        src.close()


def test_other_adbc_errors_are_no_type_mismatch(tmp_path):
    pytest.importorskip("adbc_driver_sqlite")
    from traceattrib.ingest import _sqlite

    src = _sqlite.SqliteSource(str(_mixed_table(tmp_path)))
    try:
        with pytest.raises(Exception) as e:  # noqa: B017 - whatever ADBC raises for it
            src._adbc_query(_sqlite._adbc(), "select * from no_such_table")
        assert not isinstance(e.value, _sqlite._TypeMismatch) and not _sqlite._type_mismatch(e.value)
    finally:
        src.close()
    assert not _sqlite._type_mismatch(OSError("[SQLite] database disk image is malformed"))


@pytest.mark.parametrize("name", ["llama_eager_nsys", "tp2_eager_nsys"])
def test_lean_read_leaves_out_only_the_export_columns(name):
    """A lean read (the analyses') does not read the launch block sizes nor the short names: those
    columns are 0 and "" (unknown) and the meta says lean; every other table and column is the
    whole read's."""
    from traceattrib.ingest import read_file
    from traceattrib.ingest.nsys_tables import KERNEL_TABLE, start
    from traceattrib.model import EXPORT_ONLY_KERNEL_COLUMNS, KERNEL_COLUMNS

    path = str(FIXTURES / f"{name}.sqlite")
    whole, lean = read_file(path), read_file(path, lean=True)
    assert lean.meta.pop("lean") is True and "lean" not in whole.meta
    k = lean.kernels
    assert list(k.columns) == list(KERNEL_COLUMNS)
    assert (k["block_x"] == 0).all() and (k["block_z"] == 0).all() and set(k["short_name"].astype(str)) == {""}
    assert (whole.kernels["block_x"] > 0).all() and whole.kernels["short_name"].astype(str).str.len().gt(0).all()
    rest = [c for c in KERNEL_COLUMNS if c not in EXPORT_ONLY_KERNEL_COLUMNS]
    pd.testing.assert_frame_equal(k[rest], whole.kernels[rest])
    for tab in ("memops", "launches", "ranges", "graphs", "cpu_ops"):
        pd.testing.assert_frame_equal(getattr(lean, tab), getattr(whole, tab))
    assert lean.meta == whole.meta
    began = start(path, lean=True)
    try:
        read_cols = began.pending[KERNEL_TABLE].names
    finally:
        began.close()
    assert not {"blockX", "blockY", "blockZ", "shortName"} & set(read_cols) and "gridX" in read_cols
