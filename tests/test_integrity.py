"""Trace integrity (traceattrib/integrity.py): every check passes on the real captures and fails on
copies of them corrupted in code (an nsys export edited with SQL, a Kineto trace edited as JSON, the
loaded tables edited with generated edits), saying how many records, which steps, and stopping the
diff gate unless told otherwise."""
from __future__ import annotations

import gzip
import json
import shutil
import sqlite3
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from traceattrib import integrity
from traceattrib.analysis import analyze, split_ranks
from traceattrib.errors import TraceError
from traceattrib.gpuops import gpu_ops
from traceattrib.ingest import read

from conftest import FIXTURES, NSYS_VERSIONS, PUBLIC, shared_files
from harness import run_cli

EAGER_NSYS = FIXTURES / "llama_eager_nsys.sqlite"
EAGER_TORCH = FIXTURES / "llama_eager_torch.pt.trace.json.gz"
TP2_TORCH = FIXTURES / "tp2_eager_torch"
KERNELS = "CUPTI_ACTIVITY_KIND_KERNEL"


def failed(rep) -> dict[str, object]:
    return {c.check: c for c in rep.summary.integrity.checks if c.status == "failed"}


def nsys_copy(tmp_path: Path, *sql: str, src: Path = EAGER_NSYS) -> Path:
    """A copy of an nsys export with `sql` applied (the original is never touched)."""
    p = tmp_path / src.name
    shutil.copyfile(src, p)
    con = sqlite3.connect(p)
    con.execute("pragma synchronous = off")
    for s in sql:
        con.execute(s)
    con.commit()
    con.close()
    return p


def middle_kernel(path: Path = EAGER_NSYS) -> tuple[int, int, int, int]:
    """(rowid, start, end, correlationId) of the kernel in the middle of the export."""
    con = sqlite3.connect(f"file:{path}?immutable=1", uri=True)
    n = con.execute(f"select count(*) from {KERNELS}").fetchone()[0]
    row = con.execute(f"select rowid, start, end, correlationId from {KERNELS} order by start limit 1 offset ?",
                      (n // 2,)).fetchone()
    con.close()
    return row


def step_of(rep, t_ns: int) -> int:
    s = rep.steps
    hit = s[(s["start_ns"] <= t_ns) & (s["end_ns"] >= t_ns)]
    assert len(hit) == 1
    return int(hit["index"].iloc[0])


# ------------------------------------------------------------------------------------------------
# clean captures pass

CLEAN = sorted(p for p in FIXTURES.iterdir() if p.name.endswith((".sqlite", ".json.gz")) or
               (p.is_dir() and p.name != "capture"))


@pytest.mark.parametrize("path", CLEAN, ids=lambda p: p.name)
def test_fixtures_are_trusted(path):
    t = read(str(path))
    rep = analyze(t)
    integ = rep.summary.integrity
    assert integ.trusted, [(c.check, c.count, c.detail) for c in integ.checks if c.status == "failed"]
    assert integ.affected_steps == [] and integ.steps == len(rep.steps)
    assert [c.check for c in integ.checks] == list(integrity.CHECKS)
    ran = {c.check: c for c in integ.checks if c.status == "ok"}
    assert {"stream_overlap", "durations", "drops"} <= set(ran)
    assert ran["durations"].checked == len(t.kernels) + len(t.memops) + len(t.graphs)
    assert (rep.steps["integrity"] == "").all()


def test_shared_traces_are_trusted():
    files = shared_files(PUBLIC, "*.json.gz") + shared_files(NSYS_VERSIONS, "*.sqlite")
    if not files:
        pytest.skip("../shared/traces not present")
    seen = 0
    for f in files:
        try:
            rep = analyze(read(str(f)))
        except TraceError as e:  # exports without GPU work are refused, as they should be
            assert "no GPU activity" in str(e) or "no CUDA activity" in str(e), str(e)
            continue
        seen += 1
        assert rep.summary.integrity.trusted, (f.name, failed(rep))
        assert all(c.status != "failed" for c in rep.summary.integrity.checks)
    assert seen >= 20


# ------------------------------------------------------------------------------------------------
# corrupted copies fail, with their counts and steps

def test_lost_kernel_record(tmp_path):
    rowid, start, _, _ = middle_kernel()
    rep = analyze(read(str(nsys_copy(tmp_path, f"delete from {KERNELS} where rowid = {rowid}"))))
    f = failed(rep)
    assert set(f) == {"lost_ops"}
    assert f["lost_ops"].count == 1 and f["lost_ops"].steps == 1
    (a,) = rep.summary.integrity.affected_steps
    assert a.checks == ["lost_ops"] and a.index == step_of(rep, start)
    assert rep.steps.loc[rep.steps["index"] == a.index, "integrity"].tolist() == ["lost_ops"]


def test_lost_launch_record(tmp_path):
    _, start, _, corr = middle_kernel()
    rep = analyze(read(str(nsys_copy(tmp_path, f"delete from CUPTI_ACTIVITY_KIND_RUNTIME where correlationId = {corr}"))))
    f = failed(rep)
    assert set(f) == {"unlaunched"} and f["unlaunched"].count == 1 and f["unlaunched"].steps == 1
    assert rep.summary.integrity.affected_steps[0].index == step_of(rep, start)


def test_misordered_record_overlaps_its_stream(tmp_path):
    rowid, start, end, _ = middle_kernel()
    shift = 200_000  # 200 us earlier: it now starts inside the kernel before it on its stream
    rep = analyze(read(str(nsys_copy(tmp_path, f"update {KERNELS} set start = start - {shift}, end = end - {shift} "
                                                f"where rowid = {rowid}"))))
    f = failed(rep)
    assert "stream_overlap" in f and f["stream_overlap"].count >= 1
    assert f["stream_overlap"].checked == len(rep.kernels) + len(rep.memops)


def test_absurd_durations(tmp_path):
    rowid, *_ = middle_kernel()
    hours = 2 * 3600 * 10**9  # a kernel of two hours
    rep = analyze(read(str(nsys_copy(tmp_path, f"update {KERNELS} set end = start + {hours} where rowid = {rowid}"))))
    assert failed(rep)["durations"].count == 1


def test_duration_wrong_by_orders_of_magnitude(tmp_path):
    """A ROCm trace (public, SGLang on MI300) with one kernel's duration 20,000x its own median, as
    ROCm profilers have been seen to write: the durations check finds that one op, though it is
    far below an hour."""
    src = PUBLIC / "tracelens_mi300_sglang_qwen3_8b_prefilldecode.json.gz"
    if not src.exists():
        pytest.skip("../shared/traces not present")
    picked = {}

    def stretch(doc):
        k = [e for e in doc["traceEvents"] if e.get("cat") == "kernel" and e.get("dur", 0) > 0]
        names = {}
        for e in k:
            names.setdefault(e["name"], []).append(e)
        calls = max(names.values(), key=len)
        e = calls[len(calls) // 2]
        med = sorted(c["dur"] for c in calls)[len(calls) // 2]
        e["dur"] = med * 20_000
        picked.update(name=e["name"], dur_us=e["dur"], calls=len(calls))

    t = read(str(_kineto(src, tmp_path / src.name, stretch)))
    assert picked["dur_us"] < 3600e6 and picked["calls"] >= 5
    f = failed(analyze(t))
    assert f["durations"].count == 1 and f["durations"].checked == len(t.kernels) + len(t.memops)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 3), st.integers(-5, 10**9)), min_size=1, max_size=40),
       st.sampled_from([2.0, 10.0, 1e4]))
def test_skipping_the_medians_never_hides_a_duration(rows, ratio):
    """The durations check skips the per-name medians when no duration could exceed `ratio` times a
    positive median (integrity._may_exceed): whenever some kernel does, it says so."""
    code = np.array([c for c, _ in rows], np.int64)
    d = np.array([x for _, x in rows], np.int64)
    med, _ = integrity._group_median(code, d)
    flagged = ((med > 0) & (d > ratio * med)).any()
    assert integrity._may_exceed(d, ratio) or not flagged


def test_zero_duration(tmp_path):
    rowid, *_ = middle_kernel()
    rep = analyze(read(str(nsys_copy(tmp_path, f"update {KERNELS} set end = start where rowid = {rowid}"))))
    assert failed(rep)["durations"].count == 1


def test_rows_the_reader_drops_are_counted(tmp_path):
    rowid, *_ = middle_kernel()
    t = read(str(nsys_copy(tmp_path, f"update {KERNELS} set end = start - 5 where rowid = {rowid}")))
    assert t.meta["integrity"]["dropped_rows"] == {KERNELS: 1}
    rep = analyze(t)
    f = failed(rep)
    assert f["drops"].count == 1 and f["drops"].steps == len(rep.steps)
    assert any(KERNELS in d for d in f["drops"].detail)


@pytest.mark.parametrize("message, lost", [
    ("CUPTI activity buffer overflow: 1234 records were dropped", True),
    ("Some CUDA events were lost: increase the buffer size", True),
    ("Not all CUDA events might have been collected.", False),  # printed for processes without CUDA work
    ("No NVTX events collected. Does the process use NVTX?", False),
])
def test_profiler_messages(tmp_path, message, lost):
    p = nsys_copy(tmp_path, "insert into DIAGNOSTIC_EVENT (timestamp, timestampType, source, severity, text, "
                            f"globalPid) values (1, 0, 1, 2, '{message}', NULL)")
    rep = analyze(read(str(p)))
    assert message in read(str(p)).meta["integrity"]["profiler_messages"]
    f = failed(rep)
    assert ("drops" in f) is lost
    if lost:
        assert f["drops"].detail == [message] and len(rep.summary.integrity.affected_steps) == len(rep.steps)


def zero_page_of(path: Path, table: str) -> None:
    """Zero the root page of `table` in the SQLite file `path` (a damaged page, as disks and
    interrupted copies leave them)."""
    con = sqlite3.connect(path)
    page = con.execute("pragma page_size").fetchone()[0]
    root = con.execute("select rootpage from sqlite_master where name = ?", (table,)).fetchone()[0]
    con.close()
    with open(path, "r+b") as f:
        f.seek((root - 1) * page)
        f.write(b"\0" * page)


def test_unreadable_profiler_messages_fail_the_drops_check(tmp_path):
    """A damaged DIAGNOSTIC_EVENT page is no reason to refuse the trace, but no evidence that
    nothing was lost either: the drops check fails and says why."""
    p = nsys_copy(tmp_path)
    zero_page_of(p, "DIAGNOSTIC_EVENT")
    t = read(str(p))
    assert t.meta["integrity"]["profiler_messages"] == []
    assert t.meta["integrity"]["unreadable"] == ["DIAGNOSTIC_EVENT cannot be read (database disk image is malformed)"]
    rep = analyze(t)
    f = failed(rep)
    assert set(f) == {"drops"} and f["drops"].count == 1
    assert f["drops"].detail == t.meta["integrity"]["unreadable"]
    assert len(rep.summary.integrity.affected_steps) == len(rep.steps) == 25


def _kineto(src: Path, dst: Path, edit) -> Path:
    doc = json.loads(gzip.decompress(src.read_bytes()))
    edit(doc)
    dst.write_bytes(gzip.compress(json.dumps(doc).encode(), 1))
    return dst


def test_kineto_overhead_events(tmp_path):
    def add(doc):
        ev = next(e for e in doc["traceEvents"] if e.get("cat") == "overhead")
        doc["traceEvents"].append(dict(ev, name="CUPTI dropped records"))
    t = read(str(_kineto(EAGER_TORCH, tmp_path / "t.json.gz", add)))
    assert t.meta["integrity"]["overhead"]["CUPTI dropped records"]["count"] == 1
    assert failed(analyze(t))["drops"].count == 1


# Kineto writes its own log lines into the trace as top-level WARNING / ERROR lists (the
# LoggerCollector metadata); these are the lines it prints when CUPTI runs out of buffers
@pytest.mark.parametrize("key, message, lost", [
    ("WARNING", "WARNING:2025-09-29 09:23:37 1234:1234 CuptiActivityApi.cpp:252] Exceeded max GPU buffer count "
                "(33 >= 33) - terminating tracing", True),
    ("WARNING", "Device profiling activity collection was stopped early at step 1", True),
    ("ERROR", "Dropped 1861 activity records", True),
    ("WARNING", "WARNING:2024-05-22 17:15:22 2910249:2910249 init.cpp:180] function cbapi->getCuptiStatus() "
                "failed with error CUPTI_ERROR_NOT_INITIALIZED (15)", False),
])
def test_kineto_profiler_messages(tmp_path, key, message, lost):
    t = read(str(_kineto(EAGER_TORCH, tmp_path / "t.json.gz", lambda doc: doc.update({key: [message, 7]}))))
    assert t.meta["integrity"]["profiler_messages"] == [message]  # the non-text entry skipped
    rep = analyze(t)
    f = failed(rep)
    assert ("drops" in f) is lost
    if lost:
        assert f["drops"].detail == [message] and len(rep.summary.integrity.affected_steps) == len(rep.steps)


def test_drops_stay_with_their_rank(tmp_path):
    """A directory of rank files where only rank 1's profiler ran out of buffers: the drops check
    fails on rank 1 alone, read whole (analyze) or rank file by rank file (the command line)."""
    from traceattrib import parallel

    d = tmp_path / "ranks"
    d.mkdir()
    msg = "Exceeded max GPU buffer count (33 >= 33) - terminating tracing"
    for f in sorted(TP2_TORCH.glob("*.json.gz")):
        _kineto(f, d / f.name, lambda doc, f=f: doc.update({"WARNING": [msg]}) if "rank1" in f.name else None)
    whole = analyze(read(str(d)))
    per_file = parallel.analyze_path(str(d))
    for rep in (whole, per_file):
        f = failed(rep)
        assert set(f) == {"drops"} and f["drops"].ranks == [1] and f["drops"].detail == [msg]
        affected = rep.summary.integrity.affected_steps
        assert {a.rank for a in affected} == {1} and len(affected) == int((rep.steps["rank"] == 1).sum()) == 13


def test_kineto_info_lines_are_not_messages():
    """HTA's public trace carries Kineto's INFO log lines (tracing started, ...): never a drop."""
    f = PUBLIC / "hta_a100_2rank_nccl_args.json.gz"
    if not f.exists():
        pytest.skip("../shared/traces not present")
    t = read(str(f))
    assert t.meta["integrity"]["profiler_messages"] == []
    assert "drops" not in failed(analyze(t))


def test_kineto_negative_duration(tmp_path):
    def neg(doc):
        k = [e for e in doc["traceEvents"] if e.get("cat") == "kernel"]
        k[len(k) // 2]["dur"] = -3
    t = read(str(_kineto(EAGER_TORCH, tmp_path / "t.json.gz", neg)))
    assert t.meta["integrity"]["negative_durations"] == 1
    d = failed(analyze(t))["durations"]
    assert d.count == 2  # the zero it became, and the repair said by the reader
    assert d.detail == ["1 negative durations taken as 0 by the reader"]


def test_drifting_clocks(tmp_path):
    """Rank 1's clock runs 1% fast: its collectives cannot be lined up with rank 0's."""
    d = tmp_path / "ranks"
    d.mkdir()
    for f in sorted(TP2_TORCH.glob("*.json.gz")):
        def drift(doc, f=f):
            if "rank1" not in f.name:
                return
            t0 = min(e["ts"] for e in doc["traceEvents"] if "ts" in e)
            for e in doc["traceEvents"]:
                if "ts" in e:
                    e["ts"] = t0 + (e["ts"] - t0) * 1.01
        _kineto(f, d / f.name, drift)
    clean = analyze(read(str(TP2_TORCH)))
    assert {c.check: c.status for c in clean.summary.integrity.checks}["clocks"] == "ok"
    rep = analyze(read(str(d)))
    c = failed(rep)["clocks"]
    assert c.count > 0 and c.steps > 0 and c.checked == 104


# ------------------------------------------------------------------------------------------------
# generated edits of the loaded tables (hypothesis)

@pytest.fixture(scope="module")
def eager():
    t = read(str(EAGER_NSYS))
    rep = analyze(t)
    ops = gpu_ops(t)
    return t, rep, ops


@settings(max_examples=25, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.data())
def test_any_lost_kernel_is_found(eager, data):
    """Deleting any kernel between the first step and the last launch is one lost op."""
    t, rep, _ = eager
    k = t.kernels
    lo, hi = int(rep.steps["start_ns"].min()), int(t.launches["start_ns"].max())
    launch_start = t.launches.set_index("correlation")["start_ns"]
    ok = np.flatnonzero((launch_start.reindex(k["correlation"]).to_numpy() >= lo) &
                        (launch_start.reindex(k["correlation"]).to_numpy() < hi - 10_000_000))
    i = int(ok[data.draw(st.integers(0, ok.size - 1))])
    t2 = type(t)(**{**t.tables(), "kernels": k.drop(index=i).reset_index(drop=True)}, meta=t.meta)
    ops = gpu_ops(t2)
    lost, where, checked = integrity.lost_ops(t2.launches, ops, rep.steps, integrity.limits())
    assert int(lost.sum()) == 1
    assert int(t2.launches["correlation"].to_numpy()[lost][0]) == int(k["correlation"].iloc[i])


@settings(max_examples=25, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.data())
def test_stream_overlap_beyond_the_slack_only(eager, data):
    """An op moved to start inside the op before it on its stream is found when the overlap exceeds
    the slack, and only then."""
    _, _, ops = eager
    lim = integrity.limits()
    skip = np.zeros(len(ops), bool)
    assert not integrity.stream_overlap(ops, skip, lim.overlap_slack_ns).any()
    s = ops.sort_values(["device", "stream", "start_ns"], kind="stable")
    same = (s["stream"].to_numpy()[1:] == s["stream"].to_numpy()[:-1])
    prev_dur = (s["end_ns"] - s["start_ns"]).to_numpy()[:-1]
    cand = np.flatnonzero(same & (prev_dur > 2 * lim.overlap_slack_ns))
    if not cand.size:
        pytest.skip("no op long enough to overlap")
    j = int(cand[data.draw(st.integers(0, cand.size - 1))])
    prev, cur = s.index[j], s.index[j + 1]
    by = data.draw(st.integers(0, int(prev_dur[j]) - 1))  # the overlap made, in ns
    moved = ops.copy()
    new_start = int(ops.at[prev, "end_ns"]) - by
    shift = int(ops.at[cur, "start_ns"]) - new_start
    moved.loc[cur, ["start_ns", "end_ns"]] = [new_start, int(ops.at[cur, "end_ns"]) - shift]
    bad = integrity.stream_overlap(moved, skip, lim.overlap_slack_ns)
    assert bad[cur] == (by > lim.overlap_slack_ns)


def test_a_repeated_launch_record_is_not_lost(eager):
    """A launch call recorded twice (same process and correlation id): the op names the first as
    its launch, and the second ran that op too, so neither is lost."""
    t, rep, _ = eager
    la = t.launches
    k0 = t.kernels.iloc[len(t.kernels) // 2]
    i = int(np.flatnonzero(la["correlation"].to_numpy() == int(k0["correlation"]))[0])
    twice = pd.concat([la, la.iloc[[i]]], ignore_index=True)
    twice["start_ns"] = twice["start_ns"].to_numpy().copy()
    twice.loc[len(twice) - 1, "start_ns"] += 1  # a moment later, as a second record would be
    t2 = type(t)(**{**t.tables(), "launches": twice}, meta=t.meta)
    ops = gpu_ops(t2)
    assert int((ops["launch_row"] == i).sum()) >= 1
    lost, _, checked = integrity.lost_ops(t2.launches, ops, rep.steps, integrity.limits())
    assert not lost.any() and checked > 0


@settings(max_examples=60, deadline=None, derandomize=True)
@given(st.lists(st.tuples(st.integers(0, 3), st.integers(-2**62, 2**62)), min_size=1, max_size=40),
       st.booleans())
def test_earlier_max_is_a_grouped_running_max(rows, small):
    """_earlier_max is the running max of the rows before each row in its group, on the fast path
    (small values) and the fallback (values spread over the whole int64 range), exact in ints."""
    rows = sorted(rows, key=lambda r: r[0])
    group = np.array([r[0] for r in rows], np.int64)
    group = np.r_[0, np.cumsum(group[1:] != group[:-1])]
    x = np.array([r[1] % 10_000 if small else r[1] for r in rows], np.int64)
    got = integrity._earlier_max(x, group)
    for i in np.flatnonzero(np.r_[False, group[1:] == group[:-1]]):
        assert got[i] == max(int(v) for v, g in zip(x[:i], group[:i]) if g == group[i])


@settings(max_examples=60, deadline=None, derandomize=True)
@given(st.lists(st.tuples(st.integers(0, 5), st.integers(-2**62, 2**62)), min_size=1, max_size=40),
       st.booleans())
def test_group_median_is_pandas_median(rows, small):
    """_group_median gives pandas' grouped median (of the values as float64) and count, with
    (group, value) packed in one sorted key or, for values spread over the int64 range, lexsorted."""
    group = np.array([r[0] for r in rows], np.int64)
    x = np.array([r[1] % 1000 if small else r[1] for r in rows], np.int64)
    med, n = integrity._group_median(group, x)
    ref = pd.Series(x.astype(np.float64)).groupby(group)
    assert (med == ref.transform("median").to_numpy()).all()
    assert (n == ref.transform("size").to_numpy()).all()


def test_launches_inside_stream_capture_are_not_lost():
    """A graph capture trace: its launches record into graphs and run nothing, and are not lost."""
    p = PUBLIC / "tracelens_mi300_vllm_graph_capture.json.gz"
    if not p.exists():
        pytest.skip("../shared/traces not present")
    t = read(str(p))
    rep = analyze(t)
    (sub, _), = split_ranks(t)
    lost, _, checked = integrity.lost_ops(sub.launches, gpu_ops(sub), rep.steps, integrity.limits())
    assert checked > 0 and not lost.any()
    begin = integrity.limits().capture_begin
    names = t.launches["name"].astype(str)
    assert names.str.contains(begin.pattern).sum() == 25


# ------------------------------------------------------------------------------------------------
# the report and the diff gate

def test_trust_line_at_the_top(tmp_path):
    r = run_cli("report", EAGER_NSYS, "--no-cache")
    assert r.rc == 0
    assert r.out.splitlines()[1] == ("trust: 5 checks passed (stream order, durations, drops, launch calls, "
                                     "lost ops; clocks n/a)")
    rowid, *_ = middle_kernel()
    bad = nsys_copy(tmp_path, f"delete from {KERNELS} where rowid = {rowid}")
    for fmt, line in (("text", 1), ("md", 2)):
        r = run_cli("report", bad, "--no-cache", "--format", fmt)
        assert r.rc == 0
        assert r.out.splitlines()[line].startswith(
            "trust: 1 of 5 checks FAILED (lost ops: 1 of 6,"), r.out.splitlines()[line]
        assert "1 of 25 steps affected" in " ".join(r.out.split())
    doc = json.loads(run_cli("report", bad, "--no-cache", "--format", "json").out)
    integ = doc["summary"]["integrity"]
    assert integ["trusted"] is False and len(integ["affected_steps"]) == 1
    step = integ["affected_steps"][0]
    assert [s["integrity"] for s in doc["steps"] if s["index"] == step["index"]] == [["lost_ops"]]
    assert sum(bool(s["integrity"]) for s in doc["steps"]) == 1
    assert any(n.startswith("trace integrity: 1 of ") for n in doc["notes"])


def test_diff_gate_refuses_untrusted_traces(tmp_path):
    rowid, *_ = middle_kernel()
    bad = nsys_copy(tmp_path, f"delete from {KERNELS} where rowid = {rowid}")
    r = run_cli("diff", EAGER_NSYS, bad, "--no-cache", "--fail-if-slower", "50")
    assert r.rc == 2
    assert "integrity" in r.err and "lost_ops" in r.err and "--allow-untrusted" in r.err
    assert r.err.count("\n") == 1
    r = run_cli("diff", EAGER_NSYS, bad, "--no-cache", "--fail-if-slower", "50", "--allow-untrusted")
    assert r.rc == 0, r.err
    assert "untrusted: llama_eager_nsys.sqlite failed lost_ops (1 step(s) affected)" in r.out
    # without the gate the diff is shown, and says which run is untrusted
    r = run_cli("diff", EAGER_NSYS, bad, "--no-cache")
    assert r.rc == 0 and "untrusted: " in r.out
    doc = json.loads(run_cli("diff", EAGER_NSYS, bad, "--no-cache", "--format", "json", "--fail-if-slower", "50",
                             "--allow-untrusted").out)
    assert doc["gate"]["untrusted"] == [str(bad)] and doc["after"][0]["untrusted"] == ["lost_ops"]
    assert run_cli("diff", EAGER_NSYS, EAGER_NSYS, "--no-cache", "--fail-if-slower", "50").rc == 0


@given(st.lists(st.lists(st.booleans(), min_size=len(integrity.CHECKS), max_size=len(integrity.CHECKS)),
                max_size=40))
def test_flag_texts_join_each_steps_failed_checks(rows):
    """Each step's flags name its failed checks in CHECKS order, as joining them step by step does."""
    hit = np.array(rows, bool).reshape(len(rows), len(integrity.CHECKS))
    got = integrity._flag_texts(hit)
    assert got.dtype == object and len(got) == len(rows)
    assert got.tolist() == [",".join(c for c, h in zip(integrity.CHECKS, r) if h) for r in rows]
